//! Animation tracks without the keys nobody can see, before the GLB writer stores them.
//!
//! Exporters write every channel of every joint at every frame, so most translation and scale
//! tracks hold one value (up to float noise), usually the node's own rest value. Such a channel
//! goes: with no channel the node keeps its rest TRS (the writer always writes animated nodes as
//! TRS, see write/nodes.rs), which is the same pose. A constant track off the rest value becomes
//! one key (glTF allows single-key samplers; a player clamps to it at every time).
//!
//! "Constant" means no key (nor, for CUBICSPLINE, a tangent's pull between keys) is further than
//! the path's tolerance from the value kept. Every tolerance comes from one budget: how far any
//! point of the scene may move, half a step of the position grid (`relative_budget`: 1/32766 of
//! the scene's extent at the default 14 bits), the error the geometry itself is stored with, so
//! the animation adds no error the still geometry does not already have. The scene is its rest
//! pose and every place its translation keys take a node. A translation of t moves a point by t
//! times the parent's world scale; a rotation by an angle θ moves a point at distance r from the
//! pivot by at most θ·r, and a relative scale change ε by ε·r, where r is the node's reach (how far
//! from its pivot anything it carries is; the whole scene for a node that moves a skin's joints,
//! whose vertices may be anywhere). Constant tracks are judged as if r were the whole scene.
//! Skinned vertices follow their joints, so their pose moves no further.
//!
//! An animation's duration is the latest key time of its channels (and players start it at the
//! earliest): when no full track still spans both, one constant track is written with two keys
//! at the animation's first and last times so that neither changes. If every channel of an
//! animation goes, its first one stays that way (glTF requires at least one channel).
//!
//! A moving track is also offered without the keys its curve can do without
//! (write/key_reduction.rs, `shorter_tracks`) when the geometry is quantized (its grid's error is
//! the budget; with exact floats every key stays). The reduction may spend half of the track's
//! tolerance (`REDUCTION_SHARE`); the kept keys are then stored within what it left (`key_steps`,
//! `rotation_bits`), so the two errors add up to no more than the budget. The writer keeps the
//! shorter track when it stores smaller (write/skin.rs).
//!
//! Morph `weights` tracks are held to no tolerance (a weight's effect depends on its target's
//! deltas) and are only collapsed when exactly constant; they are never dropped as "at rest".
use super::key_reduction::{self, reduce_while_worth, Gap};
use super::nodes::decompose;
use crate::in_parallel;
use crate::math::{largest_scale, mul, transform_point, Bounds};
use crate::model::{Animation, AnimationSampler, Channel, Model, IDENTITY};
use std::borrow::Cow;

/// Largest movement allowed, as a fraction of the scene's extent, at `position_bits` of position
/// precision: half a step of the position grid, the error the geometry itself is stored with
/// (see the module comment).
pub fn relative_budget(position_bits: u8) -> f64 {
    0.5 / super::quantize::steps(position_bits.clamp(1, 16)) as f64
}
/// Whatever a node's reach, its keys are never stored coarser than these (a node with next to
/// nothing under it): a 0.1 rad turn, a tenth of its scale.
const ANGLE_CAP: f64 = 0.1;
const SCALE_CAP: f64 = 0.1;
/// Largest value of the cubic Hermite basis functions that weigh the tangents (4/27).
const TANGENT_WEIGHT: f64 = 4.0 / 27.0;

/// What happened to the channels of the written animations.
#[derive(Debug, Default, PartialEq)]
pub struct TrackStats {
    /// Channels left out because they hold the node's rest value.
    pub dropped: usize,
    /// Samplers written with a single key (or two spanning the animation) because they hold one value.
    pub collapsed: usize,
}

/// An animation as written: its samplers are the model's own where they stay as they are, and
/// new ones where a track is held to one value.
pub struct VisibleAnimation<'a> {
    pub name: Option<String>,
    pub channels: Vec<Channel>,
    pub samplers: Vec<Cow<'a, AnimationSampler>>,
}

/// The animations to write, with the changes described in the module comment.
pub struct VisibleTracks<'a> {
    scene: Scene,
    pub animations: Vec<VisibleAnimation<'a>>,
    /// Per written animation, per sampler: the largest step its keys may be stored at (0: exactly).
    /// See `key_steps`.
    pub key_steps: Vec<Vec<f32>>,
    /// Per written animation, per sampler: bits per component of its rotation keys (the codec's
    /// QUATERNION filter). See `rotation_bits`.
    pub rotation_bits: Vec<Vec<i32>>,
    /// What was dropped or collapsed; only the tests look (the tool reports no count of it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub stats: TrackStats,
}

/// A track with fewer keys, and how finely to store them.
#[derive(Clone, Debug)]
pub struct ShorterTrack {
    pub sampler: AnimationSampler,
    /// As `VisibleTracks::key_steps`, for the keys kept.
    pub key_step: f32,
    /// As `VisibleTracks::rotation_bits`, for the keys kept.
    pub rotation_bits: i32,
}

/// The tracks worth writing, and how finely to store their keys, within `budget`: how far the
/// geometry may drift from its source motion, as a fraction of the scene's extent (by default
/// `relative_budget`; a tool's `animation_error` when given). Writers that keep the geometry's
/// floats exact (no position grid, so no error to match) keep every key of a moving track unless
/// given an error; the others also offer each track without the keys it can do without
/// (`VisibleTracks::shorter`).
pub fn visible_tracks(model: &Model, budget: f64) -> VisibleTracks<'_> {
    // The scene's rest pose walks every vertex: not worth it for nothing to judge.
    if model.animations.is_empty() {
        let scene = Scene { length: Vec::new(), allowed: 0.0, relative: budget, reach: Vec::new() };
        return VisibleTracks { scene, animations: Vec::new(), key_steps: Vec::new(), rotation_bits: Vec::new(), stats: TrackStats::default() };
    }
    let scene = Scene::of(model, budget);
    let mut stats = TrackStats::default();
    let animations: Vec<VisibleAnimation> = model.animations.iter().map(|a| visible_animation(model, &scene, a, &mut stats)).collect();
    let key_steps = animations.iter().map(|a| key_steps(&scene, a, &vec![0.0; a.samplers.len()])).collect();
    let rotation_bits = animations.iter().map(|a| rotation_bits(&scene, a, &vec![0.0; a.samplers.len()])).collect();
    VisibleTracks { scene, animations, key_steps, rotation_bits, stats }
}

impl VisibleTracks<'_> {
    /// Per written animation, per sampler: the same track without the keys its curve can do
    /// without, stored within the tolerance that left (`shorter_tracks`); None when no key can go,
    /// or when `worth(animation, sampler, share)` says a track keeping that share of its keys
    /// cannot store smaller than the whole (asked as the search goes). The writer keeps whichever
    /// of the two stores smaller.
    pub fn shorter(&self, worth: impl Fn(usize, usize, f64) -> bool + Sync) -> Vec<Vec<Option<ShorterTrack>>> {
        self.animations.iter().enumerate().map(|(a, animation)| shorter_tracks(&self.scene, animation, |i, share| worth(a, i, share))).collect()
    }
}

