//! Drops nodes that place nothing: no mesh, camera or light, nothing below them that has one, no
//! skin joint or skeleton role and no animation aimed at them. After merging, the nodes that held the merged
//! meshes are such nodes; written out they would cost JSON bytes and mean nothing to a viewer.
use crate::model::Model;

/// Removes empty nodes and renumbers every node reference; returns how many went.
pub fn drop_empty_nodes(model: &mut Model) -> usize {
    let count = model.nodes.len();
    let mut keep: Vec<bool> = model.nodes.iter().map(|n| n.mesh.is_some() || n.camera.is_some() || n.light.is_some()).collect();
    let mut hold = |n: usize| {
        if let Some(k) = keep.get_mut(n) {
            *k = true;
        }
    };
    for skin in &model.skins {
        skin.joints.iter().copied().for_each(&mut hold);
        skin.skeleton.into_iter().for_each(&mut hold);
    }
    for channel in model.animations.iter().flat_map(|a| &a.channels) {
        hold(channel.node);
    }
    // A parent stays when any child stays; repeat until the tree's depth has been climbed.
    loop {
        let mut changed = false;
        for n in 0..count {
            if !keep[n] && model.nodes[n].children.iter().any(|&c| keep.get(c).copied().unwrap_or(false)) {
                keep[n] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut renumber = vec![None; count];
    let mut next = 0;
    for n in 0..count {
        if keep[n] {
            renumber[n] = Some(next);
            next += 1;
        }
    }
    if next == count {
        return 0;
    }
    let moved = |n: usize| renumber.get(n).copied().flatten();
    let mut index = 0;
    model.nodes.retain(|_| {
        index += 1;
        keep[index - 1]
    });
    for node in &mut model.nodes {
        node.children = node.children.iter().filter_map(|&c| moved(c)).collect();
    }
    model.roots = model.roots.iter().filter_map(|&r| moved(r)).collect();
    for skin in &mut model.skins {
        // Joints and skeletons were all kept, so every one of them has a new index.
        skin.joints = skin.joints.iter().filter_map(|&j| moved(j)).collect();
        skin.skeleton = skin.skeleton.and_then(moved);
    }
    for channel in model.animations.iter_mut().flat_map(|a| &mut a.channels) {
        channel.node = moved(channel.node).unwrap_or(channel.node);
    }
    count - next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Mesh, Node, Primitive, Skin, SourceFormat, IDENTITY};

    fn empty(name: &str) -> Node {
        Node { mesh: None, ..Node::with_mesh(Some(name.into()), 0) }
    }

    #[test]
    fn empty_branches_go_and_references_follow_the_new_indices() {
        let mut model = Model::new(SourceFormat::Glb);
        // 0: empty root with an empty child (1) and a child (2) holding a mesh; 3: a joint; 4: empty root.
        model.nodes = vec![empty("group"), empty("nothing"), Node::with_mesh(Some("part".into()), 0), empty("joint"), empty("lonely")];
        model.nodes[0].children = vec![1, 2];
        model.meshes.push(Mesh { name: None, primitives: vec![Primitive::default()], ..Default::default() });
        model.roots = vec![0, 3, 4];
        model.skins.push(Skin { name: None, joints: vec![3], skeleton: Some(3), inverse_bind: vec![IDENTITY] });
        assert_eq!(drop_empty_nodes(&mut model), 2);
        let names: Vec<_> = model.nodes.iter().map(|n| n.name.as_deref().unwrap()).collect();
        assert_eq!(names, ["group", "part", "joint"]);
        assert_eq!(model.nodes[0].children, vec![1]);
        assert_eq!(model.roots, vec![0, 2]);
        assert_eq!(model.skins[0].joints, vec![2]);
        assert_eq!(model.skins[0].skeleton, Some(2));
    }
}
