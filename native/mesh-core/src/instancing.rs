//! GPU instancing (EXT_mesh_gpu_instancing, what gltfpack's -mi does): a mesh that many static
//! nodes place becomes one node that draws it once per placement, each placement stored as a
//! translation, rotation and scale in accessors rather than as a node of its own (and, quantized,
//! a dequantization child besides). A scene of 400 rocks is then one node and three short
//! accessors instead of 800 nodes of JSON, and a viewer draws it in one call.
//! Only placements that look the same drawn this way are taken: a node that is animated (or below
//! an animated node), skinned, has children or morph weights of its own keeps its node, and so
//! does a mirrored or sheared placement (an instance has no winding flip, and TRS cannot hold
//! shear). Morphed meshes keep their nodes: instances share one set of weights.
use crate::empty_nodes::drop_empty_nodes;
use crate::math::determinant3;
use crate::merge::moving_nodes;
use crate::model::{Model, Node};
use crate::write::decompose;
use std::collections::BTreeMap;

/// What instancing did, for the tool's notes.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Instanced {
    /// Meshes now drawn through one instanced node each.
    pub meshes: usize,
    /// Placements those nodes hold, which were nodes before.
    pub placements: usize,
    /// Nodes dropped: the placements' own, and parents left with nothing below them.
    pub nodes_dropped: usize,
}

/// Replaces the static placements of every mesh placed at least twice by one root node with
/// EXT_mesh_gpu_instancing transforms (world matrices, so nothing above them matters any more).
pub fn instance_shared_meshes(model: &mut Model) -> Instanced {
    let moving = moving_nodes(model);
    let instances = model.instances();
    // A node reached twice (a file may list it under two parents) goes only if every one of its
    // placements can.
    let mut blocked = vec![false; model.nodes.len()];
    for i in &instances {
        let node = &model.nodes[i.node];
        let det = determinant3(&i.world);
        let fits = !moving[i.node]
            && node.skin.is_none()
            && node.children.is_empty()
            && node.weights.is_empty()
            && node.instances.is_empty()
            && model.meshes[i.mesh].target_count() == 0
            && det.is_finite()
            && det > 0.0
            && decompose(&i.world).is_some();
        blocked[i.node] |= !fits;
    }
    let mut groups: BTreeMap<usize, Vec<(usize, [f32; 16])>> = BTreeMap::new();
    for i in instances.iter().filter(|i| !blocked[i.node]) {
        groups.entry(i.mesh).or_default().push((i.node, i.world));
    }
    let mut done = Instanced::default();
    for (mesh, placements) in groups.into_iter().filter(|(_, p)| p.len() >= 2) {
        for (node, _) in &placements {
            model.nodes[*node].mesh = None;
        }
        let mut node = Node::with_mesh(model.meshes[mesh].name.clone(), mesh);
        node.instances = placements.iter().map(|(_, world)| *world).collect();
        in_space_order(&mut node.instances);
        model.roots.push(model.nodes.len());
        model.nodes.push(node);
        done.meshes += 1;
        done.placements += placements.len();
    }
    if done.meshes > 0 {
        done.nodes_dropped = drop_empty_nodes(model);
    }
    done
}

/// Orders placements along a Morton curve through their translations. Instances draw the same in
/// any order; stored in this one, neighbours sit close together, so the codec's deltas between
/// consecutive translations are small.
fn in_space_order(instances: &mut [[f32; 16]]) {
    let points: Vec<[f32; 3]> = instances.iter().map(|m| [m[12], m[13], m[14]]).collect();
    let bounds = crate::math::Bounds::of(&points);
    let extent = bounds.extent();
    if !(extent > 0.0 && extent.is_finite()) {
        return;
    }
    let cell = |v: f32, k: usize| (((v - bounds.min[k]) / extent) * 1023.0).round().clamp(0.0, 1023.0) as u32;
    let spread = |mut x: u32| {
        x = (x | (x << 16)) & 0x0300_00ff;
        x = (x | (x << 8)) & 0x0300_f00f;
        x = (x | (x << 4)) & 0x030c_30c3;
        (x | (x << 2)) & 0x0924_9249
    };
    let key = |m: &[f32; 16]| spread(cell(m[12], 0)) | spread(cell(m[13], 1)) << 1 | spread(cell(m[14], 2)) << 2;
    instances.sort_by_key(key);
}

