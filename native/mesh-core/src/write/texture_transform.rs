//! Texture coordinates for KHR_mesh_quantization: at least 12 bits per unit of UV (gltfpack's
//! and gltf-transform's default, a sixteenth of a texel on a 256-texel texture), stored as
//! normalized u16. The grid's step count divides 65535 (4369 = 65535 / 15 steps across the unit
//! range), so a grid value is an exact multiple of a whole stride and reads back without a
//! second rounding. A set drawn with a material is stored as the grid index itself (0..=steps,
//! not index × stride): the vertex codec encodes byte deltas, and deltas 15 times smaller cost
//! a quarter to a third fewer UV bytes (SheenCloth 24 %, as gltfpack stores them). Every texture
//! reference of the materials that sample that set gets a KHR_texture_transform (offset = range
//! start, scale = range size × 65535 / steps) that maps them back, composed with a transform the
//! reference already had; UVs outside [0, 1] (tiling textures) are mapped from their range this
//! way too. A primitive without a material has no reference to carry a transform: UVs in [0, 1]
//! are stored as index × stride, which reads back as they are. The range is per material and set, the
//! union over every primitive drawn with that material. A range wider than one unit (a tiling
//! texture) gets as many steps a unit as keep its UVs within an eighth of a texel of the largest
//! image sampled through it (four steps a texel), at most 4095 a unit and at least 4095 across the
//! range (gltfpack's 12 bits across any range), within 16 bits: tiled floors and walls span tens
//! of units. A range that 16 bits cannot cover at that precision (nor at 256 a unit), a
//! non-finite one, or one on a primitive with no material keeps floats.
use crate::json_member::member;
use crate::model::{Image, Model};
use crate::round::round;
use crate::texcoord_sets::texture_slots;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub const TRANSFORM: &str = "KHR_texture_transform";
/// Grid steps per UV unit where no image says fewer do (and the most any image gets).
const STEPS_PER_UNIT: f32 = 4095.0;
/// Steps per texel of the largest image a set samples: a UV is then within an eighth of a texel.
const STEPS_PER_TEXEL: f32 = 4.0;
/// Steps per unit that always do: a quarter texel of a 1,024-texel tile.
const ENOUGH_PER_UNIT: f32 = 256.0;
const MAX_STEPS: f32 = u16::MAX as f32;
/// The divisors of 65535 (3 · 5 · 17 · 257) from 4369 up: step counts whose stride is whole.
const STEP_COUNTS: [u32; 4] = [4369, 13107, 21845, 65535];

/// UV = offset + scale * (q / steps) per axis, q an integer in 0..=steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UvGrid {
    pub offset: [f32; 2],
    pub scale: [f32; 2],
    pub steps: [u32; 2],
    /// Stored value = grid index × stride: 1 where a material transform maps it back, 65535 /
    /// steps where nothing can (the value then reads back as the UV itself).
    pub stride: [u32; 2],
}

/// The fewest steps from `STEP_COUNTS` giving `STEPS_PER_UNIT` per unit over `scale` units.
fn steps_for(scale: f32) -> u32 {
    let needed = scale * STEPS_PER_UNIT;
    STEP_COUNTS.into_iter().find(|&n| n as f32 >= needed).unwrap_or(u16::MAX as u32)
}

impl UvGrid {
    /// The grid of UVs within [0, 1] on a primitive without a material: stored as they read, no transform.
    pub const UNIT: UvGrid = UvGrid { offset: [0.0; 2], scale: [1.0; 2], steps: [STEP_COUNTS[0]; 2], stride: [u16::MAX as u32 / STEP_COUNTS[0]; 2] };

