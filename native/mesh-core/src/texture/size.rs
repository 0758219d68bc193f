//! Output dimensions of a texture: the longest side at most `max_size`, keeping the aspect ratio;
//! a power-of-two image stays power-of-two (mipmapping and wrap modes on old GPUs need it, and
//! halving keeps texels aligned), and Basis Universal output is kept on whole 4x4 blocks, which
//! KHR_texture_basisu requires.

/// Largest power of two not above `n` (n >= 1).
fn floor_pow2(n: u32) -> u32 {
    1 << (31 - n.max(1).leading_zeros())
}

/// Nearest multiple of 4, at least 4.
fn block_aligned(n: u32) -> u32 {
    (n.saturating_add(2) / 4 * 4).max(4)
}

pub fn target_size(width: u32, height: u32, max_size: Option<u32>, whole_blocks: bool) -> (u32, u32) {
    let longest = width.max(height);
    let limit = max_size.unwrap_or(longest).max(1);
    let (mut w, mut h) = if longest <= limit {
        (width, height)
    } else if width.is_power_of_two() && height.is_power_of_two() {
        // Halving both sides until the longest fits keeps power-of-two sides and the ratio.
        let shift = (longest / floor_pow2(limit)).trailing_zeros();
        ((width >> shift).max(1), (height >> shift).max(1))
    } else {
        let scale = f64::from(limit) / f64::from(longest);
        let fit = |side: u32| ((f64::from(side) * scale).round() as u32).clamp(1, limit);
        (fit(width), fit(height))
    };
    if whole_blocks {
        w = block_aligned(w);
        h = block_aligned(h);
    }
    (w, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_of_two_sides_halve_until_they_fit() {
        assert_eq!(target_size(4096, 2048, Some(1024), false), (1024, 512));
        assert_eq!(target_size(4096, 4096, Some(1000), false), (512, 512));
        assert_eq!(target_size(2048, 2048, None, false), (2048, 2048));
        assert_eq!(target_size(256, 256, Some(4096), false), (256, 256));
    }

    #[test]
    fn other_sides_scale_with_the_ratio_and_basis_output_is_on_whole_blocks() {
        assert_eq!(target_size(3000, 1500, Some(1000), false), (1000, 500));
        assert_eq!(target_size(3000, 1500, Some(1000), true), (1000, 500));
        assert_eq!(target_size(211, 97, None, true), (212, 96));
        assert_eq!(target_size(2, 1, None, true), (4, 4));
    }
}
