//! The codec's EXPONENTIAL filter (meshoptimizer's vertexfilter.cpp, `meshopt_encodeFilterExp`) in
//! its shared-component mode, bit for bit, four floats at a time with SSE4.1 on x86-64.

/// `output` through the codec's EXPONENTIAL filter in its shared-component mode, `floats`
/// components a key (at most 12), `bits` of mantissa, each component's exponent that of its
/// largest magnitude in `widest` (as the filter finds it over the keys, so that a run of keys
/// gets the whole track's). The filter's own arithmetic, bit for bit (meshoptimizer's
/// vertexfilter.cpp, `meshopt_encodeFilterExp`), with each component's scale worked out once: the
/// filter finds the exponents in a pass of its own and makes each scale from them float by float,
/// and took 9 % of a held-out animated model's instructions. Every float of `output` must be
/// finite and no larger than its component's widest, as `Storage::of` makes sure before it
/// chooses this filter.
///
/// A component's scale and exponent repeat every `floats` floats, so every 4-float lane of a run of
/// `lcm(floats, 4)` floats has its own fixed scales: the run is four floats a step (a multiply, an
/// add, a truncation, a minimum and a mask each), and the last keys short of a run go one float at
/// a time, as before. Not zeroed first: every byte is written.
pub(super) fn exp_bytes(output: &[f32], floats: usize, bits: i32, widest: &[f32; 12]) -> Vec<u8> {
    assert!((1..=12).contains(&floats) && (1..=24).contains(&bits), "1 to 12 floats a key, 1 to 24 bits");
    // The exponent of a float's leading bit, one past its stored one; zeros and denormals at the
    // filter's least, -100.
    let exponent = |v: f32| (((v.to_bits() >> 23) & 0xff) as i32 - 126).max(-100);
    let mut scales = [(0.0f32, 0u32); 12];
    for (scale, &w) in scales.iter_mut().zip(widest).take(floats) {
        let e = exponent(w) - (bits - 1);
        *scale = (f32::from_bits(((127 - e) as u32) << 23), (e as u32) << 24);
    }
    let keys = output.len() / floats;
    let output = &output[..keys * floats];
    let scales = &scales[..floats];
    let mut bytes: Vec<u8> = Vec::with_capacity(output.len() * 4);
    #[cfg(target_arch = "x86_64")]
    if output.len() >= FLOATS_WORTH_SIMD && is_x86_feature_detected!("sse4.1") {
        // Whole keys and whole 4-float lanes: the least common multiple of 4 and a key's floats.
        let common = match floats % 4 {
            0 => 4,
            2 => 2,
            _ => 1,
        };
        let run = floats * 4 / common;
        let whole = output.len() / run * run;
        // SAFETY: SSE4.1 is there; 4 bytes are written for each of the `whole` floats, which the
        // capacity holds, and those are the bytes kept.
        unsafe {
            simd::filter(&output[..whole], scales, run, bytes.spare_capacity_mut().as_mut_ptr().cast());
            bytes.set_len(whole * 4);
        }
    }
    let done = bytes.len() / 4;
    let rest = &output[done..];
    let spare = &mut bytes.spare_capacity_mut()[..rest.len() * 4];
    for (stored, key) in spare.chunks_exact_mut(4 * floats).zip(rest.chunks_exact(floats)) {
        for ((stored, &v), &scale) in stored.chunks_exact_mut(4).zip(key).zip(scales) {
            for (s, b) in stored.iter_mut().zip(word(v, scale).to_le_bytes()) {
                s.write(b);
            }
        }
    }
    // SAFETY: every byte up to the output's length was written, above or by the lanes.
    unsafe { bytes.set_len(output.len() * 4) };
    bytes
}

/// Floats from which a track goes four at a time. Chosen, not measured: the lanes' setup and the
/// run-time check cost tens of instructions, more than a few keys save.
#[cfg(target_arch = "x86_64")]
const FLOATS_WORTH_SIMD: usize = 64;

/// The most a mantissa is stored as: 23 bits and a sign.
const MANTISSA_MAX: i32 = (1 << 23) - 1;

/// One float stored at its component's `(scale, exponent bits)`.
fn word(v: f32, (scale, exponent_bits): (f32, u32)) -> u32 {
    // SAFETY: `v` is finite and no larger than its component's widest (above), so this is within
    // ±2^23 and truncates to an i32, as the filter's int() does.
    let m = unsafe { (v * scale + if v >= 0.0 { 0.5 } else { -0.5 }).to_int_unchecked::<i32>() }.min(MANTISSA_MAX);
    (m as u32 & 0x00ff_ffff) | exponent_bits
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use super::MANTISSA_MAX;
    use std::arch::x86_64::*;

    /// `output` (runs of `run` floats, a multiple of 4 and of the key's `scales.len()`) stored four
    /// floats at a time, each at the scale and exponent of its component: `word`'s arithmetic in
    /// each lane.
    ///
    /// # Safety
    /// SSE4.1; room at `bytes` for 4 bytes a float.
    #[target_feature(enable = "sse4.1")]
    pub(super) unsafe fn filter(output: &[f32], scales: &[(f32, u32)], run: usize, bytes: *mut u8) {
        assert!(run.is_multiple_of(4) && run.is_multiple_of(scales.len()) && run <= 48 && output.len().is_multiple_of(run));
        let at = |i: usize| scales[i % scales.len()];
        let lane = |c: usize| {
            let [a, b, c, d] = [at(4 * c), at(4 * c + 1), at(4 * c + 2), at(4 * c + 3)];
            (_mm_setr_ps(a.0, b.0, c.0, d.0), _mm_setr_epi32(a.1 as i32, b.1 as i32, c.1 as i32, d.1 as i32))
        };
        let mut lanes = [(_mm_setzero_ps(), _mm_setzero_si128()); 12];
        for (c, l) in lanes.iter_mut().enumerate().take(run / 4) {
            *l = lane(c);
        }
        let lanes = &lanes[..run / 4];
        let (half, minus_half) = (_mm_set1_ps(0.5), _mm_set1_ps(-0.5));
        let (most, low_24) = (_mm_set1_epi32(MANTISSA_MAX), _mm_set1_epi32(0x00ff_ffff));
        for (n, (four, &(scale, exponent_bits))) in output.chunks_exact(4).zip(lanes.iter().cycle()).enumerate() {
            let v = _mm_loadu_ps(four.as_ptr());
            let round = _mm_blendv_ps(minus_half, half, _mm_cmpge_ps(v, _mm_setzero_ps()));
            let m = _mm_min_epi32(_mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(v, scale), round)), most);
            _mm_storeu_si128(bytes.add(16 * n).cast(), _mm_or_si128(_mm_and_si128(m, low_24), exponent_bits));
        }
    }
}
