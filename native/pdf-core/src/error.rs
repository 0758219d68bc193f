//! Errors as values, each with the service's error code so the binding can map them one to one.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidPdf,
    UnsupportedFormat,
    LimitExceeded,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidPdf => "invalid_pdf",
            ErrorCode::UnsupportedFormat => "unsupported_format",
            ErrorCode::LimitExceeded => "limit_exceeded",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdfError {
    pub code: ErrorCode,
    pub message: String,
    pub hint: String,
}

impl PdfError {
    pub fn new(code: ErrorCode, message: impl Into<String>, hint: impl Into<String>) -> Self {
        PdfError {
            code,
            message: message.into(),
            hint: hint.into(),
        }
    }
}

impl fmt::Display for PdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for PdfError {}
