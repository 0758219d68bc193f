//! EXT_mesh_gpu_instancing on the written nodes (see instancing.rs at the crate root for which
//! placements become instances). Each instance's transform is written as translation, rotation
//! and scale accessors. The extension applies an instance's transform before its node's, so the
//! quantization grid (which elsewhere sits on a dequantization child node) is folded into every
//! instance: instance × translate(offset) × scale(step) is still a TRS, since the grid's scale is
//! uniform.
//!
//! Compressed output stores the transforms through the meshopt codec's filters, as it does normals:
//! rotations as 16-bit quaternions (QUATERNION filter), translations and scales as floats with a
//! shared exponent per component and only as many mantissa bits as keep every instance within a
//! step of its mesh's own grid (EXPONENTIAL filter). Random placements do not compress as floats;
//! with the filters 400 of them cost about 8 bytes each instead of 40.
use super::compact_json::short_f32;
use super::glb::{Builder, Data};
use super::key_storage::short_bytes;
use super::nodes::decompose;
use super::quantize::{mantissa_bits, Grid};
use crate::math::{compose, mul, Bounds};
use crate::model::Model;
use meshopt::EncodeExpMode;
use serde_json::{json, Value};

pub const GPU_INSTANCING: &str = "EXT_mesh_gpu_instancing";
const FLOAT: u32 = 5126;
const SHORT: u32 = 5122;
/// Bits per quaternion component: the filter's finest, about 2e-5 rad.
const QUATERNION_BITS: i32 = 16;

/// Instance transforms split into columns.
struct Columns {
    translation: Vec<[f32; 3]>,
    rotation: Vec<[f32; 4]>,
    scale: Vec<[f32; 3]>,
}

/// The extension object of every node that has instances (None for the others), with its
/// accessors written.
pub(super) fn instancing_extensions(b: &mut Builder, model: &Model, grids: &[Option<Grid>]) -> Vec<Option<Value>> {
    model
        .nodes
        .iter()
        .map(|node| {
            let mesh = node.mesh.filter(|_| !node.instances.is_empty())?;
            let grid = grids[mesh];
            let dequantize = grid.map_or(crate::model::IDENTITY, |g| compose(g.offset, [0.0, 0.0, 0.0, 1.0], [g.scale; 3]));
            let mut columns = Columns { translation: Vec::new(), rotation: Vec::new(), scale: Vec::new() };
            for instance in &node.instances {
                // instancing.rs only takes placements that decompose; a grid does not change that.
                let trs = decompose(&mul(instance, &dequantize)).expect("an instanced placement is a TRS");
                columns.translation.push(trs.t);
                columns.rotation.push(trs.q);
                columns.scale.push(trs.s);
            }
            let attributes = match (grid, b.compress) {
                (Some(g), true) => {
                    let points = model.meshes[mesh].primitives.iter().flat_map(|p| p.positions.iter().copied());
                    let bounds = Bounds::of(&points.collect::<Vec<_>>());
                    // Grid steps from the grid's corner to the farthest corner of the box.
                    let steps = bounds.extent() * 3f32.sqrt() / g.scale;
                    filtered(b, &columns, steps)
                }
                (Some(_), false) => plain(b, &columns, true),
                (None, _) => plain(b, &columns, false),
            };
            Some(json!({ GPU_INSTANCING: { "attributes": attributes } }))
        })
        .collect()
}

fn float_bytes<const N: usize>(values: &[[f32; N]]) -> Vec<u8> {
    values.iter().flatten().flat_map(|v| v.to_le_bytes()).collect()
}

fn translation_bounds(values: &[[f32; 3]]) -> (Value, Value) {
    let column = |k: usize| values.iter().map(move |v| v[k]);
    let min: Vec<Value> = (0..3).map(|k| short_f32(column(k).fold(f32::INFINITY, f32::min))).collect();
    let max: Vec<Value> = (0..3).map(|k| short_f32(column(k).fold(f32::NEG_INFINITY, f32::max))).collect();
    (json!(min), json!(max))
}

/// Floats, with rotations as normalized shorts when the output is quantized.
fn plain(b: &mut Builder, c: &Columns, quantized: bool) -> Value {
    let count = c.translation.len();
    let slot = b.view(&float_bytes(&c.translation), Data::Keys { stride: 12, filter: None });
    let translation = b.accessor(slot, count, FLOAT, "VEC3", false, Some(translation_bounds(&c.translation)));
    let rotation = match quantized {
        true => {
            let slot = b.view(&short_bytes(c.rotation.as_flattened()), Data::Keys { stride: 8, filter: None });
            b.accessor(slot, count, SHORT, "VEC4", true, None)
        }
        false => {
            let slot = b.view(&float_bytes(&c.rotation), Data::Keys { stride: 16, filter: None });
            b.accessor(slot, count, FLOAT, "VEC4", false, None)
        }
    };
    let slot = b.view(&float_bytes(&c.scale), Data::Keys { stride: 12, filter: None });
    let scale = b.accessor(slot, count, FLOAT, "VEC3", false, None);
    json!({ "TRANSLATION": translation, "ROTATION": rotation, "SCALE": scale })
}

/// Through the codec's filters, each column as coarse as the mesh's grid allows. A grid step
/// in world space is the instance's scale (the grid's step is folded into it); translations are
/// kept within half of the smallest such step, and scales so that the farthest grid point
/// (`steps` from the grid's corner) moves by at most a quarter step.
fn filtered(b: &mut Builder, c: &Columns, steps: f32) -> Value {
    let count = c.translation.len();
    let largest = |values: &[[f32; 3]]| values.iter().flatten().fold(0.0f32, |a, v| a.max(v.abs()));
    let smallest_step = c.scale.iter().flatten().fold(f32::INFINITY, |a, s| a.min(s.abs()));
    let exp = |values: &[[f32; 3]], bits: i32| -> Vec<u8> {
        meshopt::encode_filter_exp(values, bits, EncodeExpMode::SharedComponent).iter().flatten().flat_map(|v| v.to_le_bytes()).collect()
    };
    let translation_bytes = exp(&c.translation, mantissa_bits(largest(&c.translation), smallest_step / 2.0));
    let scale_bytes = exp(&c.scale, mantissa_bits(largest(&c.scale), smallest_step / (4.0 * steps.max(1.0))));
    let exponential = Some("EXPONENTIAL");
    let slot = b.view(&translation_bytes, Data::Keys { stride: 12, filter: exponential });
    let translation = b.accessor(slot, count, FLOAT, "VEC3", false, Some(translation_bounds(&c.translation)));
    let quaternions: Vec<u8> = meshopt::encode_filter_quat(&c.rotation, QUATERNION_BITS).iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
    let slot = b.view(&quaternions, Data::Keys { stride: 8, filter: Some("QUATERNION") });
    let rotation = b.accessor(slot, count, SHORT, "VEC4", true, None);
    let slot = b.view(&scale_bytes, Data::Keys { stride: 12, filter: exponential });
    let scale = b.accessor(slot, count, FLOAT, "VEC3", false, None);
    json!({ "TRANSLATION": translation, "ROTATION": rotation, "SCALE": scale })
}
