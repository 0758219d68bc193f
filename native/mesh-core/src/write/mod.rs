//! Writers: Model to GLB, OBJ or PLY bytes.
mod glb;
mod obj;
mod ply;

pub use glb::{write_glb, GlbOptions};
pub use obj::write_obj;
pub use ply::write_ply;

use crate::error::{MeshError, Result};
use crate::model::Model;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Glb,
    Obj,
    Ply,
}

impl OutputFormat {
    pub fn parse(name: &str) -> Result<OutputFormat> {
        match name {
            "glb" | "gltf" => Ok(OutputFormat::Glb),
            "obj" => Ok(OutputFormat::Obj),
            "ply" => Ok(OutputFormat::Ply),
            other => Err(MeshError::unsupported(format!("cannot write {other:?} files"), "Choose glb, obj or ply.")),
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Glb => "glb",
            OutputFormat::Obj => "obj",
            OutputFormat::Ply => "ply",
        }
    }
}

pub fn write(model: &Model, format: OutputFormat) -> Vec<u8> {
    match format {
        OutputFormat::Glb => write_glb(model, &GlbOptions::default()),
        OutputFormat::Obj => write_obj(model),
        OutputFormat::Ply => write_ply(model),
    }
}
