//! Errors as values: every failure of the core maps to one of the service's job error codes.
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidMesh,
    UnsupportedFormat,
    LimitExceeded,
    /// Options the core cannot read: a wrong type, an unknown or a missing field. The service
    /// validates options against its catalog first, so this means the two disagree.
    InvalidOptions,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidMesh => "invalid_mesh",
            ErrorCode::UnsupportedFormat => "unsupported_format",
            ErrorCode::LimitExceeded => "limit_exceeded",
            ErrorCode::InvalidOptions => "invalid_options",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct MeshError {
    pub code: ErrorCode,
    pub message: String,
    pub hint: String,
}

impl MeshError {
    pub fn invalid(message: impl Into<String>) -> Self {
        MeshError {
            code: ErrorCode::InvalidMesh,
            message: message.into(),
            hint: "Check that the file is a complete, valid model; re-export it from your 3D tool if unsure.".into(),
        }
    }

    pub fn unsupported(message: impl Into<String>, hint: impl Into<String>) -> Self {
        MeshError { code: ErrorCode::UnsupportedFormat, message: message.into(), hint: hint.into() }
    }

    pub fn options(message: impl Into<String>) -> Self {
        MeshError {
            code: ErrorCode::InvalidOptions,
            message: message.into(),
            hint: "Pass every option of the tool with its documented type (see the tool's options schema); no others.".into(),
        }
    }

    pub fn limit(message: impl Into<String>, hint: impl Into<String>) -> Self {
        MeshError { code: ErrorCode::LimitExceeded, message: message.into(), hint: hint.into() }
    }
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for MeshError {}

pub type Result<T> = std::result::Result<T, MeshError>;
