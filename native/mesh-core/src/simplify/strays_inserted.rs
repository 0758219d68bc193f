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
//! turns the way the face it replaces did, the stray and the face's corners are one piece of the
//! source by their shared vertices (one chart: a vertex of another chart across a UV seam would
//! take the wrong texture coordinates), the stray has no twin at its place (a seam vertex: the other
//! side would keep the old face and open a crack), and an edge split has a face on each side. Where
//! one cannot be made, or too many stray, the strays are kept in place by a collapse again.

use super::{Collapse, Held, Witnessed, OVERSHOOT_REACH};
use crate::math::{cross, dot, sub};
use crate::surface_distance::{closest_weights, triangle_distance2, SurfaceGrid};
use crate::topology::UnionFind;

/// Rounds of insertion before the strays are left to strays_kept.rs.
const ROUNDS: usize = 4;

/// The most vertices inserted, as a share of those the first collapse kept: a few folds are put
/// right locally; where more stray, the bound binds over whole regions and a collapse with them
/// kept spreads the faces better.
const MOST_INSERTED: f64 = 0.25;

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
        let grid = SurfaceGrid::new(held.rest, &indices, held.bound * OVERSHOOT_REACH);
        let mut changed = vec![false; indices.len() / 3];
        for &v in &strays {
            match insert(&source, &grid, &mut indices, &mut changed, v)? {
                Inserted::Now => count += 1,
                Inserted::Later => {}
            }
        }
        if count > most {
            return None;
        }
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
/// and whether another vertex has its place.
struct Source<'a> {
    rest: &'a [[f32; 3]],
    piece: Vec<u32>,
    twinned: Vec<bool>,
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
        let mut sharing = vec![0u32; rest.len()];
        place.iter().for_each(|&at| sharing[at as usize] += 1);
        let twinned = place.iter().map(|&at| sharing[at as usize] > 1).collect();
        Source { rest, piece, twinned }
    }
}

enum Inserted {
    Now,
    /// The face it lies over changed this round: looked at again after the measure.
    Later,
}

/// Stray `v` inserted into the nearest face of `indices` (`grid` their faces at the round's
/// start; `changed` marks faces replaced this round, new faces past its end): None where it cannot
/// be (module comment).
fn insert(source: &Source, grid: &SurfaceGrid, indices: &mut Vec<u32>, changed: &mut Vec<bool>, v: u32) -> Option<Inserted> {
    if source.twinned[v as usize] {
        return None;
    }
    let p = source.rest[v as usize];
    // The nearest face of its own piece: a limb's stray may lie nearer the body it overlaps.
    let piece = source.piece[v as usize];
    let t = grid
        .candidates(p)
        .filter(|&t| indices[t as usize * 3..t as usize * 3 + 3].iter().all(|&c| source.piece[c as usize] == piece))
        .map(|t| (triangle_distance2(source.rest, indices, t, p), t))
        .filter(|&(d2, _)| d2 <= grid.reach2())
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))?
        .1 as usize;
    if changed[t] {
        return Some(Inserted::Later);
    }
    let corners: [u32; 3] = indices[t * 3..t * 3 + 3].try_into().expect("three corners");
    if corners.iter().any(|&c| source.piece[c as usize] != piece) {
        return None;
    }
    let [a, b, c] = corners.map(|c| source.rest[c as usize]);
    let weights = closest_weights(p, a, b, c)?;
    let normal = cross(sub(b, a), sub(c, a));
    let faces_as = |new: &[[u32; 3]], normal: [f32; 3]| {
        new.iter().all(|f| {
            let [x, y, z] = f.map(|c| source.rest[c as usize]);
            dot(cross(sub(y, x), sub(z, x)), normal) > 0.0
        })
    };
    let inside: Vec<usize> = (0..3).filter(|&k| weights[k] >= INSIDE).collect();
    match inside[..] {
        [_, _, _] => {
            let [a, b, c] = corners;
            let new = [[a, b, v], [b, c, v], [c, a, v]];
            if !faces_as(&new, normal) {
                return None;
            }
            replace(indices, changed, &[t], &new);
        }
        [i, j] => {
            // The edge from corner i to corner j, as the face winds: split here and in the face
            // across it, which winds it the other way.
            let (from, to, opposite) = match (j + 3 - i) % 3 {
                1 => (corners[i], corners[j], corners[3 - i - j]),
                _ => (corners[j], corners[i], corners[3 - i - j]),
            };
            let across = (0..indices.len() / 3).find(|&u| u != t && winds(&indices[u * 3..u * 3 + 3], to, from))?;
            if changed[across] {
                return Some(Inserted::Later);
            }
            let other = indices[across * 3..across * 3 + 3].iter().copied().find(|&c| c != to && c != from)?;
            let [x, y, z] = [to, from, other].map(|c| source.rest[c as usize]);
            let new_here = [[from, v, opposite], [v, to, opposite]];
            let new_across = [[to, v, other], [v, from, other]];
            if source.piece[other as usize] != source.piece[v as usize] || !faces_as(&new_here, normal) || !faces_as(&new_across, cross(sub(y, x), sub(z, x))) {
                return None;
            }
            replace(indices, changed, &[t, across], &[new_here[0], new_here[1], new_across[0], new_across[1]]);
        }
        _ => return None,
    }
    Some(Inserted::Now)
}

