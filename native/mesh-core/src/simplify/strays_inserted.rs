//! Strays inserted. When a posed mesh's first collapse strays in a pose by a few vertices, keeping
//! them in place (strays_kept.rs) collapses the whole mesh again, and with 20 pose floats a vertex
//! that second collapse costs as much as the first (the held-out skinned creature: one stray, 23 ms
//! for the second collapse against 4 ms for its measure). A stray is a source vertex the collapse
//! removed; put back into the faces that lie over it, it is on the surface again in every pose, and
//! only the faces around it change. So each stray is inserted into the nearest face the collapse
//! kept: into the face itself where it lies over the face's inside (one face becomes three), or
//! into the edge it lies over and the two faces on that edge (two become four). The result is
//! measured again, only where faces changed (`Held::strays_after` with what the last measure
//! witnessed), and whatever strays then is inserted in turn.
//!
//! An insertion is made only where it keeps the surface whole and facing as it did: each new face
//! turns the way the face it replaces did, and each face takes the vertex at the stray's place that
//! is of its own piece of the source by shared vertices (its chart: a vertex of another chart, across
//! a UV seam, would bring the wrong texture coordinates). An edge split needs one face across the
//! edge, found by the places of its ends (across a seam its corners are other vertices), and a
//! vertex at the stray's place in that face's piece too, or the face left whole would open a crack.
//! Where one cannot be made, or too many stray, the strays are kept in place by a collapse again.

use super::{Collapse, Held, Witnessed};
use crate::math::{cross, dot, sub};
use crate::number_keys::{map_with_capacity, set_with_capacity, NumberMap};
use crate::surface_distance::{closest_weights, triangle_distance2, SurfaceGrid};
use crate::topology::UnionFind;

/// Rounds of insertion before the strays are left to strays_kept.rs.
const ROUNDS: usize = 6;

/// The most vertices inserted, as a share of those the first collapse kept: where more stray, the
/// bound binds all over the surface, and the strays are left to strays_kept.rs, whose own limit
/// (`MOST_KEPT`) is the same. On the eight creatures of bench/mesh/creatures.ts (5 to 175 strays, 2
/// to 43 % of the vertices kept) insertion held on every one that strayed, in 1 to 5 rounds, with
/// 0.3 to 14 % fewer faces than the collapses with strays kept (1,905 → 1,632 on the one with 175);
/// CesiumMan, 116 strays of 375 (31 %), 738 → 574 faces.
const MOST_INSERTED: f64 = 0.5;

/// How far from a stray, in bounds, the face it goes into may lie. A stray at rest may lie farther
/// from the faces of its own chart than the measure's reach (`OVERSHOOT_REACH`, 4): CesiumMan
/// simplified at `max_error` 0.00724 has one past 4 and none past 16 (two rounds, 138 strays).
const REACH: f32 = 16.0;

/// A corner weight under this (of 1) puts the stray over the opposite edge, not the face's inside:
/// a face split there would be a sliver.
const INSIDE: f32 = 0.02;

/// The first collapse with its `strays` inserted, round after round, and its deviation at rest,
/// where every insertion could be made and the result holds within `ROUNDS`; else None.
pub(super) fn inserted(held: &Held, first: &Collapse, strays: &[u32], witnessed: &mut Witnessed) -> Option<(Collapse, f32)> {
    let faces = first.indices.len() / 3;
    let most = ((super::strays_kept::distinct_vertices(&first.indices) as f64 * MOST_INSERTED) as usize).max(1);
    if strays.len() > most {
        return None;
    }
    let source = Source::of(held);
    let mut indices = first.indices.clone();
    let mut strays = strays.to_vec();
    let mut count = 0;
    for _ in 0..ROUNDS {
        let mut round = Round::new(&source, &indices, held.bound * REACH);
        for &v in &strays {
            match insert(&source, &mut round, &mut indices, v)? {
                Inserted::Now => count += 1,
                Inserted::Later => {}
            }
        }
        if count > most {
            return None;
        }
        flatten_around(source.rest, &mut indices, &round.inserted);
        let collapse = Collapse { indices: indices.clone(), error: first.error, placed: None };
        let (left, deviation) = held.strays_after(&collapse, witnessed);
        if left.is_empty() {
            debug_assert_eq!(collapse.indices.len() / 3, faces + 2 * count);
            return Some((collapse, deviation));
        }
        strays = left;
    }
    None
}