/// Bits the codec's QUATERNION filter spends per component: its finest, and the coarsest kept.
const MAX_ROTATION_BITS: i32 = 16;
const MIN_ROTATION_BITS: i32 = 8;

/// The largest angle (radians) a rotation stored at `bits` per component can be off by: the three
/// stored components are rounded to steps of 1/(√2·(2^(bits−1)−1)), the fourth is rebuilt from
/// them, and the angle is about twice the quaternion's error; 3/(2^(bits−1)−1) bounds it with
/// room (16 bits: 9.2e-5 rad, against 7.8e-5 measured on the bench's animated boxes).
fn rotation_error(bits: i32) -> f64 {
    3.0 / ((1u32 << (bits - 1)) - 1) as f64
}

pub(super) use crate::in_parallel::KEYS_WORTH_THREADS;

/// Keys to judge (`ROTATION_KEY_WORK` for each rotation key) from which the tracks of an animation
/// are judged over several threads: about 2 ms of work, against what starting and joining a thread
/// costs (1.3 ms of CUBICSPLINE rotations judged on two threads took as long as on one). A rotation
/// key costs several times a translation or scale key:
/// 120 to 265 ns against 17 to 43 on the bench's animated models (session 40: the curve between
/// kept keys is a spherical interpolation, the gap a quaternion's angle). Until session 40 the
/// tracks shared threads from `KEYS_WORTH_THREADS` keys on, as reading and storing them do, and
/// the held-out baked robots' 27,000 keys were judged on one core, 4.5 ms of their 9.
const REDUCTION_WORTH_THREADS: usize = 40_000;
const ROTATION_KEY_WORK: usize = 5;

/// The share of its tolerance a sampler's key reduction may spend (write/key_reduction.rs); the
/// storage of the keys kept gets the rest. Half and half: a key reduction's error falls with the
/// fourth power (CUBICSPLINE) or the square (LINEAR) of the stretch, storage's by a bit per halving.
const REDUCTION_SHARE: f64 = 0.5;

/// For each sampler of `animation`, the track without the keys it can do without
/// (write/key_reduction.rs), judged by what the nodes it drives may be off by (`Scene::allowance`,
/// the most demanding of its channels), with the steps its kept keys are stored at: the share of
/// the tolerance the reduction did not spend. Morph weights and STEP tracks keep their keys. A
/// LINEAR rotation spends no more than its finest storage (16 bits) leaves over.
fn shorter_tracks(scene: &Scene, animation: &VisibleAnimation, worth: impl Fn(usize, f64) -> bool + Sync) -> Vec<Option<ShorterTrack>> {
    // Tracks are judged apart from each other, over the machine's cores when that is worth it.
    let indices: Vec<usize> = (0..animation.samplers.len()).collect();
    let rotates = |i: usize| animation.channels.iter().any(|c| c.sampler == i && c.path == "rotation");
    let work: usize = indices.iter().map(|&i| animation.samplers[i].input.len() * if rotates(i) { ROTATION_KEY_WORK } else { 1 }).sum();
    let reduced = in_parallel::map(&indices, work >= REDUCTION_WORTH_THREADS, |&i| {
        let s = &animation.samplers[i];
        let users: Vec<&Channel> = animation.channels.iter().filter(|c| c.sampler == i).collect();
        if users.is_empty() || users.iter().any(|c| !matches!(c.path.as_str(), "translation" | "rotation" | "scale")) {
            return None;
        }
        let rotation = users.iter().any(|c| c.path == "rotation");
        let mut budget = REDUCTION_SHARE;
        if rotation && s.interpolation != "CUBICSPLINE" {
            let angle = users.iter().map(|c| scene.allowed_angle(c.node)).fold(f64::INFINITY, f64::min);
            budget = budget.min(1.0 - rotation_error(MAX_ROTATION_BITS) / angle);
        }
        let allowances: Vec<Allowance> = users.iter().map(|c| scene.allowance(c.node, &c.path)).collect();
        // One channel (the usual case) is judged by its allowance's cheap gap; a sampler that
        // drives several by the most demanding of them, in units.
        match allowances[..] {
            [allowance] => reduce_while_worth(s, rotation, budget, allowance, |share| worth(i, share)),
            _ => {
                let gap = |kept: &[f32], source: &[f32]| allowances.iter().map(|a| a.off_by(kept, source)).fold(0.0, f64::max);
                reduce_while_worth(s, rotation, budget, gap, |share| worth(i, share))
            }
        }
    });
    // The tracks that lost keys, and empty ones in place of the rest (their steps and bits are
    // worked out with the others' and not used).
    let lost: Vec<bool> = reduced.iter().map(Option::is_some).collect();
    let mut shorter = VisibleAnimation { name: None, channels: animation.channels.clone(), samplers: Vec::with_capacity(reduced.len()) };
    let spent: Vec<f64> = reduced
        .into_iter()
        .zip(&animation.samplers)
        .map(|(reduced, s)| match reduced {
            Some(reduced) => {
                shorter.samplers.push(Cow::Owned(reduced.sampler));
                reduced.spent
            }
            None => {
                shorter.samplers.push(Cow::Owned(AnimationSampler {
                    input: Vec::new(),
                    output: Vec::new(),
                    components: s.components,
                    interpolation: s.interpolation.clone(),
                }));
                0.0
            }
        })
        .collect();
    let steps = key_steps(scene, &shorter, &spent);
    let bits = rotation_bits(scene, &shorter, &spent);
    shorter
        .samplers
        .into_iter()
        .zip(lost)
        .enumerate()
        .map(|(i, (sampler, lost))| lost.then(|| ShorterTrack { sampler: sampler.into_owned(), key_step: steps[i], rotation_bits: bits[i] }))
        .collect()
}

/// For each sampler of `animation`, the fewest bits per component its rotation keys need so that
/// nothing the rotating node carries moves further than the budget (less the share `spent` on
/// dropping keys, `shorter_tracks`): a turn by θ moves a point at distance r from the pivot by θ·r, and r is the
/// node's reach (`Scene::reach`). A sampler used by several channels takes the most bits any of
/// them needs.
fn rotation_bits(scene: &Scene, animation: &VisibleAnimation, spent: &[f64]) -> Vec<i32> {
    (0..animation.samplers.len())
        .map(|i| {
            animation
                .channels
                .iter()
                .filter(|c| c.sampler == i && c.path == "rotation")
                .map(|c| {
                    let angle = scene.allowed_angle(c.node) * (1.0 - spent[i]);
                    (MIN_ROTATION_BITS..MAX_ROTATION_BITS).find(|&b| rotation_error(b) <= angle).unwrap_or(MAX_ROTATION_BITS)
                })
                .max()
                .unwrap_or(MAX_ROTATION_BITS)
        })
        .collect()
}

