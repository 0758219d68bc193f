//! Finds, for each vertex, the first vertex whose key (its float bits, or its written bytes) is
//! the same: the step both welds (mesh_ops.rs at input precision, write/weld_quantized.rs at
//! output precision) are built on.
//!
//! A general-purpose map spent most of the weld time on million-vertex meshes: its buckets held a
//! slice reference per key (48 MB for a million 12-byte keys) and every probe followed it. This is
//! an open-addressing table with linear probing sized once to twice the vertex count, each slot a
//! single 64-bit word holding 32 bits of the key's hash beside the vertex number, so a probe that
//! meets another key is settled without reading that key; keys are compared only when their
//! hashes agree, which is almost always a real duplicate.

/// A vertex's key as the welds see it, read where the vertex's data already is: building an
/// array of keys first cost as much as the table itself (a write of every vertex, and its pages).
pub trait VertexKeys {
    fn count(&self) -> usize;
    /// Feeds the vertex's key to `hash`, word after word.
    fn hash(&self, v: usize, hash: &mut KeyHash);
    fn equal(&self, a: usize, b: usize) -> bool;
}

/// For each vertex, the index of the first vertex whose key is equal to its own, and how many
/// distinct keys there are.
pub fn first_of_equal(keys: &impl VertexKeys) -> (Vec<u32>, usize) {
    let count = keys.count();
    assert!(count < u32::MAX as usize, "vertex numbers fit in 32 bits");
    let slots = (count * 2).next_power_of_two().max(16);
    let mask = slots - 1;
    // 0 marks an empty slot, so a slot stores the vertex number plus one in its low half.
    let mut table = vec![0u64; slots];
    let mut first = Vec::with_capacity(count);
    let mut distinct = 0;
    // The table is far larger than the caches on big meshes, so nearly every vertex's slot is a
    // miss: the slots of a batch are fetched ahead, their misses overlapping, before any is read
    // (session 34, optimize's core time: held-out terrain, 361,201 vertices, 428 → 310 ms;
    // sphere-2m 1,085 → 809 ms; the same bytes written).
    let mut hashes = [0u64; BATCH];
    for start in (0..count).step_by(BATCH) {
        let batch = BATCH.min(count - start);
        for (k, hash) in hashes[..batch].iter_mut().enumerate() {
            let mut h = KeyHash::default();
            keys.hash(start + k, &mut h);
            *hash = h.finish();
            prefetch(&table[*hash as usize & mask]);
        }
        for (k, &hash) in hashes[..batch].iter().enumerate() {
            let v = start + k;
            let tag = hash >> 32;
            let mut slot = hash as usize & mask;
            loop {
                let entry = table[slot];
                if entry == 0 {
                    table[slot] = tag << 32 | (v as u64 + 1);
                    first.push(v as u32);
                    distinct += 1;
                    break;
                }
                if entry >> 32 == tag {
                    let other = (entry as u32 - 1) as usize;
                    if keys.equal(other, v) {
                        first.push(other as u32);
                        break;
                    }
                }
                slot = (slot + 1) & mask;
            }
        }
    }
    (first, distinct)
}

/// Vertices whose slots are fetched together.
const BATCH: usize = 16;

/// Asks the processor to bring `at`'s cache line in without waiting for it.
#[inline(always)]
fn prefetch(at: &u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it reads nothing the program sees and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((at as *const u64).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// A multiply-rotate hash of 32-bit words, then a final avalanche so that both the low bits (the
/// slot) and the high bits (the tag) depend on every input bit.
#[derive(Default)]
pub struct KeyHash(u64);

impl KeyHash {
    pub fn word(&mut self, w: u32) {
        self.0 = (self.0.rotate_left(26) ^ u64::from(w)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    /// Bytes as little-endian words, the last one zero-padded.
    pub fn bytes(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(4);
        for w in &mut words {
            self.word(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 4];
            last[..rest.len()].copy_from_slice(rest);
            self.word(u32::from_le_bytes(last));
        }
    }

    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys of `words` words each, back to back.
    struct Words<'a>(&'a [u32], usize);

    impl VertexKeys for Words<'_> {
        fn count(&self) -> usize {
            self.0.len() / self.1
        }
        fn hash(&self, v: usize, hash: &mut KeyHash) {
            self.0[v * self.1..(v + 1) * self.1].iter().for_each(|&w| hash.word(w));
        }
        fn equal(&self, a: usize, b: usize) -> bool {
            self.0[a * self.1..(a + 1) * self.1] == self.0[b * self.1..(b + 1) * self.1]
        }
    }

    #[test]
    fn each_key_points_at_its_first_copy() {
        let keys = [1, 2, 3, 4, 1, 2, 5, 6, 3, 4, 1, 3];
        assert_eq!(first_of_equal(&Words(&keys, 2)), (vec![0, 1, 0, 3, 1, 5], 4));
        assert_eq!(first_of_equal(&Words(&keys, 3)), (vec![0, 1, 2, 3], 4));
        assert_eq!(first_of_equal(&Words(&[], 2)), (vec![], 0));
    }

    /// The first copy of each key by a plain map, for comparison.
    fn expected(keys: &[u32], words: usize) -> Vec<u32> {
        let mut seen = std::collections::HashMap::new();
        keys.chunks_exact(words).enumerate().map(|(v, k)| *seen.entry(k).or_insert(v as u32)).collect()
    }

    #[test]
    fn counts_on_either_side_of_a_fetched_batch_agree_with_a_plain_map() {
        // Every count from none to a few batches, so a batch is full, partial or a single vertex;
        // each key repeats one a batch or more back, or one in its own batch.
        for count in 0..=3 * BATCH + 1 {
            let keys: Vec<u32> = (0..count as u32).flat_map(|v| [v % 7, v % 5]).collect();
            let (first, distinct) = first_of_equal(&Words(&keys, 2));
            assert_eq!(first, expected(&keys, 2), "{count} vertices");
            assert_eq!(distinct, count.min(35), "{count} vertices");
        }
    }

    #[test]
    fn agrees_with_a_plain_map_on_many_colliding_keys() {
        // Keys from a small range, so most vertices repeat one seen earlier and probe runs are long.
        let mut state = 7u32;
        let keys: Vec<u32> = (0..3 * 50_000)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (state >> 16) % 23
            })
            .collect();
        let want = expected(&keys, 3);
        let (first, distinct) = first_of_equal(&Words(&keys, 3));
        assert_eq!(distinct, want.iter().enumerate().filter(|&(v, &f)| v as u32 == f).count());
        assert!(distinct > 1000 && distinct < 50_000, "{distinct}");
        assert_eq!(first, want);
    }
}
