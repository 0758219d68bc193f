//! Enforces the part limits after clustering: parts below `min_part_faces` or `min_part_area`
//! merge into the neighbour they share the strongest boundary with, and while there are more than
//! `max_parts` parts the smallest one merges likewise. A part with no neighbour (a loose piece)
//! merges into the part whose centroid is nearest.

use crate::regions::Regions;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub fn enforce_limits(r: &mut Regions, max_parts: usize, min_faces: usize, min_area: f64) {
    let tiny = |r: &Regions, i: usize| (r.count[i] as usize) < min_faces || r.area[i] < min_area;
    // Tiny parts first, then by area; ties by id for determinism.
    let key = |r: &Regions, i: usize| Reverse((!tiny(r, i), r.area[i].max(0.0).to_bits(), i as u32, r.version[i]));
    let mut heap = BinaryHeap::new();
    for i in 0..r.alive.len() {
        if r.alive[i] {
            heap.push(key(r, i));
        }
    }
    while let Some(Reverse((big, _, i, v))) = heap.pop() {
        let i = i as usize;
        if !r.alive[i] || r.version[i] != v {
            continue;
        }
        if r.live <= 1 || (big && r.live <= max_parts) {
            break;
        }
        let target = match r.nbrs[i].iter().max_by(|x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0))) {
            Some(&(n, _, _)) => n,
            None => nearest(r, i),
        };
        let k = r.merge(i as u32, target) as usize;
        heap.push(key(r, k));
    }
}

fn nearest(r: &Regions, i: usize) -> u32 {
    let c = r.centroid(i);
    let mut best = (f64::INFINITY, u32::MAX);
    for j in 0..r.alive.len() {
        if j == i || !r.alive[j] {
            continue;
        }
        let o = r.centroid(j);
        let d = (c[0] - o[0]).powi(2) + (c[1] - o[1]).powi(2) + (c[2] - o[2]).powi(2);
        // NaN distances never win, so a target always exists when another part is alive.
        if d < best.0 || best.1 == u32::MAX {
            best = (d, j as u32);
        }
    }
    best.1
}
