//! Merges vertices that are the same point of the surface but carry normals (and tangents) that
//! differ only by a hair: identical position and every other attribute, normal directions within
//! `NOISE_ANGLE_DEG`. Exporters often leave such pairs where a smoothing pass or a format
//! round-trip perturbed one copy; to the simplifier they look like normal seams that pin edges in
//! place, and they are written twice. A real crease differs by tens of degrees and stays split.
//! The merged vertex gets the normalized mean of the normals it replaces.
use crate::equal_keys::{first_of_equal, KeyHash, VertexKeys};
use crate::mesh_ops::{compact, float_bits};
use crate::model::Primitive;

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
    let n = p.positions.len();
    // Vertices with the same key form a group; `first` names each group by its first vertex.
    let (first, _) = first_of_equal(&KeyWithoutNormal { p: &p, normal_at, tangent_at });
    // The representatives of a group, in the order they were made: a list threaded through
    // `next` from the group's first vertex (always a representative), so no vertex allocates.
    const END: u32 = u32::MAX;
    let mut next = vec![END; n];
    let mut representative = vec![0u32; n];
    let mut sums: Vec<[f32; 3]> = vec![[0.0; 3]; n];
    for v in 0..n {
        let normal = direction(&p.attributes[normal_at].data, v, 3);
        let close = |r: u32| {
            let r = r as usize;
            dot(normal, direction(&p.attributes[normal_at].data, r, 3)) >= min_cos
                && tangent_at.is_none_or(|t| dot(direction(&p.attributes[t].data, v, 4), direction(&p.attributes[t].data, r, 4)) >= min_cos)
        };
        let r = match first[v] as usize == v {
            true => v as u32,
            false => {
                let mut r = first[v];
                loop {
                    if close(r) {
                        break r;
                    }
                    if next[r as usize] == END {
                        next[r as usize] = v as u32;
                        break v as u32;
                    }
                    r = next[r as usize];
                }
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

/// The key of a vertex: its position and every attribute but the normal and the tangent's
/// direction (the tangent's handedness sign stays in the key: mirrored UVs must not merge).
struct KeyWithoutNormal<'a> {
    p: &'a Primitive,
    normal_at: usize,
    tangent_at: Option<usize>,
}

impl KeyWithoutNormal<'_> {
    /// The key's words after the position, attribute by attribute.
    fn attribute_words(&self, v: usize, mut word: impl FnMut(u32)) {
        for (i, a) in self.p.attributes.iter().enumerate() {
            if i == self.normal_at {
                continue;
            }
            if Some(i) == self.tangent_at {
                word(u32::from(a.data[v * 4 + 3] < 0.0));
                continue;
            }
            a.data[v * a.components..(v + 1) * a.components].iter().for_each(|&c| word(float_bits(c)));
        }
    }
}

impl VertexKeys for KeyWithoutNormal<'_> {
    fn count(&self) -> usize {
        self.p.positions.len()
    }

    fn hash(&self, v: usize, hash: &mut KeyHash) {
        self.p.positions[v].iter().for_each(|&c| hash.word(float_bits(c)));
        self.attribute_words(v, |w| hash.word(w));
    }

    fn equal(&self, x: usize, y: usize) -> bool {
        let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(&a, &b)| float_bits(a) == float_bits(b));
        same(&self.p.positions[x], &self.p.positions[y])
            && self.p.attributes.iter().enumerate().all(|(i, a)| match i {
                _ if i == self.normal_at => true,
                _ if Some(i) == self.tangent_at => (a.data[x * 4 + 3] < 0.0) == (a.data[y * 4 + 3] < 0.0),
                _ => same(&a.data[x * a.components..(x + 1) * a.components], &a.data[y * a.components..(y + 1) * a.components]),
            })
    }
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
            variant_materials: Vec::new(),
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
    fn a_copy_joins_the_split_side_it_is_close_to() {
        // Three copies of one corner: up, a 45-degree side, and the side again a hair off. The
        // third belongs to the second representative of its group, not to the first.
        let up = [0.0, 0.0, 1.0];
        let side = [0.0, 0.5f32.sqrt(), 0.5f32.sqrt()];
        let near_side = [0.0, 0.71, 0.7042];
        let mut p = quad([up, up, up, side, side, up]);
        p.positions.push([0.0, 0.0, 0.0]);
        p.attributes[0].data.extend(near_side);
        p.indices.extend([6, 1, 2]);
        let welded = weld_near_normals(p);
        assert_eq!(welded.positions.len(), 6);
        assert_eq!(welded.indices[6..], welded.indices[3..4].iter().chain(&welded.indices[1..3]).copied().collect::<Vec<_>>()[..]);
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
