//! Nearest-part queries for split's consolidation, where nearest is the least bounding-box gap,
//! then the least distance between centres, then the earliest part. Two uniform grids over the
//! parts' space answer them:
//! - boxes: each part listed in the cells its box overlaps. A part that touches the source box is
//!   listed in one of the source's own cells; one that does not is found by walking rings of cells
//!   outward, stopping once no unseen part can be nearer (a part met first r rings out lies at
//!   least r - 1 cells away along some axis);
//! - centres: each part in the cell of its centre. Where several parts touch the source (gap 0),
//!   the nearest centre among them decides, found by the same ring walk over centres; parts that
//!   overlap one another by the thousand (hair cards, foliage) are then not all compared.
//!
//! Parts only grow (a merge unites two boxes): a grown part is added to the box cells it newly
//! reaches, and moved to the cell of its new centre. A part spanning more than
//! `MAX_CELLS_PER_PART` box cells is kept in a list every query reads instead.
use crate::math::Bounds;

/// Box cells a part may be listed in before it moves to the list every query reads.
const MAX_CELLS_PER_PART: usize = 64;

/// Parts listed near a source (in its own box cells, or wide) up to which all of them are read.
const FEW_LISTED: usize = 512;

/// Cells in a grid, at most (about 32 MB of empty lists).
const MAX_CELLS: usize = 1 << 20;

type CellRange = ([usize; 3], [usize; 3]);

/// A uniform division of a box into cells.
struct Lattice {
    origin: [f32; 3],
    cell: [f32; 3],
    dims: [usize; 3],
}

impl Lattice {
    /// Cells of side `size` (at least) over `all`, at most MAX_CELLS of them.
    fn new(all: &Bounds, size: f32) -> Self {
        // In f64: finite coordinates far apart (±3e38) span more than an f32 holds.
        let extent: [f64; 3] = [0, 1, 2].map(|k| (f64::from(all.max[k]) - f64::from(all.min[k])).max(0.0));
        let count = |size: f64| extent.map(|e| if size > 0.0 && size.is_finite() { ((e / size).ceil().min(MAX_CELLS as f64) as usize).max(1) } else { 1 });
        let mut size = f64::from(size);
        while count(size).iter().fold(1usize, |cells, &d| cells.saturating_mul(d)) > MAX_CELLS {
            size *= 2.0;
        }
        let dims = count(size);
        let cell = [0, 1, 2].map(|k| (if dims[k] > 1 { size } else { extent[k] }).clamp(f64::from(f32::MIN_POSITIVE), f64::from(f32::MAX)) as f32);
        let origin = [0, 1, 2].map(|k| if all.min[k].is_finite() { all.min[k] } else { 0.0 });
        Lattice { origin, cell, dims }
    }

    fn cells(&self) -> usize {
        self.dims.iter().product()
    }

    fn index(&self, c: [usize; 3]) -> usize {
        (c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]
    }

    fn range(&self, b: &Bounds) -> CellRange {
        (self.at(b.min), self.at(b.max))
    }

    fn at(&self, p: [f32; 3]) -> [usize; 3] {
        [0, 1, 2].map(|k| (((p[k] - self.origin[k]) / self.cell[k]).floor().max(0.0) as usize).min(self.dims[k] - 1))
    }

    /// The least distance, along some axis, from the range to a cell r rings out, less half a cell
    /// of slack for rounding at cell walls.
    fn ring_distance(&self, r: usize) -> f32 {
        let step = (0..3).filter(|&k| self.dims[k] > 1).map(|k| self.cell[k]).fold(f32::INFINITY, f32::min);
        if step.is_finite() {
            (r as f32 - 1.5).max(0.0) * step
        } else {
            0.0
        }
    }

    /// Rings around the range that hold any cell: beyond the last, the rings cover the lattice.
    fn last_ring(&self, (lo, hi): CellRange) -> usize {
        (0..3).map(|k| lo[k].max(self.dims[k] - 1 - hi[k])).max().unwrap_or(0)
    }

