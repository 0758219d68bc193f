//! What each image holds, read from the material slots that sample it: colour (sRGB, seen by eye,
//! so lossy perceptual coding is fine) or data (normals, occlusion-roughness-metalness, masks:
//! values a shader computes with, where block artefacts show as lighting errors).
use crate::model::Model;
use crate::texcoord_sets::texture_slots;
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Color,
    /// Linear data; `normal` marks tangent-space normal maps.
    Data {
        normal: bool,
    },
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Color => "color",
            Role::Data { normal: true } => "normal",
            Role::Data { normal: false } => "data",
        }
    }
}

/// Material slots whose texels are sRGB colour (core glTF and the KHR_materials_* extensions).
const COLOR_SLOTS: &[&str] =
    &["baseColorTexture", "emissiveTexture", "sheenColorTexture", "specularColorTexture", "diffuseTexture", "specularGlossinessTexture"];
const NORMAL_SLOTS: &[&str] = &["normalTexture", "clearcoatNormalTexture"];

fn slot_role(slot: &str) -> Role {
    if COLOR_SLOTS.contains(&slot) {
        Role::Color
    } else {
        Role::Data { normal: NORMAL_SLOTS.contains(&slot) }
    }
}

/// The stricter of two uses of one image: data over colour, normal over other data.
fn stricter(a: Role, b: Role) -> Role {
    match (a, b) {
        (Role::Data { normal: x }, Role::Data { normal: y }) => Role::Data { normal: x || y },
        (Role::Data { .. }, _) => a,
        _ => b,
    }
}

/// The image a texture shows through its plain `source`.
pub fn plain_source(texture: &Value) -> Option<usize> {
    texture.get("source").and_then(Value::as_u64).map(|i| i as usize)
}

/// One role per image; images no material samples count as colour.
pub fn image_roles(model: &Model) -> Vec<Role> {
    let mut roles: Vec<Option<Role>> = vec![None; model.images.len()];
    for material in &model.materials {
        for (slot, info) in texture_slots(material) {
            let texture = info.get("index").and_then(Value::as_u64).map(|t| t as usize);
            let Some(image) = texture.and_then(|t| model.textures.get(t)).and_then(plain_source).filter(|&i| i < roles.len()) else { continue };
            let role = slot_role(slot);
            roles[image] = Some(roles[image].map_or(role, |r| stricter(r, role)));
        }
    }
    roles.into_iter().map(|r| r.unwrap_or(Role::Color)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Image, SourceFormat};
    use serde_json::json;

    #[test]
    fn an_image_used_as_colour_and_as_normal_map_is_a_normal_map() {
        let mut model = Model::new(SourceFormat::Glb);
        model.materials = vec![
            json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "metallicRoughnessTexture": {"index": 1}}}),
            json!({"normalTexture": {"index": 2}, "emissiveTexture": {"index": 0}}),
        ];
        model.textures = vec![json!({"source": 0}), json!({"source": 1}), json!({"source": 0})];
        let image = Image { name: None, mime_type: "image/png".into(), data: vec![] };
        model.images = vec![image.clone(), image.clone(), image];
        assert_eq!(image_roles(&model), vec![Role::Data { normal: true }, Role::Data { normal: false }, Role::Color]);
    }
}
