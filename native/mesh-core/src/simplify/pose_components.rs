//! A skinned mesh's pose deltas in fewer floats, for the collapser. Each pose gives every vertex a
//! delta of three floats (skin_poses.rs), eight poses 24 floats, and the collapser's time grows with
//! the floats it weighs: about half a millisecond a float on a 22,400-face creature, 19 ms a
//! collapse with the 24 against 8 ms with none. The poses of one mesh are far from independent (a
//! limb that swings moves its vertices along much the same directions in every pose), so the
//! deltas lie near a space of few dimensions.
//!
//! The collapse error of attributes that all have one weight depends only on distances between
//! their vectors and on how far each is from a linear function across the faces, and neither
//! changes under a rotation of those vectors or a shift of all of them (the fit's constant term
//! takes the shift). So the deltas are centred, turned onto their principal axes (the eigenvectors
//! of their covariance) and cut to the axes that carry them: what the collapser weighs is the same
//! up to the share of spread left out. The poses themselves are still measured in full (`Held::by`).

use crate::in_parallel;

/// The share of the deltas' spread (their summed variance) that the axes kept may leave out.
const SPREAD_LEFT_OUT: f64 = 1e-3;

/// `rows` (one row of `width` floats a vertex, all of one weight) centred and turned onto their
/// principal axes, cut to the fewest axes that leave out no more than `SPREAD_LEFT_OUT` of the
/// spread (at least one): the rows of the result, and how many floats each has.
pub(super) fn on_principal_axes(rows: &[f32], width: usize) -> (Vec<f32>, usize) {
    let n = rows.len() / width.max(1);
    if n == 0 || width == 0 {
        return (Vec::new(), 0);
    }
    let mut mean = vec![0.0f64; width];
    for row in rows.chunks_exact(width) {
        mean.iter_mut().zip(row).for_each(|(m, &x)| *m += f64::from(x));
    }
    mean.iter_mut().for_each(|m| *m /= n as f64);
    let (values, vectors, order) = axes(upper_covariance(rows, width, &mean), width);
    let total: f64 = values.iter().map(|v| v.max(0.0)).sum();
    let mut kept = 0;
    let mut left_out = total;
    while kept < width && (kept == 0 || left_out > SPREAD_LEFT_OUT * total) {
        left_out -= values[order[kept]].max(0.0);
        kept += 1;
    }
    // The axes kept as columns: a row's components are summed term by term across them, in the
    // order a dot product per axis would add them, but side by side.
    let mut columns = vec![0.0f64; width * kept];
    for (k, &axis) in order[..kept].iter().enumerate() {
        for (j, &a) in vectors[axis * width..(axis + 1) * width].iter().enumerate() {
            columns[j * kept + k] = a;
        }
    }
    // Each row's components apart from the other rows', so the rows go over the machine's cores
    // in runs where they are many, each run's floats the same as in one pass.
    let runs: Vec<&[f32]> = rows[..n * width].chunks(ROWS_A_RUN * width).collect();
    let worth = n * width * kept >= PRODUCTS_WORTH_THREADS;
    let out = in_parallel::map(&runs, worth, |run| project(run, width, &mean, &columns, kept)).concat();
    (out, kept)
}

/// Rows projected in one run: `ROWS_A_RUN`, a multiple of four.
const ROWS_A_RUN: usize = 2048;
/// Products (rows × floats × axes kept) from which the rows are projected over several threads:
/// about 4 ms of work on a 22,400-face creature's 5.5 million.
const PRODUCTS_WORTH_THREADS: usize = 1 << 21;

