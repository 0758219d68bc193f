//! Drops TEXCOORD_n sets that no texture of the primitive's material samples. A primitive without
//! a material, or whose material has no textures, renders the same without its UVs, and they are
//! a large share of a compressed file (a fifth of ShapeCollection's bytes); gltfpack drops them too.
use crate::json_member::member;
use crate::model::Model;
use serde_json::Value;
use std::collections::BTreeSet;

/// A material's texture slots: every `...Texture` object with an `index` (also inside extensions
/// such as KHR_materials_sheen), with its key.
pub fn texture_slots(material: &Value) -> Vec<(&str, &Value)> {
    fn walk<'v>(value: &'v Value, out: &mut Vec<(&'v str, &'v Value)>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    if key.ends_with("Texture") && v.get("index").is_some() {
                        out.push((key, v));
                    }
                    walk(v, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(material, &mut out);
    out
}

/// The texture-coordinate sets a material's texture slots read, by their `texCoord` (0 when
/// absent) and by a KHR_texture_transform `texCoord` override; both are kept when they differ.
pub fn sampled_sets(material: &Value) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for (_, info) in texture_slots(material) {
        out.insert(info.get("texCoord").and_then(Value::as_u64).unwrap_or(0) as usize);
        let transformed = member(info, &["extensions", "KHR_texture_transform", "texCoord"]).and_then(Value::as_u64);
        out.extend(transformed.map(|t| t as usize));
    }
    out
}

/// Removes unsampled texture-coordinate sets from every primitive; returns how many it removed.
/// A kept set keeps its name, so `texCoord` references in materials stay valid; and so a set
/// below a sampled one stays too, sampled or not: glTF numbers a primitive's sets from 0 without
/// a gap (a material that samples only TEXCOORD_1 made files the validator refused).
pub fn drop_unsampled_texcoords(model: &mut Model) -> usize {
    let sets: Vec<BTreeSet<usize>> = model.materials.iter().map(sampled_sets).collect();
    let mut removed = 0;
    for p in model.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
        // The sets any of the materials it may be drawn with (its variants' too) samples.
        let sampled: BTreeSet<usize> = p.materials().filter_map(|m| sets.get(m)).flatten().copied().collect();
        let highest = sampled.last().copied();
        let before = p.attributes.len();
        p.attributes.retain(|a| match a.semantic.strip_prefix("TEXCOORD_").and_then(|n| n.parse::<usize>().ok()) {
            Some(set) => highest.is_some_and(|h| set <= h),
            None => true,
        });
        removed += before - p.attributes.len();
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Attribute, Mesh, Primitive, SourceFormat};
    use serde_json::json;

    fn uv(set: usize) -> Attribute {
        Attribute { semantic: format!("TEXCOORD_{set}"), components: 2, data: vec![0.5, 0.5] }
    }

    #[test]
    fn sets_come_from_every_slot_and_transform_overrides() {
        let material = json!({
            "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 }, "baseColorFactor": [1, 1, 1, 1] },
            "normalTexture": { "index": 1, "texCoord": 2 },
            "extensions": {
                "KHR_materials_sheen": { "sheenColorTexture": { "index": 2, "texCoord": 0, "extensions": { "KHR_texture_transform": { "texCoord": 3 } } } }
            }
        });
        assert_eq!(sampled_sets(&material).into_iter().collect::<Vec<_>>(), vec![0, 2, 3]);
    }

    #[test]
    fn unsampled_sets_go_and_sampled_ones_stay_numbered_from_zero() {
        let mut model = Model::new(SourceFormat::Glb);
        model.materials = vec![json!({ "occlusionTexture": { "index": 0, "texCoord": 1 } }), json!({ "emissiveTexture": { "index": 0 } })];
        let primitive =
            |material| Primitive { positions: vec![[0.0; 3]], attributes: vec![uv(0), uv(1), uv(2)], indices: vec![], material, variant_materials: Vec::new() };
        model.push_root_mesh(Mesh { name: None, primitives: vec![primitive(Some(0)), primitive(None), primitive(Some(1))], ..Default::default() });
        assert_eq!(drop_unsampled_texcoords(&mut model), 1 + 3 + 2);
        let kept: Vec<Vec<&str>> = model.meshes[0].primitives.iter().map(|p| p.attributes.iter().map(|a| a.semantic.as_str()).collect()).collect();
        // Set 0 stays below the sampled set 1: a primitive's sets run from 0 without a gap.
        assert_eq!(kept, vec![vec!["TEXCOORD_0", "TEXCOORD_1"], vec![], vec!["TEXCOORD_0"]]);
    }
}
