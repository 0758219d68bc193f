//! meshoptimizer's vertex codec, version 0 (the one `EXT_meshopt_compression` decoders read),
//! written byte for byte as meshoptimizer's encoder writes it, with SSSE3 on x86-64; elsewhere (the
//! WASM fallback, ARM, an x86-64 older than about 2008) meshoptimizer's own encoder.
//!
//! The format (codec_size.rs counts it): one header byte; the keys in blocks (`codec_block_keys`);
//! per block and per byte of a key, that byte's difference from the same byte of the key before,
//! zigzagged, for each key of the block, in groups of 16. Each group is stored at one of four
//! widths, told by two bits in a header written before the block's groups of that byte: nothing
//! (every byte 0), 2 or 4 bits a byte with the bytes that do not fit (3 or 15 and up) after them
//! whole, or the 16 bytes as they are. Last, the first key, padded to 32 bytes.
//!
//! meshoptimizer's encoder works a byte of the key at a time: it reads that byte of every key in
//! turn (a stride apart), then tries each width on each group a byte at a time, then writes it a
//! byte at a time. Here a group of 16 keys is read four bytes of a key at a time (16 loads; keys
//! of 4 and 8 bytes in whole 16-byte loads) and turned into four rows of 16 with byte shuffles,
//! each row's differences and zigzag made 16 bytes at once, and each width's fit counted from one
//! comparison and a bit count; the narrow widths are packed by shifts within 16- and 32-bit lanes. The width chosen for a group, ties included,
//! is meshoptimizer's: the narrowest output, and on a tie the width the group before took, unless
//! the group would then be stored as it is.
//!
//! Instructions, whole process (`valgrind --tool=callgrind`), optimize at the defaults:
//! motion-capture (15.6 MB of keys) 2,228 M with meshoptimizer's encoder, 1,383 M with this one
//! (`e282bc4`); the other optimize rows of the bench 5 to 12 % fewer, instanced 0.8 % fewer and
//! BoxTextured (24 vertices) 1 % more; every output the same bytes.
//!
//! The sizes the writer weighs before it encodes (codec_size.rs) are counted from these rows too,
//! where a track has 64 keys or more (session 47, `5433641` → this): held-out-animated 82.6 →
//! 77.9 M, motion-capture 1,167 → 1,142 M, held-out-baked-robots 38.6 → 38.0 M. Setting up only
//! the key's own bytes and only the rows a track needs took BoxTextured back to 2.81 M.

use super::codec_size::{codec_block_keys, TAIL_AT_LEAST};

/// `bytes`, whole keys of `stride` bytes (a multiple of 4, at most 256), through the vertex codec.
pub(super) fn encode_vertices(bytes: &[u8], stride: usize) -> Vec<u8> {
    #[cfg(target_arch = "x86_64")]
    if simd::available() {
        // SAFETY: the instructions it is compiled for are there.
        return unsafe { simd::encode(bytes, stride) };
    }
    meshoptimizer_encoded(bytes, stride)
}

/// What `encode_vertices(bytes, stride).len()` is, counted with SSSE3 from the same rows the
/// encoder makes, where the processor has it and `bytes` holds at least `KEYS_WORTH_ROWS` keys;
/// else None (codec_size.rs counts it then).
pub(super) fn rows_size(bytes: &[u8], stride: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if bytes.len() / stride >= KEYS_WORTH_ROWS && simd::available() {
        // SAFETY: the instructions it is compiled for are there.
        return Some(unsafe { simd::size(bytes, stride) });
    }
    let _ = (bytes, stride);
    None
}

/// Keys from which a size is counted from the encoder's rows: below, setting up the key before
/// each byte (256 registers) and a block of rows costs more than counting in words does.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const KEYS_WORTH_ROWS: usize = 64;

