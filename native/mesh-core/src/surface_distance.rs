//! Whether points lie within a distance of a triangle surface: the check a simplified mesh passes
//! when its source's vertices, posed, must stay within the error bound of its posed surface
//! (simplify.rs). Triangles are binned in a uniform grid by their bounding boxes grown by the
//! distance, so one cell holds every triangle that can be that close to a point in it.
use crate::in_parallel;
use crate::math::{cross, dot, sub, Bounds};

/// Cells per axis at most.
const MAX_CELLS_PER_AXIS: f32 = 128.0;
/// A triangle that would cover more cells than this (a floor under small parts) is tested for
/// every point instead, so a few large triangles cannot fill millions of cells.
const MAX_CELLS_PER_TRIANGLE: u64 = 256;
/// Cells in the grid at most, per triangle binned and beyond a floor: the grid keeps where every
/// cell's triangles start, occupied or not, so a few triangles scattered over a wide scene (debris
/// far apart) would otherwise cost a table of millions of cells. Past it the cells grow.
const CELLS_PER_TRIANGLE: u64 = 8;
const CELLS_FLOOR: u64 = 4096;
/// Triangles from which a grid's boxes, corners and blocks of cells are worked out over the cores
/// (about 40 ns a triangle for the three, so a millisecond here against tens of microseconds to
/// start and join a thread).
const TRIANGLES_WORTH_THREADS: usize = 24_576;

/// A block of cells: its least and its greatest cell, per axis.
type Block = ([usize; 3], [usize; 3]);

/// `f` of the place of every cell of `block` in a grid of `dims` cells (x, then y, then z order).
#[inline]
fn for_cells(&(low, high): &Block, dims: [usize; 3], mut f: impl FnMut(usize)) {
    for x in low[0]..=high[0] {
        for y in low[1]..=high[1] {
            let row = (x * dims[1] + y) * dims[2];
            (low[2]..=high[2]).for_each(|z| f(row + z));
        }
    }
}

pub struct SurfaceGrid {
    reach: f32,
    /// The corner of cell (1, 1, 1): the triangles' bounding box's least corner. Cell 0 of each
    /// axis holds what the reach grows past it.
    origin: [f32; 3],
    cell: f32,
    /// Cells along each axis.
    dims: [usize; 3],
    /// Where each cell's triangles start in `triangles` (cells in x, then y, then z order), and
    /// where the last one's end: a point's triangles are one lookup away, without a search.
    starts: Vec<u32>,
    triangles: Vec<u32>,
    large: Vec<u32>,
    /// Each triangle's corners and bounding sphere, side by side (`Corners`).
    corners: Vec<Corners>,
}

/// A triangle's three corners and its bounding sphere (centroid, radius), in one place: a point
/// farther than the radius plus the distance asked about is rejected without measuring the
/// triangle, and one measured reads one record instead of its three indices and three corners
/// spread over the vertex array (session 38, CPU time with the same bytes: bunny simplify 37.7 →
/// 35.2 ms, terrain 271 → 252, many-small-meshes 62 → 59).
struct Corners {
    corners: [[f32; 3]; 3],
    centroid: [f32; 3],
    radius: f32,
}