/// What the insertions look at in the source: each vertex's place, its piece by shared vertices,
/// and the vertices at its place (a seam's sides, each in the piece of its own chart).
struct Source<'a> {
    rest: &'a [[f32; 3]],
    /// The source's faces.
    source: &'a [u32],
    /// Its border places (`border_places`), worked out once asked for.
    borders: std::sync::OnceLock<Borders>,
    piece: Vec<u32>,
    /// The first vertex at each vertex's place.
    place: Vec<u32>,
    /// The next vertex at the same place, round to the first: each place's vertices in a ring.
    next_twin: Vec<u32>,
}

impl<'a> Source<'a> {
    fn of(held: &Held<'a>) -> Self {
        let rest = held.rest;
        let mut pieces = UnionFind::new(rest.len());
        for t in held.source.chunks_exact(3) {
            pieces.union(t[0], t[1]);
            pieces.union(t[0], t[2]);
        }
        let piece = (0..rest.len() as u32).map(|v| pieces.find(v)).collect();
        let (place, _) = crate::equal_keys::first_of_equal(&super::pieces::Places(rest));
        Source::with(rest, held.source, piece, place)
    }

    fn with(rest: &'a [[f32; 3]], source: &'a [u32], piece: Vec<u32>, place: Vec<u32>) -> Self {
        let mut next_twin: Vec<u32> = (0..rest.len() as u32).collect();
        let mut last = vec![u32::MAX; rest.len()];
        for (v, &at) in place.iter().enumerate() {
            if last[at as usize] != u32::MAX {
                next_twin[last[at as usize] as usize] = v as u32;
            }
            last[at as usize] = v as u32;
        }
        for (at, &end) in last.iter().enumerate() {
            if end != u32::MAX {
                next_twin[end as usize] = at as u32;
            }
        }
        Source { rest, source, borders: Default::default(), piece, place, next_twin }
    }

    /// Of the source vertices on a border, that `indices` do not use and that lie over the edge
    /// `ends` (not near either end) within `reach2` of it, the one nearest `p`: its vertex in each
    /// of `pieces`. Two pieces: a border between two charts, whose places have a vertex in each.
    /// One (twice): an open border of the source, whose edges have a face on one side only.
    fn border_vertex(&self, used: &[bool], ends: [u32; 2], pieces: [u32; 2], p: [f32; 3], reach2: f32) -> Option<(u32, u32)> {
        let borders = self.borders.get_or_init(|| self.border_places());
        let candidates = if pieces[0] == pieces[1] { &borders.open } else { &borders.seams };
        let [a, b] = ends.map(|e| self.rest[e as usize]);
        let edge = sub(b, a);
        let length2 = dot(edge, edge);
        if length2.is_nan() || length2 <= 0.0 {
            return None;
        }
        let over = |w: usize| {
            let q = self.rest[w];
            let u = dot(sub(q, a), edge) / length2;
            let off = sub(sub(q, a), [edge[0] * u, edge[1] * u, edge[2] * u]);
            (INSIDE..=1.0 - INSIDE).contains(&u) && dot(off, off) <= reach2
        };
        let mut found: Vec<(f32, u32, u32)> = candidates
            .iter()
            .filter(|&&w| over(w as usize))
            .filter_map(|&w| Some((self.in_piece(w, pieces[0])?, self.in_piece(w, pieces[1])?)))
            .map(|(here, there)| {
                let d = sub(self.rest[here as usize], p);
                (dot(d, d), here, there)
            })
            .collect();
        found.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        found.into_iter().find(|&(_, here, there)| !used[here as usize] && !used[there as usize]).map(|(_, here, there)| (here, there))
    }

