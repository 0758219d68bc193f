//! split_3d_model: one file per part plus a zip of them all. Loose pieces come first; with
//! `segmented` each piece is also cut into meaningful regions by segment-core. Parts below
//! `min_part_faces` / `min_part_area` (or the floor `detail` implies) merge into their nearest
//! neighbour, and the smallest merge until `max_parts` holds.
use super::options::{check_range, parse};
use super::{read_within, seconds, Input, OutputFile, ToolResult};
use crate::archive::zip_files;
use crate::bake::bake;
use crate::error::{ErrorCode, MeshError, Result};
use crate::math::Bounds;
use crate::mesh_ops::compact;
use crate::model::{Mesh, Model, SourceFormat};
use crate::prune::prune;
use crate::split::{consolidate, face_set, faces_to_drop, pieces, signed_volume, weld, FaceSet, Part, Preprocess};
use crate::topology::analyze;
use crate::write::{write, OutputFormat};
use segment_core::{Detail, SegmentParams};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Faces are counted as placed in the scene: split bakes every instance into the parts.
pub const COUNTS_PLACED_FACES: bool = true;
pub const MAX_ZIP_BYTES: usize = 100 * 1024 * 1024;
/// Pieces smaller than this are not worth segmenting.
const SEGMENT_MIN_FACES: usize = 64;

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DetailOption {
    Low,
    Medium,
    High,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PreprocessOption {
    Auto,
    On,
    Off,
}

/// The options as the service's catalog defines them (domain/tools/options/split_3d_model.ts),
/// with the defaults that depend on other options (min_part_area from detail) already resolved.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitOptions {
    pub max_faces: usize,
    pub detail: DetailOption,
    pub max_parts: usize,
    pub min_part_faces: usize,
    /// Fraction of the total area.
    pub min_part_area: f64,
    /// "glb", "obj" or "ply".
    pub format: String,
    pub preprocess: PreprocessOption,
    pub segmented: bool,
    /// Grams per cubic centimetre, for per-part masses; absent for none.
    #[serde(default)]
    pub density: Option<f64>,
}

struct Settings {
    detail: Detail,
    max_parts: usize,
    min_part_faces: usize,
    /// Fraction of the total area.
    min_part_area: f64,
    format: OutputFormat,
    preprocess: Preprocess,
    segmented: bool,
    density: Option<f64>,
}

fn settings(options: &SplitOptions) -> Result<Settings> {
    if options.max_parts == 0 {
        return Err(MeshError::options("split options: max_parts must be at least 1"));
    }
    check_range("split", "min_part_area", options.min_part_area, 0.0, 1.0)?;
    if let Some(d) = options.density {
        check_range("split", "density", d, f64::MIN_POSITIVE, f64::MAX)?;
    }
    Ok(Settings {
        detail: match options.detail {
            DetailOption::Low => Detail::Low,
            DetailOption::Medium => Detail::Medium,
            DetailOption::High => Detail::High,
        },
        max_parts: options.max_parts,
        min_part_faces: options.min_part_faces,
        min_part_area: options.min_part_area,
        format: OutputFormat::parse(&options.format)?,
        preprocess: match options.preprocess {
            PreprocessOption::Auto => Preprocess::Auto,
            PreprocessOption::On => Preprocess::On,
            PreprocessOption::Off => Preprocess::Off,
        },
        segmented: options.segmented,
        density: options.density,
    })
}

/// Cuts one loose piece with the segmentation core; returns its faces grouped by segment.
fn segment_piece(set: &FaceSet, welded: &[u32], faces: &[u32], s: &Settings, piece_share: f64) -> Vec<Vec<u32>> {
    let mut local: BTreeMap<u32, u32> = BTreeMap::new();
    let mut positions = Vec::new();
    let triangles: Vec<[u32; 3]> = faces
        .iter()
        .map(|&f| {
            set.faces[f as usize].map(|v| {
                let w = welded[v as usize];
                *local.entry(w).or_insert_with(|| {
                    positions.push(set.positions[w as usize]);
                    positions.len() as u32 - 1
                })
            })
        })
        .collect();
    let params = SegmentParams {
        detail: s.detail,
        max_parts: s.max_parts,
        min_part_faces: s.min_part_faces,
        min_part_area: (s.min_part_area / piece_share.max(1e-12)).min(0.99),
    };
    let labels = segment_core::segment(&positions, &triangles, &params);
    let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (&f, &label) in faces.iter().zip(labels.iter().chain(std::iter::repeat(&0))) {
        groups.entry(label).or_default().push(f);
    }
    groups.into_values().collect()
}