impl SurfaceGrid {
    /// The triangles of `indices` over `positions`, for questions about distances up to `reach`.
    ///
    /// Binned by counting (session 40): the cells each triangle covers are counted, the counts
    /// summed into where each cell starts, and the triangles written into their cells from the
    /// back, so each cell lists its triangles in ascending order. Until then (cell, triangle) pairs
    /// were sorted by a two-pass radix sort and the occupied cells' keys searched for at every
    /// question.
    pub fn new(positions: &[[f32; 3]], indices: &[u32], reach: f32) -> Self {
        let threaded = indices.len() / 3 >= TRIANGLES_WORTH_THREADS;
        let boxes: Vec<Bounds> = in_parallel::indexed(indices.len() / 3, threaded, |t| {
            let mut b = Bounds::empty();
            indices[3 * t..3 * t + 3].iter().for_each(|&v| b.add(positions[v as usize]));
            b
        });
        let mut bounds = Bounds::empty();
        let mut sizes = 0.0f32;
        for b in &boxes {
            sizes += b.extent();
            bounds.add(b.min);
            bounds.add(b.max);
        }
        let triangles = boxes.len();
        let mean = if triangles > 0 { sizes / triangles as f32 } else { 0.0 };
        let mut cell = (2.0 * reach).max(0.5 * mean).max(bounds.extent() / MAX_CELLS_PER_AXIS).max(f32::MIN_POSITIVE);
        let origin = if bounds.is_empty() { [0.0; 3] } else { bounds.min };
        let most_cells = CELLS_PER_TRIANGLE * triangles as u64 + CELLS_FLOOR;
        let dims_at = |cell: f32| -> [usize; 3] {
            if bounds.is_empty() {
                return [1; 3];
            }
            // Cells 0 and the one past the box's far side hold what the reach grows past it (the
            // reach is at most half a cell); a box too wide for the cells (not finite) leaves its
            // triangles large.
            [0, 1, 2].map(|k| {
                let far = ((bounds.max[k] + reach - origin[k]) / cell).floor();
                if (0.0..1e6).contains(&far) {
                    far as usize + 2
                } else {
                    1
                }
            })
        };
        let mut dims = dims_at(cell);
        while dims.iter().map(|&d| d as u64).product::<u64>() > most_cells {
            let over = dims.iter().map(|&d| d as f64).product::<f64>() / most_cells as f64;
            cell *= over.cbrt().max(1.01) as f32;
            dims = dims_at(cell);
        }
        let cells = dims.iter().product::<usize>();
        let mut grid = SurfaceGrid { reach, origin, cell, dims, starts: vec![0; cells + 1], triangles: Vec::new(), large: Vec::new(), corners: Vec::new() };
        grid.corners = in_parallel::indexed(triangles, threaded, |t| {
            let corners = [0, 1, 2].map(|k| positions[indices[3 * t + k] as usize]);
            let centroid = [0, 1, 2].map(|k| (corners[0][k] + corners[1][k] + corners[2][k]) / 3.0);
            let radius = corners.iter().map(|&q| dot(sub(q, centroid), sub(q, centroid))).fold(0.0f32, f32::max).sqrt();
            Corners { corners, centroid, radius }
        });
        // Each binned triangle's block of cells (its least and greatest cell), or None: large.
        let blocks: Vec<Option<Block>> = in_parallel::indexed(triangles, threaded, |t| {
            let b = &boxes[t];
            let (low, high) = (grid.cell_of(b.min.map(|c| c - reach))?, grid.cell_of(b.max.map(|c| c + reach))?);
            let covered: u64 = (0..3).map(|k| (high[k] - low[k] + 1) as u64).product();
            (covered <= MAX_CELLS_PER_TRIANGLE).then_some((low, high))
        });
        // Counts first, each cell's at its end's place; summed, each entry is where its cell ends.
        for (t, block) in blocks.iter().enumerate() {
            match block {
                None => grid.large.push(t as u32),
                Some(block) => for_cells(block, dims, |c| grid.starts[c + 1] += 1),
            }
        }
        for c in 1..=cells {
            grid.starts[c] += grid.starts[c - 1];
        }
        grid.triangles = vec![0; grid.starts[cells] as usize];
        // From the last triangle back, each written just before its cell's end so far, so each
        // cell lists its triangles in ascending order.
        let mut ends = grid.starts[1..].to_vec();
        for (t, block) in blocks.iter().enumerate().rev() {
            if let Some(block) = block {
                for_cells(block, dims, |c| {
                    ends[c] -= 1;
                    grid.triangles[ends[c] as usize] = t as u32;
                });
            }
        }
        grid
    }

    /// The cell holding `p` (per axis), None outside the grid's cells.
    fn cell_of(&self, p: [f32; 3]) -> Option<[usize; 3]> {
        let mut cell = [0; 3];
        for k in 0..3 {
            let c = ((p[k] - self.origin[k]) / self.cell).floor() + 1.0;
            if !(c >= 0.0 && c < self.dims[k] as f32) {
                return None;
            }
            cell[k] = c as usize;
        }
        Some(cell)
    }

    /// Whether some triangle is within the grid's reach of `p`.
    pub fn near(&self, p: [f32; 3]) -> bool {
        self.witness(p).is_some()
    }

