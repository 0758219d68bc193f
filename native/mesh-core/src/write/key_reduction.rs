//! The keys an animation track can do without.
//!
//! Exporters bake animation at a fixed rate (24, 30, 60 keys a second) whatever the motion; where
//! the curve between two keys farther apart already passes within tolerance of the keys between
//! them, those keys add bytes and nothing a viewer can see. A kept stretch runs from one kept key
//! straight to the next with glTF's own interpolation (LINEAR with spherical interpolation for
//! rotations; CUBICSPLINE with the two ends' tangents, which glTF gives per second, so they stay
//! right over any span). It is judged against the source curve at every source key inside it and,
//! where the curves can part between keys, between them too (for LINEAR rotations the midpoint of
//! each source interval, where a spherical interpolation bulges most; three points inside each
//! for CUBICSPLINE, whose curves bend between keys), so the kept curve follows the source's, not
//! only its keys.
//!
//! The search is greedy from the first key: each stretch is made about as long as it can be (up
//! to `LONGEST_STRETCH` source intervals), searched from the last stretch's length (neighbouring
//! stretches of one motion need about the same), grown by quarters while it holds or shrunk by
//! quarters until it does, so a stretch ends within about a quarter of the longest that would
//! hold there. Each stretch is judged from its middle point on, where a stretch too long for its
//! curve usually parts from it first, so a try that fails mostly costs one point. While a stretch
//! grows, a LINEAR track's tries are screened at a few keys and only the longest that passes is
//! judged in full (`SCREEN_STEP`). Every stretch kept is judged in full: the search may keep a key
//! more than needed, never one too few. The first and last keys always stay, so the track's
//! duration does not change.
use crate::model::AnimationSampler;
use crate::pose::Segment;
use crate::value_checks::{all_finite, not_decreasing};
use std::borrow::Cow;

/// A track with fewer keys, and how much of the tolerance that cost.
pub struct Reduced {
    pub sampler: AnimationSampler,
    /// The largest distance of the kept curve from the source's at the points judged, in units
    /// of the tolerance (`off_by`'s unit).
    pub spent: f64,
}

/// How far a kept curve's value is from the source's. Judging a stretch compares many points with
/// a budget, so the comparison is made on a figure that is cheap to work out and grows with the
/// error (`size`: a squared distance, say, where the error is its root); only the largest one
/// kept is turned into units of the tolerance. Any `Fn(kept, source) -> units` is a gap whose size
/// is its units.
pub trait Gap {
    /// A figure that grows with the error of `kept` against `source` (NaN: not comparable).
    fn size(&self, kept: &[f32], source: &[f32]) -> f64;
    /// A size in units of the tolerance.
    fn units(&self, size: f64) -> f64;
    /// The largest size within `units` of the tolerance.
    fn size_within(&self, units: f64) -> f64;
    /// Whether `size` is 1 − |cos| between the two as unit quaternions, which between quaternions
    /// on the same side is half their squared chord: a LINEAR rotation's curve between keys is
    /// then bounded rather than sampled, and its gaps at keys are taken as those chords in f64
    /// (`Turns`), `size` only where a midpoint is sampled.
    fn is_quaternion_chord(&self) -> bool {
        false
    }
    /// Whether `size` is the squared distance between the two as 3D points: a LINEAR track's
    /// stretches are then judged by `straight_error`.
    fn is_squared_distance(&self) -> bool {
        false
    }
}

/// `reduce`'s judgement of a stretch of a LINEAR 3D track from key a to key b, for a gap that is
/// the squared distance: the same figures as through `Segment::at` and `Gap::size` (the same
/// arithmetic in the same order), in one loop the compiler sees whole. Translations are half of
/// most files' tracks, and this loop was most of their reduction's time. At `step` over 1, the
/// screen: the middle key and one key in `step`.
fn straight_error(times: &[f32], values: &[f32], a: usize, b: usize, step: usize, limit: f64) -> f64 {
    let (t0, dt) = (times[a], times[b] - times[a]);
    let (f, g) = ([values[a * 3], values[a * 3 + 1], values[a * 3 + 2]], [values[b * 3], values[b * 3 + 1], values[b * 3 + 2]]);
    let size = |i: usize| {
        let u = if dt > 0.0 { ((times[i] - t0) / dt).clamp(0.0, 1.0) } else { 0.0 };
        let source = &values[i * 3..i * 3 + 3];
        (0..3).map(|k| ((f[k] + (g[k] - f[k]) * u) as f64 - source[k] as f64).powi(2)).sum::<f64>()
    };
    if b - a < 2 {
        return 0.0;
    }
    let mut worst = size((a + 1 + b) / 2);
    if worst.is_nan() || worst > limit {
        return f64::INFINITY;
    }
    for i in (a + 1..b).step_by(step) {
        let size = size(i);
        if size.is_nan() || size > limit {
            return f64::INFINITY;
        }
        worst = worst.max(size);
    }
    worst
}

/// A CUBICSPLINE stretch of an `N`-component track from key a to key b, its ends and tangents read
/// into arrays: `Segment::at`'s arithmetic in its order (the same bits), without its slices and its
/// choice of curve at every point. A point through `Segment` cost about 257 instructions, most of a
/// CUBICSPLINE track's reduction (animated-arms, session 44).
struct Hermite<const N: usize> {
    t0: f32,
    dt: f32,
    from: [f32; N],
    to: [f32; N],
    out_tangent: [f32; N],
    in_tangent: [f32; N],
    rotation: bool,
}

impl<const N: usize> Hermite<N> {
    fn between(s: &AnimationSampler, a: usize, b: usize, rotation: bool) -> Hermite<N> {
        // A key's in-tangent, value and out-tangent, in that order: one slice per key, copied out
        // whole (element by element through `array::from_fn`, about 108 instructions a stretch).
        let (first, last) = (&s.output[a * 3 * N..(a + 1) * 3 * N], &s.output[b * 3 * N..(b + 1) * 3 * N]);
        let part = |key: &[f32], p: usize| -> [f32; N] { key[p * N..(p + 1) * N].try_into().expect("N components") };
        Hermite {
            t0: s.input[a],
            dt: s.input[b] - s.input[a],
            from: part(first, 1),
            to: part(last, 1),
            out_tangent: part(first, 2),
            in_tangent: part(last, 0),
            rotation,
        }
    }

    /// Written as plain loops over the components, which the compiler works on side by side.
    #[inline(always)]
    fn at(&self, t: f32) -> [f32; N] {
        let dt = self.dt;
        let u = if dt > 0.0 { ((t - self.t0) / dt).clamp(0.0, 1.0) } else { 0.0 };
        let (u2, u3) = (u * u, u * u * u);
        let w = [2.0 * u3 - 3.0 * u2 + 1.0, (u3 - 2.0 * u2 + u) * dt, -2.0 * u3 + 3.0 * u2, (u3 - u2) * dt];
        let mut out = [0.0f32; N];
        for (i, o) in out.iter_mut().enumerate() {
            *o = w[0] * self.from[i] + w[1] * self.out_tangent[i] + w[2] * self.to[i] + w[3] * self.in_tangent[i];
        }
        if self.rotation {
            let length = out.iter().map(|x| x * x).sum::<f32>().sqrt();
            if length > 0.0 && length.is_finite() {
                for x in &mut out {
                    *x /= length;
                }
            }
        }
        out
    }

    /// The curve's values at `times`, one after another onto `values`.
    fn sample(&self, times: &[f32], values: &mut Vec<f32>) {
        for &t in times {
            values.extend_from_slice(&self.at(t));
        }
    }
}

/// The product of two 4-component values in f64.
#[inline(always)]
fn wide_dot(a: &[f32], b: &[f32]) -> f64 {
    (0..4).map(|k| a[k] as f64 * b[k] as f64).sum::<f64>()
}

