//! kiln-mesh as a user runs it: files written, summary on stdout, errors as JSON with exit codes.
use std::path::{Path, PathBuf};
use std::process::Command;

fn kiln_mesh() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kiln-mesh"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kiln-mesh-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A unit cube as ASCII OBJ: 8 vertices, 12 triangles.
fn cube(dir: &Path) -> PathBuf {
    let mut obj = String::new();
    for i in 0..8 {
        obj += &format!("v {} {} {}\n", i & 1, (i >> 1) & 1, (i >> 2) & 1);
    }
    for f in [
        "1 3 4", "1 4 2", "5 6 8", "5 8 7", "1 2 6", "1 6 5", "3 7 8", "3 8 4", "1 5 7", "1 7 3",
        "2 4 8", "2 8 6",
    ] {
        obj += &format!("f {f}\n");
    }
    let path = dir.join("cube.obj");
    std::fs::write(&path, obj).unwrap();
    path
}

/// Complete options, as the service's catalog sends them.
const OPTIMIZE_OPTIONS: &str = r#"{"max_faces":2000000,"compress":true,"quantize":true,"position_bits":14,"animation_error":null,"simplify_ratio":1,"remove_debris":0,"textures":"keep","max_texture_size":null,"keep_nodes":false,"instancing":false}"#;

#[test]
fn optimize_writes_a_glb_and_prints_the_summary() {
    let dir = scratch("optimize");
    let out = dir.join("out");
    let run = kiln_mesh()
        .arg("optimize")
        .arg(cube(&dir))
        .arg(&out)
        .arg(OPTIMIZE_OPTIONS)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(summary["before"]["faces"], 12);
    let glb = std::fs::read(out.join("cube_optimized.glb")).unwrap();
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(summary["output_bytes"], glb.len());
}

#[test]
fn measure_counts_faces_and_refuses_above_the_limit() {
    let dir = scratch("measure");
    let model = cube(&dir);
    let run = kiln_mesh().arg("measure").arg(&model).output().unwrap();
    assert!(run.status.success());
    assert_eq!(
        String::from_utf8_lossy(&run.stdout).trim(),
        r#"{"faces":12}"#
    );
    let run = kiln_mesh()
        .arg("measure")
        .arg(&model)
        .arg("11")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let error: serde_json::Value = serde_json::from_slice(&run.stderr).unwrap();
    assert_eq!(error["error"]["code"], "limit_exceeded");
}

#[test]
fn a_broken_file_is_an_error_value_not_a_crash() {
    let dir = scratch("broken");
    let path = dir.join("broken.glb");
    std::fs::write(&path, b"glTF\x02\x00\x00\x00\xff\xff\xff\xffnonsense").unwrap();
    let run = kiln_mesh()
        .arg("inspect")
        .arg(&path)
        .arg(dir.join("out"))
        .arg(r#"{"max_faces":200000}"#)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let error: serde_json::Value = serde_json::from_slice(&run.stderr).unwrap();
    assert_eq!(error["error"]["code"], "invalid_mesh");
    assert!(!error["error"]["hint"].as_str().unwrap().is_empty());
}

#[test]
fn bad_usage_exits_64() {
    assert_eq!(kiln_mesh().output().unwrap().status.code(), Some(64));
    let dir = scratch("usage");
    let model = cube(&dir);
    let run = kiln_mesh()
        .arg("polish")
        .arg(&model)
        .arg(dir.join("o"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(64));
    let run = kiln_mesh()
        .arg("simplify")
        .arg(&model)
        .arg(dir.join("o"))
        .arg("[1]")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(64));
}

#[test]
fn options_of_the_wrong_type_or_unknown_are_refused() {
    let dir = scratch("options");
    let model = cube(&dir);
    for (options, words) in [
        (
            r#"{"max_faces":2000000,"compress":"yes","quantize":true,"position_bits":14,"animation_error":null,"simplify_ratio":1,"remove_debris":0,"textures":"keep","max_texture_size":null,"keep_nodes":false,"instancing":false}"#,
            "invalid type",
        ),
        (
            r#"{"max_faces":2000000,"compress":true,"quantize":true,"position_bits":14,"animation_error":null,"simplify_ratio":1,"remove_debris":0,"textures":"keep","max_texture_size":null,"keep_nodes":false,"instancing":false,"colour":1}"#,
            "unknown field `colour`",
        ),
        (r#"{"compress":true}"#, "missing field"),
    ] {
        let run = kiln_mesh()
            .arg("optimize")
            .arg(&model)
            .arg(dir.join("o"))
            .arg(options)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{options}");
        let error: serde_json::Value = serde_json::from_slice(&run.stderr).unwrap();
        assert_eq!(error["error"]["code"], "invalid_options");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains(words), "{message:?} should say {words:?}");
    }
}
