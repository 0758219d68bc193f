//! Limits a reader checks from what a file declares (accessor counts, element counts, triangle
//! counts) before it decodes or allocates anything, so a small file that claims a huge mesh is
//! refused in microseconds instead of growing the worker to gigabytes first.
use crate::error::{MeshError, Result};

/// Decoded values (floats and indices) a model may need per face it is allowed: three corners
/// with position, normal, tangent, two UV sets, colour, joints and weights fit well inside.
const VALUES_PER_FACE: usize = 3 * 32;
/// Smallest decode budget, so tiny limits still read ordinary small files.
const MIN_VALUES: usize = 4 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    /// The tool's face limit; `usize::MAX` when the caller sets none.
    pub max_faces: usize,
    /// Count faces as placed in the scene (a mesh used by three nodes counts three times)
    /// instead of as stored in the file: for tools that bake every instance.
    pub placed: bool,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits { max_faces: usize::MAX, placed: false }
    }
}

impl ReadLimits {
    /// How many decoded values (4 bytes each) all geometry of the file may take.
    pub fn value_budget(&self) -> usize {
        self.max_faces.saturating_mul(VALUES_PER_FACE).max(MIN_VALUES)
    }

    /// Refuses a model whose declared faces exceed the limit.
    pub fn check_faces(&self, declared: usize) -> Result<()> {
        if declared > self.max_faces {
            let counted = if self.placed { " as placed in the scene" } else { "" };
            return Err(MeshError::limit(
                format!("the model declares {declared} faces{counted}; this tool takes up to {}", self.max_faces),
                "Simplify the model first (simplify_3d_model), or split it and send the parts one by one.",
            ));
        }
        Ok(())
    }

    /// Refuses a model whose declared vertex and index values exceed what its face limit needs.
    pub fn check_values(&self, declared: usize) -> Result<()> {
        if declared > self.value_budget() {
            return Err(MeshError::limit(
                format!("the model declares {declared} vertex and index values, more than a model of up to {} faces needs", self.max_faces),
                "Remove unused vertices and attributes (or split the model) and upload it again.",
            ));
        }
        Ok(())
    }
}