    /// The grid for UVs spanning `min..=max` that sample images of at most `texels` on a side
    /// (None: not known), or None when floats must stay.
    pub fn covering(min: [f32; 2], max: [f32; 2], texels: Option<u32>) -> Option<UvGrid> {
        let scale = [0, 1].map(|k| max[k] - min[k]);
        if !(0..2).all(|k| scale[k].is_finite() && min[k].is_finite()) {
            return None;
        }
        // A constant coordinate still needs a non-zero scale to be a valid transform.
        let scale = scale.map(|s| if s > 0.0 { s } else { 1.0 });
        // Stored as grid indices (stride 1), so any step count reads back exactly. A range of at
        // most one unit gets 4095 steps across itself, gltfpack's 12 bits on the same range (its
        // stored values are then the same, and so are their bytes); a wider one what its images
        // need a unit, at least 4095 across.
        // Without a known image, a step count that divides 65535 (`steps_for`), as before images
        // were looked at.
        let per_unit = texels.map_or(STEPS_PER_UNIT, |t| (t as f32 * STEPS_PER_TEXEL).min(STEPS_PER_UNIT));
        let mut steps = [0u32; 2];
        for k in 0..2 {
            if scale[k] <= 1.0 {
                steps[k] = STEPS_PER_UNIT as u32;
                continue;
            }
            let needed = match texels {
                Some(_) => (scale[k] * per_unit).ceil().max(STEPS_PER_UNIT),
                None => steps_for(scale[k]) as f32,
            };
            let needed = needed.min(MAX_STEPS);
            if needed / scale[k] < per_unit.min(ENOUGH_PER_UNIT) {
                return None;
            }
            steps[k] = needed as u32;
        }
        Some(UvGrid { offset: min, scale, steps, stride: [1; 2] })
    }

    /// Whether a viewer needs a texture transform to read the UVs back.
    pub fn needs_transform(&self) -> bool {
        *self != UvGrid::UNIT
    }

    /// The normalized u16 stored for coordinate `v` on axis `k`: rounded to the grid first, so
    /// neighbouring values differ by whole steps and the codec sees fewer distinct deltas.
    pub fn encode(&self, v: f32, k: usize) -> u16 {
        let unit = ((v - self.offset[k]) / self.scale[k]).clamp(0.0, 1.0);
        let q = round(unit * self.steps[k] as f32) as u32;
        (q * self.stride[k]) as u16
    }

    /// The UV a stored value stands for.
    #[cfg(test)]
    pub fn decode(&self, stored: u16, k: usize) -> f32 {
        self.offset[k] + self.scale[k] * (stored as u32 / self.stride[k]) as f32 / self.steps[k] as f32
    }

    /// The scale a viewer applies to the normalized stored value (stored / 65535) on axis `k`.
    fn read_scale(&self, k: usize) -> f64 {
        self.scale[k] as f64 * MAX_STEPS as f64 / (self.steps[k] as f64 * self.stride[k] as f64)
    }
}

/// The set a texture reference samples: a KHR_texture_transform `texCoord` overrides its own.
fn sampled_set(info: &Value) -> usize {
    let own = info.get("texCoord").and_then(Value::as_u64).unwrap_or(0);
    member(info, &["extensions", "KHR_texture_transform", "texCoord"]).and_then(Value::as_u64).unwrap_or(own) as usize
}

/// The longest side of an image from its header (PNG, JPEG, WebP, KTX2), if it tells.
fn image_side(image: &Image) -> Option<u32> {
    let data = &image.data[..];
    let (width, height) = if data.starts_with(b"\xABKTX 20\xBB\r\n\x1A\n") {
        let field = |at: usize| data.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        (field(20)?, field(24)?)
    } else {
        image::ImageReader::new(std::io::Cursor::new(data)).with_guessed_format().ok()?.into_dimensions().ok()?
    };
    Some(width.max(height)).filter(|&side| side > 0)
}

/// Per (material, set), the longest side of the largest image its textures sample through that
/// set (the plain source and any extension's, such as EXT_texture_webp's); absent where a texture
/// names no image whose size its header tells.
fn sampled_sides(model: &Model) -> BTreeMap<(usize, usize), u32> {
    let sides: Vec<Option<u32>> = model.images.iter().map(image_side).collect();
    let side_of_texture = |texture: &Value| -> Option<u32> {
        let mut sources: Vec<u64> = texture.get("source").and_then(Value::as_u64).into_iter().collect();
        if let Some(Value::Object(extensions)) = texture.get("extensions") {
            sources.extend(extensions.values().filter_map(|e| e.get("source").and_then(Value::as_u64)));
        }
        sources.iter().map(|&i| sides.get(i as usize).copied().flatten()).collect::<Option<Vec<u32>>>()?.into_iter().max()
    };
    let mut out: BTreeMap<(usize, usize), Option<u32>> = BTreeMap::new();
    for (m, material) in model.materials.iter().enumerate() {
        for (_, info) in texture_slots(material) {
            let side = info.get("index").and_then(Value::as_u64).and_then(|t| model.textures.get(t as usize)).and_then(side_of_texture);
            let entry = out.entry((m, sampled_set(info))).or_insert(Some(0));
            // One image of unknown size leaves the set at the default precision.
            *entry = entry.zip(side).map(|(a, b)| a.max(b));
        }
    }
    out.into_iter().filter_map(|(key, side)| Some((key, side?))).collect()
}