    /// The triangles binned in `p`'s cell.
    fn binned(&self, p: [f32; 3]) -> &[u32] {
        match self.cell_of(p) {
            Some([x, y, z]) => {
                let c = (x * self.dims[1] + y) * self.dims[2] + z;
                &self.triangles[self.starts[c] as usize..self.starts[c + 1] as usize]
            }
            None => &[],
        }
    }

    /// The triangles that can be within the grid's reach of `p` (those binned in its cell, and
    /// the large ones); the others are farther.
    pub fn candidates(&self, p: [f32; 3]) -> impl Iterator<Item = u32> + '_ {
        self.binned(p).iter().chain(&self.large).copied()
    }

    /// A triangle (its index among `indices`' triples) within the grid's reach of `p`, if any.
    pub fn witness(&self, p: [f32; 3]) -> Option<u32> {
        self.witness_from(p, None).map(|(t, _)| t)
    }

    /// As `witness`, trying `hint` first: points taken in a mesh's order are mostly neighbours, and
    /// the last one's triangle is usually within reach of the next, for one distance instead of a
    /// cell's search. With the triangle comes its squared distance to `p`.
    pub fn witness_from(&self, p: [f32; 3], hint: Option<u32>) -> Option<(u32, f32)> {
        self.within_from(p, hint, self.reach * self.reach)
    }

    /// As `witness_from`, for a triangle within `sqrt(limit2)` of `p` (a distance up to the reach).
    pub fn within_from(&self, p: [f32; 3], hint: Option<u32>, limit2: f32) -> Option<(u32, f32)> {
        let limit = limit2.sqrt();
        let within = |t: u32| Some((t, self.distance2_within(t, p, limit))).filter(|&(_, d)| d <= limit2);
        hint.and_then(within).or_else(|| self.binned(p).iter().chain(&self.large).find_map(|&t| within(t)))
    }

    /// The nearest triangle within the grid's reach of `p` and its squared distance, if any.
    pub fn nearest(&self, p: [f32; 3]) -> Option<(u32, f32)> {
        let mut best = (self.reach * self.reach, self.reach, None);
        for &t in self.binned(p).iter().chain(&self.large) {
            let d = self.distance2_within(t, p, best.1);
            if d <= best.0 {
                best = (d, d.sqrt(), Some(t));
            }
        }
        best.2.map(|t| (t, best.0))
    }

    /// The squared distance from `p` to triangle `t`, or infinity when the triangle's bounding
    /// sphere alone shows it is farther than `limit`.
    fn distance2_within(&self, t: u32, p: [f32; 3], limit: f32) -> f32 {
        let Corners { corners: [a, b, c], centroid, radius } = &self.corners[t as usize];
        let to_centroid = sub(p, *centroid);
        let outside = radius + limit;
        if dot(to_centroid, to_centroid) > outside * outside {
            return f32::INFINITY;
        }
        distance2_to_triangle(p, *a, *b, *c)
    }

    /// Where a walk across the surface toward `p` from triangle `start` stops, and its squared
    /// distance to `p` (`fans` gives the triangles' corners and the triangles around each corner,
    /// asked for only where the walk moves): from a triangle whose nearest point to `p` lies on an
    /// edge, to the triangle across it; on a corner, to the nearest of the triangles around it;
    /// while the distance falls and is over `limit2`, for up to `WALK_STEPS` steps. It stops
    /// farther than `limit2` inside a triangle's face, at a border or a fold, or after its steps,
    /// and does not start from a triangle out of the grid's reach; the grid's search is what is
    /// left there.
    pub fn walk<'f, 'i: 'f>(&self, fans: impl Fn() -> &'f Fans<'i>, p: [f32; 3], start: u32, limit2: f32) -> (u32, f32) {
        // Each triangle is measured once: where on it the nearest point lies, and how far; a
        // neighbour whose bounding sphere lies no nearer than the walk has come is not measured.
        let measure = |t: u32, within2: f32| {
            let Corners { corners: [a, b, c], centroid, radius } = &self.corners[t as usize];
            let to_centroid = sub(p, *centroid);
            let outside = radius + within2.sqrt();
            if dot(to_centroid, to_centroid) > outside * outside {
                return None;
            }
            let (region, d) = region_and_distance2(p, *a, *b, *c);
            Some((t, region, d))
        };
        let (_, mut region, mut d) = measure(start, f32::INFINITY).expect("no bound");
        let mut t = start;
        // From a triangle out of the grid's reach the walk does not start: it would be long where
        // the cell's search is not (the Stanford bunny's OBJ, whose vertices come in no order:
        // its measure took 52 M instructions searching cells, 172 M walking from everywhere).
        if d > self.reach2() {
            return (t, d);
        }
        for _ in 0..WALK_STEPS {
            if d <= limit2 {
                break;
            }
            let fans = fans();
            let ids = fans.corners(t);
            let (around, across) = match region {
                Some(Region::Edge(i, j, _)) => (fans.around(ids[i]), Some(ids[j])),
                Some(Region::Corner(k)) => (fans.around(ids[k]), None),
                _ => break,
            };
            let nearer = around.iter().filter(|&&n| n != t && across.is_none_or(|v| fans.corners(n).contains(&v))).filter_map(|&n| measure(n, d)).fold(
                None,
                |best: Option<(u32, Option<Region>, f32)>, m| match best {
                    Some(b) if b.2 <= m.2 => Some(b),
                    _ => Some(m),
                },
            );
            match nearer {
                Some(m) if m.2 < d => (t, region, d) = m,
                _ => break,
            }
        }
        (t, d)
    }

    /// The farthest a triangle may lie from a point to be within the grid's reach, squared.
    pub fn reach2(&self) -> f32 {
        self.reach * self.reach
    }
}

