//! Simplification with meshoptimizer's quadric edge collapser (`meshopt_simplifyWithAttributes`,
//! after Garland & Heckbert 1997 with attribute quadrics per Hoppe 1999): edges collapse in order
//! of least added error, UV and normal seams and (optionally) open borders stay in place.
use crate::in_parallel;
use crate::math::{inverse_linear, transform_point, Bounds};
use crate::mesh_ops::compact;
use crate::model::{target_of, Primitive, IDENTITY};
use crate::skin_poses::{PoseShapes, POSE_PREFIX};
use crate::surface_distance::{any_within, distance2_to_triangle, triangle_distance2, Fans, SurfaceGrid};
use std::sync::atomic::{AtomicBool, Ordering};

mod pieces;
mod placed_attributes;
mod pose_components;
mod strays_inserted;
mod strays_kept;

pub struct Simplified {
    pub primitive: Primitive,
    /// Deviation reached, in model units.
    pub error: f32,
}

/// Weight of an attribute in the collapse error, against position error.
///
/// meshoptimizer holds the *sum* of position and weighted attribute error under the error limit,
/// and orders collapses by that sum; so every weighted attribute both spends the geometric budget
/// the user gave (`max_error` is a distance) and steers collapses toward geometrically worse
/// choices. Weighting normals (0.5) and UVs (1.0) left CesiumMan at 1.09 % of its size for a 1 %
/// request and 1.6x gltfpack's deviation, short of the face target. So only attributes that carry
/// appearance the surface does not get a weight:
/// - normals follow the surface, so bounding the surface's deviation bounds them too;
/// - UVs map the texture along the surface; their discontinuities (chart borders) are seams,
///   which the simplifier keeps in place for any weight (vertices sharing a position with
///   different attributes), so charts keep their outline;
/// - vertex colours are the only appearance signal of a scan or painted mesh, independent of the
///   shape, so they keep their weight;
/// - morph target position deltas are shape too: a collapse that bends the delta field by d
///   moves the surface posed at weight 1 by d. Vertices that move in any target are locked
///   (see `simplify_primitive_with_locks`), and the deltas are weighted as distances
///   (meshoptimizer scales positions by the mesh extent, attributes only by their weight, hence
///   1 / extent) so that a still vertex next to moving ones does not collapse into them and
///   drag the moving region outward.
/// - a skinned mesh's pose deltas (skin_poses.rs) are shape too, in the poses its animations
///   take; never locked (every skinned vertex moves), and weighted as distances times
///   `POSE_WEIGHT`.
fn weight(semantic: &str, extent: f32) -> f32 {
    match semantic {
        s if s.starts_with("COLOR_") => 0.5,
        s if s.starts_with(POSE_PREFIX) => POSE_WEIGHT / extent,
        s if target_of(s).is_some_and(|(_, base)| base == "POSITION") => 1.0 / extent,
        _ => 0.0,
    }
}

/// How much more a pose delta weighs in the collapse error than a distance at rest. Attribute
/// quadrics see only the deltas' linear trend across the faces around a vertex, and where joints
/// bend a limb the deltas are anything but linear: weighed as plain distances, collapses that fold
/// a bend cost little, the collapse under the bound strays in a pose, and the search settles on a
/// low limit that keeps the whole rest shape far finer than asked. Weighed 8 times, those
/// collapses come last, and the limit that holds in every pose keeps far fewer faces (session 31,
/// 0.1 of the faces at `max_error` 0.01, faces and collapses at weight 1 → 8):
/// - CesiumMan 1,300 → 864 faces, 7 → 3 collapses; its rest shape now takes more of the bound
///   (deviation 0.0016 → 0.0074 of 0.0151), which the weight of 1 left unused;
/// - generated skinned creatures (bench/mesh/generated-creatures.ts), three used in choosing the
///   weight: 5,796 → 1,339 and 7,040 → 2,395 faces (7 → 1 collapses), 4,516 → 1,167 (7 → 8);
/// - four more never looked at while choosing: 6,241 → 2,260 (7 → 7 collapses), 2,692 → 1,180
///   (7 → 4), 4,708 → 1,972 (7 → 9), 5,023 → 3,833 (7 → 1);
/// - the smooth skinned tubes reach their face target either way.
///
/// Weights 4 to 16 all kept far fewer faces than 1 on all of them, 8 the fewest on most; the
/// collapses the search takes are not smooth in the weight (a first collapse that holds at one
/// weight strays at the next: 16 took fewer on five creatures, more on two and on CesiumMan).
const POSE_WEIGHT: f32 = 8.0;

/// Faces to aim for when keeping `ratio` of `faces`: never more than the ratio asks (rounded
/// down, as gltfpack does; the tolerance keeps `faces × (n / faces)` at n despite float
/// rounding), and at least one.
pub fn target_for(faces: usize, ratio: f64) -> usize {
    ((faces as f64 * ratio + 1e-6).floor() as usize).max(1)
}

/// meshoptimizer's limit on attribute floats per vertex.
const MAX_ATTRIBUTE_FLOATS: usize = 32;

/// Attribute floats per vertex the simplifier can still weigh beside the primitive's own.
pub fn attribute_room(p: &Primitive) -> usize {
    let used: usize = p.attributes.iter().filter(|a| weight(&a.semantic, 1.0) > 0.0).map(|a| a.components).sum();
    MAX_ATTRIBUTE_FLOATS.saturating_sub(used)
}

/// Simplifies one primitive toward `target_faces`, never exceeding `max_error` (model units).
pub fn simplify_primitive(p: &Primitive, target_faces: usize, max_error: f32, lock_border: bool) -> Simplified {
    simplify_primitive_with_locks(p, target_faces, max_error, lock_border, &vec![false; p.positions.len()])
}

/// As `simplify_primitive`, keeping the vertices flagged in `locks` (one per vertex) in place.
///
/// The result is measured, not estimated: every source vertex lies within `max_error` of the
/// simplified faces at rest (and, for a skinned mesh, in every pose, skin_poses.rs), or the collapse
/// is searched down until it does (`held_collapse`), and the error reported is the largest distance
/// measured at rest. The collapse error alone, a sum of distances to the planes of the faces around
/// a vertex, understates it: 1.5 to 2.7 times on the Princeton shapes and the bench's smooth models
/// where the bound stops the collapse, and up to 3.5 times on bevelled, flat-shaded parts, whose
/// narrow faces weigh little against the long ones they are folded into.
///
/// Vertices that move in a morph target are locked too: every pose (any weights) then keeps
/// its shape wherever the face moves, and only still regions simplify. Weighting the deltas
/// alone (tried: a 20 x 20 grid with a bump target) let the posed bump sag by 2.5 to 7.5 times the
/// error bound, since attribute quadrics only see the deltas' linear trend; a face whose every
/// vertex moves in some target keeps all its faces, and says so through `target_reached`.
pub fn simplify_primitive_with_locks(p: &Primitive, target_faces: usize, max_error: f32, lock_border: bool, locks: &[bool]) -> Simplified {
    let (collapse, error) = simplified_indices(p, target_faces, max_error, lock_border, locks, true);
    kept(p, collapse, error, |q| q)
}

/// As `simplify_primitive_with_locks`, collapsed and measured on `p`'s positions (and morph target
/// position deltas) mapped through the linear map `shape` (model_size.rs: how the scene stretches
/// the mesh), so that `max_error` is a length in that space; the vertices kept are `p`'s own.
pub fn simplify_shaped(p: &Primitive, shape: &[f32; 16], target_faces: usize, max_error: f32, lock_border: bool, locks: &[bool]) -> Simplified {
    let mut shaped = p.clone();
    shaped.positions.iter_mut().for_each(|q| *q = transform_point(shape, *q));
    for a in shaped.attributes.iter_mut().filter(|a| target_of(&a.semantic).is_some_and(|(_, base)| base == "POSITION") && a.components == 3) {
        a.data.chunks_exact_mut(3).for_each(|d| d.copy_from_slice(&transform_point(shape, [d[0], d[1], d[2]])));
    }
    // A shape that flattens the mesh has no inverse to bring a placed vertex back: none is placed.
    let back = inverse_linear(shape);
    let (collapse, error) = simplified_indices(&shaped, target_faces, max_error, lock_border, locks, back.is_some());
    let back = back.unwrap_or(IDENTITY);
    kept(p, collapse, error, |q| transform_point(&back, q))
}

