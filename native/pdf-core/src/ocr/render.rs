//! Rasterizing one page with hayro (pure Rust, so the wasm build keeps working) into an 8-bit
//! grey PGM: the format Tesseract reads without conversion, and a quarter of RGBA's memory.

use crate::error::{ErrorCode, PdfError};
use hayro::hayro_interpret::InterpreterSettings;
use hayro::hayro_syntax::Pdf;
use hayro::vello_cpu::color::palette::css::WHITE;
use hayro::{render, PixmapSettings, RenderCache, RenderSettings};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Upper bound on a rendered page's pixels: a Letter page at 300 dpi is 8.4 million; a poster-sized
/// page is scaled down to this instead of allocating gigabytes.
pub const MAX_RENDER_PIXELS: f64 = 40_000_000.0;
/// Neither side may exceed this (the rasterizer's coordinates are 16-bit).
const MAX_SIDE: f64 = 16_000.0;

pub struct RenderedPage {
    /// Binary PGM (P5), 8-bit grey, white background.
    pub pgm: Vec<u8>,
    pub width: u32,
    pub height: u32,
    /// The resolution actually used, lower than asked when the page had to be scaled down.
    pub dpi: f64,
}

fn invalid(message: impl Into<String>) -> PdfError {
    PdfError::new(
        ErrorCode::InvalidPdf,
        message,
        "The file is damaged or not a complete PDF; re-export or re-download it, then try again.",
    )
}

/// The scale (pixels per PDF point) for `dpi`, lowered so the page stays within the pixel bounds.
fn bounded_scale(width_pt: f64, height_pt: f64, dpi: f64) -> f64 {
    let mut scale = dpi / 72.0;
    let area = width_pt * height_pt * scale * scale;
    if area > MAX_RENDER_PIXELS {
        scale *= (MAX_RENDER_PIXELS / area).sqrt();
    }
    let longest = width_pt.max(height_pt) * scale;
    if longest > MAX_SIDE {
        scale *= MAX_SIDE / longest;
    }
    scale
}

/// Renders page `page_number` (1-based) of the PDF at `dpi` (bounded, see [`MAX_RENDER_PIXELS`]).
pub fn render_page(bytes: &[u8], page_number: usize, dpi: f64) -> Result<RenderedPage, PdfError> {
    // Forms and Type 3 glyphs drawing one another multiply the renderer's work without a bound
    // of its own, and a glyph drawing itself overflows its stack (nested_runs.rs).
    if let Ok(doc) = crate::PdfDocument::open(bytes) {
        if doc.nested_runs(page_number.saturating_sub(1)) > crate::MAX_NESTED_RUNS {
            return Err(invalid(format!(
                "Page {page_number} was not rendered: its forms and Type 3 glyphs draw one another more than {} times (or draw themselves).",
                crate::MAX_NESTED_RUNS
            )));
        }
    }
    let pdf = Pdf::new(bytes.to_vec())
        .map_err(|error| invalid(format!("The PDF could not be rendered: {error:?}.")))?;
    let pages = pdf.pages();
    let Some(page) = page_number
        .checked_sub(1)
        .and_then(|index| pages.get(index))
    else {
        return Err(invalid(format!(
            "Page {page_number} could not be found for rendering (the document has {} pages to the renderer).",
            pages.len()
        )));
    };
    let (width_pt, height_pt) = page.render_dimensions();
    if !(width_pt.is_finite() && height_pt.is_finite()) || width_pt < 1.0 || height_pt < 1.0 {
        return Err(invalid(format!(
            "Page {page_number} has no usable size to render."
        )));
    }
    let scale = bounded_scale(width_pt as f64, height_pt as f64, dpi) as f32;
    let settings = PixmapSettings {
        x_scale: scale,
        y_scale: scale,
        bg_color: WHITE,
    };
    // The renderer is third-party code meeting hostile input: a panic there fails this page only.
    let pixmap = catch_unwind(AssertUnwindSafe(|| {
        let cache = RenderCache::new();
        render(
            page,
            &cache,
            &InterpreterSettings::default(),
            &RenderSettings::default(),
            &settings,
        )
    }))
    .map_err(|_| invalid(format!("Page {page_number} broke the renderer.")))?;
    let (width, height) = (pixmap.width() as u32, pixmap.height() as u32);
    let header = format!("P5\n{width} {height}\n255\n");
    let mut pgm = Vec::with_capacity(header.len() + (width * height) as usize);
    pgm.extend_from_slice(header.as_bytes());
    // The background is opaque white, so premultiplied and straight colour are the same.
    pgm.extend(pixmap.data().iter().map(|pixel| {
        ((pixel.r as u32 * 299 + pixel.g as u32 * 587 + pixel.b as u32 * 114) / 1000) as u8
    }));
    Ok(RenderedPage {
        pgm,
        width,
        height,
        dpi: scale as f64 * 72.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_is_bounded_by_pixels_and_side() {
        let letter = bounded_scale(612.0, 792.0, 300.0);
        assert!((letter - 300.0 / 72.0).abs() < 1e-9);
        let poster = bounded_scale(14_400.0, 14_400.0, 300.0);
        assert!(14_400.0 * 14_400.0 * poster * poster <= MAX_RENDER_PIXELS + 1.0);
        let strip = bounded_scale(14_400.0, 10.0, 300.0);
        assert!(14_400.0 * strip <= MAX_SIDE + 1e-6);
    }
}
