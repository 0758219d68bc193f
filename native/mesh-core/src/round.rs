//! `f32::round` (half away from zero) without the libm call. On baseline x86-64 (no SSE4.1
//! `roundss`) `f32::round` is a call to `roundf` for every value, which cost ~5 % of writing a
//! million-vertex mesh (positions, UVs, normals on their grids); this version inlines to a few
//! instructions and lets the writer's loops stay in registers. It returns the same bits as
//! `f32::round` for every f32 but NaN, where it returns the input NaN (any NaN is as good: the
//! writer's casts turn it into 0): see the tests, and the exhaustive one run with `--ignored`.

/// From 2^23 up every f32 is a whole number, so there is nothing to round.
const ALL_WHOLE: f32 = 8_388_608.0;

/// `x.round()`: the nearest whole number, halves away from zero, the sign of zero kept.
#[inline]
pub fn round(x: f32) -> f32 {
    // NaN and the infinities round to themselves too.
    if x.is_nan() || x.abs() >= ALL_WHOLE {
        return x;
    }
    // Below 2^23 the truncation fits i32 and converts back exactly, and so does the fraction:
    // x and its whole part share the binade's grid, so their difference has no bits to lose.
    let whole = x as i32 as f32;
    let fraction = x - whole;
    let rounded = if fraction.abs() >= 0.5 { whole + 1f32.copysign(x) } else { whole };
    // -0.3 truncates to +0.0; f32::round gives -0.0.
    rounded.copysign(x)
}

/// The largest f32 below one half.
const BELOW_HALF: f32 = 0.499_999_97;

/// `x.round() as i16` without a branch, so loops of it run lanes at a time: the sum
/// x ± (largest f32 below ½) rounds up to the next whole number exactly where x's fraction is ½
/// or more (the sum's own rounding, to nearest, cannot carry a smaller fraction over: it is
/// under half a step of the result's grid from it), and the cast truncates toward zero and
/// saturates as it does after `f32::round`. NaN gives 0 both ways.
#[inline]
pub fn round_to_i16(x: f32) -> i16 {
    (x + BELOW_HALF.copysign(x)) as i16
}

#[cfg(test)]
mod tests {
    use super::{round, round_to_i16};

    /// Every f32 from 1/4 to 65,536 of both signs (where the i16 results are and the halves
    /// decide), and every 257th bit pattern of the rest (where the cast saturates).
    #[test]
    fn a_branch_free_rounding_to_i16_matches_f32_round_and_the_cast() {
        let (from, to) = (0.25f32.to_bits(), 65_536f32.to_bits());
        let wide = (from..=to).chain((0..u32::MAX).step_by(257));
        let mismatches = wide.flat_map(|b| [b, b | 1 << 31]).map(f32::from_bits).filter(|&x| round_to_i16(x) != x.round() as i16).count();
        assert_eq!(mismatches, 0);
        for x in [0.49999997, 0.5, -0.5, 1.5, 2.5, -2.5, 32766.5, 32767.4, 32767.5, -32768.5, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            assert_eq!(round_to_i16(x), x.round() as i16, "{x}");
        }
    }

    fn same(bits: u32) -> bool {
        let x = f32::from_bits(bits);
        let (fast, libm) = (round(x), x.round());
        fast.to_bits() == libm.to_bits() || (fast.is_nan() && libm.is_nan())
    }

    #[test]
    fn the_edges_match_f32_round() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            0.49999997,
            -0.49999997,
            0.50000006,
            1.5,
            2.5,
            -2.5,
            65534.5,
            65535.49,
            65535.5,
            8_388_607.5,
            -8_388_607.5,
            8_388_608.0,
            16_777_216.0,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1e-45,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        for x in edges {
            assert!(same(x.to_bits()), "{x}: {} against {}", round(x), x.round());
        }
        assert_eq!(round(0.49999997), 0.0, "adding 0.5 and truncating would give 1 here");
        assert_eq!(round(-0.3).to_bits(), (-0.0f32).to_bits());
        assert_eq!(round(2.5), 3.0);
        assert_eq!(round(-2.5), -3.0);
    }

    /// Every f32 from 1/4 to 4 (where the halves and the sign of zero decide) and every one from
    /// 2^22 to 2^25 (where the last fraction bit goes and the early return starts), both signs,
    /// and every 4,099th bit pattern of the rest: 120 M values, a few seconds in release builds.
    #[test]
    fn every_value_where_rounding_turns_matches_f32_round_and_a_wide_sample_of_the_rest() {
        let binade = |e: u32| (e << 23)..((e + 1) << 23);
        let critical = [125, 126, 127, 128, 149, 150, 151].into_iter().flat_map(binade);
        let mismatches = critical.chain((0..u32::MAX).step_by(4099)).flat_map(|b| [b, b | 1 << 31]).filter(|&b| !same(b)).count();
        assert_eq!(mismatches, 0);
    }

    /// All 2^32 bit patterns. About 10 s in a release build: run with
    /// `cargo test --release -p mesh-core round -- --ignored`.
    #[test]
    #[ignore]
    fn every_f32_matches_f32_round() {
        let mismatches = (0..=u32::MAX).filter(|&b| !same(b)).count();
        assert_eq!(mismatches, 0);
    }
}
