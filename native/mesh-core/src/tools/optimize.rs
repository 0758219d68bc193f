//! optimize_3d_model: a gltfpack-style pipeline. Drop texture coordinates no material samples
//! (texcoord_sets.rs); per primitive: merge identical vertices, drop degenerate faces; per mesh,
//! optionally drop loose debris (debris.rs); per primitive, optionally simplify, reorder triangles for the post-transform vertex cache
//! (meshoptimizer, after Forsyth's linear-speed algorithm) and vertices for fetch locality; then
//! drop unused materials, textures and duplicate images, optionally re-encode and scale the images
//! (texture/mod.rs), and write GLB with
//! KHR_mesh_quantization and EXT_meshopt_compression.
use super::options::{check_range, parse, ANIMATION_ERROR};
use super::{read_within, seconds, Input, OutputFile, ToolResult};
use crate::debris::{remove_debris, DebrisRemoved};
use crate::error::Result;
use crate::flat_shading::{as_surface, is_flat_shaded, with_face_normals};
use crate::instancing::{instance_shared_meshes, instancing_note};
use crate::merge::merge_meshes;
use crate::merge_materials::{merge_equal_materials, merged_materials_note};
use crate::mesh_ops::{compact, is_compact, weld_identical, without_degenerate};
use crate::model::Primitive;
use crate::model_size::ModelSize;
use crate::prune::prune;
use crate::simplify::{simplify_primitive, simplify_shaped, target_for};
use crate::tangent_use::drop_unused_tangents;
use crate::texcoord_sets::drop_unsampled_texcoords;
use crate::texture::{process as process_textures, TextureMode, TextureOptions};
use crate::write::{write_glb_counted, GlbOptions, TriangleOrder};
use serde::Deserialize;
use serde_json::{json, Value};

/// Faces are counted as stored in the file: optimize keeps instancing, so a mesh used by several nodes is processed once.
pub const COUNTS_PLACED_FACES: bool = false;
/// Deviation allowed when optimize also simplifies, as a fraction of the model size (model_size.rs).
const SIMPLIFY_ERROR: f32 = 0.01;
/// position_bits the catalog accepts: gltfpack's -vp allows 1..=16, but under 10 bits a
/// vertex moves by a visible share of the model.
const POSITION_BITS: (u8, u8) = (10, 16);
/// Largest max_texture_size the catalog accepts (domain/tools/options/optimize_3d_model.ts).
const MAX_TEXTURE_SIZE: u32 = 8192;

/// The options as the service's catalog defines them (domain/tools/options/optimize_3d_model.ts).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimizeOptions {
    pub max_faces: usize,
    pub compress: bool,
    pub quantize: bool,
    /// With quantize: positions on 2^position_bits − 1 steps across the box of every mesh as stored
    /// (write/quantize.rs), as gltfpack's -vp.
    pub position_bits: u8,
    /// How far animated geometry may drift from its source motion, as a fraction of the scene's
    /// extent; null holds it to half a step of the position grid with quantize, and keeps every
    /// key without (write/anim_tracks.rs).
    #[serde(deserialize_with = "Option::deserialize")]
    pub animation_error: Option<f64>,
    /// Fraction of triangles to keep; 1 = no simplification.
    pub simplify_ratio: f64,
    /// Loose pieces below this fraction of their mesh's area are dropped; 0 = off.
    pub remove_debris: f64,
    /// keep, webp or ktx2; see texture/mod.rs.
    pub textures: TextureMode,
    /// Longest texture side in pixels, or null; present either way, since the catalog sends every option.
    #[serde(deserialize_with = "Option::deserialize")]
    pub max_texture_size: Option<u32>,
    /// Keep every node and mesh as they are; otherwise static meshes merge (merge.rs).
    pub keep_nodes: bool,
    /// Draw the static placements of a shared mesh through EXT_mesh_gpu_instancing (instancing.rs);
    /// keep_nodes wins over it.
    pub instancing: bool,
}

