//! OFF (Object File Format, used by the Princeton Segmentation Benchmark): counts, vertices, polygons.
use super::ReadLimits;
use crate::error::{MeshError, Result};
use crate::model::{Mesh, Model, Primitive, SourceFormat};

pub fn read(data: &[u8], limits: &ReadLimits) -> Result<Model> {
    let text = std::str::from_utf8(data).map_err(|_| MeshError::invalid("the OFF file is not text"))?;
    let mut words = text.lines().map(|l| l.split('#').next().unwrap_or("")).flat_map(str::split_whitespace);
    let header = words.next().ok_or_else(|| MeshError::invalid("the OFF file is empty"))?;
    if !header.ends_with("OFF") {
        return Err(MeshError::invalid("the OFF file does not start with OFF"));
    }
    let mut number = |what: &str| -> Result<f64> {
        words.next().and_then(|w| w.parse::<f64>().ok()).ok_or_else(|| MeshError::invalid(format!("the OFF file has a missing or bad {what}")))
    };
    let (vertices, faces) = (number("vertex count")? as usize, number("face count")? as usize);
    number("edge count")?;
    // Each vertex needs at least six bytes of text, each face eight: absurd counts fail before allocating.
    if vertices.saturating_mul(6) > data.len() || faces.saturating_mul(8) > data.len() {
        return Err(MeshError::invalid("the OFF header counts more elements than the file holds"));
    }
    limits.check_faces(faces)?;
    limits.check_values(vertices.saturating_mul(3).saturating_add(faces.saturating_mul(3)))?;
    let mut positions = Vec::with_capacity(vertices);
    for _ in 0..vertices {
        positions.push([number("coordinate")? as f32, number("coordinate")? as f32, number("coordinate")? as f32]);
    }
    let mut indices = Vec::with_capacity(faces * 3);
    for _ in 0..faces {
        let n = number("polygon size")? as usize;
        let polygon: Vec<u32> = (0..n).map(|_| number("vertex index").map(|v| v as u32)).collect::<Result<_>>()?;
        for k in 2..polygon.len() {
            indices.extend_from_slice(&[polygon[0], polygon[k - 1], polygon[k]]);
        }
        if indices.len() / 3 > limits.max_faces {
            limits.check_faces(indices.len() / 3)?;
        }
    }
    let mut model = Model::new(SourceFormat::Off);
    model.push_root_mesh(Mesh {
        name: None,
        primitives: vec![Primitive { positions, attributes: Vec::new(), indices, material: None, variant_materials: Vec::new() }],
        ..Default::default()
    });
    Ok(model)
}