/// For each sampler of `animation`, the largest step its keys may be stored at (rounding moves a
/// component by at most half a step) so that no key moves further than its path's tolerance:
/// translations in steps of the node's length tolerance (a vector then moves by at most √3/2 of
/// it), scales in steps of the node's allowed relative change times their smallest magnitude.
/// LINEAR and STEP rotations get their bits instead (`rotation_bits`): 0 here. A CUBICSPLINE
/// rotation's keys and tangents are stored in steps of a quarter of the node's allowed angle (a
/// quaternion whose components each move by half a step turns by about twice the chord, at most
/// the step). A CUBICSPLINE track's tangents share its step: the Hermite basis weighs each of an
/// interval's two tangents by at most 4/27 of the interval, so the step is divided by
/// 1 + 2 · 4/27 · (longest interval) to keep the curve, not only its keys, within the tolerance.
/// Morph weights are stored exactly (0). A sampler used by several channels takes the smallest of
/// their steps. A track held to one value may have moved by up to the tolerance already, so a key
/// ends at most about twice the budget from its source: one grid step. A track that lost keys
/// (`shorter_tracks`) has only the share of the tolerance left that it did not spend.
fn key_steps(scene: &Scene, animation: &VisibleAnimation, spent: &[f64]) -> Vec<f32> {
    let smallest = |s: &AnimationSampler| values(s).flatten().fold(f64::INFINITY, |m, v| m.min((*v as f64).abs()));
    animation
        .samplers
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let cubic = s.interpolation == "CUBICSPLINE";
            let users = animation.channels.iter().filter(|c| c.sampler == i);
            let step = users
                .map(|c| match c.path.as_str() {
                    "translation" => scene.tolerance(c.node).length,
                    "scale" => scene.allowed_scale(c.node) * smallest(s),
                    "rotation" if cubic => scene.allowed_angle(c.node) / 4.0,
                    _ => 0.0,
                })
                .fold(f64::INFINITY, f64::min);
            let step = step * (1.0 - spent[i]);
            let step = if cubic {
                let longest = s.input.windows(2).map(|w| (w[1] - w[0]) as f64).fold(0.0, f64::max);
                step / (1.0 + 2.0 * TANGENT_WEIGHT * longest)
            } else {
                step
            };
            if step.is_finite() && step > 0.0 {
                step as f32
            } else {
                0.0
            }
        })
        .collect()
}

/// What one path of one node may be off by: a translation's length tolerance, a rotation's
/// allowed angle, a scale's allowed relative change; nothing for anything else.
#[derive(Clone, Copy)]
enum Allowance {
    Length(f64),
    Angle(f64),
    Scale(f64),
    None,
}

impl Allowance {
    /// How far `value` is from `reference`, in units of the allowance.
    fn off_by(self, value: &[f32], reference: &[f32]) -> f64 {
        let d = |k: usize| value[k] as f64 - reference[k] as f64;
        match self {
            Allowance::Length(length) => ratio((0..3).map(|k| d(k) * d(k)).sum::<f64>().sqrt(), length),
            Allowance::Angle(angle) => ratio(angle_between(value, reference), angle),
            Allowance::Scale(allowed) => {
                (0..3).map(|k| ratio(d(k).abs(), allowed * (value[k] as f64).abs().max((reference[k] as f64).abs()))).fold(0.0, f64::max)
            }
            Allowance::None => ratio(value.iter().zip(reference).map(|(a, b)| (a - b).abs() as f64).fold(0.0, f64::max), 0.0),
        }
    }
}

/// An allowance as key reduction's gap: for lengths the squared distance, for angles how far
/// apart the two quaternions are on the unit sphere (1 − |cos|, before any square root or
/// arcsine), so a stretch's points are judged without either.
impl Gap for Allowance {
    #[inline]
    fn size(&self, kept: &[f32], source: &[f32]) -> f64 {
        match *self {
            Allowance::Length(_) => (0..3).map(|k| (kept[k] as f64 - source[k] as f64).powi(2)).sum(),
            Allowance::Angle(_) => key_reduction::turn_gap(kept, source),
            _ => self.off_by(kept, source),
        }
    }

    fn units(&self, size: f64) -> f64 {
        match *self {
            Allowance::Length(length) => ratio(size.sqrt(), length),
            // 1 − cos of half the rotation angle θ is 2·sin²(θ/4).
            Allowance::Angle(angle) => ratio(4.0 * (size.max(0.0) / 2.0).sqrt().min(1.0).asin(), angle),
            _ => size,
        }
    }

    fn size_within(&self, units: f64) -> f64 {
        match *self {
            Allowance::Length(length) => (units * length).powi(2),
            Allowance::Angle(angle) => 2.0 * (units * angle / 4.0).min(std::f64::consts::FRAC_PI_2).sin().powi(2),
            _ => units,
        }
    }

    fn is_quaternion_chord(&self) -> bool {
        matches!(self, Allowance::Angle(_))
    }

    fn is_squared_distance(&self) -> bool {
        matches!(self, Allowance::Length(_))
    }
}

/// The tolerances of one path of one node.
#[derive(Clone, Copy)]
struct Tolerance {
    /// Translation tolerance in the node's parent space.
    length: f64,
    /// Rotation tolerance in radians (as if the node's reach were the whole scene) and relative
    /// scale tolerance: the budget itself.
    relative: f64,
}

/// The rest-pose facts the tolerances need: the scene's extent and each node's parent world scale.
struct Scene {
    /// Per node: translation tolerance in its parent's space.
    length: Vec<f64>,
    /// The largest movement allowed anywhere: `relative` times the scene's extent.
    allowed: f64,
    /// The budget as a fraction of the scene's extent (`relative_budget`).
    relative: f64,
    /// Per node: how far from its pivot anything it moves can be, in the world (its subtree's
    /// vertices at rest and wherever its descendants' translation keys take them); the scene's
    /// extent for a node that moves a skin's joints, whose vertices may be anywhere.
    reach: Vec<f64>,
}