/// 1 − |cos| between two quaternions, each taken at unit length: the size of a gap that
/// `is_quaternion_chord`. `source_length2` is the source's squared length (`wide_dot` with itself),
/// worked out once where a source point is judged many times.
#[inline(always)]
fn turn_size(kept: &[f32], source: &[f32], source_length2: f64) -> f64 {
    1.0 - wide_dot(kept, source).abs() / (wide_dot(kept, kept) * source_length2).sqrt()
}

/// `turn_size` between two quaternions.
pub fn turn_gap(kept: &[f32], source: &[f32]) -> f64 {
    turn_size(kept, source, wide_dot(source, source))
}

/// `error_along` for a CUBICSPLINE rotation track whose gap `is_quaternion_chord`: the gap worked
/// out in place (`turn_size`, the same figures), each source point's squared length read from
/// `lengths`. Its points were most of animated-arms' optimize, at about 140 instructions each
/// through `Gap::size` (session 51).
fn turn_error_along(curve: &Hermite<4>, points: impl Iterator<Item = usize>, times: &[f32], source: &[f32], lengths: &[f64], limit: f64) -> f64 {
    let mut worst = 0.0f64;
    let source: &[[f32; 4]] = source.as_chunks().0;
    let (times, source) = (&times[..lengths.len()], &source[..lengths.len()]);
    for i in points {
        let size = turn_size(&curve.at(times[i]), &source[i], lengths[i]);
        if size.is_nan() || size > limit {
            return f64::INFINITY;
        }
        worst = worst.max(size);
    }
    worst
}

/// `reduce`'s judgement of a stretch whose kept curve is `at` (its value at a time), at `points`
/// (indices into `times`, the times judged, and `source`, the source's values there), in that
/// order: the largest gap, infinite at the first over `limit`.
fn error_along<const N: usize>(
    at: impl Fn(f32) -> [f32; N],
    points: impl Iterator<Item = usize>,
    times: &[f32],
    source: &[f32],
    gap: &impl Gap,
    limit: f64,
) -> f64 {
    let mut worst = 0.0f64;
    for i in points {
        let size = gap.size(&at(times[i]), &source[i * N..(i + 1) * N]);
        if size.is_nan() || size > limit {
            return f64::INFINITY;
        }
        worst = worst.max(size);
    }
    worst
}

/// A LINEAR stretch of a 3-component track (not a rotation) from key a to key b, its ends read
/// into arrays: `Segment::at`'s arithmetic in its order (the same bits), where a `Segment` was made
/// for each stretch tried (held-out-animated's scale tracks, session 44).
struct Line {
    t0: f32,
    dt: f32,
    from: [f32; 3],
    to: [f32; 3],
}

impl Line {
    fn between(s: &AnimationSampler, a: usize, b: usize) -> Line {
        let value = |k: usize| -> [f32; 3] { std::array::from_fn(|i| s.output[k * 3 + i]) };
        Line { t0: s.input[a], dt: s.input[b] - s.input[a], from: value(a), to: value(b) }
    }

    fn at(&self, t: f32) -> [f32; 3] {
        let u = if self.dt > 0.0 { ((t - self.t0) / self.dt).clamp(0.0, 1.0) } else { 0.0 };
        std::array::from_fn(|i| self.from[i] + (self.to[i] - self.from[i]) * u)
    }
}

impl<F: Fn(&[f32], &[f32]) -> f64> Gap for F {
    fn size(&self, kept: &[f32], source: &[f32]) -> f64 {
        self(kept, source)
    }
    fn units(&self, size: f64) -> f64 {
        size
    }
    fn size_within(&self, units: f64) -> f64 {
        units
    }
}

/// The most source intervals one kept stretch spans. Judging a stretch costs a point per interval
/// it spans (or a few), and growing it by quarters judges it again at each step: without a cap a
/// track that holds still for 100,000 keys costs that many points per try. Past 64 intervals a
/// kept key costs under 2 % of what it replaces.
const LONGEST_STRETCH: usize = 64;

/// A stretch grown past one that held is screened first at one point in this many source
/// intervals (and its middle), and only the longest that passes is judged in full, then shorter
/// ones until one holds: each step of growth judged in full judged a stretch about 2.6 times over
/// (long-take, session 43). A track whose screen passes a stretch that fails in full (noise at
/// every key, as captured motion has) is judged in full from then on: for it the screen costs
/// what it saves.
const SCREEN_STEP: usize = 4;

/// Keys from which a track is judged by its first eighth whether the rest is worth judging.
const LONG_TRACK: usize = 4096;
/// A long track that loses fewer than one key in this many over its first eighth keeps all of
/// them (`reduce` gives None) without the rest being judged: its shorter form would need key times
/// of its own, about 1.7 bytes a key through the codec (float times at a steady rate do not delta
/// well), against at most a twentieth of a key's bytes saved per key. Captured motion, with sensor
/// noise on every key, loses about 0.1 % of its keys and stores them 45 % larger that way
/// (`motion-capture` in bench/mesh). What this gives up: a track that is noisy in its first
/// eighth and still after it keeps its still keys.
const FEW_DROPPED: usize = 20;

/// Keys from which a track's search stops to ask whether its shorter form can still pay, at a
/// quarter and half of the track (`reduce_while_worth`): fewer, and the share of keys kept so far
/// says too little of the rest.
const WORTH_ASKING: usize = 16;

/// `s` without the keys its curve can do without (module comment): every point judged stays
/// within `budget` of the source curve, as `gap` measures it (1: the whole tolerance). None when
/// no key can go or a value is not finite. Whether the shorter track is worth its finer storage
/// and key times of its own is the writer's call (write/skin.rs).
#[cfg(test)]
pub fn reduce(s: &AnimationSampler, rotation: bool, budget: f64, gap: impl Gap) -> Option<Reduced> {
    reduce_while_worth(s, rotation, budget, gap, |_| true)
}

