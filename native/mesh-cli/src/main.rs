//! kiln-mesh: runs one mesh tool of kiln's core on a local file, the same code the service's
//! workers run through the napi binding.
//!
//!   kiln-mesh <inspect|simplify|optimize|split> <input> <out-dir> [options-json]
//!   kiln-mesh measure <input> [max-faces] [tool]   (faces as the tool counts them; default optimize)
//!   kiln-mesh textures <source> <output>   (each output texture's bytes and PSNR against its source)
//!
//! Prints the tool's summary as JSON on stdout and writes its files under <out-dir>. A failure
//! prints `{"error":{"code","message","hint"}}` on stderr and exits 2; bad usage exits 64.
use mesh_core::read::ReadOptions;
use mesh_core::tools::guarded::{run_guarded, Done, Job};
use mesh_core::tools::Input;
use serde_json::{json, Value};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

mod allocator;
mod mapped_file;
#[cfg(not(target_family = "wasm"))]
mod textures;

const USAGE: &str = "usage: kiln-mesh <inspect|simplify|optimize|split> <input> <out-dir> [options-json]\n       kiln-mesh measure <input> [max-faces] [tool]\n       kiln-mesh textures <source> <output>";

fn usage(problem: &str) -> ExitCode {
    eprintln!("kiln-mesh: {problem}\n{USAGE}");
    ExitCode::from(64)
}

/// A tool's output name as a path under `out_dir`, or None if it would leave it.
fn inside(out_dir: &Path, name: &str) -> Option<PathBuf> {
    let relative = Path::new(name);
    let plain = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    (plain && !name.is_empty()).then(|| out_dir.join(relative))
}

fn write_files(out_dir: &Path, files: &[mesh_core::tools::OutputFile]) -> std::io::Result<()> {
    for file in files {
        let target = inside(out_dir, &file.name).ok_or_else(|| {
            std::io::Error::other(format!(
                "output name {:?} leaves the output folder",
                file.name
            ))
        })?;
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(target, &file.data)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    allocator::keep_freed_memory();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(tool), Some(input_path)) = (args.first(), args.get(1)) else {
        return usage("missing arguments");
    };
    #[cfg(not(target_family = "wasm"))]
    if tool == "textures" {
        let Some(output) = args.get(2) else {
            return usage("missing <output>");
        };
        return match textures::run(Path::new(input_path), Path::new(output)) {
            Ok(rows) => {
                println!("{rows}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("kiln-mesh: {e}");
                ExitCode::from(2)
            }
        };
    }
    let input_path = Path::new(input_path);
    let data = match mapped_file::open(input_path) {
        Ok(d) => d,
        Err(e) => return usage(&format!("cannot read {}: {e}", input_path.display())),
    };
    let name = input_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let extension = input_path
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Unlike the service, a local user may keep a .gltf's buffers and images beside it.
    let read = ReadOptions {
        resource_dir: input_path.parent().map(Path::to_path_buf),
        ..ReadOptions::default()
    };
    let input = Input {
        data: &data,
        name: &name,
        extension: &extension,
        read,
    };

    let (job, out_dir) = if tool == "measure" {
        let max_faces = match args.get(2).map(|s| s.parse::<usize>()) {
            None => usize::MAX,
            Some(Ok(n)) => n,
            Some(Err(_)) => return usage("max-faces must be a whole number"),
        };
        let tool = args.get(3).map_or("optimize", String::as_str);
        let Some(job) = Job::measure(tool, max_faces) else {
            return usage(&format!("unknown tool {tool:?}"));
        };
        (job, None)
    } else {
        let Some(out_dir) = args.get(2) else {
            return usage("missing <out-dir>");
        };
        let options: Value = match serde_json::from_str(args.get(3).map_or("{}", String::as_str)) {
            Ok(v @ Value::Object(_)) => v,
            _ => return usage("options must be a JSON object"),
        };
        let Some(job) = Job::named(tool, options) else {
            return usage(&format!("unknown tool {tool:?}"));
        };
        (job, Some(PathBuf::from(out_dir)))
    };

    match run_guarded(job, &input) {
        Ok(Done::Measured(faces)) => println!("{}", json!({ "faces": faces })),
        Ok(Done::Ran(result)) => {
            let out_dir = out_dir.expect("tools other than measure have an out-dir");
            if let Err(e) = std::fs::create_dir_all(&out_dir)
                .and_then(|()| write_files(&out_dir, &result.files))
            {
                eprintln!("kiln-mesh: cannot write outputs: {e}");
                return ExitCode::from(1);
            }
            println!("{}", result.summary);
        }
        Err(e) => {
            eprintln!(
                "{}",
                json!({ "error": { "code": e.code.as_str(), "message": e.message, "hint": e.hint } })
            );
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::inside;
    use std::path::Path;

    #[test]
    fn output_names_stay_inside_the_folder() {
        let out = Path::new("/tmp/out");
        assert_eq!(inside(out, "parts/a.glb"), Some(out.join("parts/a.glb")));
        assert_eq!(inside(out, "../escape.glb"), None);
        assert_eq!(inside(out, "/etc/passwd"), None);
        assert_eq!(inside(out, "parts/../../x"), None);
        assert_eq!(inside(out, ""), None);
    }
}
