//! napi-rs binding of pdf-core. It only converts: the file arrives as a Buffer (no copy), the
//! work runs as an AsyncTask on the libuv pool, and every outcome — including a panic, which is
//! caught here so it never unwinds into Node — comes back as a value with a service error code.

use napi::bindgen_prelude::{AsyncTask, Buffer};
use napi::{Env, Task};
use napi_derive::napi;
use pdf_core::{ErrorCode, Mode, PdfDocument, PdfError};
use std::panic::{catch_unwind, AssertUnwindSafe};

#[napi(object)]
pub struct PdfFailure {
    /// invalid_pdf, unsupported_format or limit_exceeded.
    pub code: String,
    pub message: String,
    pub hint: String,
}

#[napi(object)]
pub struct PdfLine {
    pub text: String,
    /// Extent along the writing direction and baseline, in PDF points (line space: rotated so
    /// the text runs along +x and up is +y).
    pub start: f64,
    pub end: f64,
    pub baseline: f64,
    pub size: f64,
    pub bold: bool,
    /// Quarter turns counter-clockwise from horizontal.
    pub direction: u32,
}

/// A ruling line (a stroke or thin filled rectangle) as the box it covers, in PDF points with y
/// up: a horizontal rule is wider than tall, a vertical one taller than wide.
#[napi(object)]
pub struct PdfRule {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

#[napi(object)]
pub struct PdfPage {
    pub number: u32,
    pub text: String,
    pub chars: u32,
    pub empty: bool,
    pub image_only: bool,
    pub unmapped_glyphs: u32,
    /// The page's lines with their geometry, only with `lines: true`; they hold the words of `text`
    /// (a vertical rule between two cells splits what plain mode writes as one line).
    pub lines: Option<Vec<PdfLine>>,
    /// The page's ruling lines (table borders), only with `lines: true`.
    pub rules: Option<Vec<PdfRule>>,
}

#[napi(object)]
pub struct PdfExtraction {
    pub page_count: u32,
    /// The pages actually extracted, after clamping the range to the document.
    pub first_page: u32,
    pub last_page: u32,
    pub pages: Vec<PdfPage>,
    pub notes: Vec<String>,
}

#[napi(object)]
pub struct ExtractOutcome {
    pub extraction: Option<PdfExtraction>,
    pub failure: Option<PdfFailure>,
}

#[napi(object)]
pub struct CountOutcome {
    pub page_count: Option<u32>,
    pub failure: Option<PdfFailure>,
}

#[napi(object)]
pub struct ExtractOptions {
    pub first_page: Option<u32>,
    pub last_page: Option<u32>,
    /// "plain" (default) or "layout".
    pub mode: Option<String>,
    /// Also return each page's lines with their geometry (plain mode's text).
    pub lines: Option<bool>,
}

fn failure(error: PdfError) -> PdfFailure {
    PdfFailure {
        code: error.code.as_str().to_string(),
        message: error.message,
        hint: error.hint,
    }
}

/// A panic is a bug of ours met on a hostile file: the caller gets invalid_pdf, the process lives.
fn guarded<T>(work: impl FnOnce() -> Result<T, PdfError>) -> Result<T, PdfError> {
    catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|_| {
        Err(PdfError::new(
            ErrorCode::InvalidPdf,
            "The PDF could not be read: its structure broke the reader.",
            "The file is likely damaged; re-export it (for example print to PDF) and try again.",
        ))
    })
}

pub struct ExtractTask {
    bytes: Buffer,
    first_page: u32,
    last_page: Option<u32>,
    mode: Mode,
    lines: bool,
}

