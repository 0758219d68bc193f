//! Position grids for KHR_mesh_quantization, gltfpack's: one step for the whole file, the largest
//! extent of the box holding every mesh as stored (merged meshes in world space, meshes placed by
//! several nodes or skinned ones in their own) over 2^bits − 1, with `bits` the catalog's
//! `position_bits` (gltfpack's -vp, 14 by default). At the same bits the error equals gltfpack's,
//! and so do the integers the vertex codec sees, up to a constant per mesh.
//! Each mesh keeps its own offset (the lattice point nearest its box corner) rather than the
//! file's: its integers then start at 0 and a small mesh spans few steps, so they have fewer
//! significant bits. The lattice is the file's: integers are counted from the stored box's corner
//! in meshoptimizer's unorm arithmetic, as gltfpack counts them, less the mesh's first, so every
//! vertex rounds where gltfpack's does, ties included. Counted from its own corner, a mesh's
//! rounding fell elsewhere, by chance 7 % farther at the same step (the vehicle bench model), and
//! half-step ties went the other way (ShapeCollection, 1.09 times gltfpack's error in a first
//! version that aligned offsets without counting as gltfpack does; session 33).
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
    /// Set where the mesh is on the file's lattice: its integers are counted from the stored
    /// box's corner, in gltfpack's arithmetic, less the mesh's first.
    file: Option<FileLattice>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct FileLattice {
    origin: [f32; 3],
    /// One over the stored box's largest extent.
    rscale: f32,
    steps: f32,
    /// The integers of the mesh's box corner.
    first: [u32; 3],
}

impl FileLattice {
    /// meshoptimizer's unorm rounding of a position's place in the stored box, to the same bits.
    fn count(&self, p: [f32; 3]) -> [u32; 3] {
        [0, 1, 2].map(|k| (((p[k] - self.origin[k]) * self.rscale).clamp(0.0, 1.0) * self.steps + 0.5) as u32)
    }
}

impl Grid {
    /// A grid of the mesh's own: integers counted from `offset` in steps of `scale`.
    pub fn own(offset: [f32; 3], scale: f32) -> Grid {
        Grid { offset, scale, file: None }
    }

    pub fn quantize(&self, p: [f32; 3]) -> [u16; 3] {
        match self.file {
            Some(lattice) => {
                let counted = lattice.count(p);
                [0, 1, 2].map(|k| counted[k].saturating_sub(lattice.first[k]).min(MAX_MESH_STEPS as u32) as u16)
            }
            None => [0, 1, 2].map(|k| round((p[k] - self.offset[k]) / self.scale).clamp(0.0, MAX_MESH_STEPS) as u16),
        }
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
            mesh.drawn().flat_map(|p| &p.positions).for_each(|&v| b.add(v));
            b
        })
        .collect();
    let stored = local.iter().filter(|b| !b.is_empty()).fold(Bounds::empty(), |mut all, b| {
        all.add(b.min);
        all.add(b.max);
        all
    });
    let extent = stored.extent();
    let step = extent / steps(bits);
    let lattice = FileLattice { origin: stored.min, rscale: 1.0 / extent, steps: steps(bits), first: [0; 3] };
    local.iter().map(|bounds| grid_for(bounds, step, lattice)).collect()
}

/// The grid of a mesh with local box `bounds` given the file's step and lattice.
fn grid_for(bounds: &Bounds, step: f32, lattice: FileLattice) -> Grid {
    let extent = bounds.extent();
    if bounds.is_empty() || extent.is_nan() || extent <= 0.0 {
        return Grid::own(if bounds.is_empty() { [0.0; 3] } else { bounds.min }, 1.0);
    }
    // Coarsest allowed: MIN_MESH_STEPS across the mesh; finest: what u16 can hold. A mesh at
    // another step has a lattice of its own.
    let own = step.min(extent / MIN_MESH_STEPS).max(extent / MAX_MESH_STEPS);
    if own != step {
        return Grid::own(bounds.min, own);
    }
    let first = lattice.count(bounds.min);
    let offset = [0, 1, 2].map(|k| lattice.origin[k] + first[k] as f32 * step);
    Grid { offset, scale: step, file: Some(FileLattice { first, ..lattice }) }
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

    /// A cube of side `size` whose box corner is at `corner` on every axis.
    fn cube_at(size: f32, corner: f32) -> Mesh {
        let mut mesh = cube(size);
        mesh.primitives[0].positions.iter_mut().for_each(|p| *p = p.map(|c| c + corner));
        mesh
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
        // Each mesh starts at the lattice point nearest its own corner: the small cube spans
        // 10 / (100 / 16383) ≈ 1638 steps, 11 significant bits rather than the 14 its place in
        // the stored box would take.
        let step = 100.0 / 16383.0;
        assert!((grids[1].offset[0] - 50.0).abs() <= step / 2.0, "{:?}", grids[1]);
        assert_eq!(&grids[1].offset[1..], &[0.0, 0.0]);
        assert_eq!(grids[1].quantize([50.0, 0.0, 0.0]), [0; 3]);
        assert_eq!(grids[1].quantize([60.0, 10.0, 10.0]), [1638; 3]);
    }

    #[test]
    fn every_mesh_at_the_file_step_rounds_on_the_file_lattice() {
        // Where a vertex lands does not depend on which mesh holds it: on the lattice of the
        // stored box's corner, as gltfpack's one offset for the file puts it. The small cube's
        // corner lies 5460.45 steps from the file's, so a lattice of its own corner would sit
        // 0.45 of a step off the file's.
        let mut model = Model::new(SourceFormat::Glb);
        place(&mut model, cube(100.0), IDENTITY);
        place(&mut model, cube_at(10.0, 33.33), IDENTITY);
        let grids = position_grids(&model, DEFAULT_POSITION_BITS);
        for p in [[40.1234, 35.0, 41.77], [33.33; 3], [43.33; 3]] {
            let a = grids[0].dequantize(grids[0].quantize(p));
            let b = grids[1].dequantize(grids[1].quantize(p));
            (0..3).for_each(|k| assert!((a[k] - b[k]).abs() < 1e-4 * grids[0].scale.max(1.0), "{a:?} {b:?}"));
        }
    }

    #[test]
    fn half_step_ties_round_up_as_gltfpack_rounds_them() {
        // Steps of exactly 1: a box 16383 wide at 14 bits. A smaller mesh (2000 wide, so at the
        // file's step) from 50.2 counts from 50;
        // 55.5 is a tie, and meshoptimizer's unorm rounding takes it to 56 in both meshes (counted
        // from the mesh's own corner, it was 5.3 steps and rounded to 55.2).
        let mut model = Model::new(SourceFormat::Glb);
        place(&mut model, cube(16383.0), IDENTITY);
        place(&mut model, cube_at(2000.0, 50.2), IDENTITY);
        let grids = position_grids(&model, DEFAULT_POSITION_BITS);
        assert_eq!(grids[0].quantize([55.5; 3]), [56; 3]);
        assert_eq!(grids[1].offset, [50.0; 3]);
        assert_eq!(grids[1].quantize([55.5; 3]), [6; 3]);
        assert_eq!(grids[1].dequantize([6; 3]), [56.0; 3]);
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
