//! Materials and samplers are kept as their source JSON; on writing, values equal to the glTF 2.0
//! defaults are left out (a reader applies them anyway), which is what re-serialising tools do and
//! saves a few hundred bytes per material. Only keys whose default the core specification (or
//! KHR_texture_transform) states are touched; everything else passes through. Fractional numbers
//! (colour factors, roughness, transforms) are written as the shortest decimal that reads back to
//! the same f32, the precision every viewer holds them in: a source written through f64
//! (`0.06400000303983688`) keeps its value in a third of the characters.
use super::compact_json::short_f32;
use serde_json::{Map, Value};

const REPEAT: u64 = 10497;

fn number_is(v: &Value, default: f64) -> bool {
    v.as_f64() == Some(default)
}

fn numbers_are(v: &Value, default: &[f64]) -> bool {
    v.as_array().is_some_and(|a| a.len() == default.len() && a.iter().zip(default).all(|(x, d)| number_is(x, *d)))
}

fn remove_if(object: &mut Map<String, Value>, key: &str, is_default: impl Fn(&Value) -> bool) {
    if object.get(key).is_some_and(is_default) {
        object.remove(key);
    }
}

/// Walks a material: every textureInfo (an object with `index`) and KHR_texture_transform inside it.
fn strip_texture_infos(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if object.contains_key("index") {
                remove_if(object, "texCoord", |v| number_is(v, 0.0));
            }
            if let Some(Value::Object(transform)) = object.get_mut("KHR_texture_transform") {
                // The transform's own texCoord overrides the textureInfo's: it is never dropped.
                remove_if(transform, "offset", |v| numbers_are(v, &[0.0, 0.0]));
                remove_if(transform, "rotation", |v| number_is(v, 0.0));
                remove_if(transform, "scale", |v| numbers_are(v, &[1.0, 1.0]));
            }
            object.values_mut().for_each(strip_texture_infos);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_texture_infos),
        _ => {}
    }
}

/// The material without the values glTF 2.0 defines as defaults.
pub fn material_without_defaults(material: &Value) -> Value {
    let mut material = material.clone();
    let Some(object) = material.as_object_mut() else { return material };
    let mask = object.get("alphaMode").and_then(Value::as_str) == Some("MASK");
    remove_if(object, "alphaMode", |v| v.as_str() == Some("OPAQUE"));
    if mask {
        remove_if(object, "alphaCutoff", |v| number_is(v, 0.5));
    }
    remove_if(object, "doubleSided", |v| v.as_bool() == Some(false));
    remove_if(object, "emissiveFactor", |v| numbers_are(v, &[0.0, 0.0, 0.0]));
    if let Some(Value::Object(pbr)) = object.get_mut("pbrMetallicRoughness") {
        remove_if(pbr, "baseColorFactor", |v| numbers_are(v, &[1.0, 1.0, 1.0, 1.0]));
        remove_if(pbr, "metallicFactor", |v| number_is(v, 1.0));
        remove_if(pbr, "roughnessFactor", |v| number_is(v, 1.0));
    }
    // An absent pbrMetallicRoughness means all its defaults.
    remove_if(object, "pbrMetallicRoughness", |v| v.as_object().is_some_and(Map::is_empty));
    if let Some(Value::Object(normal)) = object.get_mut("normalTexture") {
        remove_if(normal, "scale", |v| number_is(v, 1.0));
    }
    if let Some(Value::Object(occlusion)) = object.get_mut("occlusionTexture") {
        remove_if(occlusion, "strength", |v| number_is(v, 1.0));
    }
    strip_texture_infos(&mut material);
    shorten_fractions(&mut material);
    material
}

/// Every number with a fraction, anywhere in the material but its `extras` (an application's own
/// data, read at whatever precision it chose), as its shortest f32 decimal. Integers (texture
/// indices, texCoord) are not floats in the JSON and stay as they are.
fn shorten_fractions(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(x) = n.as_f64().filter(|x| x.is_finite() && (*x as f32).is_finite()) {
                *value = short_f32(x as f32);
            }
        }
        Value::Object(object) => object.iter_mut().filter(|(key, _)| *key != "extras").for_each(|(_, v)| shorten_fractions(v)),
        Value::Array(items) => items.iter_mut().for_each(shorten_fractions),
        _ => {}
    }
}

