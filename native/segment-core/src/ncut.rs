//! Greedy agglomerative clustering by normalized-cut cost, after the "Normalized cuts" method of
//! Golovinskiy & Funkhouser (2008, "Randomized cuts for 3D mesh analysis") that the Princeton
//! Segmentation Benchmark evaluates.
//!
//! Each dual edge gets a boundary weight `length * (floor + (1 - floor) * exp(-concavity / sigma))`,
//! so concave creases are cheap to cut (the "minima rule": people cut parts along concave creases)
//! while convex and flat edges are not. Every face starts as a region and adjacent regions A, B
//! merge in order of decreasing `cut(A, B) * (1/area(A) + 1/area(B))`, made scale-free by the
//! square root of the total area: small pieces grow evenly, and parts joined only through concave
//! creases or narrow necks stay apart. Merging stops when the best score drops below the detail
//! threshold and the region count is within `max_parts`.

use crate::dual::Dual;
use crate::regions::Regions;
use std::collections::BinaryHeap;

pub struct Tuning {
    /// Crease scale as a multiple of the mesh's mean concavity.
    pub sigma_factor: f64,
    /// Smallest boundary affinity, so no face is ever cut off completely.
    pub affinity_floor: f64,
    /// Merging stops below this scale-free normalized-cut score.
    pub threshold: f64,
}

pub fn cluster(d: &Dual, t: &Tuning, max_parts: usize) -> Regions {
    let mean = d.angle.iter().sum::<f64>() / d.angle.len().max(1) as f64;
    let sigma = (t.sigma_factor * mean).max(1e-12);
    let fl = t.affinity_floor;
    let mut r = Regions::new(d, |k| {
        d.edge_len[k] * (fl + (1.0 - fl) * (-d.angle[k] / sigma).exp())
    });
    let total: f64 = (0..d.faces)
        .filter(|&f| d.valid[f])
        .map(|f| d.area[f])
        .sum();
    let floor = (total * 1e-12).max(1e-300);
    let scale = total.sqrt();
    let score = |r: &Regions, a: usize, b: usize, w: f64| {
        w * (1.0 / r.area[a].max(floor) + 1.0 / r.area[b].max(floor)) * scale
    };

    coarsen(&mut r, &score, t.threshold);

    // Entries: (score bits, a, b, version a, version b); scores are >= 0 so bits order like floats.
    let mut heap: BinaryHeap<(u64, u32, u32, u32, u32)> = BinaryHeap::with_capacity(r.live * 4);
    for a in 0..d.faces {
        if !r.alive[a] {
            continue;
        }
        for &(b, w, _) in &r.nbrs[a] {
            if (a as u32) < b {
                heap.push((
                    score(&r, a, b as usize, w).to_bits(),
                    a as u32,
                    b,
                    r.version[a],
                    r.version[b as usize],
                ));
            }
        }
    }
    while let Some((s, a, b, va, vb)) = heap.pop() {
        let (ua, ub) = (a as usize, b as usize);
        if !r.alive[ua] || !r.alive[ub] || r.version[ua] != va || r.version[ub] != vb {
            continue;
        }
        if f64::from_bits(s) < t.threshold && r.live <= max_parts {
            break;
        }
        let k = r.merge(a, b) as usize;
        let vk = r.version[k];
        for i in 0..r.nbrs[k].len() {
            let (n, w, _) = r.nbrs[k][i];
            let sc = score(&r, k, n as usize, w).to_bits();
            let vn = r.version[n as usize];
            heap.push(if (k as u32) < n {
                (sc, k as u32, n, vk, vn)
            } else {
                (sc, n, k as u32, vn, vk)
            });
        }
    }
    r
}

/// Regions left for the exact greedy phase; above this, coarsening does the work.
const GREEDY_REGIONS: usize = 4000;

/// Fast coarsening before the exact greedy phase: in rounds, every pair of regions that are each
/// other's best-scoring neighbour merges (a locally dominant matching, which the greedy order
/// would also merge first). A heap over all faces is cache-hostile; this keeps it small.
fn coarsen(r: &mut Regions, score: &impl Fn(&Regions, usize, usize, f64) -> f64, threshold: f64) {
    let n = r.alive.len();
    let mut best = vec![u32::MAX; n];
    while r.live > GREEDY_REGIONS {
        for (a, slot) in best.iter_mut().enumerate() {
            *slot = u32::MAX;
            if !r.alive[a] {
                continue;
            }
            let mut top = threshold;
            for &(b, w, _) in &r.nbrs[a] {
                let s = score(r, a, b as usize, w);
                if s > top || (s == top && b < *slot) {
                    top = s;
                    *slot = b;
                }
            }
        }
        let before = r.live;
        for a in 0..n {
            let b = best[a];
            if b != u32::MAX && (a as u32) < b && best[b as usize] == a as u32 {
                r.merge(a as u32, b);
            }
        }
        // Stop when matching stalls; the greedy phase finishes the job.
        if before - r.live < before / 20 {
            break;
        }
    }
}
