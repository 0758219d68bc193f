//! Writers: Model to GLB, OBJ, PLY or STL bytes.
mod anim_tracks;
mod codec_size;
mod compact_json;
mod exponential_filter;
mod glb;
mod instancing;
mod key_reduction;
mod key_storage;
mod material_json;
mod morph;
mod nodes;
mod obj;
mod ply;
mod quantize;
mod quaternion_filter;
mod skin;
mod stl;
mod texture_transform;
mod vertex_codec;
mod weld_quantized;

pub use glb::{write_glb, write_glb_counted, GlbOptions, Written};
pub use nodes::{decompose, Trs};
pub use obj::write_obj;
pub use ply::write_ply;
pub use stl::write_stl;
pub use weld_quantized::TriangleOrder;

use crate::error::{MeshError, Result};
use crate::model::Model;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Glb,
    Obj,
    Ply,
    Stl,
}

impl OutputFormat {
    pub fn parse(name: &str) -> Result<OutputFormat> {
        match name {
            "glb" | "gltf" => Ok(OutputFormat::Glb),
            "obj" => Ok(OutputFormat::Obj),
            "ply" => Ok(OutputFormat::Ply),
            "stl" => Ok(OutputFormat::Stl),
            other => Err(MeshError::unsupported(format!("cannot write {other:?} files"), "Choose glb, obj, ply or stl.")),
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Glb => "glb",
            OutputFormat::Obj => "obj",
            OutputFormat::Ply => "ply",
            OutputFormat::Stl => "stl",
        }
    }
}

/// `model` in `format`; a GLB's animation within `animation_error` when given (`GlbOptions`).
pub fn write(model: &Model, format: OutputFormat, animation_error: Option<f64>) -> Vec<u8> {
    match format {
        OutputFormat::Glb => write_glb(model, &GlbOptions { animation_error, ..GlbOptions::default() }),
        OutputFormat::Obj => write_obj(model),
        OutputFormat::Ply => write_ply(model),
        OutputFormat::Stl => write_stl(model),
    }
}
