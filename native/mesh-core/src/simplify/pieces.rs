//! Pieces held apart. A primitive is often many pieces: the parts of a static scene merged by
//! material (merge.rs), bolts and panels, rocks. Pieces share no edge, so a collapse of the whole
//! under one error limit is, piece by piece, the collapse of each under that limit; when it strays
//! from the bound it usually strays on a few of them. Searching a lower limit for the whole then
//! keeps every piece finer than it needs, and pays for collapsing all of them again at every step.
//! Here the pieces that held keep what the first collapse made of them, and only those that
//! strayed are collapsed again, on their own, under lower limits, until each holds.
use super::{held_collapse, Collapse, Collapser, Held, Placed, OVERSHOOT_REACH, SCALED_MARGIN};
use crate::equal_keys::{first_of_equal, KeyHash, VertexKeys};
use crate::mesh_ops::{compact, float_bits};
use crate::model::Primitive;
use crate::surface_distance::{triangle_distance2, SurfaceGrid};
use crate::topology::UnionFind;

/// Collapses of the pieces that strayed, each under a lower limit, before those still straying
/// are left to the search of limits (`held_collapse`) together.
const ROUNDS: usize = 3;

/// The share of a primitive's faces in pieces that strayed above which the whole is searched as
/// one: held apart, the search would cost nearly as much and keep nearly as many faces.
const MOST: f64 = 0.75;

/// Where the next limit is scaled to: as if each piece's deviation grew in step with the limit,
/// the limit at which this share of the pieces that strayed would hold.
const SCALED_SHARE: f64 = 0.75;

/// The collapse that holds, its faces and placed vertices numbered as `whole`'s primitive, and the
/// deviation measured: the `first` collapse (under the bound, toward the face target; `grid` its
/// faces, `Held::grid`) where its pieces held, and the pieces that strayed collapsed again apart
/// from the others. None where the primitive is one piece, is posed, or strayed on most of its
/// faces, and where the pieces put together do not hold (a vertex that lay near another piece's
/// faces).
pub(super) fn held_apart(whole: &Collapser, held: &Held, first: &Collapse, grid: &SurfaceGrid) -> Option<(Collapse, f32)> {
    let p = whole.p;
    if !held.poses.is_empty() {
        return None;
    }
    let (piece, count) = pieces_of(p);
    if count < 2 {
        return None;
    }
    let bound = held.bound;
    let mut together = Together::new(p);
    let (mut strayed, mut overshoots) = strays(held, first, grid, |v| piece[v as usize], count);
    let faces_of = |strayed: &[bool]| p.indices.chunks_exact(3).filter(|t| strayed[piece[t[0] as usize] as usize]).count();
    if faces_of(&strayed) as f64 > MOST * (p.indices.len() / 3) as f64 {
        return None;
    }
    together.add(first, None, |v| !strayed[piece[v as usize] as usize]);
    let mut target = kept_faces(first, |v| strayed[piece[v as usize] as usize]);
    let mut limit = first.error.min(bound);
    for round in 1..=ROUNDS {
        if overshoots.is_empty() {
            break;
        }
        limit *= scale(bound, &mut overshoots);
        let indices: Vec<u32> = p.indices.chunks_exact(3).filter(|t| strayed[piece[t[0] as usize] as usize]).flatten().copied().collect();
        let order = first_use_order(&indices, p.positions.len());
        let part = compact(p, &indices);
        let locks: Vec<bool> = order.iter().map(|&v| whole.user_locks[v as usize]).collect();
        let collapser = Collapser::new(&part, whole.extent, whole.lock_border, &locks, whole.may_place);
        let part_held = collapser.held(bound);
        let collapse = collapser.collapse(limit, target);
        let piece_of = |v: u32| piece[order[v as usize] as usize];
        let (now_strayed, now_overshoots) = strays(&part_held, &collapse, &part_held.grid(&collapse), piece_of, count);
        // The last round, or one where every piece strayed again, leaves those that strayed to the
        // search of limits, together.
        if !now_overshoots.is_empty() && (round == ROUNDS || now_overshoots.len() == overshoots.len()) {
            let overshoot = part_held.overshoot(&collapse);
            let (searched, _) = held_collapse(&part_held, target, collapse, overshoot, 0, |limit, faces| collapser.collapse(limit, faces));
            together.add(&searched, Some(&order), |_| true);
            break;
        }
        together.add(&collapse, Some(&order), |v| !now_strayed[piece_of(v) as usize]);
        target = kept_faces(&collapse, |v| now_strayed[piece_of(v) as usize]);
        (strayed, overshoots) = (now_strayed, now_overshoots);
    }
    let combined = together.collapse(p);
    let deviation = held.by(&combined)?;
    Some((combined, deviation))
}