    /// Calls `visit` with the index of every cell exactly `r` rings out from the range. Only the
    /// ring's cells are walked, not the box they enclose: a ring far out along a lattice one cell
    /// wide in two axes holds two cells, however long its sides.
    fn ring(&self, (lo, hi): CellRange, r: usize, mut visit: impl FnMut(usize)) {
        let a = [0, 1, 2].map(|k| lo[k].saturating_sub(r));
        let b = [0, 1, 2].map(|k| (hi[k] + r).min(self.dims[k] - 1));
        if r == 0 {
            for z in a[2]..=b[2] {
                for y in a[1]..=b[1] {
                    (a[0]..=b[0]).for_each(|x| visit(self.index([x, y, z])));
                }
            }
            return;
        }
        // The ring's two faces across axis k, where they lie in the lattice; and the cells between them.
        let faces = |k: usize| [lo[k].checked_sub(r), Some(hi[k] + r).filter(|&c| c < self.dims[k])].into_iter().flatten();
        let between = |k: usize| (lo[k] + 1).saturating_sub(r)..=(hi[k] + r - 1).min(self.dims[k] - 1);
        for z in faces(2) {
            for y in a[1]..=b[1] {
                (a[0]..=b[0]).for_each(|x| visit(self.index([x, y, z])));
            }
        }
        if faces(1).next().is_none() && faces(0).next().is_none() {
            return;
        }
        for z in between(2) {
            for y in faces(1) {
                (a[0]..=b[0]).for_each(|x| visit(self.index([x, y, z])));
            }
            if faces(0).next().is_some() {
                for y in between(1) {
                    faces(0).for_each(|x| visit(self.index([x, y, z])));
                }
            }
        }
    }
}

/// The best part so far: (key, part), keys compared, ties to the lower part.
type Best = Option<((f32, f32), usize)>;

fn improve(best: &mut Best, key: (f32, f32), part: usize) {
    let better = match best {
        None => true,
        Some((k, p)) => match key.partial_cmp(k) {
            Some(std::cmp::Ordering::Less) => true,
            Some(std::cmp::Ordering::Greater) => false,
            _ => part < *p,
        },
    };
    if better {
        *best = Some((key, part));
    }
}

/// Calls `look` with each part of `list` not `gone`, dropping the gone ones as it meets them,
/// until `look` says stop; whether it did.
fn live_entries(list: &mut Vec<u32>, gone: &[bool], look: &mut impl FnMut(usize) -> bool) -> bool {
    let mut i = 0;
    while i < list.len() {
        let part = list[i] as usize;
        if gone[part] {
            list.swap_remove(i);
        } else if look(part) {
            return true;
        } else {
            i += 1;
        }
    }
    false
}

pub struct PartGrid {
    boxes: Lattice,
    box_cells: Vec<Vec<u32>>,
    /// Parts spanning too many box cells to list.
    wide: Vec<u32>,
    /// Per part, the box cells it is listed in, or None once it is in `wide`.
    listed: Vec<Option<CellRange>>,
    centres: Lattice,
    centre_cells: Vec<Vec<u32>>,
    /// Per part, the centre cell it is in.
    centre_cell: Vec<usize>,
    /// Parts merged away; a query drops them from the box cells it reads.
    gone: Vec<bool>,
}

