//! Welding at output precision: once every attribute is encoded for writing (positions on the
//! grid, 8-bit octahedral normals, 12-bit UVs, 8-bit weights...), vertices whose written bytes
//! agree in every attribute decode to the same vertex, so they are written once. Float vertices
//! that differed only by drift below that precision (CesiumMan: 661 of 3,273 vertices whose
//! normals differ by ~1e-6) would otherwise cost vertex bytes and break index runs.
//!
//! Identical bytes give identical decoded attributes, so the geometry does not change. Triangles
//! that end up with two corners on one vertex decode to zero area and are dropped.
use crate::equal_keys::{first_of_equal, KeyHash, VertexKeys};

/// The vertices to write, in first-use order, and the indices into them.
#[derive(Debug, PartialEq)]
pub(super) struct Welded {
    /// Source vertex written as each output vertex.
    pub kept: Vec<u32>,
    pub indices: Vec<u32>,
}

/// Who puts the triangles in vertex-cache order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriangleOrder {
    /// The tool did (simplify, split: meshoptimizer's cache order); the weld keeps it, and orders
    /// again only when it merged enough vertices to break it (see `weld_written`).
    Kept,
    /// The writer does, once, in the strip-friendly order (optimize): before the weld when it
    /// merges under 1 % of the vertices, after it otherwise. Ordering in the tool and again after
    /// a large merge cost two passes, the larger part of optimizing a model of many small meshes.
    Strip,
}

/// Vertices of one primitive welded by their written bytes. `columns` holds each attribute's
/// encoding, `size` bytes per vertex, `vertex_count` vertices. None when the primitive is written
/// as it is: with `Kept` order, when no two vertices share their bytes (nothing to change), or
/// when every triangle would collapse (glTF does not allow a primitive without triangles).
/// With `Strip` order the triangles are always ordered, so the answer is never None.
pub(super) fn weld_written(columns: &[(&[u8], usize)], vertex_count: usize, indices: &[u32], order: TriangleOrder) -> Option<Welded> {
    let unwelded = || (order == TriangleOrder::Strip).then(|| strip_ordered(indices, vertex_count));
    let key_size: usize = columns.iter().map(|&(_, size)| size).sum();
    if vertex_count < 2 || key_size == 0 {
        return unwelded();
    }
    let (representative, distinct) = first_of_equal(&WrittenBytes { columns, vertex_count });
    if distinct == vertex_count {
        return unwelded();
    }
    let merge = |ordered: &[u32]| {
        let mut merged: Vec<u32> = Vec::with_capacity(ordered.len());
        for t in ordered.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| representative[i as usize]);
            if a != b && b != c && a != c {
                merged.extend_from_slice(&[a, b, c]);
            }
        }
        merged
    };
    // Merged vertices make a strip-friendly triangle order revisit old vertices, which the index
    // codec pays for (CesiumMan, a fifth of its vertices merged: +17 % index bytes), so a large
    // merge is ordered after merging. When under 1 % merged, ordering before merging leaves the
    // order nearly intact at the same cost, and `Kept` order is kept rather than paid for twice
    // (0.2 s on a million triangles). Either way vertices are numbered in first use.
    let large = (vertex_count - distinct) * 100 >= vertex_count;
    let merged = match (order, large) {
        (TriangleOrder::Strip, false) => merge(&meshopt::optimize_vertex_cache_strip(indices, vertex_count)),
        (_, true) => {
            let merged = merge(indices);
            if merged.is_empty() {
                return unwelded();
            }
            meshopt::optimize_vertex_cache_strip(&merged, vertex_count)
        }
        (TriangleOrder::Kept, false) => merge(indices),
    };
    if merged.is_empty() {
        return unwelded();
    }
    Some(numbered_in_first_use(&merged, vertex_count, distinct))
}

