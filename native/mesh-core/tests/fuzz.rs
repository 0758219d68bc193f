//! Parser fuzzing without nightly: a seeded loop flips, inserts, deletes and overwrites bytes of
//! small corpus files (and truncates them) and feeds every mutant to the reader of its format.
//! Any outcome but a panic passes. MESH_FUZZ_ITERATIONS sets the budget per seed file (default
//! 300 for CI; the bench script runs more), MESH_FUZZ_SEED another stream of mutations than CI's.
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

/// Mutants a reader still accepts go through every tool: hostile geometry (NaN or huge
/// coordinates, broken attributes, odd skins) must come back as a result or an error value,
/// never a panic. MESH_TOOL_FUZZ_ITERATIONS sets the budget per seed (default 40).
#[test]
fn readable_mutants_never_panic_a_tool() {
    use mesh_core::tools::{self, Input};
    use serde_json::json;
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
            let input = Input { data: &mutant, name: "fuzz", extension, read: ReadOptions::default() };
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                // Complete options, as the service's catalog sends them: any error must be about the file.
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
            }));
            if outcome.is_err() {
                let path = std::env::temp_dir().join(format!("mesh-tool-fuzz-crash-{i}.{extension}"));
                std::fs::write(&path, &mutant).unwrap();
                panic!("a tool panicked on a readable mutant of {seed}; saved to {}", path.display());
            }
            ran += 1;
        }
    }
    eprintln!("tool fuzz: {ran} readable mutants through all four tools (optimize twice: textures kept, then WebP)");
    assert!(ran > 0, "some mutants should stay readable");
}
