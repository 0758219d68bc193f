//! One pass over every freshly read model so tools and writers can trust it: indices in range,
//! finite positions, unit normals and tangents, colours in [0, 1], no empty primitives, at least one
//! triangle (or, where the caller reads drawings, a point or a line).
use crate::error::{MeshError, Result};
use crate::math::normalize;
use crate::model::{Model, Primitive};

/// `points_and_lines_alone`: whether a model without triangles but with points or lines is kept.
pub fn sanitize(model: &mut Model, points_and_lines_alone: bool) -> Result<()> {
    let (mut dropped_faces, mut fixed_values) = (0usize, 0usize);
    // Vertices drawn as points or lines, or given without faces (a PLY of vertices alone).
    let mut unfilled_vertices = 0usize;
    let material_count = model.materials.len();
    let variant_count = model.variants.len();
    for mesh in &mut model.meshes {
        for primitive in &mut mesh.primitives {
            let n = primitive.positions.len() as u32;
            if primitive.indices.iter().any(|&i| i >= n) {
                return Err(MeshError::invalid("a face refers to a vertex that does not exist (index out of range)"));
            }
            dropped_faces += drop_non_finite(primitive, 3);
            fixed_values += fix_attributes(primitive);
            known_materials(primitive, material_count, variant_count);
        }
        unfilled_vertices += mesh.primitives.iter().filter(|p| p.indices.is_empty()).map(|p| p.positions.len()).sum::<usize>();
        mesh.primitives.retain(|p| !p.indices.is_empty());
        unfilled_vertices += mesh.lines_and_points.iter().map(|l| l.primitive.positions.len()).sum::<usize>();
        for lines in &mut mesh.lines_and_points {
            let primitive = &mut lines.primitive;
            let n = primitive.positions.len() as u32;
            if primitive.indices.iter().any(|&i| i >= n) {
                return Err(MeshError::invalid("a point or line refers to a vertex that does not exist (index out of range)"));
            }
            drop_non_finite(primitive, lines.mode.arity());
            fixed_values += fix_attributes(primitive);
            known_materials(primitive, material_count, variant_count);
        }
        mesh.lines_and_points.retain(|l| !l.primitive.indices.is_empty());
    }
    let fixed_skinning = super::skin::fix_skin_attributes(model);
    drop_empty_meshes(model);
    let drawn = model.meshes.iter().any(|m| !m.lines_and_points.is_empty());
    if model.face_count() == 0 && !(points_and_lines_alone && drawn) {
        return Err(no_triangles(dropped_faces, unfilled_vertices));
    }
    if dropped_faces > 0 {
        model.notes.push(format!("{dropped_faces} face(s) with infinite or NaN coordinates were removed."));
    }
    if fixed_values > 0 {
        model.notes.push(format!("{fixed_values} invalid normal, texture or colour value(s) were repaired."));
    }
    if fixed_skinning > 0 {
        model.notes.push(format!("{fixed_skinning} invalid joint or weight value(s) were repaired."));
    }
    Ok(())
}

/// Why a model without triangles is refused: its faces all had a coordinate that is not finite,
/// or it holds only points or lines, or nothing at all.
fn no_triangles(dropped_faces: usize, unfilled_vertices: usize) -> MeshError {
    if dropped_faces > 0 {
        return MeshError::invalid("every face has an infinite or NaN coordinate");
    }
    if unfilled_vertices > 0 {
        return MeshError {
            hint: "Reconstruct a surface from the points first (for example Poisson reconstruction in MeshLab or CloudCompare), or upload a model with faces.".into(),
            ..MeshError::invalid(format!("the model has no triangles: its {unfilled_vertices} vertices are points or lines (a point cloud or a drawing), and the mesh tools work on triangles"))
        };
    }
    MeshError::invalid("the model has no triangles")
}

/// Drops the faces (`arity` 3), lines (2) or points (1) with a corner whose position is not
/// finite; answers how many went.
fn drop_non_finite(primitive: &mut Primitive, arity: usize) -> usize {
    // Nearly every model is finite throughout: settle that without a flag per vertex.
    if primitive.positions.iter().flatten().all(|c| c.is_finite()) {
        return 0;
    }
    let bad: Vec<bool> = primitive.positions.iter().map(|p| !p.iter().all(|c| c.is_finite())).collect();
    if !bad.contains(&true) {
        return 0;
    }
    let before = primitive.indices.len();
    let kept: Vec<u32> = primitive.indices.chunks_exact(arity).filter(|t| !t.iter().any(|&i| bad[i as usize])).flatten().copied().collect();
    for (p, &b) in primitive.positions.iter_mut().zip(&bad) {
        if b {
            *p = [0.0; 3];
        }
    }
    primitive.indices = kept;
    (before - primitive.indices.len()) / arity
}

/// The primitive's material and variant mappings, without those naming a material or variant the
/// file does not have, and with each variant in the first mapping that names it only (glTF allows
/// one material a variant); a mapping left naming no variant goes.
fn known_materials(primitive: &mut Primitive, material_count: usize, variant_count: usize) {
    primitive.renumber_materials(|m| (m < material_count).then_some(m));
    let mut named = vec![false; variant_count];
    for mapping in &mut primitive.variant_materials {
        mapping.variants.retain(|&v| v < variant_count && !std::mem::replace(&mut named[v], true));
        mapping.variants.sort_unstable();
    }
    primitive.variant_materials.retain(|m| !m.variants.is_empty());
}

fn fix_attributes(primitive: &mut Primitive) -> usize {
    let mut fixed = 0;
    for attribute in &mut primitive.attributes {
        for v in attribute.data.iter_mut().filter(|v| !v.is_finite()) {
            *v = 0.0;
            fixed += 1;
        }
        if attribute.semantic == "NORMAL" {
            for n in attribute.data.chunks_exact_mut(3) {
                let unit = normalize([n[0], n[1], n[2]]).unwrap_or_else(|| {
                    fixed += 1;
                    [0.0, 0.0, 1.0]
                });
                n.copy_from_slice(&unit);
            }
        } else if attribute.semantic == "TANGENT" && attribute.components == 4 {
            for t in attribute.data.chunks_exact_mut(4) {
                let unit = normalize([t[0], t[1], t[2]]).unwrap_or([1.0, 0.0, 0.0]);
                t[..3].copy_from_slice(&unit);
                t[3] = if t[3] < 0.0 { -1.0 } else { 1.0 };
            }
        } else if attribute.semantic.starts_with("COLOR_") {
            for c in attribute.data.iter_mut().filter(|c| !(0.0..=1.0).contains(*c)) {
                *c = if c.is_nan() { 0.0 } else { c.clamp(0.0, 1.0) };
                fixed += 1;
            }
        }
    }
    fixed
}

fn drop_empty_meshes(model: &mut Model) {
    let mut remap = Vec::with_capacity(model.meshes.len());
    let mut kept = 0;
    for mesh in &model.meshes {
        remap.push((!mesh.primitives.is_empty() || !mesh.lines_and_points.is_empty()).then(|| {
            kept += 1;
            kept - 1
        }));
    }
    model.meshes.retain(|m| !m.primitives.is_empty() || !m.lines_and_points.is_empty());
    for node in &mut model.nodes {
        node.mesh = node.mesh.and_then(|m| remap[m]);
    }
}
