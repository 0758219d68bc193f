//! Checks over every value of long lists (a long take's keys are millions of floats), in runs the
//! compiler can vectorize rather than one early-out test per value: the reader's checks of every
//! key (read/skin.rs) and the key reduction's of the tracks it is handed (write/key_reduction.rs;
//! a value at a time they were a sixth of motion-capture's reduction, session 48).

/// Values checked together, without stopping inside a run.
const RUN: usize = 256;

/// Whether every value is finite.
pub fn all_finite(values: &[f32]) -> bool {
    values.chunks(RUN).all(|run| run.iter().fold(true, |finite, v| finite & v.is_finite()))
}

/// Whether every value is larger than the one before (finite values).
pub fn increasing(values: &[f32]) -> bool {
    each_with_next(values, |x, next| next > x)
}

/// Whether no value is smaller than the one before (finite values).
pub fn not_decreasing(values: &[f32]) -> bool {
    each_with_next(values, |x, next| next >= x)
}

fn each_with_next(values: &[f32], holds: impl Fn(f32, f32) -> bool) -> bool {
    let (before, after) = (&values[..values.len().saturating_sub(1)], values.get(1..).unwrap_or_default());
    before.chunks(RUN).zip(after.chunks(RUN)).all(|(a, b)| a.iter().zip(b).fold(true, |ok, (&x, &y)| ok & holds(x, y)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_checks_find_one_bad_value_anywhere() {
        let times: Vec<f32> = (0..1000).map(|k| k as f32 / 30.0).collect();
        assert!(all_finite(&times) && increasing(&times));
        assert!(increasing(&[]) && increasing(&[1.0]) && all_finite(&[]));
        // Past the first run of 256, and at the very end.
        for at in [0, 300, 998, 999] {
            let mut equal = times.clone();
            equal[at] = if at == 0 { equal[1] } else { equal[at - 1] };
            assert!(!increasing(&equal), "a repeated time at {at}");
            assert!(not_decreasing(&equal), "a repeated time at {at} is not a step back");
            for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                let mut broken = times.clone();
                broken[at] = bad;
                assert!(!all_finite(&broken), "{bad} at {at}");
            }
        }
    }
}