    /// The source's border places (each by its first vertex), in order: where the source is open
    /// (an edge between two places with a face on one side only) and where charts meet (a place
    /// with vertices in two pieces or more).
    fn border_places(&self) -> Borders {
        // Read in the set's order only to flag both ends of each open edge: the same flags in any order.
        let mut edges = set_with_capacity(self.source.len());
        for f in self.source.chunks_exact(3) {
            let at = [f[0], f[1], f[2]].map(|c| self.place[c as usize]);
            (0..3).for_each(|k| {
                edges.insert((at[k], at[(k + 1) % 3]));
            });
        }
        let mut open = vec![false; self.rest.len()];
        for &(a, b) in &edges {
            if !edges.contains(&(b, a)) {
                open[a as usize] = true;
                open[b as usize] = true;
            }
        }
        let seam = |at: u32| {
            let mut w = self.next_twin[at as usize];
            while w != at {
                if self.piece[w as usize] != self.piece[at as usize] {
                    return true;
                }
                w = self.next_twin[w as usize];
            }
            false
        };
        let places = (0..self.rest.len() as u32).filter(|&w| self.place[w as usize] == w);
        Borders { open: places.clone().filter(|&w| open[w as usize]).collect(), seams: places.filter(|&w| seam(w)).collect() }
    }

    /// The vertex at `v`'s place in `piece` (`v` itself where it is of that piece), if any.
    fn in_piece(&self, v: u32, piece: u32) -> Option<u32> {
        let mut w = v;
        loop {
            if self.piece[w as usize] == piece {
                return Some(w);
            }
            w = self.next_twin[w as usize];
            if w == v {
                return None;
            }
        }
    }
}

/// The edges around the vertices just `inserted` turned where that lies flatter: a vertex put back
/// over a face stands off it by up to the bound, and the faces from it to the corners of the face it
/// split can fold sharply against their neighbours (a creature's share of edges whose faces part by
/// over 60 degrees: 0.95 % with the collapses of strays kept, 4.9 % with insertion alone). Each
/// edge opposite an inserted vertex, with one face of the same chart across it, is turned to run
/// from the inserted vertex to that face's far corner where the two faces then part by less, neither
/// turns over against the two it replaces, and the new edge is not one the surface has already.
/// The faces that changed are measured again with the others.
fn flatten_around(rest: &[[f32; 3]], indices: &mut [u32], inserted: &[bool]) {
    let mut edges = edge_faces(indices, |c| c);
    let normal = |f: [u32; 3]| {
        let [a, b, c] = f.map(|v| rest[v as usize]);
        cross(sub(b, a), sub(c, a))
    };
    let cosine = |n: [f32; 3], m: [f32; 3]| dot(n, m) / (dot(n, n) * dot(m, m)).sqrt();
    let around: Vec<usize> = (0..indices.len() / 3).filter(|&t| indices[t * 3..t * 3 + 3].iter().any(|&v| inserted[v as usize])).collect();
    for t in around {
        let f = [indices[t * 3], indices[t * 3 + 1], indices[t * 3 + 2]];
        let Some(k) = (0..3).find(|&k| inserted[f[k] as usize]) else { continue };
        let (v, a, b) = (f[k], f[(k + 1) % 3], f[(k + 2) % 3]);
        let Some(&u) = edges.get(&(b, a)) else { continue };
        if u == MANY || u as usize == t {
            continue;
        }
        let u = u as usize;
        let Some(w) = indices[u * 3..u * 3 + 3].iter().copied().find(|&c| c != a && c != b) else { continue };
        if w == v || edges.contains_key(&(v, w)) || edges.contains_key(&(w, v)) {
            continue;
        }
        let (here, across) = (normal([a, b, v]), normal([b, a, w]));
        let (first, second) = (normal([a, w, v]), normal([w, b, v]));
        let both = [here[0] + across[0], here[1] + across[1], here[2] + across[2]];
        let flatter = cosine(first, second) > cosine(here, across);
        if !flatter || dot(first, both).is_nan() || dot(first, both) <= 0.0 || dot(second, both) <= 0.0 {
            continue;
        }
        for (x, y) in [(a, b), (b, v), (v, a), (b, a), (a, w), (w, b)] {
            edges.remove(&(x, y));
        }
        indices[t * 3..t * 3 + 3].copy_from_slice(&[a, w, v]);
        indices[u * 3..u * 3 + 3].copy_from_slice(&[w, b, v]);
        for (x, y, face) in [(a, w, t), (w, v, t), (v, a, t), (w, b, u), (b, v, u), (v, w, u)] {
            edges.insert((x, y), face as u32);
        }
    }
}

/// The source's open border places and the places where its charts meet (`Source::border_places`).
struct Borders {
    open: Vec<u32>,
    seams: Vec<u32>,
}