/// `p`'s vertices that the simplified faces use, with its material; a vertex the collapse placed
/// elsewhere (`Collapse::placed`) where it was placed, brought into `p`'s space by `to_p`.
fn kept(p: &Primitive, collapse: Collapse, error: f32, to_p: impl Fn([f32; 3]) -> [f32; 3]) -> Simplified {
    let mut out = match collapse.placed {
        None => compact(p, &collapse.indices),
        Some(placed) => {
            let mut moved = p.clone();
            for &v in &placed.moved {
                moved.positions[v as usize] = to_p(placed.positions[v as usize]);
            }
            placed_attributes::read_off_source(p, &mut moved, &placed.moved);
            compact(&moved, &collapse.indices)
        }
    };
    out.material = p.material;
    Simplified { primitive: out, error }
}

/// The collapse that holds (its faces in vertex cache order) and the error reached, as
/// `simplify_primitive_with_locks` says.
/// Vertices are placed (`Placed`) only where `may_place`.
fn simplified_indices(p: &Primitive, target_faces: usize, max_error: f32, lock_border: bool, locks: &[bool], may_place: bool) -> (Collapse, f32) {
    // Asked for every face it has (target_ratio 1, say, to change the format): the faces as they
    // are, in their order. The collapser would collapse nothing but still place every vertex it
    // can at its quadric's best point, for the measure to check each one (sphere-1m: 2.1 s for
    // the faces it was given, where gltfpack took 0.3).
    if target_faces >= p.indices.len() / 3 {
        return (Collapse { indices: p.indices.clone(), error: 0.0, placed: None }, 0.0);
    }
    let extent = Bounds::of(&p.positions).extent().max(f32::MIN_POSITIVE);
    let collapser = Collapser::new(p, extent, lock_border, locks, may_place);
    let held = collapser.held(max_error);
    let first = collapser.collapse(max_error, target_faces);
    let held_first = match collapser.posed {
        Some(_) => strays_kept::kept(&collapser, &held, target_faces, first),
        None => whole_or_apart(&collapser, &held, first),
    };
    let (mut collapse, mut deviation) = held_first.unwrap_or_else(|first| {
        let overshoot = held.overshoot(&first);
        match stopped_earlier(&collapser, &held, target_faces, &first, overshoot) {
            Ok(earlier) => earlier,
            Err(strayed) => held_collapse(&held, target_faces, first, overshoot, strayed, |limit, faces| collapser.collapse(limit, faces)),
        }
    });
    // The placing lowers the farthest vertex on most surfaces but not on every one (it may raise a
    // vertex's own quadric error by half): the same faces unplaced are measured once too, and kept
    // where they lie as near or nearer. They are held to the placed faces' deviation, not the
    // bound: where a vertex lies farther (most surfaces) the measure stops there, where the full
    // measure to the bound went on over every vertex (bunny: 7 → 0.4 ms).
    if let Some(placed) = collapse.placed.take() {
        match (Held { bound: deviation, ..held }).by(&collapse) {
            Some(unplaced) => deviation = unplaced,
            None => collapse.placed = Some(placed),
        }
    }
    // In the poses only the bound is measured, not how near it the result came: a skinned mesh
    // reports the larger of the deviation at rest and the collapse error, which weighs the poses.
    let error = if held.poses.is_empty() { deviation } else { deviation.max(collapse.error) };
    collapse.indices = meshopt::optimize_vertex_cache(&collapse.indices, p.positions.len());
    (collapse, error)
}

/// The `first` collapse of a mesh without poses and its deviation, where it holds, or where its
/// pieces held apart do (pieces.rs); else the first collapse back.
fn whole_or_apart(collapser: &Collapser, held: &Held, first: Collapse) -> Result<(Collapse, f32), Collapse> {
    let grid = held.grid(&first);
    let apart = match held.by_on(&first, &grid) {
        Some(deviation) => return Ok((first, deviation)),
        None => pieces::held_apart(collapser, held, &first, &grid),
    };
    drop(grid);
    apart.ok_or(first)
}

/// For a posed mesh whose `first` collapse strayed in a pose only (its `overshoot` at rest within
/// the bound), the collapse under the bound toward `PROBE_STEPS[0]` times the faces it asked for,
/// if that holds: such a first collapse most often strays by its last few collapses, and the
/// deviation at rest cannot tell how far to go back; stopped a percent earlier it holds
/// (`held_collapse` would try it too, beside a collapse a few percent earlier). Alone it costs one
/// collapse and its measure (the held-out skinned creature 61 → 50 ms: two collapses side by side
/// took 28 ms, one alone 19). Not where the first strayed at rest (three of eight generated
/// creatures never tuned on: the collapse a percent earlier strayed too on each, 5 to 13 ms for
/// nothing), nor where the bound stopped it short of those faces: it would make the same collapse
/// again. Where it strays too, the faces it kept (else 0), for `held_collapse`.
fn stopped_earlier(collapser: &Collapser, held: &Held, target_faces: usize, first: &Collapse, overshoot: f32) -> Result<(Collapse, f32), usize> {
    let faces = (target_faces as f64 * PROBE_STEPS[0]).ceil() as usize;
    if collapser.posed.is_none() || overshoot > held.bound || first.indices.len() / 3 >= faces {
        return Err(0);
    }
    let earlier = collapser.collapse(held.bound, faces);
    match held.by(&earlier) {
        Some(deviation) => Ok((earlier, deviation)),
        None => Err(earlier.indices.len() / 3),
    }
}

/// meshoptimizer's collapser set up for one primitive: the attributes it weighs, the vertices it
/// keeps in place, whether it places the vertices it keeps, and the poses its result must hold in.
struct Collapser<'a> {
    p: &'a Primitive,
    /// The primitive's size (the largest side of its box): what morph target and pose deltas are
    /// weighed against, and what a vertex's drift is a share of.
    extent: f32,
    lock_border: bool,
    may_place: bool,
    /// The caller's locks, before the vertices that move in a morph target join them.
    user_locks: Vec<bool>,
    attributes: Vec<f32>,
    weights: Vec<f32>,
    locks: Vec<bool>,
    vertex_locks: Vec<meshopt::SimplifyVertex>,
    options: meshopt::SimplifyOptions,
    placing: bool,
    posed: Option<PoseShapes>,
}

impl<'a> Collapser<'a> {
    /// `extent` is given, not measured, so that a part of a primitive collapses as it would within
    /// the whole (pieces.rs).
    fn new(p: &'a Primitive, extent: f32, lock_border: bool, locks: &[bool], may_place: bool) -> Self {
        let weight = |semantic: &str| weight(semantic, extent);
        let mut used: Vec<&crate::model::Attribute> = Vec::new();
        let user_locks = locks.to_vec();
        let mut locks = locks.to_vec();
        for a in p.attributes.iter().filter(|a| weight(&a.semantic) > 0.0) {
            if used.iter().map(|u| u.components).sum::<usize>() + a.components <= MAX_ATTRIBUTE_FLOATS {
                used.push(a);
            }
            if target_of(&a.semantic).is_some() {
                // Exporter noise (a tenth of the writer's position grid step) is not movement.
                let still = extent * 1e-5;
                for (v, lock) in locks.iter_mut().enumerate() {
                    *lock |= a.data[v * 3..v * 3 + 3].iter().any(|&d| d.abs() > still);
                }
            }
        }
        let (attributes, weights) = collapse_attributes(&used, &weight, p.positions.len());
        // Fold quadrics (meshoptimizer's `PreserveFolds`, marked experimental there; the crate is
        // pinned) weigh the edges where two faces fold back on each other (over about 150 degrees):
        // a fin or a bevel's acute edge that the plane quadrics of its narrow faces barely see. With
        // them the first collapses stray less: hard-surface 10,596 → 5,576 faces in half the time,
        // PSB bearing 1,252 → 580; the other 18 Princeton shapes and the bench's smooth models the
        // same faces to within 0.3 % (session 29).
        let mut options = meshopt::SimplifyOptions::ErrorAbsolute | meshopt::SimplifyOptions::PreserveFolds;
        if lock_border {
            options |= meshopt::SimplifyOptions::LockBorder;
        }
        let posed = PoseShapes::of(p);
        let placing = may_place && posed.is_none() && p.positions.iter().all(|q| q.iter().all(|c| c.is_finite()));
        let vertex_locks = locks.iter().map(|&l| if l { meshopt::SimplifyVertex::Lock } else { meshopt::SimplifyVertex::None }).collect();
        Collapser { p, extent, lock_border, may_place, user_locks, attributes, weights, locks, vertex_locks, options, placing, posed }
    }

