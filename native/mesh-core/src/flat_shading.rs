//! Flat-shaded primitives, simplified as their surface. A flat-shaded primitive gives every corner of
//! a face that face's own normal (CAD exports, low-poly art, faceted machined parts), so its
//! vertices split wherever two faces meet at an angle. To the simplifier each split is a seam that
//! stays in place, and on a faceted solid every edge between facets is one: a 48-sided bolt cannot
//! lose a side however much error the caller allows (the bench's held-out `hard-surface`, 400 such
//! parts: 117,164 faces kept 115,564 within 1 % of the scene). Such a primitive goes to the
//! simplifier without its normals, so corners that differ only by them are one vertex, and the
//! simplified faces get their own normals back: still flat shaded, with fewer facets.
use crate::math::{cross, dot, face_normal, normalize, sub};
use crate::mesh_ops::{weld_identical, without_degenerate};
use crate::model::{target_of, Attribute, Primitive};
use crate::weld_normals::{weld_near_normals, NOISE_ANGLE_DEG};

/// Largest angle between a corner's normal and the normal of its face worked out from the corner
/// positions for the face to count as flat shaded. Exporters compute the two alike, but from f32
/// positions a small face's own normal is off by a fraction of a degree.
const FACE_ANGLE_DEG: f32 = 5.0;

/// Faces whose height over their longest edge is under this share of that edge have no reliable
/// normal of their own (slivers and points): they say nothing either way.
const SLIVER: f32 = 1e-3;

/// Whether every face of `p` with a reliable normal of its own carries that normal at all three
/// corners (within `NOISE_ANGLE_DEG` of one another and `FACE_ANGLE_DEG` of the face's), and
/// there is at least one such face. Primitives with tangents or morphed normals are left out:
/// those follow the shading the normals had, which faces' own normals would not reproduce.
pub fn is_flat_shaded(p: &Primitive) -> bool {
    let Some(normals) = p.attribute("NORMAL").filter(|a| a.components == 3) else {
        return false;
    };
    if p.attributes.iter().any(|a| a.semantic == "TANGENT" || target_of(&a.semantic).is_some_and(|(_, base)| base != "POSITION")) {
        return false;
    }
    let (together, along) = (NOISE_ANGLE_DEG.to_radians().cos(), FACE_ANGLE_DEG.to_radians().cos());
    let normal = |v: usize| normalize([normals.data[v * 3], normals.data[v * 3 + 1], normals.data[v * 3 + 2]]);
    let mut judged = 0usize;
    for t in p.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|v| v as usize);
        let Some(own) = own_normal(p.positions[a], p.positions[b], p.positions[c]) else {
            continue;
        };
        let (Some(na), Some(nb), Some(nc)) = (normal(a), normal(b), normal(c)) else {
            return false;
        };
        if dot(na, own) < along || dot(nb, na) < together || dot(nc, na) < together {
            return false;
        }
        judged += 1;
    }
    judged > 0
}