/// The faces and placed vertices of the pieces that held, gathered in the whole's numbering.
struct Together {
    indices: Vec<u32>,
    positions: Vec<[f32; 3]>,
    error: f32,
}

impl Together {
    fn new(p: &Primitive) -> Self {
        Together { indices: Vec::with_capacity(p.indices.len() / 4), positions: p.positions.clone(), error: 0.0 }
    }

    /// The faces of `collapse` (over a part whose vertex `v` is the whole's `order[v]`, or over the
    /// whole) whose first vertex is `kept`, and where it placed their vertices.
    fn add(&mut self, collapse: &Collapse, order: Option<&[u32]>, kept: impl Fn(u32) -> bool) {
        let whole = |v: u32| order.map_or(v, |order| order[v as usize]);
        for t in collapse.indices.chunks_exact(3).filter(|t| kept(t[0])) {
            for &v in t {
                self.indices.push(whole(v));
                if let Some(placed) = &collapse.placed {
                    self.positions[whole(v) as usize] = placed.positions[v as usize];
                }
            }
        }
        self.error = self.error.max(collapse.error);
    }

    fn collapse(self, p: &Primitive) -> Collapse {
        let moved: Vec<u32> = (0..p.positions.len() as u32).filter(|&v| self.positions[v as usize] != p.positions[v as usize]).collect();
        let placed = (!moved.is_empty()).then_some(Placed { positions: self.positions, moved });
        Collapse { indices: self.indices, error: self.error, placed }
    }
}

/// Each vertex's piece (faces joined through shared vertices or shared places: a UV seam does not
/// cut a piece) and how many pieces there are.
fn pieces_of(p: &Primitive) -> (Vec<u32>, usize) {
    let (same_place, _) = first_of_equal(&Places(&p.positions));
    let mut joined = UnionFind::new(p.positions.len());
    for t in p.indices.chunks_exact(3) {
        let a = same_place[t[0] as usize];
        joined.union(a, same_place[t[1] as usize]);
        joined.union(a, same_place[t[2] as usize]);
    }
    let mut label = vec![u32::MAX; p.positions.len()];
    let mut count = 0u32;
    let piece = (0..p.positions.len())
        .map(|v| {
            let root = joined.find(same_place[v]) as usize;
            if label[root] == u32::MAX {
                label[root] = count;
                count += 1;
            }
            label[root]
        })
        .collect();
    (piece, count as usize)
}

/// A vertex's place as its key: the bits of its position, both zeros as one.
pub(super) struct Places<'a>(pub(super) &'a [[f32; 3]]);

impl VertexKeys for Places<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }

    fn hash(&self, v: usize, hash: &mut KeyHash) {
        self.0[v].iter().for_each(|&c| hash.word(float_bits(c)));
    }

    fn equal(&self, a: usize, b: usize) -> bool {
        (0..3).all(|c| float_bits(self.0[a][c]) == float_bits(self.0[b][c]))
    }
}

