//! Merges the meshes of static nodes into one world-space mesh with one primitive per material and
//! attribute layout, as gltfpack does by default: a scene of hundreds of small parts becomes a
//! handful of draw calls, and the per-mesh and per-accessor overhead (JSON, codec headers, a
//! quantization grid each) is paid once. Only what keeps the picture the same is merged: a node that
//! is skinned, animated, morphed or below an animated node keeps its mesh, as does a mesh placed by more than
//! one node (merging would copy it once per placement; it stays shared instead).
//! A lone static mesh under a transform is placed in world space too, as gltfpack places it, keeping
//! its names: the position grid (write/quantize.rs) is then taken over the box the user sees. Kept
//! in its own units, a body stretched three times along one axis set a grid of half gltfpack's step
//! for the file, and every other mesh (wheels, bolts) paid a bit more per coordinate for it.
use crate::bake::bake_instance;
use crate::empty_nodes::drop_empty_nodes;
use crate::math::determinant3;
use crate::model::{Attribute, Mesh, Model, Node, Primitive, VariantMaterial, IDENTITY};
use std::collections::BTreeMap;

/// What merging did, for the tool's notes.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Meshes folded into the merged one (0 when nothing was merged).
    pub meshes: usize,
    /// Primitives those meshes had.
    pub primitives_before: usize,
    /// Primitives of the merged mesh.
    pub primitives_after: usize,
}

/// Nodes whose world transform can change at run time: animated ones and everything below them.
pub(crate) fn moving_nodes(model: &Model) -> Vec<bool> {
    let mut moving = vec![false; model.nodes.len()];
    for channel in model.animations.iter().flat_map(|a| &a.channels) {
        if let Some(m) = moving.get_mut(channel.node) {
            *m = true;
        }
    }
    let mut stack: Vec<(usize, bool)> = model.roots.iter().map(|&n| (n, false)).collect();
    let mut seen = vec![false; model.nodes.len()];
    while let Some((n, parent_moving)) = stack.pop() {
        if n >= model.nodes.len() || std::mem::replace(&mut seen[n], true) {
            continue;
        }
        moving[n] |= parent_moving;
        stack.extend(model.nodes[n].children.iter().map(|&c| (c, moving[n])));
    }
    moving
}

/// The attribute layout two primitives must share to become one: material, material variants,
/// semantics and widths.
type Layout = (Option<usize>, Vec<VariantMaterial>, Vec<(String, usize)>);

fn layout(p: &Primitive) -> Layout {
    let mut attributes: Vec<(String, usize)> = p.attributes.iter().map(|a| (a.semantic.clone(), a.components)).collect();
    attributes.sort();
    let mut variants = p.variant_materials.clone();
    variants.sort();
    (p.material, variants, attributes)
}

/// Appends `p` to `into` (same layout), its indices shifted past the vertices already there.
fn append(into: &mut Primitive, p: &Primitive) {
    let base = into.positions.len() as u32;
    into.positions.extend_from_slice(&p.positions);
    into.indices.extend(p.indices.iter().map(|i| i + base));
    for a in &mut into.attributes {
        let source = p.attribute(&a.semantic).expect("same layout");
        a.data.extend_from_slice(&source.data);
    }
}

