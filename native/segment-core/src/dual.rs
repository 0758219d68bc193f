//! Dual graph of a triangle soup.
//!
//! Vertices are welded by exact position (so unwelded seams still connect), faces that share a
//! welded edge become neighbours, and each face gets its area, unit normal and centroid. Faces with
//! out-of-range indices or non-finite coordinates are marked invalid and get no neighbours.
//! Non-manifold edges chain their faces so the pieces stay connected.
//! Each dual edge carries the shared edge length and its concavity: the "angular distance"
//! `1 - cos(theta)` of Liu & Zhang / Katz & Tal between (lightly smoothed) face normals for a
//! concave edge, 0 for a convex or flat one, because parts meet at concave creases. Pieces whose
//! signed volume is negative (wound inside out) have their concavity test flipped.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

pub struct Dual {
    pub faces: usize,
    pub valid: Vec<bool>,
    pub area: Vec<f64>,
    pub centroid: Vec<[f64; 3]>,
    /// CSR adjacency: neighbours of face `f` are `adj[start[f]..start[f + 1]]`.
    pub start: Vec<u32>,
    pub adj: Vec<u32>,
    /// Length of the shared edge, per adjacency entry.
    pub edge_len: Vec<f64>,
    /// Concavity (angular distance of concave edges, else 0), per adjacency entry.
    pub angle: Vec<f64>,
}

/// Multiplicative hash for welding keys (std's SipHash is needlessly slow here).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(b as u32);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (self.0.rotate_left(5) ^ v as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub fn len(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// Welded vertex id per input vertex (`u32::MAX` for non-finite positions).
fn weld(positions: &[[f32; 3]]) -> Vec<u32> {
    let mut map: HashMap<[u32; 3], u32, BuildHasherDefault<KeyHasher>> =
        HashMap::with_capacity_and_hasher(positions.len(), Default::default());
    let mut ids = Vec::with_capacity(positions.len());
    for p in positions {
        if !(p[0].is_finite() && p[1].is_finite() && p[2].is_finite()) {
            ids.push(u32::MAX);
            continue;
        }
        // +0.0 and -0.0 are the same point.
        let key = [
            (p[0] + 0.0).to_bits(),
            (p[1] + 0.0).to_bits(),
            (p[2] + 0.0).to_bits(),
        ];
        let next = map.len() as u32;
        ids.push(*map.entry(key).or_insert(next));
    }
    ids
}

pub fn build(positions: &[[f32; 3]], indices: &[[u32; 3]], smoothing: usize) -> Dual {
    let faces = indices.len();
    let ids = weld(positions);
    let mut valid = vec![false; faces];
    let mut area = vec![0.0; faces];
    let mut normal = vec![[0.0; 3]; faces];
    let mut centroid = vec![[0.0; 3]; faces];
    let mut welded = vec![[0u32; 3]; faces];
    // Half-edges as (min vertex << 32 | max vertex, face).
    let mut half: Vec<(u64, u32)> = Vec::with_capacity(faces * 3);
    for (f, tri) in indices.iter().enumerate() {
        let mut w = [0u32; 3];
        let mut ok = true;
        for k in 0..3 {
            let i = tri[k] as usize;
            if i >= ids.len() || ids[i] == u32::MAX {
                ok = false;
                break;
            }
            w[k] = ids[i];
        }
        if !ok {
            continue;
        }
        valid[f] = true;
        welded[f] = w;
        let p = |k: usize| {
            let q = positions[tri[k] as usize];
            [q[0] as f64, q[1] as f64, q[2] as f64]
        };
        let (a, b, c) = (p(0), p(1), p(2));
        let n = cross(sub(b, a), sub(c, a));
        let l = len(n);
        area[f] = 0.5 * l;
        if l > 0.0 {
            normal[f] = [n[0] / l, n[1] / l, n[2] / l];
        }
        centroid[f] = [
            (a[0] + b[0] + c[0]) / 3.0,
            (a[1] + b[1] + c[1]) / 3.0,
            (a[2] + b[2] + c[2]) / 3.0,
        ];
        for k in 0..3 {
            let (u, v) = (w[k], w[(k + 1) % 3]);
            if u != v {
                half.push((((u.min(v) as u64) << 32) | u.max(v) as u64, f as u32));
            }
        }
    }
    half.sort_unstable();

    // Pair up faces around each edge; a non-manifold edge chains its faces so they stay connected.
    let mut pairs: Vec<(u32, u32, u64)> = Vec::with_capacity(half.len());
    let mut i = 0;
    while i < half.len() {
        let mut j = i + 1;
        while j < half.len() && half[j].0 == half[i].0 {
            if half[j].1 != half[j - 1].1 {
                pairs.push((half[j - 1].1, half[j].1, half[i].0));
            }
            j += 1;
        }
        i = j;
    }

    let mut degree = vec![0u32; faces + 1];
    for &(a, b, _) in &pairs {
        degree[a as usize] += 1;
        degree[b as usize] += 1;
    }
    let mut start = vec![0u32; faces + 1];
    for f in 0..faces {
        start[f + 1] = start[f] + degree[f];
    }
    let total = start[faces] as usize;
    let mut fill: Vec<u32> = start[..faces].to_vec();
    let mut adj = vec![0u32; total];
    let mut edge_len = vec![0.0; total];
    let mut angle = vec![0.0; total];
    // Position of a welded vertex: any input vertex that maps to it (only needed for lengths).
    let mut rep = vec![
        0u32;
        ids.iter()
            .filter(|&&v| v != u32::MAX)
            .map(|&v| v as usize + 1)
            .max()
            .unwrap_or(0)
    ];
    for (i, &v) in ids.iter().enumerate() {
        if v != u32::MAX {
            rep[v as usize] = i as u32;
        }
    }
    for &(a, b, key) in &pairs {
        let (u, v) = ((key >> 32) as usize, (key & 0xffff_ffff) as usize);
        let pu = positions[rep[u] as usize];
        let pv = positions[rep[v] as usize];
        let l = len([
            (pu[0] - pv[0]) as f64,
            (pu[1] - pv[1]) as f64,
            (pu[2] - pv[2]) as f64,
        ]);
        for (x, y) in [(a as usize, b), (b as usize, a)] {
            let s = fill[x] as usize;
            fill[x] += 1;
            adj[s] = y;
            edge_len[s] = l;
        }
    }
    let inward = inward_faces(positions, indices, &valid, &start, &adj);
    let smooth = smooth_normals(&normal, &area, &start, &adj, smoothing);
    for f in 0..faces {
        for k in start[f] as usize..start[f + 1] as usize {
            let g = adj[k] as usize;
            // A degenerate face has no normal; treat its edges as flat.
            let cos = if area[f] > 0.0 && area[g] > 0.0 {
                dot(smooth[f], smooth[g]).clamp(-1.0, 1.0)
            } else {
                1.0
            };
            let concave =
                (dot(sub(centroid[g], centroid[f]), sub(smooth[f], smooth[g])) > 0.0) != inward[f];
            angle[k] = if concave { 1.0 - cos } else { 0.0 };
        }
    }
    Dual {
        faces,
        valid,
        area,
        centroid,
        start,
        adj,
        edge_len,
        angle,
    }
}