/// Which of the `count` pieces (`piece_of` a vertex of `held`'s primitive) strayed past the bound
/// in `collapse` (`grid` its faces), and how far each that strayed did: at the first vertex found
/// past the bound, its distance to the faces kept of its own piece, up to `OVERSHOOT_REACH` times
/// the bound.
fn strays(held: &Held, collapse: &Collapse, grid: &SurfaceGrid, piece_of: impl Fn(u32) -> u32, count: usize) -> (Vec<bool>, Vec<f32>) {
    let mut strayed = vec![false; count];
    let mut far = Vec::new();
    let mut last = None;
    for v in held.measured(collapse) {
        let piece = piece_of(v) as usize;
        if strayed[piece] {
            continue;
        }
        match grid.witness_from(held.rest[v as usize], last) {
            Some((t, _)) => last = Some(t),
            None => {
                strayed[piece] = true;
                far.push(v);
            }
        }
    }
    if far.is_empty() {
        return (strayed, Vec::new());
    }
    // The faces kept of each piece that strayed, few against the whole's.
    let mut faces_of: Vec<Vec<u32>> = vec![Vec::new(); count];
    for (t, corners) in collapse.indices.chunks_exact(3).enumerate() {
        let piece = piece_of(corners[0]) as usize;
        if strayed[piece] {
            faces_of[piece].push(t as u32);
        }
    }
    let positions = collapse.positions(held.rest);
    let reach = held.bound * OVERSHOOT_REACH;
    let overshoots = far
        .iter()
        .map(|&v| {
            let nearest2 = faces_of[piece_of(v) as usize]
                .iter()
                .map(|&t| triangle_distance2(positions, &collapse.indices, t, held.rest[v as usize]))
                .fold(f32::INFINITY, f32::min);
            nearest2.sqrt().min(reach)
        })
        .collect();
    (strayed, overshoots)
}

/// What the limit is scaled by for the pieces that strayed to hold (`SCALED_SHARE` of them, if
/// their deviation grows in step with the limit), short of the bound by `SCALED_MARGIN`.
fn scale(bound: f32, overshoots: &mut [f32]) -> f32 {
    overshoots.sort_by(f32::total_cmp);
    let at = ((overshoots.len() as f64 * SCALED_SHARE).ceil() as usize).clamp(1, overshoots.len()) - 1;
    bound / overshoots[at].max(bound) * SCALED_MARGIN
}

/// The faces of `collapse` whose first vertex is `of`.
fn kept_faces(collapse: &Collapse, of: impl Fn(u32) -> bool) -> usize {
    collapse.indices.chunks_exact(3).filter(|t| of(t[0])).count()
}