/// Steps a walk across the surface takes at most (`SurfaceGrid::walk`).
const WALK_STEPS: usize = 8;

/// The triangles of a triangle list around each of its vertices, for walks across its surface.
pub struct Fans<'a> {
    indices: &'a [u32],
    /// Where each vertex's triangles start in `triangles`, and where the last one's end.
    starts: Vec<u32>,
    triangles: Vec<u32>,
}

impl<'a> Fans<'a> {
    /// The fans of the triangles of `indices` (whole triples only) over `vertex_count` vertices;
    /// a corner past them belongs to no fan.
    pub fn new(indices: &'a [u32], vertex_count: usize) -> Self {
        let indices = &indices[..indices.len() / 3 * 3];
        let mut starts = vec![0u32; vertex_count + 1];
        for &v in indices.iter().filter(|&&v| (v as usize) < vertex_count) {
            starts[v as usize + 1] += 1;
        }
        for v in 1..=vertex_count {
            starts[v] += starts[v - 1];
        }
        let mut next = starts[..vertex_count].to_vec();
        let mut triangles = vec![0u32; starts[vertex_count] as usize];
        for (t, triangle) in indices.chunks_exact(3).enumerate() {
            for &v in triangle.iter().filter(|&&v| (v as usize) < vertex_count) {
                triangles[next[v as usize] as usize] = t as u32;
                next[v as usize] += 1;
            }
        }
        Fans { indices, starts, triangles }
    }

    /// The triangles with vertex `v` as a corner.
    fn around(&self, v: u32) -> &[u32] {
        match self.starts.get(v as usize..v as usize + 2) {
            Some(&[start, end]) => &self.triangles[start as usize..end as usize],
            _ => &[],
        }
    }

    /// Triangle `t`'s corners.
    fn corners(&self, t: u32) -> [u32; 3] {
        let i = t as usize * 3;
        [self.indices[i], self.indices[i + 1], self.indices[i + 2]]
    }
}

/// Whether some triangle of `indices` over `positions` lies within `reach` of `p`, each tried in
/// turn (its box grown by `reach` first): for a few points, far cheaper than binning the triangles
/// in a grid, which costs as much as a few dozen such searches.
pub fn any_within(positions: &[[f32; 3]], indices: &[u32], p: [f32; 3], reach: f32) -> bool {
    let reach2 = reach * reach;
    indices.chunks_exact(3).any(|t| {
        let [a, b, c] = [t[0], t[1], t[2]].map(|v| positions[v as usize]);
        (0..3).all(|k| p[k] >= a[k].min(b[k]).min(c[k]) - reach && p[k] <= a[k].max(b[k]).max(c[k]) + reach) && distance2_to_triangle(p, a, b, c) <= reach2
    })
}