impl Task for ExtractTask {
    type Output = Result<PdfExtraction, PdfError>;
    type JsValue = ExtractOutcome;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let doc = PdfDocument::open(&self.bytes)?;
            let page_count = doc.page_count() as u32;
            let first = self.first_page.max(1);
            let last = self.last_page.unwrap_or(page_count).min(page_count);
            let extraction = if self.lines {
                doc.extract_lines(first as usize, last as usize)
            } else {
                doc.extract(first as usize, last as usize, self.mode)
            };
            let with_lines = self.lines;
            Ok(PdfExtraction {
                page_count,
                first_page: first,
                last_page: last,
                pages: extraction
                    .pages
                    .into_iter()
                    .map(|page| PdfPage {
                        number: page.number as u32,
                        chars: page.chars as u32,
                        empty: page.empty,
                        image_only: page.image_only,
                        unmapped_glyphs: page.unmapped_glyphs as u32,
                        text: page.text,
                        lines: with_lines.then(|| {
                            page.lines
                                .into_iter()
                                .map(|line| PdfLine {
                                    text: line.text,
                                    start: line.start as f64,
                                    end: line.end as f64,
                                    baseline: line.baseline as f64,
                                    size: line.size as f64,
                                    bold: line.bold,
                                    direction: line.direction as u32,
                                })
                                .collect()
                        }),
                        rules: with_lines.then(|| {
                            page.rules
                                .into_iter()
                                .map(|rule| PdfRule {
                                    x0: rule.x0 as f64,
                                    y0: rule.y0 as f64,
                                    x1: rule.x1 as f64,
                                    y1: rule.y1 as f64,
                                })
                                .collect()
                        }),
                    })
                    .collect(),
                notes: extraction.notes,
            })
        }))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        Ok(match output {
            Ok(extraction) => ExtractOutcome {
                extraction: Some(extraction),
                failure: None,
            },
            Err(error) => ExtractOutcome {
                extraction: None,
                failure: Some(failure(error)),
            },
        })
    }
}

pub struct CountTask {
    bytes: Buffer,
}

impl Task for CountTask {
    type Output = Result<u32, PdfError>;
    type JsValue = CountOutcome;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            Ok(PdfDocument::open(&self.bytes)?.page_count() as u32)
        }))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        Ok(match output {
            Ok(count) => CountOutcome {
                page_count: Some(count),
                failure: None,
            },
            Err(error) => CountOutcome {
                page_count: None,
                failure: Some(failure(error)),
            },
        })
    }
}

/// Extracts the text of pages first_page..=last_page (1-based; the range is clamped to the document).
#[napi(ts_return_type = "Promise<ExtractOutcome>")]
pub fn extract_text(bytes: Buffer, options: ExtractOptions) -> AsyncTask<ExtractTask> {
    let mode = if options.mode.as_deref() == Some("layout") {
        Mode::Layout
    } else {
        Mode::Plain
    };
    AsyncTask::new(ExtractTask {
        bytes,
        first_page: options.first_page.unwrap_or(1),
        last_page: options.last_page,
        mode,
        lines: options.lines.unwrap_or(false),
    })
}

/// Number of pages, for pricing before any extraction.
#[napi(ts_return_type = "Promise<CountOutcome>")]
pub fn count_pages(bytes: Buffer) -> AsyncTask<CountTask> {
    AsyncTask::new(CountTask { bytes })
}

#[napi(object)]
pub struct RenderedPage {
    /// Binary PGM (P5), 8-bit grey on white: Tesseract reads it as it is.
    pub pgm: Buffer,
    pub width: u32,
    pub height: u32,
    /// The resolution used; lower than asked when the page was scaled to the pixel bound.
    pub dpi: f64,
}

#[napi(object)]
pub struct RenderOutcome {
    pub page: Option<RenderedPage>,
    pub failure: Option<PdfFailure>,
}

pub struct RenderTask {
    bytes: Buffer,
    page_number: u32,
    dpi: f64,
}

impl Task for RenderTask {
    type Output = Result<pdf_core::ocr::RenderedPage, PdfError>;
    type JsValue = RenderOutcome;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            pdf_core::ocr::render_page(&self.bytes, self.page_number as usize, self.dpi)
        }))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        Ok(match output {
            Ok(page) => RenderOutcome {
                page: Some(RenderedPage {
                    pgm: page.pgm.into(),
                    width: page.width,
                    height: page.height,
                    dpi: page.dpi,
                }),
                failure: None,
            },
            Err(error) => RenderOutcome {
                page: None,
                failure: Some(failure(error)),
            },
        })
    }
}

/// Renders one page (1-based) to grey pixels for OCR, at `dpi` bounded by the core's pixel limit.
#[napi(ts_return_type = "Promise<RenderOutcome>")]
pub fn render_page(bytes: Buffer, page_number: u32, dpi: f64) -> AsyncTask<RenderTask> {
    AsyncTask::new(RenderTask {
        bytes,
        page_number,
        dpi,
    })
}
