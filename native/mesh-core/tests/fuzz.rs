//! Parser fuzzing without nightly: a seeded loop flips, inserts, deletes and overwrites bytes of
//! small corpus files (and truncates them) and feeds every mutant to the reader of its format.
//! Any outcome but a panic passes. MESH_FUZZ_ITERATIONS sets the budget per seed file (default
//! 300 for CI; the bench script runs more), MESH_FUZZ_SEED another stream of mutations than CI's.
//!
//! One outcome no loop here can catch: a mutant that makes the Draco decoder (draco-oxide) ask for
//! tens of gigabytes at once aborts the process, as Rust does on a failed allocation.
//! MESH_FUZZ_SEED=2026112901 with 30,000 mutants per file finds one (its symbol count read from four
//! bytes set to 0xFF). The service runs every job in a child process of its own and reports that
//! abort as out_of_memory (test/mesh/draco.test.ts); pass `--skip
//! mutated_corpus_files_never_panic_a_reader` to fuzz the tools on past it.
use mesh_core::read::{read_model, ReadOptions};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

const SEEDS: &[&str] = &[
    "glb/Box.glb",
    "glb/BoxMeshopt.glb",
    "glb/BoxTextured.glb",
    // Skin, JOINTS/WEIGHTS and animation accessors.
    "glb/CesiumMan.glb",
    // KHR_draco_mesh_compression: the Draco decoder reads the mutated bitstream.
    "glb/Box_Draco.glb",
    // Seven meshes of different layouts in one scene (merging, debris, materials).
    "glb/ShapeCollection.glb",
    "gltf/BoxTextured_embedded/BoxTextured.gltf",
    "ply/cube_binary.ply",
    "ply/test_pos_color.ply",
    "stl/Spider_binary.stl",
    "malformed/off/OutOfMemory.off",
    "malformed/obj/malformed.obj",
];

/// xorshift64*: a tiny deterministic generator so every run mutates the same way.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INTERESTING: &[u32] = &[0, 1, 3, 0x7F, 0xFF, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, 0x8000_0000];

fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(data.len());
        match rng.below(6) {
            0 if !data.is_empty() => data[at] ^= 1 << rng.below(8),
            1 if !data.is_empty() => data[at] = rng.next() as u8,
            2 if data.len() >= at + 4 => data[at..at + 4].copy_from_slice(&INTERESTING[rng.below(INTERESTING.len())].to_le_bytes()),
            3 => data.insert(at, rng.next() as u8),
            4 if !data.is_empty() => {
                data.remove(at);
            }
            _ => data.truncate(at),
        }
    }
    data
}

/// The shared corpus, or None (after saying the test skipped) when it is absent.
fn corpus() -> Option<std::path::PathBuf> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if !corpus.exists() {
        eprintln!("SKIPPED: shared corpus not found at {}", corpus.display());
        return None;
    }
    Some(corpus)
}