/// meshoptimizer's own encoder (vertexcodec.cpp) at version 0.
pub(super) fn meshoptimizer_encoded(bytes: &[u8], stride: usize) -> Vec<u8> {
    let count = bytes.len() / stride;
    // SAFETY: bound and encode read `count * stride` bytes from `bytes`; encode writes at most
    // `bound` bytes into `out` from its start, one after another, and says how many: those are
    // the bytes kept. (Not zeroed first: the bound is larger than the input, and zeroing it was
    // 4 % of a small animated file's instructions.)
    unsafe {
        let bound = meshopt::ffi::meshopt_encodeVertexBufferBound(count, stride);
        let mut out = Vec::with_capacity(bound);
        let size = meshopt::ffi::meshopt_encodeVertexBufferLevel(out.as_mut_ptr(), bound, bytes.as_ptr().cast(), count, stride, 2, 0);
        assert!(size > 0 && size <= bound, "the codec fits its bound");
        out.set_len(size);
        out
    }
}

/// The codec's first byte: its mark and version 0.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const HEADER: u8 = 0xa0;

/// The most the codec can write for `count` keys of `stride` bytes: a group is never stored wider
/// than as it is (16 bytes).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn bound(count: usize, stride: usize) -> usize {
    let block = codec_block_keys(stride);
    let groups = |keys: usize| keys.div_ceil(16);
    let per_block = |keys: usize| stride * (groups(keys).div_ceil(4) + 16 * groups(keys));
    1 + (count / block) * per_block(block) + per_block(count % block) + stride.max(TAIL_AT_LEAST)
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use super::super::codec_size::group_size;
    use super::{bound, codec_block_keys, HEADER, TAIL_AT_LEAST};
    use std::arch::x86_64::*;

    /// Room past the bound for a group's last 16-byte store, whatever it leaves past its end.
    const SLACK: usize = 16;

    /// Whether this processor has SSSE3 and POPCNT (every x86-64 processor since about 2008; the
    /// ones meshoptimizer's own decoder asks for): with SSE2 alone, the compiler makes the byte
    /// shuffles below out of several word shuffles each, which took half the work.
    pub(super) fn available() -> bool {
        is_x86_feature_detected!("ssse3") && is_x86_feature_detected!("popcnt")
    }

    /// # Safety
    /// SSSE3 and POPCNT (`available`).
    #[target_feature(enable = "ssse3,popcnt")]
    pub(super) unsafe fn encode(bytes: &[u8], stride: usize) -> Vec<u8> {
        assert!(stride > 0 && stride <= 256 && stride.is_multiple_of(4), "the codec takes keys of 4 to 256 bytes in words");
        let count = bytes.len() / stride;
        let keys = &bytes[..count * stride];
        let capacity = bound(count, stride) + SLACK;
        let mut out: Vec<u8> = Vec::with_capacity(capacity);
        let (first, mut before) = start(keys, stride);
        // One block's zigzagged differences, a row of `aligned` bytes per byte of the key.
        let mut rows = rows_for(count, stride);
        // `out` has `capacity` bytes; `bound` is the most the codec writes, and each write below
        // is within `SLACK` of where the output has reached (see `Writer`).
        let mut writer = Writer { out: out.spare_capacity_mut().as_mut_ptr().cast::<u8>(), at: 0, capacity };
        writer.byte(HEADER);
        for block in keys.chunks(codec_block_keys(stride) * stride) {
            let n = block.len() / stride;
            let aligned = n.div_ceil(16) * 16;
            let rows = &mut rows[..stride * aligned];
            differences(block, stride, &mut before, rows);
            for row in rows.chunks_exact(aligned) {
                // SAFETY: as above.
                unsafe { write_row(row, &mut writer) };
            }
        }
        for _ in stride..TAIL_AT_LEAST {
            writer.byte(0);
        }
        for &b in &first[..stride] {
            writer.byte(b);
        }
        let at = writer.at;
        assert!(at <= capacity - SLACK, "the codec fits its bound");
        // SAFETY: the first `at` bytes were written.
        unsafe { out.set_len(at) };
        out
    }

    /// The first key (zeros past `stride`), and the raw bytes of the key before the first group,
    /// one register a byte of the key, in lane 15 (`differences` moves it on group by group): the
    /// first key, which the first differs from in nothing.
    fn start(keys: &[u8], stride: usize) -> ([u8; 256], [__m128i; 256]) {
        let mut first = [0u8; 256];
        first[..stride].copy_from_slice(keys.get(..stride).unwrap_or(&[0; 256][..stride]));
        // SAFETY: SSE2 is part of x86-64. Only the key's own bytes are set (256 registers are
        // 4 KB, most of a small track's work).
        let mut before = [unsafe { _mm_setzero_si128() }; 256];
        for (register, &b) in before.iter_mut().zip(&first[..stride]) {
            *register = unsafe { _mm_slli_si128::<15>(_mm_cvtsi32_si128(i32::from(b))) };
        }
        (first, before)
    }

    /// Room for the rows of the largest block of `count` keys (at most 8 KB), no more: a short
    /// track's are a few hundred bytes.
    fn rows_for(count: usize, stride: usize) -> Vec<u8> {
        vec![0u8; stride * count.min(codec_block_keys(stride)).div_ceil(16) * 16]
    }

    /// The size `encode` writes, counted from the same rows: a row's width headers, then each
    /// group at its narrowest (`group_size`; meshoptimizer's tie rule picks among widths of one
    /// size).
    ///
    /// # Safety
    /// SSSE3 and POPCNT (`available`).
    #[target_feature(enable = "ssse3,popcnt")]
    pub(super) unsafe fn size(bytes: &[u8], stride: usize) -> usize {
        assert!(stride > 0 && stride <= 256 && stride.is_multiple_of(4), "the codec takes keys of 4 to 256 bytes in words");
        let keys = &bytes[..bytes.len() / stride * stride];
        let (_, mut before) = start(keys, stride);
        let mut rows = rows_for(keys.len() / stride, stride);
        let mut size = 1 + stride.max(TAIL_AT_LEAST);
        for block in keys.chunks(codec_block_keys(stride) * stride) {
            let aligned = (block.len() / stride).div_ceil(16) * 16;
            let rows = &mut rows[..stride * aligned];
            differences(block, stride, &mut before, rows);
            for row in rows.chunks_exact(aligned) {
                size += row.len().div_ceil(64);
                for group in row.chunks_exact(16) {
                    let (zero, past_2, past_4) = fits(_mm_loadu_si128(group.as_ptr().cast()));
                    size += group_size(u8::from(!zero), past_2.count_ones() as u8, past_4.count_ones() as u8);
                }
            }
        }
        size
    }

    /// Whether a group's 16 bytes are all 0, and which do not fit in 2 bits (3 and up) and in 4
    /// (15 and up): the largest of a byte and the width's sentinel is the byte itself.
    #[inline(always)]
    fn fits(v: __m128i) -> (bool, u32, u32) {
        // SAFETY: SSE2 is part of x86-64.
        unsafe {
            let zero = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) == 0xffff;
            let past = |sentinel: i8| _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(sentinel)), v)) as u32;
            (zero, past(3), past(15))
        }
    }

    /// Where the output has reached in a buffer of `capacity` bytes. A single byte is checked to
    /// stay within it; the wider writes, in debug builds.
    struct Writer {
        out: *mut u8,
        at: usize,
        capacity: usize,
    }

    impl Writer {
        fn byte(&mut self, b: u8) {
            assert!(self.at < self.capacity);
            // SAFETY: checked just above.
            unsafe { self.out.add(self.at).write(b) };
            self.at += 1;
        }

        /// 16 bytes stored at the end of the output, of which the first `keep` are kept.
        ///
        /// # Safety
        /// The output plus 16 bytes must lie within the buffer: the bound leaves `SLACK` past the
        /// most the codec writes.
        #[inline(always)]
        unsafe fn sixteen(&mut self, v: __m128i, keep: usize) {
            debug_assert!(self.at + 16 <= self.capacity);
            _mm_storeu_si128(self.out.add(self.at).cast(), v);
            self.at += keep;
        }
    }

    /// Each byte of `block`'s keys less the same byte of the key before (`before` holds the key
    /// before the block's first, and is left holding its last), zigzagged, into `rows`: row k holds
    /// byte k of every key, in groups of 16, the last group padded with zeros.
    ///
    /// # Safety
    /// SSSE3 and POPCNT (`available`).
    #[target_feature(enable = "ssse3,popcnt")]
    unsafe fn differences(block: &[u8], stride: usize, before: &mut [__m128i; 256], rows: &mut [u8]) {
        let n = block.len() / stride;
        let aligned = rows.len() / stride;
        for base in (0..aligned).step_by(16) {
            let keys = (n - base).min(16);
            if keys == 16 {
                group_differences(&block[base * stride..(base + 16) * stride], stride, 16, before, &mut rows[base..], aligned);
            } else {
                // The block's last group, short: its keys followed by zeros.
                let mut padded = vec![0u8; 16 * stride];
                padded[..keys * stride].copy_from_slice(&block[base * stride..]);
                group_differences(&padded[..16 * stride], stride, keys, before, &mut rows[base..], aligned);
            }
        }
    }

    /// The differences of one group of 16 keys (`group`, of which the first `keys` are keys and
    /// the rest zeros, left out as zeros), into `rows` (row k, byte k of each key, starts at
    /// `k * row_length`).
    ///
    /// # Safety
    /// SSSE3 and POPCNT (`available`).
    #[target_feature(enable = "ssse3,popcnt")]
    #[inline]
    unsafe fn group_differences(group: &[u8], stride: usize, keys: usize, before: &mut [__m128i; 256], rows: &mut [u8], row_length: usize) {
        assert!(group.len() == 16 * stride && rows.len() >= (stride - 1) * row_length + 16);
        let inside = _mm_cmpgt_epi8(_mm_set1_epi8(keys as i8), _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
        let p = group.as_ptr();
        let rows = rows.as_mut_ptr();
        // Sixteen keys' w-th words, four keys to a register: the rows of bytes 4w to 4w + 3.
        let mut put = |w: usize, quads: [__m128i; 4]| {
            for (b, now) in transposed(quads).into_iter().enumerate() {
                let k = 4 * w + b;
                let then = _mm_or_si128(_mm_slli_si128::<1>(now), _mm_srli_si128::<15>(before[k]));
                before[k] = now;
                let d = _mm_sub_epi8(now, then);
                let zigzag = _mm_xor_si128(_mm_add_epi8(d, d), _mm_cmpgt_epi8(_mm_setzero_si128(), d));
                // SAFETY: within `rows` (asserted above).
                _mm_storeu_si128(rows.add(k * row_length).cast(), _mm_and_si128(zigzag, inside));
            }
        };
        // SAFETY (the loads): within `group`, whose length is asserted above.
        let load = |at: usize| _mm_loadu_si128(p.add(at).cast());
        match stride {
            4 => put(0, [load(0), load(16), load(32), load(48)]),
            8 => {
                // Two keys a load; each key's first words, then its second, gathered four keys
                // at a time.
                let pairs: [__m128i; 8] = std::array::from_fn(|j| load(16 * j));
                let words = |j: usize, which: i32| {
                    let (a, b) = (_mm_castsi128_ps(pairs[2 * j]), _mm_castsi128_ps(pairs[2 * j + 1]));
                    _mm_castps_si128(if which == 0 { _mm_shuffle_ps::<0x88>(a, b) } else { _mm_shuffle_ps::<0xdd>(a, b) })
                };
                put(0, std::array::from_fn(|j| words(j, 0)));
                put(1, std::array::from_fn(|j| words(j, 1)));
            }
            _ => {
                for w in 0..stride / 4 {
                    let word = |i: usize| p.add(i * stride + 4 * w).cast::<i32>().read_unaligned();
                    put(w, std::array::from_fn(|q| _mm_setr_epi32(word(4 * q), word(4 * q + 1), word(4 * q + 2), word(4 * q + 3))));
                }
            }
        }
    }

    /// Sixteen keys' words, four keys to a register, as four registers of one byte of the word
    /// from each of the 16 keys in turn: three rounds of interleaving bytes, then halves.
    #[inline(always)]
    fn transposed(words: [__m128i; 4]) -> [__m128i; 4] {
        // SAFETY: SSE2 is part of x86-64.
        unsafe {
            let round =
                |[x0, x1, x2, x3]: [__m128i; 4]| [_mm_unpacklo_epi8(x0, x1), _mm_unpackhi_epi8(x0, x1), _mm_unpacklo_epi8(x2, x3), _mm_unpackhi_epi8(x2, x3)];
            let [c0, c1, c2, c3] = round(round(round(words)));
            [_mm_unpacklo_epi64(c0, c2), _mm_unpackhi_epi64(c0, c2), _mm_unpacklo_epi64(c1, c3), _mm_unpackhi_epi64(c1, c3)]
        }
    }

    /// One row (one byte of each key of a block, zigzagged, in groups of 16): the groups' widths,
    /// four to a header byte, then each group at its width.
    ///
    /// # Safety
    /// SSSE3 and POPCNT, and room in the writer for the row at its widest plus `SLACK`.
    #[target_feature(enable = "ssse3,popcnt")]
    unsafe fn write_row(row: &[u8], writer: &mut Writer) {
        let groups = row.len() / 16;
        let header_at = writer.at;
        for _ in 0..groups.div_ceil(4) {
            writer.byte(0);
        }
        let mut last_bits = u8::MAX;
        for (g, group) in row.chunks_exact(16).enumerate() {
            let v = _mm_loadu_si128(group.as_ptr().cast());
            let (zero, past_2, past_4) = fits(v);
            // meshoptimizer's choice: from as-is (16 bytes), the narrowest of 0, 2 and 4 bits,
            // in that order, and on a tie the width the group before took, unless the best so far
            // is as-is.
            let mut best = (3usize, 8u8, 16usize);
            for (k, bits, size) in
                [(0, 0u8, if zero { 0 } else { usize::MAX }), (1, 2, 4 + past_2.count_ones() as usize), (2, 4, 8 + past_4.count_ones() as usize)]
            {
                if size < best.2 || (size == best.2 && bits == last_bits && best.1 != 8) {
                    best = (k, bits, size);
                }
            }
            let (k, bits, _) = best;
            let header = writer.out.add(header_at + g / 4);
            header.write(*header | (k as u8) << ((g % 4) * 2));
            match bits {
                0 => {}
                2 => {
                    // Each byte at most 3; in each 16-bit lane, two bytes into four bits (the
                    // first high), then in each 32-bit lane two of those into a byte.
                    let e = _mm_min_epu8(v, _mm_set1_epi8(3));
                    let pairs = _mm_and_si128(_mm_or_si128(_mm_slli_epi16::<2>(e), _mm_srli_epi16::<8>(e)), _mm_set1_epi16(0x0f));
                    let quads = _mm_and_si128(_mm_or_si128(_mm_slli_epi32::<4>(pairs), _mm_srli_epi32::<16>(pairs)), _mm_set1_epi32(0xff));
                    let packed = _mm_packus_epi16(_mm_packs_epi32(quads, quads), _mm_setzero_si128());
                    writer.sixteen(packed, 4);
                    exceptions(group, past_2, writer);
                }
                4 => {
                    let e = _mm_min_epu8(v, _mm_set1_epi8(15));
                    let pairs = _mm_and_si128(_mm_or_si128(_mm_slli_epi16::<4>(e), _mm_srli_epi16::<8>(e)), _mm_set1_epi16(0xff));
                    writer.sixteen(_mm_packus_epi16(pairs, pairs), 8);
                    exceptions(group, past_4, writer);
                }
                _ => writer.sixteen(v, 16),
            }
            last_bits = bits;
        }
    }

    /// The bytes of `group` that `mask` marks, in order, whole.
    ///
    /// # Safety
    /// Room in the writer for 16 bytes: a group written with its exceptions is never wider than
    /// the 16 bytes the bound gives it.
    #[inline(always)]
    unsafe fn exceptions(group: &[u8], mut mask: u32, writer: &mut Writer) {
        debug_assert!(writer.at + 16 <= writer.capacity);
        let out = writer.out.add(writer.at);
        let mut written = 0;
        while mask != 0 {
            out.add(written).write(group[mask.trailing_zeros() as usize]);
            written += 1;
            mask &= mask - 1;
        }
        writer.at += written;
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::test_random::uniform;

    /// Keys of `stride` bytes, `count` of them, made by `kind`: random bytes, floats along smooth
    /// curves, one key repeated, small noise on a constant, runs of holds and moves, or bytes that
    /// step by amounts near each width's sentinel (2 to 4 and 14 to 16 either way).
    pub(in crate::write) fn keys(kind: usize, stride: usize, count: usize, next: &mut impl FnMut() -> f32) -> Vec<u8> {
        let floats = stride / 4;
        let mut out = Vec::with_capacity(stride * count);
        let phases: Vec<f32> = (0..floats).map(|_| next() * 6.0).collect();
        let mut stepped = vec![0u8; stride];
        for k in 0..count {
            if kind == 5 {
                for b in stepped.iter_mut() {
                    let step = [0u8, 1, 2, 3, 4, 14, 15, 16][(next() * 8.0) as usize];
                    *b = if next() < 0.5 { b.wrapping_add(step) } else { b.wrapping_sub(step) };
                }
                out.extend_from_slice(&stepped);
                continue;
            }
            for (c, &phase) in phases.iter().enumerate() {
                let t = k as f32 * 0.03;
                let v = match kind {
                    0 => f32::from_bits(((next() * 65536.0) as u32) << 16 | (next() * 65536.0) as u32),
                    1 => (t + phase).sin() * (c as f32 + 1.0),
                    2 => phase,
                    3 => phase + next() * 1e-4,
                    _ => ((k / 40) as f32 + if (k / 20) % 2 == 0 { 0.0 } else { (k % 20) as f32 / 20.0 }) * phase,
                };
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    #[test]
    fn the_bytes_are_meshoptimizers() {
        let mut next = uniform(0xc0de);
        for stride in [4, 8, 12, 16, 20, 24, 36, 48, 64, 100, 128, 252, 256] {
            for count in [0, 1, 2, 15, 16, 17, 31, 33, 64, 255, 256, 257, 513, 1000, 3000] {
                for kind in 0..6 {
                    let bytes = keys(kind, stride, count, &mut next);
                    assert_eq!(encode_vertices(&bytes, stride), meshoptimizer_encoded(&bytes, stride), "stride {stride}, {count} keys, kind {kind}");
                }
            }
        }
    }

    #[test]
    fn bytes_past_the_last_whole_key_are_not_encoded() {
        let bytes = keys(1, 12, 100, &mut uniform(3));
        assert_eq!(encode_vertices(&bytes[..12 * 99 + 7], 12), meshoptimizer_encoded(&bytes[..12 * 99], 12));
    }

    #[test]
    fn the_output_decodes_to_the_keys() {
        let bytes = keys(5, 16, 700, &mut uniform(11));
        let decoded: Vec<[u8; 16]> = meshopt::decode_vertex_buffer(&encode_vertices(&bytes, 16), 700).expect("decodes");
        assert_eq!(decoded.concat(), bytes);
    }

    #[test]
    fn the_bound_holds_for_keys_that_never_repeat() {
        for stride in [4, 8, 64, 256] {
            for count in [0, 1, 16, 300, 1000] {
                let bytes = keys(0, stride, count, &mut uniform(stride as u32));
                assert!(encode_vertices(&bytes, stride).len() <= bound(count, stride));
            }
        }
    }
}
