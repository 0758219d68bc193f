//! With the `textures` feature: compiles src/texture/basisu_params.cpp, which sets two Basis
//! Universal encoder parameters that the basis-universal crate's C wrapper has no setter for
//! (the UASTC rate-distortion dictionary size and the ETC1S compression level). It includes the
//! basisu headers vendored in basis-universal-sys (the version Cargo.lock pins), so it always
//! matches the encoder that crate links.
use std::path::PathBuf;

/// The basis-universal-sys sources cargo unpacked for this build: the version Cargo.lock pins, in the
/// registry's source folder. Not `cargo metadata`: offline it needs every package of every platform
/// in the cache, which a fresh machine that only built for its own platform does not have.
fn basisu_sys_dir() -> PathBuf {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let lock = std::fs::read_to_string(manifest_dir.join("../Cargo.lock")).expect("native/Cargo.lock is readable");
    let version = lock
        .split("[[package]]")
        .find(|package| package.contains("name = \"basis-universal-sys\""))
        .and_then(|package| package.lines().find_map(|line| line.strip_prefix("version = \"")))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("Cargo.lock pins basis-universal-sys");
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
        .expect("CARGO_HOME or HOME is set");
    let registry = cargo_home.join("registry").join("src");
    std::fs::read_dir(&registry)
        .expect("cargo's registry source folder exists")
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path().join(format!("basis-universal-sys-{version}")))
        .find(|candidate| candidate.join("vendor").is_dir())
        .unwrap_or_else(|| panic!("basis-universal-sys {version} is not unpacked under {}", registry.display()))
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
