//! Behaviour tests for `segment`: invariants, limits, robustness and a simple shape.

use segment_core::{segment, Detail, SegmentParams};

type Mesh = (Vec<[f32; 3]>, Vec<[u32; 3]>);

/// Closed surface swept along x with a square cross-section whose half-width follows `profile`
/// (x, half-width); `per_side` vertices per side of the square; both ends are capped.
fn square_sweep(profile: &[(f32, f32)], per_side: usize) -> Mesh {
    let ring = 4 * per_side;
    let mut pos = Vec::new();
    for &(x, r) in profile {
        for i in 0..ring {
            let (side, t) = (
                i / per_side,
                (i % per_side) as f32 / per_side as f32 * 2.0 - 1.0,
            );
            let (y, z) = match side {
                0 => (r, t * r),
                1 => (-t * r, r),
                2 => (-r, -t * r),
                _ => (t * r, -r),
            };
            pos.push([x, y, z]);
        }
    }
    let mut idx = Vec::new();
    for j in 0..profile.len() - 1 {
        for i in 0..ring {
            let a = (j * ring + i) as u32;
            let b = (j * ring + (i + 1) % ring) as u32;
            let (c, d) = (a + ring as u32, b + ring as u32);
            idx.push([a, b, c]);
            idx.push([b, d, c]);
        }
    }
    let first = pos.len() as u32;
    pos.push([profile[0].0, 0.0, 0.0]);
    let last = pos.len() as u32;
    pos.push([profile[profile.len() - 1].0, 0.0, 0.0]);
    let end = ((profile.len() - 1) * ring) as u32;
    for i in 0..ring as u32 {
        let n = (i + 1) % ring as u32;
        idx.push([first, n, i]);
        idx.push([last, end + i, end + n]);
    }
    (pos, idx)
}

/// An axis-aligned box from x0 to x1 with half-width r, finely tessellated.
fn block(x0: f32, x1: f32, r: f32) -> Mesh {
    let steps = 8;
    let profile: Vec<(f32, f32)> = (0..=steps)
        .map(|i| (x0 + (x1 - x0) * i as f32 / steps as f32, r))
        .collect();
    square_sweep(&profile, 4)
}

/// Concatenates meshes without welding (loose pieces).
fn join(parts: &[Mesh]) -> Mesh {
    let (mut pos, mut idx) = (Vec::new(), Vec::new());
    for (p, i) in parts {
        let base = pos.len() as u32;
        pos.extend_from_slice(p);
        idx.extend(i.iter().map(|t| [t[0] + base, t[1] + base, t[2] + base]));
    }
    (pos, idx)
}

/// Two unit boxes joined by a thin square neck, as one closed surface.
fn dumbbell() -> Mesh {
    let mut profile = Vec::new();
    for i in 0..=8 {
        profile.push((i as f32 / 8.0, 0.5));
    }
    profile.push((1.0, 0.3));
    profile.push((1.0, 0.1));
    profile.push((1.0, 0.05));
    for i in 1..=4 {
        profile.push((1.0 + i as f32 * 0.1, 0.05));
    }
    profile.push((1.4, 0.1));
    profile.push((1.4, 0.3));
    for i in 0..=8 {
        profile.push((1.4 + i as f32 / 8.0, 0.5));
    }
    square_sweep(&profile, 4)
}

fn params(detail: Detail) -> SegmentParams {
    SegmentParams {
        detail,
        ..SegmentParams::default()
    }
}

fn part_count(labels: &[u32]) -> usize {
    labels.iter().max().map_or(0, |&m| m as usize + 1)
}

fn assert_dense(labels: &[u32], faces: usize) {
    assert_eq!(labels.len(), faces);
    let k = part_count(labels);
    let mut seen = vec![false; k];
    for &l in labels {
        seen[l as usize] = true;
    }
    assert!(
        seen.iter().all(|&s| s),
        "labels are not dense: {k} labels, some unused"
    );
}

#[test]
fn deterministic() {
    let (p, i) = join(&[dumbbell(), block(3.0, 5.0, 0.4)]);
    let a = segment(&p, &i, &params(Detail::Medium));
    for _ in 0..3 {
        assert_eq!(segment(&p, &i, &params(Detail::Medium)), a);
    }
}

