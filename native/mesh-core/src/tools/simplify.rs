//! simplify_3d_model: reduces every primitive to the target share of faces within an error bound
//! measured as a fraction of the model size (model_size.rs), and writes the result in the input's format.
//! Before simplifying, like optimize: texture-coordinate sets no material samples go, and per
//! primitive bit-identical vertices merge and faces repeating a corner go. A duplicated vertex
//! (e.g. the seam column of a UV sphere without UVs) would otherwise look like an attribute seam
//! to the simplifier and pin its edges in place, and would be written twice; so would copies whose
//! normals differ only by noise (weld_normals.rs).
use super::options::{check_range, parse, ANIMATION_ERROR};
use super::{read_within, seconds, Input, OutputFile, ToolResult};
use crate::error::{MeshError, Result};
use crate::flat_shading::{as_surface, is_flat_shaded, with_face_normals};
use crate::in_parallel;
use crate::merge::merge_meshes;
use crate::merge_materials::{merge_equal_materials, merged_materials_note};
use crate::mesh_ops::{weld_identical, without_degenerate};
use crate::model::{Primitive, SourceFormat};
use crate::model_size::ModelSize;
use crate::prune::prune;
use crate::simplify::{attribute_room, simplify_primitive_with_locks, simplify_shaped, target_for};
use crate::skin_poses::{add_pose_attributes, remove_pose_attributes};
use crate::stitch::shared_positions;
use crate::tangent_use::drop_unused_tangents;
use crate::texcoord_sets::drop_unsampled_texcoords;
use crate::weld_normals::weld_near_normals;
use crate::write::{write, OutputFormat};
use serde::Deserialize;
use serde_json::{json, Value};

/// Said when a simplified model has morph targets (see simplify.rs for why they lock vertices).
pub const MORPH_LOCK_NOTE: &str =
    "Vertices that move in the model's morph targets were kept in place so that every pose keeps its shape; only still regions were simplified.";

/// Said when skinned meshes were simplified in their animations' poses too (skin_poses.rs).
pub const SKIN_POSES_NOTE: &str = "Skinned meshes were simplified as their animations pose them (8 moments) as well as at rest, so bends keep their shape; max_error holds at rest and in those poses.";

/// Said when flat-shaded primitives were simplified as their surface (flat_shading.rs).
pub const FLAT_SHADING_NOTE: &str = "Flat-shaded primitives (each face's corners carrying that face's normal) were simplified as their surface, so facets could merge across the edges their normals split, and their faces were given their own normals again: they stay flat shaded.";

/// Faces of a model from which its primitives are simplified side by side: about 1.5 µs a face
/// (the collapse, its measure and any search; CesiumMilkTruck's 2,856 faces take 4.5 ms), against
/// tens of microseconds to start and join a thread.
const FACES_WORTH_THREADS: usize = 1_000;

/// Vertices of a model from which its primitives are welded side by side (`welded_surface`: about
/// 100 ns a vertex, against tens of microseconds to start and join a thread).
const VERTICES_WORTH_THREADS: usize = 10_000;

/// Faces are counted as stored in the file: simplify keeps instancing, so a mesh used by several nodes is processed once.
pub const COUNTS_PLACED_FACES: bool = false;

/// The options as the service's catalog defines them (domain/tools/options/simplify_3d_model.ts),
/// with exactly one of `target_ratio` and `target_faces` given.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimplifyOptions {
    pub max_faces: usize,
    #[serde(default)]
    pub target_ratio: Option<f64>,
    #[serde(default)]
    pub target_faces: Option<u64>,
    /// Largest deviation as a fraction of the model size, in every mesh (model_size.rs).
    pub max_error: f64,
    pub lock_border: bool,
    /// "same", "glb", "obj", "ply" or "stl".
    pub format: String,
    /// Keep every node and mesh as they are; otherwise static meshes merge first (merge.rs).
    pub keep_nodes: bool,
    /// How far animated geometry may drift from its source motion (a fraction of the scene's
    /// extent); null keeps every key as it is.
    #[serde(deserialize_with = "Option::deserialize")]
    pub animation_error: Option<f64>,
}