/// The generator's start: MESH_FUZZ_SEED (a nonzero number), else `default` (CI's stream).
fn stream(default: u64) -> u64 {
    std::env::var("MESH_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).filter(|&s| s != 0).unwrap_or(default)
}

/// Mutants per seed file: the environment variable `name`, else `default`.
fn budget(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn mutated_corpus_files_never_panic_a_reader() {
    let Some(corpus) = corpus() else { return };
    let iterations = budget("MESH_FUZZ_ITERATIONS", 300);
    let mut rng = Rng(stream(0x9E37_79B9_7F4A_7C15));
    let mut outcomes = [0usize; 2];
    for seed in SEEDS {
        let bytes = std::fs::read(corpus.join(seed)).unwrap();
        let extension = Path::new(seed).extension().unwrap().to_str().unwrap();
        for i in 0..iterations {
            let mutant = mutate(&bytes, &mut rng);
            let result = catch_unwind(AssertUnwindSafe(|| read_model(&mutant, extension, &ReadOptions::default())));
            match result {
                Ok(r) => outcomes[usize::from(r.is_ok())] += 1,
                Err(_) => {
                    let path = std::env::temp_dir().join(format!("mesh-fuzz-crash-{i}.{extension}"));
                    std::fs::write(&path, &mutant).unwrap();
                    panic!("reader panicked on a mutant of {seed}; saved to {}", path.display());
                }
            }
        }
    }
    eprintln!("fuzz: {} mutants rejected, {} still readable", outcomes[0], outcomes[1]);
    assert!(outcomes[0] > 0, "mutations should break some files");
}

/// Every tool on a readable file, with complete options as the service's catalog sends them:
/// whatever the file holds, each answers a result or an error about the file, never a panic or
/// an error about its options. False when one panicked.
fn every_tool_survives(data: &[u8], extension: &str) -> bool {
    use mesh_core::tools::{self, Input};
    use serde_json::json;
    let input = Input { data, name: "fuzz", extension, read: ReadOptions::default() };
    catch_unwind(AssertUnwindSafe(|| {
        let outcomes = [
            tools::inspect::run(&input, &json!({ "max_faces": 200_000 })).err(),
            tools::simplify::run(
                &input,
                &json!({ "max_faces": 1_000_000, "target_ratio": 0.5, "max_error": 0.01, "lock_border": false, "format": "glb", "keep_nodes": false, "animation_error": null }),
            )
            .err(),
            tools::optimize::run(
                &input,
                &json!({ "max_faces": 2_000_000, "compress": true, "quantize": true, "position_bits": 14, "animation_error": null, "simplify_ratio": 0.7, "remove_debris": 0.01, "textures": "keep", "max_texture_size": null, "keep_nodes": false, "instancing": false }),
            )
            .err(),
            // The images too: decoded, resized and encoded again.
            tools::optimize::run(
                &input,
                &json!({ "max_faces": 2_000_000, "compress": true, "quantize": true, "position_bits": 14, "animation_error": null, "simplify_ratio": 1, "remove_debris": 0, "textures": "webp", "max_texture_size": 64, "keep_nodes": false, "instancing": false }),
            )
            .err(),
            tools::split::run(
                &input,
                &json!({ "max_faces": 200_000, "detail": "medium", "max_parts": 4, "min_part_faces": 0, "min_part_area": 0.005,
                         "format": "glb", "preprocess": "auto", "segmented": true }),
            )
            .err(),
        ];
        for e in outcomes.into_iter().flatten() {
            assert_ne!(e.code, mesh_core::ErrorCode::InvalidOptions, "{e}");
        }
    }))
    .is_ok()
}

/// Mutants a reader still accepts go through every tool: hostile geometry (NaN or huge
/// coordinates, broken attributes, odd skins) must come back as a result or an error value,
/// never a panic. MESH_TOOL_FUZZ_ITERATIONS sets the budget per seed (default 40).
#[test]
fn readable_mutants_never_panic_a_tool() {
    let Some(corpus) = corpus() else { return };
    let iterations = budget("MESH_TOOL_FUZZ_ITERATIONS", 40);
    let mut rng = Rng(stream(0xD1B5_4A32_D192_ED03));
    let mut ran = 0usize;
    for seed in SEEDS {
        let bytes = std::fs::read(corpus.join(seed)).unwrap();
        let extension = Path::new(seed).extension().unwrap().to_str().unwrap();
        for i in 0..iterations {
            let mutant = mutate(&bytes, &mut rng);
            if read_model(&mutant, extension, &ReadOptions::default()).is_err() {
                continue;
            }
            if !every_tool_survives(&mutant, extension) {
                let path = std::env::temp_dir().join(format!("mesh-tool-fuzz-crash-{i}.{extension}"));
                std::fs::write(&path, &mutant).unwrap();
                panic!("a tool panicked on a readable mutant of {seed}; saved to {}", path.display());
            }
            ran += 1;
        }
    }
    eprintln!("tool fuzz: {ran} readable mutants through all five runs (optimize twice: textures kept, then WebP)");
    assert!(ran > 0, "some mutants should stay readable");
}

/// GLB files whose glTF JSON is mutated as glTF, not as bytes.
const GLB_SEEDS: &[&str] = &["glb/Box.glb", "glb/BoxTextured.glb", "glb/BoxMeshopt.glb", "glb/CesiumMan.glb", "glb/Box_Draco.glb", "glb/ShapeCollection.glb"];

/// The GLB's JSON and binary chunk.
fn split_glb(glb: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&glb[20..20 + length]).unwrap();
    let bin = glb.get(20 + length + 8..).unwrap_or_default().to_vec();
    (json, bin)
}

fn join_glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let mut text = serde_json::to_vec(json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
    let mut glb = Vec::with_capacity(total);
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&text);
    if !bin.is_empty() {
        glb.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        glb.extend_from_slice(b"BIN\0");
        glb.extend_from_slice(bin);
    }
    glb
}

