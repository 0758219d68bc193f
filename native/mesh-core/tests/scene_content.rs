//! What optimize and simplify keep of a scene beyond its triangles, found missing on models of
//! structures the bench had not had (session 18): cameras and punctual lights stay on their nodes,
//! tangents go where no material shades with them, primitives of one mesh that share a material
//! become one, and plain output stores vertex colours in 16 bits (8 where the source's were).
use base64::Engine;
use mesh_core::read::{read_model, ReadOptions};
use mesh_core::tools::{optimize, simplify, Input};
use serde_json::{json, Value};

/// The colour of grid vertex (`j`, `i`) of an `n` × `n` grid.
type Colour = dyn Fn(usize, usize, usize) -> [f32; 4];

/// A grid of `n` × `n` quads in the XZ plane from `x0`, with normals, tangents and colours.
fn grid(n: usize, x0: f32, colour: &Colour) -> (Vec<[f32; 3]>, Vec<[f32; 4]>, Vec<u16>) {
    let mut positions = Vec::new();
    let mut colours = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            positions.push([x0 + j as f32, 0.0, i as f32]);
            colours.push(colour(j, i, n));
        }
    }
    let mut indices = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let a = (i * (n + 1) + j) as u16;
            let b = a + n as u16 + 1;
            indices.extend([a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    (positions, colours, indices)
}

/// A .gltf (data URI) of one mesh with one primitive per entry of `materials` (each a grid of its
/// own, side by side), placed by a node that also carries a camera, beside a light's node and
/// nodes naming `extra_refs` (camera, light) indices; `materials` are the material objects.
fn scene(materials: &[Value], primitive_materials: &[usize], extra_refs: Option<(usize, usize)>) -> Vec<u8> {
    scene_coloured(materials, primitive_materials, extra_refs, &|j, i, n| [j as f32 / n as f32, i as f32 / n as f32, 0.25, 1.0])
}

/// As `scene`, with the vertex colours `colour` gives.
fn scene_coloured(materials: &[Value], primitive_materials: &[usize], extra_refs: Option<(usize, usize)>, colour: &Colour) -> Vec<u8> {
    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut push = |bytes: Vec<u8>, accessor: Value| {
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        views.push(json!({ "buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len() }));
        bin.extend(bytes);
        let mut accessor = accessor;
        accessor["bufferView"] = json!(views.len() - 1);
        accessors.push(accessor);
        accessors.len() - 1
    };
    let mut primitives = Vec::new();
    for (k, &material) in primitive_materials.iter().enumerate() {
        let (positions, colours, indices) = grid(8, k as f32 * 8.0, colour);
        let count = positions.len();
        let (min, max) = (positions[0], positions[count - 1]);
        let floats = |values: &mut dyn Iterator<Item = f32>| values.flat_map(f32::to_le_bytes).collect::<Vec<u8>>();
        let position =
            push(floats(&mut positions.iter().flatten().copied()), json!({ "componentType": 5126, "count": count, "type": "VEC3", "min": min, "max": max }));
        let normal = push(floats(&mut [0.0f32, 1.0, 0.0].repeat(count).into_iter()), json!({ "componentType": 5126, "count": count, "type": "VEC3" }));
        let tangent = push(floats(&mut [1.0f32, 0.0, 0.0, 1.0].repeat(count).into_iter()), json!({ "componentType": 5126, "count": count, "type": "VEC4" }));
        let colour = push(floats(&mut colours.iter().flatten().copied()), json!({ "componentType": 5126, "count": count, "type": "VEC4" }));
        let index = push(indices.iter().flat_map(|i| i.to_le_bytes()).collect(), json!({ "componentType": 5123, "count": indices.len(), "type": "SCALAR" }));
        primitives.push(
            json!({ "attributes": { "POSITION": position, "NORMAL": normal, "TANGENT": tangent, "COLOR_0": colour }, "indices": index, "material": material }),
        );
    }
    let mut nodes = vec![
        json!({ "name": "board", "mesh": 0, "camera": 0, "translation": [0, 1, 0] }),
        json!({ "name": "lamp", "translation": [0, 5, 0], "extensions": { "KHR_lights_punctual": { "light": 0 } } }),
    ];
    if let Some((camera, light)) = extra_refs {
        nodes.push(json!({ "name": "lost", "camera": camera, "extensions": { "KHR_lights_punctual": { "light": light } } }));
    }
    let doc = json!({
        "asset": { "version": "2.0" },
        "extensionsUsed": ["KHR_lights_punctual"],
        "extensions": { "KHR_lights_punctual": { "lights": [{ "type": "point", "intensity": 20, "color": [1, 0.9, 0.8] }] } },
        "cameras": [{ "type": "perspective", "perspective": { "yfov": 0.7, "znear": 0.05 } }],
        "buffers": [{ "byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&bin)) }],
        "bufferViews": views,
        "accessors": accessors,
        "materials": materials,
        "meshes": [{ "primitives": primitives }],
        "nodes": nodes,
        "scenes": [{ "nodes": (0..nodes.len()).collect::<Vec<usize>>() }],
    });
    serde_json::to_vec(&doc).unwrap()
}

const NORMAL_MAPPED: usize = 0;
const PLAIN: usize = 1;

fn materials() -> Vec<Value> {
    vec![
        json!({ "name": "bumpy", "normalTexture": { "index": 0 } }),
        json!({ "name": "paint", "pbrMetallicRoughness": { "baseColorFactor": [0.2, 0.4, 0.6, 1] } }),
    ]
}

/// The materials plus a texture for the normal map (an 1×1 PNG from a data URI).
fn with_texture(doc: &[u8]) -> Vec<u8> {
    let mut doc: Value = serde_json::from_slice(doc).unwrap();
    let png = mesh_core::png_image::encode_rgba(1, 1, &[128, 128, 255, 255]);
    doc["images"] = json!([{ "uri": format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(png)) }]);
    doc["textures"] = json!([{ "source": 0 }]);
    serde_json::to_vec(&doc).unwrap()
}

fn input(data: &[u8]) -> Input<'_> {
    Input { data, name: "scene.gltf", extension: "gltf", read: ReadOptions::default() }
}

fn optimized(data: &[u8]) -> (Value, Vec<u8>) {
    let options = json!({ "max_faces": 100_000, "compress": true, "quantize": true, "position_bits": 14, "animation_error": null, "simplify_ratio": 1.0, "remove_debris": 0.0, "textures": "keep", "max_texture_size": null, "keep_nodes": false, "instancing": false });
    let result = optimize::run(&input(data), &options).unwrap();
    (result.summary, result.files.into_iter().next().unwrap().data)
}

fn simplified(data: &[u8]) -> (Value, Vec<u8>) {
    let options = json!({ "max_faces": 100_000, "target_ratio": 0.5, "max_error": 0.01, "lock_border": false, "format": "glb", "keep_nodes": false, "animation_error": null });
    let result = simplify::run(&input(data), &options).unwrap();
    (result.summary, result.files.into_iter().next().unwrap().data)
}

fn json_of(glb: &[u8]) -> Value {
    let length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&glb[20..20 + length]).unwrap()
}

fn notes(summary: &Value) -> String {
    summary["notes"].as_array().map(|n| n.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ")).unwrap_or_default()
}

#[test]
fn cameras_and_lights_stay_on_their_nodes_through_both_tools() {
    let source = with_texture(&scene(&materials(), &[PLAIN], None));
    for (tool, (_, glb)) in [("optimize", optimized(&source)), ("simplify", simplified(&source))] {
        let doc = json_of(&glb);
        assert_eq!(doc["cameras"][0]["perspective"]["yfov"], json!(0.7), "{tool}");
        assert_eq!(doc["extensions"]["KHR_lights_punctual"]["lights"][0]["intensity"], json!(20), "{tool}");
        assert!(doc["extensionsUsed"].as_array().unwrap().contains(&json!("KHR_lights_punctual")), "{tool}");
        let named = |name: &str| doc["nodes"].as_array().unwrap().iter().find(|n| n["name"] == json!(name)).cloned().unwrap();
        assert_eq!(named("board")["camera"], json!(0), "{tool}: the camera stays where its node's mesh went");
        assert_eq!(named("board")["translation"], json!([0, 1, 0]), "{tool}");
        assert_eq!(named("lamp")["extensions"]["KHR_lights_punctual"]["light"], json!(0), "{tool}");
        assert_eq!(named("lamp")["translation"], json!([0, 5, 0]), "{tool}");
    }
}

#[test]
fn a_node_naming_a_missing_camera_or_light_loses_the_reference_and_says_so() {
    let source = scene(&materials(), &[PLAIN], Some((3, 7)));
    let (summary, glb) = optimized(&source);
    let doc = json_of(&glb);
    for node in doc["nodes"].as_array().unwrap() {
        assert!(node["camera"].as_u64().is_none_or(|c| c == 0));
        assert!(node.pointer("/extensions/KHR_lights_punctual/light").and_then(Value::as_u64).is_none_or(|l| l == 0));
    }
    assert!(notes(&summary).contains("cameras or lights"), "{summary}");
}

#[test]
fn tangents_go_where_no_material_shades_with_them_and_stay_with_a_normal_map() {
    let source = with_texture(&scene(&materials(), &[NORMAL_MAPPED, PLAIN], None));
    for (tool, (summary, glb)) in [("optimize", optimized(&source)), ("simplify", simplified(&source))] {
        let model = read_model(&glb, "glb", &ReadOptions::default()).unwrap();
        let tangents: Vec<(Option<usize>, bool)> =
            model.meshes.iter().flat_map(|m| &m.primitives).map(|p| (p.material, p.attribute("TANGENT").is_some())).collect();
        assert_eq!(tangents.len(), 2, "{tool}");
        for (material, has) in tangents {
            let mapped = model.materials[material.unwrap()].get("normalTexture").is_some();
            assert_eq!(has, mapped, "{tool}: material {material:?}");
        }
        assert!(notes(&summary).contains("tangents of 1 primitive"), "{tool}: {summary}");
    }
}

#[test]
fn primitives_of_one_mesh_with_one_material_become_one() {
    let source = scene(&materials(), &[PLAIN, PLAIN, PLAIN], None);
    for (tool, (summary, glb)) in [("optimize", optimized(&source)), ("simplify", simplified(&source))] {
        let doc = json_of(&glb);
        let primitives: usize = doc["meshes"].as_array().unwrap().iter().map(|m| m["primitives"].as_array().unwrap().len()).sum();
        assert_eq!(primitives, 1, "{tool}");
        assert!(notes(&summary).contains("Merged 2 primitive(s)"), "{tool}: {summary}");
    }
}

/// A vertex's position and colour.
type Coloured = ([f32; 3], [f32; 4]);

/// Simplify's output of a one-primitive `source`: its COLOR_0 accessor, and each vertex's
/// position and colour as read back.
fn simplified_colours(source: &[u8]) -> (Value, Vec<Coloured>) {
    let (_, glb) = simplified(source);
    let doc = json_of(&glb);
    let accessor = doc["meshes"][0]["primitives"][0]["attributes"]["COLOR_0"].as_u64().unwrap() as usize;
    let model = read_model(&glb, "glb", &ReadOptions::default()).unwrap();
    let p = &model.meshes[0].primitives[0];
    let colours = p.attribute("COLOR_0").unwrap().data.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]);
    (doc["accessors"][accessor].clone(), p.positions.iter().copied().zip(colours).collect())
}

#[test]
fn plain_output_stores_colours_in_16_bits_within_their_step() {
    let (accessor, colours) = simplified_colours(&scene(&materials(), &[PLAIN], None));
    assert_eq!(accessor["componentType"], json!(5123));
    assert_eq!(accessor["normalized"], json!(true));
    // Every colour the grid had (u, v, 0.25, 1) is back within half a 16-bit step.
    for (v, c) in colours {
        let expected = [v[0] / 8.0, v[2] / 8.0, 0.25, 1.0];
        assert!(expected.iter().zip(c).all(|(e, c)| (e - c).abs() <= 0.5 / 65535.0 + 1e-7), "{c:?} vs {expected:?}");
    }
}

#[test]
fn plain_output_stores_colours_an_8_bit_source_had_in_8_bits_exactly() {
    // Colours of 8-bit steps, as readers of 8-bit colours make them: b / 255 (glTF's normalized
    // bytes) or b × (1 / 255) (the PLY reader), which differ in the last bit for some b.
    let byte = |k: usize| (k * 31 % 256) as u8;
    let colour = move |j: usize, i: usize, _| [byte(j) as f32 / 255.0, byte(i + 3) as f32 * (1.0 / 255.0), byte(j + i) as f32 / 255.0, 1.0];
    let (accessor, colours) = simplified_colours(&scene_coloured(&materials(), &[PLAIN], None, &colour));
    assert_eq!(accessor["componentType"], json!(5121));
    assert_eq!(accessor["normalized"], json!(true));
    for (v, c) in colours {
        let (j, i) = (v[0] as usize, v[2] as usize);
        let bytes = [byte(j), byte(i + 3), byte(j + i), 255];
        assert_eq!(c, bytes.map(|b| b as f32 / 255.0), "at {v:?}");
    }
}

/// A .gltf of one triangle placed by a node through EXT_mesh_gpu_instancing: three translations
/// (floats) and three rotations (normalized 16-bit, as quantized files store them), or with
/// `rotations` instances of rotation where they should agree.
fn instanced(rotations: usize) -> Vec<u8> {
    let mut bin: Vec<u8> = [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
    let translations_at = bin.len();
    bin.extend([[0.0f32, 0.0, 0.0], [5.0, 0.0, 0.0], [0.0, 0.0, 9.0]].iter().flatten().flat_map(|v| v.to_le_bytes()));
    let rotations_at = bin.len();
    // Identity, then a half turn about Y (0, 1, 0, 0), as i16 normalized.
    let turn: [[i16; 4]; 2] = [[0, 0, 0, 32767], [0, 32767, 0, 0]];
    bin.extend((0..rotations).flat_map(|i| turn[i.min(1)]).flat_map(|v| v.to_le_bytes()));
    let doc = json!({
        "asset": { "version": "2.0" },
        "extensionsUsed": ["EXT_mesh_gpu_instancing"],
        "extensionsRequired": ["EXT_mesh_gpu_instancing"],
        "buffers": [{ "byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&bin)) }],
        "bufferViews": [
            { "buffer": 0, "byteLength": 36 },
            { "buffer": 0, "byteOffset": translations_at, "byteLength": 36 },
            { "buffer": 0, "byteOffset": rotations_at, "byteLength": rotations * 8 },
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0] },
            { "bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3" },
            { "bufferView": 2, "componentType": 5122, "normalized": true, "count": rotations, "type": "VEC4" },
        ],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 } }] }],
        "nodes": [{ "mesh": 0, "translation": [0, 2, 0], "extensions": { "EXT_mesh_gpu_instancing": { "attributes": { "TRANSLATION": 1, "ROTATION": 2, "_ID": 1 } } } }],
        "scenes": [{ "nodes": [0] }],
    });
    serde_json::to_vec(&doc).unwrap()
}