/// Merges the meshes of static, singly placed nodes into one mesh under a new root node; the nodes
/// that held them stay (without a mesh) so the tree is intact until `drop_empty_nodes` runs.
pub fn merge_static_meshes(model: &mut Model) -> Merged {
    let moving = moving_nodes(model);
    let mut placements = vec![0usize; model.meshes.len()];
    for node in &model.nodes {
        if let Some(m) = node.mesh.filter(|&m| m < placements.len()) {
            placements[m] += node.instances.len().max(1);
        }
    }
    let candidates: Vec<_> = model
        .instances()
        .into_iter()
        .filter(|i| {
            let det = determinant3(&i.world);
            // A morphed mesh keeps its own: its weights belong to the mesh and its deltas to its space.
            let morphed = !model.meshes[i.mesh].weights.is_empty();
            // Points and lines stay in their own mesh's space, which baking would leave.
            let unfilled = !model.meshes[i.mesh].lines_and_points.is_empty();
            !moving[i.node] && !morphed && !unfilled && model.nodes[i.node].skin.is_none() && placements[i.mesh] == 1 && det.is_finite() && det != 0.0
        })
        .collect();
    // One mesh already where the user sees it has nothing to gain.
    if candidates.is_empty() || (candidates.len() == 1 && candidates[0].world == IDENTITY) {
        return Merged::default();
    }
    // A lone mesh keeps its names, on the node that now places it, and its primitives as they
    // are: merge_equal_primitives folds them, and says so.
    let lone = candidates.len() == 1;
    let names = match lone {
        true => (model.nodes[candidates[0].node].name.clone(), model.meshes[candidates[0].mesh].name.clone()),
        false => (None, None),
    };
    let mut alone: Vec<Primitive> = Vec::new();
    let mut groups: BTreeMap<Layout, Primitive> = BTreeMap::new();
    let mut primitives_before = 0;
    for instance in &candidates {
        let mirrored = determinant3(&instance.world) < 0.0;
        for mut p in bake_instance(model, instance).primitives {
            primitives_before += 1;
            if mirrored {
                // The bitangent is cross(normal, tangent) * w; a mirror flips that cross product.
                for t in p.attributes.iter_mut().filter(|a| a.semantic == "TANGENT" && a.components == 4) {
                    t.data.chunks_exact_mut(4).for_each(|t| t[3] = -t[3]);
                }
            }
            if lone {
                alone.push(p);
                continue;
            }
            match groups.get_mut(&layout(&p)) {
                Some(group) => append(group, &p),
                None => {
                    let empty = Primitive {
                        positions: Vec::new(),
                        attributes: p.attributes.iter().map(|a| Attribute { data: Vec::new(), ..a.clone() }).collect(),
                        indices: Vec::new(),
                        material: p.material,
                        variant_materials: p.variant_materials.clone(),
                    };
                    let group = groups.entry(layout(&p)).or_insert(empty);
                    append(group, &p);
                }
            }
        }
    }
    // The merged meshes go; the rest are renumbered.
    let mut merged_mesh = vec![false; model.meshes.len()];
    for i in &candidates {
        merged_mesh[i.mesh] = true;
        model.nodes[i.node].mesh = None;
    }
    let mut renumber = vec![None; model.meshes.len()];
    let mut kept = Vec::new();
    for (index, mesh) in std::mem::take(&mut model.meshes).into_iter().enumerate() {
        if !merged_mesh[index] {
            renumber[index] = Some(kept.len());
            kept.push(mesh);
        }
    }
    model.meshes = kept;
    for node in &mut model.nodes {
        node.mesh = node.mesh.and_then(|m| renumber[m]);
    }
    let primitives: Vec<Primitive> = if lone { alone } else { groups.into_values().collect() };
    let result = Merged { meshes: candidates.len(), primitives_before, primitives_after: primitives.len() };
    let root = model.nodes.len();
    model.nodes.push(Node::with_mesh(names.0, model.meshes.len()));
    model.meshes.push(Mesh { name: names.1, primitives, ..Default::default() });
    model.roots.push(root);
    result
}

/// Merges static meshes (merge_static_meshes) and drops the nodes left empty, and says so in the
/// model's notes.
pub fn merge_meshes(model: &mut Model) -> Merged {
    let merged = merge_static_meshes(model);
    if merged.meshes == 1 {
        let dropped = drop_empty_nodes(model);
        let dropped = if dropped > 0 { format!(" and dropped {dropped} node(s) left empty") } else { String::new() };
        model.notes.push(format!(
            "Placed the one static mesh in world space (its node's transform applied to its vertices){dropped}; set keep_nodes to keep the node tree."
        ));
    } else if merged.meshes > 1 {
        let dropped = drop_empty_nodes(model);
        model.notes.push(format!(
            "Merged {} static meshes ({} primitives) into one mesh of {} primitive(s), one per material and vertex layout, and dropped {dropped} node(s) left empty; set keep_nodes to keep the node tree.",
            merged.meshes, merged.primitives_before, merged.primitives_after
        ));
    }
    let folded = merge_equal_primitives(model);
    if folded > 0 {
        model.notes.push(format!("Merged {folded} primitive(s) into others of their mesh with the same material and vertex layout."));
    }
    merged
}

