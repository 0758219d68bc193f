//! The scene posed by its animations: a sampler's value at a time (glTF's LINEAR with spherical
//! interpolation for rotations, STEP, CUBICSPLINE), and every node's world matrix with the
//! animated nodes at that moment. Simplification uses it to see skinned meshes as they move
//! (skin_poses.rs).
use crate::math::{compose, mul};
use crate::model::{AnimationSampler, Model, Trs};
use crate::write::decompose;

/// The node's rest transform as translation, rotation and scale (None for a matrix that is not one).
fn rest_trs(node: &crate::model::Node) -> Option<Trs> {
    node.trs.or_else(|| decompose(&node.matrix).map(|d| Trs { translation: d.t, rotation: d.q, scale: d.s }))
}

/// The sampler's value at time `t`, clamped to its first and last keys.
pub fn sample(s: &AnimationSampler, t: f32, rotation: bool) -> Vec<f32> {
    let n = s.components;
    let cubic = s.interpolation == "CUBICSPLINE";
    let stride = if cubic { 3 * n } else { n };
    let value = |k: usize| -> &[f32] {
        let at = k * stride + if cubic { n } else { 0 };
        &s.output[at..at + n]
    };
    let keys = s.input.len().min(s.output.len() / stride.max(1));
    if keys == 0 {
        return vec![0.0; n];
    }
    let finish = |v: Vec<f32>| if rotation { normalized(v) } else { v };
    if t <= s.input[0] {
        return finish(value(0).to_vec());
    }
    if t >= s.input[keys - 1] {
        return finish(value(keys - 1).to_vec());
    }
    let k = s.input[..keys].partition_point(|&time| time <= t) - 1;
    segment(s, k, k + 1, t, rotation)
}

/// The value at time `t` of the curve from key `a` straight to key `b` of `s`, as if the keys
/// between them were not there (`t` between theirs). A CUBICSPLINE segment uses `a`'s out-tangent
/// and `b`'s in-tangent over the whole span: glTF's tangents are per second.
pub fn segment(s: &AnimationSampler, a: usize, b: usize, t: f32, rotation: bool) -> Vec<f32> {
    let mut value = vec![0.0; s.components];
    Segment::new(s, a, b, rotation).at(t, &mut value);
    value
}

/// The curve from key `a` straight to key `b` of a sampler (see `segment`), set up once for
/// callers that evaluate it at many times: its kind, ends and span, and a spherical
/// interpolation's ends and angle, are worked out here, not at every point.
pub struct Segment<'a> {
    /// The start key's time and the span to the end key's.
    t0: f32,
    dt: f32,
    curve: Curve<'a>,
}

enum Curve<'a> {
    /// The start's value (a rotation normalized).
    Step(&'a [f32], bool),
    Linear(&'a [f32], &'a [f32]),
    /// Values and the tangents that shape the span: the start's out-tangent, the end's in-tangent.
    Cubic {
        from: &'a [f32],
        to: &'a [f32],
        out_tangent: &'a [f32],
        in_tangent: &'a [f32],
        rotation: bool,
    },
    /// A LINEAR rotation: both ends as unit quaternions on the same side, the angle between them
    /// (0: interpolate linearly and normalize, as for ends nearly the same) and its sine.
    Slerp([f32; 4], [f32; 4], f32, f32),
}