/// `reduce`, asking `worth` at a quarter and at half of the track whether a track that
/// keeps the share of its keys kept so far (the argument) could still store smaller than the
/// whole; None as soon as it says no. The writer knows what the whole track and its key times
/// take (write/skin.rs `may_store_smaller`); a baked rotation that keeps half its keys needs key
/// times of its own and stores twice as large shortened, and judging the other half of its keys
/// only to learn that was most of the held-out baked robots' optimize (session 50).
pub fn reduce_while_worth(s: &AnimationSampler, rotation: bool, budget: f64, gap: impl Gap, worth: impl Fn(f64) -> bool) -> Option<Reduced> {
    let cubic = s.interpolation == "CUBICSPLINE";
    let stride = if cubic { 3 * s.components } else { s.components };
    let keys = s.input.len();
    if budget.is_nan() || budget <= 0.0 || keys < 3 || s.output.len() != keys * stride || !matches!(s.interpolation.as_str(), "LINEAR" | "CUBICSPLINE") {
        return None;
    }
    if !all_finite(&s.input) || !all_finite(&s.output) || !not_decreasing(&s.input) {
        return None;
    }
    // Points judged per source interval: its start key, then the points inside it (times, and
    // the source curve's values there in one flat list: a long track makes millions of them). Two
    // LINEAR curves of translations or scales differ most at a key of one of them, so the source
    // keys are enough there; a spherical interpolation bulges between keys, by a bound (`Turns`)
    // where the gap is a quaternion chord, else at each interval's midpoint.
    let n = s.components;
    let turns = (!cubic && rotation && n == 4 && gap.is_quaternion_chord()).then(|| Turns::of(s));
    let per = match (cubic, rotation) {
        (true, _) => 4,
        (false, true) if turns.is_none() => 2,
        (false, _) => 1,
    };
    // With one point per interval (its start key) they are the track's own keys and values.
    let (times, source): (Cow<[f32]>, Cow<[f32]>) = if per == 1 {
        (Cow::Borrowed(&s.input[..keys - 1]), Cow::Borrowed(&s.output[..(keys - 1) * n]))
    } else {
        // A loop into a vector of the right size: through a flat map each time took about 47
        // instructions (animated-arms, session 50).
        let mut times: Vec<f32> = Vec::with_capacity((keys - 1) * per);
        for pair in s.input.windows(2) {
            times.extend((0..per).map(|j| pair[0] + (pair[1] - pair[0]) * j as f32 / per as f32));
        }
        let mut source: Vec<f32> = Vec::with_capacity(times.len() * n);
        let mut value = vec![0.0f32; n];
        for (k, interval_times) in times.chunks_exact(per).enumerate() {
            match (cubic, n) {
                (true, 3) => Hermite::<3>::between(s, k, k + 1, rotation).sample(interval_times, &mut source),
                (true, 4) => Hermite::<4>::between(s, k, k + 1, rotation).sample(interval_times, &mut source),
                _ => {
                    let curve = Segment::new(s, k, k + 1, rotation);
                    // The interval's first point is its start key (times[k * per] is that key's time).
                    curve.start(&mut value);
                    source.extend_from_slice(&value);
                    for &t in &interval_times[1..] {
                        curve.at(t, &mut value);
                        source.extend_from_slice(&value);
                    }
                }
            }
        }
        (Cow::Owned(times), Cow::Owned(source))
    };
    // A CUBICSPLINE rotation whose gap is the quaternion chord: each source point's squared
    // length, which every stretch judged there would work out again.
    let lengths: Option<Vec<f64>> = (cubic && n == 4 && gap.is_quaternion_chord()).then(|| source.chunks_exact(4).map(|q| wide_dot(q, q)).collect());
    let limit = gap.size_within(budget);
    let kept_value = std::cell::RefCell::new(vec![0.0f32; n]);
    let chord_limit = (2.0 * limit).sqrt();
    // A LINEAR 3D track judged by squared distance: its kept curve is the straight line between
    // the two keys' values, read in place (no `Segment` made for each stretch tried).
    let straight = gap.is_squared_distance() && per == 1 && n == 3 && !cubic;
    // The largest gap (its size) of the stretch from key a to key b over the points strictly
    // inside it, stopping at the first one over the budget. The middle point goes first: a
    // stretch too long for its curve usually parts from it most there, so most stretches that
    // fail are told after one point. Judged in full at `step` 1 (every point); else screened
    // (LINEAR tracks only): the middle key and one key in `step`, a test the full judgement may
    // fail where it passes, never the other way round.
    let judged = |a: usize, b: usize, step: usize| -> f64 {
        // The points judged: the middle one first, then every one inside; or screened, the
        // middle key first, then one key in `step` (a key's point is its interval's first), as
        // `Turns::screen` and `straight_error` screen.
        let (first, end) = (a * per + 1, b * per);
        let middle = (first < end).then_some((first + end) / 2);
        let keys = || (b - a >= 2).then_some((a + 1 + b) / 2).into_iter().chain((a + 1..b).step_by(step)).map(|k| k * per);
        if let Some(turns) = &turns {
            return match step {
                1 => turns.error(s, a, b, limit, chord_limit),
                _ => turns.screen(s, a, b, step, limit),
            };
        }
        if straight {
            return straight_error(&s.input, &s.output, a, b, step, limit);
        }
        match (cubic, n, step) {
            (true, 3, 1) => {
                let curve = Hermite::<3>::between(s, a, b, rotation);
                return error_along(|t| curve.at(t), middle.into_iter().chain(first..end), &times, &source, &gap, limit);
            }
            (true, 4, 1) => {
                let curve = Hermite::<4>::between(s, a, b, rotation);
                if let Some(lengths) = &lengths {
                    return turn_error_along(&curve, middle.into_iter().chain(first..end), &times, &source, lengths, limit);
                }
                return error_along(|t| curve.at(t), middle.into_iter().chain(first..end), &times, &source, &gap, limit);
            }
            (false, 3, 1) if !rotation && per == 1 => {
                let line = Line::between(s, a, b);
                return error_along(|t| line.at(t), middle.into_iter().chain(first..end), &times, &source, &gap, limit);
            }
            (false, 3, _) if !rotation && per == 1 => {
                let line = Line::between(s, a, b);
                return error_along(|t| line.at(t), keys(), &times, &source, &gap, limit);
            }
            _ => {}
        }
        let kept = Segment::new(s, a, b, rotation);
        let mut value = kept_value.borrow_mut();
        let mut worst = 0.0f64;
        let mut judge = |i: usize| {
            kept.at(times[i], &mut value);
            let size = gap.size(&value, &source[i * n..(i + 1) * n]);
            worst = worst.max(size);
            size.is_nan() || size > limit
        };
        let failed = match step {
            1 => middle.into_iter().chain(first..end).any(&mut judge),
            _ => keys().any(&mut judge),
        };
        if failed {
            f64::INFINITY
        } else {
            worst
        }
    };

    let last = keys - 1;
    // Where a long track is judged whether it is losing enough keys to go on (`FEW_DROPPED`).
    let checkpoint = (keys >= LONG_TRACK).then_some(keys / 8);
    // Where the writer is asked whether the shorter track can still pay; the next one first.
    let mut asked = [keys / 4, keys / 2].into_iter().filter(|&at| at >= WORTH_ASKING).peekable();
    let mut kept = vec![0];
    let (mut a, mut guess, mut spent) = (0, 2, 0.0f64);
    let error = |a: usize, b: usize| judged(a, b, 1);
    // Whether growth is screened: until a screen passes a stretch the full judgement fails. Not
    // CUBICSPLINE tracks: their curves part between keys, where a screen at keys does not look.
    let mut screening = !cubic;
    let quarter = |length: usize| (length / 4).max(1);
    while a < last {
        // The longest stretch from `a`, searched near the last one's length: a quarter longer
        // first (neighbouring stretches of one motion need about the same, so this usually fails
        // at its middle point, cheaply), grown on by quarters while it holds (up to the end or
        // LONGEST_STRETCH); else the last one's length, then shorter by quarters until one holds.
        // A stretch of one interval has nothing inside to judge: it always holds. After one, the
        // first try is two intervals, and where that fails the stretch is one: noisy keys keep
        // most of theirs, and trying three first cost them two failed tries a key (captured
        // motion, session 48: the search may now miss a stretch of three where two fail).
        let span = |length: usize| (a + length).min(last) - a;
        let same = span(guess.min(LONGEST_STRETCH));
        let mut length = span((guess + quarter(guess)).min(LONGEST_STRETCH));
        let mut held = (1, 0.0);
        let first = error(a, a + length);
        if first <= limit {
            held = (length, first);
            // Grown by quarters while the screen passes, then the longest judged in full, and
            // shorter ones where it fails (`SCREEN_STEP`).
            let mut screened = Vec::new();
            while a + length < last && length < LONGEST_STRETCH {
                length = span((length + quarter(length)).min(LONGEST_STRETCH));
                if !screening {
                    let e = error(a, a + length);
                    if e > limit {
                        break;
                    }
                    held = (length, e);
                } else if judged(a, a + length, SCREEN_STEP) <= limit {
                    screened.push(length);
                } else {
                    break;
                }
            }
            while let Some(length) = screened.pop() {
                let e = error(a, a + length);
                if e <= limit {
                    held = (length, e);
                    break;
                }
                screening = false;
            }
        } else {
            length = if same < length { same } else { length - quarter(length) };
            while length > 1 {
                let e = error(a, a + length);
                if e <= limit {
                    held = (length, e);
                    break;
                }
                length -= quarter(length);
            }
        }
        kept.push(a + held.0);
        spent = spent.max(held.1);
        guess = held.0;
        a += held.0;
        if checkpoint.is_some_and(|at| a >= at && (a + 1 - kept.len()) * FEW_DROPPED < a) {
            return None;
        }
        if asked.next_if(|&at| a >= at).is_some() {
            // Passing both at once (a stretch longer than a quarter of the track) asks once.
            while asked.next_if(|&at| a >= at).is_some() {}
            if !worth((kept.len() - 1) as f64 / a as f64) {
                return None;
            }
        }
    }
    if kept.len() == keys {
        return None;
    }
    let input = kept.iter().map(|&k| s.input[k]).collect();
    let mut output = Vec::with_capacity(kept.len() * stride);
    kept.iter().for_each(|&k| output.extend_from_slice(&s.output[k * stride..(k + 1) * stride]));
    // Not `..s.clone()`: that would copy the whole track's keys only to drop them.
    let sampler = AnimationSampler { input, output, components: s.components, interpolation: s.interpolation.clone() };
    Some(Reduced { sampler, spent: gap.units(spent) })
}

