//! Small column-major 4x4 matrix and vector helpers (glTF conventions).

pub fn mul(a: &[f32; 16], b: &[f32; 16]) -> [f32; 16] {
    let mut out = [0.0f32; 16];
    for col in 0..4 {
        for row in 0..4 {
            out[col * 4 + row] = (0..4).map(|k| a[k * 4 + row] * b[col * 4 + k]).sum();
        }
    }
    out
}

pub fn transform_point(m: &[f32; 16], p: [f32; 3]) -> [f32; 3] {
    [m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12], m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13], m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14]]
}

/// The most a unit length measures after `m`: the largest column norm of its upper-left 3x3
/// block, exact for any rotation and scale (a node's TRS), in f64.
pub fn largest_scale(m: &[f32; 16]) -> f64 {
    (0..3).map(|c| (0..3).map(|r| (m[c * 4 + r] as f64).powi(2)).sum::<f64>().sqrt()).fold(0.0, f64::max)
}

/// `m` without its translation: how it turns and stretches lengths.
pub fn linear_part(m: &[f32; 16]) -> [f32; 16] {
    let mut l = *m;
    for k in [3, 7, 11, 12, 13, 14] {
        l[k] = 0.0;
    }
    l[15] = 1.0;
    l
}

/// The inverse of a linear part (as `linear_part` gives), or None where it flattens space.
pub fn inverse_linear(m: &[f32; 16]) -> Option<[f32; 16]> {
    let det = determinant3(m);
    if !det.is_finite() || det.abs() <= f32::MIN_POSITIVE * 1e6 {
        return None;
    }
    let cofactors = normal_matrix(m);
    let mut out = crate::model::IDENTITY;
    for (c, column) in cofactors.iter().enumerate() {
        for (r, &v) in column.iter().enumerate() {
            out[c * 4 + r] = v / det;
        }
    }
    out.iter().all(|v| v.is_finite()).then_some(out)
}

/// `m`'s upper-left block times its transpose's, in f64: the lengths' squared stretch.
fn gram(m: &[f32; 16]) -> [[f64; 3]; 3] {
    let column = |c: usize| [0, 1, 2].map(|r| m[c * 4 + r] as f64);
    let mut g = [[0.0; 3]; 3];
    for (i, row) in g.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|r| column(i)[r] * column(j)[r]).sum();
        }
    }
    g
}

/// The most `m` lengthens any length: its largest singular value, the root of its Gram matrix's
/// largest eigenvalue in closed form (the trigonometric solution of the characteristic cubic),
/// never under its largest column norm (which it equals for a node's rotation and scale). Until
/// session 40 the eigenvalue came from 64 rounds of power iteration, which for a rotation and one
/// scale (every eigenvalue alike) settle anywhere among them and cost a scene of 1,500 placed
/// rocks 10 % of its simplify.
pub fn stretch(m: &[f32; 16]) -> f64 {
    let g = gram(m);
    let off = g[0][1] * g[0][1] + g[0][2] * g[0][2] + g[1][2] * g[1][2];
    let largest = if off == 0.0 {
        g[0][0].max(g[1][1]).max(g[2][2])
    } else {
        let q = (g[0][0] + g[1][1] + g[2][2]) / 3.0;
        let p = (((g[0][0] - q).powi(2) + (g[1][1] - q).powi(2) + (g[2][2] - q).powi(2) + 2.0 * off) / 6.0).sqrt();
        let b = |i: usize, j: usize| (g[i][j] - if i == j { q } else { 0.0 }) / p;
        let det = b(0, 0) * (b(1, 1) * b(2, 2) - b(1, 2) * b(2, 1)) - b(0, 1) * (b(1, 0) * b(2, 2) - b(1, 2) * b(2, 0))
            + b(0, 2) * (b(1, 0) * b(2, 1) - b(1, 1) * b(2, 0));
        let angle = (det / 2.0).clamp(-1.0, 1.0).acos() / 3.0;
        q + 2.0 * p * angle.cos()
    };
    let largest = if largest.is_finite() { largest } else { 0.0 };
    largest.max(0.0).sqrt().max(largest_scale(m))
}

