//! Nearest-part queries for split's consolidation: a uniform grid of cells over the parts' bounds,
//! each part listed in the cells its bounding box overlaps. A query walks rings of cells outward
//! from the source box and stops once no unseen part can be nearer than the best found: a part
//! met first at ring r lies at least r - 1 whole cells away along some axis. Parts only grow (a
//! merge unites two boxes), so a part is added to the cells its new box reaches and never removed;
//! the caller skips parts merged away. A part spanning more than `MAX_CELLS_PER_PART` cells is
//! kept in a short list every query reads instead.
use crate::math::Bounds;

/// Cells a part may be listed in before it moves to the list every query reads.
const MAX_CELLS_PER_PART: usize = 64;

/// Cells in the whole grid, at most (about 32 MB of empty lists).
const MAX_CELLS: usize = 1 << 20;

type CellRange = ([usize; 3], [usize; 3]);

pub struct PartGrid {
    origin: [f32; 3],
    cell: [f32; 3],
    dims: [usize; 3],
    cells: Vec<Vec<u32>>,
    /// Parts spanning too many cells to list.
    wide: Vec<u32>,
    /// Per part, the cells it is listed in, or None once it is in `wide`.
    listed: Vec<Option<CellRange>>,
    /// Parts merged away; a query drops them from the cells it reads.
    gone: Vec<bool>,
}

impl PartGrid {
    /// A grid over `bounds` (one per part, in part order). Cells are about as large as the median
    /// part, and no smaller than an even share of the space, so a part usually overlaps a few
    /// cells and a cell lists a few parts.
    pub fn new(bounds: &[Bounds]) -> Self {
        let mut all = Bounds::empty();
        bounds.iter().for_each(|b| all.merge(b));
        let origin = if bounds.is_empty() { [0.0; 3] } else { all.min };
        let extent: [f32; 3] = [0, 1, 2].map(|k| (all.max[k] - all.min[k]).max(0.0));
        let largest = extent.iter().copied().fold(0.0f32, f32::max);
        let mut sides: Vec<f32> = bounds.iter().map(|b| (0..3).map(|k| b.max[k] - b.min[k]).fold(0.0f32, f32::max)).collect();
        let median = if sides.is_empty() {
            0.0
        } else {
            let middle = sides.len() / 2;
            *sides.select_nth_unstable_by(middle, f32::total_cmp).1
        };
        // An even share of the space the parts span (over the axes they span at all).
        let spanned: Vec<f32> = extent.iter().copied().filter(|&e| e > largest * 1e-6).collect();
        let share = if spanned.is_empty() {
            0.0
        } else {
            (spanned.iter().map(|&e| e as f64).product::<f64>() / bounds.len().max(1) as f64).powf(1.0 / spanned.len() as f64) as f32
        };
        let mut size = median.max(share);
        let count = |size: f32| extent.map(|e| if size > 0.0 && size.is_finite() { ((e / size).ceil() as usize).max(1) } else { 1 });
        while count(size).iter().product::<usize>() > MAX_CELLS {
            size *= 2.0;
        }
        let dims = count(size);
        let cell = [0, 1, 2].map(|k| if dims[k] > 1 { size } else { extent[k].max(f32::MIN_POSITIVE) });
        let mut grid = PartGrid {
            origin,
            cell,
            dims,
            cells: vec![Vec::new(); dims.iter().product()],
            wide: Vec::new(),
            listed: vec![None; bounds.len()],
            gone: vec![false; bounds.len()],
        };
        for (part, b) in bounds.iter().enumerate() {
            grid.list(part, b, None);
        }
        grid
    }

    /// Lists `part` in the cells its grown bounds `b` reach.
    pub fn grown(&mut self, part: usize, b: &Bounds) {
        if let Some(before) = self.listed[part] {
            self.list(part, b, Some(before));
        }
    }

    /// Forgets `part` (merged into another).
    pub fn remove(&mut self, part: usize) {
        self.gone[part] = true;
    }

