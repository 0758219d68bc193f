//! Binary little-endian PLY: all mesh instances merged in world space; normals, texture
//! coordinates and colours are written when every primitive has them.
use crate::bake::bake;
use crate::model::{Model, Primitive};

pub fn write_ply(model: &Model) -> Vec<u8> {
    let primitives: Vec<Primitive> = bake(model).into_iter().flat_map(|o| o.primitives).collect();
    let all = |semantic: &str| primitives.iter().all(|p| p.attribute(semantic).is_some());
    let (normals, uvs, colors) = (all("NORMAL"), all("TEXCOORD_0"), all("COLOR_0"));
    let vertices: usize = primitives.iter().map(|p| p.positions.len()).sum();
    let faces: usize = primitives.iter().map(Primitive::face_count).sum();
    let mut header = format!(
        "ply\nformat binary_little_endian 1.0\ncomment written by kiln\nelement vertex {vertices}\nproperty float x\nproperty float y\nproperty float z\n"
    );
    if normals {
        header.push_str("property float nx\nproperty float ny\nproperty float nz\n");
    }
    if uvs {
        header.push_str("property float s\nproperty float t\n");
    }
    if colors {
        header.push_str("property uchar red\nproperty uchar green\nproperty uchar blue\nproperty uchar alpha\n");
    }
    header.push_str(&format!("element face {faces}\nproperty list uchar uint vertex_indices\nend_header\n"));
    let mut out = header.into_bytes();
    for p in &primitives {
        for (v, q) in p.positions.iter().enumerate() {
            q.iter().for_each(|c| out.extend_from_slice(&c.to_le_bytes()));
            if normals {
                let n = p.attribute("NORMAL").expect("checked above");
                n.data[v * 3..v * 3 + 3].iter().for_each(|c| out.extend_from_slice(&c.to_le_bytes()));
            }
            if uvs {
                let t = &p.attribute("TEXCOORD_0").expect("checked above").data[v * 2..v * 2 + 2];
                out.extend_from_slice(&t[0].to_le_bytes());
                out.extend_from_slice(&(1.0 - t[1]).to_le_bytes());
            }
            if colors {
                let c = p.attribute("COLOR_0").expect("checked above");
                let rgba: Vec<f32> = (0..4).map(|k| if k < c.components { c.data[v * c.components + k] } else { 1.0 }).collect();
                out.extend(rgba.iter().map(|x| (x.clamp(0.0, 1.0) * 255.0).round() as u8));
            }
        }
    }
    let mut base = 0u32;
    for p in &primitives {
        for tri in p.indices.chunks_exact(3) {
            out.push(3);
            tri.iter().for_each(|&i| out.extend_from_slice(&(base + i).to_le_bytes()));
        }
        base += p.positions.len() as u32;
    }
    out
}