    /// What the collapses must hold to: every source vertex within `bound`, at rest and posed.
    fn held(&self, bound: f32) -> Held<'_> {
        let (rest, poses) = self.posed.as_ref().map_or((&self.p.positions[..], &[][..]), |s| (&s.rest[..], &s.poses[..]));
        Held { rest, poses, source: &self.p.indices, bound }
    }

    /// The collapse toward `target_faces` under the error `limit`.
    fn collapse(&self, limit: f32, target_faces: usize) -> Collapse {
        let p = self.p;
        let per_vertex = self.weights.len();
        let mut error = 0.0f32;
        if !self.placing {
            return self.collapse_locked(&self.locks, limit, target_faces);
        }
        let (mut indices, mut positions, mut scratch) = (p.indices.clone(), p.positions.clone(), self.attributes.clone());
        let count = meshopt::simplify_with_update(
            &mut indices,
            &mut positions,
            &mut scratch,
            &self.weights,
            per_vertex * 4,
            Some(&self.vertex_locks),
            target_faces * 3,
            limit,
            self.options,
            Some(&mut error),
        );
        indices.truncate(count);
        // meshoptimizer writes back every vertex it kept through its own scaling, so those it did not
        // place (borders, seams) can come back a rounding away: put back exactly, so that a border
        // shared with another primitive still meets it.
        let drift = self.extent * 1e-6;
        for (placed, &source) in positions.iter_mut().zip(&p.positions) {
            if (0..3).all(|c| (placed[c] - source[c]).abs() <= drift) {
                *placed = source;
            }
        }
        let moved: Vec<u32> = (0..positions.len() as u32).filter(|&v| positions[v as usize] != p.positions[v as usize]).collect();
        let placed = (!moved.is_empty()).then_some(Placed { positions, moved });
        Collapse { indices, error, placed }
    }

    /// The collapse toward `target_faces` under the error `limit` with the vertices flagged in
    /// `locks` (one per vertex) kept where they are; no vertex is placed.
    fn collapse_locked(&self, locks: &[bool], limit: f32, target_faces: usize) -> Collapse {
        let mut error = 0.0f32;
        let indices = meshopt::simplify_with_attributes_and_locks(
            &self.p.indices,
            &positions_of(self.p),
            &self.attributes,
            &self.weights,
            self.weights.len() * 4,
            locks,
            target_faces * 3,
            limit,
            self.options,
            Some(&mut error),
        );
        Collapse { indices, error, placed: None }
    }
}

/// One collapse: the faces it kept (indices into the source's vertices), its collapse error, and
/// where it placed the vertices it moved.
struct Collapse {
    indices: Vec<u32>,
    error: f32,
    placed: Option<Placed>,
}

/// Vertices a collapse moved: meshoptimizer's `simplifyWithUpdate` places each vertex that stayed
/// where the quadrics of the faces it took over meet best, instead of leaving it where it was, and
/// so the surface lies nearer the source at the same faces (session 34, kiln's own measure of the
/// farthest source vertex at the face target: bunny −22 %, hard-surface's parts −2 to −29 %,
/// held-out-sphere-300k −10 %, sphere-1m −5 %; terrain the same). It moves only vertices inside a
/// surface (not on a border, a seam or a lock), within their neighbourhood, never flipping a face
/// and never raising their own quadric error by more than half; every source vertex is still
/// measured against the bound (`Held::by`), the moved ones too. A moved vertex takes the UVs,
/// normal, tangent and colour of the source surface at its new place (placed_attributes.rs): it
/// moves along the surface too, and a texture would slide under it. A skinned mesh's vertices stay
/// where they are: its poses are measured from the rest places, which a move would leave behind.
struct Placed {
    /// Every source vertex's place after the collapse.
    positions: Vec<[f32; 3]>,
    /// The vertices whose place changed, in order.
    moved: Vec<u32>,
}

impl Collapse {
    /// Where the kept faces' vertices are: placed, or the source's `rest`.
    fn positions<'a>(&'a self, rest: &'a [[f32; 3]]) -> &'a [[f32; 3]] {
        self.placed.as_ref().map_or(rest, |placed| &placed.positions)
    }
}

/// The attribute floats the collapser weighs, `vertex_count` rows of them, and their weights:
/// the components of `used` that vary, a skinned mesh's pose deltas on their principal axes
/// (pose_components.rs). A component the same on every vertex (a colour's alpha, 1 throughout)
/// adds no error to any collapse but costs the collapser as much as one that varies (held-out
/// terrain's collapse: 971 → 757 ms without its colours' alpha), so it is left out. With none
/// left, one zero-weighted float a vertex (the collapser takes at least one).
fn collapse_attributes(used: &[&crate::model::Attribute], weight: &impl Fn(&str) -> f32, vertex_count: usize) -> (Vec<f32>, Vec<f32>) {
    // Each column is (data, stride, offset, weight).
    let columns_of = |pose: bool| -> Vec<(&[f32], usize, usize, f32)> {
        used.iter()
            .filter(|a| a.semantic.starts_with(POSE_PREFIX) == pose)
            .flat_map(|a| (0..a.components).map(move |c| (&a.data[..], a.components, c, weight(&a.semantic))))
            .filter(|&(data, stride, c, _)| data.iter().skip(c).step_by(stride).any(|&x| x.to_bits() != data[c].to_bits()))
            .collect()
    };
    // Row by row, each row's floats read from their columns: one pass over the rows, where a pass
    // per column strode through them all (0.5 ms of a skinned creature's 24 pose floats).
    let rows_of = |columns: &[(&[f32], usize, usize, f32)]| {
        let mut rows = Vec::with_capacity(vertex_count * columns.len());
        for v in 0..vertex_count {
            rows.extend(columns.iter().map(|&(data, stride, c, _)| data[v * stride + c]));
        }
        rows
    };
    let (own, pose) = (columns_of(false), columns_of(true));
    let own_rows = rows_of(&own);
    let (pose_rows, pose_width) = pose_components::on_principal_axes(&rows_of(&pose), pose.len());
    let mut weights: Vec<f32> = own.iter().map(|&(.., w)| w).collect();
    weights.extend(pose.first().map(|&(.., w)| w).into_iter().cycle().take(pose_width));
    if weights.is_empty() {
        return (vec![0.0; vertex_count], vec![0.0]);
    }
    let per_vertex = weights.len();
    let mut attributes = Vec::with_capacity(vertex_count * per_vertex);
    for v in 0..vertex_count {
        attributes.extend_from_slice(&own_rows[v * own.len()..(v + 1) * own.len()]);
        attributes.extend_from_slice(&pose_rows[v * pose_width..(v + 1) * pose_width]);
    }
    (attributes, weights)
}

/// `p`'s positions as meshoptimizer reads them.
fn positions_of(p: &Primitive) -> meshopt::VertexDataAdapter<'_> {
    let bytes: &[u8] = unsafe { std::slice::from_raw_parts(p.positions.as_ptr().cast(), p.positions.len() * 12) };
    meshopt::VertexDataAdapter::new(bytes, 12, 0).expect("positions are 12-byte vertices")
}

/// The collapse alone, unmeasured: for tests that show what the measurement catches.
#[cfg(test)]
pub(crate) fn collapse_unmeasured(p: &Primitive, target_faces: usize, max_error: f32) -> Primitive {
    let adapter = positions_of(p);
    let indices = meshopt::simplify(&p.indices, &adapter, target_faces * 3, max_error, meshopt::SimplifyOptions::ErrorAbsolute, None);
    compact(p, &indices)
}

/// Face counts tried, as multiples of the most faces a collapse that strayed kept, before the
/// search of limits: where a collapse toward the face target strays by its last few collapses
/// (a few vertices, in a pose or at rest), stopping it a percent or a few earlier holds, in one
/// step where the search takes three. Session 31, collapses and faces before → after: the held-out
/// skinned creature 7 → 3 and 2,260 → 2,255 faces, another held-out creature 9 → 5 and 1,972 →
/// 1,906, CesiumMilkTruck 12 → 8 over its primitives and 1,402 → 1,404; where neither holds the
/// search runs as before, one step later (creature-c 8 → 10, the Princeton fourleg 9 → 11, the same
/// faces); the other 18 Princeton shapes at 0.1 and 0.01 never get here.
const PROBE_STEPS: [f64; 2] = [1.01, 1.04];