/// `rows` centred on `mean` and projected onto the axes kept (`columns`: each float's row of
/// `kept` axis components), each row's sums in the order a dot product per axis would add them.
fn project(rows: &[f32], width: usize, mean: &[f64], columns: &[f64], kept: usize) -> Vec<f32> {
    let n = rows.len() / width;
    // Four rows at a time, as the covariance: each row's sums in the same order as alone.
    let mut out = Vec::with_capacity(n * kept);
    let mut sums = vec![0.0f64; 4 * kept];
    let blocks = rows.chunks_exact(4 * width);
    let rest = blocks.remainder();
    for block in blocks {
        sums.fill(-0.0);
        let (s0, s) = sums.split_at_mut(kept);
        let (s1, s) = s.split_at_mut(kept);
        let (s2, s3) = s.split_at_mut(kept);
        for (j, column) in columns.chunks_exact(kept).enumerate() {
            let [c0, c1, c2, c3] = [0, 1, 2, 3].map(|r| f64::from(block[r * width + j]) - mean[j]);
            for ((((&a, t0), t1), t2), t3) in column.iter().zip(s0.iter_mut()).zip(s1.iter_mut()).zip(s2.iter_mut()).zip(s3.iter_mut()) {
                *t0 += a * c0;
                *t1 += a * c1;
                *t2 += a * c2;
                *t3 += a * c3;
            }
        }
        out.extend(sums.iter().map(|&sum| sum as f32));
    }
    let sums = &mut sums[..kept];
    for row in rest.chunks_exact(width) {
        sums.fill(-0.0);
        for ((&x, m), column) in row.iter().zip(mean).zip(columns.chunks_exact(kept)) {
            let c = f64::from(x) - m;
            sums.iter_mut().zip(column).for_each(|(sum, &a)| *sum += a * c);
        }
        out.extend(sums.iter().map(|&sum| sum as f32));
    }
    out
}

/// The upper half (entries from the diagonal on) of the sums of products of `rows` centred on
/// `mean`: the covariance before it is mirrored and scaled. Each entry is summed over all the rows
/// in their order wherever it is summed, so its lines are shared out over the machine's cores
/// where the products are many, and the sums are the same bits on one core or several.
fn upper_covariance(rows: &[f32], width: usize, mean: &[f64]) -> Vec<f64> {
    let n = rows.len() / width.max(1);
    let products = n * width * (width + 1) / 2;
    let parts = in_parallel::threads(products >= COVARIANCE_WORTH_THREADS);
    // Lines cut where each part has about as many entries as the others (line i has width - i).
    let mut bounds = vec![0];
    let (mut entries, share) = (0, (width * (width + 1) / 2).div_ceil(parts.max(1)));
    for i in 0..width {
        entries += width - i;
        if entries >= share * bounds.len() && i + 1 < width {
            bounds.push(i + 1);
        }
    }
    bounds.push(width);
    let ranges: Vec<std::ops::Range<usize>> = bounds.windows(2).map(|b| b[0]..b[1]).filter(|r| !r.is_empty()).collect();
    in_parallel::map(&ranges, ranges.len() > 1, |lines| upper_lines(rows, width, mean, lines.clone())).concat()
}

/// Products (rows × entries of the upper half) from which the covariance's lines are summed over
/// several threads: about a third of a millisecond of work.
const COVARIANCE_WORTH_THREADS: usize = 1 << 18;