/// Area-weighted averaging of face normals over edge neighbours, `rounds` times, so crease
/// angles measure the shape's bending rather than tessellation noise.
fn smooth_normals(
    normal: &[[f64; 3]],
    area: &[f64],
    start: &[u32],
    adj: &[u32],
    rounds: usize,
) -> Vec<[f64; 3]> {
    let mut cur = normal.to_vec();
    let mut next = vec![[0.0; 3]; normal.len()];
    for _ in 0..rounds {
        for f in 0..normal.len() {
            let mut s = [0.0; 3];
            for &g in
                std::iter::once(&(f as u32)).chain(&adj[start[f] as usize..start[f + 1] as usize])
            {
                let (n, w) = (cur[g as usize], area[g as usize]);
                s = [s[0] + n[0] * w, s[1] + n[1] * w, s[2] + n[2] * w];
            }
            let l = len(s);
            next[f] = if l > 0.0 {
                [s[0] / l, s[1] / l, s[2] / l]
            } else {
                cur[f]
            };
        }
        std::mem::swap(&mut cur, &mut next);
    }
    cur
}

/// Marks the faces of connected pieces with negative signed volume (normals pointing inwards).
fn inward_faces(
    positions: &[[f32; 3]],
    indices: &[[u32; 3]],
    valid: &[bool],
    start: &[u32],
    adj: &[u32],
) -> Vec<bool> {
    let n = valid.len();
    let mut comp = vec![u32::MAX; n];
    let mut volume = Vec::new();
    let mut stack = Vec::new();
    for seed in 0..n {
        if comp[seed] != u32::MAX || !valid[seed] {
            continue;
        }
        let id = volume.len() as u32;
        let mut vol = 0.0;
        comp[seed] = id;
        stack.push(seed as u32);
        while let Some(f) = stack.pop() {
            let f = f as usize;
            let p = |k: usize| {
                let q = positions[indices[f][k] as usize];
                [q[0] as f64, q[1] as f64, q[2] as f64]
            };
            vol += dot(p(0), cross(p(1), p(2)));
            for &g in &adj[start[f] as usize..start[f + 1] as usize] {
                if comp[g as usize] == u32::MAX {
                    comp[g as usize] = id;
                    stack.push(g);
                }
            }
        }
        volume.push(vol);
    }
    comp.iter()
        .map(|&c| c != u32::MAX && volume[c as usize] < 0.0)
        .collect()
}