impl Scene {
    fn of(model: &Model, relative: f64) -> Scene {
        let n = model.nodes.len();
        let mut parent_world = vec![IDENTITY; n];
        let mut world = vec![IDENTITY; n];
        let mut bounds = Bounds::empty();
        let mut seen = vec![false; n];
        let mut stack: Vec<(usize, [f32; 16])> = model.roots.iter().map(|&r| (r, IDENTITY)).collect();
        while let Some((index, parent)) = stack.pop() {
            if index >= n || std::mem::replace(&mut seen[index], true) {
                continue;
            }
            parent_world[index] = parent;
            world[index] = mul(&parent, &model.nodes[index].matrix);
            bounds.add([world[index][12], world[index][13], world[index][14]]);
            if let Some(mesh) = model.nodes[index].mesh.and_then(|m| model.meshes.get(m)) {
                mesh.primitives.iter().flat_map(|p| &p.positions).for_each(|&p| bounds.add(transform_point(&world[index], p)));
            }
            stack.extend(model.nodes[index].children.iter().map(|&c| (c, world[index])));
        }
        // Where the animations take the nodes belongs to the scene too: boxes that bounce across a
        // room rest in a heap at its centre, and the rest pose alone would measure the heap.
        let (moved, travel) = Self::travel(model, &parent_world, &world);
        bounds.merge(&moved);
        let extent = bounds.extent() as f64;
        let reach = Self::reach(model, &world, &travel, extent);
        let length = parent_world
            .iter()
            .map(|m| {
                // A unit local length is at most this long in the world.
                let scale = largest_scale(m);
                if scale > 0.0 && scale.is_finite() && extent.is_finite() {
                    relative * extent / scale
                } else {
                    0.0
                }
            })
            .collect();
        Scene { length, allowed: relative * extent, relative, reach }
    }

    /// Where the translation keys take the nodes, in the world: the box of every such place (keys
    /// with a value that is not finite left out), and for each node how far its keys take it from
    /// its rest place (its subtree goes along: `reach`). Channels are walked over the machine's
    /// cores when their keys are many; boxes and distances combine by minimum and maximum, so the
    /// result does not depend on the order.
    fn travel(model: &Model, parent_world: &[[f32; 16]], world: &[[f32; 16]]) -> (Bounds, Vec<f64>) {
        let n = model.nodes.len();
        let channels: Vec<(usize, &AnimationSampler)> = model
            .animations
            .iter()
            .flat_map(|a| {
                a.channels
                    .iter()
                    .filter(|c| c.path == "translation" && c.node < n)
                    .filter_map(|c| Some((c.node, a.samplers.get(c.sampler).filter(|s| s.components == 3)?)))
            })
            .collect();
        let keys: usize = channels.iter().map(|(_, s)| s.input.len()).sum();
        let moves = in_parallel::map(&channels, keys >= KEYS_WORTH_THREADS, |&(node, sampler)| {
            let (mut low, mut high, mut farthest2) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3], 0.0f64);
            let at = pivot(world, node);
            // A plain loop over the keys' floats, with comparisons that pass NaN by: through
            // `values` and `Bounds::add` it took 115 instructions a key, a tenth of what a motion
            // capture's optimize did (1.8 M translation keys).
            let (stride, offset) = if sampler.interpolation == "CUBICSPLINE" { (9, 3) } else { (3, 0) };
            for key in sampler.output.chunks_exact(stride) {
                let local = [key[offset], key[offset + 1], key[offset + 2]];
                let place = transform_point(&parent_world[node], local);
                if local[0].is_finite() && local[1].is_finite() && local[2].is_finite() {
                    for k in 0..3 {
                        low[k] = if place[k] < low[k] { place[k] } else { low[k] };
                        high[k] = if place[k] > high[k] { place[k] } else { high[k] };
                    }
                }
                // Squared here, one root at the end (a long take's keys are millions).
                let d2 = (place[0] as f64 - at[0]).powi(2) + (place[1] as f64 - at[1]).powi(2) + (place[2] as f64 - at[2]).powi(2);
                farthest2 = if d2 > farthest2 { d2 } else { farthest2 };
            }
            (Bounds { min: low, max: high }, farthest2.sqrt())
        });
        let mut travel = vec![0.0f64; n];
        let mut places = Bounds::empty();
        for (&(node, _), (moved, farthest)) in channels.iter().zip(moves) {
            places.merge(&moved);
            travel[node] = travel[node].max(farthest);
        }
        (places, travel)
    }

    /// `reach` of every node (see the field): exact for a node's own vertices, and for what its
    /// children carry, the distance to the child's pivot plus the child's reach plus how far the
    /// child's translation keys take it (the triangle inequality: a bound, never short).
    fn reach(model: &Model, world: &[[f32; 16]], travel: &[f64], extent: f64) -> Vec<f64> {
        let n = model.nodes.len();
        let pivot = |i: usize| pivot(world, i);
        let mut reach: Vec<f64> = (0..n)
            .map(|i| {
                let Some(mesh) = model.nodes[i].mesh.and_then(|m| model.meshes.get(m)) else { return 0.0 };
                mesh.primitives
                    .iter()
                    .flat_map(|p| &p.positions)
                    .map(|&p| distance(transform_point(&world[i], p).map(|v| v as f64), pivot(i)))
                    .fold(0.0, f64::max)
            })
            .collect();
        let mut moves_joints = vec![false; n];
        for skin in &model.skins {
            skin.joints.iter().filter(|&&j| j < n).for_each(|&j| moves_joints[j] = true);
        }
        // Children before parents: a post-order walk from the roots.
        let mut order = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack: Vec<(usize, bool)> = model.roots.iter().map(|&r| (r, false)).collect();
        while let Some((i, expanded)) = stack.pop() {
            if i >= n {
                continue;
            }
            if expanded {
                order.push(i);
                continue;
            }
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            stack.push((i, true));
            stack.extend(model.nodes[i].children.iter().map(|&c| (c, false)));
        }
        for &i in &order {
            for &c in model.nodes[i].children.iter().filter(|&&c| c < n) {
                reach[i] = reach[i].max(distance(pivot(c), pivot(i)) + travel[c] + reach[c]);
                moves_joints[i] |= moves_joints[c];
            }
        }
        (0..n).map(|i| if moves_joints[i] || reach[i] <= 0.0 || !reach[i].is_finite() { extent } else { reach[i] }).collect()
    }

    /// The largest angle a rotation of `node` may be off by (radians).
    fn allowed_angle(&self, node: usize) -> f64 {
        self.allowed / self.reach.get(node).copied().unwrap_or(0.0).max(self.allowed / ANGLE_CAP)
    }

    /// The largest relative change a scale of `node` may be off by.
    fn allowed_scale(&self, node: usize) -> f64 {
        self.allowed / self.reach.get(node).copied().unwrap_or(0.0).max(self.allowed / SCALE_CAP)
    }

    /// What `node`'s `path` may be off by (`Allowance::off_by` measures against it).
    fn allowance(&self, node: usize, path: &str) -> Allowance {
        match path {
            "translation" => Allowance::Length(self.length.get(node).copied().unwrap_or(0.0)),
            "rotation" => Allowance::Angle(self.allowed_angle(node)),
            "scale" => Allowance::Scale(self.allowed_scale(node)),
            _ => Allowance::None,
        }
    }

    fn tolerance(&self, node: usize) -> Tolerance {
        Tolerance { length: self.length.get(node).copied().unwrap_or(0.0), relative: self.relative }
    }
}

