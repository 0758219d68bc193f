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
