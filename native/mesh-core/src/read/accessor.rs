//! Reads glTF accessors (including sparse ones and the integer types of KHR_mesh_quantization)
//! into flat float or index arrays, checking every range against its buffer view.
use crate::error::{MeshError, Result};
use serde_json::Value;

/// Resolved bytes of every buffer view (already decoded when meshopt-compressed).
pub struct Views<'a> {
    pub data: Vec<std::borrow::Cow<'a, [u8]>>,
    pub strides: Vec<Option<usize>>,
    /// Values (floats or indices) still allowed to be decoded from this file; every read takes
    /// from it before allocating, so no accessor, however often referenced, decodes past it.
    /// (Atomic, so accessors can be decoded on several threads.)
    pub budget: std::sync::atomic::AtomicUsize,
}

impl Views<'_> {
    /// Takes `values` from the decode budget, or refuses when the file would need more.
    pub fn charge(&self, values: usize) -> Result<()> {
        use std::sync::atomic::Ordering::Relaxed;
        match self.budget.fetch_update(Relaxed, Relaxed, |left| left.checked_sub(values)) {
            Ok(_) => Ok(()),
            Err(_) => Err(MeshError::limit(
                "the model's accessors decode to more values than this tool's face limit allows",
                "Remove unused vertices, attributes and animations (or split the model) and upload it again.",
            )),
        }
    }
}

pub fn component_size(component_type: u64) -> Option<usize> {
    match component_type {
        5120 | 5121 => Some(1),
        5122 | 5123 => Some(2),
        5125 | 5126 => Some(4),
        _ => None,
    }
}

pub fn type_components(kind: &str) -> Option<usize> {
    match kind {
        "SCALAR" => Some(1),
        "VEC2" => Some(2),
        "VEC3" => Some(3),
        "VEC4" | "MAT2" => Some(4),
        "MAT3" => Some(9),
        "MAT4" => Some(16),
        _ => None,
    }
}

fn read_component(bytes: &[u8], component_type: u64, normalized: bool) -> f32 {
    match component_type {
        5120 => {
            let v = bytes[0] as i8 as f32;
            if normalized {
                (v / 127.0).max(-1.0)
            } else {
                v
            }
        }
        5121 => {
            let v = bytes[0] as f32;
            if normalized {
                v / 255.0
            } else {
                v
            }
        }
        5122 => {
            let v = i16::from_le_bytes([bytes[0], bytes[1]]) as f32;
            if normalized {
                (v / 32767.0).max(-1.0)
            } else {
                v
            }
        }
        5123 => {
            let v = u16::from_le_bytes([bytes[0], bytes[1]]) as f32;
            if normalized {
                v / 65535.0
            } else {
                v
            }
        }
        5125 => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f32,
        _ => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
    }
}

fn read_index(bytes: &[u8], component_type: u64) -> u32 {
    match component_type {
        5121 => bytes[0] as u32,
        5123 => u16::from_le_bytes([bytes[0], bytes[1]]) as u32,
        _ => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
    }
}

fn usize_field(value: &Value, key: &str) -> Option<usize> {
    value.get(key).and_then(Value::as_u64).map(|v| v as usize)
}

/// Element bytes laid out with a stride inside one buffer view, range-checked.
struct Strided<'v> {
    bytes: &'v [u8],
    stride: usize,
}

fn strided<'v>(views: &'v Views, view: usize, offset: usize, count: usize, elem: usize, own_stride: Option<usize>) -> Result<Strided<'v>> {
    let data = views.data.get(view).ok_or_else(|| MeshError::invalid(format!("buffer view {view} does not exist")))?;
    let stride = own_stride.or(views.strides[view]).unwrap_or(elem).max(elem);
    let needed = if count == 0 { Some(0) } else { stride.checked_mul(count - 1).and_then(|s| s.checked_add(elem)) }
        .and_then(|n| n.checked_add(offset))
        .ok_or_else(|| MeshError::invalid("accessor size overflows"))?;
    if needed > data.len() {
        return Err(MeshError::invalid(format!("accessor reads past the end of buffer view {view}")));
    }
    Ok(Strided { bytes: &data[offset..], stride })
}

pub struct Layout {
    pub count: usize,
    pub components: usize,
    pub component_type: u64,
    pub normalized: bool,
}

pub fn layout(accessor: &Value) -> Result<Layout> {
    let count = usize_field(accessor, "count").ok_or_else(|| MeshError::invalid("accessor without count"))?;
    let component_type = accessor.get("componentType").and_then(Value::as_u64).unwrap_or(0);
    component_size(component_type).ok_or_else(|| MeshError::invalid("accessor with an unknown componentType"))?;
    let components =
        accessor.get("type").and_then(Value::as_str).and_then(type_components).ok_or_else(|| MeshError::invalid("accessor with an unknown type"))?;
    let normalized = accessor.get("normalized").and_then(Value::as_bool).unwrap_or(false);
    Ok(Layout { count, components, component_type, normalized })
}