/// How far a spherical interpolation's curve strays from the chord between its ends, per unit of
/// squared chord: at most (angle)²/8, and the angle is at most 1.1108 times the chord up to a
/// quarter turn (checked numerically for both the spherical and the normalized linear
/// interpolation, whose difference from the straight line is only radial).
const BULGE: f64 = 1.1108 * 1.1108 / 8.0;
/// Chords past which `BULGE` is not claimed (a quarter turn between two quaternions).
const LONGEST_BULGING_CHORD: f64 = std::f64::consts::SQRT_2;
/// Rounding of the f32 curves against the f64 bound, as a chord.
const CHORD_ROUNDING: f64 = 4e-7;

/// A LINEAR rotation track judged between its keys without sampling there. Over one source
/// interval both the kept curve and the source's are arcs at a steady speed (a spherical
/// interpolation restricted to an interval is one between its values there; a normalized linear
/// one is too, up to a reparametrization bounded below), so each is within `BULGE` · chord² of
/// the straight line between its ends, and the gap between two straight lines run at the same
/// rate is largest at an end. So the gap anywhere inside the interval is at most the larger gap
/// at its two keys plus both bulges; where that bound does not hold, the interval's midpoint is
/// judged as before. Gaps at keys are taken on one side of the source's path (each key on the side
/// of the one before, as the spherical interpolation turns), so the bound is never the short way
/// round one end and the long way round the other.
struct Turns {
    /// The source keys as unit quaternions, each on the side of the one before.
    path: Vec<[f64; 4]>,
    /// Per source interval: how far its curve strays from the chord between its ends (infinite
    /// past a quarter turn).
    bulge: Vec<f64>,
}