fn part_of(set: &FaceSet, faces: Vec<u32>, object_of_primitive: &[u32]) -> Part {
    let mut bounds = Bounds::empty();
    for &f in &faces {
        set.faces[f as usize].iter().for_each(|&v| bounds.add(set.positions[v as usize]));
    }
    Part {
        object: object_of_primitive[set.primitive_of_face[faces[0] as usize] as usize] as usize,
        area: faces.iter().map(|&f| set.area[f as usize] as f64).sum(),
        faces,
        bounds,
    }
}

/// The failure for a model with nothing to split: every face has zero area or repeats a corner.
fn all_degenerate(faces: usize) -> MeshError {
    MeshError {
        code: ErrorCode::InvalidMesh,
        message: format!("all {faces} faces of the model are degenerate (zero area or a repeated corner), so there is no part to export"),
        hint: "Re-export the model with its real geometry (check the export scale and that the mesh was not collapsed to a point or a line), or run inspect_3d_model to see its degenerate faces.".into(),
    }
}

pub fn run(input: &Input, options: &Value) -> Result<ToolResult> {
    let started = std::time::Instant::now();
    let options: SplitOptions = parse("split", options)?;
    let s = settings(&options)?;
    let mut model = read_within(input, options.max_faces, COUNTS_PLACED_FACES)?;
    // Each part's model carries a copy of it.
    model.release_source_json();
    let read_s = seconds(started);
    let objects = bake(&model);
    let primitives: Vec<&crate::model::Primitive> = objects.iter().flat_map(|o| &o.primitives).collect();
    let object_of_primitive: Vec<u32> = objects.iter().enumerate().flat_map(|(i, o)| std::iter::repeat_n(i as u32, o.primitives.len())).collect();
    let set = face_set(&objects);
    // Checked before welding too, so preprocess "off" cannot export parts of nothing.
    if set.area.iter().all(|&a| a == 0.0) {
        return Err(all_degenerate(set.faces.len()));
    }
    let extent = Bounds::of(&set.positions).extent();
    let welded = weld(&set, s.preprocess, extent);
    let dropped = faces_to_drop(&set, &welded, s.preprocess);
    let (labels, piece_count) = pieces(&set, &welded, &dropped);
    let mut by_piece: Vec<Vec<u32>> = vec![Vec::new(); piece_count];
    for (f, &l) in labels.iter().enumerate() {
        if l != u32::MAX {
            by_piece[l as usize].push(f as u32);
        }
    }
    let total_area: f64 = set.area.iter().map(|&a| a as f64).sum::<f64>().max(f64::MIN_POSITIVE);

    let segment_started = std::time::Instant::now();
    let mut parts: Vec<Part> = Vec::new();
    let mut segmented_pieces = 0;
    for faces in by_piece {
        let share = faces.iter().map(|&f| set.area[f as usize] as f64).sum::<f64>() / total_area;
        let groups = if s.segmented && faces.len() >= SEGMENT_MIN_FACES { segment_piece(&set, &welded, &faces, &s, share) } else { vec![faces] };
        segmented_pieces += usize::from(groups.len() > 1);
        parts.extend(groups.into_iter().filter(|g| !g.is_empty()).map(|g| part_of(&set, g, &object_of_primitive)));
    }
    if parts.is_empty() {
        return Err(all_degenerate(set.faces.len()));
    }
    let found = parts.len();
    let merged = consolidate(&mut parts, s.min_part_faces, s.min_part_area * total_area, s.max_parts);
    parts.sort_by(|a, b| b.area.total_cmp(&a.area));
    let segment_s = seconds(segment_started);

    let write_started = std::time::Instant::now();
    let stem = input.stem();
    let mut files: Vec<OutputFile> = Vec::new();
    let mut manifest = Vec::new();
    // glTF is in metres; the other formats are assumed to be in millimetres (3D printing).
    let cm3_per_unit3 = if matches!(model.format, SourceFormat::Glb | SourceFormat::Gltf) { 1e6 } else { 1e-3 };
    for (n, part) in parts.iter().enumerate() {
        let mut by_primitive: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for &f in &part.faces {
            let pi = set.primitive_of_face[f as usize];
            let lf = set.local_face[f as usize] as usize;
            by_primitive.entry(pi).or_default().extend_from_slice(&primitives[pi as usize].indices[lf * 3..lf * 3 + 3]);
        }
        let name = objects[part.object].name.clone().map_or_else(|| format!("part_{:02}", n + 1), |o| format!("{o}_{:02}", n + 1));
        let mut part_model = Model::new(model.format);
        part_model.push_root_mesh(Mesh {
            name: Some(name.clone()),
            primitives: by_primitive.iter().map(|(&pi, idx)| compact(primitives[pi as usize], idx)).collect(),
            ..Default::default()
        });
        part_model.materials = model.materials.clone();
        part_model.variants = model.variants.clone();
        part_model.textures = model.textures.clone();
        part_model.samplers = model.samplers.clone();
        part_model.images = model.images.clone();
        part_model.gltf_json = model.gltf_json.clone();
        prune(&mut part_model);
        let file = format!("parts/{stem}_part_{:02}.{}", n + 1, s.format.extension());
        let volume = signed_volume(&set.positions, part.faces.iter().map(|&f| set.faces[f as usize])).abs();
        let p = &part_model.meshes[0].primitives;
        let watertight = {
            let merged_positions: Vec<[f32; 3]> = p.iter().flat_map(|q| q.positions.iter().copied()).collect();
            let mut base = 0u32;
            let merged_indices: Vec<u32> = p
                .iter()
                .flat_map(|q| {
                    let b = base;
                    base += q.positions.len() as u32;
                    q.indices.iter().map(move |&i| i + b)
                })
                .collect();
            analyze(&merged_positions, &merged_indices).watertight()
        };
        let mut entry = json!({
            "file": file,
            "name": name,
            "faces": part.faces.len(),
            "area": part.area,
            "bounds": { "min": part.bounds.min, "max": part.bounds.max },
            "watertight": watertight,
            "volume_cm3": volume * cm3_per_unit3,
        });
        if let Some(d) = s.density {
            entry["mass_g"] = json!(volume * cm3_per_unit3 * d);
        }
        manifest.push(entry);
        files.push(OutputFile { name: file, data: write(&part_model, s.format, None) });
    }
    let exported: usize = parts.iter().map(|p| p.faces.len()).sum();
    let mut notes = model.notes.clone();
    notes.extend(model.static_output_note("the parts"));
    notes.extend(model.lines_and_points_note("the parts"));
    let dropped_count = dropped.iter().filter(|&&d| d).count();
    if dropped_count > 0 {
        notes.push(format!("{dropped_count} degenerate or repeated face(s) were removed by preprocessing."));
    }
    // Faces are counted as placed in the scene, on both sides: exported + dropped = input.
    let input_faces = model.placed_face_count();
    if input_faces > model.face_count() {
        notes.push("Meshes used more than once in the scene were exported once per use; input_faces counts them the same way.".into());
    }
    notes.push(format!(
        "{piece_count} loose piece(s){}; {found} candidate part(s), {merged} merged into neighbours (size floor or max_parts {}).",
        if s.segmented { format!(", {segmented_pieces} cut further by segmentation") } else { String::new() },
        s.max_parts
    ));
    if s.density.is_some() {
        notes.push("Masses in parts.json assume metres for glTF input and millimetres otherwise, and are meaningful for watertight parts.".into());
    }
    let manifest_json = serde_json::to_vec_pretty(&json!({ "schema_version": 1, "source": input.name, "parts": manifest })).expect("plain JSON");
    files.push(OutputFile { name: "parts.json".into(), data: manifest_json });
    let total: usize = files.iter().map(|f| f.data.len()).sum();
    if total <= MAX_ZIP_BYTES {
        let zip = zip_files(files.iter().map(|f| (f.name.as_str(), f.data.as_slice())));
        files.push(OutputFile { name: format!("{stem}_parts.zip"), data: zip });
    } else {
        notes.push(format!("The zip of all parts was left out: the parts total {total} bytes, above the 100 MB limit."));
    }
    let summary = json!({
        "schema_version": 1,
        "part_count": parts.len(),
        "input_faces": input_faces,
        "exported_faces": exported,
        "notes": notes,
        "timings_s": { "read": read_s, "segment": segment_s, "write": seconds(write_started), "total": seconds(started) },
    });
    Ok(ToolResult { summary, files })
}
