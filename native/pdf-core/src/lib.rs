//! pdf-core: text extraction from PDF files, in pure Rust (no Node types, no C), so the same
//! crate builds the napi-rs addon and the wasm32-wasip1-threads fallback and runs under cargo's
//! tests and fuzzing.
//!
//! ```no_run
//! let bytes = std::fs::read("paper.pdf").unwrap();
//! let doc = pdf_core::PdfDocument::open(&bytes).unwrap();
//! let extraction = doc.extract(1, doc.page_count(), pdf_core::Mode::Plain);
//! ```

mod bidi;
mod document;
mod error;
mod extract;
mod fonts;
mod geometry;
mod inline_encrypt;
mod interpreter;
mod layout;
mod lexer;
mod nested_runs;
mod objects;
pub mod ocr;
mod rules;

pub use document::PdfDocument;
pub use error::{ErrorCode, PdfError};
pub use extract::{Extraction, PageText};
pub use layout::{Mode, TextLine};
pub use nested_runs::MAX_NESTED_RUNS;
pub use rules::Rule;
