//! The glTF extensions a JSON value uses: the keys of every `extensions` object in it, at any
//! depth (a material's own, its texture references', a node's).
use serde_json::Value;

/// Adds the name of every extension used inside `value` to `out`.
pub fn extension_names(value: &Value, out: &mut impl Extend<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(extensions)) = map.get("extensions") {
                out.extend(extensions.keys().cloned());
            }
            map.values().for_each(|v| extension_names(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| extension_names(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_come_from_every_depth() {
        let material = json!({
            "extensions": { "KHR_materials_sheen": { "sheenColorTexture": { "index": 0, "extensions": { "KHR_texture_transform": {} } } } },
            "normalTexture": { "index": 1 }
        });
        let mut names = Vec::new();
        extension_names(&material, &mut names);
        names.sort();
        assert_eq!(names, ["KHR_materials_sheen", "KHR_texture_transform"]);
    }
}
