//! Node binding of mesh-core: each call runs as an AsyncTask on the libuv pool, reads the input
//! Buffer in place, and answers with a value: either the tool's summary and files (as Buffers
//! that take over the Rust allocations) or an error code, message and hint. A panic in the
//! core becomes an `invalid_mesh` error (mesh_core::tools::guarded), never a crash of the process.
use mesh_core::read::ReadOptions;
use mesh_core::tools::guarded::{run_guarded, Done, Job};
use mesh_core::tools::Input;
use mesh_core::MeshError;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::PathBuf;

#[cfg(target_family = "wasm")]
mod wasm_cxx;

#[napi(object)]
pub struct OutputFile {
    pub name: String,
    pub data: Buffer,
}

#[napi(object)]
pub struct ToolError {
    pub code: String,
    pub message: String,
    pub hint: String,
}

#[napi(object)]
pub struct ToolOutcome {
    /// JSON text of the tool's summary fields (absent on error).
    pub summary_json: Option<String>,
    pub files: Vec<OutputFile>,
    /// Faces counted (measure only).
    pub faces: Option<u32>,
    pub error: Option<ToolError>,
}

pub struct ToolTask {
    job: Option<Job>,
    input: Buffer,
    name: String,
    extension: String,
    resource_dir: Option<String>,
}

impl Task for ToolTask {
    type Output = std::result::Result<Done, MeshError>;
    type JsValue = ToolOutcome;

    fn compute(&mut self) -> Result<Self::Output> {
        let job = self.job.take().ok_or_else(|| Error::from_reason("task already ran"))?;
        let input = Input {
            data: &self.input,
            name: &self.name,
            extension: &self.extension,
            read: ReadOptions { resource_dir: self.resource_dir.as_ref().map(PathBuf::from), ..ReadOptions::default() },
        };
        Ok(run_guarded(job, &input))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<ToolOutcome> {
        Ok(match output {
            Ok(Done::Measured(faces)) => ToolOutcome { summary_json: None, files: Vec::new(), faces: Some(faces.min(u32::MAX as usize) as u32), error: None },
            Ok(Done::Ran(result)) => ToolOutcome {
                summary_json: Some(result.summary.to_string()),
                files: result.files.into_iter().map(|f| OutputFile { name: f.name, data: f.data.into() }).collect(),
                faces: None,
                error: None,
            },
            Err(e) => ToolOutcome {
                summary_json: None,
                files: Vec::new(),
                faces: None,
                error: Some(ToolError { code: e.code.as_str().into(), message: e.message, hint: e.hint }),
            },
        })
    }
}

fn task(job: Job, input: Buffer, name: String, extension: String, resource_dir: Option<String>) -> AsyncTask<ToolTask> {
    AsyncTask::new(ToolTask { job: Some(job), input, name, extension, resource_dir })
}

fn options(json: &str) -> Result<serde_json::Value> {
    serde_json::from_str(json).map_err(|e| Error::from_reason(format!("options are not JSON: {e}")))
}

/// Counts the model's faces (the pricing unit) as `tool` counts them; a limit error beyond `maxFaces`.
#[napi]
pub fn measure(tool: String, input: Buffer, name: String, extension: String, max_faces: u32, resource_dir: Option<String>) -> Result<AsyncTask<ToolTask>> {
    let job = Job::measure(&tool, max_faces as usize).ok_or_else(|| Error::from_reason(format!("unknown mesh tool {tool:?}")))?;
    Ok(task(job, input, name, extension, resource_dir))
}

/// Runs one tool ("inspect", "simplify", "optimize" or "split") with JSON options.
#[napi]
pub fn run_tool(
    tool: String,
    input: Buffer,
    name: String,
    extension: String,
    options_json: String,
    resource_dir: Option<String>,
) -> Result<AsyncTask<ToolTask>> {
    let job = Job::named(&tool, options(&options_json)?).ok_or_else(|| Error::from_reason(format!("unknown mesh tool {tool:?}")))?;
    Ok(task(job, input, name, extension, resource_dir))
}

#[napi]
pub fn core_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
