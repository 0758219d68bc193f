//! simplify_3d_model against the error it promises: `max_error` is a distance, as a fraction of
//! the mesh size (the largest side of its bounding box). Measured here independently of the
//! simplifier's own estimate, as the largest distance from an original vertex to the simplified
//! surface (brute force). Skips the corpus cases when the shared corpus is absent.
use mesh_core::math::{cross, dot, sub, Bounds};
use mesh_core::model::{Model, Primitive};
use mesh_core::read::{read_model, ReadOptions};
use mesh_core::tools::{simplify, Input};
use serde_json::{json, Value};
use std::path::Path;

fn corpus_file(rel: &str) -> Option<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus").join(rel);
    let data = std::fs::read(&path).ok();
    if data.is_none() {
        eprintln!("SKIPPED: {} not found", path.display());
    }
    data
}

/// Runs simplify with `options` over the catalog's defaults (the core takes complete options).
fn simplify_glb(data: &[u8], options: Value) -> (Value, Model) {
    let mut options = options;
    for (key, value) in [
        ("max_faces", json!(1_000_000)),
        ("max_error", json!(0.01)),
        ("lock_border", json!(false)),
        ("format", json!("same")),
        ("keep_nodes", json!(false)),
        ("animation_error", json!(null)),
    ] {
        options.as_object_mut().unwrap().entry(key).or_insert(value);
    }
    let input = Input { data, name: "model.glb", extension: "glb", read: ReadOptions::default() };
    let result = simplify::run(&input, &options).unwrap();
    let model = read_model(&result.files[0].data, "glb", &ReadOptions::default()).unwrap();
    (result.summary, model)
}

/// Distance from `p` to the triangle (a, b, c), by the closest point's Voronoi region.
fn distance_to_triangle(p: [f32; 3], a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> f32 {
    let (ab, ac, ap) = (sub(b, a), sub(c, a), sub(p, a));
    let along = |d: [f32; 3], t: f32| [a[0] + d[0] * t, a[1] + d[1] * t, a[2] + d[2] * t];
    let segment = |s: [f32; 3], e: [f32; 3]| {
        let d = sub(e, s);
        let t = (dot(sub(p, s), d) / dot(d, d).max(f32::MIN_POSITIVE)).clamp(0.0, 1.0);
        let q = [s[0] + d[0] * t, s[1] + d[1] * t, s[2] + d[2] * t];
        dot(sub(p, q), sub(p, q)).sqrt()
    };
    let n = cross(ab, ac);
    let area2 = dot(n, n);
    if area2 > 0.0 {
        // Barycentric coordinates of p's projection; inside the triangle the plane distance is it.
        let v = dot(cross(ap, ac), n) / area2;
        let w = dot(cross(ab, ap), n) / area2;
        if v >= 0.0 && w >= 0.0 && v + w <= 1.0 {
            let q = along(ab, v);
            let q = [q[0] + ac[0] * w, q[1] + ac[1] * w, q[2] + ac[2] * w];
            return dot(sub(p, q), sub(p, q)).sqrt();
        }
    }
    segment(a, b).min(segment(b, c)).min(segment(c, a))
}

/// Largest distance from a vertex of `original` to the triangles of `simplified`.
fn deviation(original: &Primitive, simplified: &[Primitive]) -> f32 {
    let triangles: Vec<[[f32; 3]; 3]> = simplified
        .iter()
        .flat_map(|s| s.indices.chunks_exact(3).map(|t| [s.positions[t[0] as usize], s.positions[t[1] as usize], s.positions[t[2] as usize]]))
        .collect();
    original.positions.iter().map(|&p| triangles.iter().map(|t| distance_to_triangle(p, t[0], t[1], t[2])).fold(f32::MAX, f32::min)).fold(0.0, f32::max)
}

#[test]
fn the_distance_helper_measures_faces_edges_and_corners() {
    let (a, b, c) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    assert_eq!(distance_to_triangle([0.25, 0.25, 2.0], a, b, c), 2.0);
    assert_eq!(distance_to_triangle([0.5, -3.0, 4.0], a, b, c), 5.0);
    assert_eq!(distance_to_triangle([-3.0, -4.0, 0.0], a, b, c), 5.0);
}

/// CesiumMan (one skinned primitive with normals and UVs). When normals and UVs weighed in the
/// collapse error, a 1 % request came back at 1.09 % of the model's size, short of the target.
#[test]
fn cesium_man_reaches_a_quarter_within_the_requested_deviation() {
    let Some(data) = corpus_file("glb/CesiumMan.glb") else { return };
    let original = read_model(&data, "glb", &ReadOptions::default()).unwrap();
    let (summary, out) = simplify_glb(&data, json!({ "target_ratio": 0.25, "max_error": 0.01, "format": "glb" }));
    assert_eq!(summary["target_reached"], true, "{summary}");
    let (before, after) = (&original.meshes[0].primitives[0], &out.meshes[0].primitives);
    let size = Bounds::of(&before.positions).extent();
    let measured = deviation(before, after) / size;
    assert!(measured <= 0.01, "deviation {measured} of the model size");
    // The estimate reported is in the same unit and no larger than what was asked.
    assert!(summary["error"].as_f64().unwrap() <= 0.01);
}

/// CesiumMan to a tenth: its first collapse strays in a pose, so a search picks the limit that
/// holds, and the error it reports is the deviation measured at rest from the source, not the
/// chosen collapse's own estimate (1.17e-3 where 1.56e-3 is measured).
#[test]
fn a_result_the_pose_search_chose_reports_the_deviation_from_the_source() {
    let Some(data) = corpus_file("glb/CesiumMan.glb") else { return };
    let original = read_model(&data, "glb", &ReadOptions::default()).unwrap();
    let (summary, out) = simplify_glb(&data, json!({ "target_ratio": 0.1, "max_error": 0.01, "format": "glb" }));
    let (before, after) = (&original.meshes[0].primitives[0], &out.meshes[0].primitives);
    let measured = deviation(before, after) / Bounds::of(&before.positions).extent();
    let reported = summary["error"].as_f64().unwrap() as f32;
    assert!(measured <= reported * 1.001 + 1e-6, "reported {reported}, measured {measured}");
    assert!(reported <= 0.01, "{summary}");
}

/// ShapeCollection has no materials, so its UVs are never sampled: they go, as in optimize.
#[test]
fn texture_coordinates_no_material_samples_are_dropped() {
    let Some(data) = corpus_file("glb/ShapeCollection.glb") else { return };
    let (summary, out) = simplify_glb(&data, json!({ "target_ratio": 0.25, "format": "glb" }));
    let primitives: Vec<&Primitive> = out.meshes.iter().flat_map(|m| &m.primitives).collect();
    assert!(!primitives.is_empty());
    assert!(primitives.iter().all(|p| p.attribute("TEXCOORD_0").is_none() && p.attribute("NORMAL").is_some()));
    assert!(summary["notes"].to_string().contains("texture-coordinate set"), "{summary}");
}