/// Folds the primitives of each mesh that share a layout (material, attribute semantics and
/// widths) into the first of them, in the order they come: the same triangles at the same place,
/// drawn in fewer calls, and simplified as one surface. This holds for any mesh, moving, skinned,
/// morphed (the weights belong to the mesh, and the deltas are attributes of the layout) or placed
/// by many nodes, and for a scene of one static mesh, which `merge_static_meshes` leaves alone.
/// Returns how many primitives were folded away.
pub fn merge_equal_primitives(model: &mut Model) -> usize {
    let mut folded = 0;
    for mesh in model.meshes.iter_mut().filter(|m| m.primitives.len() > 1) {
        let mut kept: Vec<Primitive> = Vec::new();
        let mut slot: BTreeMap<Layout, usize> = BTreeMap::new();
        for p in std::mem::take(&mut mesh.primitives) {
            let key = layout(&p);
            match slot.get(&key) {
                Some(&i) => {
                    append(&mut kept[i], &p);
                    folded += 1;
                }
                None => {
                    slot.insert(key, kept.len());
                    kept.push(p);
                }
            }
        }
        mesh.primitives = kept;
    }
    folded
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::compose;
    use crate::model::{Animation, AnimationSampler, Channel, SourceFormat, IDENTITY};

    fn triangle(material: usize, with_normals: bool) -> Primitive {
        let mut p = Primitive {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            indices: vec![0, 1, 2],
            material: Some(material),
            ..Primitive::default()
        };
        if with_normals {
            p.attributes.push(Attribute { semantic: "NORMAL".into(), components: 3, data: [0.0, 0.0, 1.0].repeat(3) });
        }
        p
    }

    fn placed(model: &mut Model, primitives: Vec<Primitive>, translation: [f32; 3]) -> usize {
        model.push_root_mesh(Mesh { name: Some(format!("m{}", model.meshes.len())), primitives, ..Default::default() });
        let node = model.nodes.len() - 1;
        model.nodes[node].matrix = compose(translation, [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        node
    }

    #[test]
    fn static_meshes_merge_by_material_and_layout_in_world_space() {
        let mut model = Model::new(SourceFormat::Glb);
        placed(&mut model, vec![triangle(0, true)], [1.0, 0.0, 0.0]);
        placed(&mut model, vec![triangle(0, true), triangle(1, true)], [0.0, 5.0, 0.0]);
        placed(&mut model, vec![triangle(0, false)], [0.0, 0.0, 2.0]);
        let merged = merge_static_meshes(&mut model);
        assert_eq!(merged, Merged { meshes: 3, primitives_before: 4, primitives_after: 3 });
        assert_eq!(model.meshes.len(), 1);
        let root = *model.roots.last().unwrap();
        assert_eq!(model.nodes[root].mesh, Some(0));
        assert_eq!(model.nodes[root].matrix, IDENTITY);
        let with_normals = model.meshes[0].primitives.iter().find(|p| p.material == Some(0) && !p.attributes.is_empty()).unwrap();
        assert_eq!(with_normals.positions, vec![[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 5.0, 0.0], [1.0, 5.0, 0.0], [0.0, 6.0, 0.0]]);
        assert_eq!(with_normals.indices, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(with_normals.attributes[0].data.len(), 18);
        assert!(model.nodes[..3].iter().all(|n| n.mesh.is_none()));
    }

    #[test]
    fn primitives_with_other_material_variants_stay_apart() {
        let mut model = Model::new(SourceFormat::Glb);
        let variant = |material: usize| {
            let mut p = triangle(0, true);
            p.variant_materials = vec![VariantMaterial { material, variants: vec![0] }];
            p
        };
        placed(&mut model, vec![variant(1)], [1.0, 0.0, 0.0]);
        placed(&mut model, vec![variant(2)], [2.0, 0.0, 0.0]);
        placed(&mut model, vec![variant(1), triangle(0, true)], [3.0, 0.0, 0.0]);
        merge_static_meshes(&mut model);
        let mut kept: Vec<(usize, Option<usize>)> =
            model.meshes[0].primitives.iter().map(|p| (p.face_count(), p.variant_materials.first().map(|v| v.material))).collect();
        kept.sort();
        // The two drawn with material 1 under the variant become one; the others stay as they are.
        assert_eq!(kept, vec![(1, None), (1, Some(2)), (2, Some(1))]);
    }

    #[test]
    fn animated_skinned_and_shared_meshes_are_never_merged() {
        let mut model = Model::new(SourceFormat::Glb);
        let animated = placed(&mut model, vec![triangle(0, false)], [0.0; 3]);
        let child = placed(&mut model, vec![triangle(0, false)], [1.0, 0.0, 0.0]);
        // The child hangs below the animated node, so it moves with it.
        model.roots.retain(|&r| r != child);
        model.nodes[animated].children.push(child);
        model.animations.push(Animation {
            name: None,
            samplers: vec![AnimationSampler { input: vec![0.0], output: vec![0.0; 3], components: 3, interpolation: "LINEAR".into() }],
            channels: vec![Channel { sampler: 0, node: animated, path: "translation".into() }],
        });
        let skinned = placed(&mut model, vec![triangle(0, false)], [2.0, 0.0, 0.0]);
        model.nodes[skinned].skin = Some(0);
        let shared = placed(&mut model, vec![triangle(0, false)], [3.0, 0.0, 0.0]);
        let mut again = model.nodes[shared].clone();
        again.matrix = compose([4.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        model.nodes.push(again);
        model.roots.push(model.nodes.len() - 1);
        let still = placed(&mut model, vec![triangle(0, false)], [0.0; 3]);
        let before = model.clone();
        // One static, singly placed mesh is all there is, already in world space: nothing to do.
        assert_eq!(merge_static_meshes(&mut model), Merged::default());
        assert_eq!(model, before);
        assert!(model.nodes[still].mesh.is_some());
    }

    #[test]
    fn a_lone_static_mesh_under_a_transform_is_placed_in_world_space_with_its_names() {
        let mut model = Model::new(SourceFormat::Glb);
        let node = placed(&mut model, vec![triangle(0, true)], [0.0, 1.0, 0.0]);
        model.nodes[node].name = Some("body".into());
        model.nodes[node].matrix = compose([0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [3.0, 0.5, 1.0]);
        let mesh_name = model.meshes[0].name.clone();
        assert_eq!(merge_meshes(&mut model), Merged { meshes: 1, primitives_before: 1, primitives_after: 1 });
        assert_eq!(model.meshes.len(), 1);
        assert_eq!(model.meshes[0].name, mesh_name);
        assert_eq!(model.nodes.len(), 1);
        assert_eq!(model.nodes[0].name.as_deref(), Some("body"));
        assert_eq!(model.nodes[0].matrix, IDENTITY);
        assert_eq!(model.meshes[0].primitives[0].positions, vec![[0.0, 1.0, 0.0], [3.0, 1.0, 0.0], [0.0, 1.5, 0.0]]);
        assert!(model.notes.iter().any(|n| n.starts_with("Placed the one static mesh in world space")));
    }

    #[test]
    fn primitives_of_one_mesh_fold_by_layout_in_order_wherever_the_mesh_is() {
        let mut model = Model::new(SourceFormat::Glb);
        let mut moved = triangle(1, true);
        moved.positions.iter_mut().for_each(|p| p[2] = 4.0);
        let node = placed(&mut model, vec![triangle(1, true), triangle(0, true), moved, triangle(1, false)], [0.0; 3]);
        // Animated: the mesh stays at its node, and its primitives still fold.
        model.animations.push(Animation {
            name: None,
            samplers: vec![AnimationSampler { input: vec![0.0], output: vec![0.0; 3], components: 3, interpolation: "LINEAR".into() }],
            channels: vec![Channel { sampler: 0, node, path: "translation".into() }],
        });
        assert_eq!(merge_equal_primitives(&mut model), 1);
        let primitives = &model.meshes[0].primitives;
        let materials: Vec<_> = primitives.iter().map(|p| (p.material, p.attributes.len())).collect();
        assert_eq!(materials, vec![(Some(1), 1), (Some(0), 1), (Some(1), 0)]);
        assert_eq!(primitives[0].indices, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(primitives[0].positions[3], [0.0, 0.0, 4.0]);
        assert_eq!(primitives[0].attributes[0].data.len(), 18);
        assert_eq!(model.nodes[node].mesh, Some(0));
    }

    #[test]
    fn mirrored_nodes_keep_their_winding_and_tangent_handedness() {
        let mut model = Model::new(SourceFormat::Glb);
        let mut p = triangle(0, false);
        p.attributes.push(Attribute { semantic: "TANGENT".into(), components: 4, data: [1.0, 0.0, 0.0, 1.0].repeat(3) });
        let mirror = placed(&mut model, vec![p.clone()], [0.0; 3]);
        model.nodes[mirror].matrix = compose([0.0; 3], [0.0, 0.0, 0.0, 1.0], [-1.0, 1.0, 1.0]);
        placed(&mut model, vec![p], [0.0, 0.0, 3.0]);
        merge_static_meshes(&mut model);
        let merged = &model.meshes[0].primitives[0];
        assert_eq!(&merged.indices[..3], &[0, 2, 1]);
        assert_eq!(merged.positions[1], [-1.0, 0.0, 0.0]);
        let tangents = &merged.attributes[0].data;
        assert_eq!(&tangents[..4], &[-1.0, 0.0, 0.0, -1.0]);
        assert_eq!(&tangents[12..16], &[1.0, 0.0, 0.0, 1.0]);
    }
}