/// The sampler without the default wrap modes (REPEAT).
pub fn sampler_without_defaults(sampler: &Value) -> Value {
    let mut sampler = sampler.clone();
    if let Some(object) = sampler.as_object_mut() {
        remove_if(object, "wrapS", |v| v.as_u64() == Some(REPEAT));
        remove_if(object, "wrapT", |v| v.as_u64() == Some(REPEAT));
    }
    sampler
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_go_and_everything_else_stays() {
        let material = json!({
            "name": "m", "alphaMode": "OPAQUE", "alphaCutoff": 0.5, "doubleSided": false, "emissiveFactor": [0, 0, 0],
            "pbrMetallicRoughness": { "baseColorFactor": [1, 1, 1, 1], "metallicFactor": 1, "roughnessFactor": 0.5,
                "baseColorTexture": { "index": 0, "texCoord": 0,
                    "extensions": { "KHR_texture_transform": { "offset": [0, 0], "scale": [30, -30], "texCoord": 0 } } } },
            "normalTexture": { "index": 1, "scale": 1, "texCoord": 1 },
            "occlusionTexture": { "index": 2, "strength": 0.8 },
            "extensions": { "KHR_materials_sheen": { "sheenColorTexture": { "index": 3, "texCoord": 0 } } }
        });
        assert_eq!(
            material_without_defaults(&material),
            json!({
                // alphaCutoff only means something in MASK mode, but its default is dropped only there:
                // elsewhere it is kept as given (the validator warns about it, nothing more).
                "name": "m", "alphaCutoff": 0.5,
                "pbrMetallicRoughness": { "roughnessFactor": 0.5,
                    "baseColorTexture": { "index": 0,
                        "extensions": { "KHR_texture_transform": { "scale": [30, -30], "texCoord": 0 } } } },
                "normalTexture": { "index": 1, "texCoord": 1 },
                "occlusionTexture": { "index": 2, "strength": 0.8 },
                "extensions": { "KHR_materials_sheen": { "sheenColorTexture": { "index": 3 } } }
            })
        );
    }

    #[test]
    fn a_default_pbr_block_goes_and_mask_cutoff_default_goes() {
        let material = json!({ "alphaMode": "MASK", "alphaCutoff": 0.5, "doubleSided": true,
            "pbrMetallicRoughness": { "metallicFactor": 1.0 } });
        assert_eq!(material_without_defaults(&material), json!({ "alphaMode": "MASK", "doubleSided": true }));
        assert_eq!(material_without_defaults(&json!({ "alphaMode": "BLEND", "alphaCutoff": 0.3 })), json!({ "alphaMode": "BLEND", "alphaCutoff": 0.3 }));
    }

    #[test]
    fn fractions_are_written_as_their_shortest_f32() {
        let material = json!({ "pbrMetallicRoughness": { "baseColorFactor": [0.06400000303983688, 0.5, 1.0, 0.04050629958510399],
            "metallicFactor": 0.0, "baseColorTexture": { "index": 3 } }, "emissiveFactor": [1e-45, 0.1, 0.0], "extras": { "ior": 1.4500000476837158 } });
        let text = serde_json::to_string(&material_without_defaults(&material)).unwrap();
        assert_eq!(
            text,
            r#"{"emissiveFactor":[1e-45,0.1,0],"extras":{"ior":1.4500000476837158},"pbrMetallicRoughness":{"baseColorFactor":[0.064,0.5,1,0.0405063],"baseColorTexture":{"index":3},"metallicFactor":0}}"#
        );
        // The same f32 values as before, as a viewer reads them.
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["pbrMetallicRoughness"]["baseColorFactor"][0].as_f64().unwrap() as f32, 0.06400000303983688f64 as f32);
        assert_eq!(back["pbrMetallicRoughness"]["baseColorFactor"][3].as_f64().unwrap() as f32, 0.04050629958510399f64 as f32);
    }

    #[test]
    fn samplers_lose_repeat_wraps_only() {
        let sampler = json!({ "magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 33071 });
        assert_eq!(sampler_without_defaults(&sampler), json!({ "magFilter": 9729, "minFilter": 9987, "wrapT": 33071 }));
    }
}
