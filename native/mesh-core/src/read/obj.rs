//! Wavefront OBJ through `tobj` (polygons fan-triangulated, one index per vertex); one mesh per
//! object/group. Material libraries are not uploaded with the file, so materials are left out.
use super::ReadLimits;
use crate::error::{MeshError, Result};
use crate::model::{Attribute, Mesh, Model, Primitive, SourceFormat};

/// Triangles and vertex values the file's `f` and `v`/`vn`/`vt` lines make, counted from the text
/// before the parser allocates (a polygon of n corners makes n - 2 triangles).
fn check_declared(data: &[u8], limits: &ReadLimits) -> Result<()> {
    let (mut faces, mut values) = (0usize, 0usize);
    for line in data.split(|&b| b == b'\n') {
        let mut words = line.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty());
        match words.next() {
            Some(b"f") => {
                let triangles = words.count().saturating_sub(2);
                faces += triangles;
                // Each corner of each triangle may become its own vertex (position, normal, UV, colour).
                values += triangles * 3 * 12;
            }
            Some(b"v" | b"vn" | b"vt") => values += 3,
            _ => {}
        }
    }
    limits.check_faces(faces)?;
    limits.check_values(values)
}

pub fn read(data: &[u8], limits: &ReadLimits) -> Result<Model> {
    check_declared(data, limits)?;
    let options = tobj::LoadOptions { triangulate: true, single_index: true, ignore_points: true, ignore_lines: true };
    let mut reader = std::io::BufReader::new(data);
    let (models, _materials) = tobj::load_obj_buf(&mut reader, &options, |_| Err(tobj::LoadError::OpenFileFailed))
        .map_err(|e| MeshError::invalid(format!("OBJ does not parse: {e}")))?;
    let mut model = Model::new(SourceFormat::Obj);
    for m in models {
        let mesh = m.mesh;
        let vertex_count = mesh.positions.len() / 3;
        let positions = mesh.positions.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
        let mut attributes = Vec::new();
        if mesh.normals.len() == vertex_count * 3 && vertex_count > 0 {
            attributes.push(Attribute { semantic: "NORMAL".into(), components: 3, data: mesh.normals });
        }
        if mesh.texcoords.len() == vertex_count * 2 && vertex_count > 0 {
            // OBJ's v axis points up, glTF's down.
            let flipped = mesh.texcoords.chunks_exact(2).flat_map(|t| [t[0], 1.0 - t[1]]).collect();
            attributes.push(Attribute { semantic: "TEXCOORD_0".into(), components: 2, data: flipped });
        }
        if mesh.vertex_color.len() == vertex_count * 3 && vertex_count > 0 {
            attributes.push(Attribute { semantic: "COLOR_0".into(), components: 3, data: mesh.vertex_color });
        }
        let primitive = Primitive { positions, attributes, indices: mesh.indices, material: None };
        model.push_root_mesh(Mesh { name: Some(m.name).filter(|n| !n.is_empty() && n != "unnamed_object"), primitives: vec![primitive], ..Default::default() });
    }
    if data.windows(7).any(|w| w == b"mtllib ") {
        model.notes.push("The OBJ names a material library, which is a separate file: materials are left out.".into());
    }
    Ok(model)
}
