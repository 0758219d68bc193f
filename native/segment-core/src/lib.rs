//! Splits a triangle mesh into meaningful parts (one label per triangle).
//!
//! Pipeline: weld vertices and build the dual graph (`dual`), cluster faces by greedy
//! normalized-cut merging with concave creases cheap to cut (`ncut`), then enforce the part limits
//! (`cleanup`). Loose connected pieces never merge during clustering, so they stay separate parts
//! unless `max_parts`, `min_part_faces` or `min_part_area` force them together. Faces with bad
//! indices or non-finite coordinates take label 0. Never panics; deterministic.

mod cleanup;
mod dual;
mod ncut;
mod regions;

pub mod eval;
pub mod off;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    Low,
    Medium,
    High,
}

#[derive(Clone, Debug)]
pub struct SegmentParams {
    pub detail: Detail,
    /// Upper bound on the number of labels produced.
    pub max_parts: usize,
    /// Segments with fewer faces are merged into a neighbour.
    pub min_part_faces: usize,
    /// Segments with less than this fraction of the total area are merged into a neighbour.
    pub min_part_area: f64,
}

impl Default for SegmentParams {
    fn default() -> Self {
        SegmentParams {
            detail: Detail::Medium,
            max_parts: 64,
            min_part_faces: 0,
            min_part_area: 0.0,
        }
    }
}

/// Normal-smoothing rounds before crease angles are measured.
const SMOOTHING_ROUNDS: usize = 3;

/// Tuned on the Princeton Segmentation Benchmark (`bench/segmentation`); Medium is the setting
/// scored there. A higher threshold stops merging earlier, giving more parts.
fn tuning(detail: Detail) -> ncut::Tuning {
    let threshold = match detail {
        Detail::Low => 2.0,
        Detail::Medium => 3.5,
        Detail::High => 5.0,
    };
    ncut::Tuning {
        sigma_factor: 4.0,
        affinity_floor: 0.05,
        threshold,
    }
}

/// One label per triangle, dense in 0..part_count.
pub fn segment(positions: &[[f32; 3]], indices: &[[u32; 3]], params: &SegmentParams) -> Vec<u32> {
    let d = dual::build(positions, indices, SMOOTHING_ROUNDS);
    let max_parts = params.max_parts.max(1);
    let mut r = ncut::cluster(&d, &tuning(params.detail), max_parts);
    let total_area: f64 = (0..d.faces)
        .filter(|&f| d.valid[f])
        .map(|f| d.area[f])
        .sum();
    let min_area = if params.min_part_area.is_finite() {
        params.min_part_area.max(0.0) * total_area
    } else {
        0.0
    };
    cleanup::enforce_limits(&mut r, max_parts, params.min_part_faces, min_area);

    // Dense labels in order of first appearance.
    let mut dense = vec![u32::MAX; d.faces];
    let mut next = 0u32;
    let mut labels = vec![0u32; d.faces];
    for (f, label) in labels.iter_mut().enumerate() {
        if !d.valid[f] {
            continue;
        }
        let root = r.find(f as u32) as usize;
        if dense[root] == u32::MAX {
            dense[root] = next;
            next += 1;
        }
        *label = dense[root];
    }
    labels
}