fn dot4(a: &[f64; 4], b: &[f64; 4]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

fn wide(q: &[f32]) -> [f64; 4] {
    [q[0] as f64, q[1] as f64, q[2] as f64, q[3] as f64]
}

impl Turns {
    fn of(s: &AnimationSampler) -> Turns {
        let mut path: Vec<[f64; 4]> = Vec::with_capacity(s.input.len());
        for q in s.output.chunks_exact(4) {
            let mut q = wide(q);
            let length = dot4(&q, &q).sqrt();
            q.iter_mut().for_each(|v| *v /= length);
            if path.last().is_some_and(|p| dot4(p, &q) < 0.0) {
                q.iter_mut().for_each(|v| *v = -*v);
            }
            path.push(q);
        }
        let bulge = path
            .windows(2)
            .map(|w| {
                let chord2: f64 = (0..4).map(|k| (w[1][k] - w[0][k]).powi(2)).sum();
                if chord2 <= LONGEST_BULGING_CHORD * LONGEST_BULGING_CHORD {
                    BULGE * chord2
                } else {
                    f64::INFINITY
                }
            })
            .collect();
        Turns { path, bulge }
    }

    /// `reduce`'s screen of the kept stretch from key a to key b: the gap at its middle key and at
    /// one key in `step` inside it (no bound between keys), infinite at the first over `limit`.
    fn screen(&self, s: &AnimationSampler, a: usize, b: usize, step: usize, limit: f64) -> f64 {
        let curve = Arc::between(self.path[a], self.path[b], s.input[a], s.input[b]);
        let middle = (b - a >= 2).then_some((a + 1 + b) / 2);
        let mut worst = 0.0f64;
        for i in middle.into_iter().chain((a + 1..b).step_by(step)) {
            let (size, _) = chord_gap(&curve.at(s.input[i]), &self.path[i]);
            if size.is_nan() || size > limit {
                return f64::INFINITY;
            }
            worst = worst.max(size);
        }
        worst
    }

    /// The largest gap (size) of the kept stretch from key a to key b at the keys strictly inside
    /// it and, bounded, between all its keys; infinite at the first one over `limit` (module
    /// comment: the middle key first).
    ///
    /// The kept curve is worked out here in f64 from the path's unit keys, not through `Segment`
    /// in f32: at each key its value, its gap as half the squared chord to the key on the nearer
    /// side (what 1 − |cos| is between unit quaternions, without the cancellation), and which
    /// side that is, all from one dot product. A spherical interpolation's sines come from a
    /// short series where the stretch turns by little, as a baked track's stretches do. This was
    /// most of a rotation track's reduction: a point cost about 340 instructions through `Segment`
    /// and the gap in f32, about 225 here (motion-capture, session 43). A midpoint the bound cannot
    /// cover is judged on the kept arc and the source interval's, both in f64 (through `Segment`,
    /// two in f32 with a `acosf` and two `sinf` each, until session 44).
    fn error(&self, s: &AnimationSampler, a: usize, b: usize, limit: f64, chord_limit: f64) -> f64 {
        let curve = Arc::between(self.path[a], self.path[b], s.input[a], s.input[b]);
        let mut worst = 0.0f64;
        if b - a >= 2 {
            let middle = (a + b) / 2;
            let (size, _) = chord_gap(&curve.at(s.input[middle]), &self.path[middle]);
            if size.is_nan() || size > limit {
                return f64::INFINITY;
            }
        }
        // A normalized linear interpolation (ends less than 2° apart) runs at a speed that varies
        // by at most 1/30 of the squared angle: its straight line is off by that times the chord.
        let reparametrized = if curve.theta == 0.0 { BULGE * 8.0 * chord2(&curve.from, &curve.to) / 30.0 } else { 0.0 };
        let (mut previous, mut previous_size, mut previous_on_path) = (curve.from, 0.0f64, true);
        for i in a + 1..=b {
            let value = if i == b { curve.to } else { curve.at(s.input[i]) };
            let (size, on_path) = chord_gap(&value, &self.path[i]);
            if size.is_nan() || size > limit {
                return f64::INFINITY;
            }
            worst = worst.max(size);
            let chord2 = chord2(&value, &previous);
            let ends_gap = if on_path && previous_on_path { (2.0 * size.max(previous_size)).sqrt() } else { f64::INFINITY };
            let bound = ends_gap + BULGE * chord2 + reparametrized * chord2.sqrt() + self.bulge[i - 1] + CHORD_ROUNDING;
            if bound <= chord_limit {
                worst = worst.max(0.5 * bound * bound);
            } else {
                // The midpoint, as the sampled judgement takes it, on the f64 arcs.
                let t = s.input[i - 1] + (s.input[i] - s.input[i - 1]) * 1.0 / 2.0;
                let source = Arc::between(self.path[i - 1], self.path[i], s.input[i - 1], s.input[i]);
                let (size, _) = chord_gap(&curve.at(t), &source.at(t));
                if size.is_nan() || size > limit {
                    return f64::INFINITY;
                }
                worst = worst.max(size);
            }
            (previous, previous_size, previous_on_path) = (value, size, on_path);
        }
        worst
    }
}

/// The squared chord between two 4-vectors.
fn chord2(a: &[f64; 4], b: &[f64; 4]) -> f64 {
    (0..4).map(|k| (a[k] - b[k]).powi(2)).sum()
}

/// The gap between unit quaternions `value` and `key` as half the squared chord from `value` to
/// `key` or to its negation, whichever is nearer (1 − |cos| between them), and whether `key`
/// itself is the nearer.
fn chord_gap(value: &[f64; 4], key: &[f64; 4]) -> (f64, bool) {
    let on_path = dot4(value, key) >= 0.0;
    let sign = if on_path { 1.0 } else { -1.0 };
    (0.5 * (0..4).map(|k| (value[k] - sign * key[k]).powi(2)).sum::<f64>(), on_path)
}

/// glTF's LINEAR rotation curve between two keys as `Segment` makes it (a spherical
/// interpolation, or a normalized linear one where the ends are under about 2° apart), in f64
/// from unit quaternions.
struct Arc {
    from: [f64; 4],
    /// The end on the start's side.
    to: [f64; 4],
    t0: f64,
    dt: f64,
    /// The angle between the ends (0: interpolate linearly and normalize) and its sine.
    theta: f64,
    sine: f64,
}

/// Past this angle a sine comes from `f64::sin`, under it from the series: its first term left
/// out is at most 0.5¹⁵ / 15! ≈ 2e-17.
const SERIES_REACH: f64 = 0.5;

/// The Taylor series of sin x over x, in x²: 1/1!, −1/3!, 1/5!, … to the x¹³ term's.
const SINE_SERIES: [f64; 7] = [1.0, -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362_880.0, -1.0 / 39_916_800.0, 1.0 / 6_227_020_800.0];

/// sin x for 0 ≤ x ≤ `SERIES_REACH` by its Taylor series to the x¹³ term (products only: a chain
/// of divisions took longer than `f64::sin`), else `f64::sin`.
fn sine(x: f64) -> f64 {
    if x > SERIES_REACH {
        return x.sin();
    }
    let x2 = x * x;
    x * SINE_SERIES.iter().rev().fold(0.0, |sum, &c| sum * x2 + c)
}

impl Arc {
    fn between(from: [f64; 4], to: [f64; 4], t0: f32, t1: f32) -> Arc {
        let dot = dot4(&from, &to);
        let to = if dot < 0.0 { [-to[0], -to[1], -to[2], -to[3]] } else { to };
        let theta = if dot.abs() > 0.9995 { 0.0 } else { dot.abs().min(1.0).acos() };
        // Under about 2° the curve is a normalized linear one, which takes no sine.
        let sine = if theta == 0.0 { 0.0 } else { theta.sin() };
        Arc { from, to, t0: t0 as f64, dt: (t1 - t0) as f64, theta, sine }
    }

    /// The curve's value at time `t` (clamped to its span).
    fn at(&self, t: f32) -> [f64; 4] {
        let u = if self.dt > 0.0 { ((t as f64 - self.t0) / self.dt).clamp(0.0, 1.0) } else { 0.0 };
        let (from, to) = (&self.from, &self.to);
        let (wa, wb) = match self.theta {
            0.0 => (1.0 - u, u),
            theta => (sine((1.0 - u) * theta) / self.sine, sine(u * theta) / self.sine),
        };
        let v = [wa * from[0] + wb * to[0], wa * from[1] + wb * to[1], wa * from[2] + wb * to[2], wa * from[3] + wb * to[3]];
        match self.theta {
            0.0 => {
                let length = dot4(&v, &v).sqrt();
                [v[0] / length, v[1] / length, v[2] / length, v[3] / length]
            }
            _ => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pose::sample;

    fn linear(input: Vec<f32>, output: Vec<f32>) -> AnimationSampler {
        AnimationSampler { input, output, components: 3, interpolation: "LINEAR".into() }
    }

    fn distance(a: &[f32], b: &[f32]) -> f64 {
        a.iter().zip(b).map(|(x, y)| ((x - y) as f64).powi(2)).sum::<f64>().sqrt()
    }

    /// The largest distance between two curves over 1,000 times across the source's span.
    fn largest_gap(a: &AnimationSampler, b: &AnimationSampler, rotation: bool) -> f64 {
        let (first, last) = (b.input[0], *b.input.last().unwrap());
        (0..=1000).map(|i| first + (last - first) * i as f32 / 1000.0).map(|t| distance(&sample(a, t, rotation), &sample(b, t, rotation))).fold(0.0, f64::max)
    }

    /// 1 − |cos| between quaternions against an allowed angle (`.0`), with and without (`.1`) the
    /// claim that it is the quaternion chord, which sends LINEAR rotations to `Turns` and
    /// CUBICSPLINE ones to `turn_error_along`.
    struct Turn(f64, bool);

    impl Gap for Turn {
        fn size(&self, kept: &[f32], source: &[f32]) -> f64 {
            let dot = |a: &[f32], b: &[f32]| (0..4).map(|k| a[k] as f64 * b[k] as f64).sum::<f64>();
            1.0 - dot(kept, source).abs() / (dot(kept, kept) * dot(source, source)).sqrt()
        }
        fn units(&self, size: f64) -> f64 {
            4.0 * (size.max(0.0) / 2.0).sqrt().min(1.0).asin() / self.0
        }
        fn size_within(&self, units: f64) -> f64 {
            2.0 * (units * self.0 / 4.0).min(std::f64::consts::FRAC_PI_2).sin().powi(2)
        }
        fn is_quaternion_chord(&self) -> bool {
            self.1
        }
    }

    #[test]
    fn keys_on_a_straight_line_go_and_corners_stay() {
        // Out along x for 10 keys, then back along y: only the ends and the corner are needed.
        let input: Vec<f32> = (0..20).map(|k| k as f32 / 10.0).collect();
        let output = (0..20).flat_map(|k| if k < 10 { [k as f32, 0.0, 0.0] } else { [9.0, (k - 9) as f32, 0.0] }).collect();
        let s = linear(input, output);
        let r = reduce(&s, false, 0.5, |a: &[f32], b: &[f32]| distance(a, b) / 1e-3).unwrap();
        // The ends and the corner stay; the search (by quarters of a stretch) may keep one more.
        let kept = &r.sampler.input;
        assert!(kept.len() <= 4 && kept.contains(&0.9), "{kept:?}");
        assert_eq!((kept[0], kept.last()), (0.0, Some(&1.9)));
        let corner = kept.iter().position(|&t| t == 0.9).unwrap();
        assert_eq!(r.sampler.output[corner * 3..corner * 3 + 3], [9.0, 0.0, 0.0]);
        assert!(r.spent < 1e-3, "the kept curve is the source's: {}", r.spent);
    }

    #[test]
    fn a_curve_keeps_what_its_tolerance_needs() {
        let input: Vec<f32> = (0..97).map(|k| k as f32 / 24.0).collect();
        let output: Vec<f32> = input.iter().flat_map(|&t| [(2.0 * t).sin(), (3.0 * t).cos(), 0.5 * t]).collect();
        let s = linear(input.clone(), output);
        for tolerance in [1e-1, 2e-2] {
            let r = reduce(&s, false, 0.5, |a: &[f32], b: &[f32]| distance(a, b) / tolerance).unwrap();
            assert!(r.sampler.input.len() < 97 && r.sampler.input.len() > 3, "{} keys at {tolerance}", r.sampler.input.len());
            assert!(r.spent <= 0.5);
            assert_eq!((r.sampler.input[0], r.sampler.input.last()), (0.0, input.last()), "the span stays");
            let gap = largest_gap(&r.sampler, &s, false);
            assert!(gap <= 0.5 * tolerance, "{gap} against {tolerance}");
        }
        let coarse = reduce(&s, false, 0.5, |a: &[f32], b: &[f32]| distance(a, b) / 1e-1).unwrap().sampler.input.len();
        let fine = reduce(&s, false, 0.5, |a: &[f32], b: &[f32]| distance(a, b) / 2e-2).unwrap().sampler.input.len();
        assert!(coarse < fine, "{coarse} keys at the coarser tolerance, {fine} at the finer");
    }

    #[test]
    fn a_gap_judged_by_a_cheaper_size_keeps_the_same_keys_as_one_in_units() {
        struct Squared(f64);
        impl Gap for Squared {
            fn size(&self, kept: &[f32], source: &[f32]) -> f64 {
                distance(kept, source).powi(2)
            }
            fn units(&self, size: f64) -> f64 {
                size.sqrt() / self.0
            }
            fn size_within(&self, units: f64) -> f64 {
                (units * self.0).powi(2)
            }
        }
        let input: Vec<f32> = (0..500).map(|k| k as f32 / 60.0).collect();
        let output: Vec<f32> = input.iter().flat_map(|&t| [(1.3 * t).sin(), (0.7 * t).cos() * 2.0, t * t]).collect();
        let s = linear(input, output);
        for tolerance in [1e-1, 1e-2, 1e-3] {
            let by_units = reduce(&s, false, 0.5, |a: &[f32], b: &[f32]| distance(a, b) / tolerance).unwrap();
            let by_size = reduce(&s, false, 0.5, Squared(tolerance)).unwrap();
            assert_eq!(by_size.sampler, by_units.sampler, "at {tolerance}");
            assert!((by_size.spent - by_units.spent).abs() < 1e-9, "{} against {}", by_size.spent, by_units.spent);
        }
    }

    #[test]
    fn a_squared_distance_judged_in_one_loop_keeps_what_the_general_path_keeps() {
        // The same gap, with and without the claim that sends it to `straight_error`.
        struct Squared(f64, bool);
        impl Gap for Squared {
            fn size(&self, kept: &[f32], source: &[f32]) -> f64 {
                (0..3).map(|k| (kept[k] as f64 - source[k] as f64).powi(2)).sum()
            }
            fn units(&self, size: f64) -> f64 {
                size.sqrt() / self.0
            }
            fn size_within(&self, units: f64) -> f64 {
                (units * self.0).powi(2)
            }
            fn is_squared_distance(&self) -> bool {
                self.1
            }
        }
        // Uneven key times, so the interpolation parameter is not a round fraction.
        let input: Vec<f32> = (0..700).map(|k| k as f32 / 60.0 + if k % 7 == 3 { 0.004 } else { 0.0 }).collect();
        let output: Vec<f32> = input.iter().flat_map(|&t| [(1.3 * t).sin(), (0.7 * t).cos() * 2.0, t * t * 0.1]).collect();
        let s = linear(input, output);
        for tolerance in [1e-1, 1e-2, 1e-3, 1e-4] {
            let general = reduce(&s, false, 0.5, Squared(tolerance, false)).unwrap();
            let straight = reduce(&s, false, 0.5, Squared(tolerance, true)).unwrap();
            assert_eq!(straight.sampler, general.sampler, "at {tolerance}");
            assert_eq!(straight.spent.to_bits(), general.spent.to_bits(), "at {tolerance}");
        }
    }

    #[test]
    fn cubic_rotations_follow_the_source_between_keys() {
        // A swing about a tilted axis, keys and tangents (the quaternion's derivative) at 24 Hz.
        let input: Vec<f32> = (0..97).map(|k| k as f32 / 24.0).collect();
        let axis = [0.6f32, 0.0, 0.8];
        let output: Vec<f32> = input
            .iter()
            .flat_map(|&t| {
                let (angle, half_speed) = (0.8 * (2.5 * t).sin(), 0.8 * 2.5 * (2.5 * t).cos() * 0.5);
                let (s, c) = ((angle / 2.0).sin(), (angle / 2.0).cos());
                let value = [axis[0] * s, axis[1] * s, axis[2] * s, c];
                let tangent = [axis[0] * c * half_speed, axis[1] * c * half_speed, axis[2] * c * half_speed, -s * half_speed];
                [tangent, value, tangent].concat()
            })
            .collect();
        let s = AnimationSampler { input, output, components: 4, interpolation: "CUBICSPLINE".into() };
        let angle = super::super::anim_tracks::angle_between;
        let tolerance = 1e-4;
        let r = reduce(&s, true, 0.5, |a: &[f32], b: &[f32]| angle(a, b) / tolerance).unwrap();
        assert!(r.sampler.input.len() <= 48, "{} of 97 keys", r.sampler.input.len());
        assert_eq!(r.sampler.output.len(), r.sampler.input.len() * 12, "keys keep their tangents");
        let (first, last) = (0.0f32, 4.0f32);
        let worst = (0..=2000)
            .map(|i| first + (last - first) * i as f32 / 2000.0)
            .map(|t| angle(&sample(&r.sampler, t, true), &sample(&s, t, true)))
            .fold(0.0, f64::max);
        assert!(worst <= 0.55 * tolerance, "{worst} rad against {tolerance}");
    }

    #[test]
    fn a_cubic_rotation_judged_in_place_keeps_what_the_general_path_keeps() {
        // The same gap, with and without the claim that sends it to `turn_error_along`.
        let mut random = crate::test_random::uniform(51);
        for _ in 0..20 {
            // A wobbling swing about a wandering axis, keys and tangents at uneven times, tangents
            // with noise: the search ends stretches at many lengths.
            let keys = 60 + (random() * 100.0) as usize;
            let input: Vec<f32> = (0..keys).scan(0.0f32, |t, _| Some(std::mem::replace(t, *t + 1.0 / 30.0 + random() * 0.01))).collect();
            let (speed, wobble) = (1.0 + random() * 3.0, random() * 0.3);
            let output: Vec<f32> = input
                .iter()
                .flat_map(|&t| {
                    let angle = (speed * t).sin() + wobble * (7.0 * t).sin();
                    let axis = [(0.3 * t).cos(), (0.3 * t).sin(), 0.5];
                    let (s, c) = ((angle / 2.0).sin(), (angle / 2.0).cos());
                    let value = [axis[0] * s, axis[1] * s, axis[2] * s, c];
                    let tangent: Vec<f32> = value.iter().map(|v| v * (random() - 0.5) * 0.2).collect();
                    [tangent.clone(), value.to_vec(), tangent].concat()
                })
                .collect();
            let s = AnimationSampler { input, output, components: 4, interpolation: "CUBICSPLINE".into() };
            for tolerance in [1e-1, 1e-2, 1e-3] {
                let general = reduce(&s, true, 0.5, Turn(tolerance, false));
                let in_place = reduce(&s, true, 0.5, Turn(tolerance, true));
                match (general, in_place) {
                    (Some(general), Some(in_place)) => {
                        assert_eq!(in_place.sampler, general.sampler, "at {tolerance}");
                        assert_eq!(in_place.spent.to_bits(), general.spent.to_bits(), "at {tolerance}");
                    }
                    (None, None) => {}
                    _ => panic!("only one path kept every key at {tolerance}"),
                }
            }
        }
    }

    #[test]
    fn the_fixed_size_stretches_give_the_bits_segment_gives() {
        let mut random = crate::test_random::uniform(44);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        // LINEAR, three components, not a rotation: `Line`.
        for _ in 0..50 {
            let start = random() * 3.0 - 1.0;
            let input: Vec<f32> = (0..12).scan(start, |time, _| Some(std::mem::replace(time, *time + (random() - 0.1).max(0.0) * 0.2))).collect();
            let s = linear(input, (0..36).map(|_| random() * 4.0 - 2.0).collect());
            for (a, b) in [(0, 1), (0, 11), (3, 7), (5, 5)] {
                let segment = Segment::new(&s, a, b, false);
                for k in 0..=24 {
                    let t = s.input[a] - 0.01 + (s.input[b] - s.input[a] + 0.02) * k as f32 / 24.0;
                    let mut expected = [0.0f32; 3];
                    segment.at(t, &mut expected);
                    assert_eq!(bits(&Line::between(&s, a, b).at(t)), bits(&expected), "keys {a} to {b}, at {t}");
                }
            }
        }
        // CUBICSPLINE: `Hermite`.
        for (components, rotation) in [(3, false), (4, true), (4, false)] {
            for _ in 0..50 {
                let keys = 12;
                let start = random() * 3.0 - 1.0;
                // Steps from none (two keys at one time) to a fifth of a second.
                let input: Vec<f32> = (0..keys).scan(start, |time, _| Some(std::mem::replace(time, *time + (random() - 0.1).max(0.0) * 0.2))).collect();
                let output: Vec<f32> = (0..keys * 3 * components).map(|_| random() * 4.0 - 2.0).collect();
                let s = AnimationSampler { input, output, components, interpolation: "CUBICSPLINE".into() };
                for (a, b) in [(0, 1), (0, 11), (3, 7), (5, 5)] {
                    let segment = Segment::new(&s, a, b, rotation);
                    for k in 0..=24 {
                        let t = s.input[a] - 0.01 + (s.input[b] - s.input[a] + 0.02) * k as f32 / 24.0;
                        let mut expected = vec![0.0f32; components];
                        segment.at(t, &mut expected);
                        let got: Vec<f32> = match components {
                            3 => Hermite::<3>::between(&s, a, b, rotation).at(t).to_vec(),
                            _ => Hermite::<4>::between(&s, a, b, rotation).at(t).to_vec(),
                        };
                        assert_eq!(bits(&got), bits(&expected), "{components} components, keys {a} to {b}, at {t}");
                    }
                }
            }
        }
    }

    #[test]
    fn rotations_bounded_between_keys_keep_the_keys_sampled_midpoints_keep() {
        let angle = super::super::anim_tracks::angle_between;
        // A slow drift about a wandering axis at 60 Hz, a fast spin at 24 Hz (quarter turns between
        // some keys: sampled there), and a sign flip halfway (the same rotations, the other side).
        let slow: Vec<f32> = (0..600).map(|k| k as f32 / 60.0).collect();
        let fast: Vec<f32> = (0..97).map(|k| k as f32 / 24.0).collect();
        let turn = |t: f32, speed: f32, flip: bool| {
            let axis = [(0.3 * t).sin(), (0.2 * t).cos(), 0.5];
            let length = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
            let half = speed * (t + 0.3 * (1.7 * t).sin()) / 2.0;
            let sign = if flip { -1.0 } else { 1.0 };
            [axis[0] / length * half.sin() * sign, axis[1] / length * half.sin() * sign, axis[2] / length * half.sin() * sign, half.cos() * sign]
        };
        let tracks = [
            (slow.clone(), slow.iter().flat_map(|&t| turn(t, 0.4, false)).collect::<Vec<f32>>()),
            (slow.clone(), slow.iter().flat_map(|&t| turn(t, 0.4, t > 5.0)).collect()),
            (fast.clone(), fast.iter().flat_map(|&t| turn(t, 9.0, false)).collect()),
        ];
        let mut compared = 0;
        for (input, output) in tracks {
            let s = AnimationSampler { input, output, components: 4, interpolation: "LINEAR".into() };
            for tolerance in [1e-2, 1e-3, 1e-4, 1e-5] {
                let sampled = reduce(&s, true, 0.5, Turn(tolerance, false));
                let bounded = reduce(&s, true, 0.5, Turn(tolerance, true));
                assert_eq!(sampled.is_some(), bounded.is_some(), "at {tolerance}");
                let (Some(sampled), Some(bounded)) = (sampled, bounded) else { continue };
                compared += 1;
                assert_eq!(bounded.sampler, sampled.sampler, "at {tolerance}");
                assert!(bounded.spent >= sampled.spent - 1e-9 && bounded.spent <= 0.5, "{} against {}", bounded.spent, sampled.spent);
                let (first, last) = (s.input[0], *s.input.last().unwrap());
                let worst = (0..=4000)
                    .map(|i| first + (last - first) * i as f32 / 4000.0)
                    .map(|t| angle(&sample(&bounded.sampler, t, true), &sample(&s, t, true)))
                    .fold(0.0, f64::max);
                assert!(worst <= 0.5 * tolerance * 1.01 + 1e-6, "{worst} rad against {tolerance}");
            }
        }
        assert!(compared >= 6, "{compared} of 12 tracks lost keys");
    }

    #[test]
    fn the_f64_arc_is_the_curve_segment_makes() {
        // The series against the library's sine, over its reach and past it.
        for i in 0..=1000 {
            let x = 1.6 * i as f64 / 1000.0;
            assert!((sine(x) - x.sin()).abs() <= 2e-16, "sin {x}: {} against {}", sine(x), x.sin());
        }
        // Ends from under a degree apart (interpolated linearly and normalized) to a quarter turn,
        // evaluated across the span both ways.
        let turn = |angle: f32| {
            let axis = [0.48f32, 0.6, 0.64];
            let (s, c) = ((angle / 2.0).sin(), (angle / 2.0).cos());
            [axis[0] * s, axis[1] * s, axis[2] * s, c]
        };
        for end in [0.001f32, 0.02, 0.05, 0.4, 1.0, 1.5] {
            // The end given on the far side, as a track may store it.
            let far = turn(0.3 + end).map(|v| -v);
            let s = AnimationSampler { input: vec![1.0, 2.5], output: [turn(0.3), far].concat(), components: 4, interpolation: "LINEAR".into() };
            let turns = Turns::of(&s);
            let segment = Segment::new(&s, 0, 1, true);
            // The path keeps each key on the side of the one before; a stretch's end may still
            // lie on the far side of its start (a path that turns past a half turn), which the
            // arc takes on the start's side.
            for to in [turns.path[1], turns.path[1].map(|v| -v)] {
                let arc = Arc::between(turns.path[0], to, 1.0, 2.5);
                for k in 0..=20 {
                    let t = 1.0 + 1.5 * k as f32 / 20.0;
                    let mut expected = [0.0f32; 4];
                    segment.at(t, &mut expected);
                    let got = arc.at(t);
                    let off = (0..4).map(|i| (got[i] - expected[i] as f64).abs()).fold(0.0, f64::max);
                    assert!(off < 3e-7, "{end} rad at {t}: {got:?} against {expected:?}");
                    assert!((dot4(&got, &got) - 1.0).abs() < 1e-12, "unit");
                }
            }
        }
    }

    #[test]
    fn a_key_the_screen_skips_is_still_judged() {
        // A straight run with one key knocked off the line by ten times the tolerance, at keys a
        // screen from key 0 does not look at (it looks at 1, 5, 9, … and the middle): the stretch
        // that passes the screen fails in full, and the key stays.
        for knocked in [6usize, 7, 11, 18] {
            let input: Vec<f32> = (0..40).map(|k| k as f32 / 30.0).collect();
            let output: Vec<f32> = (0..40).flat_map(|k| [k as f32 * 0.1, if k == knocked { 1e-2 } else { 0.0 }, 0.0]).collect();
            let s = linear(input, output);
            for squared in [false, true] {
                struct Squared(bool);
                impl Gap for Squared {
                    fn size(&self, kept: &[f32], source: &[f32]) -> f64 {
                        (0..3).map(|k| (kept[k] as f64 - source[k] as f64).powi(2)).sum()
                    }
                    fn units(&self, size: f64) -> f64 {
                        size.sqrt() / 1e-3
                    }
                    fn size_within(&self, units: f64) -> f64 {
                        (units * 1e-3).powi(2)
                    }
                    fn is_squared_distance(&self) -> bool {
                        self.0
                    }
                }
                let r = reduce(&s, false, 0.5, Squared(squared)).unwrap();
                assert!(r.sampler.input.contains(&s.input[knocked]), "key {knocked} went: {:?}", r.sampler.input);
                assert!(largest_gap(&r.sampler, &s, false) <= 0.5e-3, "key {knocked}");
                assert!(r.sampler.input.len() <= 6, "{:?}", r.sampler.input);
            }
        }
    }

    #[test]
    fn tracks_that_cannot_lose_a_key_stay_as_they_are() {
        // A zigzag: every key is a corner.
        let input: Vec<f32> = (0..10).map(|k| k as f32).collect();
        let output = (0..10).flat_map(|k| [(k % 2) as f32, 0.0, 0.0]).collect();
        assert!(reduce(&linear(input.clone(), output), false, 0.5, |a: &[f32], b: &[f32]| distance(a, b) / 1e-3).is_none());
        let step = AnimationSampler { interpolation: "STEP".into(), ..linear(input.clone(), vec![0.0; 30]) };
        assert!(reduce(&step, false, 0.5, distance).is_none(), "STEP tracks are left alone");
        let broken = linear(input, [vec![f32::NAN; 3], vec![0.0; 27]].concat());
        assert!(reduce(&broken, false, 0.5, distance).is_none());
    }

    #[test]
    fn a_value_that_is_not_finite_or_a_time_that_goes_back_anywhere_in_a_long_track_keeps_it_whole() {
        // A straight line of 1,000 keys loses almost all of them; one bad value or time anywhere
        // (the checks go a block at a time) leaves it alone.
        let keys = 1000;
        let input: Vec<f32> = (0..keys).map(|k| k as f32 / 30.0).collect();
        let output: Vec<f32> = (0..keys).flat_map(|k| [k as f32, 0.0, 0.0]).collect();
        let gap = |a: &[f32], b: &[f32]| distance(a, b) / 1e-3;
        assert!(reduce(&linear(input.clone(), output.clone()), false, 0.5, gap).is_some_and(|r| r.sampler.input.len() < keys / 20));
        for at in [0, 63, 64, 65, 500, keys - 1] {
            for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                let mut values = output.clone();
                values[at * 3 + 1] = bad;
                assert!(reduce(&linear(input.clone(), values), false, 0.5, gap).is_none(), "{bad} at key {at}");
                let mut times = input.clone();
                times[at] = bad;
                assert!(reduce(&linear(times, output.clone()), false, 0.5, gap).is_none(), "time {bad} at key {at}");
            }
            if at > 0 {
                let mut times = input.clone();
                times[at] = times[at - 1] - 1e-3;
                assert!(reduce(&linear(times, output.clone()), false, 0.5, gap).is_none(), "time going back at key {at}");
            }
        }
        let mut held = input.clone();
        held[64] = held[63];
        assert!(reduce(&linear(held, output), false, 0.5, gap).is_some(), "two keys at one time are not out of order");
    }

    #[test]
    fn a_long_track_that_loses_almost_nothing_early_is_not_judged_to_its_end() {
        // 8,000 keys of a slow drift with noise ten times the tolerance on most keys (three keys
        // in fifty lie on the drift, so one key in fifty can go), then the same noise only in the
        // first eighth or only after it.
        let keys = 8000;
        let input: Vec<f32> = (0..keys).map(|k| k as f32 / 120.0).collect();
        let noise = |k: usize| match (k % 50 < 3, k % 2) {
            (true, _) => 0.0,
            (false, 0) => 1e-2,
            _ => -1e-2,
        };
        let noisy: Vec<f32> = (0..keys).flat_map(|k| [input[k] + noise(k), 0.0, 0.0]).collect();
        let counted = std::cell::Cell::new(0usize);
        let gap = |a: &[f32], b: &[f32]| {
            counted.set(counted.get() + 1);
            distance(a, b) / 1e-3
        };
        assert!(reduce(&linear(input.clone(), noisy), false, 0.5, gap).is_none());
        assert!(counted.get() < keys / 4, "judged {} points", counted.get());
        // Under the threshold's length every key is judged, and the few that go, go.
        let short = keys / 4;
        let noisy_short: Vec<f32> = (0..short).flat_map(|k| [input[k] + noise(k), 0.0, 0.0]).collect();
        let r = reduce(&linear(input[..short].to_vec(), noisy_short), false, 0.5, gap).unwrap();
        assert!(r.sampler.input.len() > short * 19 / 20, "{}", r.sampler.input.len());
        // The price: noise in the first eighth keeps the smooth rest's keys too.
        let early_noise: Vec<f32> = (0..keys).flat_map(|k| [input[k] + if k < keys / 8 { noise(k) } else { 0.0 }, 0.0, 0.0]).collect();
        assert!(reduce(&linear(input.clone(), early_noise), false, 0.5, |a: &[f32], b: &[f32]| distance(a, b) / 1e-3).is_none());
        // A track that loses keys early is judged to its end.
        let late_noise: Vec<f32> = (0..keys).flat_map(|k| [input[k] + if k >= keys / 8 { noise(k) } else { 0.0 }, 0.0, 0.0]).collect();
        let r = reduce(&linear(input, late_noise), false, 0.5, |a: &[f32], b: &[f32]| distance(a, b) / 1e-3).unwrap();
        assert!(r.sampler.input.len() < keys * 15 / 16, "{}", r.sampler.input.len());
    }

    #[test]
    fn the_writer_is_asked_at_a_quarter_and_half_of_the_track_and_a_no_stops_the_search() {
        // 400 keys: a zigzag ten times the tolerance keeps every key of the first half, a straight
        // line lets almost every key of the second go.
        let keys = 400;
        let input: Vec<f32> = (0..keys).map(|k| k as f32 / 30.0).collect();
        let output: Vec<f32> = (0..keys).flat_map(|k| [if k < keys / 2 { (k % 2) as f32 * 1e-2 } else { k as f32 }, 0.0, 0.0]).collect();
        let s = linear(input, output);
        let gap = |a: &[f32], b: &[f32]| distance(a, b) / 1e-3;
        let asked = std::cell::RefCell::new(Vec::new());
        let counted = std::cell::Cell::new(0usize);
        let counting_gap = |a: &[f32], b: &[f32]| {
            counted.set(counted.get() + 1);
            gap(a, b)
        };
        let r = reduce_while_worth(&s, false, 0.5, counting_gap, |share| {
            asked.borrow_mut().push(share);
            true
        });
        let r = r.expect("the straight half loses its keys");
        assert_eq!(r.sampler, reduce(&s, false, 0.5, gap).unwrap().sampler, "asking changes nothing while the answer is yes");
        let asked = asked.into_inner();
        assert_eq!(asked.len(), 2, "{asked:?}");
        assert!(asked.iter().all(|&share| share > 0.95), "every key of the zigzag stays: {asked:?}");
        let whole = counted.replace(0);
        // Told no at a quarter, the search stops there, having judged about a quarter as much.
        let stopped = reduce_while_worth(&s, false, 0.5, counting_gap, |_| false);
        assert!(stopped.is_none());
        assert!(counted.get() * 2 < whole, "judged {} points of {whole}", counted.get());
        // Short tracks are not asked: a share of a few keys says little.
        let few = linear(s.input[..30].to_vec(), s.output[..90].to_vec());
        assert!(reduce_while_worth(&few, false, 0.5, gap, |_| panic!("asked about 30 keys")).is_none());
    }
}