/// Squared distance from `p` to triangle `t` (its index among the triples of `indices`).
pub fn triangle_distance2(positions: &[[f32; 3]], indices: &[u32], t: u32, p: [f32; 3]) -> f32 {
    let f = &indices[t as usize * 3..t as usize * 3 + 3];
    let [a, b, c] = [f[0], f[1], f[2]].map(|v| positions[v as usize]);
    distance2_to_triangle(p, a, b, c)
}

/// Where on a triangle the point nearest another lies: a corner (0, 1, 2 for a, b, c), an edge
/// between two corners at a share of its length from the first, or inside the face, at weights
/// `v` and `w` of the second and third corners, with the face's (unnormalized) normal.
#[derive(Clone, Copy)]
enum Region {
    Corner(usize),
    Edge(usize, usize, f32),
    Face { v: f32, w: f32, normal: [f32; 3] },
}

/// The region of triangle `abc` holding the point nearest `p` (after Ericson, "Real-Time
/// Collision Detection", 5.1.5); None for a degenerate triangle.
#[inline]
fn region(p: [f32; 3], a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> Option<Region> {
    let (ab, ac, ap) = (sub(b, a), sub(c, a), sub(p, a));
    let normal = cross(ab, ac);
    if dot(normal, normal) <= f32::MIN_POSITIVE {
        return None;
    }
    let (d1, d2) = (dot(ab, ap), dot(ac, ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return Some(Region::Corner(0));
    }
    let bp = sub(p, b);
    let (d3, d4) = (dot(ab, bp), dot(ac, bp));
    if d3 >= 0.0 && d4 <= d3 {
        return Some(Region::Corner(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return Some(Region::Edge(0, 1, d1 / (d1 - d3)));
    }
    let cp = sub(p, c);
    let (d5, d6) = (dot(ab, cp), dot(ac, cp));
    if d6 >= 0.0 && d5 <= d6 {
        return Some(Region::Corner(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return Some(Region::Edge(0, 2, d2 / (d2 - d6)));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return Some(Region::Edge(1, 2, (d4 - d3) / ((d4 - d3) + (d5 - d6))));
    }
    let denom = 1.0 / (va + vb + vc);
    Some(Region::Face { v: vb * denom, w: vc * denom, normal })
}

/// Squared distance from `p` to triangle `abc`, by the region of its nearest point (`region`); a
/// degenerate triangle is measured as its edges.
pub fn distance2_to_triangle(p: [f32; 3], a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> f32 {
    region_and_distance2(p, a, b, c).1
}

/// The region of triangle `abc` holding the point nearest `p` (`region`), and the squared
/// distance to it (`distance2_to_triangle`).
#[inline]
fn region_and_distance2(p: [f32; 3], a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> (Option<Region>, f32) {
    let corners = [a, b, c];
    let region = region(p, a, b, c);
    let d = match region {
        None => distance2_to_segment(p, a, b).min(distance2_to_segment(p, b, c)).min(distance2_to_segment(p, c, a)),
        Some(Region::Corner(k)) => {
            let to = sub(p, corners[k]);
            dot(to, to)
        }
        Some(Region::Edge(i, j, _)) => distance2_to_segment(p, corners[i], corners[j]),
        // Inside the face: the distance to its plane.
        Some(Region::Face { normal, .. }) => {
            let d = dot(sub(p, a), normal);
            d * d / dot(normal, normal)
        }
    };
    (region, d)
}

/// The point of triangle `abc` closest to `p`, as weights of its corners (summing to 1), by the
/// same regions as `distance2_to_triangle`; None for a degenerate triangle.
pub fn closest_weights(p: [f32; 3], a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> Option<[f32; 3]> {
    Some(match region(p, a, b, c)? {
        Region::Corner(k) => {
            let mut w = [0.0; 3];
            w[k] = 1.0;
            w
        }
        Region::Edge(i, j, t) => {
            let mut w = [0.0; 3];
            (w[i], w[j]) = (1.0 - t, t);
            w
        }
        Region::Face { v, w, .. } => [1.0 - v - w, v, w],
    })
}

fn distance2_to_segment(p: [f32; 3], a: [f32; 3], b: [f32; 3]) -> f32 {
    let (ab, ap) = (sub(b, a), sub(p, a));
    let len2 = dot(ab, ab);
    let u = if len2 > 0.0 { (dot(ap, ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
    let d = [ap[0] - ab[0] * u, ap[1] - ab[1] * u, ap[2] - ab[2] * u];
    dot(d, d)
}

/// The largest distance from a vertex of `source` to the faces of `simplified`, by brute force:
/// what the grid's answers are checked against.
#[cfg(test)]
pub(crate) fn deviation(source: &crate::model::Primitive, simplified: &crate::model::Primitive) -> f32 {
    let faces: Vec<[[f32; 3]; 3]> = simplified.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]].map(|v| simplified.positions[v as usize])).collect();
    let nearest = |q: [f32; 3]| faces.iter().map(|f| distance2_to_triangle(q, f[0], f[1], f[2])).fold(f32::INFINITY, f32::min);
    source.positions.iter().map(|&q| nearest(q).sqrt()).fold(0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::uniform;

    #[test]
    fn a_grid_worked_out_over_threads_holds_every_triangle_its_points_are_near() {
        // A wavy sheet of more triangles than are worth threads: each vertex's own triangles are
        // found within the reach, and the nearest distance of a point off the sheet is a true one.
        let n = 120;
        let positions: Vec<[f32; 3]> = (0..=n).flat_map(|y| (0..=n).map(move |x| [x as f32, y as f32, ((x + 2 * y) as f32 * 0.3).sin()])).collect();
        let at = |x: u32, y: u32| y * (n + 1) + x;
        let indices: Vec<u32> =
            (0..n).flat_map(|y| (0..n).flat_map(move |x| [at(x, y), at(x + 1, y), at(x, y + 1), at(x + 1, y), at(x + 1, y + 1), at(x, y + 1)])).collect();
        assert!(indices.len() / 3 >= TRIANGLES_WORTH_THREADS);
        let grid = SurfaceGrid::new(&positions, &indices, 0.5);
        for (t, corners) in indices.chunks_exact(3).enumerate().step_by(97) {
            let (found, d2) = grid.nearest(positions[corners[1] as usize]).expect("a corner is on the surface");
            assert_eq!(d2, 0.0, "triangle {t}: {found}");
        }
        let off = [60.25, 60.5, 3.0];
        let exact = indices
            .chunks_exact(3)
            .map(|t| distance2_to_triangle(off, positions[t[0] as usize], positions[t[1] as usize], positions[t[2] as usize]))
            .fold(f32::INFINITY, f32::min);
        assert!(exact > 0.25, "out of reach");
        let near = [60.25, 60.5, ((60.25f32 + 2.0 * 60.5) * 0.3).sin() + 0.1];
        let brute = indices
            .chunks_exact(3)
            .map(|t| distance2_to_triangle(near, positions[t[0] as usize], positions[t[1] as usize], positions[t[2] as usize]))
            .fold(f32::INFINITY, f32::min);
        assert_eq!(grid.nearest(near).map(|(_, d2)| d2), Some(brute));
        assert_eq!(grid.nearest(off), None);
    }

    #[test]
    fn the_closest_weights_name_the_point_at_the_triangles_distance() {
        let (a, b, c) = ([0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 0.5]);
        let mut unit = uniform(7);
        let mut next = || unit() * 4.0 - 1.5;
        // Points all around the triangle, so every region is met.
        for _ in 0..2_000 {
            let p = [next(), next(), next()];
            let w = closest_weights(p, a, b, c).expect("not degenerate");
            assert!(w.iter().all(|&x| (-1e-6..=1.0 + 1e-6).contains(&x)) && (w.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{w:?}");
            let q = [0, 1, 2].map(|k| w[0] * a[k] + w[1] * b[k] + w[2] * c[k]);
            let (to_q, d2) = (dot(sub(p, q), sub(p, q)), distance2_to_triangle(p, a, b, c));
            assert!((to_q - d2).abs() <= 1e-5 * (1.0 + d2), "{p:?}: {to_q} against {d2}");
        }
        assert_eq!(closest_weights([1.0; 3], a, a, b), None);
    }

    #[test]
    fn distances_by_region() {
        let (a, b, c) = ([0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]);
        let d = |p| distance2_to_triangle(p, a, b, c).sqrt();
        assert!((d([0.5, 0.5, 3.0]) - 3.0).abs() < 1e-6);
        assert!((d([-1.0, -1.0, 0.0]) - 2f32.sqrt()).abs() < 1e-6);
        assert!((d([1.0, -2.0, 0.0]) - 2.0).abs() < 1e-6);
        assert!((d([2.0, 2.0, 0.0]) - 2f32.sqrt()).abs() < 1e-6);
        assert!((d([3.0, 0.0, 4.0]) - 17f32.sqrt()).abs() < 1e-5);
        // A degenerate triangle (a segment).
        assert!((distance2_to_triangle([1.0, 1.0, 0.0], a, b, [1.0, 0.0, 0.0]).sqrt() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn a_few_triangles_far_apart_keep_the_grid_small_and_its_answers_exact() {
        // Fifty small triangles scattered over a scene a thousand times their size: at the reach
        // asked, the grid would be 130 cells a side; it grows its cells instead.
        let mut next = uniform(11);
        let mut positions = Vec::new();
        for _ in 0..50 {
            let at = [next() * 1000.0, next() * 1000.0, next() * 1000.0];
            positions.extend([at, [at[0] + 1.0, at[1], at[2]], [at[0], at[1] + 1.0, at[2] + 0.5]]);
        }
        let indices: Vec<u32> = (0..positions.len() as u32).collect();
        let reach = 0.25;
        let grid = SurfaceGrid::new(&positions, &indices, reach);
        assert!(grid.starts.len() as u64 <= CELLS_PER_TRIANGLE * 50 + CELLS_FLOOR + 1, "{:?}", grid.dims);
        assert!(grid.large.is_empty());
        // Points around each triangle's corners, within its reach or not.
        let mut near = 0;
        for t in 0..50 {
            for _ in 0..20 {
                let base = positions[t * 3 + (next() * 3.0) as usize % 3];
                let p = [0, 1, 2].map(|k| base[k] + next() * 1.2 - 0.6);
                let brute = indices
                    .chunks_exact(3)
                    .any(|f| distance2_to_triangle(p, positions[f[0] as usize], positions[f[1] as usize], positions[f[2] as usize]) <= reach * reach);
                assert_eq!(grid.near(p), brute, "{p:?}");
                near += usize::from(brute);
            }
        }
        assert!((100..900).contains(&near), "{near} of 1000 near");
        assert!(!grid.near([f32::NAN, 0.0, 0.0]) && grid.nearest([500.0, f32::INFINITY, 0.0]).is_none());
    }

    #[test]
    fn a_walk_finds_only_triangles_within_the_limit_and_finds_them_across_the_surface() {
        // A wavy 16 x 16 sheet of two triangles a square; points just above and below it, each
        // walked to from a triangle a few squares away.
        let n = 16u32;
        let positions: Vec<[f32; 3]> =
            (0..=n).flat_map(|y| (0..=n).map(move |x| [x as f32, y as f32, (x as f32 * 0.5).sin() * (y as f32 * 0.3).cos()])).collect();
        let mut indices = Vec::new();
        for y in 0..n {
            for x in 0..n {
                let a = y * (n + 1) + x;
                indices.extend([a, a + 1, a + n + 2, a, a + n + 2, a + n + 1]);
            }
        }
        let grid = SurfaceGrid::new(&positions, &indices, 3.0);
        let fans = Fans::new(&indices, positions.len());
        let triangles = indices.len() as u32 / 3;
        let mut next = uniform(5);
        let mut found = 0;
        for _ in 0..2000 {
            let (x, y) = (next() * n as f32, next() * n as f32);
            let p = [x, y, (x * 0.5).sin() * (y * 0.3).cos() + next() * 0.2 - 0.1];
            let nearest = indices
                .chunks_exact(3)
                .map(|t| distance2_to_triangle(p, positions[t[0] as usize], positions[t[1] as usize], positions[t[2] as usize]))
                .fold(f32::INFINITY, f32::min);
            // From the triangle of the square a step or two off, or from any triangle at all.
            let (sx, sy) = (((x + 2.0 * next() - 1.0).clamp(0.0, n as f32 - 1.0)) as u32, ((y + 2.0 * next() - 1.0).clamp(0.0, n as f32 - 1.0)) as u32);
            let start = if next() < 0.9 { (sy * n + sx) * 2 + u32::from(next() < 0.5) } else { (next() * triangles as f32) as u32 % triangles };
            let limit2 = nearest + 0.01;
            if let Some((t, d)) = Some(grid.walk(|| &fans, p, start, limit2)).filter(|&(_, d)| d <= limit2) {
                assert!(d <= limit2 && d == triangle_distance2(&positions, &indices, t, p), "{p:?} from {start}");
                found += 1;
            }
        }
        // Walks stop at a face's inside or at the border, and do not start out of reach: most
        // still get there.
        assert!(found > 1500, "{found} of 2000 walks found a triangle");
        // From a triangle out of reach the walk stays where it started.
        let far = [15.5, 15.5, 0.0];
        assert_eq!(grid.walk(|| &fans, far, 0, 0.0), (0, triangle_distance2(&positions, &indices, 0, far)));
        // A triangle list cut short keeps its whole triangles; corners past the vertices have no fan.
        let cut = Fans::new(&indices[..7], 3);
        assert_eq!((cut.around(0), cut.around(1), cut.around(2), cut.around(17)), (&[0u32, 1][..], &[0u32][..], &[][..], &[][..]));
    }

    #[test]
    fn the_grid_agrees_with_a_brute_force_search() {
        // A wavy 12 x 12 sheet and points scattered above and around it.
        let n = 12u32;
        let mut positions: Vec<[f32; 3]> = (0..=n).flat_map(|y| (0..=n).map(move |x| [x as f32, y as f32, (x as f32 * 0.7).sin() * 0.5])).collect();
        // And one large slanted triangle under it, too large to bin.
        let floor = positions.len() as u32;
        positions.extend([[-1.0, -1.0, -1.5], [14.0, -1.0, -0.5], [-1.0, 14.0, -1.0]]);
        let mut indices = vec![floor, floor + 1, floor + 2];
        for y in 0..n {
            for x in 0..n {
                let a = y * (n + 1) + x;
                indices.extend([a, a + 1, a + n + 2, a, a + n + 2, a + n + 1]);
            }
        }
        let reach = 0.3;
        let grid = SurfaceGrid::new(&positions, &indices, reach);
        assert_eq!(grid.large, [0]);
        let mut next = uniform(7);
        let (mut near, mut far) = (0, 0);
        for _ in 0..2000 {
            let p = [next() * 14.0 - 1.0, next() * 14.0 - 1.0, next() * 3.0 - 2.0];
            let brute = indices.chunks_exact(3).any(|t| {
                let [a, b, c] = [t[0], t[1], t[2]].map(|v| positions[v as usize]);
                distance2_to_triangle(p, a, b, c) <= reach * reach
            });
            assert_eq!(grid.near(p), brute, "{p:?}");
            assert_eq!(any_within(&positions, &indices, p, reach), brute, "{p:?}");
            let closest = indices.chunks_exact(3).map(|t| {
                let [a, b, c] = [t[0], t[1], t[2]].map(|v| positions[v as usize]);
                distance2_to_triangle(p, a, b, c)
            });
            let closest = closest.fold(f32::INFINITY, f32::min);
            let nearest = grid.nearest(p);
            assert_eq!(nearest.map(|(t, _)| triangle_distance2(&positions, &indices, t, p)), (closest <= reach * reach).then_some(closest), "{p:?}");
            assert_eq!(nearest.map(|(_, d)| d), (closest <= reach * reach).then_some(closest), "{p:?}");
            // A witness found from any hint is within reach, and says how far.
            for hint in [None, Some(0), Some(77)] {
                let witness = grid.witness_from(p, hint);
                assert_eq!(witness.is_some(), brute, "{p:?}");
                if let Some((t, d)) = witness {
                    assert!(d <= reach * reach && d == triangle_distance2(&positions, &indices, t, p), "{p:?}");
                }
            }
            if brute {
                near += 1
            } else {
                far += 1
            }
        }
        assert!(near > 200 && far > 200, "{near} {far}");
        // Far outside the block of cells: only the large triangle is measured, and it is far too.
        for p in [[1e6, 0.0, 0.0], [-1e7, 5.0, 5.0], [5.0, 5.0, 3e5]] {
            assert!(!grid.near(p) && grid.nearest(p).is_none() && !any_within(&positions, &indices, p, reach), "{p:?}");
        }
    }
}