#[test]
fn gpu_instances_are_read_kept_by_both_tools_and_counted_as_placed() {
    let source = instanced(3);
    let model = read_model(&source, "gltf", &ReadOptions::default()).unwrap();
    let worlds: Vec<[f32; 16]> = model.instances().iter().map(|i| i.world).collect();
    assert_eq!(worlds.len(), 3);
    // The node's own translation after each instance's: (0, 2, 0) + (5, 0, 0) for the second.
    assert_eq!([worlds[1][12], worlds[1][13], worlds[1][14]], [5.0, 2.0, 0.0]);
    // The third is turned half about Y: +X maps to -X.
    assert!((worlds[2][0] + 1.0).abs() < 1e-6, "{:?}", worlds[2]);
    assert!(model.notes.iter().any(|n| n.contains("instance attributes")), "{:?}", model.notes);
    for (tool, (_, glb)) in [("optimize", optimized(&source)), ("simplify", simplified(&source))] {
        let doc = json_of(&glb);
        assert!(doc["extensionsRequired"].as_array().unwrap().contains(&json!("EXT_mesh_gpu_instancing")), "{tool}");
        let back = read_model(&glb, "glb", &ReadOptions::default()).unwrap();
        let placed: Vec<[f32; 3]> = back.instances().iter().map(|i| [i.world[12], i.world[13], i.world[14]]).collect();
        assert_eq!(placed.len(), 3, "{tool}");
        for (seen, wanted) in placed.iter().zip([[0.0, 2.0, 0.0], [5.0, 2.0, 0.0], [0.0, 2.0, 9.0]]) {
            assert!((0..3).all(|k| (seen[k] - wanted[k]).abs() < 1e-3), "{tool}: {seen:?} vs {wanted:?}");
        }
    }
    // Pricing of the tools that bake instances counts each placement.
    let placed = mesh_core::tools::measure(&input(&source), 1000, true, false).unwrap();
    assert_eq!(placed, 3);
}