/// Grids per (material, set) over every primitive drawn with the material; a set present only
/// on primitives without a material gets no entry (see `grid_for`). The materials one primitive
/// may be drawn with (its own and its KHR_materials_variants ones) read the same stored UVs, so
/// they share one grid: the range and the largest image of all of them, and of every material
/// linked to them through another primitive.
pub fn uv_grids(model: &Model) -> BTreeMap<(usize, usize), Option<UvGrid>> {
    let group = material_groups(model);
    let mut sides: BTreeMap<(usize, usize), u32> = BTreeMap::new();
    for ((material, set), side) in sampled_sides(model) {
        let entry = sides.entry((group[material], set)).or_insert(side);
        *entry = (*entry).max(side);
    }
    let mut ranges: BTreeMap<(usize, usize), ([f32; 2], [f32; 2])> = BTreeMap::new();
    for p in model.meshes.iter().flat_map(|m| &m.primitives) {
        let Some(material) = p.materials().next().map(|m| group[m]) else { continue };
        for a in p.attributes.iter().filter(|a| a.components == 2) {
            let Some(set) = a.semantic.strip_prefix("TEXCOORD_").and_then(|s| s.parse::<usize>().ok()) else { continue };
            let range = ranges.entry((material, set)).or_insert(([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]));
            for uv in a.data.chunks_exact(2) {
                for (k, &value) in uv.iter().enumerate() {
                    // NaN makes the range non-finite, so the set keeps floats.
                    range.0[k] = if value.is_nan() { f32::NAN } else { range.0[k].min(value) };
                    range.1[k] = range.1[k].max(value);
                }
            }
        }
    }
    let grids: BTreeMap<(usize, usize), Option<UvGrid>> =
        ranges.into_iter().map(|(key, (min, max))| (key, UvGrid::covering(min, max, sides.get(&key).copied()))).collect();
    // Each material of a group takes its group's grid.
    let mut out = BTreeMap::new();
    for (material, &first) in group.iter().enumerate() {
        out.extend(grids.range((first, 0)..=(first, usize::MAX)).map(|(&(_, set), &grid)| ((material, set), grid)));
    }
    out
}

/// For each material, the first of the materials linked to it by being drawn on one primitive
/// (its own and its variants', over every primitive, transitively); itself where none is.
fn material_groups(model: &Model) -> Vec<usize> {
    let count = model.materials.len();
    let mut first: Vec<usize> = (0..count).collect();
    fn root(first: &mut [usize], mut m: usize) -> usize {
        while first[m] != m {
            first[m] = first[first[m]];
            m = first[m];
        }
        m
    }
    for p in model.meshes.iter().flat_map(|m| &m.primitives) {
        let mut materials = p.materials().filter(|&m| m < count);
        let Some(a) = materials.next() else { continue };
        for b in materials {
            let (ra, rb) = (root(&mut first, a), root(&mut first, b));
            first[ra.max(rb)] = ra.min(rb);
        }
    }
    (0..first.len()).map(|m| root(&mut first, m)).collect()
}

/// The grid of one primitive's UV set: its material's, or for a primitive without a material
/// the unit grid when its UVs lie in [0, 1].
pub fn grid_for(grids: &BTreeMap<(usize, usize), Option<UvGrid>>, material: Option<usize>, set: usize, data: &[f32]) -> Option<UvGrid> {
    match material {
        Some(m) => grids.get(&(m, set)).copied().flatten(),
        None => data.iter().all(|v| (0.0..=1.0).contains(v)).then_some(UvGrid::UNIT),
    }
}

