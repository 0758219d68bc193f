//! Binary STL: every mesh instance in world space, one 50-byte record per triangle.
use crate::bake::bake;
use crate::math::{face_normal, normalize};
use crate::model::Model;

pub fn write_stl(model: &Model) -> Vec<u8> {
    let objects = bake(model);
    let count: usize = objects.iter().flat_map(|o| &o.primitives).map(|p| p.face_count()).sum();
    let mut out = vec![0u8; 80];
    out[..15].copy_from_slice(b"written by kiln");
    out.extend_from_slice(&(count as u32).to_le_bytes());
    for p in objects.iter().flat_map(|o| &o.primitives) {
        for t in p.indices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| p.positions[t[k] as usize]);
            let n = normalize(face_normal(a, b, c)).unwrap_or([0.0; 3]);
            for v in [n, a, b, c] {
                v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
            }
            out.extend_from_slice(&[0, 0]);
        }
    }
    out
}