#[test]
fn instance_attributes_of_different_counts_are_refused() {
    let error = read_model(&instanced(2), "gltf", &ReadOptions::default()).unwrap_err();
    assert!(error.to_string().contains("different counts"), "{error}");
}

/// A .gltf of `bumps.len()` meshes, each an `n` × `n` grid of its own `bump` height field side by
/// side along x (mesh k from x = 40 k), each on its own node.
fn bumpy_meshes(n: usize, bumps: &[f32]) -> Vec<u8> {
    let mut bin: Vec<u8> = Vec::new();
    let (mut views, mut accessors, mut meshes, mut nodes) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (k, &bump) in bumps.iter().enumerate() {
        let x0 = k as f32 * 40.0;
        let positions: Vec<[f32; 3]> =
            (0..=n).flat_map(|i| (0..=n).map(move |j| [x0 + j as f32, bump * ((j as f32 * 0.7).sin() + (i as f32 * 0.4).cos()), i as f32])).collect();
        let indices: Vec<u32> = (0..n as u32)
            .flat_map(|i| {
                (0..n as u32).flat_map(move |j| {
                    let a = i * (n as u32 + 1) + j;
                    let b = a + n as u32 + 1;
                    [a, b, a + 1, a + 1, b, b + 1]
                })
            })
            .collect();
        let (mut min, mut max) = ([f32::MAX; 3], [f32::MIN; 3]);
        positions.iter().for_each(|p| (0..3).for_each(|c| (min[c], max[c]) = (min[c].min(p[c]), max[c].max(p[c]))));
        let start = bin.len();
        bin.extend(positions.iter().flatten().flat_map(|v| v.to_le_bytes()));
        views.push(json!({ "buffer": 0, "byteOffset": start, "byteLength": bin.len() - start }));
        accessors.push(json!({ "bufferView": views.len() - 1, "componentType": 5126, "count": positions.len(), "type": "VEC3", "min": min, "max": max }));
        let start = bin.len();
        bin.extend(indices.iter().flat_map(|v| v.to_le_bytes()));
        views.push(json!({ "buffer": 0, "byteOffset": start, "byteLength": bin.len() - start }));
        accessors.push(json!({ "bufferView": views.len() - 1, "componentType": 5125, "count": indices.len(), "type": "SCALAR" }));
        meshes.push(json!({ "primitives": [{ "attributes": { "POSITION": accessors.len() - 2 }, "indices": accessors.len() - 1 }] }));
        nodes.push(json!({ "mesh": k }));
    }
    let doc = json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&bin)) }],
        "bufferViews": views,
        "accessors": accessors,
        "meshes": meshes,
        "nodes": nodes,
        "scenes": [{ "nodes": (0..bumps.len()).collect::<Vec<usize>>() }],
    });
    serde_json::to_vec(&doc).unwrap()
}