/// `p` welded for the simplifier, and whether it is flat shaded: then as its surface alone, else
/// with bit-identical vertices and near normals merged; either way without faces that repeat a
/// corner. Flat shading is judged before near normals merge: on a fine flat-shaded surface
/// neighbouring faces' normals are within a degree, and merging them would leave it neither flat
/// nor smooth. It is judged face by face on the corners' values, so before any weld: a flat-shaded
/// primitive is welded once, as its surface (hard-surface: 3 welds a primitive were 17 % of its
/// simplify's instructions).
fn welded_surface(p: &Primitive) -> (Primitive, bool) {
    let is_flat = is_flat_shaded(p);
    let mut welded = if is_flat { as_surface(p) } else { weld_near_normals(weld_identical(p)) };
    welded.indices = without_degenerate(std::mem::take(&mut welded.indices));
    (welded, is_flat)
}

pub fn output_format(requested: &str, source: SourceFormat) -> Result<(OutputFormat, Option<String>)> {
    if requested != "same" {
        return Ok((OutputFormat::parse(requested)?, None));
    }
    Ok(match source {
        SourceFormat::Glb | SourceFormat::Gltf => (OutputFormat::Glb, None),
        SourceFormat::Obj => (OutputFormat::Obj, None),
        SourceFormat::Ply => (OutputFormat::Ply, None),
        SourceFormat::Stl => (OutputFormat::Stl, None),
        SourceFormat::Off => (OutputFormat::Ply, Some("OFF is not written; the result is PLY.".into())),
    })
}

