//! Drops TANGENT attributes (and morph targets' tangent deltas) that nothing shades with. A tangent
//! orients a normal map's texels on the surface, and anisotropic highlights along it; a primitive
//! whose material has neither (or that has no material) renders the same without them, and they
//! are four numbers a vertex, often the largest attribute left after quantization. gltfpack drops
//! them too.
use crate::json_member::member;
use crate::model::{target_of, Model};
use crate::texcoord_sets::texture_slots;
use serde_json::Value;

/// Whether a material shades with tangents: any normal map (`normalTexture`, or an extension's
/// `...NormalTexture` such as clearcoat's), or KHR_materials_anisotropy, whose direction is given
/// in the tangent frame even without a texture.
pub fn uses_tangents(material: &Value) -> bool {
    member(material, &["extensions", "KHR_materials_anisotropy"]).is_some()
        || texture_slots(material).iter().any(|(key, _)| *key == "normalTexture" || key.ends_with("NormalTexture"))
}

/// Removes tangents from every primitive whose material does not shade with them; returns how
/// many primitives lost theirs.
pub fn drop_unused_tangents(model: &mut Model) -> usize {
    let used: Vec<bool> = model.materials.iter().map(uses_tangents).collect();
    let mut dropped = 0;
    for p in model.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
        if p.materials().any(|m| used.get(m).copied().unwrap_or(false)) {
            continue;
        }
        let before = p.attributes.len();
        p.attributes.retain(|a| a.semantic != "TANGENT" && target_of(&a.semantic).is_none_or(|(_, base)| base != "TANGENT"));
        dropped += usize::from(p.attributes.len() < before);
    }
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{target_semantic, Attribute, Mesh, Primitive, SourceFormat};
    use serde_json::json;

    fn attribute(semantic: &str, components: usize) -> Attribute {
        Attribute { semantic: semantic.into(), components, data: vec![0.0; components] }
    }

    #[test]
    fn normal_maps_and_anisotropy_use_tangents_and_nothing_else_does() {
        assert!(uses_tangents(&json!({ "normalTexture": { "index": 0 } })));
        assert!(uses_tangents(&json!({ "extensions": { "KHR_materials_clearcoat": { "clearcoatNormalTexture": { "index": 1 } } } })));
        assert!(uses_tangents(&json!({ "extensions": { "KHR_materials_anisotropy": { "anisotropyStrength": 0.5 } } })));
        assert!(!uses_tangents(&json!({ "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 } }, "occlusionTexture": { "index": 1 } })));
        assert!(!uses_tangents(&json!({ "normalTexture": {} })), "a normal map without an image is none");
    }

    #[test]
    fn tangents_and_their_deltas_go_where_unused() {
        let mut model = Model::new(SourceFormat::Glb);
        model.materials = vec![json!({ "normalTexture": { "index": 0 } }), json!({ "pbrMetallicRoughness": { "baseColorFactor": [1, 0, 0, 1] } })];
        let primitive = |material| Primitive {
            positions: vec![[0.0; 3]],
            attributes: vec![
                attribute("NORMAL", 3),
                attribute("TANGENT", 4),
                attribute(&target_semantic(0, "TANGENT"), 3),
                attribute(&target_semantic(0, "POSITION"), 3),
            ],
            indices: vec![],
            material,
            variant_materials: Vec::new(),
        };
        model.push_root_mesh(Mesh { name: None, primitives: vec![primitive(Some(0)), primitive(Some(1)), primitive(None)], ..Default::default() });
        assert_eq!(drop_unused_tangents(&mut model), 2);
        let kept: Vec<usize> = model.meshes[0].primitives.iter().map(|p| p.attributes.len()).collect();
        assert_eq!(kept, vec![4, 2, 2]);
        assert!(model.meshes[0].primitives[1].attribute(&target_semantic(0, "POSITION")).is_some());
    }
}