/// The note telling what instancing did, if it did anything.
pub fn instancing_note(done: &Instanced) -> Option<String> {
    (done.meshes > 0).then(|| {
        format!(
            "Drew {} placement(s) of {} shared mesh(es) through EXT_mesh_gpu_instancing (one node per mesh) and dropped {} node(s) left empty; viewers must support that extension.",
            done.placements, done.meshes, done.nodes_dropped
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{compose, transform_point};
    use crate::model::{Mesh, Primitive, SourceFormat, IDENTITY as IDENTITY_MATRIX};

    fn triangle() -> Mesh {
        Mesh::new(
            Some("rock".into()),
            vec![Primitive { positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], indices: vec![0, 1, 2], ..Default::default() }],
        )
    }

    fn place(model: &mut Model, mesh: usize, matrix: [f32; 16]) -> usize {
        let mut node = Node::with_mesh(None, mesh);
        node.matrix = matrix;
        model.nodes.push(node);
        model.roots.push(model.nodes.len() - 1);
        model.nodes.len() - 1
    }

    fn world_points(model: &Model) -> Vec<[i64; 3]> {
        let mut out: Vec<[i64; 3]> = model
            .instances()
            .iter()
            .flat_map(|i| model.meshes[i.mesh].primitives[0].positions.iter().map(|&p| transform_point(&i.world, p).map(|v| (v * 1e4).round() as i64)))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn static_placements_become_one_instanced_node_with_the_same_world_positions() {
        let mut model = Model::new(SourceFormat::Glb);
        model.meshes.push(triangle());
        for k in 0..5 {
            let t = [k as f32 * 3.0, 1.0, -2.0];
            place(&mut model, 0, compose(t, [0.0, (k as f32 * 0.3).sin(), 0.0, (k as f32 * 0.3).cos()], [1.0 + k as f32; 3]));
        }
        let before = world_points(&model);
        let done = instance_shared_meshes(&mut model);
        assert_eq!(done, Instanced { meshes: 1, placements: 5, nodes_dropped: 5 });
        assert_eq!(model.nodes.len(), 1);
        assert_eq!(model.nodes[0].instances.len(), 5);
        assert_eq!(model.roots, vec![0]);
        assert_eq!(world_points(&model), before);
    }

    #[test]
    fn instances_are_stored_in_space_order() {
        let mut model = Model::new(SourceFormat::Glb);
        model.meshes.push(triangle());
        // Placed in a shuffled order along x, and two far apart in z.
        for x in [7.0, 2.0, 9.0, 0.0, 5.0] {
            place(&mut model, 0, compose([x, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
        }
        place(&mut model, 0, compose([1.0, 0.0, 40.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
        let before = world_points(&model);
        instance_shared_meshes(&mut model);
        let xz: Vec<[f32; 2]> = model.nodes[0].instances.iter().map(|m| [m[12], m[14]]).collect();
        assert_eq!(xz, vec![[0.0, 0.0], [2.0, 0.0], [5.0, 0.0], [7.0, 0.0], [9.0, 0.0], [1.0, 40.0]]);
        assert_eq!(world_points(&model), before);
    }

    #[test]
    fn mirrored_childful_and_single_placements_keep_their_nodes() {
        let mut model = Model::new(SourceFormat::Glb);
        model.meshes.push(triangle());
        model.meshes.push(triangle());
        place(&mut model, 0, IDENTITY_MATRIX);
        place(&mut model, 0, compose([2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
        let mirrored = place(&mut model, 0, compose([4.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [-1.0, 1.0, 1.0]));
        let parent = place(&mut model, 0, compose([6.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
        let child = place(&mut model, 1, IDENTITY_MATRIX);
        model.roots.retain(|&r| r != child);
        model.nodes[parent].children.push(child);
        let before = world_points(&model);
        let done = instance_shared_meshes(&mut model);
        assert_eq!((done.meshes, done.placements), (1, 2));
        assert_eq!(world_points(&model), before);
        // The mirrored one and the parent keep mesh 0 on their own nodes; mesh 1 is placed once.
        let plain: Vec<_> = model.nodes.iter().filter(|n| n.instances.is_empty() && n.mesh.is_some()).map(|n| n.mesh).collect();
        assert_eq!(plain, vec![Some(0), Some(0), Some(1)]);
        assert!(mirrored < model.nodes.len());
    }
}