/// Whether face `f` (three corners) runs from `a` straight to `b` as it winds.
fn winds(f: &[u32], a: u32, b: u32) -> bool {
    (0..3).any(|k| f[k] == a && f[(k + 1) % 3] == b)
}

/// Faces `old` of `indices` replaced by `new` (as many or more): the first ones in their places,
/// the rest at the end, every one of them marked changed.
fn replace(indices: &mut Vec<u32>, changed: &mut Vec<bool>, old: &[usize], new: &[[u32; 3]]) {
    for (k, face) in new.iter().enumerate() {
        match old.get(k) {
            Some(&t) => {
                indices[t * 3..t * 3 + 3].copy_from_slice(face);
                changed[t] = true;
            }
            None => {
                indices.extend_from_slice(face);
                changed.push(true);
            }
        }
    }
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

    /// A flat square of two faces (0, 1, 2) and (0, 2, 3) facing +z, and a point `above` it: the
    /// source for `insert`, its fifth vertex the point, and the square's grid.
    fn square_and(above: [f32; 3]) -> (Vec<[f32; 3]>, Vec<u32>) {
        (vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], above], vec![0, 1, 2, 0, 2, 3])
    }

    fn source(rest: &[[f32; 3]]) -> Source<'_> {
        Source { rest, piece: vec![0; rest.len()], twinned: vec![false; rest.len()] }
    }

    fn insert_into(source: &Source, indices: &mut Vec<u32>) -> Option<Inserted> {
        let grid = SurfaceGrid::new(source.rest, indices, 1.0);
        let mut changed = vec![false; indices.len() / 3];
        insert(source, &grid, indices, &mut changed, 4)
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
        assert!(matches!(insert_into(&source(&rest), &mut indices), Some(Inserted::Now)));
        assert_eq!(indices.len() / 3, 4);
        assert_eq!(indices[3..6], [0, 2, 3], "the other face is as it was");
        assert!(facing_up(&rest, &indices));
        assert_eq!(indices.iter().filter(|&&v| v == 4).count(), 3);
    }

    #[test]
    fn a_stray_over_an_edge_splits_the_two_faces_on_it() {
        let (rest, mut indices) = square_and([0.5, 0.5, 0.05]);
        assert!(matches!(insert_into(&source(&rest), &mut indices), Some(Inserted::Now)));
        assert_eq!(indices.len() / 3, 4);
        assert!(facing_up(&rest, &indices));
        let edges = directed_edges(&indices);
        assert!(!edges.contains_key(&(0, 2)) && !edges.contains_key(&(2, 0)), "the diagonal is gone");
        for border in [(0, 1), (1, 2), (2, 3), (3, 0)] {
            assert_eq!(edges.get(&border), Some(&1), "the border {border:?} is as it was");
        }
    }

    #[test]
    fn no_insertion_where_it_would_open_the_surface_or_take_another_chart() {
        // Over a border edge: nothing across it to split.
        let (rest, mut indices) = square_and([0.5, 0.0, 0.05]);
        assert!(insert_into(&source(&rest), &mut indices).is_none());
        // A twin at its place (a seam vertex): the other side would keep its face.
        let (rest, mut indices) = square_and([0.7, 0.3, 0.05]);
        let mut twinned = source(&rest);
        twinned.twinned[4] = true;
        assert!(insert_into(&twinned, &mut indices).is_none());
        // Of another piece than every face near it.
        let mut apart = source(&rest);
        apart.piece[4] = 4;
        assert!(insert_into(&apart, &mut indices).is_none());
        // Over a corner.
        let (rest, mut indices) = square_and([1.2, -0.2, 0.05]);
        assert!(insert_into(&source(&rest), &mut indices).is_none());
        assert_eq!(indices, [0, 1, 2, 0, 2, 3], "nothing changed");
    }
}