pub fn run(input: &Input, options: &Value) -> Result<ToolResult> {
    let started = std::time::Instant::now();
    let options: SimplifyOptions = parse("simplify", options)?;
    check_range("simplify", "max_error", options.max_error, 0.0, 1.0)?;
    if let Some(error) = options.animation_error {
        check_range("simplify", "animation_error", error, ANIMATION_ERROR.0, ANIMATION_ERROR.1)?;
    }
    let mut model = read_within(input, options.max_faces, COUNTS_PLACED_FACES)?;
    model.release_source_json();
    let faces_in = model.face_count();
    let vertices_in = model.vertex_count();
    let ratio = match (options.target_faces, options.target_ratio) {
        (Some(faces), None) => (faces as f64 / faces_in as f64).min(1.0),
        (None, Some(r)) => {
            check_range("simplify", "target_ratio", r, f64::MIN_POSITIVE, 1.0)?;
            r
        }
        _ => return Err(MeshError::options("simplify options: give exactly one of target_ratio and target_faces")),
    };
    let target_faces = target_for(faces_in, ratio);
    let max_error = options.max_error as f32;
    // Open borders are part of the shape and held to the same error bound as the rest, as in
    // gltfpack and glTF-Transform; only where primitives of a mesh meet do they stay in place.
    let lock_border = options.lock_border;
    let (format, format_note) = output_format(&options.format, model.format)?;

    // Before welding, so vertices that only an unsampled UV set kept apart merge.
    let unsampled = drop_unsampled_texcoords(&mut model);
    if unsampled > 0 {
        model.notes.push(format!("Dropped {unsampled} texture-coordinate set(s) that no material texture samples."));
    }
    let untangented = drop_unused_tangents(&mut model);
    if untangented > 0 {
        model.notes.push(format!("Dropped the tangents of {untangented} primitive(s) whose material has no normal map or anisotropy to shade with them."));
    }
    // Before simplifying, so the error bound is a share of the merged scene's size and the parts
    // of one material simplify as one surface, as gltfpack does.
    if !options.keep_nodes {
        let merged = merge_equal_materials(&mut model);
        if merged > 0 {
            model.notes.extend(merged_materials_note(merged));
            prune(&mut model);
        }
        merge_meshes(&mut model);
    }
    let mut worst_error = 0.0f32;
    // Flat-shaded primitives go to the simplifier as their surface alone and get their faces'
    // normals back after (flat_shading.rs); `flat` says which, in the order of the meshes' primitives.
    // The primitives over the cores where there are enough vertices; one at a time otherwise, each
    // replaced as it is welded (no second copy of the whole model).
    let vertices: usize = model.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.positions.len()).sum();
    let primitive_count = model.meshes.iter().map(|m| m.primitives.len()).sum::<usize>();
    let flat: Vec<bool> = if primitive_count > 1 && vertices >= VERTICES_WORTH_THREADS {
        let sources: Vec<&Primitive> = model.meshes.iter().flat_map(|m| &m.primitives).collect();
        let (welded, flat): (Vec<Primitive>, Vec<bool>) = in_parallel::map(&sources, true, |&p| welded_surface(p)).into_iter().unzip();
        model.meshes.iter_mut().flat_map(|m| &mut m.primitives).zip(welded).for_each(|(p, welded)| *p = welded);
        flat
    } else {
        model
            .meshes
            .iter_mut()
            .flat_map(|m| &mut m.primitives)
            .map(|p| {
                let (welded, is_flat) = welded_surface(p);
                *p = welded;
                is_flat
            })
            .collect()
    };
    if flat.contains(&true) {
        model.notes.push(FLAT_SHADING_NOTE.into());
    }
    // Skinned meshes are simplified in the poses their animations take too (skin_poses.rs).
    if add_pose_attributes(&mut model, attribute_room) > 0 {
        model.notes.push(SKIN_POSES_NOTE.into());
    }
    let size = ModelSize::of(&model);
    // Every primitive of every mesh over the machine's cores when there is enough to do: each
    // search of a skinned or surface primitive leaves a core idle while its first collapse is made
    // and measured, and a model of many small meshes (a vehicle's body, wheels and windows) has
    // more to share than any one of them.
    let shared: Vec<Vec<Vec<bool>>> = model.meshes.iter().map(|m| shared_positions(&m.primitives)).collect();
    let primitives: Vec<(usize, &Primitive, &Vec<bool>, bool)> = model
        .meshes
        .iter()
        .zip(&shared)
        .enumerate()
        .flat_map(|(index, (mesh, shared))| mesh.primitives.iter().zip(shared).map(move |(p, locks)| (index, p, locks)))
        .zip(flat)
        .map(|((index, p, locks), flat)| (index, p, locks, flat))
        .collect();
    let faces: usize = primitives.iter().map(|(_, p, _, _)| p.face_count()).sum();
    let simplified = in_parallel::map(&primitives, primitives.len() > 1 && faces >= FACES_WORTH_THREADS, |&(index, p, locks, flat)| {
        // max_error is a share of the model's size, in each mesh's units where the scene places it
        // (model_size.rs): a part placed at a small scale, or placed twice, is held to the model's
        // bound like the rest, not to a share of the part alone.
        let bound = size.in_mesh(index, max_error);
        let target = target_for(p.face_count(), ratio);
        let s = match size.shape(index) {
            Some(shape) => simplify_shaped(p, shape, target, bound, lock_border, locks),
            None => simplify_primitive_with_locks(p, target, bound, lock_border, locks),
        };
        (if flat { with_face_normals(&s.primitive) } else { s.primitive }, size.share(index, s.error))
    });
    let mut simplified = simplified.into_iter();
    for mesh in &mut model.meshes {
        for (p, (s, error)) in mesh.primitives.iter_mut().zip(simplified.by_ref()) {
            *p = s;
            worst_error = worst_error.max(error);
        }
        mesh.primitives.retain(|p| !p.indices.is_empty());
    }
    remove_pose_attributes(&mut model);
    if model.morph_target_count() > 0 {
        model.notes.push(MORPH_LOCK_NOTE.into());
    }
    let faces_out = model.face_count();
    let reached = faces_out <= target_faces;
    let mut notes = model.notes.clone();
    if !reached {
        notes.push(format!(
            "Target of {target_faces} faces not reached: stopped at {faces_out} faces, where further collapses would exceed max_error {max_error} (or would move locked borders and seams). Raise max_error to go further."
        ));
    }
    notes.extend(format_note);
    if format != OutputFormat::Glb {
        let output = format!("{} output", format.extension().to_uppercase());
        notes.extend(model.static_output_note(&output));
        notes.extend(model.lines_and_points_note(&output));
    } else if model.meshes.iter().any(|m| !m.lines_and_points.is_empty()) {
        notes.push("Point and line primitives were kept as they are: simplification reduces triangles.".into());
    }
    let data = write(&model, format, options.animation_error);
    let name = format!("{}_simplified.{}", input.stem(), format.extension());
    let summary = json!({
        "schema_version": 1,
        "input_faces": faces_in,
        "output_faces": faces_out,
        "target_faces": target_faces,
        "target_reached": reached,
        "input_vertices": vertices_in,
        "output_vertices": model.vertex_count(),
        "error": (worst_error as f64 * 1e6).round() / 1e6,
        "max_error": max_error,
        "format": format.extension(),
        "notes": notes,
        "timings_s": { "total": seconds(started) },
    });
    Ok(ToolResult { summary, files: vec![OutputFile { name, data }] })
}
