//! What the vertex codec's output takes (meshoptimizer's vertexcodec.cpp, version 0, the one
//! `EXT_meshopt_compression` decoders read), counted without encoding. A track that can lose keys
//! is weighed both ways before one is written (write/skin.rs), and only the sizes are wanted: the
//! encoder writes every byte group after trying four widths for it, where the size needs only how
//! many of its bytes each width leaves out.
//!
//! The format, as far as the size goes: one header byte; then the keys in blocks (8 KB of them in
//! multiples of 16, at most 256, `codec_block_keys`), each byte of a key stored as its difference
//! from the same byte of the key before (the first key against itself), zigzagged; per block and
//! byte, a two-bit width for each group of 16 keys, four to a header byte, and each group in the
//! narrowest of: nothing (every difference 0), 2 or 4 bits a byte with the bytes that do not fit
//! (3 or 15 and up) written after them whole, or the 16 bytes as they are; last, the first key,
//! padded to at least 32 bytes.

/// Bytes the codec's output takes for `bytes`, keys of `stride` bytes: what
/// `encode_vertices(bytes, stride).len()` (write/vertex_codec.rs) is. Counted from the encoder's
/// own rows where it has SSSE3 and the keys are many (`rows_size`), else in words:
///
/// A key's bytes are read eight at a time into words and worked on side by side in them (each
/// byte's difference, zigzag and tests in its own eighth of the word, none carrying into the
/// next): a byte at a time, the count took two thirds of the encoder's instructions; in words, two
/// fifths, and under a third with one-word keys in a straight run (held-out-baked-robots' trials,
/// 381 KB in 163 tracks and key times).
pub(super) fn encoded_size(bytes: &[u8], stride: usize) -> usize {
    super::vertex_codec::rows_size(bytes, stride).unwrap_or_else(|| counted_size(bytes, stride))
}

/// The most `encoded_size` can be for `keys` keys of `stride` bytes, without reading them: every
/// group of 16 keys written whole (16 bytes for each byte of a key), with the header byte, each
/// block's widths and the tail. About the keys' own bytes, rounded up to whole groups.
pub(super) fn encoded_size_bound(keys: usize, stride: usize) -> usize {
    let block = codec_block_keys(stride);
    let (whole, rest) = (keys / block, keys % block);
    let in_block = |keys: usize| stride * (keys.div_ceil(16).div_ceil(4) + 16 * keys.div_ceil(16));
    1 + stride.max(TAIL_AT_LEAST) + whole * in_block(block) + in_block(rest)
}

/// `encoded_size` counted in words (below).
pub(super) fn counted_size(bytes: &[u8], stride: usize) -> usize {
    assert!(stride > 0 && stride <= 256 && stride.is_multiple_of(4), "the codec takes keys of 4 to 256 bytes in words");
    let keys = &bytes[..bytes.len() / stride * stride];
    let mut size = 1 + stride.max(TAIL_AT_LEAST);
    for block in keys.chunks(codec_block_keys(stride) * stride) {
        size += stride * (block.len() / stride).div_ceil(16).div_ceil(4);
    }
    // Blocks hold whole groups, so the groups are the keys' runs of 16 from the first.
    let words = stride.div_ceil(8);
    let flat = as_words(keys, stride);
    // Per word of a key, over one group, one count in each byte of: differences not 0, past 2
    // bits, past 4 bits. Each byte's difference from the key before is zigzagged side by side in
    // the words (the first key is told apart from itself, and differs in nothing).
    let mut counts = [[0u64; 3]; 32];
    let add = |counts: &mut [u64; 3], now: u64, then: u64| {
        let d = zigzag(difference(now, then));
        counts[0] += at_least(d, 1);
        counts[1] += at_least(d, 3);
        counts[2] += at_least(d, 15);
    };
    for (g, group) in flat.chunks(16 * words).enumerate() {
        let counts = &mut counts[..words];
        counts.fill([0; 3]);
        let first = g * 16 * words;
        if words == 1 {
            // Key times and rotations, most of what is weighed: a key in one word.
            let mut then = flat[first.max(1) - 1];
            for &now in group {
                add(&mut counts[0], now, then);
                then = now;
            }
        } else {
            for (key, at) in group.chunks_exact(words).zip((first..).step_by(words)) {
                let before = &flat[at.max(words) - words..at.max(words)];
                for ((&now, &then), counts) in key.iter().zip(before).zip(counts.iter_mut()) {
                    add(counts, now, then);
                }
            }
        }
        for k in 0..stride {
            let [moved, past_2, past_4] = counts[k / 8].map(|c| (c >> (8 * (k % 8))) as u8);
            size += group_size(moved, past_2, past_4);
        }
    }
    size
}

