//! Rand Index error between two labelings (Chen, Golovinskiy, Funkhouser 2009, "A Benchmark for
//! 3D Mesh Segmentation"): the fraction of face pairs on which the labelings disagree about being
//! in the same segment. Computed from the contingency table in O(F + labels_a * labels_b), each
//! face weighted equally.

fn dense(labels: &[u32]) -> (Vec<u32>, usize) {
    let mut map = std::collections::HashMap::new();
    let out = labels
        .iter()
        .map(|l| {
            let n = map.len() as u32;
            *map.entry(*l).or_insert(n)
        })
        .collect();
    (out, map.len())
}

fn pairs(n: u64) -> f64 {
    (n * n.saturating_sub(1) / 2) as f64
}

/// `1 - RandIndex(a, b)`; 0 for fewer than two faces. Extra labels in the longer slice are ignored.
pub fn rand_index_error(a: &[u32], b: &[u32]) -> f64 {
    let n = a.len().min(b.len());
    if n < 2 {
        return 0.0;
    }
    let (da, ka) = dense(&a[..n]);
    let (db, kb) = dense(&b[..n]);
    let mut table = vec![0u64; ka * kb];
    let mut ca = vec![0u64; ka];
    let mut cb = vec![0u64; kb];
    for i in 0..n {
        let (x, y) = (da[i] as usize, db[i] as usize);
        table[x * kb + y] += 1;
        ca[x] += 1;
        cb[y] += 1;
    }
    let same_both: f64 = table.iter().map(|&c| pairs(c)).sum();
    let same_a: f64 = ca.iter().map(|&c| pairs(c)).sum();
    let same_b: f64 = cb.iter().map(|&c| pairs(c)).sum();
    (same_a + same_b - 2.0 * same_both) / pairs(n as u64)
}

#[cfg(test)]
mod tests {
    use super::rand_index_error;

    #[test]
    fn identical_and_relabelled_segmentations_agree() {
        assert_eq!(rand_index_error(&[0, 0, 1, 1, 2], &[0, 0, 1, 1, 2]), 0.0);
        assert_eq!(rand_index_error(&[0, 0, 1, 1, 2], &[7, 7, 3, 3, 9]), 0.0);
    }

    #[test]
    fn counts_disagreeing_pairs() {
        // 4 faces, 6 pairs. a = {01}{23}, b = {012}{3}: pairs 02 and 12 differ (same in b only),
        // pair 23 differs (same in a only): 3 of 6.
        assert!((rand_index_error(&[0, 0, 1, 1], &[0, 0, 0, 1]) - 0.5).abs() < 1e-12);
        // One segment against all singletons: every pair disagrees.
        assert_eq!(rand_index_error(&[0; 5], &[0, 1, 2, 3, 4]), 1.0);
        assert_eq!(rand_index_error(&[3], &[4]), 0.0);
    }
}
