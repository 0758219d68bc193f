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

/// Vertices of one primitive welded by their written bytes. `columns` holds each attribute's
/// encoding, `size` bytes per vertex, `vertex_count` vertices. None when no two vertices share
/// their bytes (nothing to change), or when every triangle would collapse (the primitive is
/// written as it is rather than left without triangles, which glTF does not allow).
pub(super) fn weld_written(columns: &[(&[u8], usize)], vertex_count: usize, indices: &[u32]) -> Option<Welded> {
    let key_size: usize = columns.iter().map(|&(_, size)| size).sum();
    if vertex_count < 2 || key_size == 0 {
        return None;
    }
    let (representative, distinct) = first_of_equal(&WrittenBytes { columns, vertex_count });
    if distinct == vertex_count {
        return None;
    }
    let mut merged: Vec<u32> = Vec::with_capacity(indices.len());
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| representative[i as usize]);
        if a != b && b != c && a != c {
            merged.extend_from_slice(&[a, b, c]);
        }
    }
    if merged.is_empty() {
        return None;
    }
    // Merged vertices make the incoming strip-friendly triangle order (optimize.rs) revisit old
    // vertices, which the index codec pays for (CesiumMan, a fifth of its vertices merged: +17 %
    // index bytes), so the triangles are ordered again. When under 1 % merged, the order is
    // nearly intact and a second pass would cost as much time as the first (0.2 s on a
    // million triangles), so it is kept. Either way vertices are numbered in first use.
    let merged = match (vertex_count - distinct) * 100 >= vertex_count {
        true => meshopt::optimize_vertex_cache_strip(&merged, vertex_count),
        false => merged,
    };
    const UNSEEN: u32 = u32::MAX;
    let mut new_index = vec![UNSEEN; vertex_count];
    let mut kept = Vec::with_capacity(distinct);
    let indices = merged
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
    Some(Welded { kept, indices })
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
        let welded = weld_written(&[(&positions, 2)], 6, &indices).unwrap();
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
        assert_eq!(weld_written(&[(&positions, 2), (&normals, 2)], 3, &[0, 1, 2]), None);
        // Keys longer than 8 bytes take the byte-slice path.
        let wide: Vec<u8> = (0..3).flat_map(|v| [v as u8; 12]).collect();
        assert_eq!(weld_written(&[(&wide, 12)], 3, &[0, 1, 2]), None);
        let twins: Vec<u8> = [[1u8; 12], [1; 12], [2; 12], [3; 12]].concat();
        assert_eq!(weld_written(&[(&twins, 12)], 4, &[0, 2, 3, 1, 2, 3]).unwrap().kept.len(), 3);
    }

    #[test]
    fn collapsed_triangles_are_dropped_and_all_collapsed_keeps_the_primitive() {
        let bytes = [0u8, 1, 1, 2];
        let welded = weld_written(&[(&bytes, 1)], 4, &[0, 1, 2, 0, 1, 3]).unwrap();
        assert_eq!(welded.indices.len(), 3);
        assert_eq!(decoded(&gather(&bytes, 1, &welded.kept), 1, &welded.indices), decoded(&bytes, 1, &[0, 1, 3]));
        assert_eq!(weld_written(&[(&bytes, 1)], 4, &[0, 1, 2]), None);
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
        let (bytes, written) = write_glb_counted(&model, &GlbOptions { quantize: true, compress: true });
        (written, read_model(&bytes, "glb", &ReadOptions::default()).unwrap())
    }

    /// Moves the copies (odd vertices) halfway to the centre of their grid cell along x, where
    /// that stays inside the mesh's bounds (so the grid stays): below the grid's precision.
    /// Returns how many moved.
    fn nudge_below_grid_step(p: &mut Primitive) -> usize {
        let mut model = Model::new(SourceFormat::Glb);
        model.push_root_mesh(Mesh { name: None, primitives: vec![p.clone()], ..Default::default() });
        let grid = super::super::quantize::position_grids(&model)[0];
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