/// How far `value` is from `reference`, in units of the path's tolerance (≤ 1 cannot be seen).
fn key_error(path: &str, tol: Tolerance, value: &[f32], reference: &[f32]) -> f64 {
    let d = |k: usize| value[k] as f64 - reference[k] as f64;
    match path {
        "translation" => ratio((0..3).map(|k| d(k) * d(k)).sum::<f64>().sqrt(), tol.length),
        "rotation" => ratio(angle_between(value, reference), tol.relative),
        "scale" => (0..3).map(|k| ratio(d(k).abs(), tol.relative * (value[k] as f64).abs().max((reference[k] as f64).abs()))).fold(0.0, f64::max),
        _ => ratio(value.iter().zip(reference).map(|(a, b)| (a - b).abs() as f64).fold(0.0, f64::max), 0.0),
    }
}

/// The angle (radians) between two rotations given as quaternions, from the chord between the
/// unit quaternions (q and -q are the same rotation).
pub(super) fn angle_between(value: &[f32], reference: &[f32]) -> f64 {
    let unit = |q: &[f32]| {
        let n = q.iter().map(|&v| (v as f64).powi(2)).sum::<f64>().sqrt();
        [0, 1, 2, 3].map(|k| q[k] as f64 / n)
    };
    let (a, b) = (unit(value), unit(reference));
    let sign = if (0..4).map(|k| a[k] * b[k]).sum::<f64>() < 0.0 { -1.0 } else { 1.0 };
    let chord = (0..4).map(|k| (a[k] - sign * b[k]).powi(2)).sum::<f64>().sqrt();
    4.0 * (chord / 2.0).min(1.0).asin()
}

/// How far a CUBICSPLINE tangent can pull the curve off its keys over `dt` seconds, in units of
/// the path's tolerance. The Hermite basis weighs a tangent times the interval by at most 4/27.
fn tangent_error(path: &str, tol: Tolerance, tangent: &[f32], value: &[f32], dt: f64) -> f64 {
    // For a rotation the pulled quaternion is renormalized, which the key metric does.
    let pulled: Vec<f32> = value.iter().zip(tangent).map(|(&v, &m)| (v as f64 + m as f64 * dt * TANGENT_WEIGHT) as f32).collect();
    key_error(path, tol, &pulled, value)
}

fn ratio(error: f64, tolerance: f64) -> f64 {
    if error == 0.0 {
        0.0
    } else if tolerance > 0.0 {
        error / tolerance
    } else {
        f64::INFINITY
    }
}

