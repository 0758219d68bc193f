//! optimize_3d_model: a gltfpack-style pipeline. Drop texture coordinates no material samples
//! (texcoord_sets.rs); per primitive: merge identical vertices, drop degenerate faces; per mesh,
//! optionally drop loose debris (debris.rs); per primitive, optionally simplify, reorder triangles for the post-transform vertex cache
//! (meshoptimizer, after Forsyth's linear-speed algorithm) and vertices for fetch locality; then
//! drop unused materials, textures and duplicate images, and write GLB with
//! KHR_mesh_quantization and EXT_meshopt_compression.
use super::{read_within, seconds, Input, OutputFile, ToolResult};
use crate::debris::{remove_debris, DebrisRemoved};
use crate::error::{MeshError, Result};
use crate::mesh_ops::{compact, weld_identical, without_degenerate};
use crate::prune::prune;
use crate::simplify::{extent_of, simplify_primitive};
use crate::texcoord_sets::drop_unsampled_texcoords;
use crate::write::{write_glb_counted, GlbOptions};
use serde_json::{json, Value};

/// Faces are counted as placed in the scene when true, as stored otherwise: it keeps instancing: a mesh used several times is processed once.
pub const COUNTS_PLACED_FACES: bool = false;
pub const MAX_FACES: usize = 2_000_000;
pub const MAX_BYTES: usize = 50 * 1024 * 1024;
/// Deviation allowed when optimize also simplifies, as a fraction of the mesh size.
const SIMPLIFY_ERROR: f32 = 0.01;
/// Largest `remove_debris` fraction: beyond half the area a piece is no longer debris.
const MAX_DEBRIS_FRACTION: f64 = 0.5;

pub fn run(input: &Input, options: &Value) -> Result<ToolResult> {
    let started = std::time::Instant::now();
    if input.data.len() > MAX_BYTES {
        return Err(MeshError::limit(
            format!("the file has {} bytes; this tool takes up to {MAX_BYTES}", input.data.len()),
            "Simplify or split the model first.",
        ));
    }
    let mut model = read_within(input, MAX_FACES, COUNTS_PLACED_FACES)?;
    let read_s = seconds(started);
    let flag = |key: &str| options.get(key).and_then(Value::as_bool).unwrap_or(true);
    let glb = GlbOptions { quantize: flag("quantize"), compress: flag("compress") };
    let ratio = options.get("simplify_ratio").and_then(Value::as_f64).unwrap_or(1.0);
    let debris_fraction = options.get("remove_debris").and_then(Value::as_f64).unwrap_or(0.0).clamp(0.0, MAX_DEBRIS_FRACTION);
    let before = json!({
        "bytes": input.data.len(),
        "faces": model.face_count(),
        "vertices": model.vertex_count(),
        "meshes": model.meshes.len(),
        "materials": model.materials.len(),
        "textures": model.textures.len(),
        "images": model.images.len(),
    });
    // Before welding, so vertices that only a dropped UV seam kept apart merge.
    let unsampled = drop_unsampled_texcoords(&mut model);
    if unsampled > 0 {
        model.notes.push(format!("Dropped {unsampled} texture-coordinate set(s) that no material texture samples."));
    }
    let mut debris = DebrisRemoved::default();
    for mesh in &mut model.meshes {
        let extent = extent_of(mesh.primitives.iter()).max(f32::MIN_POSITIVE);
        for p in &mut mesh.primitives {
            *p = weld_identical(p);
            p.indices = without_degenerate(&p.indices);
        }
        debris += remove_debris(mesh, debris_fraction);
        for p in &mut mesh.primitives {
            let mut welded = std::mem::take(p);
            if ratio < 1.0 {
                let target = ((welded.face_count() as f64 * ratio).round() as usize).max(1);
                welded = simplify_primitive(&welded, target, SIMPLIFY_ERROR * extent, true).primitive;
            }
            // The strip-friendly order (longer runs of shared edges) costs a little cache
            // efficiency but the index and vertex codecs compress it 10-25 % better.
            let cached = meshopt::optimize_vertex_cache_strip(&welded.indices, welded.positions.len());
            *p = compact(&welded, &cached);
        }
        mesh.primitives.retain(|p| !p.indices.is_empty());
    }
    if debris.pieces > 0 {
        model.notes.push(format!(
            "Removed {} loose piece(s) with {} faces, each under {}% of its mesh's surface area.",
            debris.pieces,
            debris.faces,
            debris_fraction * 100.0
        ));
    }
    prune(&mut model);
    let process_s = seconds(started) - read_s;
    // The writer welds vertices identical at output precision, so count what it wrote.
    let (data, written) = write_glb_counted(&model, &glb);
    let after = json!({
        "bytes": data.len(),
        "faces": written.faces,
        "vertices": written.vertices,
        "meshes": model.meshes.len(),
        "materials": model.materials.len(),
        "textures": model.textures.len(),
        "images": model.images.len(),
    });
    let mut extensions = Vec::new();
    if glb.quantize {
        extensions.push("KHR_mesh_quantization");
    }
    if glb.compress {
        extensions.push("EXT_meshopt_compression");
    }
    let summary = json!({
        "schema_version": 1,
        "input_bytes": input.data.len(),
        "output_bytes": data.len(),
        "size_ratio": (data.len() as f64 / input.data.len().max(1) as f64 * 1e4).round() / 1e4,
        "before": before,
        "after": after,
        "debris_removed": { "pieces": debris.pieces, "faces": debris.faces },
        "extensions": extensions,
        "notes": model.notes,
        "timings_s": { "read": read_s, "process": (process_s * 1e3).round() / 1e3, "total": seconds(started) },
    });
    Ok(ToolResult { summary, files: vec![OutputFile { name: format!("{}_optimized.glb", input.stem()), data }] })
}