/// Every JSON pointer in `value`, depth first.
fn pointers(value: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => map.iter().for_each(|(k, v)| pointers(v, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out)),
        serde_json::Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| pointers(v, format!("{at}/{i}"), out)),
        _ => {}
    }
    out.push(at);
}

/// One to three changes a hostile or broken exporter could make to a glTF document: a number
/// set to an edge value or its neighbour (indices, counts, offsets, strides, component types,
/// matrices), a member or element removed, an element duplicated, a value of another type.
fn mutate_gltf(json: &mut serde_json::Value, rng: &mut Rng) {
    use serde_json::{json, Value};
    const EDGES: &[f64] = &[0.0, 1.0, -1.0, 2.0, 3.0, 4.0, 255.0, 65535.0, 2147483648.0, 4294967297.0, 1e30, -1e30, 0.5, 5120.0, 5125.0, 5126.0];
    for _ in 0..1 + rng.below(3) {
        let mut all = Vec::new();
        pointers(json, String::new(), &mut all);
        let at = all[rng.below(all.len())].clone();
        let Some((parent, key)) = at.rsplit_once('/') else { continue };
        let target = json.pointer_mut(&at).expect("a pointer just listed");
        match rng.below(6) {
            0 | 1 => {
                if let Some(n) = target.as_f64() {
                    *target = match rng.below(3) {
                        0 => json!(n + 1.0),
                        1 => json!(n - 1.0),
                        _ => json!(EDGES[rng.below(EDGES.len())]),
                    };
                } else {
                    *target = json!(EDGES[rng.below(EDGES.len())]);
                }
            }
            2 => *target = [Value::Null, json!("x"), json!([]), json!({}), json!(true)][rng.below(5)].clone(),
            3 => match json.pointer_mut(parent) {
                Some(Value::Object(map)) => {
                    map.remove(&key.replace("~1", "/").replace("~0", "~"));
                }
                Some(Value::Array(items)) => {
                    if let Ok(i) = key.parse::<usize>() {
                        items.remove(i);
                    }
                }
                _ => {}
            },
            4 => {
                if let Some(Value::Array(items)) = json.pointer_mut(parent) {
                    if let Ok(i) = key.parse::<usize>() {
                        let copy = items[i].clone();
                        items.insert(i, copy);
                    }
                }
            }
            _ => {
                // Another element's value in its place (an index pointing elsewhere, a node
                // made its own ancestor, an accessor of another shape).
                let other = all[rng.below(all.len())].clone();
                if let Some(value) = json.pointer(&other).cloned() {
                    if !other.starts_with(&at) {
                        *json.pointer_mut(&at).expect("listed") = value;
                    }
                }
            }
        }
    }
}