#[test]
fn meshes_simplified_side_by_side_each_come_back_in_their_own_place() {
    // Four meshes of 1,152 faces, enough for their primitives to be simplified over the cores;
    // flat to rough, so each keeps its own number of faces.
    let bumps = [0.0, 0.2, 0.8, 3.0];
    let source = bumpy_meshes(24, &bumps);
    let options = json!({ "max_faces": 100_000, "target_ratio": 0.1, "max_error": 0.0005, "lock_border": false, "format": "glb", "keep_nodes": true, "animation_error": null });
    let result = simplify::run(&input(&source), &options).unwrap();
    let model = read_model(&result.files[0].data, "glb", &ReadOptions::default()).unwrap();
    assert_eq!(model.meshes.len(), bumps.len());
    let faces: Vec<usize> = model.meshes.iter().map(|m| m.primitives.iter().map(|p| p.indices.len() / 3).sum()).collect();
    for (k, mesh) in model.meshes.iter().enumerate() {
        let x0 = k as f32 * 40.0;
        let mut xs = mesh.primitives.iter().flat_map(|p| p.positions.iter().map(|q| q[0]));
        assert!(xs.all(|x| (x0..=x0 + 24.0).contains(&x)), "mesh {k} holds another mesh's vertices");
    }
    assert!(faces.windows(2).all(|w| w[0] < w[1]), "rougher meshes keep more faces: {faces:?}");
    assert_eq!(result.summary["output_faces"], faces.iter().sum::<usize>());
}
