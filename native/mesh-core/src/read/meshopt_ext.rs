//! Decodes buffer views compressed with EXT_meshopt_compression (the meshoptimizer vertex and
//! index codecs plus the octahedral / quaternion / exponential / color filters).
use crate::error::{MeshError, Result};
use serde_json::Value;

/// Upper bound on all decoded bytes of one file: a hostile header cannot make us allocate more.
const MAX_DECODED_BYTES: usize = 1 << 30;

pub struct Compressed<'a> {
    pub source: &'a [u8],
    pub count: usize,
    pub stride: usize,
    pub mode: &'a str,
    pub filter: &'a str,
}

pub fn describe<'a>(ext: &'a Value, buffers: &'a [Option<std::borrow::Cow<'_, [u8]>>]) -> Result<Compressed<'a>>
where
{
    let field = |k: &str| ext.get(k).and_then(Value::as_u64).map(|v| v as usize);
    let buffer = field("buffer").ok_or_else(|| MeshError::invalid("EXT_meshopt_compression view without buffer"))?;
    let offset = field("byteOffset").unwrap_or(0);
    let length = field("byteLength").ok_or_else(|| MeshError::invalid("EXT_meshopt_compression view without byteLength"))?;
    let data = buffers.get(buffer).and_then(|b| b.as_deref()).ok_or_else(|| MeshError::invalid("EXT_meshopt_compression refers to a buffer without data"))?;
    let source = offset
        .checked_add(length)
        .and_then(|end| data.get(offset..end))
        .ok_or_else(|| MeshError::invalid("EXT_meshopt_compression data runs past its buffer"))?;
    Ok(Compressed {
        source,
        count: field("count").ok_or_else(|| MeshError::invalid("EXT_meshopt_compression view without count"))?,
        stride: field("byteStride").ok_or_else(|| MeshError::invalid("EXT_meshopt_compression view without byteStride"))?,
        mode: ext.get("mode").and_then(Value::as_str).unwrap_or(""),
        filter: ext.get("filter").and_then(Value::as_str).unwrap_or("NONE"),
    })
}

/// Decodes one view; `budget` is what is left of MAX_DECODED_BYTES for this file.
pub fn decode(c: &Compressed, budget: &mut usize) -> Result<Vec<u8>> {
    let size = c.count.checked_mul(c.stride).filter(|&s| s <= *budget && *budget <= MAX_DECODED_BYTES);
    let size = size.ok_or_else(|| MeshError::invalid("EXT_meshopt_compression view decodes to more data than allowed"))?;
    *budget -= size;
    let mut out = vec![0u8; size];
    let status = match c.mode {
        "ATTRIBUTES" => {
            if c.stride == 0 || !c.stride.is_multiple_of(4) || c.stride > 256 {
                return Err(MeshError::invalid("EXT_meshopt_compression attribute stride must be a multiple of 4 up to 256"));
            }
            // SAFETY: `out` holds count * stride bytes and the source slice is only read within its length.
            unsafe { meshopt::ffi::meshopt_decodeVertexBuffer(out.as_mut_ptr().cast(), c.count, c.stride, c.source.as_ptr(), c.source.len()) }
        }
        "TRIANGLES" | "INDICES" => {
            if c.stride != 2 && c.stride != 4 {
                return Err(MeshError::invalid("EXT_meshopt_compression index stride must be 2 or 4"));
            }
            if c.mode == "TRIANGLES" && !c.count.is_multiple_of(3) {
                return Err(MeshError::invalid("EXT_meshopt_compression triangle count is not a multiple of 3"));
            }
            // SAFETY: as above; the index size is 2 or 4 as the codec requires.
            unsafe {
                if c.mode == "TRIANGLES" {
                    meshopt::ffi::meshopt_decodeIndexBuffer(out.as_mut_ptr().cast(), c.count, c.stride, c.source.as_ptr(), c.source.len())
                } else {
                    meshopt::ffi::meshopt_decodeIndexSequence(out.as_mut_ptr().cast(), c.count, c.stride, c.source.as_ptr(), c.source.len())
                }
            }
        }
        other => return Err(MeshError::invalid(format!("unknown EXT_meshopt_compression mode {other:?}"))),
    };
    if status != 0 {
        return Err(MeshError::invalid("EXT_meshopt_compression data is corrupt"));
    }
    apply_filter(c, &mut out)?;
    Ok(out)
}

fn apply_filter(c: &Compressed, out: &mut [u8]) -> Result<()> {
    let ok = match c.filter {
        "NONE" => return Ok(()),
        "OCTAHEDRAL" | "COLOR" => c.stride == 4 || c.stride == 8,
        "QUATERNION" => c.stride == 8,
        "EXPONENTIAL" => c.stride.is_multiple_of(4),
        other => return Err(MeshError::invalid(format!("unknown EXT_meshopt_compression filter {other:?}"))),
    };
    if !ok || c.mode != "ATTRIBUTES" {
        return Err(MeshError::invalid("EXT_meshopt_compression filter does not fit its view"));
    }
    let ptr = out.as_mut_ptr().cast();
    // SAFETY: `out` holds count * stride bytes, and the stride was checked for the filter above.
    unsafe {
        match c.filter {
            "OCTAHEDRAL" => meshopt::ffi::meshopt_decodeFilterOct(ptr, c.count, c.stride),
            "COLOR" => meshopt::ffi::meshopt_decodeFilterColor(ptr, c.count, c.stride),
            "QUATERNION" => meshopt::ffi::meshopt_decodeFilterQuat(ptr, c.count, c.stride),
            _ => meshopt::ffi::meshopt_decodeFilterExp(ptr, c.count, c.stride),
        }
    }
    Ok(())
}