/// The vertices `indices` use, in order of first use: the vertex `compact` numbers `k` is the
/// `k`th of them.
fn first_use_order(indices: &[u32], vertex_count: usize) -> Vec<u32> {
    let mut seen = vec![false; vertex_count];
    let mut order = Vec::new();
    for &v in indices {
        if !std::mem::replace(&mut seen[v as usize], true) {
            order.push(v);
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface_distance::deviation;

    /// An n × n grid of unit quads at `x0` along x, waving by `amplitude` in z.
    fn wave(n: usize, amplitude: f32, x0: f32) -> Primitive {
        let mut g = super::super::tests::grid(n);
        g.attributes.clear();
        for q in &mut g.positions {
            q[2] = amplitude * (q[0] * 0.25).sin() * (q[1] * 0.2).cos();
            q[0] += x0;
        }
        g
    }

    /// `pieces` as one primitive, their vertices one after another.
    fn together(pieces: &[Primitive]) -> Primitive {
        let mut p = Primitive { positions: Vec::new(), attributes: Vec::new(), indices: Vec::new(), material: None, variant_materials: Vec::new() };
        for piece in pieces {
            let base = p.positions.len() as u32;
            p.indices.extend(piece.indices.iter().map(|&v| v + base));
            p.positions.extend(&piece.positions);
        }
        p
    }

    #[test]
    fn a_seam_does_not_cut_a_piece_and_apart_grids_are_two() {
        let mut g = wave(4, 0.0, 0.0);
        // Column x = 2 split as a UV seam does: the faces right of it take copies of its vertices.
        let copies: Vec<u32> = (0..5).map(|y| y * 5 + 2).collect();
        for (k, &v) in copies.iter().enumerate() {
            g.positions.push(g.positions[v as usize]);
            for t in g.indices.chunks_exact_mut(3) {
                let right = t.iter().any(|&c| g.positions[c as usize][0] > 2.0);
                t.iter_mut().filter(|c| **c == v && right).for_each(|c| *c = 25 + k as u32);
            }
        }
        assert_eq!(pieces_of(&g).1, 1);
        let (piece, count) = pieces_of(&together(&[wave(4, 0.0, 0.0), wave(3, 0.0, 10.0)]));
        assert_eq!(count, 2);
        assert_eq!(piece[0], 0);
        assert_eq!(piece[25], 1);
    }

    /// A sphere of `rings` rings at `centre`, its radius roughened by up to `roughness` (a hash of
    /// the vertex number, the same every run).
    fn rough_sphere(rings: u32, centre: [f32; 3], roughness: f32, seed: u32) -> Primitive {
        let segments = rings * 2;
        let mut positions = Vec::new();
        for r in 0..=rings {
            let polar = std::f32::consts::PI * r as f32 / rings as f32;
            for s in 0..segments {
                let azimuth = std::f32::consts::TAU * s as f32 / segments as f32;
                let v = (r * segments + s).wrapping_mul(2_654_435_761).wrapping_add(seed.wrapping_mul(40_503));
                let radius = 1.0 + roughness * ((v >> 8) as f32 / (1u32 << 24) as f32 - 0.5);
                let radius = if r == 0 || r == rings { 1.0 } else { radius };
                positions.push([
                    centre[0] + radius * polar.sin() * azimuth.cos(),
                    centre[1] + radius * polar.sin() * azimuth.sin(),
                    centre[2] + radius * polar.cos(),
                ]);
            }
        }
        let mut indices = Vec::new();
        for r in 0..rings {
            for s in 0..segments {
                let (a, b) = (r * segments + s, r * segments + (s + 1) % segments);
                let (c, d) = (a + segments, b + segments);
                if r > 0 {
                    indices.extend([a, c, b]);
                }
                if r + 1 < rings {
                    indices.extend([b, c, d]);
                }
            }
        }
        Primitive { positions, attributes: Vec::new(), indices, material: None, variant_materials: Vec::new() }
    }

    /// Rough spheres apart, collapsed as far as the bound lets them: the first collapse strays on
    /// some of them, and held apart, the others keep what that collapse made of them, where one
    /// search of limits for all of them keeps every sphere finer.
    #[test]
    fn pieces_that_held_keep_their_collapse_while_those_that_strayed_are_searched_alone() {
        let spheres: Vec<Primitive> = (0..8).map(|k| rough_sphere(12 + k % 3, [4.0 * k as f32, 0.0, 0.0], 0.05 + 0.03 * (k % 4) as f32, k)).collect();
        let p = together(&spheres);
        let bound = 0.04;
        let locks = vec![false; p.positions.len()];
        let collapser = Collapser::new(&p, 30.0, false, &locks, true);
        let held = collapser.held(bound);
        let first = collapser.collapse(bound, 1);
        let grid = held.grid(&first);
        let (piece, count) = pieces_of(&p);
        assert_eq!(count, 8);
        let (strayed, _) = strays(&held, &first, &grid, |v| piece[v as usize], count);
        let (apart, apart_deviation) = held_apart(&collapser, &held, &first, &grid).expect("held apart");
        drop(grid);
        let faces_of = |c: &Collapse, k: usize| c.indices.chunks_exact(3).filter(|t| piece[t[0] as usize] as usize == k).count();
        let held_first: Vec<usize> = (0..count).filter(|&k| !strayed[k]).collect();
        assert!(!held_first.is_empty() && held_first.len() < count, "{strayed:?}");
        for &k in &held_first {
            assert_eq!(faces_of(&apart, k), faces_of(&first, k));
        }
        let overshoot = held.overshoot(&first);
        let (searched, _) = held_collapse(&held, 1, first, overshoot, 0, |limit, faces| collapser.collapse(limit, faces));
        assert!(apart.indices.len() < searched.indices.len(), "apart {}, searched together {}", apart.indices.len() / 3, searched.indices.len() / 3);
        // Every source vertex within the bound, as measured on the primitive simplify returns.
        assert!(apart_deviation <= bound);
        let s = super::super::simplify_primitive(&p, 1, bound, false);
        assert!(s.error <= bound && s.error == deviation(&p, &s.primitive), "{}", s.error);
        assert_eq!(s.primitive.face_count(), apart.indices.len() / 3);
    }

    #[test]
    fn a_primitive_of_one_piece_is_not_held_apart() {
        let p = wave(20, 1.0, 0.0);
        let locks = vec![false; p.positions.len()];
        let collapser = Collapser::new(&p, 20.0, false, &locks, true);
        let held = collapser.held(0.01);
        let first = collapser.collapse(0.01, 1);
        let grid = held.grid(&first);
        assert!(held_apart(&collapser, &held, &first, &grid).is_none());
    }
}