/// Rounds of the search for the largest error limit whose collapse holds, when the first collapse
/// and the limits scaled from it do not: each round collapses at two limits, a third and two
/// thirds of the way across what is left, side by side where there are two cores, so after three
/// rounds the limit found is within 1/27 of the largest that holds (or zero). Halving took five
/// collapses one after another for 1/32. The rounds are the same on any number of cores, so is the
/// answer.
const SEARCH_ROUNDS: usize = 3;

/// Limits scaled from a collapse that strayed at rest before the search: the limit times the bound
/// over the deviation measured, times `SCALED_MARGIN`. Where the deviation grows in step with the
/// limit (smooth surfaces: 1.7 to 1.9 times the limit on many-small-meshes' parts) the first
/// scaled limit holds, in one collapse where the search takes six.
const SCALED_TRIES: usize = 2;
const SCALED_MARGIN: f32 = 0.9;

/// A limit whose collapse holds at a deviation under this share of the bound is scaled up once
/// more, toward the bound (`raised`).
const ROOM_TO_SPARE: f32 = 0.8;

/// How far past the bound a collapse that strayed is measured, for its limit to be scaled.
const OVERSHOOT_REACH: f32 = 4.0;

/// A collapse toward `target_faces` whose result holds (`Held::by`), its collapse error and the
/// deviation measured at rest, where the `first` collapse (under the bound, or a lower limit) did
/// not hold (`overshoot` its `Held::overshoot`), nor one under the bound that kept `strayed_faces`
/// (0: none was tried): one under a lower limit, scaled from how far the collapse strayed (`raised`
/// where it held with room to spare), or toward a few more faces than any that strayed
/// (`PROBE_STEPS`), or the largest the search finds. (A first collapse under half the bound was
/// tried, as the deviation ran 1.5 to 2.7 times the collapse error where the bound stopped the
/// collapse: it saved the second collapse there, many-small-meshes 56 → 33 ms, but where the
/// collapse at the bound holds it kept more faces for nothing, held-out-sphere-300k 30,030 → 35,475
/// and 211 → 266 ms. Locking the vertices that strayed and collapsing again does not help when the
/// face target stops the collapse: it then collapses elsewhere instead, and others stray.
/// Collapsing a result that held further, instead of the source again, kept fewer faces on
/// CesiumMan and hard-surface but 25 % more on a flat-shaded many-small-meshes never tuned on.
/// Locking a posed mesh's strays does pay, with the face target raised for them: strays_kept.rs.)
fn held_collapse(
    held: &Held,
    target_faces: usize,
    first: Collapse,
    overshoot: f32,
    strayed_faces: usize,
    collapse: impl Fn(f32, usize) -> Collapse + Sync,
) -> (Collapse, f32) {
    let bound = held.bound;
    // Any limit at or above the error the first collapse reached gives the same collapse.
    let (mut holds, mut fails) = (0.0f32, first.error.min(bound));
    let mut overshoot = overshoot;
    let mut strayed = strayed_faces.max(first.indices.len() / 3);
    for _ in 0..SCALED_TRIES {
        // A collapse that strayed only in a pose says nothing of how far to scale.
        if overshoot <= bound || fails <= 0.0 {
            break;
        }
        let limit = fails * bound / overshoot * SCALED_MARGIN;
        let candidate = collapse(limit, target_faces);
        if let Some(deviation) = held.by(&candidate) {
            return raised(held, target_faces, limit, fails, candidate, deviation, &collapse);
        }
        fails = limit;
        strayed = strayed.max(candidate.indices.len() / 3);
        overshoot = held.overshoot(&candidate);
    }
    // The collapses that strayed went past the answer by their last few collapses, often: stopped
    // a percent or a few earlier, side by side.
    let probes = PROBE_STEPS.map(|step| (strayed as f64 * step).ceil() as usize);
    let tried = in_parallel::map(&probes, true, |&faces| {
        let candidate = collapse(bound, faces);
        let deviation = held.by(&candidate);
        (candidate, deviation)
    });
    if let Some((candidate, Some(deviation))) = tried.into_iter().find(|(_, deviation)| deviation.is_some()) {
        return (candidate, deviation);
    }
    let mut best = None;
    for _ in 0..SEARCH_ROUNDS {
        // Nothing left between them (a bound of 0, or a first collapse that cost nothing): every
        // limit tried would be `holds`, the same collapse each time.
        if fails <= holds {
            break;
        }
        let limits = [holds + (fails - holds) / 3.0, holds + (fails - holds) * 2.0 / 3.0];
        let mut tried = in_parallel::map(&limits, true, |&limit| {
            let candidate = collapse(limit, target_faces);
            let deviation = held.by(&candidate);
            (candidate, deviation)
        });
        let (upper, upper_deviation) = tried.pop().expect("two limits");
        let (lower, lower_deviation) = tried.pop().expect("two limits");
        if let Some(deviation) = upper_deviation {
            (holds, best) = (limits[1], Some((upper, deviation)));
        } else if let Some(deviation) = lower_deviation {
            (holds, fails, best) = (limits[0], limits[1], Some((lower, deviation)));
        } else {
            fails = limits[0];
        }
    }
    best.unwrap_or_else(|| {
        // Only the collapses that cost nothing; a vertex still farther counts as the bound.
        let exact = collapse(0.0, target_faces);
        let deviation = held.by(&exact).unwrap_or(bound);
        (exact, deviation)
    })
}

/// The `collapse` under `limit` that held at `deviation`; or, where it held with room to spare
/// (under `ROOM_TO_SPARE` of the bound) and the face target did not stop it, the collapse under
/// that limit scaled up toward the bound, short of `strayed` (a limit whose collapse strayed), if
/// that holds too.
fn raised(
    held: &Held,
    target_faces: usize,
    limit: f32,
    strayed: f32,
    collapsed: Collapse,
    deviation: f32,
    collapse: &(impl Fn(f32, usize) -> Collapse + Sync),
) -> (Collapse, f32) {
    let higher = (limit * held.bound / deviation.max(f32::MIN_POSITIVE) * SCALED_MARGIN).min(limit + (strayed - limit) * SCALED_MARGIN);
    if deviation < ROOM_TO_SPARE * held.bound && collapsed.indices.len() > target_faces * 3 && higher > limit {
        let more = collapse(higher, target_faces);
        if let Some(more_deviation) = held.by(&more) {
            return (more, more_deviation);
        }
    }
    (collapsed, deviation)
}

/// What a simplified primitive must hold to: every vertex of the `source` faces within `bound`
/// of the simplified faces at `rest` and in each of the `poses`.
struct Held<'a> {
    rest: &'a [[f32; 3]],
    poses: &'a [Vec<[f32; 3]>],
    source: &'a [u32],
    bound: f32,
}