impl<'a> Segment<'a> {
    pub fn new(s: &'a AnimationSampler, a: usize, b: usize, rotation: bool) -> Segment<'a> {
        let n = s.components;
        let cubic = s.interpolation == "CUBICSPLINE";
        let stride = if cubic { 3 * n } else { n };
        let at = |k: usize, part: usize| -> &'a [f32] { &s.output[k * stride + part * n..k * stride + (part + 1) * n] };
        let curve = match s.interpolation.as_str() {
            "STEP" => Curve::Step(at(a, 0), rotation),
            "CUBICSPLINE" => Curve::Cubic { from: at(a, 1), to: at(b, 1), out_tangent: at(a, 2), in_tangent: at(b, 0), rotation },
            _ if rotation && n == 4 => {
                let (from, to) = (at(a, 0), at(b, 0));
                let (mut a4, mut b4) = ([from[0], from[1], from[2], from[3]], [to[0], to[1], to[2], to[3]]);
                normalize(&mut a4);
                normalize(&mut b4);
                let dot: f32 = a4.iter().zip(&b4).map(|(x, y)| x * y).sum();
                if dot < 0.0 {
                    b4.iter_mut().for_each(|x| *x = -*x);
                }
                let theta = if dot.abs() > 0.9995 { 0.0 } else { dot.abs().min(1.0).acos() };
                Curve::Slerp(a4, b4, theta, theta.sin())
            }
            _ => Curve::Linear(at(a, 0), at(b, 0)),
        };
        Segment { t0: s.input[a], dt: s.input[b] - s.input[a], curve }
    }

    /// The value at the start key's time into `out`: what `at` gives there (the start key, a
    /// rotation normalized), without a spherical interpolation's sines.
    pub fn start(&self, out: &mut [f32]) {
        match self.curve {
            Curve::Slerp(a4, _, theta, _) => {
                // At u = 0 the weights are sin θ / sin θ = 1 and sin 0 = 0 exactly: the start itself,
                // normalized once more where `at` interpolates linearly and normalizes.
                out.copy_from_slice(&a4);
                if theta == 0.0 {
                    normalize(out);
                }
            }
            _ => self.at(self.t0, out),
        }
    }

    /// The value at time `t` into `out` (`components` long).
    pub fn at(&self, t: f32, out: &mut [f32]) {
        let dt = self.dt;
        let u = if dt > 0.0 { ((t - self.t0) / dt).clamp(0.0, 1.0) } else { 0.0 };
        match self.curve {
            Curve::Step(from, rotation) => {
                out.copy_from_slice(from);
                if rotation {
                    normalize(out);
                }
            }
            Curve::Linear(from, to) => {
                for ((o, f), t) in out.iter_mut().zip(from).zip(to) {
                    *o = f + (t - f) * u;
                }
            }
            Curve::Slerp(a4, b4, theta, sine) => {
                if theta == 0.0 {
                    for i in 0..4 {
                        out[i] = a4[i] + (b4[i] - a4[i]) * u;
                    }
                    return normalize(out);
                }
                let (wa, wb) = (((1.0 - u) * theta).sin() / sine, (u * theta).sin() / sine);
                for i in 0..4 {
                    out[i] = wa * a4[i] + wb * b4[i];
                }
            }
            Curve::Cubic { from, to, out_tangent, in_tangent, rotation } => {
                let (u2, u3) = (u * u, u * u * u);
                for (i, o) in out.iter_mut().enumerate() {
                    *o = (2.0 * u3 - 3.0 * u2 + 1.0) * from[i]
                        + (u3 - 2.0 * u2 + u) * dt * out_tangent[i]
                        + (-2.0 * u3 + 3.0 * u2) * to[i]
                        + (u3 - u2) * dt * in_tangent[i];
                }
                if rotation {
                    normalize(out);
                }
            }
        }
    }
}

fn normalized(mut v: Vec<f32>) -> Vec<f32> {
    normalize(&mut v);
    v
}

fn normalize(v: &mut [f32]) {
    let length = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if length > 0.0 && length.is_finite() {
        v.iter_mut().for_each(|x| *x /= length);
    }
}

/// Every node's world matrix with animation `animation` at time `t` (None: the rest pose).
pub fn world_matrices(model: &Model, posed: Option<(usize, f32)>) -> Vec<[f32; 16]> {
    let n = model.nodes.len();
    let mut local: Vec<[f32; 16]> = model.nodes.iter().map(|node| node.matrix).collect();
    if let Some(animation) = posed.and_then(|(a, _)| model.animations.get(a)) {
        let t = posed.map_or(0.0, |(_, t)| t);
        let mut trs: Vec<Option<Trs>> = vec![None; n];
        for channel in animation.channels.iter().filter(|c| c.node < n) {
            let Some(s) = animation.samplers.get(channel.sampler) else { continue };
            let node = &model.nodes[channel.node];
            let Some(rest) = trs[channel.node].or_else(|| rest_trs(node)) else { continue };
            let mut now = rest;
            match (channel.path.as_str(), s.components) {
                ("translation", 3) => now.translation = sample(s, t, false).try_into().unwrap_or(rest.translation),
                ("rotation", 4) => now.rotation = sample(s, t, true).try_into().unwrap_or(rest.rotation),
                ("scale", 3) => now.scale = sample(s, t, false).try_into().unwrap_or(rest.scale),
                _ => continue,
            }
            trs[channel.node] = Some(now);
        }
        for (m, trs) in local.iter_mut().zip(&trs) {
            if let Some(trs) = trs {
                *m = compose(trs.translation, trs.rotation, trs.scale);
            }
        }
    }
    let mut world = vec![crate::model::IDENTITY; n];
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, [f32; 16])> = model.roots.iter().map(|&r| (r, crate::model::IDENTITY)).collect();
    while let Some((index, parent)) = stack.pop() {
        if index >= n || std::mem::replace(&mut seen[index], true) {
            continue;
        }
        world[index] = mul(&parent, &local[index]);
        stack.extend(model.nodes[index].children.iter().map(|&c| (c, world[index])));
    }
    world
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sampler(output: Vec<f32>, components: usize, interpolation: &str) -> AnimationSampler {
        AnimationSampler { input: vec![0.0, 1.0, 3.0], output, components, interpolation: interpolation.into() }
    }

