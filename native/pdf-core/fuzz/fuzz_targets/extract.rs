#![no_main]
//! Any bytes: open must return a value, and extraction of the first pages must not panic.

use libfuzzer_sys::fuzz_target;
use pdf_core::{Mode, PdfDocument};

fuzz_target!(|data: &[u8]| {
    if let Ok(doc) = PdfDocument::open(data) {
        let last = doc.page_count().min(20);
        let _ = doc.extract(1, last, Mode::Plain);
        let _ = doc.extract(1, last.min(2), Mode::Layout);
    }
});
