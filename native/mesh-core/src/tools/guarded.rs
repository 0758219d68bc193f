//! One entry point for every front end (the napi binding, the `kiln-mesh` command): runs a tool by
//! name and turns a panic anywhere in the core into an `invalid_mesh` error value, so no front end
//! can crash on a hostile file.
use super::{Input, ToolResult};
use crate::error::{ErrorCode, MeshError, Result};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a front end asks the core to do.
pub enum Job {
    /// Count faces (the pricing unit) as the tool counts them, refusing models above `max_faces`.
    Measure {
        max_faces: usize,
        placed: bool,
        /// Whether a model of points or lines alone is measured (0 faces) rather than refused.
        drawings: bool,
    },
    Inspect(Value),
    Simplify(Value),
    Optimize(Value),
    Split(Value),
}

pub enum Done {
    Measured(usize),
    Ran(ToolResult),
}

impl Job {
    /// The measure for a tool name; None for an unknown name.
    pub fn measure(tool: &str, max_faces: usize) -> Option<Job> {
        super::counts_placed_faces(tool).map(|placed| Job::Measure { max_faces, placed, drawings: super::reads_drawings(tool) })
    }

    /// The job for a tool name with its JSON options; None for an unknown name.
    pub fn named(tool: &str, options: Value) -> Option<Job> {
        Some(match tool {
            "inspect" => Job::Inspect(options),
            "simplify" => Job::Simplify(options),
            "optimize" => Job::Optimize(options),
            "split" => Job::Split(options),
            _ => return None,
        })
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned()).unwrap_or_else(|| "unknown panic".into())
}

/// Runs `job` on `input`; a panic comes back as `invalid_mesh`, never unwinds into the caller.
pub fn run_guarded(job: Job, input: &Input) -> Result<Done> {
    let outcome = catch_unwind(AssertUnwindSafe(|| match job {
        Job::Measure { max_faces, placed, drawings } => super::measure(input, max_faces, placed, drawings).map(Done::Measured),
        Job::Inspect(o) => super::inspect::run(input, &o).map(Done::Ran),
        Job::Simplify(o) => super::simplify::run(input, &o).map(Done::Ran),
        Job::Optimize(o) => super::optimize::run(input, &o).map(Done::Ran),
        Job::Split(o) => super::split::run(input, &o).map(Done::Ran),
    }));
    outcome.unwrap_or_else(|payload| {
        Err(MeshError {
            code: ErrorCode::InvalidMesh,
            message: format!("the model could not be processed ({})", panic_message(payload)),
            hint: "The file may be corrupt; re-export it and try again.".into(),
        })
    })
}