    #[test]
    fn a_segment_starts_exactly_where_its_curve_does() {
        // Rotations far apart (sines), nearly the same (linear, then normalized), not unit length,
        // on opposite sides; a translation; a cubic spline; a step.
        let rotations = [
            vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.70710677, 0.0, 0.70710677, 0.0, 0.0, 0.0, 1.0],
            vec![0.1, 0.2, 0.3, 0.9, 0.1001, 0.2, 0.3, 0.9, 0.1, 0.2, 0.3, 0.9],
            vec![0.3, 0.1, 0.2, -0.9, -0.31, -0.1, -0.2, 0.9, 0.0, 0.0, 0.0, 1.0],
        ];
        let mut samplers: Vec<(AnimationSampler, bool)> = rotations.into_iter().map(|r| (sampler(r, 4, "LINEAR"), true)).collect();
        samplers.push((sampler(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], 3, "LINEAR"), false));
        samplers.push((sampler((0..27).map(|v| v as f32 * 0.3).collect(), 3, "CUBICSPLINE"), false));
        samplers.push((sampler(vec![0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], 4, "STEP"), true));
        for (s, rotation) in &samplers {
            for (a, b) in [(0, 1), (0, 2), (1, 2)] {
                let segment = Segment::new(s, a, b, *rotation);
                let (mut start, mut at) = (vec![0.0f32; s.components], vec![0.0f32; s.components]);
                segment.start(&mut start);
                segment.at(s.input[a], &mut at);
                assert_eq!(
                    start.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    at.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    "{} {a}..{b}",
                    s.interpolation
                );
            }
        }
    }

    #[test]
    fn linear_step_and_clamped_values() {
        let s = sampler(vec![0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2.0, 4.0, 0.0], 3, "LINEAR");
        assert_eq!(sample(&s, -1.0, false), vec![0.0, 0.0, 0.0]);
        assert_eq!(sample(&s, 0.5, false), vec![1.0, 0.0, 0.0]);
        assert_eq!(sample(&s, 2.0, false), vec![2.0, 2.0, 0.0]);
        assert_eq!(sample(&s, 9.0, false), vec![2.0, 4.0, 0.0]);
        let step = AnimationSampler { interpolation: "STEP".into(), ..s };
        assert_eq!(sample(&step, 0.9, false), vec![0.0, 0.0, 0.0]);
    }

    #[test]
    fn rotations_turn_at_a_steady_rate() {
        // 0 to 90 degrees about y: halfway is 45 degrees, not the chord's midpoint.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let s = sampler(vec![0.0, 0.0, 0.0, 1.0, 0.0, h, 0.0, h, 0.0, h, 0.0, h], 4, "LINEAR");
        let q = sample(&s, 0.5, true);
        let half = std::f32::consts::FRAC_PI_8;
        assert!((q[1] - half.sin()).abs() < 1e-6 && (q[3] - half.cos()).abs() < 1e-6, "{q:?}");
    }

    #[test]
    fn cubic_splines_pass_through_their_keys_and_follow_tangents() {
        // One component, keys 0 → 1 with tangents 0: a smoothstep, 0.5 at the middle.
        let s = AnimationSampler { input: vec![0.0, 1.0], output: vec![0.0, 0.0, 0.0, 0.0, 1.0, 0.0], components: 1, interpolation: "CUBICSPLINE".into() };
        assert_eq!(sample(&s, 0.0, false), vec![0.0]);
        assert!((sample(&s, 0.5, false)[0] - 0.5).abs() < 1e-6);
        assert!((sample(&s, 0.25, false)[0] - 0.15625).abs() < 1e-6);
    }
}
