//! Links the C++ standard library into the command rather than loading it at each start.
//!
//! meshoptimizer and the texture encoders are C++, and their build scripts ask for `-lstdc++`,
//! which the linker resolves to the shared library: every run of kiln-mesh then loads it and
//! resolves its symbols, about 1.7 M of the 2.4 M instructions a one-triangle model takes. Here
//! the linker first searches a folder holding only the static archive (the compiler's own,
//! `g++ -print-file-name=libstdc++.a`), so the same `-lstdc++` links it into the binary. The
//! napi addons are loaded into Node, which has the shared library already, and stay as they are.
//! Where the archive is not found (another compiler, another system) the link is as before.
//! `native/build.ts` links the whole command statically on Linux with glibc (`buildKilnMesh` in
//! native/cargo.ts); this still serves the links made without that flag (`cargo test`).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    if !(target.contains("linux") && target.ends_with("-gnu")) {
        return;
    }
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "g++".into());
    let Ok(out) = Command::new(&compiler)
        .arg("-print-file-name=libstdc++.a")
        .output()
    else {
        return;
    };
    let archive = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    // Without the archive the compiler prints the bare name back.
    if !out.status.success() || !archive.is_absolute() || !archive.exists() {
        return;
    }
    let dir =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("static-cxx");
    let link = dir.join("libstdc++.a");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::remove_file(&link);
    if std::os::unix::fs::symlink(&archive, &link).is_ok() {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
}
