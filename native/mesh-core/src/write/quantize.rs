//! Position grids for KHR_mesh_quantization: every mesh keeps its own offset (its bounding box
//! corner), but the grid step comes from the whole scene. The step is the scene's largest world
//! extent over `SCENE_STEPS`, brought into each mesh's local space by the largest scale its
//! instances apply. A mesh that is small in its scene then spans few steps: its integers have
//! fewer significant bits and the vertex codec stores them in fewer bytes, while every vertex
//! still lands within half a scene step (per axis) of where it was. A per-mesh 14-bit grid spent
//! the same bits on a 2 m cube as on a 200 m ground plane.
//! The step is also never coarser than gltfpack's: 2^14 − 1 steps across the union of every
//! mesh's box as stored (merged meshes in world space, the others in their own). That matters
//! for a mesh placed by several nodes (instanced rocks, bolts, trees): stored once in its own
//! small space, it would otherwise get the scene step and lose the precision of its own size
//! (the instanced bench row: 14x gltfpack's error). Its bytes are paid once however often it is
//! drawn, while its error shows at every placement; the node that undoes the grid
//! (write/nodes.rs) keeps every placement's world positions where they were.
use crate::math::{transform_point, Bounds};
use crate::model::Model;

/// Steps across the scene's largest world extent. gltfpack uses 2^14 − 1 across the union of
/// its meshes' boxes; kiln's scene box is the world box of every instance, which can be larger
/// (ShapeCollection: 14.5 against gltfpack's 10), so one more bit keeps kiln's grid at least as
/// fine as gltfpack's.
pub const SCENE_STEPS: f32 = 24575.0;
/// Steps across the union of the stored meshes' boxes: gltfpack's 14 bits. `position_grids`
/// takes the finer of this and the scene step.
pub const STORED_STEPS: f32 = ((1u32 << 14) - 1) as f32;
/// A mesh always gets at least this many steps across its own extent, so a small part of a large
/// scene (a screw on a car) keeps its shape when seen close up.
pub const MIN_MESH_STEPS: f32 = ((1u32 << 10) - 1) as f32;
/// Integers are stored as u16: no mesh may need more steps than that.
const MAX_MESH_STEPS: f32 = u16::MAX as f32;

/// Local position = offset + scale * integer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub offset: [f32; 3],
    pub scale: f32,
}

impl Grid {
    pub fn quantize(&self, p: [f32; 3]) -> [u16; 3] {
        [0, 1, 2].map(|k| ((p[k] - self.offset[k]) / self.scale).round().clamp(0.0, MAX_MESH_STEPS) as u16)
    }

    #[cfg(test)]
    pub fn dequantize(&self, q: [u16; 3]) -> [f32; 3] {
        [0, 1, 2].map(|k| self.offset[k] + self.scale * q[k] as f32)
    }
}

/// Largest length a unit vector can take under the matrix's linear part (the largest column
/// norm, exact for rotation times scale, which is what glTF nodes hold).
fn largest_scale(m: &[f32; 16]) -> f32 {
    (0..3).map(|c| (m[c * 4] * m[c * 4] + m[c * 4 + 1] * m[c * 4 + 1] + m[c * 4 + 2] * m[c * 4 + 2]).sqrt()).fold(0.0, f32::max)
}

/// One grid per mesh of the model (see the module comment).
pub fn position_grids(model: &Model) -> Vec<Grid> {
    let points = |mesh: usize| model.meshes[mesh].primitives.iter().flat_map(|p| p.positions.iter().copied());
    let local: Vec<Bounds> = (0..model.meshes.len()).map(|m| Bounds::of(&points(m).collect::<Vec<_>>())).collect();
    // The world box of the vertices themselves (a transformed local box of a rotated mesh would
    // be larger, and so would the step).
    let mut world = Bounds::empty();
    let mut scale = vec![0.0f32; model.meshes.len()];
    for i in model.instances() {
        points(i.mesh).for_each(|p| world.add(transform_point(&i.world, p)));
        scale[i.mesh] = scale[i.mesh].max(largest_scale(&i.world));
    }
    for (mesh, k) in scale.iter_mut().enumerate() {
        // A mesh no node places (or placed with a degenerate transform) counts as it is.
        if !(*k > 0.0 && k.is_finite()) {
            *k = 1.0;
            points(mesh).for_each(|p| world.add(p));
        }
    }
    let scene_step = world.extent() / SCENE_STEPS;
    let stored = local.iter().fold(Bounds::empty(), |mut all, b| {
        if !b.is_empty() {
            all.add(b.min);
            all.add(b.max);
        }
        all
    });
    let stored_step = stored.extent() / STORED_STEPS;
    local.iter().zip(&scale).map(|(bounds, &k)| grid_for(bounds, (scene_step / k).min(stored_step))).collect()
}

