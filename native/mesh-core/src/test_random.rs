//! Seeded random numbers for tests: the same sequence on every run and every machine.

/// Floats uniform in [0, 1) from `seed`: a 32-bit linear congruential generator (multiplier
/// 1,664,525, increment 1,013,904,223), its top 24 bits a float's mantissa.
pub fn uniform(seed: u32) -> impl FnMut() -> f32 {
    let mut state = seed;
    move || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 8) as f32 / (1u32 << 24) as f32
    }
}