impl PartGrid {
    /// Grids over `bounds` (one per part, in part order). Box cells are about as large as the
    /// median part, and no smaller than an even share of the space, so a part usually overlaps a
    /// few and a cell lists a few parts; centre cells are an even share of the space.
    pub fn new(bounds: &[Bounds]) -> Self {
        let mut all = Bounds::empty();
        bounds.iter().for_each(|b| all.merge(b));
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
        let boxes = Lattice::new(&all, median.max(share));
        let centres = Lattice::new(&all, share);
        let mut grid = PartGrid {
            box_cells: vec![Vec::new(); boxes.cells()],
            boxes,
            wide: Vec::new(),
            listed: vec![None; bounds.len()],
            centre_cells: vec![Vec::new(); centres.cells()],
            centres,
            centre_cell: vec![0; bounds.len()],
            gone: vec![false; bounds.len()],
        };
        for (part, b) in bounds.iter().enumerate() {
            grid.list(part, b, None);
            let cell = grid.centres.index(grid.centres.at(b.center()));
            grid.centre_cell[part] = cell;
            grid.centre_cells[cell].push(part as u32);
        }
        grid
    }

    /// Records that `part` grew to the bounds `b`.
    pub fn grown(&mut self, part: usize, b: &Bounds) {
        if let Some(before) = self.listed[part] {
            self.list(part, b, Some(before));
        }
        let cell = self.centres.index(self.centres.at(b.center()));
        if cell != self.centre_cell[part] {
            self.leave_centre_cell(part);
            self.centre_cell[part] = cell;
            self.centre_cells[cell].push(part as u32);
        }
    }

    /// Forgets `part` (merged into another).
    pub fn remove(&mut self, part: usize) {
        self.gone[part] = true;
        self.leave_centre_cell(part);
    }

    fn leave_centre_cell(&mut self, part: usize) {
        let cell = &mut self.centre_cells[self.centre_cell[part]];
        if let Some(at) = cell.iter().position(|&p| p as usize == part) {
            cell.swap_remove(at);
        }
    }

