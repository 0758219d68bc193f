//! The four mesh tools. Each takes the input bytes and JSON options and returns a summary (the
//! spec's result fields) plus the files to publish.
pub mod guarded;
pub mod inspect;
pub mod optimize;
pub mod options;
pub mod simplify;
pub mod split;

use crate::error::{MeshError, Result};
use crate::read::{read_model, ReadLimits, ReadOptions};
use crate::Model;
use serde_json::Value;

pub struct OutputFile {
    pub name: String,
    pub data: Vec<u8>,
}

pub struct ToolResult {
    pub summary: Value,
    pub files: Vec<OutputFile>,
}

/// What a tool needs to know about its input file.
pub struct Input<'a> {
    pub data: &'a [u8],
    /// Original file name, e.g. "chair.glb".
    pub name: &'a str,
    pub extension: &'a str,
    pub read: ReadOptions,
}

impl Input<'_> {
    /// The file name without its extension, safe to use inside output names.
    pub fn stem(&self) -> String {
        let base = self.name.rsplit(['/', '\\']).next().unwrap_or(self.name);
        let stem = base.rsplit_once('.').map_or(base, |(s, _)| s);
        let clean: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
        if clean.is_empty() {
            "model".into()
        } else {
            clean
        }
    }
}

/// Reads the model and refuses it when it has more faces than `max_faces`: first from what the
/// file declares, before anything is decoded, then from what was read. `placed` counts faces as
/// placed in the scene (for tools that bake every instance), otherwise as stored.
pub fn read_within(input: &Input, max_faces: usize, placed: bool) -> Result<Model> {
    read_drawing_within(input, max_faces, placed, false)
}

/// As `read_within`; a model of points or lines alone is read too where `points_and_lines_alone`.
pub fn read_drawing_within(input: &Input, max_faces: usize, placed: bool, points_and_lines_alone: bool) -> Result<Model> {
    let read = ReadOptions { limits: ReadLimits { max_faces, placed }, points_and_lines_alone, ..input.read.clone() };
    let model = read_model(input.data, input.extension, &read)?;
    check_limit(if placed { model.placed_face_count() } else { model.face_count() }, max_faces)?;
    Ok(model)
}

pub fn check_limit(faces: usize, max_faces: usize) -> Result<()> {
    if faces > max_faces {
        return Err(MeshError::limit(
            format!("the model has {faces} faces; this tool takes up to {max_faces}"),
            "Simplify the model first (simplify_3d_model), or split it and send the parts one by one.",
        ));
    }
    Ok(())
}

/// The pricing measure: triangles as the tool counts them (placed in the scene for tools that
/// bake instances, stored in the file for the others), or a limit error beyond `max_faces`; a
/// model of points or lines alone measures 0 where the tool reads `drawings`, else is refused.
pub fn measure(input: &Input, max_faces: usize, placed: bool, drawings: bool) -> Result<usize> {
    let model = read_drawing_within(input, max_faces, placed, drawings)?;
    Ok(if placed { model.placed_face_count() } else { model.face_count() })
}

/// Whether the named tool takes a model of points or lines alone (only inspect does).
pub fn reads_drawings(tool: &str) -> bool {
    tool == "inspect" && inspect::READS_DRAWINGS
}

/// Whether the named tool counts faces as placed in the scene; None for an unknown tool.
pub fn counts_placed_faces(tool: &str) -> Option<bool> {
    Some(match tool {
        "inspect" => inspect::COUNTS_PLACED_FACES,
        "simplify" => simplify::COUNTS_PLACED_FACES,
        "optimize" => optimize::COUNTS_PLACED_FACES,
        "split" => split::COUNTS_PLACED_FACES,
        _ => return None,
    })
}

pub fn seconds(since: std::time::Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1000.0).round() / 1000.0
}