#[test]
fn labels_dense_for_every_detail() {
    let (p, i) = join(&[dumbbell(), block(3.0, 5.0, 0.4)]);
    for detail in [Detail::Low, Detail::Medium, Detail::High] {
        assert_dense(&segment(&p, &i, &params(detail)), i.len());
    }
}

#[test]
fn loose_pieces_never_share_a_label() {
    let pieces: Vec<Mesh> = (0..5)
        .map(|k| block(k as f32 * 2.0, k as f32 * 2.0 + 1.0, 0.5))
        .collect();
    let (p, i) = join(&pieces);
    let labels = segment(&p, &i, &params(Detail::Low));
    assert_dense(&labels, i.len());
    let per_piece = pieces[0].1.len();
    let mut owner = vec![usize::MAX; part_count(&labels)];
    for (f, &l) in labels.iter().enumerate() {
        let piece = f / per_piece;
        assert!(
            owner[l as usize] == usize::MAX || owner[l as usize] == piece,
            "label {l} spans two pieces"
        );
        owner[l as usize] = piece;
    }
    assert!(part_count(&labels) >= 5);
}

#[test]
fn unwelded_seams_still_connect() {
    // Every triangle gets its own three vertices; welding by position must restore adjacency.
    let (p, i) = dumbbell();
    let soup: Vec<[f32; 3]> = i.iter().flat_map(|t| t.map(|v| p[v as usize])).collect();
    let tri: Vec<[u32; 3]> = (0..i.len() as u32)
        .map(|f| [3 * f, 3 * f + 1, 3 * f + 2])
        .collect();
    assert_eq!(
        segment(&soup, &tri, &params(Detail::Medium)),
        segment(&p, &i, &params(Detail::Medium))
    );
}

#[test]
fn inside_out_winding_gives_the_same_parts() {
    let (p, i) = dumbbell();
    let flipped: Vec<[u32; 3]> = i.iter().map(|t| [t[0], t[2], t[1]]).collect();
    assert_eq!(
        segment(&p, &flipped, &params(Detail::Medium)),
        segment(&p, &i, &params(Detail::Medium))
    );
}

#[test]
fn max_parts_is_a_ceiling() {
    let pieces: Vec<Mesh> = (0..10)
        .map(|k| block(k as f32 * 2.0, k as f32 * 2.0 + 1.0 + k as f32 * 0.1, 0.5))
        .collect();
    let (p, i) = join(&pieces);
    for max_parts in [1, 3, 7] {
        let labels = segment(
            &p,
            &i,
            &SegmentParams {
                max_parts,
                ..params(Detail::High)
            },
        );
        assert_dense(&labels, i.len());
        assert_eq!(part_count(&labels), max_parts);
    }
    let (p, i) = dumbbell();
    let labels = segment(
        &p,
        &i,
        &SegmentParams {
            max_parts: 1,
            ..params(Detail::High)
        },
    );
    assert!(labels.iter().all(|&l| l == 0));
}

#[test]
fn tiny_parts_are_merged() {
    let big = block(0.0, 4.0, 1.0);
    let small = block(5.0, 5.1, 0.05);
    let (p, i) = join(&[big.clone(), small]);
    let split = segment(&p, &i, &params(Detail::Medium));
    let small_label = split[i.len() - 1];
    assert!(
        split[..big.1.len()].iter().all(|&l| l != small_label),
        "the loose speck is its own part by default"
    );

    let by_area = segment(
        &p,
        &i,
        &SegmentParams {
            min_part_area: 0.01,
            ..params(Detail::Medium)
        },
    );
    assert_dense(&by_area, i.len());
    let speck = by_area[i.len() - 1];
    assert!(
        by_area[..big.1.len()].contains(&speck),
        "a speck under 1% of the area joins a part of the big block"
    );

    let faces = segment(
        &p,
        &i,
        &SegmentParams {
            min_part_faces: big.1.len() + 1,
            ..params(Detail::Medium)
        },
    );
    assert!(
        faces.iter().all(|&l| l == 0),
        "no part reaches the face minimum, so everything merges"
    );
}

