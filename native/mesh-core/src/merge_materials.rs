//! Materials that differ only in their names draw the same: one of them is kept and every
//! primitive points at it, as gltfpack does. Fewer materials means less JSON, and static meshes
//! that used the copies then merge into one primitive (merge.rs groups by material), one draw
//! call instead of several. The copies themselves go with the unused materials (prune.rs).
use crate::model::Model;
use serde_json::Value;

/// A material as a viewer sees it: everything but its name.
fn appearance(material: &Value) -> Value {
    let mut material = material.clone();
    if let Some(object) = material.as_object_mut() {
        object.remove("name");
    }
    material
}

/// Points every primitive at the first of the materials that look the same as its own; returns
/// how many materials nothing uses any more.
pub fn merge_equal_materials(model: &mut Model) -> usize {
    let looks: Vec<Value> = model.materials.iter().map(appearance).collect();
    // Quadratic in the material count, which is small (tens) next to the vertex work.
    let first_alike: Vec<usize> = (0..looks.len()).map(|i| (0..i).find(|&j| looks[j] == looks[i]).unwrap_or(i)).collect();
    let merged = first_alike.iter().enumerate().filter(|(i, first)| i != *first).count();
    if merged > 0 {
        for m in &mut model.meshes {
            m.drawn_mut().for_each(|p| p.renumber_materials(|m| Some(first_alike.get(m).copied().unwrap_or(m))));
        }
    }
    merged
}

/// The tool's note for `merged` materials folded into others.
pub fn merged_materials_note(merged: usize) -> Option<String> {
    (merged > 0).then(|| format!("Merged {merged} material(s) identical to another but for the name; their primitives use the first one."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Mesh, Primitive, SourceFormat};
    use serde_json::json;

    fn with_materials(materials: Vec<Value>) -> Model {
        let mut model = Model::new(SourceFormat::Glb);
        let primitives = (0..materials.len()).map(|m| Primitive { material: Some(m), ..Primitive::default() }).collect();
        model.meshes.push(Mesh { primitives, ..Mesh::default() });
        model.materials = materials;
        model
    }

    #[test]
    fn materials_alike_but_for_the_name_share_the_first() {
        let truck = json!({ "name": "truck", "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 }, "metallicFactor": 0 } });
        let wheels = json!({ "name": "wheels", "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 }, "metallicFactor": 0 } });
        let glass = json!({ "name": "glass", "pbrMetallicRoughness": { "metallicFactor": 0 } });
        let mut model = with_materials(vec![truck, glass, wheels]);
        assert_eq!(merge_equal_materials(&mut model), 1);
        let used: Vec<_> = model.meshes[0].primitives.iter().map(|p| p.material).collect();
        assert_eq!(used, [Some(0), Some(1), Some(0)]);
    }

    #[test]
    fn any_other_difference_keeps_both() {
        let a = json!({ "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 } } });
        let b = json!({ "pbrMetallicRoughness": { "baseColorTexture": { "index": 0, "texCoord": 1 } } });
        let c = json!({ "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 } }, "doubleSided": true });
        let mut model = with_materials(vec![a, b, c]);
        assert_eq!(merge_equal_materials(&mut model), 0);
        let used: Vec<_> = model.meshes[0].primitives.iter().map(|p| p.material).collect();
        assert_eq!(used, [Some(0), Some(1), Some(2)]);
    }
}
