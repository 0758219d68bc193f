//! Shorter JSON numbers: an f32 written through f64 prints its widened value
//! (`0.00012207776308059692`); written as the shortest decimal that reads back to the same f32
//! (`0.00012207776`) it is a third as long and still exact for an f32 reader. Whole numbers
//! print without a fraction (`4`, not `4.0`).
use serde_json::{json, Value};

pub fn short_f32(x: f32) -> Value {
    if x.fract() == 0.0 && x.abs() < (1u32 << 24) as f32 {
        return json!(x as i64);
    }
    if !x.is_finite() {
        return json!(x);
    }
    // The shortest decimal that reads back as the f32 (Żmij, the printer serde_json uses for its
    // own numbers); as an f64 that decimal is what serde_json prints back. Rust's `{x}` prints the
    // same decimal at several times the cost (its formatting machinery and a String per number),
    // which was a third of optimizing a model of 400 nodes. Where the f32 lies exactly halfway
    // between two shortest decimals (1.75390625), Żmij takes the even last digit and Rust the
    // upper one: such a tie is told exactly (`tie_above`), and takes the upper one, so the JSON
    // stays what it was. The decimal becomes an f64 by one exact multiplication or division where
    // both its digits and its power of ten are exact in an f64 (Clinger's fast path: correctly
    // rounded, as parsing it is); parsing it, and printing through `{x}` where a tie cannot be told
    // in 128 bits, cost about 1,000 instructions a number.
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(x);
    let decimal = match digits(text) {
        Some((d, e)) => match tie_above(x.abs(), d, e) {
            Some(true) => as_f64(d + 1, e).map(Ok).unwrap_or_else(|| format!("{}e{e}", d + 1).parse::<f64>()),
            Some(false) => as_f64(d, e).map(Ok).unwrap_or_else(|| text.trim_start_matches('-').parse::<f64>()),
            None => format!("{}", x.abs()).parse::<f64>(),
        }
        .map(|v| if x < 0.0 { -v } else { v }),
        None => format!("{x}").parse::<f64>(),
    };
    match decimal {
        Ok(v) if v.is_finite() => json!(v),
        _ => json!(x),
    }
}

/// A printed decimal (`-0.00012`, `16777218.0`, `3.4e+38`) as its digits without trailing zeros
/// and the power of ten they are scaled by, ignoring the sign; None where it is not one. One pass
/// over the bytes: splitting the text at its `e` and its point first took about as long as
/// printing it (instanced's 400 nodes, session 50).
fn digits(text: &str) -> Option<(u64, i32)> {
    let bytes = text.as_bytes();
    let bytes = bytes.strip_prefix(b"-").unwrap_or(bytes);
    let (mut d, mut fraction, mut point) = (0u64, 0i32, false);
    let mut rest = bytes.iter();
    let mut exponent = 0i32;
    while let Some(&c) = rest.next() {
        match c {
            b'0'..=b'9' => {
                d = d.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
                fraction += i32::from(point);
            }
            b'.' if !point => point = true,
            b'e' | b'E' => {
                let text = std::str::from_utf8(rest.as_slice()).ok()?;
                exponent = text.trim_start_matches('+').parse::<i32>().ok()?;
                break;
            }
            _ => return None,
        }
    }
    let mut e = exponent.checked_sub(fraction)?;
    while d != 0 && d.is_multiple_of(10) {
        d /= 10;
        e += 1;
    }
    Some((d, e))
}

/// Whether `x` (finite, not negative) lies exactly halfway between `d`·10^`e` and the decimal one
/// last digit above it, where Rust prints the upper; Some(false) where it does not; None where
/// that cannot be told in 128 bits.
fn tie_above(x: f32, d: u64, e: i32) -> Option<bool> {
    let bits = x.to_bits();
    let (m, two) = match (bits >> 23) & 0xff {
        0 => (u128::from(bits & 0x7f_ffff), -149),
        field => (u128::from(bits & 0x7f_ffff | 0x80_0000), field as i32 - 150),
    };
    // Told at once, where it can be: x is an odd number times 2^`odd_two`, with as many decimals
    // as that power's negative (an odd number times 5^k does not end in 0), none where it is not
    // negative; the halfway decimal ends in a 5 at 10^(e − 1). Equal only with as many decimals.
    if m == 0 {
        return Some(false);
    }
    let odd_two = two + m.trailing_zeros() as i32;
    if (odd_two < 0 || e - 1 < 0) && odd_two != e - 1 {
        return Some(false);
    }
    // x = m·2^two against (10d + 5)·10^(e − 1) = (10d + 5)·5^j·2^j with j = e − 1, each side's
    // power of two moved to the other where it is negative.
    let half = u128::from(d).checked_mul(10)?.checked_add(5)?;
    let j = e - 1;
    let five = |k: i32| 5u128.checked_pow(k.unsigned_abs());
    let shifted = |v: u128, by: i32| if by < 128 && v.leading_zeros() as i32 >= by { Some(v << by) } else { None };
    let (left, right) = match j >= 0 {
        true => (m, half.checked_mul(five(j)?)?),
        false => (m.checked_mul(five(j)?)?, half),
    };
    // left·2^two = right·2^j
    let (left, right) = match two - j >= 0 {
        true => (shifted(left, two - j)?, right),
        false => (left, shifted(right, j - two)?),
    };
    Some(left == right)
}

