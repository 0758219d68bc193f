//! Two-stage agglomerative clustering of the dual graph.
//!
//! Each dual edge gets a boundary weight `length * exp(-angle / sigma)`, so concave creases are
//! cheap to cut.
//! 1. Over-segmentation by greedy normalized-cut merging (the "Normalized cuts" method of
//!    Golovinskiy & Funkhouser 2008, evaluated in the Princeton Segmentation Benchmark): adjacent
//!    regions merge in order of decreasing `cut(A, B) * (1/area(A) + 1/area(B))`, so small
//!    pieces grow evenly while creases stay intact, until `patches` regions remain.
//! 2. Part merging: patches merge in order of decreasing mean boundary affinity (how smooth or
//!    convex the shared boundary is), damped for narrow necks, until the best pair falls below the
//!    detail threshold and the region count is within `max_parts`.

use crate::dual::Dual;
use crate::regions::Regions;
use std::collections::BinaryHeap;

pub struct Tuning {
    /// Crease scale as a multiple of the mesh's mean angular distance.
    pub sigma_factor: f64,
    /// Smallest boundary affinity, so no face is ever cut off completely.
    pub affinity_floor: f64,
    /// Number of patches after stage 1 (per mesh, before part merging).
    pub patches: usize,
    /// Neck damping: boundaries shorter than `neck * sqrt(smaller area)` are penalised.
    pub neck: f64,
    /// Stage 1 stops below this (scale-free) normalized-cut score.
    pub ncut_threshold: f64,
    /// Stage 2 stops below this similarity.
    pub threshold: f64,
}

/// Greedy merging: repeatedly merges the live adjacent pair with the highest
/// `score(regions, a, b, weight, length)` until `stop(best score, live regions)` says so.
fn agglomerate(
    r: &mut Regions,
    score: impl Fn(&Regions, usize, usize, f64, f64) -> f64,
    stop: impl Fn(f64, usize) -> bool,
) {
    // Entries: (score bits, a, b, version a, version b); scores are >= 0 so bits order like floats.
    let mut heap: BinaryHeap<(u64, u32, u32, u32, u32)> = BinaryHeap::new();
    for a in 0..r.alive.len() {
        if !r.alive[a] {
            continue;
        }
        for &(b, w, l) in &r.nbrs[a] {
            if (a as u32) < b && r.alive[b as usize] {
                let s = score(r, a, b as usize, w, l).max(0.0);
                heap.push((s.to_bits(), a as u32, b, r.version[a], r.version[b as usize]));
            }
        }
    }
    while let Some((s, a, b, va, vb)) = heap.pop() {
        let (ua, ub) = (a as usize, b as usize);
        if !r.alive[ua] || !r.alive[ub] || r.version[ua] != va || r.version[ub] != vb {
            continue;
        }
        if stop(f64::from_bits(s), r.live) {
            break;
        }
        let k = r.merge(a, b) as usize;
        let vk = r.version[k];
        for i in 0..r.nbrs[k].len() {
            let (n, w, l) = r.nbrs[k][i];
            let sc = score(r, k, n as usize, w, l).max(0.0).to_bits();
            let vn = r.version[n as usize];
            heap.push(if (k as u32) < n { (sc, k as u32, n, vk, vn) } else { (sc, n, k as u32, vn, vk) });
        }
    }
}

pub fn cluster(d: &Dual, t: &Tuning, max_parts: usize) -> Regions {
    let mean = d.angle.iter().sum::<f64>() / d.angle.len().max(1) as f64;
    let sigma = (t.sigma_factor * mean).max(1e-12);
    let fl = t.affinity_floor;
    let mut r = Regions::new(d, |k| d.edge_len[k] * (fl + (1.0 - fl) * (-d.angle[k] / sigma).exp()));
    let total: f64 = (0..d.faces).filter(|&f| d.valid[f]).map(|f| d.area[f]).sum();
    let floor = (total * 1e-12).max(1e-300);

    let ncut = |r: &Regions, a: usize, b: usize, w: f64, _l: f64| w * (1.0 / r.area[a].max(floor) + 1.0 / r.area[b].max(floor));
    let patches = t.patches.max(max_parts);
    let scale = total.sqrt();
    agglomerate(&mut r, ncut, |s, live| live <= patches && s * scale < t.ncut_threshold);

    let neck = t.neck;
    let similarity = |r: &Regions, a: usize, b: usize, w: f64, l: f64| {
        let mean_affinity = if l > 0.0 { w / l } else { 0.0 };
        let width = l / (neck * r.area[a].min(r.area[b]).max(floor).sqrt());
        mean_affinity * width.min(1.0)
    };
    agglomerate(&mut r, similarity, |s, live| s < t.threshold && live <= max_parts);
    r
}