/// At least the most `m` lengthens any length (its largest singular value): the root of the
/// largest absolute row sum of its Gram matrix (Gershgorin), which is that value itself for a
/// rotation times one scale; `stretch` comes at it from below.
pub fn stretch_at_most(m: &[f32; 16]) -> f64 {
    gram(m).iter().map(|row| row.iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max).sqrt()
}

/// Whether `m` stretches every direction alike (a rotation times one scale), to a part in 10^4.
pub fn stretches_evenly(m: &[f32; 16]) -> bool {
    let g = gram(m);
    let mean = (g[0][0] + g[1][1] + g[2][2]) / 3.0;
    (0..3).all(|i| (0..3).all(|j| (g[i][j] - if i == j { mean } else { 0.0 }).abs() <= 1e-4 * mean))
}

/// The 3x3 cofactor matrix of the upper-left block: transforms normals (inverse transpose up to scale).
pub fn normal_matrix(m: &[f32; 16]) -> [[f32; 3]; 3] {
    let c = |i: usize, j: usize| m[j * 4 + i];
    let mut out = [[0.0f32; 3]; 3];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            *v = c(i1, j1) * c(i2, j2) - c(i1, j2) * c(i2, j1);
        }
    }
    out
}

pub fn determinant3(m: &[f32; 16]) -> f32 {
    m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) + m[8] * (m[1] * m[6] - m[5] * m[2])
}

pub fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

pub fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn length(a: [f32; 3]) -> f32 {
    dot(a, a).sqrt()
}

pub fn normalize(a: [f32; 3]) -> Option<[f32; 3]> {
    let len = length(a);
    (len > 0.0 && len.is_finite()).then(|| [a[0] / len, a[1] / len, a[2] / len])
}

