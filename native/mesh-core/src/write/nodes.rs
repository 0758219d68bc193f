//! The glTF node list of a written scene. Local transforms are written as translation /
//! rotation / scale when the matrix is one (almost always: glTF files hold TRS, and readers turn
//! them into matrices), leaving out identity parts, and as a matrix otherwise. A quantized mesh
//! moves to a child node whose transform undoes its grid, so every node keeps the transform the
//! user (or an animation) knows it by. A node the source gave as TRS is written with that TRS
//! (animations overwrite it); a skinned mesh stays on its node with its skin, since glTF ignores
//! that node's transform, and its grid is folded into the skin instead (write/skin.rs).
use super::compact_json::short_f32s;
use super::quantize::Grid;
use crate::math::compose;
use crate::model::Model;
use serde_json::{json, Map, Value};

/// The extension whose lights nodes carry (`Model::lights`).
pub const LIGHTS: &str = "KHR_lights_punctual";

/// Translation, rotation (unit quaternion xyzw) and scale of a node matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    pub t: [f32; 3],
    pub q: [f32; 4],
    pub s: [f32; 3],
}

/// The TRS whose composition is `m` (within float rounding), or None for a matrix with shear,
/// zero scale or a projective row.
pub fn decompose(m: &[f32; 16]) -> Option<Trs> {
    if m[3] != 0.0 || m[7] != 0.0 || m[11] != 0.0 || m[15] != 1.0 || m.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let t = [m[12], m[13], m[14]];
    let column = |c: usize| [m[c * 4] as f64, m[c * 4 + 1] as f64, m[c * 4 + 2] as f64];
    let det = crate::math::determinant3(m);
    let mut s = [0, 1, 2].map(|c| column(c).iter().map(|v| v * v).sum::<f64>().sqrt());
    if s.contains(&0.0) {
        return None;
    }
    if det < 0.0 {
        s[0] = -s[0];
    }
    // r(row, col) of the pure rotation.
    let r = |row: usize, col: usize| column(col)[row] / s[col];
    let trace = r(0, 0) + r(1, 1) + r(2, 2);
    let q = if trace > 0.0 {
        let d = (trace + 1.0).sqrt() * 2.0;
        [(r(2, 1) - r(1, 2)) / d, (r(0, 2) - r(2, 0)) / d, (r(1, 0) - r(0, 1)) / d, d / 4.0]
    } else if r(0, 0) > r(1, 1) && r(0, 0) > r(2, 2) {
        let d = (1.0 + r(0, 0) - r(1, 1) - r(2, 2)).sqrt() * 2.0;
        [d / 4.0, (r(0, 1) + r(1, 0)) / d, (r(0, 2) + r(2, 0)) / d, (r(2, 1) - r(1, 2)) / d]
    } else if r(1, 1) > r(2, 2) {
        let d = (1.0 + r(1, 1) - r(0, 0) - r(2, 2)).sqrt() * 2.0;
        [(r(0, 1) + r(1, 0)) / d, d / 4.0, (r(1, 2) + r(2, 1)) / d, (r(0, 2) - r(2, 0)) / d]
    } else {
        let d = (1.0 + r(2, 2) - r(0, 0) - r(1, 1)).sqrt() * 2.0;
        [(r(0, 2) + r(2, 0)) / d, (r(1, 2) + r(2, 1)) / d, d / 4.0, (r(1, 0) - r(0, 1)) / d]
    };
    let norm = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    let trs = Trs { t, q: q.map(|v| (v / norm) as f32), s: s.map(|v| v as f32) };
    // Shear shows up as a rotation that does not rebuild the matrix.
    let back = compose(trs.t, trs.q, trs.s);
    let size = m.iter().take(11).fold(1.0f32, |a, v| a.max(v.abs()));
    (0..12).all(|i| (back[i] - m[i]).abs() <= 1e-5 * size).then_some(trs)
}

/// Writes a local transform into a node object, leaving out identity parts: the source's TRS when
/// it had one, else the matrix decomposed when it can be.
fn put_transform(node: &mut Map<String, Value>, matrix: &[f32; 16], source: Option<crate::model::Trs>) {
    let trs = match source {
        Some(t) => Some(Trs { t: t.translation, q: t.rotation, s: t.scale }),
        None => decompose(matrix),
    };
    match trs {
        Some(Trs { t, q, s }) => {
            if t != [0.0; 3] {
                node.insert("translation".into(), short_f32s(&t));
            }
            if q != [0.0, 0.0, 0.0, 1.0] {
                node.insert("rotation".into(), short_f32s(&q));
            }
            if s != [1.0; 3] {
                node.insert("scale".into(), short_f32s(&s));
            }
        }
        None => {
            node.insert("matrix".into(), short_f32s(matrix));
        }
    }
}

/// The nodes of a written scene and, per model node, the written node that holds its mesh (the
/// node itself, or its dequantization child): morph weights and `weights` animation channels
/// belong to the node with the mesh.
pub struct SceneNodes {
    pub nodes: Vec<Value>,
    pub mesh_holder: Vec<usize>,
}