/// What one round of insertions looks up in the faces as they were at its start: their grid (up to
/// `reach` from each), the face on each side of each edge by its ends' places (`MANY` where
/// several are), the faces replaced this round (new ones past the end), the vertices used, and
/// those the round's insertions brought in.
struct Round {
    grid: SurfaceGrid,
    edges: NumberMap<(u32, u32), u32>,
    changed: Vec<bool>,
    used: Vec<bool>,
    inserted: Vec<bool>,
}

/// More than one face runs along an edge the same way: not a surface to split.
const MANY: u32 = u32::MAX;

/// The face on each edge of `indices` as it winds, by its ends `at` (a vertex's own number, or its
/// place): `MANY` where several faces run along it the same way.
fn edge_faces(indices: &[u32], at: impl Fn(u32) -> u32) -> NumberMap<(u32, u32), u32> {
    let mut edges = map_with_capacity(indices.len());
    for (t, f) in indices.chunks_exact(3).enumerate() {
        let at = [f[0], f[1], f[2]].map(&at);
        for k in 0..3 {
            edges.entry((at[k], at[(k + 1) % 3])).and_modify(|u| *u = MANY).or_insert(t as u32);
        }
    }
    edges
}

impl Round {
    fn new(source: &Source, indices: &[u32], reach: f32) -> Round {
        let edges = edge_faces(indices, |c| source.place[c as usize]);
        let mut used = vec![false; source.rest.len()];
        indices.iter().for_each(|&c| used[c as usize] = true);
        let inserted = vec![false; used.len()];
        Round { grid: SurfaceGrid::new(source.rest, indices, reach), edges, changed: vec![false; indices.len() / 3], used, inserted }
    }

    /// Faces `old` of `indices` replaced by `new` (as many or more): the first ones in their
    /// places, the rest at the end, every one of them marked changed and its corners used (a corner
    /// not used before is one the round inserted).
    fn replace(&mut self, indices: &mut Vec<u32>, old: &[usize], new: &[[u32; 3]]) {
        for (k, face) in new.iter().enumerate() {
            for &c in face {
                self.inserted[c as usize] |= !self.used[c as usize];
                self.used[c as usize] = true;
            }
            match old.get(k) {
                Some(&t) => {
                    indices[t * 3..t * 3 + 3].copy_from_slice(face);
                    self.changed[t] = true;
                }
                None => {
                    indices.extend_from_slice(face);
                    self.changed.push(true);
                }
            }
        }
    }
}

enum Inserted {
    Now,
    /// The face it lies over changed this round: looked at again after the measure.
    Later,
}

