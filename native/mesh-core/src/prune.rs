//! Removes materials, textures, samplers and images nothing uses, merges byte-identical images,
//! and renumbers every reference (texture slots inside materials and their extensions, texture
//! sources and samplers).
use crate::equal_keys::{first_of_equal, KeyHash, VertexKeys};
use crate::model::{Image, Mesh, Model};
use serde_json::Value;

/// Images keyed by their bytes.
struct ImageBytes<'a>(&'a [Image]);

impl VertexKeys for ImageBytes<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }

    fn hash(&self, i: usize, hash: &mut KeyHash) {
        hash.bytes(&self.0[i].data);
    }

    fn equal(&self, a: usize, b: usize) -> bool {
        self.0[a].data == self.0[b].data
    }
}

/// Calls `f` on every texture reference `{ "index": n }` held by a `...Texture` key.
fn texture_refs(value: &mut Value, f: &mut impl FnMut(&mut Value)) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if key.ends_with("Texture") {
                    if let Some(i) = v.get_mut("index") {
                        f(i);
                    }
                }
                texture_refs(v, f);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| texture_refs(v, f)),
        _ => {}
    }
}

/// Calls `f` on every image reference of a texture: `source`, also inside extensions.
fn image_refs(value: &mut Value, f: &mut impl FnMut(&mut Value)) {
    if let Value::Object(map) = value {
        for (key, v) in map.iter_mut() {
            if key == "source" {
                f(v);
            } else {
                image_refs(v, f);
            }
        }
    }
}

fn as_index(v: &Value) -> Option<usize> {
    v.as_u64().map(|i| i as usize)
}

/// Keeps the listed items in order; returns the old-to-new index map.
fn keep<T: Clone>(items: &mut Vec<T>, used: &[bool]) -> Vec<Option<usize>> {
    let mut map = Vec::with_capacity(items.len());
    let mut kept = Vec::new();
    for (i, item) in items.iter().enumerate() {
        map.push(used.get(i).copied().unwrap_or(false).then(|| {
            kept.push(item.clone());
            kept.len() - 1
        }));
    }
    *items = kept;
    map
}

pub fn prune(model: &mut Model) {
    let mut used_materials = vec![false; model.materials.len()];
    // A material only a variant draws with is used too.
    for p in model.meshes.iter().flat_map(Mesh::drawn) {
        p.materials().for_each(|m| used_materials[m] = true);
    }
    let material_map = keep(&mut model.materials, &used_materials);
    for m in &mut model.meshes {
        m.drawn_mut().for_each(|p| p.renumber_materials(|m| material_map[m]));
    }

    let mut used_textures = vec![false; model.textures.len()];
    for m in &mut model.materials {
        texture_refs(m, &mut |i| {
            if let Some(t) = as_index(i).filter(|&t| t < used_textures.len()) {
                used_textures[t] = true
            }
        });
    }
    let texture_map = keep(&mut model.textures, &used_textures);
    for m in &mut model.materials {
        texture_refs(m, &mut |i| *i = as_index(i).and_then(|t| texture_map.get(t).copied().flatten()).map_or(Value::Null, Value::from));
    }

    // Identical image bytes collapse onto the first copy. The welds' table (equal_keys.rs) hashes
    // the bytes several times faster than the standard map's SipHash, which hashing a model's
    // images twice per optimize made a few percent of a small textured model's time.
    let (first, _) = first_of_equal(&ImageBytes(&model.images));
    let canonical: Vec<usize> = first.into_iter().map(|i| i as usize).collect();
    let mut used_images = vec![false; model.images.len()];
    let mut used_samplers = vec![false; model.samplers.len()];
    for t in &mut model.textures {
        image_refs(t, &mut |s| {
            if let Some(i) = as_index(s).filter(|&i| i < canonical.len()) {
                *s = Value::from(canonical[i]);
                used_images[canonical[i]] = true;
            }
        });
        if let Some(s) = t.get("sampler").and_then(as_index).filter(|&s| s < used_samplers.len()) {
            used_samplers[s] = true;
        }
    }
    let image_map = keep(&mut model.images, &used_images);
    let sampler_map = keep(&mut model.samplers, &used_samplers);
    for t in &mut model.textures {
        image_refs(t, &mut |s| *s = as_index(s).and_then(|i| image_map.get(i).copied().flatten()).map_or(Value::Null, Value::from));
        if let Some(s) = t.get_mut("sampler") {
            *s = as_index(s).and_then(|i| sampler_map.get(i).copied().flatten()).map_or(Value::Null, Value::from);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Image, Mesh, Primitive, SourceFormat};
    use serde_json::json;

    #[test]
    fn unused_materials_go_and_references_are_renumbered_and_duplicate_images_merge() {
        let mut model = Model::new(SourceFormat::Glb);
        model.push_root_mesh(Mesh {
            name: None,
            primitives: vec![Primitive { positions: vec![[0.0; 3]; 3], indices: vec![0, 1, 2], material: Some(1), ..Primitive::default() }],
            ..Default::default()
        });
        model.materials = vec![json!({"name": "unused"}), json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": 2}}, "normalTexture": {"index": 1}})];
        model.textures = vec![json!({"source": 0}), json!({"source": 1, "sampler": 1}), json!({"source": 2})];
        model.samplers = vec![json!({}), json!({"magFilter": 9729})];
        let image = |b: u8| Image { name: None, mime_type: "image/png".into(), data: vec![b; 4] };
        model.images = vec![image(1), image(2), image(2)];
        prune(&mut model);
        assert_eq!(model.materials.len(), 1);
        assert_eq!(model.meshes[0].primitives[0].material, Some(0));
        assert_eq!(model.materials[0]["normalTexture"]["index"], 0);
        assert_eq!(model.materials[0]["pbrMetallicRoughness"]["baseColorTexture"]["index"], 1);
        assert_eq!(model.textures, vec![json!({"source": 0, "sampler": 0}), json!({"source": 0})]);
        assert_eq!(model.images.len(), 1);
        assert_eq!(model.samplers, vec![json!({"magFilter": 9729})]);
    }
}
