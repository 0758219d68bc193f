//! split_3d_model's counts and refusals: a model of only degenerate faces is an invalid_mesh
//! (so the job fails and is refunded), faces of instanced meshes are counted as placed on both
//! sides of the summary and by the pricing measure, and options of the wrong type are refused.
use base64::Engine;
use mesh_core::read::ReadOptions;
use mesh_core::tools::guarded::{run_guarded, Done, Job};
use mesh_core::tools::{split, Input};
use mesh_core::ErrorCode;
use serde_json::{json, Value};

const CUBE_CORNERS: [[f32; 3]; 8] = [[0., 0., 0.], [1., 0., 0.], [1., 1., 0.], [0., 1., 0.], [0., 0., 1.], [1., 0., 1.], [1., 1., 1.], [0., 1., 1.]];
const CUBE_FACES: [u16; 36] = [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7];

/// A .gltf with one mesh of `corners`/`faces`, embedded as a data URI, placed at each of `places`.
fn gltf(corners: &[[f32; 3]], faces: &[u16], places: &[[f32; 3]]) -> Vec<u8> {
    let mut bin: Vec<u8> = corners.iter().flatten().flat_map(|c| c.to_le_bytes()).collect();
    let index_offset = bin.len();
    bin.extend(faces.iter().flat_map(|i| i.to_le_bytes()));
    let (min, max) = (0..3).fold(([f32::MAX; 3], [f32::MIN; 3]), |(mut lo, mut hi), k| {
        corners.iter().for_each(|c| {
            lo[k] = lo[k].min(c[k]);
            hi[k] = hi[k].max(c[k]);
        });
        (lo, hi)
    });
    let doc = json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&bin)) }],
        "bufferViews": [{ "buffer": 0, "byteLength": index_offset }, { "buffer": 0, "byteOffset": index_offset, "byteLength": faces.len() * 2 }],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": corners.len(), "type": "VEC3", "min": min, "max": max },
            { "bufferView": 1, "componentType": 5123, "count": faces.len(), "type": "SCALAR" },
        ],
        "meshes": [{ "name": "cube", "primitives": [{ "attributes": { "POSITION": 0 }, "indices": 1 }] }],
        "nodes": places.iter().map(|t| json!({ "mesh": 0, "translation": t })).collect::<Vec<Value>>(),
        "scenes": [{ "nodes": (0..places.len()).collect::<Vec<usize>>() }],
    });
    serde_json::to_vec(&doc).unwrap()
}

/// Complete split options, as the service's catalog sends them, with `changes` applied.
fn options(changes: Value) -> Value {
    let mut o = json!({
        "max_faces": 200_000, "detail": "medium", "max_parts": 64, "min_part_faces": 0, "min_part_area": 0.005,
        "format": "glb", "preprocess": "auto", "segmented": true,
    });
    for (k, v) in changes.as_object().unwrap() {
        o[k] = v.clone();
    }
    o
}

fn input(data: &[u8]) -> Input<'_> {
    Input { data, name: "model.gltf", extension: "gltf", read: ReadOptions::default() }
}

#[test]
fn a_model_of_only_degenerate_faces_is_an_invalid_mesh_with_a_reason() {
    // Every corner of the cube collapsed to one line: twelve faces, none with area.
    let flat: Vec<[f32; 3]> = CUBE_CORNERS.iter().map(|c| [c[0], 0.0, 0.0]).collect();
    let file = gltf(&flat, &CUBE_FACES, &[[0.0; 3]]);
    for preprocess in ["auto", "on", "off"] {
        let Err(e) = split::run(&input(&file), &options(json!({ "preprocess": preprocess }))) else {
            panic!("preprocess {preprocess}: a model of degenerate faces must not split into 0 parts")
        };
        assert_eq!(e.code, ErrorCode::InvalidMesh, "{e}");
        assert!(e.message.contains("all 12 faces of the model are degenerate"), "{}", e.message);
        assert!(e.hint.contains("degenerate faces"), "{}", e.hint);
    }
}

#[test]
fn instanced_faces_count_as_placed_in_input_exported_and_the_price() {
    let file = gltf(&CUBE_CORNERS, &CUBE_FACES, &[[0.0; 3], [3.0, 0.0, 0.0], [6.0, 0.0, 0.0]]);
    let result = split::run(&input(&file), &options(json!({ "segmented": false }))).unwrap();
    assert_eq!(result.summary["input_faces"], 36, "{}", result.summary);
    assert_eq!(result.summary["exported_faces"], 36, "{}", result.summary);
    assert_eq!(result.summary["part_count"], 3);
    let Ok(Done::Measured(priced)) = run_guarded(Job::measure("split", 200_000).unwrap(), &input(&file)) else { panic!("split measures") };
    assert_eq!(priced, 36, "split is priced by the faces it works on");
    let Ok(Done::Measured(stored)) = run_guarded(Job::measure("optimize", 200_000).unwrap(), &input(&file)) else { panic!("optimize measures") };
    assert_eq!(stored, 12, "optimize keeps instancing and is priced by stored faces");
}

#[test]
fn wrongly_typed_unknown_or_missing_options_are_refused() {
    let file = gltf(&CUBE_CORNERS, &CUBE_FACES, &[[0.0; 3]]);
    for (changes, words) in [
        (json!({ "segmented": "yes" }), "invalid type: string \"yes\", expected a boolean"),
        (json!({ "max_parts": "4" }), "invalid type: string \"4\""),
        (json!({ "detail": "extreme" }), "unknown variant `extreme`"),
        (json!({ "colour": "red" }), "unknown field `colour`"),
    ] {
        let Err(e) = split::run(&input(&file), &options(changes.clone())) else { panic!("{changes} must be refused") };
        assert_eq!(e.code, ErrorCode::InvalidOptions, "{e}");
        assert!(e.message.contains(words), "{:?} should say {words:?}", e.message);
    }
    let mut missing = options(json!({}));
    missing.as_object_mut().unwrap().remove("max_faces");
    let e = split::run(&input(&file), &missing).err().expect("a missing face limit is refused");
    assert_eq!(e.code, ErrorCode::InvalidOptions);
    assert!(e.message.contains("missing field `max_faces`"), "{}", e.message);
    // The other tools read their options the same way.
    for (tool, bad) in [
        ("inspect", json!({ "max_faces": "200000" })),
        (
            "optimize",
            json!({ "max_faces": 10, "compress": 1, "quantize": true, "position_bits": 14, "animation_error": null, "simplify_ratio": 1, "remove_debris": 0, "textures": "keep", "max_texture_size": null, "keep_nodes": false, "instancing": false }),
        ),
        ("simplify", json!({ "max_faces": 10, "target_ratio": "half", "max_error": 0.01, "lock_border": false, "format": "same" })),
    ] {
        let Err(e) = run_guarded(Job::named(tool, bad).unwrap(), &input(&file)) else { panic!("{tool} must refuse") };
        assert_eq!(e.code, ErrorCode::InvalidOptions, "{tool}: {e}");
        assert!(e.message.starts_with(&format!("{tool} options: invalid type")), "{}", e.message);
    }
}
