//! Skins and animations: CesiumMan's are decoded, survive GLB write/read in every option mix,
//! keep quantized vertices at their bind-pose positions, and hostile variants fail cleanly.
use mesh_core::math::{compose, mul, transform_point};
use mesh_core::model::{Model, Node};
use mesh_core::read::{read_model, ReadOptions};
use mesh_core::write::{write_glb, GlbOptions};
use mesh_core::ErrorCode;
use serde_json::Value;
use std::path::Path;

fn cesium_man() -> Option<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/glb/CesiumMan.glb");
    if !path.exists() {
        eprintln!("SKIPPED: shared corpus not found at {}", path.display());
        return None;
    }
    Some(std::fs::read(path).unwrap())
}

fn read(data: &[u8]) -> mesh_core::Result<Model> {
    read_model(data, "glb", &ReadOptions::default())
}

fn chunks(glb: &[u8]) -> (Value, Vec<u8>) {
    let json_length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&glb[20..20 + json_length]).unwrap();
    (json, glb[20 + json_length + 8..].to_vec())
}

fn pack(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut j = serde_json::to_vec(json).unwrap();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let total = 12 + 8 + j.len() + 8 + bin.len();
    let mut out = b"glTF".to_vec();
    for v in [2, total as u32, j.len() as u32, 0x4E4F_534A] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&j);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&0x004E_4942u32.to_le_bytes());
    out.extend_from_slice(bin);
    out
}

fn world_matrices(nodes: &[Node]) -> Vec<[f32; 16]> {
    let mut parent = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        n.children.iter().for_each(|&c| parent[c] = Some(i));
    }
    (0..nodes.len())
        .map(|mut i| {
            let mut m = nodes[i].matrix;
            while let Some(p) = parent[i] {
                m = mul(&nodes[p].matrix, &m);
                i = p;
            }
            m
        })
        .collect()
}

/// Bind-pose skinned position of every vertex of `mesh` drawn by `node`: Σ w × jointWorld × IBM × v,
/// with the weights given (so weight rounding does not blur the comparison of positions and IBMs).
fn skinned(model: &Model, node: usize, mesh: usize, weights: &[f32]) -> Vec<[f32; 3]> {
    let worlds = world_matrices(&model.nodes);
    let skin = &model.skins[model.nodes[node].skin.unwrap()];
    let p = &model.meshes[mesh].primitives[0];
    let joints = &p.attribute("JOINTS_0").unwrap().data;
    p.positions
        .iter()
        .enumerate()
        .map(|(v, &q)| {
            let mut out = [0.0f32; 3];
            for k in 0..4 {
                let j = joints[v * 4 + k] as usize;
                let m = mul(&worlds[skin.joints[j]], &skin.inverse_bind[j]);
                let t = transform_point(&m, q);
                (0..3).for_each(|c| out[c] += weights[v * 4 + k] * t[c]);
            }
            out
        })
        .collect()
}

/// The model with every animated node's TRS at time `t` (keys clamp at both ends; LINEAR blends
/// translations and scales linearly and rotations by normalized lerp, enough between close keys).
fn posed(model: &Model, t: f32) -> Model {
    let mut out = model.clone();
    for c in &model.animations[0].channels {
        let s = &model.animations[0].samplers[c.sampler];
        let n = s.components;
        let k = s.input.partition_point(|&x| x <= t).clamp(1, s.input.len()) - 1;
        let value: Vec<f32> = if k + 1 < s.input.len() {
            let f = (t - s.input[k]) / (s.input[k + 1] - s.input[k]);
            let (a, b) = (&s.output[k * n..k * n + n], &s.output[k * n + n..k * n + 2 * n]);
            let sign = if n == 4 && a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>() < 0.0 { -1.0 } else { 1.0 };
            let v: Vec<f32> = a.iter().zip(b).map(|(x, y)| x + (sign * y - x) * f).collect();
            let length = if n == 4 { v.iter().map(|x| x * x).sum::<f32>().sqrt() } else { 1.0 };
            v.iter().map(|x| x / length).collect()
        } else {
            s.output[k * n..k * n + n].to_vec()
        };
        let trs = out.nodes[c.node].trs.as_mut().unwrap();
        match c.path.as_str() {
            "translation" => trs.translation.copy_from_slice(&value),
            "rotation" => trs.rotation.copy_from_slice(&value),
            _ => trs.scale.copy_from_slice(&value),
        }
        let trs = *trs;
        out.nodes[c.node].matrix = compose(trs.translation, trs.rotation, trs.scale);
    }
    out
}