/// The grid of a mesh with local box `bounds` given the scene's step in its local space.
pub fn grid_for(bounds: &Bounds, step: f32) -> Grid {
    let extent = bounds.extent();
    if bounds.is_empty() || extent.is_nan() || extent <= 0.0 {
        return Grid { offset: if bounds.is_empty() { [0.0; 3] } else { bounds.min }, scale: 1.0 };
    }
    // Coarsest allowed: MIN_MESH_STEPS across the mesh; finest: what u16 can hold.
    let step = step.min(extent / MIN_MESH_STEPS).max(extent / MAX_MESH_STEPS);
    Grid { offset: bounds.min, scale: step }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::compose;
    use crate::model::{Mesh, Node, Primitive, SourceFormat, IDENTITY};

    fn cube(size: f32) -> Mesh {
        let positions: Vec<[f32; 3]> = (0..8).map(|i| [0, 1, 2].map(|k| if i >> k & 1 == 1 { size } else { 0.0 })).collect();
        Mesh { name: None, primitives: vec![Primitive { positions, indices: vec![0, 1, 2], ..Default::default() }], ..Default::default() }
    }

    fn place(model: &mut Model, mesh: Mesh, matrix: [f32; 16]) {
        let node = model.nodes.len();
        model.nodes.push(Node {
            name: None,
            mesh: Some(model.meshes.len()),
            matrix,
            children: vec![],
            trs: None,
            skin: None,
            weights: Vec::new(),
            instances: Vec::new(),
        });
        model.meshes.push(mesh);
        model.roots.push(node);
    }

    #[test]
    fn small_meshes_get_the_scene_step_and_fewer_bits() {
        let mut model = Model::new(SourceFormat::Glb);
        place(&mut model, cube(100.0), IDENTITY);
        place(&mut model, cube(5.0), compose([50.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
        let grids = position_grids(&model);
        let scene_step = 100.0 / SCENE_STEPS;
        assert!((grids[0].scale - scene_step).abs() < 1e-6 * scene_step);
        assert!((grids[1].scale - scene_step).abs() < 1e-6 * scene_step, "same step for the small cube");
        // The small cube spans 5 / (100 / 24575) ≈ 1229 steps: 11 significant bits, not 14.6.
        let top = grids[1].quantize([5.0; 3]);
        assert!(top[0] < 1 << 11, "{top:?}");
    }

    #[test]
    fn scaled_instances_get_a_finer_local_step() {
        let mut model = Model::new(SourceFormat::Glb);
        place(&mut model, cube(100.0), IDENTITY);
        // Drawn ten times larger than stored: its local step must be ten times finer.
        place(&mut model, cube(10.0), compose([0.0; 3], [0.0, 0.0, 0.0, 1.0], [10.0; 3]));
        let grids = position_grids(&model);
        assert!((grids[1].scale * 10.0 - grids[0].scale).abs() < 1e-5 * grids[0].scale);
    }

    fn place_again(model: &mut Model, mesh: usize, matrix: [f32; 16]) {
        let mut node = Node::with_mesh(None, mesh);
        node.matrix = matrix;
        model.nodes.push(node);
        model.roots.push(model.nodes.len() - 1);
    }

    #[test]
    fn a_mesh_placed_far_apart_keeps_the_precision_of_its_own_size() {
        // Three placements of a 2-unit rock spread over 100 units: the scene step would be
        // 100 / 24575 on the rock; gltfpack's 14 bits over the stored box (the rock's) are finer.
        let mut model = Model::new(SourceFormat::Glb);
        place(&mut model, cube(2.0), IDENTITY);
        for x in [48.0, 98.0] {
            place_again(&mut model, 0, compose([x, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
        }
        let grids = position_grids(&model);
        assert!((grids[0].scale - 2.0 / STORED_STEPS).abs() < 1e-6 * grids[0].scale, "{:?}", grids[0]);
    }

    #[test]
    fn the_scene_step_stays_the_coarsest_allowed() {
        // A 100-unit ground stored beside a 10-unit rock: the stored box is the ground's, and 14
        // bits over it are coarser than the scene step, which both meshes keep.
        let mut model = Model::new(SourceFormat::Glb);
        place(&mut model, cube(100.0), IDENTITY);
        place(&mut model, cube(10.0), compose([10.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
        place_again(&mut model, 1, compose([20.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
        let grids = position_grids(&model);
        for grid in grids {
            assert!((grid.scale - 100.0 / SCENE_STEPS).abs() < 1e-6 * grid.scale, "{grid:?}");
        }
    }

    #[test]
    fn tiny_meshes_keep_a_minimum_number_of_steps() {
        let mut model = Model::new(SourceFormat::Glb);
        place(&mut model, cube(1000.0), IDENTITY);
        place(&mut model, cube(0.01), IDENTITY);
        let grids = position_grids(&model);
        assert!((grids[1].scale - 0.01 / MIN_MESH_STEPS).abs() < 1e-9);
    }

    #[test]
    fn every_vertex_lands_within_half_a_scene_step() {
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
        let grids = position_grids(&model);
        let world_extent = {
            let mut b = Bounds::empty();
            for i in model.instances() {
                model.meshes[i.mesh].primitives[0].positions.iter().for_each(|&p| b.add(transform_point(&i.world, p)));
            }
            b.extent()
        };
        for inst in model.instances() {
            let grid = grids[inst.mesh];
            for &p in &model.meshes[inst.mesh].primitives[0].positions {
                let back = transform_point(&inst.world, grid.dequantize(grid.quantize(p)));
                let exact = transform_point(&inst.world, p);
                let d = crate::math::length(crate::math::sub(back, exact));
                // Half a step per axis, so √3/2 of a step in space (plus float rounding).
                assert!(d <= 0.87 * world_extent / SCENE_STEPS * 1.01, "{d}");
            }
        }
    }
}
