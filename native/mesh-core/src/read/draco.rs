//! KHR_draco_mesh_compression input: each Draco-compressed primitive is decoded (draco-oxide's
//! pure-Rust decoder, bitstream 2.2 as written by Google's encoder 1.4+) and the glTF document is
//! rewritten as if it had been stored plainly: the primitive's attributes and indices point at new
//! float / u32 accessors over new, owned buffer views. Every later reader then sees ordinary
//! accessors, and since writers never emit the extension, outputs are never Draco-compressed.
//!
//! The stream and the document both declare sizes; they are checked against each other and against
//! a byte budget before anything is decoded, so a tiny hostile file cannot make the decoder allocate
//! gigabytes, and the decoded counts are checked again afterwards.
use super::accessor::{type_components, Views};
use crate::error::{MeshError, Result};
use crate::json_member::member;
use draco_oxide_core::attribute::{Attribute, ComponentDataType};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub const EXTENSION: &str = "KHR_draco_mesh_compression";

/// Decoded bytes all Draco primitives of one file may produce together.
const BUDGET_BYTES: u64 = 1 << 30;

const HINT: &str = "Re-export the model with Draco compression from a current encoder (bitstream 2.2, Draco 1.4 or later), or without Draco.";

/// Sizes a Draco mesh stream declares in its header, read without decoding it.
#[derive(Debug, PartialEq)]
pub struct DeclaredCounts {
    pub faces: u64,
    /// Points (sequential) or encoded vertices (edgebreaker, before seams split them).
    pub vertices: u64,
}

fn leb128(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// The face and vertex counts of a mesh stream's connectivity header; None when the stream carries
/// metadata first (rare in glTF; then only the document's counts bound the decode).
pub fn declared_counts(stream: &[u8]) -> Result<Option<DeclaredCounts>> {
    if stream.len() < 11 || &stream[..5] != b"DRACO" {
        return Err(MeshError::invalid("a Draco buffer view does not start with a Draco header"));
    }
    let (major, minor, geometry, method) = (stream[5], stream[6], stream[7], stream[8]);
    if geometry != 1 {
        return Err(MeshError::invalid("a Draco buffer view holds a point cloud, not a triangle mesh"));
    }
    if (major, minor) != (2, 2) {
        return Err(MeshError::unsupported(format!("Draco bitstream {major}.{minor} is not supported (only 2.2)"), HINT));
    }
    let flags = u16::from_le_bytes([stream[9], stream[10]]);
    if flags & 0x8000 != 0 {
        return Ok(None);
    }
    let mut at = 11;
    let truncated = || MeshError::invalid("a Draco stream ends inside its header");
    let (faces, vertices) = match method {
        0 => {
            let faces = leb128(stream, &mut at).ok_or_else(truncated)?;
            (faces, leb128(stream, &mut at).ok_or_else(truncated)?)
        }
        1 => {
            at += 1; // traversal type
            let vertices = leb128(stream, &mut at).ok_or_else(truncated)?;
            (leb128(stream, &mut at).ok_or_else(truncated)?, vertices)
        }
        _ => return Err(MeshError::invalid("a Draco stream names an unknown connectivity method")),
    };
    Ok(Some(DeclaredCounts { faces, vertices }))
}

fn array<'v>(root: &'v Value, key: &str) -> &'v [Value] {
    root.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

fn count_of(accessors: &[Value], index: Option<u64>) -> Result<u64> {
    let accessor = index.and_then(|i| accessors.get(i as usize)).ok_or_else(|| MeshError::invalid("a Draco primitive refers to a missing accessor"))?;
    accessor.get("count").and_then(Value::as_u64).ok_or_else(|| MeshError::invalid("a Draco primitive's accessor has no count"))
}

/// One Draco primitive found in the document, with what it declares.
struct Compressed {
    mesh: usize,
    primitive: usize,
    view: usize,
    /// glTF semantic → (Draco attribute unique id, glTF accessor index).
    attributes: Vec<(String, u64, usize)>,
    points: u64,
    faces: u64,
}

