//! Rendering pages for OCR: the fixture's text comes out as dark pixels on white, at the asked
//! resolution, and bad input gives errors, never a panic.

use pdf_core::ocr::render_page;
use pdf_core::ErrorCode;

const PLAIN: &[u8] = include_bytes!("fixtures/plain.pdf");

#[test]
fn renders_a_text_page_to_grey_pixels_at_the_asked_resolution() {
    let page = render_page(PLAIN, 1, 150.0).expect("renders");
    let header = format!("P5\n{} {}\n255\n", page.width, page.height);
    assert!(page.pgm.starts_with(header.as_bytes()));
    let pixels = &page.pgm[header.len()..];
    assert_eq!(pixels.len(), (page.width * page.height) as usize);
    assert!((page.dpi - 150.0).abs() < 0.01);
    let dark = pixels.iter().filter(|&&value| value < 128).count();
    let white = pixels.iter().filter(|&&value| value == 255).count();
    assert!(dark > 200, "text should be drawn: {dark} dark pixels");
    assert!(white > pixels.len() * 9 / 10, "the background is white");
}

#[test]
fn refuses_a_page_past_the_end_and_a_file_that_is_not_a_pdf() {
    let past = render_page(PLAIN, 9, 150.0).err().expect("no page 9");
    assert_eq!(past.code, ErrorCode::InvalidPdf);
    let zero = render_page(PLAIN, 0, 150.0)
        .err()
        .expect("pages are 1-based");
    assert_eq!(zero.code, ErrorCode::InvalidPdf);
    assert!(render_page(b"not a pdf", 1, 150.0).is_err());
}
