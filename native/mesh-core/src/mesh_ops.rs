//! Index-buffer housekeeping shared by the tools: keep only referenced vertices (in first-use
//! order, which is also the vertex fetch order), merge bit-identical vertices, drop faces that
//! repeat a corner.
use crate::equal_keys::first_of_equal;
use crate::model::{Attribute, Primitive};

/// A primitive holding only the vertices `indices` use, renumbered in order of first use.
pub fn compact(source: &Primitive, indices: &[u32]) -> Primitive {
    let mut remap = vec![u32::MAX; source.positions.len()];
    let mut order: Vec<u32> = Vec::with_capacity(source.positions.len());
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
            .map(|a| Attribute { semantic: a.semantic.clone(), components: a.components, data: gather(&a.data, a.components, &order) })
            .collect(),
        indices: new_indices,
        material: source.material,
    }
}

/// The `per_vertex` values of each vertex in `order`, one after another.
fn gather(values: &[f32], per_vertex: usize, order: &[u32]) -> Vec<f32> {
    let mut out = Vec::with_capacity(order.len() * per_vertex);
    for &v in order {
        let start = v as usize * per_vertex;
        out.extend_from_slice(&values[start..start + per_vertex]);
    }
    out
}

/// Merges vertices whose position and every attribute are bit-identical (the key is the
/// vertex's float bits, attribute after attribute; -0.0 counts as 0.0), then compacts.
pub fn weld_identical(p: &Primitive) -> Primitive {
    let bits = |c: f32| if c == 0.0 { 0 } else { c.to_bits() };
    let per_vertex = 3 + p.attributes.iter().map(|a| a.components).sum::<usize>();
    let mut keys = vec![0u32; p.positions.len() * per_vertex];
    for (key, position) in keys.chunks_exact_mut(per_vertex).zip(&p.positions) {
        for (k, &c) in key.iter_mut().zip(position) {
            *k = bits(c);
        }
    }
    let mut at = 3;
    for a in &p.attributes {
        for (key, values) in keys.chunks_exact_mut(per_vertex).zip(a.data.chunks_exact(a.components)) {
            for (k, &c) in key[at..at + a.components].iter_mut().zip(values) {
                *k = bits(c);
            }
        }
        at += a.components;
    }
    let (representative, _) = first_of_equal(&keys, per_vertex);
    drop(keys);
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
