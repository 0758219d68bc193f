//! Index-buffer housekeeping shared by the tools: keep only referenced vertices (in first-use
//! order, which is also the vertex fetch order), merge bit-identical vertices, drop faces that
//! repeat a corner.
use crate::equal_keys::{first_of_equal, KeyHash, VertexKeys};
use crate::model::{Attribute, Primitive};

/// A primitive holding only the vertices `indices` use, renumbered in order of first use.
pub fn compact(source: &Primitive, indices: &[u32]) -> Primitive {
    let mut remap = vec![u32::MAX; source.positions.len()];
    let mut order: Vec<u32> = Vec::with_capacity(source.positions.len());
    let mut new_indices = Vec::with_capacity(indices.len());
    for &i in indices {
        let slot = &mut remap[i as usize];
        if *slot == u32::MAX {
            *slot = order.len() as u32;
            order.push(i);
        }
        new_indices.push(*slot);
    }
    Primitive {
        positions: order.iter().map(|&i| source.positions[i as usize]).collect(),
        attributes: source
            .attributes
            .iter()
            .map(|a| Attribute { semantic: a.semantic.clone(), components: a.components, data: gather(&a.data, a.components, &order) })
            .collect(),
        indices: new_indices,
        material: source.material,
        variant_materials: source.variant_materials.clone(),
    }
}

/// Whether `compact(p, &p.indices)` would return `p` as it is: every vertex used, numbered in
/// order of first use.
pub fn is_compact(p: &Primitive) -> bool {
    let mut next = 0u32;
    for &i in &p.indices {
        if i > next {
            return false;
        }
        next += u32::from(i == next);
    }
    next as usize == p.positions.len()
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

/// Merges vertices whose position and every attribute are bit-identical (-0.0 counts as 0.0),
/// then compacts.
pub fn weld_identical(p: &Primitive) -> Primitive {
    let (representative, distinct) = first_of_equal(&FloatBits(p));
    if distinct == p.positions.len() {
        return compact(p, &p.indices);
    }
    let indices: Vec<u32> = p.indices.iter().map(|&i| representative[i as usize]).collect();
    compact(p, &indices)
}

/// A vertex's key: the bits of its position and of each attribute in turn.
struct FloatBits<'a>(&'a Primitive);

/// The bits of a float with both zeros as one.
pub fn float_bits(c: f32) -> u32 {
    if c == 0.0 {
        0
    } else {
        c.to_bits()
    }
}

impl VertexKeys for FloatBits<'_> {
    fn count(&self) -> usize {
        self.0.positions.len()
    }

    fn hash(&self, v: usize, hash: &mut KeyHash) {
        self.0.positions[v].iter().for_each(|&c| hash.word(float_bits(c)));
        for a in &self.0.attributes {
            a.data[v * a.components..(v + 1) * a.components].iter().for_each(|&c| hash.word(float_bits(c)));
        }
    }

    fn equal(&self, x: usize, y: usize) -> bool {
        let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(&a, &b)| float_bits(a) == float_bits(b));
        same(&self.0.positions[x], &self.0.positions[y])
            && self.0.attributes.iter().all(|a| same(&a.data[x * a.components..(x + 1) * a.components], &a.data[y * a.components..(y + 1) * a.components]))
    }
}

/// Drops triangles that use the same vertex twice, in place: the index buffer is the largest
/// array of a big mesh, and a copy of it costs its pages again.
pub fn without_degenerate(mut indices: Vec<u32>) -> Vec<u32> {
    let mut kept = 0;
    for t in 0..indices.len() / 3 {
        let [a, b, c] = [indices[3 * t], indices[3 * t + 1], indices[3 * t + 2]];
        if a != b && b != c && a != c {
            indices[3 * kept..3 * kept + 3].copy_from_slice(&[a, b, c]);
            kept += 1;
        }
    }
    indices.truncate(3 * kept);
    indices
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
            variant_materials: Vec::new(),
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
    fn a_compact_primitive_is_recognised_and_compacting_it_changes_nothing() {
        let welded = weld_identical(&quad_with_duplicates());
        assert!(is_compact(&welded));
        assert_eq!(compact(&welded, &welded.indices), welded);
        // The unused vertex 6, then vertices used out of first-use order.
        let mut unused = quad_with_duplicates();
        unused.indices = vec![0, 1, 2, 0, 2, 5, 3, 4, 5];
        let mut reordered = welded.clone();
        reordered.indices = vec![0, 2, 1, 0, 1, 3];
        for p in [unused, reordered] {
            assert!(!is_compact(&p));
            assert_ne!(compact(&p, &p.indices), p);
        }
    }

    #[test]
    fn weld_counts_both_zeros_as_one_and_nothing_else() {
        let mut p = quad_with_duplicates();
        p.positions[3] = [-0.0, 0.0, -0.0];
        assert_eq!(weld_identical(&p).positions.len(), 4);
        p.positions[3] = [f32::MIN_POSITIVE, 0.0, 0.0];
        assert_eq!(weld_identical(&p).positions.len(), 5);
    }

    #[test]
    fn compact_keeps_first_use_order_and_degenerate_faces_go() {
        let p = quad_with_duplicates();
        let c = compact(&p, &[5, 4, 3]);
        assert_eq!(c.positions, vec![[0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]);
        assert_eq!(without_degenerate(vec![0, 1, 1, 0, 1, 2, 3, 3, 4, 5, 6, 7, 8]), vec![0, 1, 2, 5, 6, 7]);
    }
}
