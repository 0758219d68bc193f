//! Enforces the part limits after clustering.
//! 1. Parts below `min_part_faces` or `min_part_area`, and then the smallest parts while there are
//!    more than `max_parts`, merge into the neighbour they share the strongest boundary with
//!    (smallest first, so slivers are absorbed before real parts are touched).
//! 2. What is left over without neighbours (loose pieces) keeps the largest acceptable parts, up
//!    to `max_parts`, and every other piece joins the kept part whose centroid is nearest; the
//!    search sweeps kept parts sorted by x and stops once the x gap exceeds the best distance.

use crate::regions::Regions;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub fn enforce_limits(r: &mut Regions, max_parts: usize, min_faces: usize, min_area: f64) {
    let tiny = |r: &Regions, i: usize| (r.count[i] as usize) < min_faces || r.area[i] < min_area;
    // Tiny parts first, then by area; ties by id for determinism.
    let key = |r: &Regions, i: usize| {
        Reverse((
            !tiny(r, i),
            r.area[i].max(0.0).to_bits(),
            i as u32,
            r.version[i],
        ))
    };
    let mut heap: BinaryHeap<_> = (0..r.alive.len())
        .filter(|&i| r.alive[i])
        .map(|i| key(r, i))
        .collect();
    while let Some(Reverse((big, _, i, v))) = heap.pop() {
        let i = i as usize;
        if !r.alive[i] || r.version[i] != v {
            continue;
        }
        if big && r.live <= max_parts {
            break;
        }
        let best = r.nbrs[i]
            .iter()
            .max_by(|x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0)));
        if let Some(&(n, _, _)) = best {
            let k = r.merge(i as u32, n) as usize;
            heap.push(key(r, k));
        }
    }

    let mut alive: Vec<usize> = (0..r.alive.len()).filter(|&i| r.alive[i]).collect();
    // Acceptable parts first, largest first.
    alive.sort_by(|&a, &b| {
        tiny(r, a)
            .cmp(&tiny(r, b))
            .then(r.area[b].total_cmp(&r.area[a]))
            .then(a.cmp(&b))
    });
    let acceptable = alive.iter().filter(|&&i| !tiny(r, i)).count();
    let keep_count = acceptable.min(max_parts).max(1);
    if keep_count >= alive.len() {
        return;
    }
    let finite = |c: [f64; 3]| c.map(|x| if x.is_finite() { x } else { 0.0 });
    let mut keep: Vec<(f64, [f64; 3], u32)> = alive[..keep_count]
        .iter()
        .map(|&i| {
            let c = finite(r.centroid(i));
            (c[0], c, i as u32)
        })
        .collect();
    keep.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)));
    for &i in &alive[keep_count..] {
        let c = finite(r.centroid(i));
        let target = nearest(&keep, c);
        // Merge under the kept part's id so later lookups of `keep` stay valid.
        let k = r.merge(target, i as u32);
        if k != target {
            let slot = keep.iter_mut().find(|x| x.2 == target).map(|x| &mut x.2);
            if let Some(s) = slot {
                *s = k;
            }
        }
    }
}

/// Kept part nearest to `c`; `keep` is sorted by x and non-empty.
fn nearest(keep: &[(f64, [f64; 3], u32)], c: [f64; 3]) -> u32 {
    let start = keep.partition_point(|k| k.0 < c[0]);
    let mut best = (f64::INFINITY, keep[start.min(keep.len() - 1)].2);
    let dist = |p: [f64; 3]| (p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2) + (p[2] - c[2]).powi(2);
    let mut consider = |j: usize| {
        let d = dist(keep[j].1);
        if d < best.0 {
            best = (d, keep[j].2);
        }
        (keep[j].0 - c[0]).powi(2) > best.0
    };
    for j in start..keep.len() {
        if consider(j) {
            break;
        }
    }
    for j in (0..start).rev() {
        if consider(j) {
            break;
        }
    }
    best.1
}