/// `existing` (a KHR_texture_transform object, possibly empty) applied after `grid`'s mapping,
/// as one transform: uv = o + R(s ⊙ x) with x = g.o + g.s ⊙ q gives offset o + R(s ⊙ g.o),
/// the same rotation, scale s ⊙ g.s. R turns counter-clockwise as in the extension's matrix.
pub fn compose(existing: &Map<String, Value>, grid: &UvGrid) -> Map<String, Value> {
    let pair = |key: &str, default: f64| -> [f64; 2] {
        let v = existing.get(key).and_then(Value::as_array);
        [0, 1].map(|k| v.and_then(|a| a.get(k)).and_then(Value::as_f64).unwrap_or(default))
    };
    let (o, s) = (pair("offset", 0.0), pair("scale", 1.0));
    let r = existing.get("rotation").and_then(Value::as_f64).unwrap_or(0.0);
    let (sin, cos) = r.sin_cos();
    let shifted = [s[0] * grid.offset[0] as f64, s[1] * grid.offset[1] as f64];
    let offset = [o[0] + cos * shifted[0] - sin * shifted[1], o[1] + sin * shifted[0] + cos * shifted[1]];
    let scale = [s[0] * grid.read_scale(0), s[1] * grid.read_scale(1)];
    let mut out = existing.clone();
    out.insert("offset".into(), super::compact_json::short_f32s(&offset.map(|v| v as f32)));
    out.insert("scale".into(), super::compact_json::short_f32s(&scale.map(|v| v as f32)));
    out
}