/// `keys` of `stride` bytes as little-endian words of eight bytes, `stride / 8` rounded up to a
/// key: where four bytes are left, the last word holds those and zeros.
fn as_words(keys: &[u8], stride: usize) -> Vec<u64> {
    let eight = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("eight bytes"));
    if stride.is_multiple_of(8) {
        return keys.chunks_exact(8).map(eight).collect();
    }
    let mut words = Vec::with_capacity(keys.len() / stride * stride.div_ceil(8));
    for key in keys.chunks_exact(stride) {
        let (whole, four) = key.split_at(stride - 4);
        words.extend(whole.chunks_exact(8).map(eight));
        words.push(u64::from(u32::from_le_bytes(four.try_into().expect("four bytes"))));
    }
    words
}

/// Each byte's top bit.
const TOPS: u64 = 0x8080_8080_8080_8080;
/// Each byte's lowest bit.
const ONES: u64 = 0x0101_0101_0101_0101;

/// Each byte of `a` less the same byte of `b`, wrapping within the byte.
fn difference(a: u64, b: u64) -> u64 {
    ((a | TOPS) - (b & !TOPS)) ^ ((a ^ !b) & TOPS)
}

/// Each byte's difference as the codec stores it, zigzagged: a small step down, as a step up,
/// becomes a small byte.
fn zigzag(d: u64) -> u64 {
    let negative = ((d & TOPS) >> 7) * 0xFF;
    ((d << 1) & !ONES) ^ negative
}

/// One in each byte of `d` that is `least` (1 to 127) or more, else zero.
fn at_least(d: u64, least: u8) -> u64 {
    // With its top bit set, a byte less `least` does not borrow from the next.
    ((((d | TOPS) - ONES * u64::from(least)) | d) & TOPS) >> 7
}

/// The first key ends the codec's output, after zeros that make it at least this long.
pub(super) const TAIL_AT_LEAST: usize = 32;

/// Keys (vertices) in one block of the vertex codec: 8 KB of them in multiples of 16, at most 256
/// (meshoptimizer's vertexcodec.cpp, `getVertexBlockSize`).
pub(super) fn codec_block_keys(stride: usize) -> usize {
    ((8192 / stride) & !15).clamp(16, 256)
}

/// Bytes one group of 16 takes at its narrowest width, given how many of its differences are not
/// 0, how many do not fit in 2 bits (3 and up) and in 4 (15 and up).
pub(super) fn group_size(moved: u8, past_2: u8, past_4: u8) -> usize {
    match moved {
        0 => 0,
        _ => (4 + usize::from(past_2)).min(8 + usize::from(past_4)).min(16),
    }
}

#[cfg(test)]
mod tests {
    use super::super::vertex_codec::meshoptimizer_encoded as encode_vertices;
    use super::super::vertex_codec::tests::keys;
    use super::*;
    use crate::test_random::uniform;

    #[test]
    fn the_size_counted_is_the_size_the_codec_writes() {
        let mut next = uniform(0x5eed);
        for stride in [4, 8, 12, 16, 20, 36, 48, 64, 128, 256] {
            for count in [0, 1, 2, 15, 16, 17, 31, 64, 255, 256, 257, 513, 1000, 3000] {
                for kind in 0..6 {
                    let bytes = keys(kind, stride, count, &mut next);
                    let written = encode_vertices(&bytes, stride).len();
                    assert_eq!(encoded_size(&bytes, stride), written, "stride {stride}, {count} keys, kind {kind}");
                    assert_eq!(counted_size(&bytes, stride), written, "in words: stride {stride}, {count} keys, kind {kind}");
                }
            }
        }
    }

    #[test]
    fn the_bound_is_never_under_what_the_codec_writes_and_tight_on_noise() {
        let mut next = uniform(0xb0);
        for stride in [4, 8, 12, 16, 20, 36, 48, 64, 128, 256] {
            for count in [0, 1, 2, 15, 16, 17, 31, 64, 255, 256, 257, 513, 1000, 3000] {
                let bound = encoded_size_bound(count, stride);
                for kind in 0..6 {
                    let written = encode_vertices(&keys(kind, stride, count, &mut next), stride).len();
                    assert!(written <= bound, "stride {stride}, {count} keys, kind {kind}: {written} past {bound}");
                }
                // Bytes with no pattern: every group written whole, so the bound is what is written.
                let noise: Vec<u8> = (0..stride * count.div_ceil(16) * 16).map(|_| (next() * 256.0) as u8).collect();
                let written = encode_vertices(&noise, stride).len();
                if count.is_multiple_of(16) && count > 0 {
                    assert!(written * 100 >= bound * 99, "stride {stride}, {count} keys: {written} against {bound}");
                }
            }
        }
    }

    #[test]
    fn bytes_past_the_last_whole_key_are_not_keys() {
        let bytes = keys(1, 8, 100, &mut uniform(7));
        assert_eq!(encoded_size(&bytes[..8 * 99 + 5], 8), encoded_size(&bytes[..8 * 99], 8));
    }
}
