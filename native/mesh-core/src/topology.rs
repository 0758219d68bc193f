//! Edge and face statistics of a triangle mesh. Vertices are first welded by exact position so
//! UV seams do not count as borders; each undirected edge is keyed as one u64, the keys are sorted
//! and runs counted: a run of 1 is a border edge, more than 2 a non-manifold edge.
use crate::math::{face_normal, length};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Topology {
    pub welded_vertices: usize,
    pub edges: usize,
    pub boundary_edges: usize,
    pub non_manifold_edges: usize,
    pub degenerate_faces: usize,
    pub components: usize,
}

impl Topology {
    /// Closed 2-manifold: no border and no edge shared by more than two faces.
    pub fn watertight(&self) -> bool {
        self.boundary_edges == 0 && self.non_manifold_edges == 0
    }
}

/// Maps each vertex to the first vertex with bit-identical position (-0.0 equals 0.0).
pub fn weld_by_position(positions: &[[f32; 3]]) -> Vec<u32> {
    let mut first: HashMap<[u32; 3], u32> = HashMap::with_capacity(positions.len());
    positions.iter().enumerate().map(|(i, p)| *first.entry(p.map(|c| if c == 0.0 { 0 } else { c.to_bits() })).or_insert(i as u32)).collect()
}

/// Disjoint-set forest with path halving: groups connected faces.
pub struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    pub fn new(n: usize) -> Self {
        UnionFind { parent: (0..n as u32).collect() }
    }

    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    pub fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
}

pub fn analyze(positions: &[[f32; 3]], indices: &[u32]) -> Topology {
    let weld = weld_by_position(positions);
    let mut keys: Vec<u64> = Vec::with_capacity(indices.len());
    let mut uf = UnionFind::new(positions.len());
    let mut degenerate_faces = 0;
    for tri in indices.chunks_exact(3) {
        let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| weld[i as usize]);
        let area = length(face_normal(positions[a as usize], positions[b as usize], positions[c as usize]));
        if a == b || b == c || a == c || area == 0.0 {
            degenerate_faces += 1;
        }
        for (x, y) in [(a, b), (b, c), (c, a)] {
            if x != y {
                keys.push(((x.min(y) as u64) << 32) | x.max(y) as u64);
            }
        }
        uf.union(a, b);
        uf.union(b, c);
    }
    keys.sort_unstable();
    let mut t = Topology { degenerate_faces, ..Topology::default() };
    let mut i = 0;
    while i < keys.len() {
        let run = keys[i..].iter().take_while(|&&k| k == keys[i]).count();
        t.edges += 1;
        match run {
            1 => t.boundary_edges += 1,
            2 => {}
            _ => t.non_manifold_edges += 1,
        }
        i += run;
    }
    let mut used = vec![false; positions.len()];
    indices.iter().for_each(|&v| used[weld[v as usize] as usize] = true);
    t.welded_vertices = used.iter().filter(|&&u| u).count();
    t.components = (0..positions.len() as u32).filter(|&v| used[v as usize] && uf.find(v) == v).count();
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube() -> (Vec<[f32; 3]>, Vec<u32>) {
        let p: Vec<[f32; 3]> = (0..8).map(|i| [(i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32]).collect();
        let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        let idx = quads.iter().flat_map(|q| [q[0], q[1], q[2], q[0], q[2], q[3]]).collect();
        (p, idx)
    }

    #[test]
    fn a_closed_cube_is_watertight_with_one_component() {
        let (p, i) = cube();
        let t = analyze(&p, &i);
        assert!(t.watertight());
        assert_eq!((t.edges, t.components, t.degenerate_faces, t.welded_vertices), (18, 1, 0, 8));
    }

    #[test]
    fn a_removed_face_leaves_border_edges_and_a_fin_is_non_manifold() {
        let (p, mut i) = cube();
        i.truncate(i.len() - 3);
        assert_eq!(analyze(&p, &i).boundary_edges, 3);
        let (p, mut i) = cube();
        i.extend_from_slice(&[0, 3, 5, 0, 0, 1]);
        let t = analyze(&p, &i);
        assert!(t.non_manifold_edges >= 1);
        assert_eq!(t.degenerate_faces, 1);
    }
}