/// A face's unit normal from its corners, or None for a sliver (`SLIVER`).
fn own_normal(a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> Option<[f32; 3]> {
    let n = face_normal(a, b, c);
    let longest2 = [sub(b, a), sub(c, b), sub(a, c)].iter().map(|e| dot(*e, *e)).fold(0.0f32, f32::max);
    // |n| is twice the area: the longest edge times the height over it.
    (dot(n, n).sqrt() > SLIVER * longest2).then(|| normalize(n)).flatten()
}

/// `p` without its normals, with the corners that differed only by them merged (and faces left
/// with a repeated corner dropped).
pub fn as_surface(p: &Primitive) -> Primitive {
    let surface = Primitive { attributes: p.attributes.iter().filter(|a| a.semantic != "NORMAL").cloned().collect(), ..p.clone() };
    let mut welded = weld_identical(&surface);
    welded.indices = without_degenerate(std::mem::take(&mut welded.indices));
    welded
}

/// `p` (a surface without normals) flat shaded: each face's corners carry the face's own normal,
/// and corners of neighbouring faces merge where their normals are within `NOISE_ANGLE_DEG` (the
/// faces of one flat facet, split only by how the simplifier cut it).
pub fn with_face_normals(p: &Primitive) -> Primitive {
    let corners = p.indices.len();
    let mut split = Primitive {
        positions: Vec::with_capacity(corners),
        attributes: p
            .attributes
            .iter()
            .map(|a| Attribute { semantic: a.semantic.clone(), components: a.components, data: Vec::with_capacity(corners * a.components) })
            .collect(),
        indices: (0..corners as u32).collect(),
        material: p.material,
        variant_materials: p.variant_materials.clone(),
    };
    let mut normals = Vec::with_capacity(corners * 3);
    for t in p.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|v| p.positions[v as usize]);
        // A face with no area shows nothing; any unit normal keeps the file valid.
        let n = normalize(cross(sub(b, a), sub(c, a))).unwrap_or([0.0, 0.0, 1.0]);
        for &v in t {
            let v = v as usize;
            split.positions.push(p.positions[v]);
            for (to, from) in split.attributes.iter_mut().zip(&p.attributes) {
                to.data.extend_from_slice(&from.data[v * from.components..(v + 1) * from.components]);
            }
            normals.extend(n);
        }
    }
    split.attributes.insert(0, Attribute { semantic: "NORMAL".into(), components: 3, data: normals });
    weld_near_normals(weld_identical(&split))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simplify::{collapse_unmeasured, simplify_primitive};
    use crate::surface_distance::deviation;

    /// A closed prism of `sides` facets around the y axis, radius 1 and height `height`, flat
    /// shaded: every facet (and both caps) with its own four or `sides` corners.
    fn faceted_prism(sides: usize, height: f32, rings: usize) -> Primitive {
        let mut p = Primitive::default();
        let mut normals = Vec::new();
        let angle = |k: usize| std::f32::consts::TAU * k as f32 / sides as f32;
        let mut quad = |p: &mut Primitive, corners: [[f32; 3]; 4], n: [f32; 3]| {
            let base = p.positions.len() as u32;
            p.positions.extend(corners);
            (0..4).for_each(|_| normals.extend(n));
            p.indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        };
        for k in 0..sides {
            // The last facet ends where the first starts, to the bit.
            let (a0, a1) = (angle(k), angle((k + 1) % sides));
            let middle = angle(k) + std::f32::consts::PI / sides as f32;
            for r in 0..rings {
                let (y0, y1) = (height * r as f32 / rings as f32, height * (r + 1) as f32 / rings as f32);
                let corners = [[a0.cos(), y0, a0.sin()], [a0.cos(), y1, a0.sin()], [a1.cos(), y1, a1.sin()], [a1.cos(), y0, a1.sin()]];
                // The outward normal, wound to match (a0 → a1 turns from +x toward +z).
                quad(&mut p, corners, [middle.cos(), 0.0, middle.sin()]);
            }
        }
        for (y, up) in [(0.0, -1.0f32), (height, 1.0)] {
            let centre = p.positions.len() as u32;
            p.positions.push([0.0, y, 0.0]);
            normals.extend([0.0, up, 0.0]);
            for k in 0..sides {
                p.positions.push([angle(k).cos(), y, angle(k).sin()]);
                normals.extend([0.0, up, 0.0]);
            }
            for k in 0..sides as u32 {
                let (a, b) = (centre + 1 + k, centre + 1 + (k + 1) % sides as u32);
                p.indices.extend(if up > 0.0 { [centre, b, a] } else { [centre, a, b] });
            }
        }
        p.attributes.push(Attribute { semantic: "NORMAL".into(), components: 3, data: normals });
        p
    }

    #[test]
    fn a_faceted_prism_is_flat_shaded_and_a_smooth_one_is_not() {
        let flat = faceted_prism(12, 2.0, 3);
        assert!(is_flat_shaded(&flat));
        let mut smooth = flat.clone();
        let normals = &mut smooth.attributes[0].data;
        for (v, q) in smooth.positions.iter().enumerate() {
            if q[0].hypot(q[2]) > 0.99 {
                normals[v * 3..v * 3 + 3].copy_from_slice(&[q[0], 0.0, q[2]]);
            }
        }
        assert!(!is_flat_shaded(&smooth));
        assert!(!is_flat_shaded(&Primitive { attributes: vec![], ..flat.clone() }));
    }

    #[test]
    fn as_a_surface_the_facets_share_their_corners() {
        let flat = faceted_prism(12, 2.0, 3);
        let surface = as_surface(&flat);
        // 12 columns of 4 ring corners, and the two cap centres.
        assert_eq!(surface.positions.len(), 12 * 4 + 2);
        assert_eq!(surface.indices.len(), flat.indices.len());
        assert!(surface.attribute("NORMAL").is_none());
    }

    #[test]
    fn rebuilt_normals_are_each_faces_own_and_facets_share_corners() {
        let flat = faceted_prism(12, 2.0, 3);
        let rebuilt = with_face_normals(&as_surface(&flat));
        assert!(is_flat_shaded(&rebuilt));
        // Each side facet's 3 rings share corners within the facet: 4 × 2 per facet, and each cap its own 13.
        assert_eq!(rebuilt.positions.len(), 12 * 8 + 2 * 13);
        let normals = &rebuilt.attribute("NORMAL").unwrap().data;
        assert!(normals.chunks_exact(3).all(|n| (dot([n[0], n[1], n[2]], [n[0], n[1], n[2]]) - 1.0).abs() < 1e-5));
    }

    /// The point of it: a 96-sided prism within 1 % of its radius can lose most of its sides (a
    /// 24-sided one is within 0.86 %), but with split normals each side's corners meet three
    /// normals and the simplifier cannot move them. As a surface it loses them (down to 0.86 %
    /// measured: 24 sides), and comes back flat shaded.
    #[test]
    fn a_faceted_prism_simplifies_as_a_surface_and_stays_flat_shaded() {
        let flat = faceted_prism(96, 2.0, 1);
        let pinned = simplify_primitive(&weld_identical(&flat), 10, 0.01, false);
        // Only the caps' centres can go (into a side corner, two faces each).
        assert!(pinned.primitive.face_count() >= flat.face_count() - 4, "{}", pinned.primitive.face_count());
        let simplified = simplify_primitive(&as_surface(&flat), 10, 0.01, false);
        let shaded = with_face_normals(&simplified.primitive);
        assert!(shaded.face_count() < flat.face_count() / 2, "{}", shaded.face_count());
        assert!(simplified.error <= 0.01);
        assert_eq!(simplified.error, deviation(&as_surface(&flat), &simplified.primitive));
        assert!(is_flat_shaded(&shaded));
    }

    /// A bevelled part like the bench's and the TypeScript test's: `sides` facets over a profile of
    /// (height, radius) rings, closed by two caps, flat shaded.
    fn bevelled_part(sides: usize, profile: &[(f32, f32)]) -> Primitive {
        let mut p = Primitive::default();
        let mut normals = Vec::new();
        let at = |k: usize, (y, r): (f32, f32)| {
            let angle = std::f32::consts::TAU * (k % sides) as f32 / sides as f32;
            [r * angle.cos(), y, r * angle.sin()]
        };
        let mut face = |p: &mut Primitive, corners: Vec<[f32; 3]>| {
            let n = normalize(face_normal(corners[0], corners[1], corners[2])).unwrap();
            let base = p.positions.len() as u32;
            for c in &corners {
                p.positions.push(*c);
                normals.extend(n);
            }
            for k in 1..corners.len() as u32 - 1 {
                p.indices.extend([base, base + k, base + k + 1]);
            }
        };
        for ring in profile.windows(2) {
            for k in 0..sides {
                face(&mut p, vec![at(k, ring[0]), at(k, ring[1]), at(k + 1, ring[1]), at(k + 1, ring[0])]);
            }
        }
        let (bottom, top) = (profile[0], profile[profile.len() - 1]);
        face(&mut p, (0..sides).map(|k| at(k, bottom)).collect());
        face(&mut p, (0..sides).map(|k| at(sides - k, top)).collect());
        p.attributes.push(Attribute { semantic: "NORMAL".into(), components: 3, data: normals });
        p
    }

    /// Measured at rest, bevelled parts stay within the bound; by the collapse error alone (an
    /// area-weighted distance to the planes around a vertex) they end up to 3.5 times further off
    /// than it allows: a bevel's narrow faces weigh little against the long ones it is folded into.
    #[test]
    fn bevelled_parts_measured_at_rest_stay_within_the_bound_the_collapse_error_alone_misses() {
        let mut worst_unmeasured = 0.0f32;
        for (sides, profile, bound) in [
            (48, vec![(0.0, 1.0), (0.1, 0.8), (1.5, 0.8), (1.6, 1.0), (2.0, 1.0)], 0.05),
            (48, vec![(0.0, 1.0), (0.1, 0.8), (1.5, 0.8), (1.6, 1.0), (2.0, 1.0)], 0.1),
            (32, vec![(0.0, 1.2), (0.3, 1.2), (0.35, 1.0), (0.8, 1.0), (0.9, 0.7), (2.0, 0.7)], 0.05),
            (24, vec![(0.0, 0.6), (2.5, 0.6), (2.6, 0.45), (3.0, 0.45)], 0.05),
            (64, vec![(0.0, 0.5), (0.05, 0.45), (1.0, 0.45), (1.05, 0.5), (1.2, 0.5)], 0.02),
        ] {
            let part = as_surface(&bevelled_part(sides, &profile));
            let measured = simplify_primitive(&part, 10, bound, false);
            let deviation_measured = deviation(&part, &measured.primitive);
            assert!(deviation_measured <= bound, "{sides} sides, bound {bound}");
            // It says the deviation it measured, not the collapse error.
            assert!(measured.error >= deviation_measured * 0.999 && measured.error <= bound, "{} against {deviation_measured}", measured.error);
            assert!(measured.primitive.face_count() * 20 < part.face_count() * 11, "{sides} sides: {}", measured.primitive.face_count());
            let unmeasured = collapse_unmeasured(&part, 10, bound);
            worst_unmeasured = worst_unmeasured.max(deviation(&part, &unmeasured) / bound);
        }
        assert!(worst_unmeasured > 3.0, "{worst_unmeasured}");
    }
}
