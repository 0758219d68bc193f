//! simplify_3d_model on a fine flat-shaded surface: a gently bumpy sheet whose every triangle
//! carries its own normal, where many neighbouring faces lean less than a degree apart. Merging
//! those near-equal normals first (as smooth surfaces get, weld_normals.rs) would leave the sheet
//! neither flat nor smooth, so it would not be taken as flat shaded, and its normal seams would pin
//! it; judged before that merge, it simplifies as a surface.
use base64::Engine;
use mesh_core::read::ReadOptions;
use mesh_core::tools::guarded::{run_guarded, Done, Job};
use mesh_core::tools::Input;
use serde_json::json;

/// A `cells` × `cells` sheet of unit squares, heights from a smooth bump plus a little seeded
/// roughness, flat shaded: three corners of its own per triangle, each with the triangle's normal.
fn bumpy_sheet(cells: usize) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut rough = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 1000) as f32 / 1000.0
    };
    let heights: Vec<Vec<f32>> =
        (0..=cells).map(|y| (0..=cells).map(|x| 3.0 * ((x as f32 * 0.15).sin() * (y as f32 * 0.1).cos()) + 0.02 * rough()).collect()).collect();
    let corner = |x: usize, y: usize| [x as f32, y as f32, heights[y][x]];
    let (mut positions, mut normals) = (Vec::new(), Vec::new());
    for y in 0..cells {
        for x in 0..cells {
            for t in [[corner(x, y), corner(x + 1, y), corner(x + 1, y + 1)], [corner(x, y), corner(x + 1, y + 1), corner(x, y + 1)]] {
                let (u, v) = ([0, 1, 2].map(|k| t[1][k] - t[0][k]), [0, 1, 2].map(|k| t[2][k] - t[0][k]));
                let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
                let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                for c in t {
                    positions.extend(c);
                    normals.extend(n.map(|k| k / length));
                }
            }
        }
    }
    let bytes = |values: &[f32]| values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
    let mut bin = bytes(&positions);
    let normals_at = bin.len();
    bin.extend(bytes(&normals));
    let count = positions.len() / 3;
    let (mut min, mut max) = ([f32::MAX; 3], [f32::MIN; 3]);
    for p in positions.chunks_exact(3) {
        (0..3).for_each(|k| (min[k], max[k]) = (min[k].min(p[k]), max[k].max(p[k])));
    }
    let doc = json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&bin)) }],
        "bufferViews": [{ "buffer": 0, "byteLength": normals_at }, { "buffer": 0, "byteOffset": normals_at, "byteLength": bin.len() - normals_at }],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": count, "type": "VEC3", "min": min, "max": max },
            { "bufferView": 1, "componentType": 5126, "count": count, "type": "VEC3" },
        ],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0, "NORMAL": 1 } }] }],
        "nodes": [{ "mesh": 0 }],
        "scenes": [{ "nodes": [0] }],
    });
    serde_json::to_vec(&doc).unwrap()
}

#[test]
fn a_fine_flat_shaded_sheet_simplifies_as_a_surface() {
    let file = bumpy_sheet(120);
    let input = Input { data: &file, name: "sheet.gltf", extension: "gltf", read: ReadOptions::default() };
    let options = json!({
        "max_faces": 1_000_000, "target_ratio": 0.1, "max_error": 0.01, "lock_border": false,
        "format": "glb", "keep_nodes": false, "animation_error": null,
    });
    let Ok(Done::Ran(result)) = run_guarded(Job::named("simplify", options).unwrap(), &input) else { panic!("simplify runs") };
    let summary = &result.summary;
    let notes = summary["notes"].to_string();
    assert!(notes.contains("Flat-shaded primitives"), "{notes}");
    let (faces_in, faces_out) = (summary["input_faces"].as_u64().unwrap(), summary["output_faces"].as_u64().unwrap());
    assert_eq!(faces_in, 2 * 120 * 120);
    assert!(faces_out * 5 < faces_in, "{faces_out} of {faces_in}");
}