/// The materials with a transform added to (or composed into) every texture reference whose set
/// was remapped. Returns whether any was added.
pub fn transformed_materials(materials: &[Value], grids: &BTreeMap<(usize, usize), Option<UvGrid>>) -> (Vec<Value>, bool) {
    fn walk(value: &mut Value, material: usize, grids: &BTreeMap<(usize, usize), Option<UvGrid>>, added: &mut bool) {
        match value {
            Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    if key.ends_with("Texture") && v.get("index").is_some() {
                        if let Some(Some(grid)) = grids.get(&(material, sampled_set(v))) {
                            if grid.needs_transform() {
                                let existing = member(v, &["extensions", TRANSFORM]).and_then(Value::as_object).cloned().unwrap_or_default();
                                let extensions = v.as_object_mut().expect("texture reference is an object").entry("extensions").or_insert_with(|| json!({}));
                                if let Some(ext) = extensions.as_object_mut() {
                                    ext.insert(TRANSFORM.into(), Value::Object(compose(&existing, grid)));
                                    *added = true;
                                }
                            }
                        }
                    }
                    walk(v, material, grids, added);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, material, grids, added)),
            _ => {}
        }
    }
    let mut added = false;
    let out = materials
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut m = m.clone();
            walk(&mut m, i, grids, &mut added);
            m
        })
        .collect();
    (out, added)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a viewer computes: the extension's transform applied to a decoded coordinate.
    fn apply(t: &Value, uv: [f32; 2]) -> [f32; 2] {
        let f = |key: &str, k: usize, d: f64| t.get(key).and_then(|v| v.get(k)).and_then(Value::as_f64).unwrap_or(d);
        let r = t.get("rotation").and_then(Value::as_f64).unwrap_or(0.0);
        let (x, y) = (f("scale", 0, 1.0) * uv[0] as f64, f("scale", 1, 1.0) * uv[1] as f64);
        [(f("offset", 0, 0.0) + r.cos() * x - r.sin() * y) as f32, (f("offset", 1, 0.0) + r.sin() * x + r.cos() * y) as f32]
    }

    #[test]
    fn unit_uvs_round_to_a_12_bit_grid() {
        // Without a material: stored as they read, a whole number of strides.
        let g = UvGrid::UNIT;
        assert!(!g.needs_transform());
        for v in [0.0f32, 1.0, 0.123_456, 0.5, 0.999_9] {
            let stored = g.encode(v, 0);
            let back = stored as f32 / 65535.0;
            assert!((back - v).abs() <= 0.5 / 4095.0 + 1e-6, "{v} -> {back}");
            assert_eq!(stored % 15, 0);
        }
        // With a material: the grid index itself on 4095 steps across the range (gltfpack's
        // 12 bits), read back through the transform.
        let g = UvGrid::covering([0.1, 0.0], [0.9, 1.0], None).unwrap();
        assert!(g.needs_transform());
        assert_eq!(g.steps, [4095, 4095]);
        let t = Value::Object(compose(&Map::new(), &g));
        let scale: Vec<f64> = t["scale"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert!((scale[0] - 0.8 * 65535.0 / 4095.0).abs() < 1e-4 && (scale[1] - 65535.0 / 4095.0).abs() < 1e-4, "{scale:?}");
        for v in [0.1f32, 0.9, 0.123_456, 0.5, 0.899_9] {
            let stored = g.encode(v, 0);
            assert!(stored as u32 <= g.steps[0]);
            assert!((g.decode(stored, 0) - v).abs() <= 0.5 / 4095.0 + 1e-6);
            let seen = apply(&t, [stored as f32 / 65535.0, 0.0]);
            assert!((seen[0] - v).abs() <= 0.5 / 4095.0 + 1e-5, "{v} -> {seen:?}");
        }
    }

    #[test]
    fn tiling_uvs_map_into_the_unit_square_and_back() {
        let g = UvGrid::covering([-2.0, 0.5], [3.0, 1.5], None).unwrap();
        assert!(g.needs_transform());
        let t = Value::Object(compose(&Map::new(), &g));
        for uv in [[-2.0f32, 0.5], [3.0, 1.5], [0.37, 1.01], [2.5, 0.75]] {
            let stored = [g.encode(uv[0], 0), g.encode(uv[1], 1)];
            let seen = apply(&t, [stored[0] as f32 / 65535.0, stored[1] as f32 / 65535.0]);
            // 12 bits per UV unit whatever the range.
            assert!((0..2).all(|k| (seen[k] - uv[k]).abs() <= 0.5 / 4095.0 + 1e-5), "{uv:?} -> {seen:?}");
        }
        // Wider than 16 units: 16 bits across the range, within half a step of 20 / 65535.
        let wide = UvGrid::covering([0.0, 0.0], [20.0, 1.0], None).unwrap();
        assert_eq!(wide.steps, [65535, 4095]);
        let t = Value::Object(compose(&Map::new(), &wide));
        for uv in [[0.0f32, 0.0], [20.0, 1.0], [13.37, 0.5], [0.001, 0.999]] {
            let stored = [wide.encode(uv[0], 0), wide.encode(uv[1], 1)];
            let seen = apply(&t, [stored[0] as f32 / 65535.0, stored[1] as f32 / 65535.0]);
            assert!((seen[0] - uv[0]).abs() <= 0.5 * 20.0 / 65535.0 + 2e-5, "{uv:?} -> {seen:?}");
        }
        assert_eq!(UvGrid::covering([0.0, 0.0], [300.0, 1.0], None), None, "wider than 256 units keeps floats");
        // Sampling 64-texel images: four steps a texel (256 a unit), at least 4095 across.
        assert_eq!(UvGrid::covering([0.0, 0.0], [20.0, 2.0], Some(64)).unwrap().steps, [5120, 4095]);
        assert_eq!(UvGrid::covering([0.0, 0.0], [20.0, 2.0], Some(4096)).unwrap().steps, [65535, 8190]);
        assert_eq!(UvGrid::covering([0.0, 0.0], [200.0, 1.0], Some(64)).unwrap().steps, [51200, 4095]);
        assert_eq!(UvGrid::covering([0.0, 0.0], [300.0, 1.0], Some(64)), None, "256 a unit no longer fit");
        assert_eq!(UvGrid::covering([f32::NAN, 0.0], [2.0, 1.0], None), None);
    }

    #[test]
    fn an_existing_transform_composes_after_the_mapping() {
        let g = UvGrid::covering([-1.0, 2.0], [1.0, 4.0], None).unwrap();
        let existing = json!({ "offset": [0.25, -0.5], "rotation": 0.7, "scale": [2.0, 0.5], "texCoord": 1 });
        let t = Value::Object(compose(existing.as_object().unwrap(), &g));
        assert_eq!(t["texCoord"], 1);
        assert_eq!(t["rotation"], 0.7);
        for uv in [[-1.0f32, 2.0], [1.0, 4.0], [0.3, 3.3]] {
            let stored = [g.encode(uv[0], 0), g.encode(uv[1], 1)];
            let seen = apply(&t, [stored[0] as f32 / 65535.0, stored[1] as f32 / 65535.0]);
            let wanted = apply(&existing, uv);
            assert!((0..2).all(|k| (seen[k] - wanted[k]).abs() < 2.0 / 4095.0), "{seen:?} vs {wanted:?}");
        }
    }

    #[test]
    fn every_reference_of_the_set_gets_the_transform() {
        let materials = vec![json!({
            "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 } },
            "normalTexture": { "index": 1, "texCoord": 1 },
            "extensions": { "KHR_materials_sheen": { "sheenColorTexture": { "index": 2 } } }
        })];
        let grid = UvGrid::covering([0.0, 0.0], [4.0, 2.0], None).unwrap();
        let grids = BTreeMap::from([((0, 0), Some(grid)), ((0, 1), Some(UvGrid::UNIT))]);
        let (out, added) = transformed_materials(&materials, &grids);
        assert!(added);
        // 4 × 2 units on 21845 × 13107 steps: the stored index times 65535 / steps, times the range.
        assert_eq!(out[0]["pbrMetallicRoughness"]["baseColorTexture"]["extensions"][TRANSFORM]["scale"], json!([12, 10]));
        assert_eq!(out[0]["extensions"]["KHR_materials_sheen"]["sheenColorTexture"]["extensions"][TRANSFORM]["scale"], json!([12, 10]));
        assert!(out[0]["normalTexture"].get("extensions").is_none(), "set 1 is stored as it reads");
    }

    #[test]
    fn written_tiling_uvs_read_back_through_the_material_transform() {
        use crate::model::{Attribute, Mesh, Primitive, SourceFormat};
        let uvs: Vec<f32> = (0..50).flat_map(|i| [-3.0 + i as f32 * 0.17, 0.25 + (i as f32 * 0.7).sin() * 2.0]).collect();
        let mut model = Model::new(SourceFormat::Glb);
        model.materials = vec![json!({ "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 } } })];
        model.push_root_mesh(Mesh {
            name: None,
            primitives: vec![Primitive {
                positions: (0..50).map(|i| [i as f32, (i * i % 7) as f32, 0.0]).collect(),
                attributes: vec![Attribute { semantic: "TEXCOORD_0".into(), components: 2, data: uvs.clone() }],
                indices: (0..48).flat_map(|i| [i, i + 1, i + 2]).collect(),
                material: Some(0),
                variant_materials: Vec::new(),
            }],
            ..Default::default()
        });
        tiling_uvs_read_back(&model, &uvs, 0.5 / 4095.0);
    }

    #[test]
    fn tiled_uvs_keep_an_eighth_of_a_texel_of_the_image_they_sample() {
        use crate::model::{Attribute, Image, Mesh, Primitive, SourceFormat};
        // A floor tiled 20 times by a 64-texel image: 256 steps a unit, 5120 across.
        let uvs: Vec<f32> = (0..60).flat_map(|i| [i as f32 / 59.0 * 20.0, (i as f32 * 0.37).fract() * 20.0]).collect();
        let mut model = Model::new(SourceFormat::Glb);
        model.materials = vec![json!({ "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 } } })];
        model.textures = vec![json!({ "source": 0 })];
        model.images = vec![Image { name: None, mime_type: "image/png".into(), data: crate::png_image::encode_rgba(64, 32, &[200; 64 * 32 * 4]) }];
        model.push_root_mesh(Mesh {
            name: None,
            primitives: vec![Primitive {
                positions: (0..60).map(|i| [i as f32, (i * i % 7) as f32, 0.0]).collect(),
                attributes: vec![Attribute { semantic: "TEXCOORD_0".into(), components: 2, data: uvs.clone() }],
                indices: (0..58).flat_map(|i| [i, i + 1, i + 2]).collect(),
                material: Some(0),
                variant_materials: Vec::new(),
            }],
            ..Default::default()
        });
        let v_range = uvs.iter().skip(1).step_by(2).fold(0.0f32, |a, &v| a.max(v)) - uvs.iter().skip(1).step_by(2).fold(f32::MAX, |a, &v| a.min(v));
        assert_eq!(uv_grids(&model)[&(0, 0)].unwrap().steps, [5120, (v_range * 256.0).ceil() as u32]);
        tiling_uvs_read_back(&model, &uvs, 0.5 / 256.0);
        // An image whose size its header does not tell: 16 bits across the 20 units.
        model.images[0].data = b"not an image".to_vec();
        assert_eq!(uv_grids(&model)[&(0, 0)].unwrap().steps, [65535, 65535]);
        tiling_uvs_read_back(&model, &uvs, 0.5 * 20.0 / 65535.0);
    }

    /// Writes `model` quantized, with and without compression, and checks its one primitive's UVs
    /// read back through the material's transform within `tolerance` of `uvs`.
    #[test]
    fn the_materials_of_a_primitive_s_variants_share_its_grid_and_keep_their_mappings() {
        use crate::model::{Attribute, Mesh, Primitive, SourceFormat, VariantMaterial};
        use crate::read::{read_model, ReadOptions};
        use crate::write::{write_glb, GlbOptions};
        // Material 0 draws the primitive by default, 1 under variant 0, 2 under variant 1; a
        // second primitive drawn with 2 alone reaches further, so all three take its range too.
        let uvs: Vec<f32> = (0..40).flat_map(|i| [i as f32 * 0.1, 1.0 - i as f32 * 0.05]).collect();
        let far: Vec<f32> = (0..40).flat_map(|i| [-2.0 + i as f32 * 0.02, 0.5]).collect();
        let textured = |scale: f32| json!({ "pbrMetallicRoughness": { "baseColorTexture": { "index": 0, "extensions": { "KHR_texture_transform": { "scale": [scale, scale] } } } } });
        let mut model = Model::new(SourceFormat::Glb);
        model.materials = vec![textured(1.0), textured(2.0), textured(0.5)];
        model.textures = vec![json!({ "source": 0 })];
        model.images = vec![crate::model::Image { name: None, mime_type: "image/png".into(), data: crate::png_image::encode_rgba(8, 8, &[90; 8 * 8 * 4]) }];
        model.variants = vec![json!({ "name": "Blue" }), json!({ "name": "Green" })];
        let primitive = |data: &[f32], material: usize, variant_materials: Vec<VariantMaterial>, z: f32| Primitive {
            positions: (0..40).map(|i| [i as f32, (i * i % 5) as f32, z]).collect(),
            attributes: vec![Attribute { semantic: "TEXCOORD_0".into(), components: 2, data: data.to_vec() }],
            indices: (0..38).flat_map(|i| [i, i + 1, i + 2]).collect(),
            material: Some(material),
            variant_materials,
        };
        let mappings = vec![VariantMaterial { material: 1, variants: vec![0] }, VariantMaterial { material: 2, variants: vec![1] }];
        model.push_root_mesh(Mesh {
            name: None,
            primitives: vec![primitive(&uvs, 0, mappings.clone(), 0.0), primitive(&far, 2, Vec::new(), 5.0)],
            ..Default::default()
        });
        let grids = uv_grids(&model);
        assert_eq!(grids[&(0, 0)], grids[&(1, 0)]);
        assert_eq!(grids[&(0, 0)], grids[&(2, 0)]);
        assert_eq!(grids[&(0, 0)].unwrap().offset[0], -2.0, "the second primitive's range is the group's");
        let back = read_model(&write_glb(&model, &GlbOptions::quantized(true)), "glb", &ReadOptions::default()).unwrap();
        assert_eq!(back.variants, model.variants);
        let read = &back.meshes[0].primitives[0];
        assert_eq!(read.variant_materials, mappings);
        // Each material's transform reads the stored UVs back to what its source transform sees,
        // within a step of the group's grid (5.9 units on 4,369 steps) times its own scale.
        let stored = &read.attribute("TEXCOORD_0").unwrap().data;
        for (m, source) in model.materials.iter().enumerate() {
            let t = back.materials[m].pointer("/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform").unwrap();
            let wanted = source.pointer("/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform").unwrap();
            for (r, o) in stored.chunks_exact(2).zip(uvs.chunks_exact(2)) {
                let (seen, want) = (apply(t, [r[0], r[1]]), apply(wanted, [o[0], o[1]]));
                let scale = wanted["scale"][0].as_f64().unwrap() as f32;
                assert!((0..2).all(|k| (seen[k] - want[k]).abs() <= scale * 5.9 / 4369.0), "material {m}: {seen:?} vs {want:?}");
            }
        }
    }

    fn tiling_uvs_read_back(model: &Model, uvs: &[f32], tolerance: f32) {
        use crate::read::{read_model, ReadOptions};
        use crate::write::{write_glb, GlbOptions};
        for compress in [false, true] {
            let back = read_model(&write_glb(model, &GlbOptions::quantized(compress)), "glb", &ReadOptions::default()).unwrap();
            let t = back.materials[0].pointer("/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform").unwrap();
            let read = &back.meshes[0].primitives[0].attribute("TEXCOORD_0").unwrap().data;
            for (r, o) in read.chunks_exact(2).zip(uvs.chunks_exact(2)) {
                let seen = apply(t, [r[0], r[1]]);
                assert!((0..2).all(|k| (seen[k] - o[k]).abs() <= tolerance + 2e-5), "{seen:?} vs {o:?}");
            }
        }
    }
}
