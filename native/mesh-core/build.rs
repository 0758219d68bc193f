//! With the `textures` feature: compiles src/texture/basisu_params.cpp, which sets two Basis
//! Universal encoder parameters that the basis-universal crate's C wrapper has no setter for
//! (the UASTC rate-distortion dictionary size and the ETC1S compression level). It includes the
//! basisu headers vendored in basis-universal-sys, found through `cargo metadata`, so it always
//! matches the encoder that crate links.
use std::path::PathBuf;
use std::process::Command;

fn basisu_sys_dir() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let output =
        Command::new(cargo).args(["metadata", "--format-version", "1", "--offline", "--manifest-path"]).arg(&manifest).output().expect("cargo metadata runs");
    assert!(output.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let package = metadata["packages"]
        .as_array()
        .and_then(|packages| packages.iter().find(|p| p["name"] == "basis-universal-sys"))
        .expect("basis-universal-sys is a dependency");
    PathBuf::from(package["manifest_path"].as_str().expect("a manifest path")).parent().expect("a crate folder").to_path_buf()
}

fn main() {
    println!("cargo::rerun-if-changed=src/texture/basisu_params.cpp");
    if std::env::var_os("CARGO_FEATURE_TEXTURES").is_none() {
        return;
    }
    let vendor = basisu_sys_dir().join("vendor");
    cc::Build::new()
        .cpp(true)
        // As basis-universal-sys compiles the encoder, so the parameter struct has the same layout.
        .define("BASISD_SUPPORT_KTX2_ZSTD", "0")
        .flag_if_supported("--std=c++11")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-unused-variable")
        .flag_if_supported("-Wno-unused-value")
        .flag_if_supported("-Wno-class-memaccess")
        .include(vendor.join("basis_universal"))
        .file("src/texture/basisu_params.cpp")
        .compile("kiln_basisu_params");
}