    fn list(&mut self, part: usize, b: &Bounds, before: Option<CellRange>) {
        let range = self.range(b);
        let (lo, hi) = range;
        if (0..3).map(|k| hi[k] - lo[k] + 1).product::<usize>() > MAX_CELLS_PER_PART {
            self.listed[part] = None;
            self.wide.push(part as u32);
            return;
        }
        self.listed[part] = Some(range);
        let inside = |c: [usize; 3], r: CellRange| (0..3).all(|k| r.0[k] <= c[k] && c[k] <= r.1[k]);
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                for x in lo[0]..=hi[0] {
                    if before.is_none_or(|r| !inside([x, y, z], r)) {
                        let at = self.index([x, y, z]);
                        self.cells[at].push(part as u32);
                    }
                }
            }
        }
    }

    fn index(&self, c: [usize; 3]) -> usize {
        (c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]
    }

    fn range(&self, b: &Bounds) -> CellRange {
        let at = |k: usize, v: f32| (((v - self.origin[k]) / self.cell[k]).floor().max(0.0) as usize).min(self.dims[k] - 1);
        ([0, 1, 2].map(|k| at(k, b.min[k])), [0, 1, 2].map(|k| at(k, b.max[k])))
    }

    /// The part `accept`ed with the least `distance` from the box `from` (ties to the lower part
    /// index). `distance` must be a gap between boxes, or at least it: a part wholly in cells r
    /// rings out counts as at least (r - 1) cells away. Returns (part, its distance key).
    pub fn nearest<K: PartialOrd + Copy>(&mut self, from: &Bounds, accept: impl Fn(usize) -> bool, key: impl Fn(usize) -> (f32, K)) -> Option<usize> {
        let mut best: Option<(f32, K, usize)> = None;
        let consider = |best: &mut Option<(f32, K, usize)>, part: usize| {
            if !accept(part) {
                return;
            }
            let (gap, tie) = key(part);
            let better = match best {
                None => true,
                Some((g, t, p)) => match (gap, tie).partial_cmp(&(*g, *t)) {
                    Some(std::cmp::Ordering::Less) => true,
                    Some(std::cmp::Ordering::Greater) => false,
                    _ => part < *p,
                },
            };
            if better {
                *best = Some((gap, tie, part));
            }
        };
        let gone = &self.gone;
        self.wide.retain(|&p| !gone[p as usize]);
        self.wide.iter().for_each(|&p| consider(&mut best, p as usize));
        let (lo, hi) = self.range(from);
        let step = (0..3).filter(|&k| self.dims[k] > 1).map(|k| self.cell[k]).fold(f32::INFINITY, f32::min);
        let reach = (0..3).map(|k| lo[k].max(self.dims[k] - 1 - hi[k])).max().unwrap_or(0);
        for r in 0..=reach {
            if let Some((gap, _, _)) = best {
                // Half a cell of slack for rounding at cell walls.
                if gap < (r as f32 - 1.5).max(0.0) * step {
                    break;
                }
            }
            let (a, b) = ([0, 1, 2].map(|k| lo[k].saturating_sub(r)), [0, 1, 2].map(|k| (hi[k] + r).min(self.dims[k] - 1)));
            // Cells of the ring: in the grown range, on its outer face along some axis.
            let on_face = |k: usize, c: usize| (c + r == lo[k]) || (c == hi[k] + r);
            for z in a[2]..=b[2] {
                for y in a[1]..=b[1] {
                    let (dims, gone, cells) = (self.dims, &self.gone, &mut self.cells);
                    let mut visit = |x: usize| {
                        let cell = &mut cells[(z * dims[1] + y) * dims[0] + x];
                        cell.retain(|&p| !gone[p as usize]);
                        cell.iter().for_each(|&p| consider(&mut best, p as usize));
                    };
                    if r == 0 || on_face(2, z) || on_face(1, y) {
                        (a[0]..=b[0]).for_each(&mut visit);
                    } else {
                        // Inside the ring's y and z faces only its two x faces are new.
                        if lo[0] >= r {
                            visit(lo[0] - r);
                        }
                        if hi[0] + r < self.dims[0] {
                            visit(hi[0] + r);
                        }
                    }
                }
            }
        }
        best.map(|(_, _, part)| part)
    }
}
