//! Index-buffer housekeeping shared by the tools: keep only referenced vertices (in first-use
//! order, which is also the vertex fetch order), merge bit-identical vertices, drop faces that
//! repeat a corner.
use crate::model::{Attribute, Primitive};
use rustc_hash::FxBuildHasher;
use std::collections::HashMap;

/// A primitive holding only the vertices `indices` use, renumbered in order of first use.
pub fn compact(source: &Primitive, indices: &[u32]) -> Primitive {
    let mut remap = vec![u32::MAX; source.positions.len()];
    let mut order: Vec<u32> = Vec::new();
    let new_indices = indices
        .iter()
        .map(|&i| {
            let slot = &mut remap[i as usize];
            if *slot == u32::MAX {
                *slot = order.len() as u32;
                order.push(i);
            }
            *slot
        })
        .collect();
    Primitive {
        positions: order.iter().map(|&i| source.positions[i as usize]).collect(),
        attributes: source
            .attributes
            .iter()
            .map(|a| Attribute {
                semantic: a.semantic.clone(),
                components: a.components,
                data: order.iter().flat_map(|&i| &a.data[i as usize * a.components..(i as usize + 1) * a.components]).copied().collect(),
            })
            .collect(),
        indices: new_indices,
        material: source.material,
    }
}

/// Merges vertices whose position and every attribute are bit-identical (hashing the
/// interleaved vertex; -0.0 counts as 0.0), then compacts.
pub fn weld_identical(p: &Primitive) -> Primitive {
    let bits = |c: &f32| if *c == 0.0 { 0 } else { c.to_bits() };
    let per_vertex = 3 + p.attributes.iter().map(|a| a.components).sum::<usize>();
    let mut interleaved: Vec<u32> = Vec::with_capacity(p.positions.len() * per_vertex);
    for v in 0..p.positions.len() {
        interleaved.extend(p.positions[v].iter().map(bits));
        for a in &p.attributes {
            interleaved.extend(a.data[v * a.components..(v + 1) * a.components].iter().map(bits));
        }
    }
    let mut first: HashMap<&[u32], u32, FxBuildHasher> = HashMap::with_capacity_and_hasher(p.positions.len(), FxBuildHasher);
    let representative: Vec<u32> = interleaved.chunks_exact(per_vertex).enumerate().map(|(v, key)| *first.entry(key).or_insert(v as u32)).collect();
    let indices: Vec<u32> = p.indices.iter().map(|&i| representative[i as usize]).collect();
    compact(p, &indices)
}

/// Drops triangles that use the same vertex twice.
pub fn without_degenerate(indices: &[u32]) -> Vec<u32> {
    indices.chunks_exact(3).filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2]).flatten().copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad_with_duplicates() -> Primitive {
        Primitive {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [9.0, 9.0, 9.0]],
            attributes: vec![Attribute {
                semantic: "TEXCOORD_0".into(),
                components: 2,
                data: vec![0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 5.0, 5.0],
            }],
            indices: vec![0, 1, 2, 3, 4, 5],
            material: Some(2),
        }
    }

    #[test]
    fn weld_merges_identical_vertices_and_drops_unused_ones() {
        let welded = weld_identical(&quad_with_duplicates());
        assert_eq!(welded.positions.len(), 4);
        assert_eq!(welded.indices, vec![0, 1, 2, 0, 2, 3]);
        assert_eq!(welded.attributes[0].data.len(), 8);
        assert_eq!(welded.material, Some(2));
    }

    #[test]
    fn compact_keeps_first_use_order_and_degenerate_faces_go() {
        let p = quad_with_duplicates();
        let c = compact(&p, &[5, 4, 3]);
        assert_eq!(c.positions, vec![[0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]);
        assert_eq!(without_degenerate(&[0, 1, 1, 0, 1, 2]), vec![0, 1, 2]);
    }
}