pub fn run(input: &Input, options: &Value) -> Result<ToolResult> {
    let started = std::time::Instant::now();
    let options: OptimizeOptions = parse("optimize", options)?;
    check_range("optimize", "simplify_ratio", options.simplify_ratio, f64::MIN_POSITIVE, 1.0)?;
    check_range("optimize", "remove_debris", options.remove_debris, 0.0, 1.0)?;
    check_range("optimize", "position_bits", f64::from(options.position_bits), f64::from(POSITION_BITS.0), f64::from(POSITION_BITS.1))?;
    if let Some(error) = options.animation_error {
        check_range("optimize", "animation_error", error, ANIMATION_ERROR.0, ANIMATION_ERROR.1)?;
    }
    if let Some(size) = options.max_texture_size {
        check_range("optimize", "max_texture_size", f64::from(size), 1.0, f64::from(MAX_TEXTURE_SIZE))?;
    }
    let mut model = read_within(input, options.max_faces, COUNTS_PLACED_FACES)?;
    model.release_source_json();
    let read_s = seconds(started);
    let glb = GlbOptions {
        quantize: options.quantize,
        compress: options.compress,
        position_bits: options.position_bits,
        animation_error: options.animation_error,
        triangle_order: TriangleOrder::Strip,
    };
    let ratio = options.simplify_ratio;
    let debris_fraction = options.remove_debris;
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
    let untangented = drop_unused_tangents(&mut model);
    if untangented > 0 {
        model.notes.push(format!("Dropped the tangents of {untangented} primitive(s) whose material has no normal map or anisotropy to shade with them."));
    }
    let mut debris = DebrisRemoved::default();
    for mesh in &mut model.meshes {
        for p in &mut mesh.primitives {
            *p = weld_identical(p);
            p.indices = without_degenerate(std::mem::take(&mut p.indices));
        }
        debris += remove_debris(mesh, debris_fraction);
    }
    // After debris removal, which judges a piece against its own mesh, not the merged scene.
    if !options.keep_nodes {
        let merged = merge_equal_materials(&mut model);
        model.notes.extend(merged_materials_note(merged));
        merge_meshes(&mut model);
    }
    match (options.instancing, options.keep_nodes) {
        (true, false) => {
            let instanced = instance_shared_meshes(&mut model);
            model.notes.extend(instancing_note(&instanced));
        }
        (true, true) => model.notes.push("instancing was not applied: keep_nodes keeps every node as it is.".into()),
        _ => {}
    }
    let mut flat_shaded = 0;
    // The bound is a share of the model's size, in each mesh's units (model_size.rs).
    let size = (ratio < 1.0).then(|| ModelSize::of(&model));
    for (index, mesh) in model.meshes.iter_mut().enumerate() {
        let bound = size.as_ref().map_or(0.0, |size| size.in_mesh(index, SIMPLIFY_ERROR));
        let shape = size.as_ref().and_then(|size| size.shape(index));
        let simplified = |p: &Primitive, target: usize| match shape {
            Some(shape) => simplify_shaped(p, shape, target, bound, true, &vec![false; p.positions.len()]).primitive,
            None => simplify_primitive(p, target, bound, true).primitive,
        };
        for p in &mut mesh.primitives {
            let mut welded = std::mem::take(p);
            if ratio < 1.0 {
                let target = target_for(welded.face_count(), ratio);
                // Flat-shaded primitives simplify as their surface and get their faces' normals back.
                welded = match is_flat_shaded(&welded) {
                    true => {
                        flat_shaded += 1;
                        with_face_normals(&simplified(&as_surface(&welded), target))
                    }
                    false => simplified(&welded, target),
                };
            }
            // Only the vertices the triangles use, for the writer's grids. The writer puts the
            // triangles in the strip-friendly order (longer runs of shared edges: a little cache
            // efficiency for 10-25 % better compression) once it has welded at output precision.
            // The weld above leaves most primitives compact already: no copy for those.
            *p = match is_compact(&welded) {
                true => welded,
                false => compact(&welded, &welded.indices),
            };
        }
        mesh.primitives.retain(|p| !p.indices.is_empty());
    }
    if flat_shaded > 0 {
        model.notes.push(super::simplify::FLAT_SHADING_NOTE.into());
    }
    if ratio < 1.0 && model.morph_target_count() > 0 {
        model.notes.push(super::simplify::MORPH_LOCK_NOTE.into());
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
    let texture_options = TextureOptions { mode: options.textures, max_size: options.max_texture_size };
    let textures = process_textures(&mut model, &texture_options)?;
    // Images re-encoded from the same pixels now have the same bytes: store them once.
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
    if model.nodes.iter().any(|n| !n.instances.is_empty()) {
        extensions.push("EXT_mesh_gpu_instancing");
    }
    for (mime_type, extension) in [("image/webp", "EXT_texture_webp"), ("image/ktx2", "KHR_texture_basisu")] {
        if model.images.iter().any(|i| i.mime_type == mime_type) {
            extensions.push(extension);
        }
    }
    let summary = json!({
        "schema_version": 1,
        "input_bytes": input.data.len(),
        "output_bytes": data.len(),
        "size_ratio": (data.len() as f64 / input.data.len().max(1) as f64 * 1e4).round() / 1e4,
        "before": before,
        "after": after,
        "textures": textures,
        "debris_removed": { "pieces": debris.pieces, "faces": debris.faces },
        "extensions": extensions,
        "notes": model.notes,
        "timings_s": { "read": read_s, "process": (process_s * 1e3).round() / 1e3, "total": seconds(started) },
    });
    Ok(ToolResult { summary, files: vec![OutputFile { name: format!("{}_optimized.glb", input.stem()), data }] })
}
