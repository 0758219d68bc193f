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
    // upper one; only an even last digit can be such a case, and those go through `{x}`, so the
    // JSON stays what it was.
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(x);
    let last_digit = text.split('e').next().and_then(|digits| digits.bytes().last()).unwrap_or(b'0');
    let decimal = match last_digit % 2 {
        1 => text.parse::<f64>(),
        _ => format!("{x}").parse::<f64>(),
    };
    match decimal {
        Ok(v) if v.is_finite() => json!(v),
        _ => json!(x),
    }
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