/// `Box.glb`'s document with what no corpus file has: two material variants mapped on its
/// primitive, and its vertices drawn again as points, lines, a line loop and a line strip.
fn with_variants_points_and_lines(json: &serde_json::Value) -> serde_json::Value {
    use serde_json::json;
    let mut json = json.clone();
    let mut second = json["materials"][0].clone();
    second["name"] = json!("other");
    json["materials"].as_array_mut().expect("Box.glb has materials").push(second);
    json["extensions"] = json!({ "KHR_materials_variants": { "variants": [{ "name": "a" }, { "name": "b" }] } });
    json["extensionsUsed"] = json!(["KHR_materials_variants"]);
    let triangles = &mut json["meshes"][0]["primitives"][0];
    triangles["extensions"] = json!({ "KHR_materials_variants": { "mappings": [{ "material": 1, "variants": [0] }, { "material": 0, "variants": [1] }] } });
    let drawn: Vec<serde_json::Value> = (0..4)
        .map(|mode| {
            let mut p = triangles.clone();
            p["mode"] = json!(mode);
            p
        })
        .collect();
    json["meshes"][0]["primitives"].as_array_mut().expect("Box.glb has a primitive").extend(drawn);
    json
}

/// glTF documents changed as glTF (`mutate_gltf`) over their original binary chunk: the readers
/// and every tool answer a value, never a panic. MESH_GLTF_FUZZ_ITERATIONS sets the budget per
/// seed (default 200). Besides the corpus's GLBs, one made from Box.glb carries material variants,
/// points and lines (`with_variants_points_and_lines`).
#[test]
fn structurally_mutated_gltf_never_panics_a_reader_or_a_tool() {
    let Some(corpus) = corpus() else { return };
    let iterations = budget("MESH_GLTF_FUZZ_ITERATIONS", 200);
    let mut rng = Rng(stream(0x94D0_49BB_1331_11EB));
    let (mut readable, mut refused) = (0usize, 0usize);
    let mut seeds: Vec<(&str, serde_json::Value, Vec<u8>)> =
        GLB_SEEDS.iter().map(|&seed| (seed, split_glb(&std::fs::read(corpus.join(seed)).unwrap()))).map(|(seed, (json, bin))| (seed, json, bin)).collect();
    let (json, bin) = split_glb(&std::fs::read(corpus.join("glb/Box.glb")).unwrap());
    seeds.push(("glb/Box.glb with variants, points and lines", with_variants_points_and_lines(&json), bin));
    for (seed, json, bin) in seeds {
        for i in 0..iterations {
            let mut changed = json.clone();
            mutate_gltf(&mut changed, &mut rng);
            let mutant = join_glb(&changed, &bin);
            let save = |what: &str| {
                let path = std::env::temp_dir().join(format!("mesh-gltf-fuzz-crash-{i}.glb"));
                std::fs::write(&path, &mutant).unwrap();
                panic!("{what} panicked on a glTF mutant of {seed}; saved to {}", path.display());
            };
            match catch_unwind(AssertUnwindSafe(|| read_model(&mutant, "glb", &ReadOptions::default()))) {
                Err(_) => save("the reader"),
                Ok(Err(_)) => refused += 1,
                Ok(Ok(_)) => {
                    readable += 1;
                    if !every_tool_survives(&mutant, "glb") {
                        save("a tool");
                    }
                }
            }
        }
    }
    eprintln!("glTF fuzz: {refused} mutants refused, {readable} read and through every tool");
    assert!(readable > 0 && refused > 0, "mutations should break some documents and keep others readable");
}

/// GLB files whose positions are plain floats, for `extreme_coordinates_never_panic_a_tool`.
const PLAIN_POSITION_SEEDS: &[&str] = &["glb/Box.glb", "glb/BoxTextured.glb", "glb/CesiumMan.glb", "glb/ShapeCollection.glb"];

/// Where the values of plain float accessors lie in the binary chunk, one run per accessor.
struct FloatRun {
    offset: usize,
    stride: usize,
    count: usize,
    components: usize,
}