/// The primitive's own vertices, triangles in strip-friendly cache order and vertices numbered
/// in first use (which also drops unused ones): what optimize writes when the weld merges nothing.
pub(super) fn strip_ordered(indices: &[u32], vertex_count: usize) -> Welded {
    numbered_in_first_use(&meshopt::optimize_vertex_cache_strip(indices, vertex_count), vertex_count, vertex_count)
}

/// Vertices renumbered in order of first use by `indices`, `distinct` at most.
fn numbered_in_first_use(indices: &[u32], vertex_count: usize, distinct: usize) -> Welded {
    const UNSEEN: u32 = u32::MAX;
    let mut new_index = vec![UNSEEN; vertex_count];
    let mut kept = Vec::with_capacity(distinct);
    let indices = indices
        .iter()
        .map(|&v| {
            let slot = &mut new_index[v as usize];
            if *slot == UNSEEN {
                *slot = kept.len() as u32;
                kept.push(v);
            }
            *slot
        })
        .collect();
    Welded { kept, indices }
}

/// A vertex's key: its bytes in each column.
struct WrittenBytes<'a> {
    columns: &'a [(&'a [u8], usize)],
    vertex_count: usize,
}

impl VertexKeys for WrittenBytes<'_> {
    fn count(&self) -> usize {
        self.vertex_count
    }

    fn hash(&self, v: usize, hash: &mut KeyHash) {
        for &(bytes, size) in self.columns {
            hash.bytes(&bytes[v * size..(v + 1) * size]);
        }
    }

    fn equal(&self, a: usize, b: usize) -> bool {
        self.columns.iter().all(|&(bytes, size)| bytes[a * size..(a + 1) * size] == bytes[b * size..(b + 1) * size])
    }
}

