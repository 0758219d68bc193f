//! Loose debris removal: drops the small disconnected pieces that generators and scanners leave
//! floating around a model. Vertices of all primitives of a mesh are welded by position (so UV
//! seams and material borders do not split a piece), faces are grouped into connected pieces with a
//! union-find over their corners, and each piece's surface area is summed in one pass; a piece
//! whose area is below `min_fraction` of the mesh's total is dropped, except the largest one, so a
//! mesh is never emptied. Only index buffers change: unused vertices go at the next compaction.
use crate::model::Mesh;
use crate::topology::{weld_by_position, UnionFind};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DebrisRemoved {
    pub pieces: usize,
    pub faces: usize,
}

impl std::ops::AddAssign for DebrisRemoved {
    fn add_assign(&mut self, other: Self) {
        self.pieces += other.pieces;
        self.faces += other.faces;
    }
}

fn triangle_area(a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> f64 {
    let u = [b[0] as f64 - a[0] as f64, b[1] as f64 - a[1] as f64, b[2] as f64 - a[2] as f64];
    let v = [c[0] as f64 - a[0] as f64, c[1] as f64 - a[1] as f64, c[2] as f64 - a[2] as f64];
    let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    0.5 * (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt()
}

/// Removes the faces of every connected piece of `mesh` smaller than `min_fraction` of its area.
pub fn remove_debris(mesh: &mut Mesh, min_fraction: f64) -> DebrisRemoved {
    if min_fraction <= 0.0 {
        return DebrisRemoved::default();
    }
    let bases: Vec<u32> = mesh.primitives.iter().scan(0u32, |next, p| Some(std::mem::replace(next, *next + p.positions.len() as u32))).collect();
    let positions: Vec<[f32; 3]> = mesh.primitives.iter().flat_map(|p| p.positions.iter().copied()).collect();
    let weld = weld_by_position(&positions);
    let corner = |base: u32, i: u32| weld[(base + i) as usize];

    let mut pieces = UnionFind::new(positions.len());
    for (p, &base) in mesh.primitives.iter().zip(&bases) {
        for t in p.indices.chunks_exact(3) {
            let a = corner(base, t[0]);
            pieces.union(a, corner(base, t[1]));
            pieces.union(a, corner(base, t[2]));
        }
    }
    let mut area = vec![0.0f64; positions.len()];
    let mut faces = vec![0usize; positions.len()];
    for (p, &base) in mesh.primitives.iter().zip(&bases) {
        for t in p.indices.chunks_exact(3) {
            let root = pieces.find(corner(base, t[0])) as usize;
            area[root] += triangle_area(p.positions[t[0] as usize], p.positions[t[1] as usize], p.positions[t[2] as usize]);
            faces[root] += 1;
        }
    }
    let total: f64 = area.iter().sum();
    let Some(largest) = (0..area.len()).filter(|&r| faces[r] > 0).max_by(|&x, &y| area[x].total_cmp(&area[y])) else {
        return DebrisRemoved::default();
    };
    let threshold = min_fraction * total;
    let dropped: Vec<bool> = (0..area.len()).map(|r| faces[r] > 0 && r != largest && area[r] < threshold).collect();
    let removed = DebrisRemoved { pieces: dropped.iter().filter(|&&d| d).count(), faces: (0..area.len()).filter(|&r| dropped[r]).map(|r| faces[r]).sum() };
    if removed.pieces == 0 {
        return removed;
    }
    for (p, &base) in mesh.primitives.iter_mut().zip(&bases) {
        let mut kept = Vec::with_capacity(p.indices.len());
        for t in p.indices.chunks_exact(3) {
            if !dropped[pieces.find(corner(base, t[0])) as usize] {
                kept.extend_from_slice(t);
            }
        }
        p.indices = kept;
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Primitive;

    /// An axis-aligned closed box as 12 triangles, corners at `min` and `min + size`.
    fn push_box(p: &mut Primitive, min: [f32; 3], size: f32) {
        let base = p.positions.len() as u32;
        p.positions.extend((0..8).map(|i| [min[0] + size * (i & 1) as f32, min[1] + size * ((i >> 1) & 1) as f32, min[2] + size * ((i >> 2) & 1) as f32]));
        let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        p.indices.extend(quads.iter().flat_map(|q| [q[0], q[1], q[2], q[0], q[2], q[3]]).map(|i| base + i));
    }

    #[test]
    fn tiny_specks_go_and_the_big_piece_stays_whole() {
        let mut body = Primitive::default();
        push_box(&mut body, [0.0; 3], 1.0);
        let mut specks = Primitive { material: Some(1), ..Primitive::default() };
        push_box(&mut specks, [3.0, 0.0, 0.0], 0.01);
        push_box(&mut specks, [0.0, 3.0, 0.0], 0.02);
        // A piece touching the body by position only (a seam across primitives) belongs to it.
        push_box(&mut specks, [1.0, 1.0, 1.0], 0.01);
        let mut mesh = Mesh { name: None, primitives: vec![body.clone(), specks], ..Default::default() };
        let removed = remove_debris(&mut mesh, 0.002);
        assert_eq!(removed, DebrisRemoved { pieces: 2, faces: 24 });
        assert_eq!(mesh.primitives[0].indices, body.indices);
        assert_eq!(mesh.primitives[1].indices.len(), 36);
        assert!(mesh.primitives[1].indices.iter().all(|&i| i >= 16));
    }

    #[test]
    fn off_or_all_small_pieces_keep_the_largest() {
        let mut p = Primitive::default();
        for k in 0..3 {
            push_box(&mut p, [k as f32 * 2.0, 0.0, 0.0], 1.0 + k as f32 * 0.1);
        }
        let mut mesh = Mesh { name: None, primitives: vec![p], ..Default::default() };
        assert_eq!(remove_debris(&mut mesh, 0.0), DebrisRemoved::default());
        assert_eq!(remove_debris(&mut mesh, 0.5), DebrisRemoved { pieces: 2, faces: 24 });
        assert_eq!(mesh.primitives[0].indices.iter().min(), Some(&16));
    }
}
