//! `kiln-mesh textures <source> <output>`: per output image, its format, bytes, size and PSNR
//! against the source image it came from (mesh_core::texture::compare), as one JSON array. The
//! texture bench runs it on our output and on gltfpack's, so both are measured by the same decoder.
use mesh_core::read::{read_model, ReadOptions};
use mesh_core::Model;
use std::path::Path;

fn read(path: &Path) -> Result<Model, String> {
    let data = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    let options = ReadOptions {
        resource_dir: path.parent().map(Path::to_path_buf),
        ..ReadOptions::default()
    };
    read_model(&data, &extension, &options).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn run(source: &Path, output: &Path) -> Result<String, String> {
    let rows = mesh_core::texture::compare::compare_textures(&read(source)?, &read(output)?)
        .map_err(|e| e.to_string())?;
    Ok(serde_json::Value::from(rows).to_string())
}