/// Decodes an accessor to `count * components` floats (normalized integers mapped to [0,1] or [-1,1]).
pub fn read_floats(accessors: &[Value], index: usize, views: &Views) -> Result<(usize, Vec<f32>)> {
    let accessor = accessors.get(index).ok_or_else(|| MeshError::invalid(format!("accessor {index} does not exist")))?;
    let l = layout(accessor)?;
    let size = component_size(l.component_type).unwrap_or(4);
    let elem = size * l.components;
    views.charge(l.count.saturating_mul(l.components))?;
    let mut out = Vec::new();
    if let Some(view) = usize_field(accessor, "bufferView") {
        let offset = usize_field(accessor, "byteOffset").unwrap_or(0);
        let s = strided(views, view, offset, l.count, elem, None)?;
        out.reserve_exact(l.count * l.components);
        match l.component_type {
            // Floats, most of any large model, without per-component type dispatch: packed ones
            // (every animation track, most attributes) in one pass over the bytes, interleaved ones
            // a whole element at a time.
            5126 if s.stride == elem => {
                // Into the floats' room, where the compiler copies lanes at a time: through
                // `extend` each float took a pass of its own (7 instructions, a twentieth of a
                // motion capture's optimize), and zeroed first (until session 47) a motion
                // capture's 65 MB of keys were written twice.
                let n = l.count * l.components;
                let bytes = &s.bytes[..n * 4];
                for (value, b) in out.spare_capacity_mut()[..n].iter_mut().zip(bytes.chunks_exact(4)) {
                    value.write(f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                }
                // SAFETY: `bytes` holds `n` floats' bytes (4 each), so the loop wrote all `n`.
                unsafe { out.set_len(n) };
            }
            5126 => {
                for i in 0..l.count {
                    let element = &s.bytes[i * s.stride..i * s.stride + elem];
                    out.extend(element.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
                }
            }
            _ => {
                for i in 0..l.count {
                    let base = i * s.stride;
                    for c in 0..l.components {
                        out.push(read_component(&s.bytes[base + c * size..], l.component_type, l.normalized));
                    }
                }
            }
        }
    } else {
        if l.count.saturating_mul(l.components) > views.data.iter().map(|d| d.len()).sum::<usize>().max(1 << 20) * 4 {
            return Err(MeshError::invalid("accessor without data claims more elements than the file can hold"));
        }
        out.resize(l.count * l.components, 0.0);
    }
    if let Some(sparse) = accessor.get("sparse") {
        apply_sparse(sparse, &l, views, |i, values| {
            out[i * l.components..(i + 1) * l.components].copy_from_slice(values);
        })?;
    }
    Ok((l.components, out))
}

fn apply_sparse(sparse: &Value, l: &Layout, views: &Views, mut set: impl FnMut(usize, &[f32])) -> Result<()> {
    let count = usize_field(sparse, "count").ok_or_else(|| MeshError::invalid("sparse accessor without count"))?;
    let idx = sparse.get("indices").ok_or_else(|| MeshError::invalid("sparse accessor without indices"))?;
    let val = sparse.get("values").ok_or_else(|| MeshError::invalid("sparse accessor without values"))?;
    let index_type = idx.get("componentType").and_then(Value::as_u64).unwrap_or(0);
    let index_size = match index_type {
        5121 | 5123 | 5125 => component_size(index_type).unwrap_or(4),
        _ => return Err(MeshError::invalid("sparse indices with an invalid componentType")),
    };
    let size = component_size(l.component_type).unwrap_or(4);
    let elem = size * l.components;
    let view_of = |v: &Value| usize_field(v, "bufferView").ok_or_else(|| MeshError::invalid("sparse part without bufferView"));
    let si = strided(views, view_of(idx)?, usize_field(idx, "byteOffset").unwrap_or(0), count, index_size, Some(index_size))?;
    let sv = strided(views, view_of(val)?, usize_field(val, "byteOffset").unwrap_or(0), count, elem, Some(elem))?;
    let mut values = vec![0.0f32; l.components];
    for k in 0..count {
        let target = read_index(&si.bytes[k * index_size..], index_type) as usize;
        if target >= l.count {
            return Err(MeshError::invalid("sparse accessor index out of range"));
        }
        for (c, v) in values.iter_mut().enumerate() {
            *v = read_component(&sv.bytes[k * elem + c * size..], l.component_type, l.normalized);
        }
        set(target, &values);
    }
    Ok(())
}

/// Reads an index accessor (unsigned byte, short or int scalars).
pub fn read_indices(accessors: &[Value], index: usize, views: &Views) -> Result<Vec<u32>> {
    let accessor = accessors.get(index).ok_or_else(|| MeshError::invalid(format!("accessor {index} does not exist")))?;
    let l = layout(accessor)?;
    if l.components != 1 || !matches!(l.component_type, 5121 | 5123 | 5125) {
        return Err(MeshError::invalid("index accessor must hold unsigned integer scalars"));
    }
    if accessor.get("sparse").is_some() {
        let (_, floats) = read_floats(accessors, index, views)?;
        return Ok(floats.into_iter().map(|f| f as u32).collect());
    }
    let size = component_size(l.component_type).unwrap_or(4);
    let view = usize_field(accessor, "bufferView").ok_or_else(|| MeshError::invalid("index accessor without bufferView"))?;
    let s = strided(views, view, usize_field(accessor, "byteOffset").unwrap_or(0), l.count, size, Some(size))?;
    views.charge(l.count)?;
    let bytes = &s.bytes[..l.count * size];
    Ok(match l.component_type {
        5125 => bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
        5123 => bytes.chunks_exact(2).map(|b| u32::from(u16::from_le_bytes([b[0], b[1]]))).collect(),
        _ => bytes.iter().map(|&b| u32::from(b)).collect(),
    })
}