impl Held<'_> {
    /// The source vertices not on the faces the collapse kept where they were: those it removed,
    /// and those it placed elsewhere.
    fn measured(&self, collapse: &Collapse) -> Vec<u32> {
        let mut off = vec![false; self.rest.len()];
        self.source.iter().for_each(|&v| off[v as usize] = true);
        collapse.indices.iter().for_each(|&v| off[v as usize] = false);
        if let Some(placed) = &collapse.placed {
            placed.moved.iter().for_each(|&v| off[v as usize] = true);
        }
        (0..off.len() as u32).filter(|&v| off[v as usize]).collect()
    }

    /// The largest distance at rest from a source vertex to the faces `collapse` kept, measured up
    /// to `OVERSHOOT_REACH` times the bound (a vertex farther counts as that): how far a collapse
    /// that strayed went.
    fn overshoot(&self, collapse: &Collapse) -> f32 {
        let reach = self.bound * OVERSHOOT_REACH;
        let grid = SurfaceGrid::new(collapse.positions(self.rest), &collapse.indices, reach);
        measured_at_rest(&grid, &collapse.indices, self.rest, &self.measured(collapse)).map_or(reach, |(largest, _)| largest)
    }

    /// The largest distance at rest from a source vertex to the faces `collapse` kept, if every
    /// one is within the bound at rest and in every pose; None at the first that is not. A vertex
    /// the faces keep where it was is on them. For the others, a triangle within the bound at rest
    /// is found first (`at_rest`); in each pose that triangle is tried first (a pose moves
    /// neighbours together, so it usually still is within), and only where it is not are the
    /// pose's triangles searched. A collapse that placed vertices has no poses to hold (`Placed`).
    fn by(&self, collapse: &Collapse) -> Option<f32> {
        self.by_on(collapse, &self.grid(collapse))
    }

    /// The faces `collapse` kept, where it placed them, for questions up to the bound.
    fn grid(&self, collapse: &Collapse) -> SurfaceGrid {
        SurfaceGrid::new(collapse.positions(self.rest), &collapse.indices, self.bound)
    }

    /// As `by`, on the `grid` of `collapse` already built.
    fn by_on(&self, collapse: &Collapse, at_rest: &SurfaceGrid) -> Option<f32> {
        let measured = self.measured(collapse);
        let (deviation, firsts) = measured_at_rest(at_rest, &collapse.indices, self.rest, &measured)?;
        self.strays_in_poses(collapse, at_rest, &measured, &firsts, true).0.is_empty().then_some(deviation)
    }

    /// Every source vertex that `collapse` leaves past the bound, at rest or in a pose, in order
    /// (none where it holds), and the largest distance at rest of the others.
    #[cfg(test)]
    fn strays(&self, collapse: &Collapse) -> (Vec<u32>, f32) {
        self.strays_after(collapse, &mut Witnessed::default())
    }

    /// As `strays`, knowing what an earlier collapse's measure `witnessed`, which it updates: a
    /// vertex that a few triangles held within the bound (one at rest, and in each pose one of
    /// them) is held by them again wherever `collapse` kept all of them (the same three vertices,
    /// not placed, so the same distances), and is not measured again; one still farther from its
    /// triangle at rest than the largest distance found is measured at rest, for that largest to
    /// be exact. Collapses that keep a few more vertices each round (strays_kept.rs), or insert
    /// them (strays_inserted.rs), keep most triangles of the round before. What a collapse that
    /// holds witnessed is not recorded: nothing measures after it.
    fn strays_after(&self, collapse: &Collapse, witnessed: &mut Witnessed) -> (Vec<u32>, f32) {
        debug_assert!(collapse.placed.is_none(), "a placed vertex moves the triangles it is on");
        let corners = |t: usize| sorted_corners(&collapse.indices, t);
        let kept: crate::number_keys::NumberSet<[u32; 3]> = match witnessed.runs.is_empty() {
            true => Default::default(),
            false => (0..collapse.indices.len() / 3).map(corners).collect(),
        };
        let (mut known, mut measured) = (Vec::new(), Vec::new());
        for v in self.measured(collapse) {
            match witnessed.of(v) {
                held_by if !held_by.is_empty() && held_by.iter().all(|k| kept.contains(k)) => known.push(v),
                _ => measured.push(v),
            }
        }
        let at_rest = self.grid(collapse);
        let (deviation, firsts) = witnesses_at_rest(&at_rest, &collapse.indices, self.rest, &measured, false).expect("every vertex is answered");
        let (mut strays, mut near, mut witnesses) = (Vec::new(), Vec::with_capacity(measured.len()), Vec::with_capacity(measured.len()));
        for (&v, &t) in measured.iter().zip(&firsts) {
            match t {
                NO_WITNESS => strays.push(v),
                t => {
                    near.push(v);
                    witnesses.push(t);
                }
            }
        }
        let (in_poses, held_by) = self.strays_in_poses(collapse, &at_rest, &near, &witnesses, false);
        strays.extend(in_poses);
        strays.sort_unstable();
        strays.dedup();
        if !strays.is_empty() {
            if witnessed.runs.is_empty() {
                *witnessed = Witnessed { runs: vec![(0, 0); self.rest.len()], triangles: Vec::new(), distance2: vec![0.0; self.rest.len()] };
            }
            measured.iter().for_each(|&v| witnessed.runs[v as usize] = (0, 0));
            let mut run: Vec<u32> = Vec::with_capacity(self.poses.len() + 1);
            for (i, (&v, &t)) in near.iter().zip(&witnesses).enumerate() {
                // Its triangle at rest first, then each pose's where that one did not hold it; none
                // where a pose held it only through a search of all its triangles, or not at all.
                run.clear();
                run.push(t);
                let all = held_by.chunks_exact(near.len().max(1)).all(|pose| match pose[i] {
                    NO_WITNESS => false,
                    h => {
                        if !run.contains(&h) {
                            run.push(h);
                        }
                        true
                    }
                });
                if all {
                    let start = witnessed.triangles.len() as u32;
                    witnessed.triangles.extend(run.iter().map(|&t| corners(t as usize)));
                    witnessed.runs[v as usize] = (start, run.len() as u32);
                    witnessed.distance2[v as usize] = triangle_distance2(self.rest, &collapse.indices, t, self.rest[v as usize]);
                }
            }
        }
        let (mut largest, mut largest2) = (deviation, deviation * deviation);
        for v in known {
            if witnessed.distance2[v as usize] > largest2 {
                let nearest = at_rest.nearest(self.rest[v as usize]).map_or(witnessed.distance2[v as usize], |(_, d2)| d2);
                if nearest > largest2 {
                    (largest, largest2) = (nearest.sqrt(), nearest);
                }
            }
        }
        (strays, largest)
    }

    /// Which of the `measured` vertices (each within the bound at rest of triangle `firsts[i]` of
    /// `collapse`, `at_rest` its grid) are past the bound in some pose: all of them, or only the
    /// first found where `first_only`. For each vertex the triangle within the bound at rest is
    /// tried first (a pose moves neighbours together, so it usually still is within), then its
    /// nearest and the others near it at rest, and only where none is are the pose's triangles
    /// searched.
    ///
    /// Beside the strays, pose by pose, the triangle that held each of the `measured` vertices
    /// there (`measured.len()` a pose): `firsts[i]` where it did, else the one found near it at
    /// rest; `NO_WITNESS` where only a search of the pose's triangles held it, or none did (where
    /// `first_only`, none are answered).
    fn strays_in_poses(&self, collapse: &Collapse, at_rest: &SurfaceGrid, measured: &[u32], firsts: &[u32], first_only: bool) -> (Vec<u32>, Vec<u32>) {
        if self.poses.is_empty() || measured.is_empty() {
            return (Vec::new(), Vec::new());
        }
        debug_assert!(collapse.placed.is_none(), "a posed mesh's vertices are not placed");
        let simplified = &collapse.indices[..];
        // Each vertex's first triangle within the bound at rest, and the nearest one, looked for
        // only where the first is not within the bound in some pose.
        let witnesses: Vec<(usize, u32, Option<Option<u32>>)> = measured.iter().zip(firsts).map(|(&v, &t)| (v as usize, t, None)).collect();
        let bound2 = self.bound * self.bound;
        // In each pose the simplified faces' corners are read into one record a face first, so a
        // check reads one record, not three indices and three corners spread over the vertices.
        let within = |posed: &[[f32; 3]], faces: &[[[f32; 3]; 3]], v: usize, t: Option<u32>| {
            t.is_some_and(|t| {
                let [a, b, c] = faces[t as usize];
                distance2_to_triangle(posed[v], a, b, c) <= bound2
            })
        };
        // The poses are checked in groups, one a thread where the checks are worth it (thousands of
        // vertices); each group keeps its own nearest triangles, and where only the first stray is
        // asked for, a group that finds one stops the others at their next pose. The answer is the
        // same however they are grouped.
        let threads = in_parallel::threads(witnesses.len() * self.poses.len() >= CHECKS_WORTH_THREADS);
        let groups: Vec<&[Vec<[f32; 3]>]> = self.poses.chunks(self.poses.len().div_ceil(threads).max(1)).collect();
        let strayed = AtomicBool::new(false);
        let found = in_parallel::map(&groups, groups.len() > 1, |poses| {
            let mut witnesses = witnesses.clone();
            let mut gone = vec![false; witnesses.len()];
            let mut held_by = vec![NO_WITNESS; witnesses.len() * poses.len()];
            let mut strays = Vec::new();
            for (posed, pose_held_by) in poses.iter().zip(held_by.chunks_exact_mut(witnesses.len())) {
                if first_only && strayed.load(Ordering::Relaxed) {
                    break;
                }
                let faces: Vec<[[f32; 3]; 3]> = simplified.chunks_exact(3).map(|t| [t[0], t[1], t[2]].map(|v| posed[v as usize])).collect();
                let (mut searched, mut searches): (Option<SurfaceGrid>, usize) = (None, 0);
                let mut search = |q: [f32; 3]| {
                    if searched.is_none() && searches < SEARCHES_BEFORE_GRID {
                        searches += 1;
                        return any_within(posed, simplified, q, self.bound);
                    }
                    searched.get_or_insert_with(|| SurfaceGrid::new(posed, simplified, self.bound)).near(q)
                };
                // Before a grid of the pose is built, the triangles that were near the vertex at rest
                // are tried in the pose: a pose moves neighbours together, so one of them usually
                // still is, and building a grid costs more than a vertex's tries by far.
                for (((v, first, nearest), gone), holder) in
                    witnesses.iter_mut().zip(gone.iter_mut()).zip(pose_held_by.iter_mut()).filter(|((_, gone), _)| !**gone)
                {
                    let mut nearest_at_rest = || *nearest.get_or_insert_with(|| at_rest.nearest(self.rest[*v]).map(|(t, _)| t));
                    let found = match within(posed, &faces, *v, Some(*first)) {
                        true => Some(*first),
                        false => match nearest_at_rest() {
                            Some(t) if within(posed, &faces, *v, Some(t)) => Some(t),
                            _ => at_rest.candidates(self.rest[*v]).find(|&t| within(posed, &faces, *v, Some(t))),
                        },
                    };
                    match found {
                        Some(t) => *holder = t,
                        None if search(posed[*v]) => {}
                        None => {
                            *gone = true;
                            strays.push(*v as u32);
                            if first_only {
                                strayed.store(true, Ordering::Relaxed);
                                return (strays, Vec::new());
                            }
                        }
                    }
                }
            }
            (strays, held_by)
        });
        let mut held_by = Vec::with_capacity(if first_only { 0 } else { measured.len() * self.poses.len() });
        let mut strays = Vec::new();
        for (group_strays, group_held_by) in found {
            strays.extend(group_strays);
            if !first_only {
                held_by.extend(group_held_by);
            }
        }
        strays.sort_unstable();
        strays.dedup();
        (strays, held_by)
    }
}

