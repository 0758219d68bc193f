//! Shorter JSON numbers: an f32 written through f64 prints its widened value
//! (`0.00012207776308059692`); written as the shortest decimal that reads back to the same f32
//! (`0.00012207776`) it is a third as long and still exact for an f32 reader. Whole numbers
//! print without a fraction (`4`, not `4.0`).
use serde_json::{json, Value};

pub fn short_f32(x: f32) -> Value {
    if x.fract() == 0.0 && x.abs() < (1u32 << 24) as f32 {
        return json!(x as i64);
    }
    // Rust prints the shortest decimal that round-trips the f32; as an f64 that decimal is what
    // serde_json prints back.
    match format!("{x}").parse::<f64>() {
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
        for x in [0.000_122_077_76_f32, -0.951_057_85, 9.503_693e-6, 1e30, 16_777_217.0, f32::MIN_POSITIVE] {
            let text = serde_json::to_string(&short_f32(x)).unwrap();
            assert!(text.len() <= 16, "{text}");
            assert_eq!(text.parse::<f64>().unwrap() as f32, x, "{text}");
        }
    }
}