/// Lines `lines` of `upper_covariance` (each a whole line of `width`, zero left of the diagonal).
fn upper_lines(rows: &[f32], width: usize, mean: &[f64], lines: std::ops::Range<usize>) -> Vec<f64> {
    // The upper half of the square, row by row: line i's entries from the diagonal on are a run of
    // independent products the compiler lays out in vector lanes (entries one by one took 12 % of a
    // skinned creature's simplify, session 37; both halves in lanes did twice the products this
    // does, session 38); the lower half is the upper's mirror, as the products are the same.
    //
    // Four rows at a time, each entry's four products added one after another in the rows' order:
    // the same sums as row by row, bit for bit, with each entry loaded and stored once for the four
    // (row by row, the loads, stores and loop steps around each product were most of this
    // function's time on a skinned creature, session 43).
    let first = lines.start;
    let mut covariance = vec![0.0f64; lines.len() * width];
    let centre = |row: &[f32], into: &mut [f64]| into.iter_mut().zip(row.iter().zip(mean)).for_each(|(c, (&x, m))| *c = f64::from(x) - m);
    let mut four = vec![0.0f64; 4 * width];
    let blocks = rows.chunks_exact(4 * width);
    let rest = blocks.remainder();
    for block in blocks {
        for (row, into) in block.chunks_exact(width).zip(four.chunks_exact_mut(width)) {
            centre(row, into);
        }
        let (c0, c) = four.split_at(width);
        let (c1, c) = c.split_at(width);
        let (c2, c3) = c.split_at(width);
        for (k, line) in covariance.chunks_exact_mut(width).enumerate() {
            let i = first + k;
            let (a0, a1, a2, a3) = (c0[i], c1[i], c2[i], c3[i]);
            for ((((sum, &b0), &b1), &b2), &b3) in line[i..].iter_mut().zip(&c0[i..]).zip(&c1[i..]).zip(&c2[i..]).zip(&c3[i..]) {
                *sum += a0 * b0;
                *sum += a1 * b1;
                *sum += a2 * b2;
                *sum += a3 * b3;
            }
        }
    }
    let centred = &mut four[..width];
    for row in rest.chunks_exact(width) {
        centre(row, centred);
        for (k, line) in covariance.chunks_exact_mut(width).enumerate() {
            let (i, ci) = (first + k, centred[first + k]);
            line[i..].iter_mut().zip(&centred[i..]).for_each(|(sum, &cj)| *sum += ci * cj);
        }
    }
    covariance
}

/// The principal axes of a covariance whose upper half is summed (the lower is mirrored from it):
/// its eigenvalues, eigenvectors (`symmetric_eigen`) and the axes by decreasing value.
fn axes(mut covariance: Vec<f64>, width: usize) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    for i in 0..width {
        for j in 0..i {
            covariance[i * width + j] = covariance[j * width + i];
        }
    }
    let (values, vectors) = symmetric_eigen(covariance, width);
    let mut order: Vec<usize> = (0..width).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
    (values, vectors, order)
}

