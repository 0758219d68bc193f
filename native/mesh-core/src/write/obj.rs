//! Wavefront OBJ: one `o` block per mesh instance in world space, `v/vt/vn` faces, v flipped back up.
use crate::bake::bake;
use crate::model::Model;
use std::fmt::Write;

pub fn write_obj(model: &Model) -> Vec<u8> {
    let mut out = String::from("# written by kiln\n");
    let (mut v_base, mut t_base, mut n_base) = (1usize, 1usize, 1usize);
    for (index, object) in bake(model).iter().enumerate() {
        let _ = writeln!(out, "o {}", object.name.clone().unwrap_or_else(|| format!("object_{}", index + 1)).replace(char::is_whitespace, "_"));
        for p in &object.primitives {
            let normals = p.attribute("NORMAL");
            let uvs = p.attribute("TEXCOORD_0");
            for q in &p.positions {
                let _ = writeln!(out, "v {} {} {}", q[0], q[1], q[2]);
            }
            for t in uvs.iter().flat_map(|a| a.data.chunks_exact(2)) {
                let _ = writeln!(out, "vt {} {}", t[0], 1.0 - t[1]);
            }
            for n in normals.iter().flat_map(|a| a.data.chunks_exact(3)) {
                let _ = writeln!(out, "vn {} {} {}", n[0], n[1], n[2]);
            }
            for tri in p.indices.chunks_exact(3) {
                out.push('f');
                for &i in tri {
                    let i = i as usize;
                    let _ = match (uvs.is_some(), normals.is_some()) {
                        (true, true) => write!(out, " {}/{}/{}", v_base + i, t_base + i, n_base + i),
                        (true, false) => write!(out, " {}/{}", v_base + i, t_base + i),
                        (false, true) => write!(out, " {}//{}", v_base + i, n_base + i),
                        (false, false) => write!(out, " {}", v_base + i),
                    };
                }
                out.push('\n');
            }
            v_base += p.positions.len();
            t_base += if uvs.is_some() { p.positions.len() } else { 0 };
            n_base += if normals.is_some() { p.positions.len() } else { 0 };
        }
    }
    out.into_bytes()
}
