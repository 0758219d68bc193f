//! 2-D affine matrices in PDF's row-vector convention: [a b c d e f] maps (x, y) to
//! (a·x + c·y + e, b·x + d·y + f), and `m.then(n)` applies m first.

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Matrix(pub [f32; 6]);

impl Matrix {
    pub const IDENTITY: Matrix = Matrix([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);

    pub fn from_slice(values: &[f32]) -> Option<Matrix> {
        let array: [f32; 6] = values.try_into().ok()?;
        array.iter().all(|v| v.is_finite()).then_some(Matrix(array))
    }

    pub fn translation(x: f32, y: f32) -> Matrix {
        Matrix([1.0, 0.0, 0.0, 1.0, x, y])
    }

    pub fn then(&self, next: &Matrix) -> Matrix {
        let [a, b, c, d, e, f] = self.0;
        let [na, nb, nc, nd, ne, nf] = next.0;
        Matrix([
            a * na + b * nc,
            a * nb + b * nd,
            c * na + d * nc,
            c * nb + d * nd,
            e * na + f * nc + ne,
            e * nb + f * nd + nf,
        ])
    }

    pub fn apply(&self, x: f32, y: f32) -> (f32, f32) {
        let [a, b, c, d, e, f] = self.0;
        (a * x + c * y + e, b * x + d * y + f)
    }

    /// Maps a direction, ignoring the translation.
    pub fn apply_vector(&self, x: f32, y: f32) -> (f32, f32) {
        let [a, b, c, d, _, _] = self.0;
        (a * x + c * y, b * x + d * y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn then_applies_the_left_matrix_first() {
        let scale = Matrix([2.0, 0.0, 0.0, 2.0, 0.0, 0.0]);
        let shift = Matrix::translation(10.0, 0.0);
        assert_eq!(scale.then(&shift).apply(1.0, 1.0), (12.0, 2.0));
        assert_eq!(shift.then(&scale).apply(1.0, 1.0), (22.0, 2.0));
    }
}
