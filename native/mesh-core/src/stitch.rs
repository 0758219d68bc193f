//! Where the primitives of one mesh meet. A mesh with several materials is several primitives
//! that usually share their boundary positions (a sleeve's edge against the skin); simplifying
//! each primitive on its own would move those vertices independently and open cracks between
//! them. Flagging the shared positions lets the simplifier keep exactly those in place while the
//! rest of every border stays free to collapse.
use crate::model::Primitive;
use std::collections::HashMap;

/// Per primitive, per vertex: whether another primitive of `primitives` has a vertex at the same
/// position (bit-identical, -0.0 counting as 0.0).
pub fn shared_positions(primitives: &[Primitive]) -> Vec<Vec<bool>> {
    if primitives.len() < 2 {
        return primitives.iter().map(|p| vec![false; p.positions.len()]).collect();
    }
    let key = |q: &[f32; 3]| q.map(|c| if c == 0.0 { 0 } else { c.to_bits() });
    // The first primitive seen at each position, or usize::MAX once a second one uses it.
    let mut owner: HashMap<[u32; 3], usize> = HashMap::new();
    for (i, p) in primitives.iter().enumerate() {
        for q in &p.positions {
            let slot = owner.entry(key(q)).or_insert(i);
            if *slot != i {
                *slot = usize::MAX;
            }
        }
    }
    primitives.iter().map(|p| p.positions.iter().map(|q| owner[&key(q)] == usize::MAX).collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn primitive(positions: Vec<[f32; 3]>) -> Primitive {
        Primitive { positions, ..Default::default() }
    }

    #[test]
    fn only_positions_used_by_two_primitives_are_shared() {
        let a = primitive(vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [5.0, 5.0, 5.0], [1.0, 0.0, 0.0]]);
        let b = primitive(vec![[-0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]);
        assert_eq!(shared_positions(&[a.clone(), b]), vec![vec![true, true, false, true], vec![true, true, false]]);
        assert_eq!(shared_positions(&[a]), vec![vec![false; 4]]);
    }
}
