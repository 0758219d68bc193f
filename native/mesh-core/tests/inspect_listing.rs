//! inspect on a model of many objects: the report lists the first 500 meshes and nodes, and its
//! totals and counts cover them all. Each mesh's instance count was counted by scanning every
//! instance, so 100,000 one-triangle objects took 10 s.
use mesh_core::read::ReadOptions;
use mesh_core::tools::{inspect, Input};
use serde_json::{json, Value};
use std::time::Instant;

/// An OBJ of `n` objects, one triangle each, in a row.
fn objects(n: usize) -> Vec<u8> {
    let mut obj = String::new();
    for i in 0..n {
        let x = i as f32 * 2.0;
        obj += &format!("o part{i}\nv {x} 0 0\nv {} 0 0\nv {x} 1 0\nf {} {} {}\n", x + 1.0, 3 * i + 1, 3 * i + 2, 3 * i + 3);
    }
    obj.into_bytes()
}

fn report(n: usize) -> Value {
    let data = objects(n);
    let input = Input { data: &data, name: "parts.obj", extension: "obj", read: ReadOptions::default() };
    let result = inspect::run(&input, &json!({ "max_faces": 200_000 })).expect("inspects");
    let file = result.files.iter().find(|f| f.name.ends_with(".json")).expect("a JSON report");
    serde_json::from_slice(&file.data).expect("valid JSON")
}

#[test]
fn a_model_of_many_objects_lists_the_first_and_counts_them_all() {
    let r = report(600);
    assert_eq!(r["summary"]["object_count"], 600);
    assert_eq!(r["summary"]["details_truncated"], true);
    assert_eq!(r["topology"]["components"], 600);
    let meshes = r["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 500);
    assert!(meshes.iter().enumerate().all(|(i, m)| m["index"] == i && m["instances"] == 1 && m["faces"] == 1), "{}", meshes[0]);
    assert_eq!(r["nodes"].as_array().unwrap().len(), 500);
    assert!(r["nodes"].as_array().unwrap().iter().all(|n| n.is_object()));
}

#[test]
fn a_hundred_thousand_objects_are_inspected_in_one_pass() {
    let started = Instant::now();
    let r = report(100_000);
    assert_eq!(r["summary"]["mesh_instance_count"], 100_000);
    // One pass is a fraction of a second; counting each mesh's instances over all took 10 s.
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
}

/// A point cloud (a PLY of coloured vertices without faces) is inspected: its points, their box
/// and a note that the other tools need triangles; optimize refuses it, saying why.
#[test]
fn a_point_cloud_is_inspected_and_the_triangle_tools_say_why_not() {
    let mut ply = String::from("ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n");
    ply += "0 0 0 255 0 0\n2 0 0 0 255 0\n0 3 0 0 0 255\n0 0 1 9 9 9\n";
    let input = Input { data: ply.as_bytes(), name: "scan.ply", extension: "ply", read: ReadOptions::default() };
    let result = inspect::run(&input, &json!({ "max_faces": 1000 })).expect("inspects");
    let file = result.files.iter().find(|f| f.name.ends_with(".json")).expect("a JSON report");
    let r: Value = serde_json::from_slice(&file.data).unwrap();
    assert_eq!((r["summary"]["face_count"].clone(), r["summary"]["vertex_count"].clone(), r["points"].clone()), (json!(0), json!(4), json!(4)));
    assert_eq!(r["bounds"]["size"], json!([2.0, 3.0, 1.0]));
    assert_eq!(r["meshes"][0]["points_and_lines"][0]["mode"], "POINTS");
    assert!(r["summary"]["notes"][0].as_str().unwrap().contains("no triangles, only 4 point(s)"), "{}", r["summary"]["notes"]);
    // The service measures before it runs: inspect's measure takes the cloud (0 faces), optimize's refuses it.
    let measured = |tool: &str| match mesh_core::tools::guarded::run_guarded(mesh_core::tools::guarded::Job::measure(tool, 1000).unwrap(), &input) {
        Ok(mesh_core::tools::guarded::Done::Measured(faces)) => Ok(faces),
        Ok(_) => panic!("a measure answers a count"),
        Err(e) => Err(e.code),
    };
    assert_eq!(measured("inspect"), Ok(0));
    assert_eq!(measured("optimize"), Err(mesh_core::error::ErrorCode::InvalidMesh));
    let options = json!({ "max_faces": 1000, "compress": true, "quantize": true, "position_bits": 14, "animation_error": null, "simplify_ratio": 1.0, "remove_debris": 0.0, "textures": "keep", "max_texture_size": null, "keep_nodes": false, "instancing": false });
    let Err(err) = mesh_core::tools::optimize::run(&input, &options) else { panic!("optimize took a point cloud") };
    assert!(err.message.contains("its 4 vertices are points or lines"), "{}", err.message);
}
