//! Reading a tool's options. The service's tool catalog owns every option's type, default and
//! limit, and sends the core complete options; the core reads them into typed structs that refuse
//! unknown fields, missing fields and wrong types, so a mistyped option is an error, never a
//! silently applied default.
use crate::error::{MeshError, Result};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

/// Reads `options` as `T`, or an `invalid_options` error naming the tool and the field.
pub fn parse<T: DeserializeOwned>(tool: &str, options: &Value) -> Result<T> {
    T::deserialize(options).map_err(|e| MeshError::options(format!("{tool} options: {e}")))
}

/// animation_error the catalog accepts (optimize and simplify), as a fraction of the scene's
/// extent: from finer than 16-bit positions' half step (7.6e-6) to a hundredth of the scene.
pub const ANIMATION_ERROR: (f64, f64) = (1e-6, 0.01);

/// Refuses a number outside the range the catalog allows (the catalog checks first; this keeps
/// the core's own invariants when it is called directly).
pub fn check_range(tool: &str, name: &str, value: f64, min: f64, max: f64) -> Result<()> {
    if !(min..=max).contains(&value) {
        return Err(MeshError::options(format!("{tool} options: {name} is {value}, outside {min}..={max}")));
    }
    Ok(())
}

/// inspect_3d_model: no options of its own, only the face limit.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InspectOptions {
    pub max_faces: usize,
}