#[test]
fn many_loose_triangles_respect_the_ceiling() {
    // 20,000 separate triangles: clustering cannot merge them, the ceiling must.
    let mut p = Vec::new();
    let mut i = Vec::new();
    for k in 0..20_000u32 {
        let (x, y) = ((k % 200) as f32, (k / 200) as f32);
        p.extend([[x, y, 0.0], [x + 0.5, y, 0.0], [x, y + 0.5, 0.0]]);
        i.push([3 * k, 3 * k + 1, 3 * k + 2]);
    }
    let labels = segment(
        &p,
        &i,
        &SegmentParams {
            max_parts: 16,
            ..params(Detail::Medium)
        },
    );
    assert_dense(&labels, i.len());
    assert_eq!(part_count(&labels), 16);
    let labels = segment(
        &p,
        &i,
        &SegmentParams {
            min_part_faces: 2,
            ..params(Detail::Medium)
        },
    );
    assert!(
        labels.iter().all(|&l| l == 0),
        "no piece reaches 2 faces, so all join one part"
    );
}

#[test]
fn two_boxes_joined_by_a_thin_neck_split_in_two() {
    let (p, i) = dumbbell();
    let labels = segment(
        &p,
        &i,
        &SegmentParams {
            min_part_area: 0.02,
            ..params(Detail::Medium)
        },
    );
    assert_eq!(part_count(&labels), 2, "{labels:?}");
    // Faces entirely inside each box (by centroid x) must carry one label per box.
    let side = |f: usize| {
        let x = i[f].iter().map(|&v| p[v as usize][0]).sum::<f32>() / 3.0;
        if x < 0.9 {
            Some(0)
        } else if x > 1.5 {
            Some(1)
        } else {
            None
        }
    };
    let mut label_of = [None, None];
    for (f, &l) in labels.iter().enumerate() {
        if let Some(s) = side(f) {
            assert_eq!(*label_of[s].get_or_insert(l), l, "box {s} is split");
        }
    }
    assert_ne!(label_of[0], label_of[1]);
}

#[test]
fn empty_input() {
    assert!(segment(&[], &[], &params(Detail::Medium)).is_empty());
    let (p, _) = block(0.0, 1.0, 1.0);
    assert!(segment(&p, &[], &params(Detail::Medium)).is_empty());
    assert_eq!(
        segment(&[], &[[0, 1, 2]; 4], &params(Detail::Medium)),
        vec![0; 4]
    );
}

#[test]
fn degenerate_nan_and_out_of_range_faces() {
    let (mut p, mut i) = dumbbell();
    let n = i.len();
    i.push([0, 0, 0]); // repeated vertex
    i.push([1, 2, u32::MAX]); // out of range
    i.push([u32::MAX, u32::MAX, u32::MAX]);
    p.push([f32::NAN, 0.0, 0.0]);
    p.push([f32::INFINITY, 1.0, 1.0]);
    let bad = p.len() as u32;
    i.push([bad - 2, bad - 1, 0]); // non-finite coordinates
    p.push([0.0, 0.0, 0.0]);
    p.push([0.0, 0.0, 0.0]);
    i.push([bad, bad + 1, 3]); // zero area after welding
    for detail in [Detail::Low, Detail::Medium, Detail::High] {
        let labels = segment(&p, &i, &params(detail));
        assert_dense(&labels, i.len());
        assert_eq!(
            &labels[n + 1..n + 4],
            &[0, 0, 0],
            "unusable faces take label 0"
        );
    }
    // A mesh made only of unusable faces.
    let labels = segment(
        &[[f32::NAN; 3]; 3],
        &[[0, 1, 2], [5, 6, 7]],
        &params(Detail::Medium),
    );
    assert_eq!(labels, vec![0, 0]);
    // All faces degenerate (zero area).
    let flat = vec![[1.0f32, 2.0, 3.0]; 6];
    let labels = segment(
        &flat,
        &[[0, 1, 2], [3, 4, 5], [0, 3, 4]],
        &params(Detail::Medium),
    );
    assert_dense(&labels, 3);
}

#[test]
fn odd_parameters_do_not_panic() {
    let (p, i) = dumbbell();
    for (max_parts, min_faces, min_area) in [
        (0, 0, 0.0),
        (usize::MAX, usize::MAX, f64::NAN),
        (2, 0, -1.0),
        (5, 0, f64::INFINITY),
    ] {
        let labels = segment(
            &p,
            &i,
            &SegmentParams {
                detail: Detail::Medium,
                max_parts,
                min_part_faces: min_faces,
                min_part_area: min_area,
            },
        );
        assert_dense(&labels, i.len());
        assert!(part_count(&labels) <= max_parts.max(1));
    }
}
