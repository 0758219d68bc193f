//! PSNR of a decoded texture against its source: 10 log10(255^2 / MSE) over the RGB channels
//! (and alpha when the source has any), the figure texture codecs are compared by.

/// PSNR in dB of `decoded` against `source`, both RGBA of the same size; infinite when equal.
pub fn psnr_rgba(source: &[u8], decoded: &[u8]) -> f64 {
    assert_eq!(source.len(), decoded.len(), "images of different sizes");
    let with_alpha = source.chunks_exact(4).any(|p| p[3] != 255);
    let channels = if with_alpha { 4 } else { 3 };
    let mut squared = 0u64;
    for (s, d) in source.chunks_exact(4).zip(decoded.chunks_exact(4)) {
        for c in 0..channels {
            let diff = i64::from(s[c]) - i64::from(d[c]);
            squared += (diff * diff) as u64;
        }
    }
    let samples = (source.len() / 4 * channels).max(1) as f64;
    let mse = squared as f64 / samples;
    if mse == 0.0 {
        f64::INFINITY
    } else {
        10.0 * (255.0f64 * 255.0 / mse).log10()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_images_are_infinite_and_an_off_by_one_image_is_48_db() {
        let source = vec![10, 20, 30, 255, 40, 50, 60, 255];
        assert_eq!(psnr_rgba(&source, &source), f64::INFINITY);
        let off: Vec<u8> = source.iter().enumerate().map(|(i, &v)| if i % 4 == 3 { v } else { v + 1 }).collect();
        assert!((psnr_rgba(&source, &off) - 48.1308).abs() < 1e-3);
    }
}
