//! Position grids for KHR_mesh_quantization, gltfpack's: one step for the whole file, the largest
//! extent of the box holding every mesh as stored (merged meshes in world space, meshes placed by
//! several nodes or skinned ones in their own) over 2^bits − 1, with `bits` the catalog's
//! `position_bits` (gltfpack's -vp, 14 by default). At the same bits the error equals gltfpack's,
//! and so do the integers the vertex codec sees, up to a constant per mesh.
//! Each mesh keeps its own offset (the lattice point at or just below its box corner) rather than
//! the file's: its integers then start at 0 and a small mesh spans few steps, so they have fewer
//! significant bits. The lattice is the file's (offsets in whole steps from the stored box's
//! corner, as gltfpack's integers are counted), so every vertex rounds to where gltfpack's rounds:
//! with its own corner, a mesh's rounding errors fell elsewhere, by chance up to 7 % farther at the
//! same step (the vehicle bench model, session 33).
//! A mesh always gets at least `MIN_MESH_STEPS` across its own extent, so a small part of a large
//! file (a screw on a car) keeps its shape when seen close up; the node that undoes the grid
//! (write/nodes.rs) keeps every placement's world positions where they were.
use crate::math::Bounds;
use crate::model::Model;
use crate::round::round;

/// The catalog's default for `position_bits`: gltfpack's 14 (-vp 14).
pub const DEFAULT_POSITION_BITS: u8 = 14;
/// A mesh always gets at least this many steps across its own extent (see the module comment).
pub const MIN_MESH_STEPS: f32 = ((1u32 << 10) - 1) as f32;
/// Integers are stored as u16: no mesh may need more steps than that.
const MAX_MESH_STEPS: f32 = u16::MAX as f32;

/// Mantissa bits for the meshopt codec's EXPONENTIAL filter (a shared exponent per component) so
/// that values up to `largest` in magnitude are stored in steps of at most `step`: a shared
/// exponent leaves steps of about 2·largest / 2^bits. At most 24, a float's significand.
pub(super) fn mantissa_bits(largest: f32, step: f32) -> i32 {
    if !(largest > 0.0 && step > 0.0) {
        return 1;
    }
    ((2.0 * largest / step).log2().ceil() as i32 + 1).clamp(1, 24)
}

/// Steps across the stored box for `bits` of position precision.
pub fn steps(bits: u8) -> f32 {
    ((1u32 << bits) - 1) as f32
}

/// Local position = offset + scale * integer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub offset: [f32; 3],
    pub scale: f32,
}

impl Grid {
    pub fn quantize(&self, p: [f32; 3]) -> [u16; 3] {
        [0, 1, 2].map(|k| round((p[k] - self.offset[k]) / self.scale).clamp(0.0, MAX_MESH_STEPS) as u16)
    }

    #[cfg(test)]
    pub fn dequantize(&self, q: [u16; 3]) -> [f32; 3] {
        [0, 1, 2].map(|k| self.offset[k] + self.scale * q[k] as f32)
    }
}

/// One grid per mesh of the model (see the module comment), `bits` in 1..=16.
pub fn position_grids(model: &Model, bits: u8) -> Vec<Grid> {
    let local: Vec<Bounds> = model
        .meshes
        .iter()
        .map(|mesh| {
            let mut b = Bounds::empty();
            mesh.primitives.iter().flat_map(|p| &p.positions).for_each(|&v| b.add(v));
            b
        })
        .collect();
    let stored = local.iter().filter(|b| !b.is_empty()).fold(Bounds::empty(), |mut all, b| {
        all.add(b.min);
        all.add(b.max);
        all
    });
    let step = stored.extent() / steps(bits);
    local.iter().map(|bounds| grid_for(bounds, step, stored.min)).collect()
}