/// Twice the triangle's area vector (its normal scaled by area).
pub fn face_normal(a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> [f32; 3] {
    cross(sub(b, a), sub(c, a))
}

/// Builds the matrix of translation * rotation (unit quaternion xyzw) * scale.
pub fn compose(t: [f32; 3], q: [f32; 4], s: [f32; 3]) -> [f32; 16] {
    let [x, y, z, w] = q;
    let r = [
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y + z * w),
        2.0 * (x * z - y * w),
        2.0 * (x * y - z * w),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z + x * w),
        2.0 * (x * z + y * w),
        2.0 * (y * z - x * w),
        1.0 - 2.0 * (x * x + y * y),
    ];
    [r[0] * s[0], r[1] * s[0], r[2] * s[0], 0.0, r[3] * s[1], r[4] * s[1], r[5] * s[1], 0.0, r[6] * s[2], r[7] * s[2], r[8] * s[2], 0.0, t[0], t[1], t[2], 1.0]
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Bounds {
    pub fn empty() -> Self {
        Bounds { min: [f32::INFINITY; 3], max: [f32::NEG_INFINITY; 3] }
    }

    pub fn add(&mut self, p: [f32; 3]) {
        for (k, &c) in p.iter().enumerate() {
            self.min[k] = self.min[k].min(c);
            self.max[k] = self.max[k].max(c);
        }
    }

    /// Grown to hold `other` as well (an empty `other` changes nothing).
    pub fn merge(&mut self, other: &Bounds) {
        for k in 0..3 {
            self.min[k] = self.min[k].min(other.min[k]);
            self.max[k] = self.max[k].max(other.max[k]);
        }
    }

    pub fn of(points: &[[f32; 3]]) -> Self {
        let mut b = Bounds::empty();
        points.iter().for_each(|&p| b.add(p));
        b
    }

    pub fn is_empty(&self) -> bool {
        self.min[0] > self.max[0]
    }

    /// Largest side; 0 for an empty box.
    pub fn extent(&self) -> f32 {
        if self.is_empty() {
            return 0.0;
        }
        (0..3).map(|k| self.max[k] - self.min[k]).fold(0.0, f32::max)
    }

    pub fn center(&self) -> [f32; 3] {
        [0, 1, 2].map(|k| (self.min[k] + self.max[k]) * 0.5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::uniform;

    #[test]
    fn a_stretched_turned_node_stretches_by_its_largest_scale_and_inverts() {
        let q = [0.0, 0.0, (0.3f32).sin(), (0.3f32).cos()];
        let m = compose([5.0, -1.0, 2.0], q, [3.0, 0.9, 1.3]);
        assert!((stretch(&m) - 3.0).abs() < 1e-5, "{}", stretch(&m));
        assert!(!stretches_evenly(&m));
        assert!(stretches_evenly(&compose([1.0; 3], q, [2.0; 3])));
        let l = linear_part(&m);
        let back = mul(&inverse_linear(&l).expect("invertible"), &l);
        for (k, v) in back.iter().enumerate() {
            assert!((v - crate::model::IDENTITY[k]).abs() < 1e-5, "{back:?}");
        }
        assert_eq!(inverse_linear(&linear_part(&compose([0.0; 3], q, [1.0, 0.0, 1.0]))), None);
        // A shear: its largest singular value is past its largest column norm.
        let mut shear = crate::model::IDENTITY;
        shear[4] = 1.0;
        assert!((stretch(&shear) - 1.618034).abs() < 1e-5, "{}", stretch(&shear));
    }

    #[test]
    fn the_closed_form_stretch_is_the_largest_singular_value_and_the_bound_above_it_holds() {
        let mut unit = uniform(5);
        let mut next = || unit() * 4.0 - 2.0;
        for round in 0..2_000 {
            let mut m = crate::model::IDENTITY;
            for c in 0..3 {
                for r in 0..3 {
                    m[c * 4 + r] = next();
                }
            }
            if round % 4 == 0 {
                // A rotation and one scale: every singular value alike.
                let axis = [next(), next(), next()];
                let length = dot(axis, axis).sqrt().max(1e-3);
                let angle = next();
                let q = [axis[0] / length * angle.sin(), axis[1] / length * angle.sin(), axis[2] / length * angle.sin(), angle.cos()];
                m = compose([next(); 3], q, [next().abs() + 0.1; 3]);
            }
            // Power iteration run long, in f64, from a start with a part along every direction.
            let g = gram(&m);
            let mut v = [1.0, 0.7, 0.4];
            for _ in 0..2_000 {
                let w = [0, 1, 2].map(|i| (0..3).map(|j| g[i][j] * v[j]).sum::<f64>());
                let length = w.iter().map(|x| x * x).sum::<f64>().sqrt();
                v = w.map(|x| x / length);
            }
            let w = [0, 1, 2].map(|i| (0..3).map(|j| g[i][j] * v[j]).sum::<f64>());
            let iterated = (0..3).map(|i| v[i] * w[i]).sum::<f64>().sqrt().max(largest_scale(&m));
            assert!((stretch(&m) - iterated).abs() <= 1e-6 * iterated, "{m:?}: {} against {iterated}", stretch(&m));
            assert!(stretch_at_most(&m) >= stretch(&m) * (1.0 - 1e-12), "{m:?}");
        }
        assert_eq!(stretch(&[0.0; 16]), 0.0);
    }

    #[test]
    fn compose_then_transform_applies_scale_rotation_translation() {
        let half = std::f32::consts::FRAC_1_SQRT_2;
        let m = compose([1.0, 2.0, 3.0], [0.0, 0.0, half, half], [2.0, 2.0, 2.0]);
        let p = transform_point(&m, [1.0, 0.0, 0.0]);
        assert!((p[0] - 1.0).abs() < 1e-5 && (p[1] - 4.0).abs() < 1e-5 && (p[2] - 3.0).abs() < 1e-5);
        assert!((determinant3(&m) - 8.0).abs() < 1e-4);
    }

    #[test]
    fn normal_matrix_keeps_normals_perpendicular_under_non_uniform_scale() {
        let m = compose([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0, 4.0, 1.0]);
        let nm = normal_matrix(&m);
        let n = [1.0f32, 1.0, 0.0];
        let t = [nm[0][0] * n[0] + nm[0][1] * n[1], nm[1][0] * n[0] + nm[1][1] * n[1], 0.0];
        let tangent = transform_point(&m, [1.0, -1.0, 0.0]);
        assert!(dot(t, tangent).abs() < 1e-5);
    }
}
