//! Maps and sets keyed by a few vertex or face numbers (an edge's two ends, a face's three
//! corners), hashed a word at a time. std's default hasher (SipHash) costs tens of instructions a
//! word where these keys are two or three words: on CesiumMan simplified at `max_error` 0.00724,
//! whose strays are inserted over several rounds, each building its faces' edges and triangles
//! anew, it was 9 % of the run (session 54).
//!
//! Each map draws its own seed from std's random keys, as std's maps do, so a model cannot be
//! built to make its numbers collide. As with std's maps, what comes out must not depend on the
//! order a map is read in, which changes with the seed: the users look keys up, or read every key
//! for something the order does not change.
use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};

/// A map keyed by vertex or face numbers.
pub type NumberMap<K, V> = HashMap<K, V, Seeded>;
/// A set of vertex or face numbers (or tuples of them).
pub type NumberSet<K> = HashSet<K, Seeded>;

/// A map with room for `capacity` keys.
pub fn map_with_capacity<K, V>(capacity: usize) -> NumberMap<K, V> {
    HashMap::with_capacity_and_hasher(capacity, Seeded::default())
}

/// A set with room for `capacity` keys.
pub fn set_with_capacity<K>(capacity: usize) -> NumberSet<K> {
    HashSet::with_capacity_and_hasher(capacity, Seeded::default())
}

/// Builds `WordHasher`s from a seed of its own.
#[derive(Clone)]
pub struct Seeded(u64);

impl Default for Seeded {
    fn default() -> Self {
        Seeded(RandomState::new().hash_one(0x6b69_6c6e_u64))
    }
}

impl BuildHasher for Seeded {
    type Hasher = WordHasher;
    fn build_hasher(&self) -> WordHasher {
        WordHasher(self.0)
    }
}

/// Each word xored in and multiplied through; the end mixed so every bit of the state reaches both
/// the low bits (the bucket) and the high ones (the map's tag).
pub struct WordHasher(u64);

impl WordHasher {
    fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(31);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.word(u64::from_le_bytes(w));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.word(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.word(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.word(n as u64);
    }
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^= h >> 33;
        h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_found_again_and_no_others_are() {
        let mut edges: NumberMap<(u32, u32), u32> = map_with_capacity(16);
        let mut faces: NumberSet<[u32; 3]> = NumberSet::default();
        for a in 0..300u32 {
            edges.insert((a, a + 1), a);
            faces.insert([a, a + 1, a + 2]);
        }
        for a in 0..300u32 {
            assert_eq!(edges.get(&(a, a + 1)), Some(&a));
            assert_eq!(edges.get(&(a + 1, a)), None);
            assert!(faces.contains(&[a, a + 1, a + 2]) && !faces.contains(&[a, a + 2, a + 1]));
        }
        assert_eq!((edges.len(), faces.len()), (300, 300));
    }

    #[test]
    fn two_maps_hash_with_seeds_of_their_own() {
        let (a, b) = (Seeded::default(), Seeded::default());
        assert_ne!(a.hash_one((1u32, 2u32)), b.hash_one((1u32, 2u32)));
    }

    #[test]
    fn neighbouring_numbers_spread_over_the_low_and_high_bits() {
        let seeded = Seeded::default();
        let hashes: Vec<u64> = (0..4096u32).map(|a| seeded.hash_one((a, a + 1))).collect();
        let low: HashSet<u64> = hashes.iter().map(|h| h & 4095).collect();
        let high: HashSet<u64> = hashes.iter().map(|h| h >> 57).collect();
        // 4,096 keys in 4,096 buckets fill about 63 % of them at random; all 128 tags are used.
        assert!(low.len() > 2400, "{} buckets", low.len());
        assert_eq!(high.len(), 128);
    }
}
