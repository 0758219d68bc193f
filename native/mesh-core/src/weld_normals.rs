//! Merges vertices that are the same point of the surface but carry normals (and tangents) that
//! differ only by a hair: identical position and every other attribute, normal directions within
//! `NOISE_ANGLE_DEG`. Exporters often leave such pairs where a smoothing pass or a format
//! round-trip perturbed one copy; to the simplifier they look like normal seams that pin edges in
//! place, and they are written twice. A real crease differs by tens of degrees and stays split.
//! The merged vertex gets the normalized mean of the normals it replaces.
use crate::mesh_ops::compact;
use crate::model::Primitive;
use std::collections::HashMap;

/// About the precision of an 8-bit octahedral normal: no viewer can tell such normals apart.
pub const NOISE_ANGLE_DEG: f32 = 1.0;

fn direction(data: &[f32], v: usize, components: usize) -> [f32; 3] {
    let d = &data[v * components..v * components + 3];
    let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    if len > 0.0 {
        [d[0] / len, d[1] / len, d[2] / len]
    } else {
        [0.0; 3]
    }
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `p` with near-duplicate vertices merged (see the module comment); `p` itself when it has no
/// normals or nothing merges.
// `v` indexes the positions, every attribute and the sums alike: an index loop says that best.
#[allow(clippy::needless_range_loop)]
pub fn weld_near_normals(p: Primitive) -> Primitive {
    let Some(normal_at) = p.attributes.iter().position(|a| a.semantic == "NORMAL" && a.components == 3) else {
        return p;
    };
    let tangent_at = p.attributes.iter().position(|a| a.semantic == "TANGENT" && a.components == 4);
    let min_cos = NOISE_ANGLE_DEG.to_radians().cos();
    let bits = |c: &f32| if *c == 0.0 { 0 } else { c.to_bits() };
    let n = p.positions.len();
    // Key: position and every attribute but the normal and the tangent's direction (its handedness
    // sign stays in the key: mirrored UVs must not merge).
    let mut keys: HashMap<Vec<u32>, Vec<u32>> = HashMap::with_capacity(n);
    let mut representative = vec![0u32; n];
    let mut sums: Vec<[f32; 3]> = vec![[0.0; 3]; n];
    for v in 0..n {
        let mut key: Vec<u32> = p.positions[v].iter().map(bits).collect();
        for (i, a) in p.attributes.iter().enumerate() {
            if i == normal_at {
                continue;
            }
            if Some(i) == tangent_at {
                key.push(u32::from(a.data[v * 4 + 3] < 0.0));
                continue;
            }
            key.extend(a.data[v * a.components..(v + 1) * a.components].iter().map(bits));
        }
        let normal = direction(&p.attributes[normal_at].data, v, 3);
        let close = |r: u32| {
            let r = r as usize;
            dot(normal, direction(&p.attributes[normal_at].data, r, 3)) >= min_cos
                && tangent_at.is_none_or(|t| dot(direction(&p.attributes[t].data, v, 4), direction(&p.attributes[t].data, r, 4)) >= min_cos)
        };
        let candidates = keys.entry(key).or_default();
        let r = match candidates.iter().copied().find(|&r| close(r)) {
            Some(r) => r,
            None => {
                candidates.push(v as u32);
                v as u32
            }
        };
        representative[v] = r;
        for k in 0..3 {
            sums[r as usize][k] += normal[k];
        }
    }
    if representative.iter().enumerate().all(|(v, &r)| r as usize == v) {
        return p;
    }
    let indices: Vec<u32> = p.indices.iter().map(|&i| representative[i as usize]).collect();
    let mut merged = p;
    let normals = &mut merged.attributes[normal_at].data;
    for (v, s) in sums.iter().enumerate() {
        let len = dot(*s, *s).sqrt();
        if representative[v] as usize == v && len > 0.0 {
            normals[v * 3..v * 3 + 3].copy_from_slice(&[s[0] / len, s[1] / len, s[2] / len]);
        }
    }
    let indices = crate::mesh_ops::without_degenerate(indices);
    compact(&merged, &indices)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Attribute;

    fn quad(normals: [[f32; 3]; 6]) -> Primitive {
        // Two triangles sharing an edge, each with its own copy of the two shared corners.
        let positions = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]];
        Primitive {
            positions,
            attributes: vec![Attribute { semantic: "NORMAL".into(), components: 3, data: normals.iter().flatten().copied().collect() }],
            indices: vec![0, 1, 2, 3, 4, 5],
            material: None,
        }
    }

    #[test]
    fn normals_a_hair_apart_merge_to_their_mean() {
        let up = [0.0, 0.0, 1.0];
        let tilted = [0.0, 0.01, 0.99995]; // 0.57 degrees off
        let p = weld_near_normals(quad([up, up, up, tilted, tilted, up]));
        assert_eq!(p.positions.len(), 4);
        assert_eq!(p.face_count(), 2);
        let n = &p.attributes[0].data;
        assert!((n[1] - 0.005).abs() < 1e-3, "mean of the two normals: {n:?}");
    }

    #[test]
    fn a_crease_stays_split() {
        let up = [0.0, 0.0, 1.0];
        let side = [0.0, 0.5f32.sqrt(), 0.5f32.sqrt()]; // 45 degrees
        let p = weld_near_normals(quad([up, up, up, side, side, up]));
        assert_eq!(p.positions.len(), 6);
    }

    #[test]
    fn other_attributes_must_match_exactly() {
        let up = [0.0, 0.0, 1.0];
        let mut p = quad([up; 6]);
        p.attributes.push(Attribute { semantic: "TEXCOORD_0".into(), components: 2, data: vec![0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.5, 0.0, 1.0, 1.0, 0.0, 1.0] });
        let welded = weld_near_normals(p);
        // Corner 0/3 differ in UV (a seam): kept apart; corner 2/4 match: merged.
        assert_eq!(welded.positions.len(), 5);
    }
}