/// What measuring a collapse found (`Held::strays_after`): for each source vertex, the triangles
/// (each its three vertices, `sorted_corners`) that held it within the bound, the one at rest
/// first and then one for each pose where that one did not, with its squared distance at rest to
/// the first; none where a pose held it only through a search, or it was not measured (by
/// default, nothing for any vertex).
#[derive(Default)]
struct Witnessed {
    /// Each vertex's run of `triangles` (start, length; length 0 for none).
    runs: Vec<(u32, u32)>,
    /// The runs, one after another. A vertex measured again gets a new run; its old one is left
    /// behind (a few rounds of a few triangles a vertex).
    triangles: Vec<[u32; 3]>,
    distance2: Vec<f32>,
}

impl Witnessed {
    /// The triangles that held vertex `v` (none where nothing is known).
    fn of(&self, v: u32) -> &[[u32; 3]] {
        let (start, length) = self.runs.get(v as usize).copied().unwrap_or((0, 0));
        &self.triangles[start as usize..(start + length) as usize]
    }
}

/// Triangle `t` of `indices` as its three vertices in ascending order: the same triangle in
/// another collapse, whatever vertex its corners start from.
fn sorted_corners(indices: &[u32], t: usize) -> [u32; 3] {
    let mut corners = [indices[t * 3], indices[t * 3 + 1], indices[t * 3 + 2]];
    corners.sort_unstable();
    corners
}

/// The largest distance from the `measured` vertices (`Held::measured`) to the faces of `grid`,
/// and for each vertex a triangle within the grid's reach; None when a vertex has none. Only a
/// vertex with no triangle as near as the largest distance so far raises it, and only such a
/// vertex is measured to its nearest triangle; the triangle found for a vertex is the next one's
/// first try (the measured vertices come in the source's order, mostly neighbours). Where that
/// triangle is within reach but farther than the largest distance (on terrain, 63 % of vertices:
/// the simplified triangles are wide and the largest distance small), a walk across the faces
/// (`faces`, the grid's triangles) from it finds a nearer one before the grid's cell is searched:
/// a step or two against a cell of dozens of triangles. The witness may differ, the largest
/// distance and every answer of the measure do not (session 42). Over the cores
/// in shares where there are many vertices; a share that finds a stray stops the others, and the
/// largest is the same however the vertices are cut.
fn measured_at_rest(grid: &SurfaceGrid, faces: &[u32], positions: &[[f32; 3]], measured: &[u32]) -> Option<(f32, Vec<u32>)> {
    witnesses_at_rest(grid, faces, positions, measured, true)
}

/// A vertex's triangle where none lies within the grid's reach (`witnesses_at_rest`).
const NO_WITNESS: u32 = u32::MAX;

/// As `measured_at_rest`; where `stop_at_stray` is false, every vertex is answered, one with no
/// triangle within reach by `NO_WITNESS` (the largest distance is then over the others).
fn witnesses_at_rest(grid: &SurfaceGrid, faces: &[u32], positions: &[[f32; 3]], measured: &[u32], stop_at_stray: bool) -> Option<(f32, Vec<u32>)> {
    let fans = std::sync::OnceLock::new();
    let shares: Vec<&[u32]> = measured.chunks(measured.len().div_ceil(in_parallel::threads(measured.len() >= CHECKS_WORTH_THREADS)).max(1)).collect();
    let strayed = AtomicBool::new(false);
    let measured = in_parallel::map(&shares, shares.len() > 1, |share| {
        let (mut largest2, mut last) = (0.0f32, None);
        let mut firsts = Vec::with_capacity(share.len());
        for (k, &v) in share.iter().enumerate() {
            if stop_at_stray && k % 256 == 0 && strayed.load(Ordering::Relaxed) {
                return None;
            }
            let p = positions[v as usize];
            // The last vertex's triangle first, and where it is farther than the largest distance,
            // a walk from it toward this vertex; where that ends out of reach, the grid's cell.
            let fans = || fans.get_or_init(|| Fans::new(faces, positions.len()));
            let walked = last.map(|hint| grid.walk(fans, p, hint, largest2));
            let found = match walked {
                Some(found) if found.1 <= grid.reach2() => Some(found),
                // Found in the cell, and a walk from there where it is farther than the largest.
                _ => grid.witness_from(p, None).map(|found| match found.1 <= largest2 {
                    true => found,
                    false => grid.walk(fans, p, found.0, largest2),
                }),
            };
            let Some(found) = found else {
                if stop_at_stray {
                    strayed.store(true, Ordering::Relaxed);
                    return None;
                }
                firsts.push(NO_WITNESS);
                continue;
            };
            let (t, d2) = match found.1 <= largest2 {
                true => found,
                false => match grid.within_from(p, None, largest2) {
                    Some(nearer) => nearer,
                    None => grid.nearest(p).unwrap_or(found),
                },
            };
            largest2 = largest2.max(d2);
            last = Some(t);
            firsts.push(t);
        }
        Some((largest2, firsts))
    });
    let mut largest2 = 0.0f32;
    let mut firsts = Vec::with_capacity(measured.len());
    for share in measured {
        let (share_largest2, share_firsts) = share?;
        largest2 = largest2.max(share_largest2);
        firsts.extend(share_firsts);
    }
    Some((largest2.sqrt(), firsts))
}

/// Vertex-in-pose checks from which a pose check is spread over threads (about a millisecond).
const CHECKS_WORTH_THREADS: usize = 10_000;

