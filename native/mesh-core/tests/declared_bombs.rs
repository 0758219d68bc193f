//! Declared-size bombs: small files that claim huge meshes are refused from what they declare,
//! before anything is decoded. A counting allocator measures the peak of live heap bytes while
//! each file is read, so a reader that allocates first and checks later fails here.
use mesh_core::read::{read_model, ReadLimits, ReadOptions};
use mesh_core::tools::guarded::{run_guarded, Done, Job};
use mesh_core::tools::Input;
use mesh_core::{ErrorCode, MeshError};
use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Live bytes are global: every test holds its turn from start to end so no other test's
/// allocations land in its measurements.
static TURN: Mutex<()> = Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` and returns its result with the most heap it held at once beyond what was live before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(before))
}

const MB: usize = 1 << 20;
/// The split and inspect tools' face limit.
const LIMIT: usize = 200_000;

fn limited(max_faces: usize, placed: bool) -> ReadOptions {
    ReadOptions { limits: ReadLimits { max_faces, placed }, ..ReadOptions::default() }
}

fn expect_error(result: mesh_core::Result<impl Sized>, code: ErrorCode, words: &str) -> MeshError {
    let Err(e) = result else { panic!("expected {code:?}, got success") };
    assert_eq!(e.code, code, "{e}");
    assert!(e.message.contains(words), "message {:?} should say {words:?}", e.message);
    assert!(!e.hint.is_empty());
    e
}

/// A .gltf whose one accessor has no buffer view (all zeros, no bytes in the file) with `count`
/// VEC3 positions, used by `primitives` primitives of one mesh, placed by `nodes` nodes.
fn zero_accessor_gltf(count: usize, primitives: usize, nodes: usize) -> Vec<u8> {
    let primitive = json!({ "attributes": { "POSITION": 0 } });
    let doc = json!({
        "asset": { "version": "2.0" },
        "accessors": [{ "componentType": 5126, "count": count, "type": "VEC3" }],
        "meshes": [{ "primitives": vec![primitive; primitives] }],
        "nodes": (0..nodes).map(|i| json!({ "mesh": 0, "translation": [i as f32, 0.0, 0.0] })).collect::<Vec<Value>>(),
        "scenes": [{ "nodes": (0..nodes).collect::<Vec<usize>>() }],
    });
    serde_json::to_vec(&doc).unwrap()
}

#[test]
fn zero_filled_accessor_shared_by_150_primitives_is_refused_before_decoding() {
    let _turn = turn();
    // The reported bomb: one accessor of ~1.3 million zero vertices, referenced 150 times.
    let file = zero_accessor_gltf(1_300_000, 150, 1);
    assert!(file.len() < 8 * 1024, "the bomb is a small file ({} bytes)", file.len());
    let (result, peak) = peak_of(|| read_model(&file, "gltf", &limited(LIMIT, false)));
    expect_error(result, ErrorCode::LimitExceeded, "declares 64999950 faces");
    assert!(peak < MB, "peak heap {peak} bytes while refusing a declared bomb");

    // Through the tool entry point the service uses, for every mesh tool.
    for tool in ["inspect", "split", "simplify", "optimize"] {
        let input = Input { data: &file, name: "bomb.gltf", extension: "gltf", read: ReadOptions::default() };
        let (result, peak) = peak_of(|| run_guarded(Job::measure(tool, LIMIT).unwrap(), &input));
        expect_error(result.map(|_| ()), ErrorCode::LimitExceeded, "faces");
        assert!(peak < MB, "{tool}: peak heap {peak} bytes");
    }
}

#[test]
fn an_accessor_shared_by_many_primitives_reads_within_a_small_peak() {
    let _turn = turn();
    // 150 primitives of 900 vertices (300 faces) each: 45,000 faces, within the limit.
    let file = zero_accessor_gltf(900, 150, 1);
    let (model, peak) = peak_of(|| read_model(&file, "gltf", &limited(LIMIT, false)).unwrap());
    assert_eq!(model.meshes[0].primitives.len(), 150);
    assert_eq!(model.face_count(), 45_000);
    // 150 primitives of 900 positions and 900 indices are ~2.2 MB together.
    assert!(peak < 8 * MB, "peak heap {peak} bytes");
}

#[test]
fn decoding_stops_at_the_budget_the_face_limit_implies() {
    let _turn = turn();
    // Few faces declared (indices of 3), but 150 primitives each with a 2-million-vertex
    // position accessor and a colour: the declared values exceed what 200,000 faces need.
    let accessors = json!([
        { "componentType": 5126, "count": 2_000_000, "type": "VEC3" },
        { "componentType": 5126, "count": 2_000_000, "type": "VEC4" },
    ]);
    let primitive = json!({ "attributes": { "POSITION": 0, "COLOR_0": 1 } });
    let doc = json!({
        "asset": { "version": "2.0" },
        "accessors": accessors,
        "meshes": [{ "primitives": vec![primitive; 150] }],
    });
    let file = serde_json::to_vec(&doc).unwrap();
    let (result, peak) = peak_of(|| read_model(&file, "gltf", &limited(LIMIT, false)));
    let e = result.unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
    assert!(peak < MB, "peak heap {peak} bytes");
}

#[test]
fn instances_count_as_placed_for_tools_that_bake_them() {
    let _turn = turn();
    // One mesh of 1,000 faces placed by 1,000 nodes: 1,000,000 faces in the scene.
    let file = zero_accessor_gltf(3_000, 1, 1_000);
    let input = Input { data: &file, name: "instanced.gltf", extension: "gltf", read: ReadOptions::default() };
    for tool in ["inspect", "split"] {
        let (result, peak) = peak_of(|| run_guarded(Job::measure(tool, LIMIT).unwrap(), &input));
        expect_error(result.map(|_| ()), ErrorCode::LimitExceeded, "as placed in the scene");
        assert!(peak < 4 * MB, "{tool}: peak heap {peak} bytes");
    }
    for tool in ["optimize", "simplify"] {
        let Ok(Done::Measured(faces)) = run_guarded(Job::measure(tool, LIMIT).unwrap(), &input) else { panic!("{tool} measures") };
        assert_eq!(faces, 1_000, "{tool} counts stored faces");
    }
    let Ok(Done::Measured(placed)) = run_guarded(Job::measure("split", 2_000_000).unwrap(), &input) else { panic!("split measures") };
    assert_eq!(placed, 1_000_000);
}

#[test]
fn obj_faces_are_counted_from_the_text_before_parsing() {
    let _turn = turn();
    let mut text = String::from("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n");
    text.push_str(&"f 1 2 3 4\n".repeat(110_000)); // 220,000 triangles after fanning
    let (result, peak) = peak_of(|| read_model(text.as_bytes(), "obj", &limited(LIMIT, false)));
    expect_error(result, ErrorCode::LimitExceeded, "declares 220000 faces");
    assert!(peak < MB, "peak heap {peak} bytes");
}

#[test]
fn ply_element_counts_are_checked_against_the_body_and_the_limit() {
    let _turn = turn();
    let header = "ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n";
    let mut file = header.as_bytes().to_vec();
    file.extend_from_slice(&[0u8; 36]);
    let (result, peak) = peak_of(|| read_model(&file, "ply", &limited(LIMIT, false)));
    expect_error(result, ErrorCode::InvalidMesh, "but the body has 36");
    assert!(peak < MB, "peak heap {peak} bytes");

    let mut ascii = String::from("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n");
    ascii.push_str("element face 250000\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n");
    ascii.push_str(&"3 0 1 2\n".repeat(250_000));
    let (result, peak) = peak_of(|| read_model(ascii.as_bytes(), "ply", &limited(LIMIT, false)));
    expect_error(result, ErrorCode::LimitExceeded, "declares 250000 faces");
    assert!(peak < MB, "peak heap {peak} bytes");
}

fn binary_stl(declared: u32, triangles: usize) -> Vec<u8> {
    let mut file = vec![0u8; 80];
    file.extend_from_slice(&declared.to_le_bytes());
    for t in 0..triangles {
        file.extend_from_slice(&[0u8; 12]);
        for corner in [[0.0f32, 0.0, t as f32], [1.0, 0.0, t as f32], [0.0, 1.0, t as f32]] {
            corner.iter().for_each(|c| file.extend_from_slice(&c.to_le_bytes()));
        }
        file.extend_from_slice(&[0u8; 2]);
    }
    file
}

#[test]
fn stl_triangle_count_is_checked_against_the_file_size_and_the_limit() {
    let _turn = turn();
    let lying = binary_stl(u32::MAX, 2);
    let (result, peak) = peak_of(|| read_model(&lying, "stl", &limited(LIMIT, false)));
    expect_error(result, ErrorCode::InvalidMesh, "declares 4294967295 triangles");
    assert!(peak < MB, "peak heap {peak} bytes");

    let large = binary_stl(250_000, 250_000);
    let (result, peak) = peak_of(|| read_model(&large, "stl", &limited(LIMIT, false)));
    expect_error(result, ErrorCode::LimitExceeded, "declares 250000 faces");
    assert!(peak < MB, "peak heap {peak} bytes");
}

#[test]
fn off_counts_are_checked_against_the_limit() {
    let _turn = turn();
    let mut text = String::from("OFF\n3 250000 0\n0 0 0\n1 0 0\n0 1 0\n");
    text.push_str(&"3 0 1 2\n".repeat(250_000));
    let (result, peak) = peak_of(|| read_model(text.as_bytes(), "off", &limited(LIMIT, false)));
    expect_error(result, ErrorCode::LimitExceeded, "declares 250000 faces");
    assert!(peak < MB, "peak heap {peak} bytes");
}

#[test]
fn images_repeating_one_large_view_are_refused() {
    let _turn = turn();
    // 64 images naming the same 1 MB buffer view would copy it 64 times.
    let bin = vec![0u8; MB];
    let doc = json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [{ "buffer": 0, "byteLength": bin.len() }, { "buffer": 0, "byteLength": 36 }],
        "accessors": [{ "bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3" }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 } }] }],
        "images": vec![json!({ "bufferView": 0, "mimeType": "image/png" }); 64],
    });
    let glb = pack(&doc, &bin);
    let (result, peak) = peak_of(|| read_model(&glb, "glb", &limited(LIMIT, false)));
    expect_error(result, ErrorCode::InvalidMesh, "images declare more bytes");
    assert!(peak < 4 * MB, "peak heap {peak} bytes");
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
