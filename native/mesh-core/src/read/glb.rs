//! The GLB container: a 12-byte header, then a JSON chunk and an optional BIN chunk.
use crate::error::{MeshError, Result};

const MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

pub fn is_glb(data: &[u8]) -> bool {
    data.len() >= 4 && &data[..4] == MAGIC
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    data.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Returns the JSON chunk and the BIN chunk (if any), checking every length against the file.
pub fn split(data: &[u8]) -> Result<(&[u8], Option<&[u8]>)> {
    if data.len() < 12 || !is_glb(data) {
        return Err(MeshError::invalid("not a GLB file: the 12-byte header with the glTF magic is missing"));
    }
    let version = u32_at(data, 4).unwrap_or(0);
    if version != 2 {
        return Err(MeshError::unsupported(format!("GLB version {version} is not supported"), "Re-export the model as glTF 2.0 (.glb)."));
    }
    let declared = u32_at(data, 8).unwrap_or(0) as usize;
    if declared != data.len() {
        return Err(MeshError::invalid(format!("GLB header says {declared} bytes but the file has {} (truncated or padded file)", data.len())));
    }
    let mut json = None;
    let mut bin = None;
    let mut at = 12;
    while at < data.len() {
        let (Some(length), Some(kind)) = (u32_at(data, at), u32_at(data, at + 4)) else {
            return Err(MeshError::invalid("GLB chunk header is cut off"));
        };
        let start = at + 8;
        let end =
            start.checked_add(length as usize).filter(|&end| end <= data.len()).ok_or_else(|| MeshError::invalid("GLB chunk runs past the end of the file"))?;
        match kind {
            CHUNK_JSON if json.is_none() && at == 12 => json = Some(&data[start..end]),
            CHUNK_BIN if bin.is_none() && json.is_some() => bin = Some(&data[start..end]),
            CHUNK_JSON | CHUNK_BIN => return Err(MeshError::invalid("GLB chunks are out of order or repeated")),
            _ => {}
        }
        at = end;
    }
    let json = json.ok_or_else(|| MeshError::invalid("GLB has no JSON chunk"))?;
    Ok((json, bin))
}
