//! A small software rasterizer for preview images: triangles in world space are viewed
//! orthographically from a few directions, depth-tested per pixel, and flat shaded by the angle
//! between each face normal and a light at the viewer's shoulder.
use crate::math::{cross, dot, normalize, sub, Bounds};

pub struct Triangle {
    pub corners: [[f32; 3]; 3],
    pub color: [f32; 3],
}

/// Rotations as (right, up, toward the viewer) axes: front, right side, top and an isometric view.
fn views() -> [[[f32; 3]; 3]; 4] {
    let iso_forward = normalize([1.0, 0.8, 1.0]).unwrap_or([0.0, 0.0, 1.0]);
    let iso_right = normalize(cross([0.0, 1.0, 0.0], iso_forward)).unwrap_or([1.0, 0.0, 0.0]);
    let iso_up = cross(iso_forward, iso_right);
    [
        [iso_right, iso_up, iso_forward],
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        [[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
        [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]],
    ]
}

/// Renders the views side by side into an RGBA image of (tile * 4) x tile pixels.
pub fn render_views(triangles: &[Triangle], tile: usize) -> (usize, usize, Vec<u8>) {
    let (width, height) = (tile * 4, tile);
    let mut rgba = vec![0u8; width * height * 4];
    for px in rgba.chunks_exact_mut(4) {
        px.copy_from_slice(&[242, 244, 247, 255]);
    }
    let mut bounds = Bounds::empty();
    triangles.iter().flat_map(|t| t.corners).for_each(|p| bounds.add(p));
    let center = bounds.center();
    let radius = triangles.iter().flat_map(|t| t.corners).map(|p| crate::math::length(sub(p, center))).fold(0.0f32, f32::max).max(1e-12);
    let scale = tile as f32 * 0.46 / radius;
    let mut depth = vec![f32::NEG_INFINITY; tile * tile];
    for (v, axes) in views().iter().enumerate() {
        depth.iter_mut().for_each(|d| *d = f32::NEG_INFINITY);
        let light = normalize([
            0.35 * axes[0][0] + 0.6 * axes[1][0] + axes[2][0],
            0.35 * axes[0][1] + 0.6 * axes[1][1] + axes[2][1],
            0.35 * axes[0][2] + 0.6 * axes[1][2] + axes[2][2],
        ])
        .unwrap_or(axes[2]);
        for t in triangles {
            let Some(n) = normalize(crate::math::face_normal(t.corners[0], t.corners[1], t.corners[2])) else { continue };
            let shade = 0.25 + 0.75 * dot(n, light).abs();
            let color = t.color.map(|c| (c * shade * 255.0).clamp(0.0, 255.0) as u8);
            let s = t.corners.map(|p| {
                let d = sub(p, center);
                [tile as f32 * 0.5 + dot(d, axes[0]) * scale, tile as f32 * 0.5 - dot(d, axes[1]) * scale, dot(d, axes[2])]
            });
            fill(&s, tile, &mut depth, |x, y| {
                let at = (y * width + v * tile + x) * 4;
                rgba[at..at + 3].copy_from_slice(&color);
            });
        }
    }
    (width, height, rgba)
}

/// Scan-converts one screen-space triangle with edge functions, keeping the nearest surface.
fn fill(s: &[[f32; 3]; 3], tile: usize, depth: &mut [f32], mut plot: impl FnMut(usize, usize)) {
    let area = (s[1][0] - s[0][0]) * (s[2][1] - s[0][1]) - (s[2][0] - s[0][0]) * (s[1][1] - s[0][1]);
    if area.abs() < 1e-12 || !area.is_finite() {
        return;
    }
    let min_x = s.iter().map(|p| p[0]).fold(f32::MAX, f32::min).floor().max(0.0) as usize;
    let max_x = s.iter().map(|p| p[0]).fold(f32::MIN, f32::max).ceil().min(tile as f32 - 1.0).max(0.0) as usize;
    let min_y = s.iter().map(|p| p[1]).fold(f32::MAX, f32::min).floor().max(0.0) as usize;
    let max_y = s.iter().map(|p| p[1]).fold(f32::MIN, f32::max).ceil().min(tile as f32 - 1.0).max(0.0) as usize;
    for y in min_y..=max_y {
        for x in min_x..=max_x {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            let w = [1, 2, 0].map(|k| {
                let (a, b) = (s[k], s[(k + 1) % 3]);
                ((b[0] - a[0]) * (py - a[1]) - (px - a[0]) * (b[1] - a[1])) / area
            });
            if w.iter().all(|&v| v >= 0.0) {
                let z = w[0] * s[0][2] + w[1] * s[1][2] + w[2] * s[2][2];
                let d = &mut depth[y * tile + x];
                if z > *d {
                    *d = z;
                    plot(x, y);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_triangle_facing_the_viewer_covers_pixels_in_every_view_tile() {
        let t = Triangle { corners: [[-1.0, -1.0, 0.0], [1.0, -1.0, 0.1], [0.0, 1.0, 0.3]], color: [1.0, 0.0, 0.0] };
        let (w, h, rgba) = render_views(&[t], 32);
        assert_eq!((w, h), (128, 32));
        let red_in_tile = |tile: usize| {
            (0..32).any(|y| {
                (0..32).any(|x| {
                    let at = (y * w + tile * 32 + x) * 4;
                    rgba[at] > 60 && rgba[at + 1] == 0
                })
            })
        };
        assert!(red_in_tile(0) && red_in_tile(1));
    }
}
