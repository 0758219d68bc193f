//! STL, binary or ASCII. Binary is recognised by its exact size (84 + 50 bytes per triangle),
//! because many binary files also begin with the word "solid". Corners are welded by exact
//! position so the mesh has connectivity.
use super::ReadLimits;
use crate::error::{MeshError, Result};
use crate::model::{Mesh, Model, Primitive, SourceFormat};
use std::collections::HashMap;

pub fn read(data: &[u8], limits: &ReadLimits) -> Result<Model> {
    let corners = if is_binary(data) {
        limits.check_faces((data.len() - 84) / 50)?;
        binary_corners(data)
    } else if !looks_ascii(data) && data.len() >= 84 {
        let declared = u32::from_le_bytes([data[80], data[81], data[82], data[83]]) as u64;
        return Err(MeshError::invalid(format!(
            "the binary STL declares {declared} triangles, which take {} bytes, but the file has {}",
            84 + 50 * declared,
            data.len()
        )));
    } else {
        ascii_corners(data, limits)?
    };
    if corners.is_empty() {
        return Err(MeshError::invalid("the STL file holds no triangles"));
    }
    let mut model = Model::new(SourceFormat::Stl);
    model.push_root_mesh(Mesh { name: None, primitives: vec![weld(&corners)], ..Default::default() });
    Ok(model)
}

fn is_binary(data: &[u8]) -> bool {
    data.len() >= 84 && {
        let count = u32::from_le_bytes([data[80], data[81], data[82], data[83]]) as u64;
        84 + 50 * count == data.len() as u64
    }
}

fn looks_ascii(data: &[u8]) -> bool {
    let start = data.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(data.len());
    data[start..].starts_with(b"solid")
}

fn binary_corners(data: &[u8]) -> Vec<[f32; 3]> {
    let f = |at: usize| f32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    data[84..]
        .chunks_exact(50)
        .flat_map(|tri| {
            let base = tri.as_ptr() as usize - data.as_ptr() as usize;
            (0..3).map(move |k| {
                let at = base + 12 + k * 12;
                [f(at), f(at + 4), f(at + 8)]
            })
        })
        .collect()
}

fn ascii_corners(data: &[u8], limits: &ReadLimits) -> Result<Vec<[f32; 3]>> {
    let text = std::str::from_utf8(data).map_err(|_| MeshError::invalid("the STL file is neither binary STL nor ASCII text"))?;
    if !text.trim_start().starts_with("solid") {
        return Err(MeshError::invalid("the STL file is neither binary STL (wrong size) nor ASCII STL (no 'solid')"));
    }
    let mut corners = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if words.next() != Some("vertex") {
            continue;
        }
        let xyz: Vec<f32> =
            words.map(str::parse).collect::<std::result::Result<_, _>>().map_err(|_| MeshError::invalid("an STL vertex line has a bad number"))?;
        if xyz.len() != 3 {
            return Err(MeshError::invalid("an STL vertex line does not have three coordinates"));
        }
        corners.push([xyz[0], xyz[1], xyz[2]]);
        if corners.len() / 3 > limits.max_faces {
            limits.check_faces(corners.len() / 3)?;
        }
    }
    if corners.len() % 3 != 0 {
        return Err(MeshError::invalid("an STL facet does not have three vertices"));
    }
    Ok(corners)
}

fn weld(corners: &[[f32; 3]]) -> Primitive {
    let mut ids: HashMap<[u32; 3], u32> = HashMap::with_capacity(corners.len() / 4);
    let mut positions = Vec::with_capacity(corners.len() / 4);
    let indices = corners
        .iter()
        .map(|p| {
            let key = p.map(|c| if c == 0.0 { 0 } else { c.to_bits() });
            *ids.entry(key).or_insert_with(|| {
                positions.push(*p);
                positions.len() as u32 - 1
            })
        })
        .collect();
    Primitive { positions, attributes: Vec::new(), indices, material: None, variant_materials: Vec::new() }
}