/// Stray `v` inserted into the nearest face of `indices` (as the `round` found them at its start):
/// None where it cannot be (module comment). A face takes the vertex at `v`'s place of its own
/// piece, so each side of a seam takes its own.
fn insert(source: &Source, round: &mut Round, indices: &mut Vec<u32>, v: u32) -> Option<Inserted> {
    let p = source.rest[v as usize];
    let piece_of = |t: usize| source.piece[indices[t * 3] as usize];
    // The nearest face of a piece that has a vertex at its place: a limb's stray may lie nearer
    // the body it overlaps.
    let grid = &round.grid;
    let t = grid
        .candidates(p)
        .filter(|&t| source.in_piece(v, piece_of(t as usize)).is_some())
        .map(|t| (triangle_distance2(source.rest, indices, t, p), t))
        .filter(|&(d2, _)| d2 <= grid.reach2())
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))?
        .1 as usize;
    if round.changed[t] {
        return Some(Inserted::Later);
    }
    let corners: [u32; 3] = indices[t * 3..t * 3 + 3].try_into().expect("three corners");
    let here = source.in_piece(v, piece_of(t))?;
    if corners.iter().any(|&c| source.piece[c as usize] != source.piece[here as usize]) {
        return None;
    }
    let [a, b, c] = corners.map(|c| source.rest[c as usize]);
    let weights = closest_weights(p, a, b, c)?;
    let faces_as = |new: &[[u32; 3]], old: &[u32]| {
        let [a, b, c] = [old[0], old[1], old[2]].map(|c| source.rest[c as usize]);
        let normal = cross(sub(b, a), sub(c, a));
        new.iter().all(|f| {
            let [x, y, z] = f.map(|c| source.rest[c as usize]);
            dot(cross(sub(y, x), sub(z, x)), normal) > 0.0
        })
    };
    let inside: Vec<usize> = (0..3).filter(|&k| weights[k] >= INSIDE).collect();
    match inside[..] {
        [_, _, _] => {
            let [a, b, c] = corners;
            let new = [[a, b, here], [b, c, here], [c, a, here]];
            if !faces_as(&new, &corners) {
                return None;
            }
            round.replace(indices, &[t], &new);
        }
        [i, j] => {
            // The edge from corner i to corner j, as the face winds: split here and in the one
            // face across it, which winds it the other way between the same places (across a
            // seam, through vertices of its own).
            let (from, to, opposite) = match (j + 3 - i) % 3 {
                1 => (corners[i], corners[j], corners[3 - i - j]),
                _ => (corners[j], corners[i], corners[3 - i - j]),
            };
            let (to_at, from_at) = (source.place[to as usize], source.place[from as usize]);
            let across = match round.edges.get(&(to_at, from_at)).copied() {
                Some(across) if across != MANY && across as usize != t => across as usize,
                None => {
                    // An open border: the source's own border vertex nearest the stray goes back
                    // into it (an inside vertex there would cut a notch into the outline).
                    let (w, _) = source.border_vertex(&round.used, [from, to], [piece_of(t), piece_of(t)], p, grid.reach2())?;
                    let new = [[from, w, opposite], [w, to, opposite]];
                    if !faces_as(&new, &corners) {
                        return None;
                    }
                    round.replace(indices, &[t], &new);
                    return Some(Inserted::Now);
                }
                _ => return None,
            };
            if round.changed[across] {
                return Some(Inserted::Later);
            }
            let face: [u32; 3] = indices[across * 3..across * 3 + 3].try_into().expect("three corners");
            let k = (0..3).find(|&k| source.place[face[k] as usize] == to_at)?;
            let (to_there, from_there, other) = (face[k], face[(k + 1) % 3], face[(k + 2) % 3]);
            // Where the stray has no vertex in the piece across, the edge is a chart's border the
            // collapse straightened, and the stray lies past it: the border's own source vertex
            // nearest the stray goes back instead, on both sides (the stray is measured again).
            let (here, there) = match source.in_piece(v, piece_of(across)) {
                Some(there) => (here, there),
                None => source.border_vertex(&round.used, [from, to], [piece_of(t), piece_of(across)], p, grid.reach2())?,
            };
            let new_here = [[from, here, opposite], [here, to, opposite]];
            let new_across = [[to_there, there, other], [there, from_there, other]];
            if !faces_as(&new_here, &corners) || !faces_as(&new_across, &face) {
                return None;
            }
            round.replace(indices, &[t, across], &[new_here[0], new_here[1], new_across[0], new_across[1]]);
        }
        _ => return None,
    }
    Some(Inserted::Now)
}

#[cfg(test)]
mod tests {
    use super::super::strays_kept::distinct_vertices;
    use super::super::strays_kept::tests::{bent_tube_by, faces, first_collapse};
    use super::*;
    use std::collections::HashMap;

    /// How many times each directed edge is run along by `indices`' faces.
    fn directed_edges(indices: &[u32]) -> HashMap<(u32, u32), usize> {
        let mut edges = HashMap::new();
        for f in indices.chunks_exact(3) {
            for k in 0..3 {
                *edges.entry((f[k], f[(k + 1) % 3])).or_insert(0) += 1;
            }
        }
        edges
    }