/// Node `i`'s place in the world: the translation of its world matrix.
fn pivot(world: &[[f32; 16]], i: usize) -> [f64; 3] {
    [world[i][12] as f64, world[i][13] as f64, world[i][14] as f64]
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The key values of a sampler (the middle of each in-tangent, value, out-tangent triple for
/// CUBICSPLINE).
fn values(s: &AnimationSampler) -> impl Iterator<Item = &[f32]> {
    let c = s.components;
    let cubic = s.interpolation == "CUBICSPLINE";
    s.output.chunks_exact(if cubic { 3 * c } else { c }).map(move |k| if cubic { &k[c..2 * c] } else { k })
}

/// Whether the whole curve of `s` stays within tolerance of `reference`.
fn stays_at(s: &AnimationSampler, path: &str, tol: Tolerance, reference: &[f32]) -> bool {
    // Most moving tracks leave the tolerance within a few keys: no need to measure the rest.
    let mut keys = 0.0f64;
    for v in values(s) {
        keys = keys.max(key_error(path, tol, v, reference));
        if keys > 1.0 {
            return false;
        }
    }
    let pull = if s.interpolation == "CUBICSPLINE" {
        let c = s.components;
        let dt = s.input.windows(2).map(|w| (w[1] - w[0]) as f64).fold(0.0, f64::max);
        s.output
            .chunks_exact(3 * c)
            .map(|k| tangent_error(path, tol, &k[..c], &k[c..2 * c], dt).max(tangent_error(path, tol, &k[2 * c..], &k[c..2 * c], dt)))
            .fold(0.0, f64::max)
    } else {
        0.0
    };
    // Key and tangent errors add up along the curve.
    keys + pull <= 1.0
}

/// The node's rest value for `path`, as the writer writes it.
fn rest_value(model: &Model, node: usize, path: &str) -> Option<Vec<f32>> {
    let n = model.nodes.get(node)?;
    let (t, q, s) = match n.trs {
        Some(trs) => (trs.translation, trs.rotation, trs.scale),
        None => decompose(&n.matrix).map(|d| (d.t, d.q, d.s))?,
    };
    match path {
        "translation" => Some(t.to_vec()),
        "rotation" => Some(q.to_vec()),
        "scale" => Some(s.to_vec()),
        _ => None,
    }
}

/// A constant LINEAR sampler holding `value` at each of `times`.
fn held(value: &[f32], times: Vec<f32>, components: usize) -> AnimationSampler {
    let output = times.iter().flat_map(|_| value.iter().copied()).collect();
    AnimationSampler { input: times, output, components, interpolation: "LINEAR".into() }
}

fn visible_animation<'a>(model: &Model, scene: &Scene, animation: &'a Animation, stats: &mut TrackStats) -> VisibleAnimation<'a> {
    let samplers = &animation.samplers;
    let span = |s: &AnimationSampler| (s.input.first().copied(), s.input.last().copied());
    let used = animation.channels.iter().filter_map(|c| samplers.get(c.sampler));
    let first = used.clone().filter_map(|s| span(s).0).fold(f32::INFINITY, f32::min);
    let last = used.filter_map(|s| span(s).1).fold(f32::NEG_INFINITY, f32::max);
    if animation.channels.is_empty() || first.is_nan() || last.is_nan() || first > last || animation.channels.iter().any(|c| c.sampler >= samplers.len()) {
        return VisibleAnimation { name: animation.name.clone(), channels: animation.channels.clone(), samplers: samplers.iter().map(Cow::Borrowed).collect() };
    }

    // A sampler holds one value when it does for every channel that uses it.
    let constant: Vec<Option<Vec<f32>>> = samplers
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let value = values(s).next()?.to_vec();
            let users = animation.channels.iter().filter(|c| c.sampler == i);
            users.clone().all(|c| stays_at(s, &c.path, scene.tolerance(c.node), &value)).then_some(value)
        })
        .collect();
    let at_rest = |c: &Channel| match rest_value(model, c.node, &c.path) {
        Some(rest) => stays_at(&samplers[c.sampler], &c.path, scene.tolerance(c.node), &rest),
        None => false,
    };
    let kept: Vec<&Channel> = animation.channels.iter().filter(|c| !at_rest(c)).collect();
    stats.dropped += animation.channels.len() - kept.len();

    // Does a track written in full still start at `first` and end at `last`?
    let full = kept.iter().filter(|c| constant[c.sampler].is_none()).map(|c| span(&samplers[c.sampler]));
    let spans = full.clone().any(|(a, _)| a == Some(first)) && full.clone().any(|(_, b)| b == Some(last));
    let times = |both: bool| if both && first < last { vec![first, last] } else { vec![first] };
    // The channel carrying the span when none does: a kept constant one, else the first channel
    // (then dropped), held at its rest value (the pose without it).
    let carrier: Option<(Channel, Option<Vec<f32>>)> = match spans {
        true => None,
        false => match kept.iter().find(|c| constant[c.sampler].is_some()) {
            Some(c) => Some(((*c).clone(), None)),
            None => {
                let c = &animation.channels[0];
                stats.dropped -= 1;
                Some((c.clone(), rest_value(model, c.node, &c.path)))
            }
        },
    };

    let mut out = VisibleAnimation { name: animation.name.clone(), channels: Vec::new(), samplers: Vec::new() };
    let mut renumber = vec![None; samplers.len()];
    let carried = carrier.as_ref().map(|(c, _)| c.sampler);
    // A resurrected first channel is the only one.
    let channels: Vec<&Channel> = if let Some((_, Some(_))) = &carrier { vec![&animation.channels[0]] } else { kept };
    // A kept sampler is a track held to one value, or the moving one itself (a long take's are
    // tens of MB: not copied).
    let mut planned: Vec<Cow<'a, AnimationSampler>> = Vec::new();
    for c in channels {
        let new = *renumber[c.sampler].get_or_insert_with(|| {
            let s = &samplers[c.sampler];
            planned.push(match (&constant[c.sampler], &carrier) {
                (_, Some((_, Some(rest)))) if carried == Some(c.sampler) => Cow::Owned(held(rest, times(true), s.components)),
                (Some(value), _) => {
                    stats.collapsed += 1;
                    Cow::Owned(held(value, times(carried == Some(c.sampler)), s.components))
                }
                (None, _) => Cow::Borrowed(s),
            });
            planned.len() - 1
        });
        out.channels.push(Channel { sampler: new, ..c.clone() });
    }
    out.samplers = planned;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Node, SourceFormat, Trs};

    /// The written animations as the model's type, to compare.
    fn owned(animations: &[VisibleAnimation]) -> Vec<Animation> {
        let owned = |a: &VisibleAnimation| Animation {
            name: a.name.clone(),
            channels: a.channels.clone(),
            samplers: a.samplers.iter().map(|s| s.clone().into_owned()).collect(),
        };
        animations.iter().map(owned).collect()
    }

    /// A 2-unit-wide scene: a root at the origin and a joint 2 units away, both TRS.
    fn scene(animation: Animation) -> Model {
        let mut model = Model::new(SourceFormat::Glb);
        let trs = |t: [f32; 3]| Trs { translation: t, rotation: [0.0, 0.0, 0.0, 1.0], scale: [1.0; 3] };
        let node = |t: [f32; 3], children: Vec<usize>| Node {
            name: None,
            mesh: None,
            matrix: crate::math::compose(t, [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
            trs: Some(trs(t)),
            children,
            skin: None,
            weights: Vec::new(),
            instances: Vec::new(),
            camera: None,
            light: None,
        };
        model.nodes = vec![node([0.0; 3], vec![1]), node([2.0, 0.0, 0.0], vec![])];
        model.roots = vec![0];
        model.animations = vec![animation];
        model
    }

    fn sampler(input: &[f32], output: Vec<f32>, components: usize, interpolation: &str) -> AnimationSampler {
        AnimationSampler { input: input.to_vec(), output, components, interpolation: interpolation.into() }
    }

    fn channel(sampler: usize, node: usize, path: &str) -> Channel {
        Channel { sampler, node, path: path.into() }
    }

    const TIMES: [f32; 4] = [0.0, 0.5, 1.0, 2.0];

    /// Four keys of `value` with float noise of `noise` on the first component of the second key.
    fn noisy(value: &[f32], noise: f32) -> Vec<f32> {
        let mut out: Vec<f32> = TIMES.iter().flat_map(|_| value.iter().copied()).collect();
        out[value.len()] += noise;
        out
    }

    #[test]
    fn rest_tracks_go_constant_ones_keep_one_key_and_moving_ones_stay() {
        let moving = sampler(&TIMES, vec![1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.5, 1.0, 1.0, 1.0, 1.0], 3, "LINEAR");
        let animation = Animation {
            name: Some("walk".into()),
            samplers: vec![
                // Translation at rest (2, 0, 0) up to 1e-7 of noise: dropped.
                sampler(&TIMES, noisy(&[2.0, 0.0, 0.0], 1e-7), 3, "LINEAR"),
                // Scale 1 up to 2e-6 relative noise: dropped.
                sampler(&TIMES, noisy(&[1.0, 1.0, 1.0], 2e-6), 3, "STEP"),
                // Rotation at rest, as -q (the same rotation): dropped.
                sampler(&TIMES, noisy(&[0.0, 0.0, 0.0, -1.0], 0.0), 4, "LINEAR"),
                // The root held 1 mm up (the scene is 2 wide: 50 × the tolerance): one key.
                sampler(&TIMES, noisy(&[0.0, 0.001, 0.0], 1e-8), 3, "LINEAR"),
                moving.clone(),
            ],
            channels: vec![
                channel(0, 1, "translation"),
                channel(1, 1, "scale"),
                channel(2, 1, "rotation"),
                channel(3, 0, "translation"),
                channel(4, 0, "scale"),
            ],
        };
        let model = scene(animation);
        let VisibleTracks { animations: out, stats, .. } = visible_tracks(&model, relative_budget(14));
        let out = owned(&out);
        assert_eq!(stats, TrackStats { dropped: 3, collapsed: 1 });
        let a = &out[0];
        assert_eq!(a.name.as_deref(), Some("walk"));
        assert_eq!(a.channels, vec![channel(0, 0, "translation"), channel(1, 0, "scale")]);
        assert_eq!(a.samplers[0], sampler(&[0.0], vec![0.0, 0.001, 0.0], 3, "LINEAR"));
        assert_eq!(a.samplers[1], moving, "the moving track spans the animation, so it keeps its duration");
    }

    #[test]
    fn visible_motion_stays() {
        // 2e-4 of translation on a 2-unit scene is 10 × the tolerance; 1e-4 rad of rotation too.
        let turn = (5e-5f32.sin(), 5e-5f32.cos());
        let mut rotation = noisy(&[0.0, 0.0, 0.0, 1.0], 0.0);
        rotation[4..8].copy_from_slice(&[0.0, turn.0, 0.0, turn.1]);
        let animation = Animation {
            name: None,
            samplers: vec![sampler(&TIMES, noisy(&[2.0, 0.0, 0.0], 2e-4), 3, "LINEAR"), sampler(&TIMES, rotation, 4, "LINEAR")],
            channels: vec![channel(0, 1, "translation"), channel(1, 1, "rotation")],
        };
        let model = scene(animation);
        let VisibleTracks { animations: out, stats, .. } = visible_tracks(&model, relative_budget(14));
        let out = owned(&out);
        assert_eq!(stats, TrackStats::default());
        assert_eq!(out, model.animations);
    }

    #[test]
    fn the_scene_spans_where_translation_keys_take_a_node() {
        // At rest the scene is 2 wide, but the joint travels 100 units: the root's 5e-4 of noise
        // is a sixth of the tolerance of that scene (100/32766), where in the rest pose alone it
        // was 8 times it.
        let travel = sampler(&TIMES, vec![2.0, 0.0, 0.0, 30.0, 0.0, 0.0, 60.0, 0.0, 0.0, 100.0, 0.0, 0.0], 3, "LINEAR");
        let animation = Animation {
            name: None,
            samplers: vec![travel, sampler(&TIMES, noisy(&[0.0, 0.0, 0.0], 5e-4), 3, "LINEAR")],
            channels: vec![channel(0, 1, "translation"), channel(1, 0, "translation")],
        };
        let VisibleTracks { stats, key_steps, .. } = visible_tracks(&scene(animation), relative_budget(14));
        assert_eq!(stats.dropped, 1);
        assert!((key_steps[0][0] - 100.0 / 32766.0).abs() < 1e-4, "{key_steps:?}");
    }

    #[test]
    fn a_track_is_offered_without_the_keys_its_curve_does_without_and_stored_finer() {
        // Joint 1 creeps along an arc over 97 keys at 24 Hz: most of them lie on the chords.
        let times: Vec<f32> = (0..97).map(|k| k as f32 / 24.0).collect();
        let arc: Vec<f32> = times.iter().flat_map(|&t| [2.0 * (0.05 * t).cos(), 2.0 * (0.05 * t).sin(), 0.0]).collect();
        let source = sampler(&times, arc, 3, "LINEAR");
        let animation = Animation { name: None, samplers: vec![source.clone()], channels: vec![channel(0, 1, "translation")] };
        let model = scene(animation);
        let tracks = visible_tracks(&model, relative_budget(14));
        let reduced = tracks.shorter(|_, _, _| true);
        let animations = owned(&tracks.animations);
        assert_eq!(animations[0].samplers[0], source, "the full track stays on offer");
        let shorter = reduced[0][0].as_ref().unwrap();
        let reduced = &shorter.sampler;
        assert!(reduced.input.len() < 97 / 2, "{} of 97 keys kept", reduced.input.len());
        assert_eq!((reduced.input[0], reduced.input.last()), (0.0, times.last()), "the span stays");
        // The scene is about 2 units wide: the budget is 2/32766 units, half of it for the keys.
        let scene = Scene::of(&model, relative_budget(14));
        let tolerance = scene.tolerance(1).length;
        let gap = (0..=4000)
            .map(|i| 4.0 * i as f32 / 4000.0)
            .map(|t| {
                let (a, b) = (crate::pose::sample(reduced, t, false), crate::pose::sample(&source, t, false));
                (0..3).map(|k| ((a[k] - b[k]) as f64).powi(2)).sum::<f64>().sqrt()
            })
            .fold(0.0, f64::max);
        assert!(gap > 0.0 && gap <= REDUCTION_SHARE * tolerance * 1.01, "the curve moved {gap}, tolerance {tolerance}");
        // The kept keys are stored at the share of the tolerance the reduction left.
        let spent = gap / tolerance;
        assert!((shorter.key_step as f64) <= (1.0 - spent * 0.99) * tolerance, "step {} against {tolerance}", shorter.key_step);
    }

    #[test]
    fn a_small_thing_turns_on_fewer_bits_than_one_that_carries_the_scene() {
        use crate::model::{Mesh, Primitive};
        // Node 1 carries a unit triangle; a 100-unit triangle at the root makes the scene. Both turn.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let turn = sampler(&TIMES, [[0.0, 0.0, 0.0, 1.0], [0.0, 0.5, 0.0, 0.866], [0.0, h, 0.0, h], [0.0, 1.0, 0.0, 0.0]].concat(), 4, "LINEAR");
        let animation = Animation { name: None, samplers: vec![turn.clone(), turn], channels: vec![channel(0, 1, "rotation"), channel(1, 0, "rotation")] };
        let mut model = scene(animation);
        let triangle = |size: f32| {
            Mesh::new(None, vec![Primitive { positions: vec![[0.0; 3], [size, 0.0, 0.0], [0.0, size, 0.0]], indices: vec![0, 1, 2], ..Primitive::default() }])
        };
        model.meshes = vec![triangle(1.0), triangle(100.0)];
        (model.nodes[1].mesh, model.nodes[0].mesh) = (Some(0), Some(1));
        let bits = &visible_tracks(&model, relative_budget(14)).rotation_bits[0];
        // The small one may be off by 100/32766 units at its reach of 1 (its farthest corner from
        // its pivot): 3.05e-3 rad, 11 bits (2.9e-3 rad); the root carries the whole scene: 16 bits.
        assert_eq!(bits, &vec![11, 16]);
        assert!(rotation_error(11) <= 100.0 / 32766.0 && rotation_error(10) > 100.0 / 32766.0);
    }

    #[test]
    fn the_tolerance_follows_the_parent_scale() {
        // Joint 1 sits 1 mm from a root scaled by 1000, next to an unscaled node 2 units away: the
        // scene is 2 wide, and 1e-7 of local noise is 1e-4 in the world, 5 × the tolerance.
        let animation = Animation {
            name: None,
            samplers: vec![sampler(&TIMES, noisy(&[0.001, 0.0, 0.0], 1e-7), 3, "LINEAR"), sampler(&TIMES, noisy(&[2.0, 0.0, 0.0], 0.5), 3, "LINEAR")],
            channels: vec![channel(0, 1, "translation"), channel(1, 2, "translation")],
        };
        let mut model = scene(animation);
        let far = model.nodes[1].clone();
        model.nodes[0].trs.as_mut().unwrap().scale = [1000.0; 3];
        model.nodes[0].matrix = crate::math::compose([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1000.0; 3]);
        model.nodes[1].trs.as_mut().unwrap().translation = [0.001, 0.0, 0.0];
        model.nodes[1].matrix = crate::math::compose([0.001, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        model.nodes.push(far);
        model.roots.push(2);
        assert_eq!(visible_tracks(&model, relative_budget(14)).stats.dropped, 0);
        // Without the parent's scale the same noise is invisible.
        model.nodes[0].trs.as_mut().unwrap().scale = [1.0; 3];
        model.nodes[0].matrix = IDENTITY;
        assert_eq!(visible_tracks(&model, relative_budget(14)).stats.dropped, 1);
    }

    #[test]
    fn the_duration_stays_when_every_track_is_constant() {
        let animation = Animation {
            name: None,
            samplers: vec![
                sampler(&TIMES, noisy(&[2.0, 0.0, 0.0], 0.0), 3, "LINEAR"),
                sampler(&[0.0, 3.0], noisy(&[0.0, 0.5, 0.0], 0.0)[..6].to_vec(), 3, "STEP"),
            ],
            channels: vec![channel(0, 1, "translation"), channel(1, 0, "translation")],
        };
        // One track off rest ending at 3 s: it carries the whole span [0, 3] on two keys.
        let model = scene(animation.clone());
        let VisibleTracks { animations: out, stats, .. } = visible_tracks(&model, relative_budget(14));
        let out = owned(&out);
        assert_eq!(stats, TrackStats { dropped: 1, collapsed: 1 });
        assert_eq!(out[0].channels, vec![channel(0, 0, "translation")]);
        assert_eq!(out[0].samplers, vec![sampler(&[0.0, 3.0], vec![0.0, 0.5, 0.0, 0.0, 0.5, 0.0], 3, "LINEAR")]);

        // Every track at rest: the first one stays, at its rest value over the span.
        let mut at_rest = animation;
        at_rest.samplers[1].output = vec![0.0; 6];
        let model = scene(at_rest);
        let VisibleTracks { animations: out, stats, .. } = visible_tracks(&model, relative_budget(14));
        let out = owned(&out);
        assert_eq!(stats, TrackStats { dropped: 1, collapsed: 0 });
        assert_eq!(out[0].channels, vec![channel(0, 1, "translation")]);
        assert_eq!(out[0].samplers, vec![sampler(&[0.0, 3.0], vec![2.0, 0.0, 0.0, 2.0, 0.0, 0.0], 3, "LINEAR")]);
    }

    #[test]
    fn a_constant_track_next_to_a_shorter_moving_one_keeps_the_end_time() {
        let animation = Animation {
            name: None,
            samplers: vec![sampler(&[0.0, 1.0], vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0], 3, "LINEAR"), sampler(&TIMES, noisy(&[1.0, 0.5, 1.0], 0.0), 3, "LINEAR")],
            channels: vec![channel(0, 0, "translation"), channel(1, 0, "scale")],
        };
        let model = scene(animation);
        let VisibleTracks { animations: out, stats, .. } = visible_tracks(&model, relative_budget(14));
        let out = owned(&out);
        assert_eq!(stats, TrackStats { dropped: 0, collapsed: 1 });
        assert_eq!(out[0].samplers[1].input, vec![0.0, 2.0]);
    }

    #[test]
    fn cubic_spline_tracks_count_their_tangents() {
        // in-tangent, value, out-tangent per key.
        let cubic = |tangent: f32| {
            let key = |v: f32| [tangent, 0.0, 0.0, v, 0.5, 0.0, tangent, 0.0, 0.0];
            sampler(&TIMES, [key(0.0), key(0.0), key(0.0), key(0.0)].concat(), 3, "CUBICSPLINE")
        };
        let animation = Animation {
            name: None,
            // Flat tangents: a constant track, written as one LINEAR key.
            // Steep tangents between equal keys: the curve bulges, so the track stays.
            samplers: vec![cubic(0.0), cubic(1.0)],
            channels: vec![channel(0, 0, "translation"), channel(1, 1, "translation")],
        };
        let model = scene(animation.clone());
        let VisibleTracks { animations: out, stats, .. } = visible_tracks(&model, relative_budget(14));
        let out = owned(&out);
        assert_eq!(stats, TrackStats { dropped: 0, collapsed: 1 });
        assert_eq!(out[0].samplers[0], sampler(&[0.0], vec![0.0, 0.5, 0.0], 3, "LINEAR"));
        assert_eq!(out[0].samplers[1], animation.samplers[1]);

        // Flat tangents at the rest value: dropped.
        let mut at_rest = animation;
        at_rest.samplers[0].output.chunks_exact_mut(9).for_each(|k| k[4] = 0.0);
        let model = scene(at_rest);
        let VisibleTracks { animations: out, stats, .. } = visible_tracks(&model, relative_budget(14));
        let out = owned(&out);
        assert_eq!(stats, TrackStats { dropped: 1, collapsed: 0 });
        assert_eq!(out[0].channels, vec![channel(0, 1, "translation")]);
    }

    #[test]
    fn an_allowance_judges_by_its_cheap_gap_as_it_measures() {
        // Quaternions a small turn apart (about several axes, not unit length, on either side)
        // and vectors apart by various lengths: the gap's units are what off_by measures, and the
        // gap within a number of units is where off_by reaches it.
        let turn = |angle: f32, axis: [f32; 3], scale: f32| {
            let (s, c) = ((angle / 2.0).sin(), (angle / 2.0).cos());
            [axis[0] * s * scale, axis[1] * s * scale, axis[2] * s * scale, c * scale]
        };
        let angle = Allowance::Angle(1e-3);
        let length = Allowance::Length(2e-3);
        for (i, theta) in [0.0f32, 1e-4, 5e-4, 1e-3, 3e-3, 0.1, 1.0, 3.0].into_iter().enumerate() {
            let axis = [[0.0, 1.0, 0.0], [0.6, 0.0, 0.8], [0.48, 0.6, 0.64]][i % 3];
            let base = turn(0.3, [0.0, 0.0, 1.0], 1.0);
            let [x1, y1, z1, w1] = base;
            let [x2, y2, z2, w2] = turn(theta, axis, 1.0);
            // The Hamilton product base · turn: base turned further by theta about axis.
            let other = [
                w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
                w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
            ];
            let flipped = other.map(|v| -2.0 * v);
            for kept in [other, flipped] {
                let (size, units) = (angle.size(&kept, &base), angle.off_by(&kept, &base));
                assert!((angle.units(size) - units).abs() <= 1e-3 * units.max(1.0), "{theta}: {} against {units}", angle.units(size));
                let within = angle.size_within(units);
                assert!(units == 0.0 || (within - size).abs() <= 1e-3 * size.max(1e-12) + 1e-15, "{theta}: {within} against {size}");
            }
            let moved = [theta, -theta / 2.0, theta * 3.0];
            let (size, units) = (length.size(&moved, &[0.0; 3]), length.off_by(&moved, &[0.0; 3]));
            assert!((length.units(size) - units).abs() <= 1e-9 * units.max(1.0));
            assert!((length.size_within(units) - size).abs() <= 1e-9 * size.max(1e-12));
        }
        // A zero-length quaternion cannot be compared: never within any budget.
        assert!(angle.size(&[0.0; 4], &[0.0, 0.0, 0.0, 1.0]).is_nan());
        // Nothing may move: any gap is past the budget.
        assert!(Allowance::Length(0.0).size_within(0.5) == 0.0 && Allowance::Length(0.0).units(1e-12).is_infinite());
    }
}