/// For each vertex of the written `mesh` drawn by `node`, the source vertex it stands for: the
/// nearest in bind pose among those with the same joints. The quantized writer writes vertices
/// equal at output precision once (CesiumMan: 2,612 of 3,273), so order and count change.
fn sources(source: &Model, written: &Model, node: usize, mesh: usize) -> Vec<usize> {
    let own_weights = |m: &Model| m.meshes[mesh].primitives[0].attribute("WEIGHTS_0").unwrap().data.clone();
    let (from, to) = (skinned(source, node, mesh, &own_weights(source)), skinned(written, node, mesh, &own_weights(written)));
    let joints = |m: &Model| m.meshes[mesh].primitives[0].attribute("JOINTS_0").unwrap().data.clone();
    let (jf, jt) = (joints(source), joints(written));
    let distance = |a: [f32; 3], b: [f32; 3]| (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f32::max);
    (0..to.len())
        .map(|w| {
            (0..from.len())
                .filter(|&v| jf[v * 4..v * 4 + 4] == jt[w * 4..w * 4 + 4])
                .min_by(|&a, &b| distance(from[a], to[w]).total_cmp(&distance(from[b], to[w])))
                .expect("a source vertex with the same joints")
        })
        .collect()
}

/// `values` (`per_vertex` each) of the listed vertices.
fn picked(values: &[f32], per_vertex: usize, vertices: &[usize]) -> Vec<f32> {
    vertices.iter().flat_map(|&v| values[v * per_vertex..(v + 1) * per_vertex].iter().copied()).collect()
}