    /// Closed and turned one way: every edge is run along once each way.
    fn closed_and_oriented(indices: &[u32]) -> bool {
        let edges = directed_edges(indices);
        edges.iter().all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1))
    }

    #[test]
    fn a_few_strays_are_inserted_and_the_collapse_holds_closed_with_two_faces_each() {
        // The bent tube of strays_kept.rs, whose first collapse strays in a pose by a few vertices.
        first_collapse(&bent_tube_by(120, 0.15, 0.5), 0.002, 20, |_, held, _, first| {
            assert!(closed_and_oriented(&first.indices));
            let mut witnessed = Witnessed::default();
            let (strays, _) = held.strays_after(&first, &mut witnessed);
            assert!(!strays.is_empty());
            let Some((done, deviation)) = inserted(held, &first, &strays, &mut witnessed) else { panic!("{} strays not inserted", strays.len()) };
            assert_eq!(held.by(&done), Some(deviation), "holds at rest and in every pose");
            assert!(deviation <= held.bound);
            let added = distinct_vertices(&done.indices) - distinct_vertices(&first.indices);
            assert!(added >= strays.len().min(1));
            assert_eq!(faces(&done), faces(&first) + 2 * added);
            assert!(closed_and_oriented(&done.indices), "no crack and no face turned over");
            // Every face of the first collapse that no insertion touched is still there.
            let kept = directed_edges(&done.indices);
            let untouched = first.indices.chunks_exact(3).filter(|f| (0..3).all(|k| kept.contains_key(&(f[k], f[(k + 1) % 3])))).count();
            assert!(untouched + 2 * added >= faces(&first), "{untouched} of {} faces untouched", faces(&first));
        });
    }

    /// The square's faces, as source and as collapse.
    const SQUARE: [u32; 6] = [0, 1, 2, 0, 2, 3];
    /// The seamed square's (`seamed_square`).
    const SEAMED: [u32; 6] = [0, 1, 2, 5, 6, 3];

    /// A flat square of two faces (0, 1, 2) and (0, 2, 3) facing +z, and a point `above` it: the
    /// source for `insert`, its fifth vertex the point, and the square's grid.
    fn square_and(above: [f32; 3]) -> (Vec<[f32; 3]>, Vec<u32>) {
        (vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], above], vec![0, 1, 2, 0, 2, 3])
    }

    fn source_of(rest: &[[f32; 3]]) -> Source<'_> {
        Source::with(rest, &SQUARE, vec![0; rest.len()], (0..rest.len() as u32).collect())
    }

    fn insert_into(source: &Source, indices: &mut Vec<u32>) -> Option<Inserted> {
        let mut round = Round::new(source, indices, 1.0);
        insert(source, &mut round, indices, 4)
    }

    fn facing_up(rest: &[[f32; 3]], indices: &[u32]) -> bool {
        indices.chunks_exact(3).all(|f| {
            let [a, b, c] = [f[0], f[1], f[2]].map(|v| rest[v as usize]);
            cross(sub(b, a), sub(c, a))[2] > 0.0
        })
    }

    #[test]
    fn a_stray_over_a_face_splits_it_in_three() {
        let (rest, mut indices) = square_and([0.7, 0.3, 0.05]);
        assert!(matches!(insert_into(&source_of(&rest), &mut indices), Some(Inserted::Now)));
        assert_eq!(indices.len() / 3, 4);
        assert_eq!(indices[3..6], [0, 2, 3], "the other face is as it was");
        assert!(facing_up(&rest, &indices));
        assert_eq!(indices.iter().filter(|&&v| v == 4).count(), 3);
    }

    #[test]
    fn a_stray_over_an_edge_splits_the_two_faces_on_it() {
        let (rest, mut indices) = square_and([0.5, 0.5, 0.05]);
        assert!(matches!(insert_into(&source_of(&rest), &mut indices), Some(Inserted::Now)));
        assert_eq!(indices.len() / 3, 4);
        assert!(facing_up(&rest, &indices));
        let edges = directed_edges(&indices);
        assert!(!edges.contains_key(&(0, 2)) && !edges.contains_key(&(2, 0)), "the diagonal is gone");
        for border in [(0, 1), (1, 2), (2, 3), (3, 0)] {
            assert_eq!(edges.get(&border), Some(&1), "the border {border:?} is as it was");
        }
    }

    /// The square cut along its diagonal into two charts, (0, 1, 2) and (5, 6, 3), vertices 5 and 6
    /// at the places of 0 and 2; the stray 4 over the diagonal, and where `twin`, vertex 7 at its
    /// place in the second chart.
    fn seamed_square(twin: bool) -> (Vec<[f32; 3]>, Vec<u32>, Vec<u32>, Vec<u32>) {
        let mut rest = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.05], [0.0, 0.0, 0.0], [1.0, 1.0, 0.0]];
        let (mut piece, mut place) = (vec![0, 0, 0, 1, 0, 1, 1], vec![0, 1, 2, 3, 4, 0, 2]);
        if twin {
            rest.push([0.5, 0.5, 0.05]);
            piece.push(1);
            place.push(4);
        }
        (rest, vec![0, 1, 2, 5, 6, 3], piece, place)
    }

    #[test]
    fn a_stray_over_a_seam_is_inserted_on_each_side_as_its_own_vertex_there() {
        let (rest, mut indices, piece, place) = seamed_square(true);
        let source = Source::with(&rest, &SEAMED, piece, place);
        assert_eq!((source.in_piece(4, 1), source.in_piece(7, 0), source.in_piece(0, 1)), (Some(7), Some(4), Some(5)));
        assert!(matches!(insert_into(&source, &mut indices), Some(Inserted::Now)));
        assert_eq!(indices.len() / 3, 4);
        assert!(facing_up(&rest, &indices));
        for face in indices.chunks_exact(3) {
            let chart = source.piece[face[0] as usize];
            assert!(face.iter().all(|&c| source.piece[c as usize] == chart), "{face:?} takes vertices of its own chart only");
        }
        // Without a vertex at its place in the second chart, the first would open a crack.
        let (rest, mut indices, piece, place) = seamed_square(false);
        assert!(insert_into(&Source::with(&rest, &SEAMED, piece, place), &mut indices).is_none());
        assert_eq!(indices, [0, 1, 2, 5, 6, 3]);
    }

    #[test]
    fn a_stray_past_an_open_border_puts_the_border_vertex_back() {
        // The source's border bulges at vertex 4, which the collapse removed with the straight edge
        // from 0 to 1; 4 itself strays, past that edge.
        let rest = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, -0.02, 0.0]];
        let faces = [0, 4, 2, 4, 1, 2, 0, 2, 3];
        let source = Source::with(&rest, &faces, vec![0; 5], (0..5).collect());
        let mut indices = SQUARE.to_vec();
        assert!(matches!(insert_into(&source, &mut indices), Some(Inserted::Now)));
        assert_eq!(indices, [0, 4, 2, 0, 2, 3, 4, 1, 2]);
        assert!(facing_up(&rest, &indices));
        // An inside vertex there is not put into the border: vertex 4 of the plain square is in
        // none of its faces, and nothing else lies on the edge.
        let (rest, mut indices) = square_and([0.5, -0.02, 0.05]);
        assert!(insert_into(&source_of(&rest), &mut indices).is_none());
    }

    #[test]
    fn an_edge_opposite_an_inserted_vertex_turns_where_its_faces_then_fold_less() {
        // Vertex 2, just inserted, stands 0.2 over the edge from 0 to 1 and 0.05 beside it: its face
        // folds about 76 degrees against the flat face across that edge, and the faces the other way
        // round (from 2 to the far corner 3) about 41.
        let rest = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.05, 0.2], [0.5, -1.0, 0.0]];
        let mut indices = vec![0, 1, 2, 1, 0, 3];
        flatten_around(&rest, &mut indices, &[false, false, true, false]);
        assert_eq!(indices, [0, 3, 2, 3, 1, 2]);
        // Lying flat, it folds nowhere: nothing turns.
        let flat = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.5, -1.0, 0.0]];
        let mut indices = vec![0, 1, 2, 1, 0, 3];
        flatten_around(&flat, &mut indices, &[false, false, true, false]);
        assert_eq!(indices, [0, 1, 2, 1, 0, 3]);
        // Not next to an inserted vertex: left as it is.
        let mut indices = vec![0, 1, 2, 1, 0, 3];
        flatten_around(&rest, &mut indices, &[false; 4]);
        assert_eq!(indices, [0, 1, 2, 1, 0, 3]);
    }

    #[test]
    fn no_insertion_where_it_would_open_the_surface_or_take_another_chart() {
        // Of another piece than every face near it.
        let (rest, mut indices) = square_and([0.7, 0.3, 0.05]);
        let mut apart = source_of(&rest);
        apart.piece[4] = 4;
        assert!(insert_into(&apart, &mut indices).is_none());
        // Over a corner.
        let (rest, mut indices) = square_and([1.2, -0.2, 0.05]);
        assert!(insert_into(&source_of(&rest), &mut indices).is_none());
        assert_eq!(indices, [0, 1, 2, 0, 2, 3], "nothing changed");
    }
}