    fn list(&mut self, part: usize, b: &Bounds, before: Option<CellRange>) {
        let range = self.boxes.range(b);
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
                        let at = self.boxes.index([x, y, z]);
                        self.box_cells[at].push(part as u32);
                    }
                }
            }
        }
    }

    /// The `accept`ed part nearest to the box `from`: least `key` (its gap to `from`, which is 0
    /// where the boxes touch, then the distance between centres), ties to the lower part index.
    pub fn nearest(&mut self, from: &Bounds, accept: impl Fn(usize) -> bool, key: impl Fn(usize) -> (f32, f32)) -> Option<usize> {
        let range = self.boxes.range(from);
        let mut best: Best = None;
        // The wide parts and the parts listed in the source's own cells: every part that touches
        // it is among them. Where they are many (parts overlapping by the thousand), the first
        // that touches hands the search to the centres; where few (a small part inside a large
        // one, whose centre is far), they are all read.
        let mut listed = self.wide.len();
        self.boxes.ring(range, 0, |cell| listed += self.box_cells[cell].len());
        let many = listed > FEW_LISTED;
        let mut touching = None;
        let mut look = |part: usize| {
            if accept(part) {
                let k = key(part);
                improve(&mut best, k, part);
                if k.0 == 0.0 {
                    touching = Some(part);
                }
            }
            many && touching.is_some()
        };
        let gone = &self.gone;
        let mut stopped = live_entries(&mut self.wide, gone, &mut look);
        let box_cells = &mut self.box_cells;
        self.boxes.ring(range, 0, |cell| stopped = stopped || live_entries(&mut box_cells[cell], gone, &mut look));
        match touching {
            Some(part) if many => return self.nearest_touching(from, &accept, &key, (key(part), part)),
            Some(_) => return best.map(|(_, part)| part),
            None => {}
        }
        for r in 1..=self.boxes.last_ring(range) {
            if best.is_some_and(|((gap, _), _)| gap < self.boxes.ring_distance(r)) {
                break;
            }
            let (gone, box_cells) = (&self.gone, &mut self.box_cells);
            self.boxes.ring(range, r, |cell| {
                live_entries(&mut box_cells[cell], gone, &mut |p| {
                    if accept(p) {
                        improve(&mut best, key(p), p);
                    }
                    false
                });
            });
        }
        best.map(|(_, part)| part)
    }

    /// Among the parts that touch `from` (gap 0; `best` is one), the one whose centre is nearest:
    /// centre cells r rings out hold no centre nearer than r - 1 cells.
    fn nearest_touching(
        &self,
        from: &Bounds,
        accept: &impl Fn(usize) -> bool,
        key: &impl Fn(usize) -> (f32, f32),
        touching: ((f32, f32), usize),
    ) -> Option<usize> {
        let mut best = Some(touching);
        let centre = self.centres.at(from.center());
        let range = (centre, centre);
        for r in 0..=self.centres.last_ring(range) {
            if best.is_some_and(|((_, distance), _)| distance < self.centres.ring_distance(r)) {
                break;
            }
            self.centres.ring(range, r, |cell| {
                for &p in &self.centre_cells[cell] {
                    let p = p as usize;
                    if accept(p) {
                        let k = key(p);
                        if k.0 == 0.0 {
                            improve(&mut best, k, p);
                        }
                    }
                }
            });
        }
        best.map(|(_, part)| part)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(at: [f32; 3], side: f32) -> Bounds {
        Bounds { min: at, max: at.map(|c| c + side) }
    }

    /// A ring holds the cells whose farthest axis from the range is exactly r cells, each once.
    #[test]
    fn rings_hold_the_cells_r_out_from_the_range() {
        for dims in [[1, 1, 40], [5, 4, 3], [7, 1, 2], [1, 1, 1]] {
            let lattice = Lattice { origin: [0.0; 3], cell: [1.0; 3], dims };
            // A corner cell, a block in the middle, the far corner.
            let middle = (dims.map(|d| d / 3), dims.map(|d| d / 2));
            for (lo, hi) in [([0, 0, 0], [0, 0, 0]), middle, (dims.map(|d| d - 1), dims.map(|d| d - 1))] {
                for r in 0..45 {
                    let mut walked = Vec::new();
                    lattice.ring((lo, hi), r, |cell| walked.push(cell));
                    walked.sort_unstable();
                    let mut expected = Vec::new();
                    for z in 0..dims[2] {
                        for y in 0..dims[1] {
                            for x in 0..dims[0] {
                                let c = [x, y, z];
                                let out = (0..3).map(|k| lo[k].saturating_sub(c[k]).max(c[k].saturating_sub(hi[k]))).max().unwrap();
                                if out == r {
                                    expected.push(lattice.index(c));
                                }
                            }
                        }
                    }
                    expected.sort_unstable();
                    assert_eq!(walked, expected, "dims {dims:?} range {lo:?}..{hi:?} ring {r}");
                }
            }
        }
    }

    /// Parts at both ends of the f32 range along z (a span of 6e38, which no f32 holds) and 1e30
    /// apart along y: counted in cells of the parts' size, two axes would each need more cells than
    /// a usize holds (this once wrapped around to a grid of 784,640 cells, too few for its indices).
    #[test]
    fn parts_as_far_apart_as_floats_go_are_found() {
        let parts = [cube([0.0, 0.0, 0.0], 1.0), cube([2.0, 0.0, 0.0], 1.0), cube([0.0, 1e30, 3e38], 1.0), cube([0.0, 0.0, -3e38], 1.0)];
        let mut grid = PartGrid::new(&parts);
        let gap = |from: &Bounds, part: usize| {
            (0..3).map(|k| (parts[part].min[k] - from.max[k]).max(from.min[k] - parts[part].max[k]).max(0.0)).fold(0.0f32, f32::max)
        };
        for (from, nearest) in [(0, 1), (1, 0)] {
            let b = parts[from];
            assert_eq!(grid.nearest(&b, |p| p != from, |p| (gap(&b, p), 0.0)), Some(nearest));
        }
        let mut grown = parts[1];
        grown.merge(&parts[2]);
        grid.grown(1, &grown);
        grid.remove(2);
        let b = parts[3];
        assert_eq!(grid.nearest(&b, |p| p != 3 && p != 2, |p| (gap(&b, p), 0.0)), Some(0));
    }
}