fn describe(root: &Value) -> Result<Vec<Compressed>> {
    let accessors = array(root, "accessors");
    let mut found = Vec::new();
    for (m, mesh) in array(root, "meshes").iter().enumerate() {
        for (p, primitive) in array(mesh, "primitives").iter().enumerate() {
            let Some(ext) = member(primitive, &["extensions", EXTENSION]) else { continue };
            let mode = primitive.get("mode").and_then(Value::as_u64).unwrap_or(4);
            if mode != 4 {
                return Err(MeshError::unsupported("Draco-compressed triangle strips are not supported", HINT));
            }
            let view = ext.get("bufferView").and_then(Value::as_u64).ok_or_else(|| MeshError::invalid("a Draco primitive has no bufferView"))? as usize;
            let ids = ext.get("attributes").and_then(Value::as_object).ok_or_else(|| MeshError::invalid("a Draco primitive lists no attributes"))?;
            let plain = primitive.get("attributes").and_then(Value::as_object);
            let mut attributes = Vec::new();
            for (semantic, id) in ids {
                let id = id.as_u64().ok_or_else(|| MeshError::invalid(format!("the Draco id of {semantic} is not a number")))?;
                let accessor = plain
                    .and_then(|a| a.get(semantic))
                    .and_then(Value::as_u64)
                    .ok_or_else(|| MeshError::invalid(format!("the Draco attribute {semantic} has no accessor in the primitive")))?;
                let accessor = usize::try_from(accessor)
                    .ok()
                    .filter(|&a| a < accessors.len())
                    .ok_or_else(|| MeshError::invalid(format!("the Draco attribute {semantic} refers to a missing accessor")))?;
                attributes.push((semantic.clone(), id, accessor));
            }
            let position = attributes.iter().find(|a| a.0 == "POSITION").ok_or_else(|| MeshError::invalid("a Draco primitive has no POSITION"))?;
            let points = count_of(accessors, Some(position.2 as u64))?;
            let faces = match primitive.get("indices").and_then(Value::as_u64) {
                Some(i) => count_of(accessors, Some(i))? / 3,
                None => points / 3,
            };
            found.push(Compressed { mesh: m, primitive: p, view, attributes, points, faces });
        }
    }
    Ok(found)
}

/// Bytes the decoded primitive will take as floats and u32 indices, from declared counts only.
fn declared_bytes(c: &Compressed, accessors: &[Value]) -> u64 {
    let components: u64 = c
        .attributes
        .iter()
        .map(|(_, _, a)| accessors.get(*a).and_then(|a| a.get("type")).and_then(Value::as_str).and_then(type_components).unwrap_or(4) as u64)
        .sum();
    c.points.saturating_mul(components).saturating_mul(4).saturating_add(c.faces.saturating_mul(12))
}

fn too_large() -> MeshError {
    MeshError::limit("the Draco-compressed meshes would decode to more than 1 GiB", "Split the model into smaller files, or simplify it before compressing it.")
}

fn decode_stream(stream: &[u8]) -> Result<draco_oxide_core::mesh::Mesh> {
    // The decoder is young; a panic inside it must become a refusal of this file, not a crash.
    match catch_unwind(AssertUnwindSafe(|| draco_oxide_decoder::decode_mesh(stream))) {
        Ok(Ok(mesh)) => Ok(mesh),
        Ok(Err(draco_oxide_decoder::Err::UnsupportedVersion(major, minor))) => {
            Err(MeshError::unsupported(format!("Draco bitstream {major}.{minor} is not supported (only 2.2)"), HINT))
        }
        Ok(Err(draco_oxide_decoder::Err::Unimplemented)) => Err(MeshError::unsupported("the Draco stream uses a feature the decoder does not implement", HINT)),
        Ok(Err(e)) => Err(MeshError::invalid(format!("a Draco-compressed mesh does not decode ({e})"))),
        Err(_) => Err(MeshError::invalid("a Draco-compressed mesh does not decode")),
    }
}

fn component(bytes: &[u8], kind: ComponentDataType) -> f32 {
    match kind {
        ComponentDataType::F32 => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
        ComponentDataType::U8 => f32::from(bytes[0]),
        ComponentDataType::I8 => f32::from(bytes[0] as i8),
        ComponentDataType::U16 => f32::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        ComponentDataType::I16 => f32::from(i16::from_le_bytes([bytes[0], bytes[1]])),
        ComponentDataType::U32 => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f32,
        ComponentDataType::I32 => i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f32,
        _ => 0.0,
    }
}