/// The runs of the accessors `chosen` from `json` that hold plain floats (not sparse).
fn float_runs(json: &serde_json::Value, mut chosen: Vec<usize>) -> Vec<FloatRun> {
    let accessors = json["accessors"].as_array().cloned().unwrap_or_default();
    let views = json["bufferViews"].as_array().cloned().unwrap_or_default();
    chosen.sort_unstable();
    chosen.dedup();
    chosen
        .into_iter()
        .filter_map(|a| {
            let accessor = accessors.get(a)?;
            let components = match accessor["type"].as_str()? {
                "SCALAR" => 1,
                "VEC2" => 2,
                "VEC3" => 3,
                "VEC4" => 4,
                "MAT4" => 16,
                _ => return None,
            };
            if accessor["componentType"] != 5126 || accessor.get("sparse").is_some() {
                return None;
            }
            let view = views.get(accessor["bufferView"].as_u64()? as usize)?;
            let offset = view["byteOffset"].as_u64().unwrap_or(0) + accessor["byteOffset"].as_u64().unwrap_or(0);
            let stride = view["byteStride"].as_u64().map_or(components * 4, |s| s as usize);
            Some(FloatRun { offset: offset as usize, stride, count: accessor["count"].as_u64()? as usize, components })
        })
        .collect()
}

/// The POSITION accessors of every primitive.
fn positions(json: &serde_json::Value) -> Vec<usize> {
    let primitives = json["meshes"].as_array().into_iter().flatten().flat_map(|m| m["primitives"].as_array().into_iter().flatten());
    primitives.filter_map(|p| p["attributes"]["POSITION"].as_u64().map(|a| a as usize)).collect()
}

/// The animation samplers' key times and values, and the skins' inverse bind matrices.
fn motion(json: &serde_json::Value) -> Vec<usize> {
    let samplers = json["animations"].as_array().into_iter().flatten().flat_map(|a| a["samplers"].as_array().into_iter().flatten());
    let keys = samplers.flat_map(|s| [s["input"].as_u64(), s["output"].as_u64()]);
    let binds = json["skins"].as_array().into_iter().flatten().map(|s| s["inverseBindMatrices"].as_u64());
    keys.chain(binds).flatten().map(|a| a as usize).collect()
}

/// Values no exporter should write but a file can hold: at the ends of the f32 range (whose
/// differences overflow to infinity), far apart, scaled toward overflow or subnormals, or all
/// equal, written into the `chosen` accessors of each of `seeds`. Whatever the reader takes
/// (it refuses infinities, NaN and key times out of order where it must), every tool must
/// answer with a result or an error value, never a panic. `budget` models per seed.
fn extreme_values_never_panic_a_tool(seeds: &[&str], chosen: fn(&serde_json::Value) -> Vec<usize>, budget: usize, stream_start: u64) -> (usize, usize) {
    let Some(corpus) = corpus() else { return (0, 0) };
    let mut rng = Rng(stream(stream_start));
    const EXTREMES: &[f32] = &[f32::MAX, -f32::MAX, 3e38, -2.5e38, 1e30, -1e30, 1e20, 1e-40, -1e-40, 0.0, -0.0, f32::MIN_POSITIVE];
    let (mut ran, mut refused) = (0usize, 0usize);
    for seed in seeds {
        let (json, bin) = split_glb(&std::fs::read(corpus.join(seed)).unwrap());
        let runs = float_runs(&json, chosen(&json));
        assert!(!runs.is_empty(), "{seed} has plain float accessors of the kind chosen");
        for i in 0..budget {
            let mut changed = bin.clone();
            for _ in 0..1 + rng.below(3) {
                let run = &runs[rng.below(runs.len())];
                let at = |v: usize, c: usize| run.offset + v * run.stride + c * 4;
                let get = |bytes: &[u8], v: usize, c: usize| bytes.get(at(v, c)..at(v, c) + 4).map(|b| f32::from_le_bytes(b.try_into().unwrap()));
                let set = |bytes: &mut Vec<u8>, v: usize, c: usize, value: f32| {
                    if let Some(slot) = bytes.get_mut(at(v, c)..at(v, c) + 4) {
                        slot.copy_from_slice(&value.to_le_bytes());
                    }
                };
                let c = rng.below(run.components);
                match rng.below(4) {
                    // A few values thrown to the ends of the range.
                    0 => {
                        for _ in 0..1 + rng.below(4) {
                            set(&mut changed, rng.below(run.count), c, EXTREMES[rng.below(EXTREMES.len())]);
                        }
                    }
                    // A tenth of them, in one component.
                    1 => {
                        let value = EXTREMES[rng.below(EXTREMES.len())];
                        let picked: Vec<usize> = (0..run.count).filter(|_| rng.below(10) == 0).collect();
                        picked.into_iter().for_each(|v| set(&mut changed, v, c, value));
                    }
                    // All of them scaled toward overflow or subnormals.
                    2 => {
                        let scale = [1e36f32, 1e-36, 1e-44][rng.below(3)];
                        for v in 0..run.count {
                            for c in 0..run.components {
                                if let Some(value) = get(&changed, v, c) {
                                    set(&mut changed, v, c, value * scale);
                                }
                            }
                        }
                    }
                    // All of them one value.
                    _ => {
                        for v in 0..run.count {
                            (0..run.components).for_each(|c| set(&mut changed, v, c, 1.5));
                        }
                    }
                }
            }
            let mutant = join_glb(&json, &changed);
            if read_model(&mutant, "glb", &ReadOptions::default()).is_err() {
                refused += 1;
                continue;
            }
            if !every_tool_survives(&mutant, "glb") {
                let path = std::env::temp_dir().join(format!("mesh-extreme-fuzz-crash-{i}.glb"));
                std::fs::write(&path, &mutant).unwrap();
                panic!("a tool panicked on {seed} with extreme values; saved to {}", path.display());
            }
            ran += 1;
        }
    }
    (ran, refused)
}