/// The node list: the model's nodes in order (so scene roots keep their indices), then the
/// dequantization children.
/// `instancing` is the EXT_mesh_gpu_instancing object of each node that has instances: such a node
/// holds its mesh itself, its grid folded into the instances (write/instancing.rs).
pub fn scene_nodes(model: &Model, grids: &[Option<Grid>], node_skin: &[Option<usize>], instancing: &[Option<Value>]) -> SceneNodes {
    let mut nodes = Vec::with_capacity(model.nodes.len());
    let mut extra: Vec<Value> = Vec::new();
    let mut mesh_holder: Vec<usize> = (0..model.nodes.len()).collect();
    for (index, node) in model.nodes.iter().enumerate() {
        let mut v = Map::new();
        if let Some(n) = &node.name {
            v.insert("name".into(), json!(n));
        }
        let mut children = node.children.clone();
        put_transform(&mut v, &node.matrix, node.trs);
        match node.mesh.map(|m| (m, grids[m])) {
            Some((m, _)) if node_skin.get(index).copied().flatten().is_some() => {
                v.insert("mesh".into(), json!(m));
                v.insert("skin".into(), json!(node_skin[index]));
            }
            Some((m, _)) if instancing.get(index).is_some_and(Option::is_some) => {
                v.insert("mesh".into(), json!(m));
                v.insert("extensions".into(), instancing[index].clone().expect("checked"));
            }
            Some((m, Some(g))) => {
                mesh_holder[index] = model.nodes.len() + extra.len();
                children.push(mesh_holder[index]);
                extra.push(json!({ "mesh": m, "translation": short_f32s(&g.offset), "scale": short_f32s(&[g.scale; 3]) }));
            }
            Some((m, None)) => {
                v.insert("mesh".into(), json!(m));
            }
            None => {}
        }
        if let Some(c) = node.camera.filter(|&c| c < model.cameras.len()) {
            v.insert("camera".into(), json!(c));
        }
        if let Some(l) = node.light.filter(|&l| l < model.lights.len()) {
            let extensions = v.entry("extensions").or_insert_with(|| json!({}));
            extensions[LIGHTS] = json!({ "light": l });
        }
        if !children.is_empty() {
            v.insert("children".into(), json!(children));
        }
        nodes.push(Value::Object(v));
        if !node.weights.is_empty() {
            let holder = mesh_holder[index];
            let weights = json!(short_f32s(&node.weights));
            match holder < model.nodes.len() {
                true => nodes[holder]["weights"] = weights,
                false => extra[holder - model.nodes.len()]["weights"] = weights,
            }
        }
    }
    nodes.extend(extra);
    SceneNodes { nodes, mesh_holder }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Mesh, Node, Primitive, SourceFormat, IDENTITY};

    #[test]
    fn trs_matrices_decompose_and_sheared_ones_do_not() {
        let q = [0.2f32, -0.4, 0.1, 0.8832];
        let norm = q.iter().map(|v| v * v).sum::<f32>().sqrt();
        let q = q.map(|v| v / norm);
        for s in [[2.0, 3.0, 0.5], [-1.0, 1.0, 1.0]] {
            let m = compose([1.0, -2.0, 3.5], q, s);
            let trs = decompose(&m).unwrap();
            let back = compose(trs.t, trs.q, trs.s);
            assert!((0..16).all(|i| (back[i] - m[i]).abs() < 1e-5), "{back:?} vs {m:?}");
        }
        let translation = compose([4.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        assert_eq!(decompose(&translation), Some(Trs { t: [4.0, 0.0, 0.0], q: [0.0, 0.0, 0.0, 1.0], s: [1.0; 3] }));
        let mut sheared = IDENTITY;
        sheared[4] = 0.5;
        assert_eq!(decompose(&sheared), None);
    }

    #[test]
    fn nodes_write_short_trs_and_a_dequantization_child() {
        let mut model = Model::new(SourceFormat::Glb);
        model.push_root_mesh(Mesh { name: Some("Cube".into()), primitives: vec![Primitive::default()], ..Default::default() });
        model.nodes[0].matrix = compose([4.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        let mut sheared = IDENTITY;
        sheared[4] = 0.5;
        model.nodes.push(Node { mesh: None, matrix: sheared, ..Node::with_mesh(None, 0) });
        model.nodes[0].children.push(1);
        let grid = Grid::own([-1.0, 0.25, 0.0], 0.001);
        let nodes = scene_nodes(&model, &[Some(grid)], &[None, None], &[]).nodes;
        assert_eq!(serde_json::to_string(&nodes[0]).unwrap(), r#"{"children":[1,2],"name":"Cube","translation":[4,0,0]}"#);
        assert_eq!(nodes[1]["matrix"].as_array().unwrap().len(), 16);
        assert_eq!(serde_json::to_string(&nodes[2]).unwrap(), r#"{"mesh":0,"scale":[0.001,0.001,0.001],"translation":[-1,0.25,0]}"#);
    }
}
