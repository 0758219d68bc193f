//! The codec's QUATERNION filter (meshoptimizer's vertexfilter.cpp, `meshopt_encodeFilterQuat`),
//! bit for bit, four rotations at a time with SSE4.1 on x86-64; elsewhere, and for the last one to
//! three rotations of a track, meshoptimizer's own filter.
//!
//! Per rotation (x, y, z, w): the component of largest magnitude (the first of equals) is
//! dropped, and its index kept in the low bits of the fourth word; the other three, in the order
//! that follows it round, times √2 and times the dropped one's sign (the rotation's double cover),
//! become signed `bits`-bit words as `meshopt_quantizeSnorm` makes them: clamped to [-1, 1],
//! scaled, ±0.5, truncated. meshoptimizer works a rotation at a time with a branch per choice;
//! here four rotations are turned into four registers of x, y, z and w, and every choice is a
//! comparison and a blend, in the same order and float arithmetic (no fused multiply-add).
//! Motion-capture's 1.8 M rotation keys went through meshoptimizer's filter in 197 M of the 1,383 M
//! instructions of its optimize; four at a time they take about 60 M.

/// Rotation keys (x, y, z, w) through the QUATERNION filter at `bits` (4 to 16): four 16-bit
/// little-endian words a key.
pub(super) fn quaternion_bytes(output: &[f32], bits: i32) -> Vec<u8> {
    assert!((4..=16).contains(&bits), "the filter takes 4 to 16 bits");
    let keys = output.len() / 4;
    // Not zeroed first: every byte is written (zeroing was about a quarter of the filter's work on
    // motion-capture, 15 M instructions).
    let mut bytes: Vec<u8> = Vec::with_capacity(keys * 8);
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("sse4.1") {
        let done = keys / 4 * 4;
        // SAFETY: SSE4.1 is there; the filter writes 8 bytes for each of `done` keys, which the
        // capacity holds, and those are the bytes kept.
        unsafe {
            simd::filter(&output[..done * 4], bits, bytes.spare_capacity_mut().as_mut_ptr().cast());
            bytes.set_len(done * 8);
        }
    }
    let done = bytes.len() / 8;
    bytes.extend(meshoptimizer_filtered(&output[done * 4..keys * 4], bits));
    bytes
}