/// Integer values of a normalized glTF accessor are mapped to [0, 1] or [-1, 1] by its component type.
fn normalizer(accessor: &Value) -> Option<f32> {
    if accessor.get("normalized").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    match accessor.get("componentType").and_then(Value::as_u64)? {
        5120 => Some(127.0),
        5121 => Some(255.0),
        5122 => Some(32767.0),
        5123 => Some(65535.0),
        _ => None,
    }
}

/// The attribute's value for every point, as little-endian floats.
fn point_floats(attribute: &Attribute, components: usize, accessor: &Value) -> Result<Vec<u8>> {
    let kind = attribute.get_component_type();
    let size = kind.size();
    if size == 0 || matches!(kind, ComponentDataType::F64 | ComponentDataType::I64 | ComponentDataType::U64) {
        return Err(MeshError::invalid("a Draco attribute has a component type glTF does not use"));
    }
    if attribute.get_num_components() != components {
        return Err(MeshError::invalid("a Draco attribute has a different component count than its accessor"));
    }
    let values = attribute.get_data_as_bytes();
    let stride = size * components;
    let scale = if kind.is_float() { None } else { normalizer(accessor) };
    let unique = values.len() / stride;
    let mut out = Vec::with_capacity(attribute.len() * components * 4);
    for point in 0..attribute.len() {
        let value = match attribute.point_map_as_slice() {
            Some(map) => usize::from(map[point]),
            None => point,
        };
        if value >= unique {
            return Err(MeshError::invalid("a Draco attribute refers to a value it does not hold"));
        }
        for c in 0..components {
            let at = value * stride + c * size;
            let v = component(&values[at..at + size], kind);
            let v = scale.map_or(v, |s| (v / s).max(-1.0));
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    Ok(out)
}

/// Decodes every Draco primitive of `root` and points it at plain accessors over new views.
pub fn inflate<'a>(root: &mut Value, views: &mut Views<'a>) -> Result<()> {
    let found = describe(root)?;
    if found.is_empty() {
        return Ok(());
    }
    let accessors = array(root, "accessors").to_vec();
    let mut declared_budget = BUDGET_BYTES;
    for c in &found {
        let stream = views.data.get(c.view).ok_or_else(|| MeshError::invalid("a Draco primitive refers to a missing buffer view"))?;
        if let Some(declared) = declared_counts(stream)? {
            if declared.faces != c.faces || declared.vertices > c.faces.saturating_mul(3).max(c.points) {
                return Err(MeshError::invalid("a Draco stream declares other counts than its glTF accessors"));
            }
        }
        declared_budget = declared_budget.checked_sub(declared_bytes(c, &accessors)).ok_or_else(too_large)?;
    }
    let mut budget = BUDGET_BYTES;
    let mut new_accessors = accessors.clone();
    for c in &found {
        let mesh = decode_stream(&views.data[c.view])?;
        if mesh.faces.len() as u64 != c.faces {
            return Err(MeshError::invalid("a Draco mesh decodes to another face count than its accessor declares"));
        }
        // Decoders may split vertices differently from the encoder that wrote the accessor counts
        // (draco-oxide and Google's disagree on some seams), so the decoded count is the truth, as
        // long as every attribute agrees on it and it stays within what the faces can reference.
        let points = mesh.attributes.first().map_or(0, Attribute::len) as u64;
        if mesh.attributes.iter().any(|a| a.len() as u64 != points) || points > c.faces.saturating_mul(3).max(c.points) {
            return Err(MeshError::invalid("a Draco mesh decodes to attributes of different vertex counts"));
        }
        let mut rewritten = serde_json::Map::new();
        for (semantic, id, accessor) in &c.attributes {
            let attribute = mesh
                .attributes
                .iter()
                .find(|a| a.get_id().as_usize() as u64 == *id)
                .ok_or_else(|| MeshError::invalid(format!("the Draco stream has no attribute with the id given for {semantic}")))?;
            let source = &accessors[*accessor];
            let kind = source.get("type").and_then(Value::as_str).unwrap_or("");
            let components =
                type_components(kind).filter(|&n| n <= 4).ok_or_else(|| MeshError::invalid(format!("{semantic} has an accessor type Draco cannot carry")))?;
            let bytes = point_floats(attribute, components, source)?;
            budget = budget.checked_sub(bytes.len() as u64).ok_or_else(too_large)?;
            rewritten.insert(semantic.clone(), json!(push_accessor(&mut new_accessors, views, bytes, 5126, kind, points)));
        }
        let indices: Vec<u8> = mesh.faces.iter().flat_map(|f| f.iter().flat_map(|&p| (usize::from(p) as u32).to_le_bytes())).collect();
        if mesh.faces.iter().flatten().any(|&p| usize::from(p) as u64 >= points) {
            return Err(MeshError::invalid("a Draco mesh has a face that refers to a missing vertex"));
        }
        let index_accessor = push_accessor(&mut new_accessors, views, indices, 5125, "SCALAR", c.faces * 3);
        let primitive = &mut root["meshes"][c.mesh]["primitives"][c.primitive];
        let attributes = primitive["attributes"].as_object_mut().expect("described primitives have attributes");
        attributes.extend(rewritten);
        primitive["indices"] = json!(index_accessor);
        // Draco always decodes to a triangle list.
        primitive["mode"] = json!(4);
        if let Some(extensions) = primitive.get_mut("extensions").and_then(Value::as_object_mut) {
            extensions.remove(EXTENSION);
        }
    }
    root["accessors"] = Value::Array(new_accessors);
    Ok(())
}

fn push_accessor(accessors: &mut Vec<Value>, views: &mut Views<'_>, bytes: Vec<u8>, component_type: u64, kind: &str, count: u64) -> usize {
    views.data.push(Cow::Owned(bytes));
    views.strides.push(None);
    accessors.push(json!({ "bufferView": views.data.len() - 1, "componentType": component_type, "type": kind, "count": count }));
    accessors.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sequential_and_edgebreaker_counts() {
        let sequential = [b'D', b'R', b'A', b'C', b'O', 2, 2, 1, 0, 0, 0, 0x80, 0x01, 5];
        assert_eq!(declared_counts(&sequential).unwrap(), Some(DeclaredCounts { faces: 128, vertices: 5 }));
        let edgebreaker = [b'D', b'R', b'A', b'C', b'O', 2, 2, 1, 1, 0, 0, 0, 7, 9];
        assert_eq!(declared_counts(&edgebreaker).unwrap(), Some(DeclaredCounts { faces: 9, vertices: 7 }));
    }

    #[test]
    fn an_attribute_naming_a_missing_accessor_is_an_invalid_mesh() {
        // Found by fuzzing Box_Draco.glb: a NORMAL pointing past the accessors panicked.
        let root = json!({
            "accessors": [{ "count": 24, "type": "VEC3" }, { "count": 36, "type": "SCALAR" }],
            "meshes": [{ "primitives": [{
                "attributes": { "POSITION": 0, "NORMAL": 6 },
                "indices": 1,
                "extensions": { EXTENSION: { "bufferView": 0, "attributes": { "POSITION": 0, "NORMAL": 1 } } },
            }] }],
        });
        let error = describe(&root).err().expect("refused");
        assert_eq!(error.code.as_str(), "invalid_mesh");
        assert!(error.message.contains("NORMAL refers to a missing accessor"), "{}", error.message);
    }

    #[test]
    fn refuses_what_is_not_a_2_2_mesh_stream() {
        assert!(declared_counts(b"NOTDRACO000").is_err());
        let point_cloud = [b'D', b'R', b'A', b'C', b'O', 2, 3, 0, 0, 0, 0];
        assert!(declared_counts(&point_cloud).is_err());
        let old = [b'D', b'R', b'A', b'C', b'O', 2, 1, 1, 0, 0, 0];
        assert_eq!(declared_counts(&old).unwrap_err().code.as_str(), "unsupported_format");
        let truncated = [b'D', b'R', b'A', b'C', b'O', 2, 2, 1, 0, 0, 0, 0x80];
        assert!(declared_counts(&truncated).is_err());
    }
}