/// Positions at extremes (session 28's fuzzing found split's part grid wrapping its cell count on
/// parts 2.5e38 apart). MESH_EXTREME_FUZZ_ITERATIONS sets the budget per seed (default 12).
#[test]
fn extreme_coordinates_never_panic_a_tool() {
    let budget = budget("MESH_EXTREME_FUZZ_ITERATIONS", 12);
    let (ran, refused) = extreme_values_never_panic_a_tool(PLAIN_POSITION_SEEDS, positions, budget, 0xA076_1D64_78BD_642F);
    eprintln!("extreme coordinates: {ran} models through all five runs, {refused} refused");
}

/// Key times, key values and inverse bind matrices at extremes, in the corpus's skinned and
/// animated model. MESH_EXTREME_FUZZ_ITERATIONS sets the budget (default 12, four times over).
#[test]
fn extreme_motion_never_panics_a_tool() {
    let budget = budget("MESH_EXTREME_FUZZ_ITERATIONS", 12) * 4;
    let (ran, refused) = extreme_values_never_panic_a_tool(&["glb/CesiumMan.glb"], motion, budget, 0xE703_7ED1_A0B4_28DB);
    eprintln!("extreme motion: {ran} models through all five runs, {refused} refused");
    assert!(ran > 0, "some should stay readable");
}

/// The seed made for the structural fuzz reads whole: its variants and its four drawings that are
/// not triangles, and every tool takes it.
#[test]
fn the_variants_points_and_lines_seed_reads_whole() {
    let Some(corpus) = corpus() else { return };
    let (json, bin) = split_glb(&std::fs::read(corpus.join("glb/Box.glb")).unwrap());
    let glb = join_glb(&with_variants_points_and_lines(&json), &bin);
    let model = read_model(&glb, "glb", &ReadOptions::default()).unwrap();
    assert_eq!(model.variants.len(), 2);
    assert_eq!(model.meshes[0].primitives[0].variant_materials.len(), 2);
    assert_eq!(model.meshes[0].lines_and_points.len(), 4);
    assert!(every_tool_survives(&glb, "glb"));
}