/// `d`·10^`e` as the nearest f64, where `d` and 10^|`e`| are both exact in one (at most 2^53 and
/// 10^22): one correctly rounded multiplication or division.
fn as_f64(d: u64, e: i32) -> Option<f64> {
    const POWERS: [f64; 23] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
    if d > 1 << 53 {
        return None;
    }
    let power = *POWERS.get(e.unsigned_abs() as usize)?;
    Some(if e >= 0 { d as f64 * power } else { d as f64 / power })
}

pub fn short_f32s(values: &[f32]) -> Value {
    Value::Array(values.iter().map(|&x| short_f32(x)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_read_back_to_the_same_f32() {
        assert_eq!(serde_json::to_string(&short_f32(4.0)).unwrap(), "4");
        assert_eq!(serde_json::to_string(&short_f32(-0.0)).unwrap(), "0");
        assert_eq!(serde_json::to_string(&short_f32(0.1)).unwrap(), "0.1");
        // 1.75390625, halfway between 1.7539062 and 1.7539063.
        assert_eq!(serde_json::to_string(&short_f32(449.0 / 256.0)).unwrap(), "1.7539063");
        for x in [0.000_122_077_76_f32, -0.951_057_85, 9.503_693e-6, 1e30, 16_777_217.0, f32::MIN_POSITIVE] {
            let text = serde_json::to_string(&short_f32(x)).unwrap();
            assert!(text.len() <= 16, "{text}");
            assert_eq!(text.parse::<f64>().unwrap() as f32, x, "{text}");
        }
    }

    /// Floats of few mantissa bits are where ties lie (1.75390625 is 449/256): every one with up
    /// to 12 bits, at every exponent, prints as Rust prints it, and some of them are ties.
    #[test]
    fn ties_print_as_rust_prints_them() {
        let mut ties = 0;
        for exponent in 1..255u32 {
            for top in 0..1u32 << 11 {
                let x = f32::from_bits(exponent << 23 | top << 12);
                if x.fract() == 0.0 && x.abs() < (1u32 << 24) as f32 {
                    continue;
                }
                let through_format = match format!("{x}").parse::<f64>() {
                    Ok(v) if v.is_finite() => json!(v),
                    _ => json!(x),
                };
                assert_eq!(short_f32(x), through_format, "{x}");
                let mut buffer = zmij::Buffer::new();
                let (d, e) = digits(buffer.format_finite(x)).expect("a decimal");
                ties += usize::from(tie_above(x.abs(), d, e) == Some(true));
            }
        }
        assert!(ties > 100, "{ties} ties");
    }

    /// The decimal is the one Rust's own shortest printing gives, ties included (1.75390625), so
    /// the JSON is the same as when numbers went through `format!`: every 401st f32 bit pattern
    /// (10 M), both signs.
    #[test]
    fn the_decimal_is_the_one_rust_prints() {
        let through_format = |x: f32| match format!("{x}").parse::<f64>() {
            Ok(v) if v.is_finite() => json!(v),
            _ => json!(x),
        };
        let mismatches: Vec<f32> = (0..u32::MAX / 2)
            .step_by(401)
            .flat_map(|b| [b, b | 1 << 31])
            .map(f32::from_bits)
            .filter(|&x| x.fract() != 0.0 || x.abs() >= (1u32 << 24) as f32)
            .filter(|&x| short_f32(x) != through_format(x))
            .take(10)
            .collect();
        assert!(mismatches.is_empty(), "{mismatches:?}");
    }
}