/// The elements of the kept vertices, `per_vertex` values each, in output order.
pub(super) fn gather<T: Copy>(values: &[T], per_vertex: usize, kept: &[u32]) -> Vec<T> {
    let mut out = Vec::with_capacity(kept.len() * per_vertex);
    for &v in kept {
        let start = v as usize * per_vertex;
        out.extend_from_slice(&values[start..start + per_vertex]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each triangle as the bytes of its corners, rotated to start at the smallest, sorted: what
    /// a reader decodes, whatever the triangle and vertex order.
    fn decoded(bytes: &[u8], size: usize, indices: &[u32]) -> Vec<[Vec<u8>; 3]> {
        let corner = |i: u32| bytes[i as usize * size..(i as usize + 1) * size].to_vec();
        let mut out: Vec<[Vec<u8>; 3]> = indices
            .chunks_exact(3)
            .map(|t| {
                let k = (0..3).min_by_key(|&k| corner(t[k])).unwrap();
                [corner(t[k]), corner(t[(k + 1) % 3]), corner(t[(k + 2) % 3])]
            })
            .collect();
        out.sort();
        out
    }

    fn first_use_ordered(indices: &[u32]) -> bool {
        let mut next = 0;
        indices.iter().all(|&i| match i.cmp(&next) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => {
                next += 1;
                true
            }
            std::cmp::Ordering::Greater => false,
        })
    }

    #[test]
    fn vertices_with_equal_bytes_merge_and_the_decoded_triangles_stay() {
        // Vertices 1 and 3 carry the same bytes; vertex 4 is unused.
        let positions: Vec<u8> = [[0u8, 0], [1, 0], [0, 1], [1, 0], [7, 7], [1, 1]].concat();
        let indices = [2, 0, 1, 3, 5, 2];
        let welded = weld_written(&[(&positions, 2)], 6, &indices, TriangleOrder::Kept).unwrap();
        assert_eq!(welded.kept.len(), 4);
        assert!(!welded.kept.contains(&4));
        assert!(first_use_ordered(&welded.indices), "{:?}", welded.indices);
        let written = gather(&positions, 2, &welded.kept);
        assert_eq!(decoded(&written, 2, &welded.indices), decoded(&positions, 2, &indices));
    }

    #[test]
    fn a_difference_in_any_column_keeps_vertices_apart() {
        let positions = [0u8, 0, 0, 0, 5, 5];
        let normals = [1u8, 2, 1, 3, 0, 0];
        assert_eq!(weld_written(&[(&positions, 2), (&normals, 2)], 3, &[0, 1, 2], TriangleOrder::Kept), None);
        // Keys longer than 8 bytes take the byte-slice path.
        let wide: Vec<u8> = (0..3).flat_map(|v| [v as u8; 12]).collect();
        assert_eq!(weld_written(&[(&wide, 12)], 3, &[0, 1, 2], TriangleOrder::Kept), None);
        let twins: Vec<u8> = [[1u8; 12], [1; 12], [2; 12], [3; 12]].concat();
        assert_eq!(weld_written(&[(&twins, 12)], 4, &[0, 2, 3, 1, 2, 3], TriangleOrder::Kept).unwrap().kept.len(), 3);
    }

    #[test]
    fn collapsed_triangles_are_dropped_and_all_collapsed_keeps_the_primitive() {
        let bytes = [0u8, 1, 1, 2];
        let welded = weld_written(&[(&bytes, 1)], 4, &[0, 1, 2, 0, 1, 3], TriangleOrder::Kept).unwrap();
        assert_eq!(welded.indices.len(), 3);
        assert_eq!(decoded(&gather(&bytes, 1, &welded.kept), 1, &welded.indices), decoded(&bytes, 1, &[0, 1, 3]));
        assert_eq!(weld_written(&[(&bytes, 1)], 4, &[0, 1, 2], TriangleOrder::Kept), None);
    }

    /// A grid of `side` × `side` quads, two triangles each, vertex bytes (x, y); every vertex of
    /// row `y` in `merged_rows` also written a second time (a copy), which the weld merges.
    fn grid_with_copies(side: u8, merged_rows: &[u8]) -> (Vec<u8>, Vec<u32>) {
        let mut bytes: Vec<u8> = (0..=side).flat_map(|y| (0..=side).flat_map(move |x| [x, y])).collect();
        let id = |x: u8, y: u8| u32::from(y) * (u32::from(side) + 1) + u32::from(x);
        let mut copy_of = std::collections::HashMap::new();
        for &y in merged_rows {
            for x in 0..=side {
                copy_of.insert(id(x, y), (bytes.len() / 2) as u32);
                bytes.extend_from_slice(&[x, y]);
            }
        }
        let mut indices = Vec::new();
        for y in 0..side {
            for x in 0..side {
                let [a, b, c, d] = [id(x, y), id(x + 1, y), id(x, y + 1), id(x + 1, y + 1)];
                // Quads above a copied row use the copy of its vertices.
                let lower = |v: u32| if y > 0 && merged_rows.contains(&y) { copy_of[&v] } else { v };
                indices.extend_from_slice(&[lower(a), lower(b), c, lower(b), d, c]);
            }
        }
        (bytes, indices)
    }

    #[test]
    fn strip_order_orders_once_and_writes_the_same_triangles() {
        // 40 × 40 quads: 1,681 vertices. One copied row (41 copies, over 1 %) is a large merge,
        // ordered after merging; none is the plain strip order.
        for rows in [&[20u8][..], &[]] {
            let (bytes, indices) = grid_with_copies(40, rows);
            let count = bytes.len() / 2;
            let welded = weld_written(&[(&bytes, 2)], count, &indices, TriangleOrder::Strip).unwrap();
            assert_eq!(welded.kept.len(), 41 * 41);
            assert!(first_use_ordered(&welded.indices));
            assert_eq!(decoded(&gather(&bytes, 2, &welded.kept), 2, &welded.indices), decoded(&bytes, 2, &indices));
            if rows.is_empty() {
                assert_eq!(welded, strip_ordered(&indices, count));
            }
        }
    }

    #[test]
    fn a_small_merge_in_strip_order_writes_what_ordering_first_and_welding_after_wrote() {
        // 100 × 100 quads (10,201 vertices) and one copied row: 101 copies, under 1 %. The result
        // must be the bytes optimize wrote when it ordered before writing: strip order, then
        // the weld keeping that order.
        let (bytes, indices) = grid_with_copies(100, &[50]);
        let count = bytes.len() / 2;
        let strip = meshopt::optimize_vertex_cache_strip(&indices, count);
        let ordered_first = weld_written(&[(&bytes, 2)], count, &strip, TriangleOrder::Kept).unwrap();
        let at_once = weld_written(&[(&bytes, 2)], count, &indices, TriangleOrder::Strip).unwrap();
        assert_eq!(at_once.indices, ordered_first.indices);
        assert_eq!(gather(&bytes, 2, &at_once.kept), gather(&bytes, 2, &ordered_first.kept));
    }

    use crate::model::{Attribute, Mesh, Model, Node, Primitive, Skin, SourceFormat, IDENTITY};
    use crate::read::{read_model, ReadOptions};
    use crate::write::{write_glb_counted, GlbOptions, Written};

    /// An attribute's value on every fan vertex before `nudge`.
    fn base(semantic: &str, components: usize) -> Vec<f32> {
        match semantic {
            "NORMAL" => vec![0.0, 0.0, 1.0],
            "JOINTS_0" | "WEIGHTS_0" => vec![1.0, 0.0, 0.0, 0.0],
            _ => vec![0.5; components],
        }
    }

    /// A fan of `corners` triangles around vertex 0 on the unit circle, each rim vertex written
    /// twice (once per triangle it is in), the copy (odd vertices) changed by `nudge`.
    fn fan(corners: u32, attributes: &[(&str, usize)], nudge: impl Fn(&mut Vec<f32>, &str)) -> Primitive {
        let rim = |k: u32| (k as f32 * std::f32::consts::TAU / corners as f32).sin_cos();
        let mut p = Primitive { positions: vec![[0.0, 0.0, 0.0]], ..Primitive::default() };
        p.attributes = attributes.iter().map(|&(s, c)| Attribute { semantic: s.into(), components: c, data: base(s, c) }).collect();
        let push = |p: &mut Primitive, position: [f32; 3], copy: bool| {
            let v = p.positions.len() as u32;
            p.positions.push(position);
            for a in &mut p.attributes {
                a.data.extend(base(&a.semantic, a.components));
                if copy {
                    let start = a.data.len() - a.components;
                    let mut own = a.data[start..].to_vec();
                    nudge(&mut own, &a.semantic);
                    a.data[start..].copy_from_slice(&own);
                }
            }
            v
        };
        for k in 0..corners {
            let (s0, c0) = rim(k);
            let (s1, c1) = rim(k + 1);
            let a = push(&mut p, [c0, s0, 0.0], true);
            let b = push(&mut p, [c1, s1, 0.0], false);
            p.indices.extend([0, a, b]);
        }
        p
    }

    fn written(p: Primitive, skinned: bool) -> (Written, Model) {
        let mut model = Model::new(SourceFormat::Glb);
        if skinned {
            model.nodes = (0..2).map(|_| Node { mesh: None, ..Node::with_mesh(None, 0) }).collect();
            model.roots = vec![0, 1];
            model.skins.push(Skin { name: None, joints: vec![0, 1], skeleton: None, inverse_bind: vec![IDENTITY; 2] });
            model.meshes.push(Mesh { name: None, primitives: vec![p], ..Default::default() });
            model.nodes.push(Node { skin: Some(0), ..Node::with_mesh(None, 0) });
            model.roots.push(2);
        } else {
            model.push_root_mesh(Mesh { name: None, primitives: vec![p], ..Default::default() });
        }
        let (bytes, written) = write_glb_counted(&model, &GlbOptions::quantized(true));
        (written, read_model(&bytes, "glb", &ReadOptions::default()).unwrap())
    }

    /// Moves the copies (odd vertices) halfway to the centre of their grid cell along x, where
    /// that stays inside the mesh's bounds (so the grid stays): below the grid's precision.
    /// Returns how many moved.
    fn nudge_below_grid_step(p: &mut Primitive) -> usize {
        let mut model = Model::new(SourceFormat::Glb);
        model.push_root_mesh(Mesh { name: None, primitives: vec![p.clone()], ..Default::default() });
        let grid = super::super::quantize::position_grids(&model, super::super::quantize::DEFAULT_POSITION_BITS)[0];
        let (lo, hi) = p.positions.iter().fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v[0]), hi.max(v[0])));
        let mut moved = 0;
        for v in (1..p.positions.len()).step_by(2) {
            let x = p.positions[v][0];
            let centre = grid.offset[0] + grid.scale * ((x - grid.offset[0]) / grid.scale).round();
            let nudged = x + (centre - x) / 2.0;
            if nudged != x && (lo..=hi).contains(&nudged) {
                p.positions[v][0] = nudged;
                moved += 1;
            }
        }
        moved
    }

    #[test]
    fn the_writer_merges_vertices_that_differ_below_output_precision() {
        // Normals ~1e-6 rad apart under 8-bit octahedral coordinates, positions closer than a
        // grid step: the copies are the same written vertex.
        let mut p = fan(16, &[("NORMAL", 3)], |data, semantic| {
            if semantic == "NORMAL" {
                data[0] += 1e-6;
            }
        });
        assert!(nudge_below_grid_step(&mut p) > 8);
        let (count, back) = written(p, false);
        assert_eq!(count, Written { vertices: 17, faces: 16 });
        let q = &back.meshes[0].primitives[0];
        assert_eq!((q.positions.len(), q.face_count()), (17, 16));
    }

    #[test]
    fn the_writer_keeps_vertices_that_differ_above_output_precision() {
        // A normal turned by ~6 degrees stays its own vertex.
        let p = fan(16, &[("NORMAL", 3)], |data, semantic| {
            if semantic == "NORMAL" {
                data[0] = 0.1;
            }
        });
        assert_eq!(written(p, false).0, Written { vertices: 33, faces: 16 });
    }

    #[test]
    fn the_writer_drops_a_triangle_that_collapses() {
        let mut p = fan(16, &[], |_, _| {});
        // A sliver on rim vertex 3, its copy 4 and vertex 33 = 4 nudged below a grid step: its
        // corners 4 and 33 become one vertex once on the grid.
        p.positions.push(p.positions[4]);
        p.positions.push(p.positions[4]);
        p.indices.extend([3, 4, 33]);
        assert!(nudge_below_grid_step(&mut p) > 0);
        assert_ne!(p.positions[33], p.positions[4]);
        let (count, back) = written(p, false);
        assert_eq!(count, Written { vertices: 17, faces: 16 });
        assert_eq!(back.meshes[0].primitives[0].face_count(), 16);
    }

    #[test]
    fn skinned_copies_with_other_joints_stay_apart() {
        let joints = |other: bool| {
            fan(16, &[("JOINTS_0", 4), ("WEIGHTS_0", 4)], move |data, semantic| {
                if other && semantic == "JOINTS_0" {
                    data[0] = 0.0;
                }
            })
        };
        assert_eq!(written(joints(false), true).0, Written { vertices: 17, faces: 16 });
        let (count, back) = written(joints(true), true);
        assert_eq!(count, Written { vertices: 33, faces: 16 });
        let q = &back.meshes[0].primitives[0];
        let read: std::collections::BTreeSet<u32> = q.attribute("JOINTS_0").unwrap().data.chunks_exact(4).map(|j| j[0] as u32).collect();
        assert_eq!(read, [0, 1].into());
    }
}