#[test]
fn cesium_man_skin_and_animation_are_decoded() {
    let Some(data) = cesium_man() else { return };
    let model = read(&data).unwrap();
    assert_eq!(model.skins.len(), 1);
    assert_eq!(model.skins[0].joints.len(), 19);
    assert_eq!(model.skins[0].inverse_bind.len(), 19);
    assert_eq!(model.skins[0].skeleton, Some(2));
    assert_eq!(model.animations.len(), 1);
    assert_eq!((model.animations[0].channels.len(), model.animations[0].samplers.len()), (57, 57));
    assert!(model.animations[0].samplers.iter().all(|s| s.input.len() == 49 && s.input[48] == 2.0));
    assert_eq!(model.nodes[1].skin, Some(0));
    assert!(model.animations[0].channels.iter().all(|c| model.nodes[c.node].trs.is_some()));
    let p = &model.meshes[0].primitives[0];
    let joints = &p.attribute("JOINTS_0").unwrap().data;
    assert!(joints.iter().all(|&j| j.fract() == 0.0 && j < 19.0));
    for w in p.attribute("WEIGHTS_0").unwrap().data.chunks_exact(4) {
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
    assert!(!model.notes.iter().any(|n| n.contains("skins") || n.contains("Animation")), "{:?}", model.notes);
}

#[test]
fn skins_and_animations_survive_a_round_trip_in_every_option_mix() {
    let Some(data) = cesium_man() else { return };
    let model = read(&data).unwrap();
    for quantize in [false, true] {
        for compress in [false, true] {
            let written = write_glb(&model, &GlbOptions { quantize, compress, ..GlbOptions::default() });
            let (json, _) = chunks(&written);
            let animated: Vec<usize> = model.animations[0].channels.iter().map(|c| c.node).collect();
            assert!(animated.iter().all(|&n| json["nodes"][n].get("matrix").is_none()), "animated nodes are TRS");
            assert_eq!(json["nodes"][1]["skin"], 0);
            let back = read(&written).unwrap();
            let label = format!("quantize {quantize} compress {compress}");
            assert_eq!(back.skins.len(), 1, "{label}");
            assert_eq!(back.skins[0].joints, model.skins[0].joints, "{label}");
            assert_eq!(back.animations.len(), 1);
            // Of the 57 channels, the 32 translation and scale tracks that hold the joint's rest
            // value (up to float noise) go; 5 constant translations off rest keep one key; the
            // hips' translation and the 19 rotations move and stay whole, spanning the 2 s.
            let (a, b) = (&model.animations[0], &back.animations[0]);
            assert_eq!(b.channels.len(), 25, "{label}");
            assert_eq!(b.channels.iter().filter(|c| c.path == "rotation").count(), 19, "{label}");
            let lengths: Vec<usize> = b.channels.iter().map(|c| b.samplers[c.sampler].input.len()).collect();
            assert_eq!(lengths.iter().filter(|&&n| n == 1).count(), 5, "{label}: {lengths:?}");
            assert!(b.samplers.iter().all(|s| s.interpolation == "LINEAR" && s.input.first() == Some(&0.0)));
            assert!(b.samplers.iter().any(|s| s.input.last() == Some(&2.0)), "the duration stays");
            // The skinned pose at every key time is the source's, up to the position grid (when
            // quantizing) and the 16-bit rotation keys (always).
            // Each written vertex stands for its source vertex (the quantized writer writes equal
            // vertices once); both are skinned with the written weights, so only the transforms
            // and positions are compared here.
            let weights = &back.meshes[0].primitives[0].attribute("WEIGHTS_0").unwrap().data;
            let stands_for: Vec<usize> = if quantize { sources(&model, &back, 1, 0) } else { (0..weights.len() / 4).collect() };
            let mut source_weights = model.meshes[0].primitives[0].attribute("WEIGHTS_0").unwrap().data.clone();
            for (w, &v) in stands_for.iter().enumerate() {
                source_weights[v * 4..v * 4 + 4].copy_from_slice(&weights[w * 4..w * 4 + 4]);
            }
            let mut worst = 0.0f32;
            let mut tolerance = 0.0f32;
            for &t in &a.samplers[0].input {
                let all = skinned(&posed(&model, t), 1, 0, &source_weights);
                let expected: Vec<[f32; 3]> = stands_for.iter().map(|&v| all[v]).collect();
                let actual = skinned(&posed(&back, t), 1, 0, weights);
                let extent = mesh_core::math::Bounds::of(&expected).extent();
                tolerance = if quantize { grid_tolerance(&expected) } else { 0.0 } + 1e-4 * extent;
                worst = worst.max(expected.iter().zip(&actual).map(|(a, b)| (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f32::max)).fold(0.0, f32::max));
            }
            assert!(worst <= tolerance, "{label}: {worst} > {tolerance}");
            let (p, q) = (&model.meshes[0].primitives[0], &back.meshes[0].primitives[0]);
            let from: Vec<usize> = if quantize { sources(&model, &back, 1, 0) } else { (0..p.positions.len()).collect() };
            assert_eq!(from.len(), q.positions.len());
            assert_eq!(picked(&p.attribute("JOINTS_0").unwrap().data, 4, &from), q.attribute("JOINTS_0").unwrap().data, "{label}");
            // Weights are 8-bit normalized in every mode.
            let tolerance = 1.0 / 255.0;
            let (wp, wq) = (&picked(&p.attribute("WEIGHTS_0").unwrap().data, 4, &from), &q.attribute("WEIGHTS_0").unwrap().data);
            let worst = wp.iter().zip(wq).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
            assert!(worst <= tolerance + 1e-6, "{label}: {worst}");
            // The stored bytes sum to 255 per vertex, so the decoded weights sum to 1.
            assert!(wq.chunks_exact(4).all(|w| (w.iter().sum::<f32>() * 255.0 - 255.0).abs() < 1e-3));
            if !quantize {
                assert_eq!(model.skins[0].inverse_bind, back.skins[0].inverse_bind);
            }
        }
    }
}

/// Largest side of the bounding box of the skinned positions, times the grid's relative step.
fn grid_tolerance(points: &[[f32; 3]]) -> f32 {
    let b = mesh_core::math::Bounds::of(points);
    b.extent() / ((1 << 14) - 1) as f32 * 2.0
}

#[test]
fn quantized_skinned_vertices_keep_their_bind_pose_positions() {
    let Some(data) = cesium_man() else { return };
    let mut model = read(&data).unwrap();
    // A second, differently placed copy of the mesh on the same skin needs its own grid, hence
    // its own copy of the skin.
    let mut copy = model.meshes[0].clone();
    copy.primitives[0].positions.iter_mut().for_each(|p| *p = [p[0] * 0.5 + 3.0, p[1] * 2.0, p[2] - 1.0]);
    model.meshes.push(copy);
    model.nodes.push(Node { mesh: Some(1), ..model.nodes[1].clone() });
    let added = model.nodes.len() - 1;
    model.nodes[0].children.push(added);
    for compress in [false, true] {
        let written = write_glb(&model, &GlbOptions::quantized(compress));
        let back = read(&written).unwrap();
        assert_eq!(back.skins.len(), 2, "one skin per grid");
        assert_ne!(back.nodes[1].skin, back.nodes[added].skin);
        for (node, mesh) in [(1, 0), (added, 1)] {
            // Each written vertex against its source vertex, both with the written weights.
            let weights = &back.meshes[mesh].primitives[0].attribute("WEIGHTS_0").unwrap().data;
            let from = sources(&model, &back, node, mesh);
            let mut matched = model.clone();
            let p = &mut matched.meshes[mesh].primitives[0];
            p.positions = from.iter().map(|&v| p.positions[v]).collect();
            let joints = p.attributes.iter_mut().find(|a| a.semantic == "JOINTS_0").unwrap();
            joints.data = picked(&joints.data, 4, &from);
            let expected = skinned(&matched, node, mesh, weights);
            let actual = skinned(&back, node, mesh, weights);
            let tolerance = grid_tolerance(&expected);
            let worst = expected.iter().zip(&actual).map(|(a, b)| (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f32::max)).fold(0.0, f32::max);
            assert!(worst <= tolerance, "mesh {mesh}: {worst} > {tolerance}");
            // The dequantization is not on the node (glTF ignores a skinned mesh node's transform).
            assert!(back.meshes[mesh].primitives[0].positions.iter().flatten().all(|c| c.fract() == 0.0));
        }
    }
}

fn mutated(data: &[u8], change: impl Fn(&mut Value, &mut Vec<u8>)) -> mesh_core::Result<Model> {
    let (mut json, mut bin) = chunks(data);
    change(&mut json, &mut bin);
    read(&pack(&json, &bin))
}

/// A change to a GLB's JSON and binary chunk that a reader must refuse or repair.
type Corruption = dyn Fn(&mut Value, &mut Vec<u8>);

#[test]
fn broken_skin_and_animation_indices_are_invalid_meshes() {
    let Some(data) = cesium_man() else { return };
    let cases: Vec<(&str, Box<Corruption>)> = vec![
        ("joint node out of range", Box::new(|j, _| j["skins"][0]["joints"][3] = 999.into())),
        ("skeleton out of range", Box::new(|j, _| j["skins"][0]["skeleton"] = 999.into())),
        ("no joints", Box::new(|j, _| j["skins"][0]["joints"] = Value::Array(vec![]))),
        ("node skin out of range", Box::new(|j, _| j["nodes"][1]["skin"] = 7.into())),
        ("inverse bind count", Box::new(|j, _| j["skins"][0]["inverseBindMatrices"] = 6.into())),
        ("missing accessor", Box::new(|j, _| j["skins"][0]["inverseBindMatrices"] = 9999.into())),
        ("channel sampler out of range", Box::new(|j, _| j["animations"][0]["channels"][4]["sampler"] = 999.into())),
        ("channel node out of range", Box::new(|j, _| j["animations"][0]["channels"][4]["target"]["node"] = 999.into())),
        ("joints not VEC4", Box::new(|j, _| j["accessors"][1]["type"] = "VEC2".into())),
    ];
    for (what, change) in cases {
        let err = mutated(&data, change).err().unwrap_or_else(|| panic!("{what}: read"));
        assert_eq!(err.code, ErrorCode::InvalidMesh, "{what}: {err}");
    }
}

#[test]
fn unusable_keys_drop_their_channels_with_a_note() {
    let Some(data) = cesium_man() else { return };
    // NaN key times in accessor 6, the times of the root's translation, rotation and scale samplers.
    let (json, _) = chunks(&data);
    let on_6 = json["animations"][0]["samplers"].as_array().unwrap().iter().filter(|s| s["input"] == 6).count();
    assert_eq!(on_6, 3);
    let nan = mutated(&data, |j, bin| {
        let view = &j["bufferViews"][j["accessors"][6]["bufferView"].as_u64().unwrap() as usize];
        let at = view["byteOffset"].as_u64().unwrap_or(0) as usize + 4 * 5;
        bin[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    })
    .unwrap();
    assert_eq!(nan.animations[0].channels.len(), 57 - on_6);
    assert_eq!(nan.animations[0].samplers.len(), 57 - on_6, "unused samplers go too");
    assert!(nan.notes.iter().any(|n| n.contains("NaN")), "{:?}", nan.notes);
    // One sampler whose output has another sampler's time count (the skin's 19 matrices are not 49 keys).
    let mismatch = mutated(&data, |j, _| {
        j["accessors"].as_array_mut().unwrap().push(serde_json::json!({ "bufferView": 4, "componentType": 5126, "count": 10, "type": "VEC3" }));
        let last = j["accessors"].as_array().unwrap().len() - 1;
        j["animations"][0]["samplers"][0]["output"] = last.into();
    })
    .unwrap();
    assert_eq!(mismatch.animations[0].channels.len(), 56);
    assert!(mismatch.notes.iter().any(|n| n.contains("do not match")), "{:?}", mismatch.notes);
    // Morph target weight channels are dropped with the targets.
    let weights = mutated(&data, |j, _| j["animations"][0]["channels"][0]["target"]["path"] = "weights".into()).unwrap();
    assert_eq!(weights.animations[0].channels.len(), 56);
    assert!(weights.notes.iter().any(|n| n.contains("morph target")), "{:?}", weights.notes);
}

#[test]
fn joints_past_the_skin_lose_their_weight() {
    let Some(data) = cesium_man() else { return };
    let model = mutated(&data, |j, _| {
        j["skins"][0]["joints"].as_array_mut().unwrap().truncate(10);
        j["skins"][0].as_object_mut().unwrap().remove("inverseBindMatrices");
    })
    .unwrap();
    let p = &model.meshes[0].primitives[0];
    let (joints, weights) = (&p.attribute("JOINTS_0").unwrap().data, &p.attribute("WEIGHTS_0").unwrap().data);
    assert!(joints.iter().all(|&j| j < 10.0));
    assert!(weights.chunks_exact(4).all(|w| (w.iter().sum::<f32>() - 1.0).abs() < 1e-5));
    assert!(model.notes.iter().any(|n| n.contains("joint or weight")), "{:?}", model.notes);
}