/// Vertices of a pose searched for among all its triangles, one by one (`any_within`), before a
/// grid of the pose is built for the rest. A grid of a simplified creature's 2,000 faces costs
/// about as much as 60 such searches, and where the triangles near a vertex at rest do not hold it
/// in a pose, few others do: 8 to 163 searches in all for the eight creatures of
/// bench/mesh/creatures.ts, over 2 to 29 posed grids, which were 12 % of the CPU time (session 37).
const SEARCHES_BEFORE_GRID: usize = 32;

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::model::Attribute;
    use crate::surface_distance::deviation;

    #[test]
    fn targets_round_down_and_keep_exact_counts() {
        assert_eq!(target_for(988_036, 0.1), 98_803);
        assert_eq!(target_for(4_672, 0.1), 467);
        assert_eq!(target_for(3, 0.1), 1);
        // A face count given as a ratio of the input comes back as itself.
        for (n, faces) in [(98_804, 988_036), (1, 7), (33, 99), (1_000, 1_999_396)] {
            assert_eq!(target_for(faces, n as f64 / faces as f64), n);
        }
    }

    /// A flat n x n grid of quads with UVs.
    pub(super) fn grid(n: usize) -> Primitive {
        let mut positions = Vec::new();
        let mut uv = Vec::new();
        for y in 0..=n {
            for x in 0..=n {
                positions.push([x as f32, y as f32, 0.0]);
                uv.extend([x as f32 / n as f32, y as f32 / n as f32]);
            }
        }
        let row = n as u32 + 1;
        let mut indices = Vec::new();
        for y in 0..n as u32 {
            for x in 0..n as u32 {
                let a = y * row + x;
                indices.extend([a, a + 1, a + row + 1, a, a + row + 1, a + row]);
            }
        }
        Primitive {
            positions,
            attributes: vec![Attribute { semantic: "TEXCOORD_0".into(), components: 2, data: uv }],
            indices,
            material: None,
            variant_materials: Vec::new(),
        }
    }

    #[test]
    fn a_flat_grid_collapses_far_within_the_bound_and_keeps_its_border() {
        let g = grid(20);
        let s = simplify_primitive(&g, 2, 0.01, true);
        // 1,997 of 3,200 faces, where the collapse alone kept 482 at 2.3 times the bound.
        assert!(s.primitive.face_count() < g.face_count() * 2 / 3, "{}", s.primitive.face_count());
        assert!(s.error <= 0.01, "{}", s.error);
        let b = Bounds::of(&s.primitive.positions);
        assert_eq!((b.min, b.max), ([0.0, 0.0, 0.0], [20.0, 20.0, 0.0]));
    }

    #[test]
    fn a_zero_error_bound_stops_simplification_on_a_curved_surface() {
        let mut g = grid(10);
        for p in &mut g.positions {
            p[2] = (p[0] * 0.7).sin() * (p[1] * 0.5).cos();
        }
        let s = simplify_primitive(&g, 10, 0.0, false);
        assert!(s.primitive.face_count() > 150, "{}", s.primitive.face_count());
    }

    /// A curved grid whose normals and UVs are noise: with only positions in the error, the
    /// result is the one for bare positions.
    #[test]
    fn normals_and_uvs_do_not_spend_the_error_budget() {
        let mut g = grid(16);
        for p in &mut g.positions {
            p[2] = (p[0] * 0.3).sin() * (p[1] * 0.2).cos();
        }
        let noise = |i: usize| ((i * 7919) % 101) as f32 / 101.0;
        let n = g.positions.len();
        g.attributes[0].data = (0..n * 2).map(noise).collect();
        g.attributes.push(Attribute { semantic: "NORMAL".into(), components: 3, data: (0..n * 3).map(|i| noise(i + 13)).collect() });
        let bare = Primitive { attributes: vec![], ..g.clone() };
        let (with, without) = (simplify_primitive(&g, 128, 0.05, false), simplify_primitive(&bare, 128, 0.05, false));
        assert_eq!(with.primitive.indices, without.primitive.indices);
        assert_eq!(with.error, without.error);
        assert!(with.primitive.face_count() < g.face_count() / 2, "{}", with.primitive.face_count());
    }

    #[test]
    fn components_the_same_on_every_vertex_are_left_out_of_the_collapse() {
        let colour = Attribute { semantic: "COLOR_0".into(), components: 4, data: vec![0.1, 0.5, 0.3, 1.0, 0.2, 0.5, 0.4, 1.0, 0.3, 0.5, 0.5, 1.0] };
        let (attributes, weights) = collapse_attributes(&[&colour], &|_| 0.5, 3);
        assert_eq!(weights, vec![0.5, 0.5]);
        assert_eq!(attributes, vec![0.1, 0.3, 0.2, 0.4, 0.3, 0.5]);
        let still = Attribute { semantic: "COLOR_0".into(), components: 2, data: vec![1.0, 0.0, 1.0, 0.0] };
        assert_eq!(collapse_attributes(&[&still], &|_| 0.5, 2), (vec![0.0, 0.0], vec![0.0]));
    }

    /// Eight poses that move every vertex along one field, scaled: 24 floats of deltas, three axes
    /// of them weighed (the field's own coordinates), beside the colour's own floats.
    #[test]
    fn pose_deltas_along_one_field_are_weighed_as_three_floats() {
        let n = 50;
        let field: Vec<[f32; 3]> = (0..n).map(|v| [(v as f32 * 0.3).sin(), (v as f32 * 0.2).cos(), v as f32 * 0.01]).collect();
        let poses: Vec<Attribute> = (0..8)
            .map(|k| Attribute {
                semantic: format!("{POSE_PREFIX}{k}"),
                components: 3,
                data: field.iter().flat_map(|d| d.map(|c| c * (k as f32 + 1.0))).collect(),
            })
            .collect();
        let colour = Attribute { semantic: "COLOR_0".into(), components: 3, data: (0..n * 3).map(|i| (i % 7) as f32 / 7.0).collect() };
        let used: Vec<&Attribute> = std::iter::once(&colour).chain(&poses).collect();
        let (attributes, weights) = collapse_attributes(&used, &|s| weight(s, 2.0), n);
        assert_eq!(weights, vec![0.5, 0.5, 0.5, POSE_WEIGHT / 2.0, POSE_WEIGHT / 2.0, POSE_WEIGHT / 2.0]);
        assert_eq!(attributes.len(), n * 6);
        assert_eq!(&attributes[..3], &colour.data[..3]);
    }

    #[test]
    fn a_colour_component_the_same_everywhere_changes_no_collapse() {
        let mut g = grid(16);
        for p in &mut g.positions {
            p[2] = (p[0] * 0.3).sin() * (p[1] * 0.2).cos();
        }
        // A colour that varies across the grid, in RGB and in RGBA with an alpha of 1 throughout.
        let rgb: Vec<[f32; 3]> = g.positions.iter().map(|p| [(p[0] * 0.7).sin().abs(), (p[1] * 0.5).cos().abs(), 0.5]).collect();
        let with = |components: usize| {
            let data = rgb.iter().flat_map(|c| [c[0], c[1], c[2], 1.0].into_iter().take(components)).collect();
            let attributes = vec![Attribute { semantic: "COLOR_0".into(), components, data }];
            simplify_primitive(&Primitive { attributes, ..g.clone() }, 64, 0.2, false)
        };
        let (rgba, rgb_only) = (with(4), with(3));
        assert_eq!(rgba.primitive.indices, rgb_only.primitive.indices);
        assert_eq!(rgba.error, rgb_only.error);
        // The colour still steers the collapse: without it the faces kept differ.
        let bare = simplify_primitive(&Primitive { attributes: vec![], ..g.clone() }, 64, 0.2, false);
        assert_ne!(bare.primitive.indices, rgb_only.primitive.indices);
    }

    /// Where the bound stops the collapse on a smooth surface, the collapse error alone (a sum of
    /// distances to the planes around a vertex) lets the surface stray past it; measured, it
    /// holds, and the error reported is the deviation measured.
    #[test]
    fn a_smooth_surface_is_held_to_the_bound_the_collapse_error_alone_misses() {
        let mut g = grid(40);
        for p in &mut g.positions {
            p[2] = (p[0] * 0.25).sin() * (p[1] * 0.2).cos();
        }
        let bound = 0.05;
        let unmeasured = collapse_unmeasured(&g, 1, bound);
        assert!(deviation(&g, &unmeasured) > 1.3 * bound, "{}", deviation(&g, &unmeasured));
        let s = simplify_primitive(&g, 1, bound, false);
        let measured = deviation(&g, &s.primitive);
        assert!(measured <= bound, "{measured}");
        assert_eq!(s.error, measured);
        // 1,997 of 3,200 faces, where the collapse alone kept 482 at 2.3 times the bound.
        assert!(s.primitive.face_count() < g.face_count() * 2 / 3, "{}", s.primitive.face_count());
    }

    /// `grid(n)` bent into gentle bumps (a sine across, a cosine along).
    fn bumpy(n: usize) -> Primitive {
        let mut g = grid(n);
        for p in &mut g.positions {
            p[2] = (p[0] * 0.25).sin() * (p[1] * 0.2).cos();
        }
        g
    }

    #[test]
    fn placed_vertices_bring_the_surface_nearer_at_the_same_faces() {
        let g = bumpy(40);
        let locks = vec![false; g.positions.len()];
        let (placed, placed_error) = simplified_indices(&g, 400, 0.5, false, &locks, true);
        let (still, still_error) = simplified_indices(&g, 400, 0.5, false, &locks, false);
        assert_eq!(placed.indices.len(), still.indices.len());
        assert!(placed.placed.is_some() && still.placed.is_none());
        assert!(placed_error < 0.9 * still_error, "placed {placed_error}, in place {still_error}");
        // What simplify returns: vertices off the source's places, every source vertex within the
        // bound of its faces, the error reported the one measured.
        let s = simplify_primitive(&g, 400, 0.5, false);
        assert!(s.primitive.positions.iter().any(|q| !g.positions.contains(q)));
        assert_eq!(s.error, deviation(&g, &s.primitive));
        assert_eq!(s.error, placed_error);
    }

    /// Asked for every face, simplify gives the faces back as they came, in their order, none of
    /// their vertices placed; the collapser alone would have moved them.
    #[test]
    fn a_target_of_every_face_gives_the_faces_back_as_they_are() {
        let g = bumpy(20);
        let s = simplify_primitive(&g, g.face_count(), 0.5, false);
        let corners = |p: &Primitive| p.indices.iter().map(|&i| p.positions[i as usize]).collect::<Vec<_>>();
        assert_eq!(corners(&s.primitive), corners(&g));
        assert_eq!(s.error, 0.0);
        let collapser = Collapser::new(&g, 20.0, false, &vec![false; g.positions.len()], true);
        assert!(collapser.collapse(0.5, g.face_count()).placed.is_some(), "the collapser places vertices even when it collapses nothing");
    }

    /// Under a bound of 0 the search of limits has nothing between the limit that holds and the one
    /// that strays: no round of it is run, and the collapse that costs nothing is made once. (The
    /// collapses here all stray, whatever limit is asked, as a curved surface's can at a bound of 0.)
    #[test]
    fn a_zero_bound_makes_the_collapse_that_costs_nothing_once() {
        let g = bumpy(20);
        let collapser = Collapser::new(&g, 20.0, false, &vec![false; g.positions.len()], false);
        let held = collapser.held(0.0);
        let coarse = |faces: usize| collapser.collapse(1.0, faces);
        let first = coarse(100);
        assert!(held.by(&first).is_none());
        let overshoot = held.overshoot(&first);
        let limits = std::sync::Mutex::new(Vec::new());
        let (exact, deviation) = held_collapse(&held, 100, first, overshoot, 0, |limit, faces| {
            limits.lock().unwrap().push((limit, faces));
            coarse(faces)
        });
        let mut limits = limits.into_inner().unwrap();
        // The two probes a few faces short, then the exact collapse; no round of the search.
        assert_eq!(limits.pop(), Some((0.0, 100)));
        assert_eq!(limits.len(), 2, "{limits:?}");
        assert!(limits.iter().all(|&(limit, faces)| limit == 0.0 && faces > 100));
        assert_eq!(exact.indices, coarse(100).indices);
        assert_eq!(deviation, 0.0, "a collapse that strays counts as the bound");
    }

    #[test]
    fn border_and_locked_vertices_are_never_placed() {
        let g = bumpy(40);
        let locks: Vec<bool> = g.positions.iter().map(|p| p[0] == 20.0).collect();
        let s = simplify_primitive_with_locks(&g, 400, 0.5, false, &locks);
        let on_edge = |q: &[f32; 3]| q[0] == 0.0 || q[0] == 40.0 || q[1] == 0.0 || q[1] == 40.0 || q[0] == 20.0;
        let fixed: Vec<&[f32; 3]> = s.primitive.positions.iter().filter(|q| on_edge(q)).collect();
        assert!(fixed.len() > 20, "{}", fixed.len());
        assert!(fixed.iter().all(|q| g.positions.contains(q)));
        // Inside, vertices were placed.
        assert!(s.primitive.positions.iter().any(|q| !g.positions.contains(q)));
    }

    /// A collapse toward the face target that strays by one vertex (a hole where its faces went)
    /// and whose scaled limits stray the same way, while a collapse stopped a percent short of the
    /// faces it kept holds: the probes find that one, in two collapses after the scaled tries.
    #[test]
    fn a_collapse_that_strays_by_its_last_few_collapses_is_stopped_a_little_earlier() {
        let g = grid(20);
        let hole = 10 * 21 + 10;
        let holed: Vec<u32> = g.indices.chunks_exact(3).filter(|t| !t.contains(&hole)).flatten().copied().collect();
        let held = Held { rest: &g.positions, poses: &[], source: &g.indices, bound: 0.5 };
        let calls = std::sync::atomic::AtomicUsize::new(0);
        // Stopped at 1.01 times the faces of the holed result or more, nothing is collapsed.
        let enough = (holed.len() as f64 / 3.0 * PROBE_STEPS[0]).ceil() as usize;
        let collapse = |_limit: f32, faces: usize| {
            calls.fetch_add(1, Ordering::Relaxed);
            match faces >= enough {
                true => Collapse { indices: g.indices.clone(), error: 0.0, placed: None },
                false => Collapse { indices: holed.clone(), error: 0.4, placed: None },
            }
        };
        let first = collapse(0.5, 80);
        let overshoot = held.overshoot(&first);
        let (kept, deviation) = held_collapse(&held, 80, first, overshoot, 0, collapse);
        assert_eq!(kept.indices, g.indices);
        assert_eq!(deviation, 0.0);
        // The first collapse, two scaled tries (the hole strays 1.0 at rest, past the 0.5 bound)
        // and the two probes; the search of limits is never reached.
        assert_eq!(calls.load(Ordering::Relaxed), 1 + SCALED_TRIES + PROBE_STEPS.len());
    }

    #[test]
    fn locked_vertices_stay_while_free_borders_collapse() {
        let g = grid(12);
        // Lock the column x = 6, as where two primitives of a mesh meet.
        let locks: Vec<bool> = g.positions.iter().map(|p| p[0] == 6.0).collect();
        let s = simplify_primitive_with_locks(&g, 8, 0.01, false, &locks);
        let column = s.primitive.positions.iter().filter(|p| p[0] == 6.0).count();
        assert_eq!(column, 13);
        // The free border lost vertices: fewer remain on the edge y = 0 than the 13 it had.
        let edge = s.primitive.positions.iter().filter(|p| p[1] == 0.0).count();
        assert!(edge < 13, "{edge}");
    }

    /// The posed height (rest z + bump delta) of the simplified flat grid `s` at (x, y), by
    /// barycentric interpolation in the triangle that covers the point.
    fn posed_height(s: &Primitive, x: f32, y: f32) -> Option<f32> {
        let bump = &s.attribute(&crate::model::target_semantic(0, "POSITION"))?.data;
        s.indices.chunks_exact(3).find_map(|t| {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| s.positions[i as usize]);
            let det = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
            let u = ((b[0] - x) * (c[1] - y) - (c[0] - x) * (b[1] - y)) / det;
            let v = ((c[0] - x) * (a[1] - y) - (a[0] - x) * (c[1] - y)) / det;
            let w = 1.0 - u - v;
            let inside = [u, v, w].iter().all(|&k| k >= -1e-4);
            inside.then(|| u * bump[t[0] as usize * 3 + 2] + v * bump[t[1] as usize * 3 + 2] + w * bump[t[2] as usize * 3 + 2])
        })
    }

    #[test]
    fn a_morph_target_bump_keeps_its_shape_while_the_flat_rest_collapses() {
        let mut g = grid(20);
        let bump: Vec<f32> = g.positions.iter().flat_map(|p| [0.0, 0.0, (16.0 - (p[0] - 10.0).powi(2) - (p[1] - 10.0).powi(2)).max(0.0) * 0.25]).collect();
        g.attributes.push(Attribute { semantic: crate::model::target_semantic(0, "POSITION"), components: 3, data: bump.clone() });
        let max_error = 0.2;
        let s = simplify_primitive(&g, 2, max_error, true);
        assert!(s.primitive.face_count() < g.face_count() / 2, "{}", s.primitive.face_count());
        let mut worst = 0.0f32;
        for (v, p) in g.positions.iter().enumerate() {
            let height = posed_height(&s.primitive, p[0], p[1]).expect("the border stays, so the grid stays covered");
            worst = worst.max((height - bump[v * 3 + 2]).abs());
        }
        assert!(worst < max_error, "{worst}");
        // Without the target the same request flattens the bump away.
        g.attributes.pop();
        let flat = simplify_primitive(&g, 2, max_error, true).primitive.face_count();
        assert!(flat < s.primitive.face_count(), "{flat}");
    }
}