/// The grid of a mesh with local box `bounds` given the scene's step and lattice corner `origin`.
fn grid_for(bounds: &Bounds, step: f32, origin: [f32; 3]) -> Grid {
    let extent = bounds.extent();
    if bounds.is_empty() || extent.is_nan() || extent <= 0.0 {
        return Grid { offset: if bounds.is_empty() { [0.0; 3] } else { bounds.min }, scale: 1.0 };
    }
    // Coarsest allowed: MIN_MESH_STEPS across the mesh; finest: what u16 can hold. A mesh at
    // another step has a lattice of its own.
    let own = step.min(extent / MIN_MESH_STEPS).max(extent / MAX_MESH_STEPS);
    if own != step {
        return Grid { offset: bounds.min, scale: own };
    }
    let offset = [0, 1, 2].map(|k| origin[k] + ((bounds.min[k] - origin[k]) / step).floor() * step);
    Grid { offset, scale: step }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{compose, transform_point};
    use crate::model::{Mesh, Node, Primitive, SourceFormat, IDENTITY};

    fn cube(size: f32) -> Mesh {
        let positions: Vec<[f32; 3]> = (0..8).map(|i| [0, 1, 2].map(|k| if i >> k & 1 == 1 { size } else { 0.0 })).collect();
        Mesh { name: None, primitives: vec![Primitive { positions, indices: vec![0, 1, 2], ..Default::default() }], ..Default::default() }
    }

    fn place(model: &mut Model, mesh: Mesh, matrix: [f32; 16]) {
        let node = model.nodes.len();
        model.nodes.push(Node { matrix, ..Node::with_mesh(None, model.meshes.len()) });
        model.meshes.push(mesh);
        model.roots.push(node);
    }

    fn place_again(model: &mut Model, mesh: usize, matrix: [f32; 16]) {
        let mut node = Node::with_mesh(None, mesh);
        node.matrix = matrix;
        model.nodes.push(node);
        model.roots.push(model.nodes.len() - 1);
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() <= 1e-6 * b
    }

    #[test]
    fn every_mesh_gets_one_step_from_the_stored_box() {
        // A 100-unit cube at the origin and a 10-unit one stored from 50 to 60: the stored box is
        // 100 wide, whatever the nodes do with the meshes.
        let mut model = Model::new(SourceFormat::Glb);
        place(&mut model, cube(100.0), IDENTITY);
        let mut moved = cube(10.0);
        moved.primitives[0].positions.iter_mut().for_each(|p| p[0] += 50.0);
        place(&mut model, moved, compose([500.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [3.0; 3]));
        let grids = position_grids(&model, DEFAULT_POSITION_BITS);
        for grid in &grids {
            assert!(close(grid.scale, 100.0 / 16383.0), "{grid:?}");
        }
        // Each mesh starts at the lattice point at or below its own corner: the small cube spans
        // 10 / (100 / 16383) ≈ 1638 steps, 11 significant bits rather than the 14 its place in
        // the stored box would take.
        let step = 100.0 / 16383.0;
        assert!(grids[1].offset[0] <= 50.0 && grids[1].offset[0] > 50.0 - step, "{:?}", grids[1]);
        assert_eq!(&grids[1].offset[1..], &[0.0, 0.0]);
        let q = grids[1].quantize([60.0, 10.0, 10.0]);
        assert!((1638..=1639).contains(&q[0]) && q[1] == 1638 && q[2] == 1638, "{q:?}");
    }

    #[test]
    fn every_mesh_at_the_file_step_rounds_on_the_file_lattice() {
        // Where a vertex lands does not depend on which mesh holds it: on the lattice of the
        // stored box's corner, as gltfpack's one offset for the file puts it.
        let mut model = Model::new(SourceFormat::Glb);
        place(&mut model, cube(100.0), IDENTITY);
        let mut moved = cube(10.0);
        moved.primitives[0].positions.iter_mut().for_each(|p| *p = p.map(|c| c + 33.3333));
        place(&mut model, moved, IDENTITY);
        let grids = position_grids(&model, DEFAULT_POSITION_BITS);
        for p in [[40.1234, 35.0, 41.77], [33.3333; 3], [43.3333; 3]] {
            let a = grids[0].dequantize(grids[0].quantize(p));
            let b = grids[1].dequantize(grids[1].quantize(p));
            (0..3).for_each(|k| assert!((a[k] - b[k]).abs() < 1e-4 * grids[0].scale.max(1.0), "{a:?} {b:?}"));
        }
    }

    #[test]
    fn position_bits_set_the_step() {
        let mut model = Model::new(SourceFormat::Glb);
        place(&mut model, cube(10.0), IDENTITY);
        for (bits, steps) in [(10, 1023.0), (14, 16383.0), (16, 65535.0)] {
            let grid = position_grids(&model, bits)[0];
            assert!(close(grid.scale, 10.0 / steps), "{bits} bits: {grid:?}");
            assert_eq!(grid.quantize([10.0; 3]), [steps as u16; 3]);
        }
    }

    #[test]
    fn a_mesh_placed_far_apart_keeps_the_precision_of_its_own_size() {
        // Three placements of a 2-unit rock spread over 100 units: the rock is stored once, in
        // its own space, so the stored box is the rock's and so is the step.
        let mut model = Model::new(SourceFormat::Glb);
        place(&mut model, cube(2.0), IDENTITY);
        for x in [48.0, 98.0] {
            place_again(&mut model, 0, compose([x, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
        }
        let grids = position_grids(&model, DEFAULT_POSITION_BITS);
        assert!(close(grids[0].scale, 2.0 / 16383.0), "{:?}", grids[0]);
    }

    #[test]
    fn tiny_meshes_keep_a_minimum_number_of_steps() {
        let mut model = Model::new(SourceFormat::Glb);
        place(&mut model, cube(1000.0), IDENTITY);
        place(&mut model, cube(0.01), IDENTITY);
        let grids = position_grids(&model, DEFAULT_POSITION_BITS);
        assert!(close(grids[0].scale, 1000.0 / 16383.0));
        assert!(close(grids[1].scale, 0.01 / MIN_MESH_STEPS));
    }

    #[test]
    fn every_vertex_lands_within_half_a_step_per_axis() {
        let mut model = Model::new(SourceFormat::Glb);
        let wavy = |n: usize, size: f32| Mesh {
            name: None,
            primitives: vec![Primitive {
                positions: (0..n).map(|i| i as f32 * 0.37).map(|t| [t.sin() * size, (t * 1.3).cos() * size * 0.5, (t * 0.7).sin() * size * 0.2]).collect(),
                indices: vec![0, 1, 2],
                ..Default::default()
            }],
            ..Default::default()
        };
        place(&mut model, wavy(500, 40.0), IDENTITY);
        place(&mut model, wavy(500, 3.0), compose([7.0, 1.0, -2.0], [0.0, 0.6, 0.0, 0.8], [2.0; 3]));
        for bits in [10, 14, 16] {
            let grids = position_grids(&model, bits);
            let mut worst = 0.0f32;
            for inst in model.instances() {
                let grid = grids[inst.mesh];
                for &p in &model.meshes[inst.mesh].primitives[0].positions {
                    let back = grid.dequantize(grid.quantize(p));
                    (0..3).for_each(|k| worst = worst.max((back[k] - p[k]).abs() / grid.scale));
                    // The node's transform carries the same error into the world, scaled.
                    let moved = crate::math::length(crate::math::sub(transform_point(&inst.world, back), transform_point(&inst.world, p)));
                    assert!(moved <= 0.87 * grid.scale * 2.0 * 1.01, "{moved}");
                }
            }
            // Rounding, not truncation: at most half a step, and some vertex gets near it.
            assert!(worst <= 0.5 + 1e-3 && worst > 0.45, "{bits} bits: {worst}");
        }
    }
}
