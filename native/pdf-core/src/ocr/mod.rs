//! What OCR needs from the core: a page as pixels. Recognition itself runs outside (Tesseract, as
//! a child process of the worker), so this module only rasterizes, page by page, with a bound on
//! the pixels so that one oversized page cannot exhaust the worker's memory.

mod render;

pub use render::{render_page, RenderedPage, MAX_RENDER_PIXELS};