/// Eigenvalues and eigenvectors (row k the vector of value k) of the symmetric `width`-square
/// matrix `a`, by cyclic Jacobi rotations: exact to rounding for the few dozen rows here.
fn symmetric_eigen(mut a: Vec<f64>, width: usize) -> (Vec<f64>, Vec<f64>) {
    let mut v = vec![0.0f64; width * width];
    (0..width).for_each(|i| v[i * width + i] = 1.0);
    let scale: f64 = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    for _sweep in 0..64 {
        let off: f64 = (0..width).flat_map(|i| (0..width).filter(move |&j| j != i).map(move |j| (i, j))).map(|(i, j)| a[i * width + j].powi(2)).sum();
        if off.sqrt() <= 1e-14 * scale.max(f64::MIN_POSITIVE) {
            break;
        }
        for p in 0..width {
            for q in p + 1..width {
                let apq = a[p * width + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (a[q * width + q] - a[p * width + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..width {
                    let (akp, akq) = (a[k * width + p], a[k * width + q]);
                    a[k * width + p] = c * akp - s * akq;
                    a[k * width + q] = s * akp + c * akq;
                }
                for k in 0..width {
                    let (apk, aqk) = (a[p * width + k], a[q * width + k]);
                    a[p * width + k] = c * apk - s * aqk;
                    a[q * width + k] = s * apk + c * aqk;
                }
                for k in 0..width {
                    let (vpk, vqk) = (v[p * width + k], v[q * width + k]);
                    v[p * width + k] = c * vpk - s * vqk;
                    v[q * width + k] = s * vpk + c * vqk;
                }
            }
        }
    }
    ((0..width).map(|i| a[i * width + i]).collect(), v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigenvectors_diagonalize_a_symmetric_matrix() {
        let a = vec![4.0, 1.0, 2.0, 1.0, 3.0, 0.5, 2.0, 0.5, 5.0];
        let (values, vectors) = symmetric_eigen(a.clone(), 3);
        for k in 0..3 {
            let e = &vectors[k * 3..k * 3 + 3];
            for i in 0..3 {
                let ae: f64 = (0..3).map(|j| a[i * 3 + j] * e[j]).sum();
                assert!((ae - values[k] * e[i]).abs() < 1e-10, "{ae} {} {}", values[k], e[i]);
            }
        }
        assert!((values.iter().sum::<f64>() - 12.0).abs() < 1e-10);
    }

    /// The covariance and the projection four rows at a time, and in lines or runs apart, give the
    /// bits one row at a time gives, whatever the rows left over.
    #[test]
    fn rows_four_at_a_time_and_in_runs_give_the_bits_of_rows_one_at_a_time() {
        let mut random = crate::test_random::uniform(43);
        // The last: runs over threads (past `PRODUCTS_WORTH_THREADS`), the last run not whole.
        for (n, width) in [(1, 3), (7, 24), (401, 24), (402, 9), (1003, 16), (2 * ROWS_A_RUN + 1907, 24)] {
            let rows: Vec<f32> = (0..n * width).map(|_| random() * 2.0 - 1.0).collect();
            let mean: Vec<f64> = (0..width).map(|c| rows.iter().skip(c).step_by(width).map(|&x| f64::from(x)).sum::<f64>() / n as f64).collect();
            let mut covariance = vec![0.0f64; width * width];
            for row in rows.chunks_exact(width) {
                let centred: Vec<f64> = row.iter().zip(&mean).map(|(&x, m)| f64::from(x) - m).collect();
                for i in 0..width {
                    for j in i..width {
                        covariance[i * width + j] += centred[i] * centred[j];
                    }
                }
            }
            let blocked = upper_covariance(&rows, width, &mean);
            // Lines summed apart (as on several cores) are the lines summed together.
            let cut = width / 3;
            let apart = [upper_lines(&rows, width, &mean, 0..cut), upper_lines(&rows, width, &mean, cut..width)].concat();
            assert_eq!(apart.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), blocked.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
            let upper = |c: &[f64]| (0..width).flat_map(|i| (i..width).map(move |j| c[i * width + j].to_bits())).collect::<Vec<u64>>();
            assert_eq!(upper(&blocked), upper(&covariance), "covariance of {n} rows of {width}");
            let (_, vectors, order) = axes(covariance, width);
            let (out, kept) = on_principal_axes(&rows, width);
            let expected: Vec<f32> = rows
                .chunks_exact(width)
                .flat_map(|row| {
                    order[..kept].iter().map(|&axis| {
                        let mut sum = -0.0f64;
                        for (j, (&x, m)) in row.iter().zip(&mean).enumerate() {
                            sum += vectors[axis * width + j] * (f64::from(x) - m);
                        }
                        sum as f32
                    })
                })
                .collect();
            assert_eq!(out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), expected.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "{n} rows of {width}");
        }
    }

    /// Deltas that move along two directions only, in six floats: two axes carry all of them, and
    /// distances between rows are kept.
    #[test]
    fn deltas_along_few_directions_keep_few_axes_and_their_distances() {
        let (d1, d2) = ([1.0f32, 0.5, 0.0, -0.2, 0.3, 0.9], [0.0f32, 0.2, 1.0, 0.4, -0.7, 0.1]);
        let rows: Vec<f32> = (0..200)
            .flat_map(|i| {
                let (s, t) = ((i as f32 * 0.37).sin(), (i as f32 * 0.11).cos() * 2.0);
                (0..6).map(move |c| 3.0 + s * d1[c] + t * d2[c])
            })
            .collect();
        let (out, kept) = on_principal_axes(&rows, 6);
        assert_eq!(kept, 2);
        let distance = |r: &[f32], w: usize, a: usize, b: usize| (0..w).map(|c| (r[a * w + c] - r[b * w + c]).powi(2)).sum::<f32>().sqrt();
        for (a, b) in [(0, 1), (5, 150), (17, 99)] {
            assert!((distance(&rows, 6, a, b) - distance(&out, 2, a, b)).abs() < 1e-4);
        }
    }
}