/// meshoptimizer's filter over `output`'s keys: 8 bytes a key.
fn meshoptimizer_filtered(output: &[f32], bits: i32) -> Vec<u8> {
    let keys = output.len() / 4;
    let mut words = vec![0i16; keys * 4];
    if keys > 0 {
        // SAFETY: the filter reads `keys` rotations of four floats from `output` and writes as
        // many keys of four 16-bit words into `words`, which holds exactly that.
        unsafe { meshopt::ffi::meshopt_encodeFilterQuat(words.as_mut_ptr().cast(), keys, 8, bits, output.as_ptr()) };
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    /// # Safety
    /// SSE4.1; `output` holds a multiple of four keys, and `bytes` has room for 8 bytes each.
    #[target_feature(enable = "sse4.1")]
    pub(super) unsafe fn filter(output: &[f32], bits: i32, bytes: *mut u8) {
        assert!(output.len().is_multiple_of(16));
        let scale = ((1 << (bits - 1)) - 1) as f32;
        let root_2 = _mm_set1_ps(2f32.sqrt());
        let scale = _mm_set1_ps(scale);
        let (one, minus_one) = (_mm_set1_ps(1.0), _mm_set1_ps(-1.0));
        let (half, minus_half) = (_mm_set1_ps(0.5), _mm_set1_ps(-0.5));
        let magnitude = _mm_castsi128_ps(_mm_set1_epi32(0x7fff_ffff));
        let sign_bit = _mm_castsi128_ps(_mm_set1_epi32(i32::MIN));
        // The fourth word: the filter's 1.0 with its low two bits for the index dropped.
        let fourth = _mm_set1_epi32(((1 << (bits - 1)) - 1) & !3);
        let snorm = |v: __m128| {
            let round = _mm_blendv_ps(minus_half, half, _mm_cmpge_ps(v, _mm_setzero_ps()));
            // Clamped as the filter does: below -1 (or not a number) is -1, above 1 is 1.
            let v = _mm_blendv_ps(minus_one, v, _mm_cmpge_ps(v, minus_one));
            let v = _mm_blendv_ps(one, v, _mm_cmple_ps(v, one));
            _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(v, scale), round))
        };
        for (n, keys) in output.chunks_exact(16).enumerate() {
            let stored = bytes.add(32 * n);
            let load = |k: usize| _mm_loadu_ps(keys[4 * k..4 * k + 4].as_ptr());
            let (mut x, mut y, mut z, mut w) = (load(0), load(1), load(2), load(3));
            _MM_TRANSPOSE4_PS(&mut x, &mut y, &mut z, &mut w);
            // The first component of largest magnitude, as the filter's three strict tests.
            let mut largest = _mm_and_ps(x, magnitude);
            let mut index = _mm_setzero_si128();
            let mut chosen = x;
            for (k, c) in [(1, y), (2, z), (3, w)] {
                let a = _mm_and_ps(c, magnitude);
                let above = _mm_cmpgt_ps(a, largest);
                largest = _mm_blendv_ps(largest, a, above);
                chosen = _mm_blendv_ps(chosen, c, above);
                index = _mm_blendv_epi8(index, _mm_set1_epi32(k), _mm_castps_si128(above));
            }
            // Times the sign of the one dropped: -1 where it is below 0, else 1 (negating is
            // exact, as is multiplying by ±1).
            let negative = _mm_and_ps(_mm_cmplt_ps(chosen, _mm_setzero_ps()), sign_bit);
            let is = |k: i32| _mm_castsi128_ps(_mm_cmpeq_epi32(index, _mm_set1_epi32(k)));
            let (at_0, at_1, at_2) = (is(0), is(1), is(2));
            // The components after the dropped one, round: dropped x gives y, z, w; y gives z, w,
            // x; z gives w, x, y; w gives x, y, z.
            let after = |a: __m128, b: __m128, c: __m128, d: __m128| _mm_blendv_ps(_mm_blendv_ps(_mm_blendv_ps(d, c, at_2), b, at_1), a, at_0);
            let words = [after(y, z, w, x), after(z, w, x, y), after(w, x, y, z)].map(|c| snorm(_mm_xor_ps(_mm_mul_ps(c, root_2), negative)));
            let last = _mm_or_si128(fourth, index);
            let low = _mm_packs_epi32(words[0], words[1]);
            let high = _mm_packs_epi32(words[2], last);
            let (odd, even) = (_mm_unpacklo_epi16(low, high), _mm_unpackhi_epi16(low, high));
            _mm_storeu_si128(stored.cast(), _mm_unpacklo_epi16(odd, even));
            _mm_storeu_si128(stored.add(16).cast(), _mm_unpackhi_epi16(odd, even));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::uniform;

    #[test]
    fn the_words_are_meshoptimizers() {
        let mut next = uniform(0x9a7);
        let mut rotations: Vec<f32> = Vec::new();
        // Unit rotations, unnormalized ones, ties between components (equal magnitudes either
        // sign), signed zeros, components past ±1, and not-a-number.
        for _ in 0..4000 {
            let q: [f32; 4] = std::array::from_fn(|_| next() * 2.0 - 1.0);
            let length = q.iter().map(|c| c * c).sum::<f32>().sqrt();
            rotations.extend(q.map(|c| c / length));
            rotations.extend(q);
        }
        let tied = [
            [0.5, -0.5, 0.5, -0.5],
            [0.0, -0.0, 0.0, 1.0],
            [-0.0; 4],
            [0.6, 0.6, -0.6, 0.0],
            [0.0, 0.0, -std::f32::consts::FRAC_1_SQRT_2, std::f32::consts::FRAC_1_SQRT_2],
        ];
        let odd = [[1.5, -2.0, 0.0, 0.1], [f32::NAN, 0.5, 0.5, 0.5], [0.5, f32::NAN, 0.1, 0.2], [f32::INFINITY, 0.0, 0.0, 0.0], [1e-40, -1e-40, 0.0, 0.0]];
        for q in tied.iter().chain(&odd) {
            rotations.extend(q);
        }
        for bits in 4..=16 {
            for keys in [0, 1, 3, 4, 5, 8, 17, rotations.len() / 4] {
                let output = &rotations[rotations.len() - keys * 4..];
                assert_eq!(quaternion_bytes(output, bits), meshoptimizer_filtered(output, bits), "{keys} keys at {bits} bits");
            }
        }
    }
}
