//! Places every mesh instance in world space (positions and tangents by the node's world matrix, normals
//! by its cofactor matrix, winding flipped under mirroring): what single-object formats and split need.
use crate::math::{determinant3, normal_matrix, normalize, transform_point};
use crate::model::{target_of, Instance, Model, Primitive};

pub struct BakedObject {
    pub name: Option<String>,
    pub primitives: Vec<Primitive>,
}

pub fn bake_instance(model: &Model, instance: &Instance) -> BakedObject {
    let mesh = &model.meshes[instance.mesh];
    let m = &instance.world;
    let nm = normal_matrix(m);
    let mirrored = determinant3(m) < 0.0;
    let primitives = mesh
        .primitives
        .iter()
        .map(|p| {
            let mut out = p.clone();
            // Baked geometry is static: joint indices and weights mean nothing without the skin,
            // nor morph target deltas without the weights that animate them.
            out.attributes.retain(|a| !a.semantic.starts_with("JOINTS_") && !a.semantic.starts_with("WEIGHTS_") && target_of(&a.semantic).is_none());
            for pos in &mut out.positions {
                *pos = transform_point(m, *pos);
            }
            for attribute in out.attributes.iter_mut().filter(|a| a.semantic == "NORMAL") {
                for n in attribute.data.chunks_exact_mut(3) {
                    let t = [0, 1, 2].map(|r| nm[r][0] * n[0] + nm[r][1] * n[1] + nm[r][2] * n[2]);
                    n.copy_from_slice(&normalize(t).unwrap_or([0.0, 0.0, 1.0]));
                }
            }
            for attribute in out.attributes.iter_mut().filter(|a| a.semantic == "TANGENT" && a.components == 4) {
                for t in attribute.data.chunks_exact_mut(4) {
                    let v = transform_point(m, [t[0], t[1], t[2]]);
                    let origin = transform_point(m, [0.0; 3]);
                    t[..3].copy_from_slice(&normalize(crate::math::sub(v, origin)).unwrap_or([1.0, 0.0, 0.0]));
                }
            }
            if mirrored {
                for tri in out.indices.chunks_exact_mut(3) {
                    tri.swap(1, 2);
                }
            }
            out
        })
        .collect();
    let name = model.nodes[instance.node].name.clone().or_else(|| mesh.name.clone());
    BakedObject { name, primitives }
}

pub fn bake(model: &Model) -> Vec<BakedObject> {
    model.instances().iter().map(|i| bake_instance(model, i)).collect()
}
