//! Readers: file bytes to Model, by format, followed by one sanitizing pass shared by all formats.
mod accessor;
mod draco;
mod glb;
mod gltf;
mod gltf_json;
pub mod limits;
mod meshopt_ext;
mod obj;
mod off;
mod ply;
mod sanitize;
mod skin;
mod stl;

use crate::error::{MeshError, Result};
use crate::model::{Model, SourceFormat};
use std::path::PathBuf;

pub use gltf::sniff_mime;
pub use limits::ReadLimits;

#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Folder whose files a .gltf may name as external buffers or images (plain names only).
    pub resource_dir: Option<PathBuf>,
    /// The face limit, checked from declared counts before anything is decoded.
    pub limits: ReadLimits,
    /// Whether a model of points or lines alone (a point cloud, a drawing) is read; by default it
    /// is refused, as the tools that change meshes work on triangles.
    pub points_and_lines_alone: bool,
}

pub const SUPPORTED: &str = "glb, gltf (embedded buffers), obj, ply, stl, off";

/// The format from the file extension, trusting the content's magic where it is unambiguous.
pub fn detect_format(data: &[u8], extension: &str) -> Result<SourceFormat> {
    if glb::is_glb(data) {
        return Ok(SourceFormat::Glb);
    }
    match extension.trim_start_matches('.').to_ascii_lowercase().as_str() {
        "glb" => Ok(SourceFormat::Glb),
        "gltf" => Ok(SourceFormat::Gltf),
        "obj" => Ok(SourceFormat::Obj),
        "ply" => Ok(SourceFormat::Ply),
        "stl" => Ok(SourceFormat::Stl),
        "off" => Ok(SourceFormat::Off),
        other => Err(MeshError::unsupported(format!("files of type {other:?} are not 3D models this tool reads"), format!("Upload one of: {SUPPORTED}."))),
    }
}

pub fn read_model(data: &[u8], extension: &str, options: &ReadOptions) -> Result<Model> {
    let format = detect_format(data, extension)?;
    if data.is_empty() {
        return Err(MeshError::invalid("the file is empty"));
    }
    let mut model = match format {
        SourceFormat::Glb => {
            let (json, bin) = glb::split(data)?;
            gltf::read(json, bin, format, options)?
        }
        SourceFormat::Gltf => gltf::read(data, None, format, options)?,
        SourceFormat::Obj => obj::read(data, &options.limits)?,
        SourceFormat::Ply => ply::read(data, &options.limits)?,
        SourceFormat::Stl => stl::read(data, &options.limits)?,
        SourceFormat::Off => off::read(data, &options.limits)?,
    };
    sanitize::sanitize(&mut model, options.points_and_lines_alone)?;
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn a_point_cloud_is_refused_for_what_it_is() {
        let cloud = b"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n1 0 0\n0 1 0\n";
        let err = read_model(cloud, "ply", &ReadOptions::default()).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidMesh);
        assert!(err.message.contains("its 3 vertices are points or lines"), "{}", err.message);
        assert!(err.hint.contains("Poisson"), "{}", err.hint);
        // A file with nothing drawn at all says only that.
        let empty = b"ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\nend_header\n";
        assert_eq!(read_model(empty, "ply", &ReadOptions::default()).unwrap_err().message, "the model has no triangles");
    }
}
