//! Files built to make a reader do unbounded work must cost bounded work.

use pdf_core::{Mode, PdfDocument};
use std::time::Instant;

/// Forms drawing ten copies of the next form, ten levels deep: 10^10 glyph runs if unbounded.
fn nested_forms_pdf() -> Vec<u8> {
    nested_forms_pdf_drawing("BT /F1 12 Tf 10 10 Td (boom) Tj ET")
}

/// The innermost form draws `innermost` (text, or rules and text).
fn nested_forms_pdf_drawing(innermost: &str) -> Vec<u8> {
    const LEVELS: usize = 10;
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources 4 0 R /Contents 5 0 R >>"
            .to_string(),
    ];
    let forms: String = (0..=LEVELS)
        .map(|level| format!("/X{level} {} 0 R ", 7 + level))
        .collect();
    objects.push(format!("<< /Font << /F1 6 0 R >> /XObject << {forms}>> >>"));
    objects.push(stream("/X0 Do"));
    objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string());
    for level in 0..LEVELS {
        let body = format!("/X{} Do ", level + 1).repeat(10);
        objects.push(stream_with(
            "/Type /XObject /Subtype /Form /BBox [0 0 200 200] /Resources 4 0 R",
            &body,
        ));
    }
    objects.push(stream_with(
        "/Type /XObject /Subtype /Form /BBox [0 0 200 200] /Resources 4 0 R",
        innermost,
    ));
    let mut out = b"%PDF-1.4\n".to_vec();
    for (index, object) in objects.iter().enumerate() {
        out.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", index + 1).as_bytes());
    }
    // No cross-reference table: the reader rebuilds it by scanning, which is also under test.
    out.extend_from_slice(b"trailer\n<< /Root 1 0 R >>\n%%EOF\n");
    out
}

fn stream(content: &str) -> String {
    stream_with("", content)
}

fn stream_with(dict: &str, content: &str) -> String {
    format!(
        "<< {dict} /Length {} >>\nstream\n{content}\nendstream",
        content.len()
    )
}

#[test]
fn nested_forms_stop_at_the_work_budget_with_a_note() {
    let doc = PdfDocument::open(&nested_forms_pdf()).expect("opens");
    let started = Instant::now();
    let extraction = doc.extract(1, 1, Mode::Plain);
    assert!(
        started.elapsed().as_secs() < 60,
        "took {:?}",
        started.elapsed()
    );
    assert!(extraction.pages[0].text.starts_with("boom"));
    assert!(
        extraction
            .notes
            .iter()
            .any(|note| note.contains("cut short")),
        "{:?}",
        extraction.notes
    );
}

#[test]
fn ruling_lines_of_a_page_that_draws_billions_stay_bounded() {
    // Each innermost form strokes a grid and fills thin rectangles: 10^10 copies if unbounded.
    let doc = PdfDocument::open(&nested_forms_pdf_drawing(
        "0.5 w 0 0 m 100 0 l 100 100 l S 50 0 m 50 100 l S 0 40 100 1 re f \
         BT /F1 12 Tf 10 10 Td (a) Tj 60 0 Td (b) Tj ET",
    ))
    .expect("opens");
    let started = Instant::now();
    let extraction = doc.extract_lines(1, 1);
    assert!(
        started.elapsed().as_secs() < 60,
        "took {:?}",
        started.elapsed()
    );
    let page = &extraction.pages[0];
    assert_eq!(page.rules.len(), 10_000);
    assert!(
        page.lines.iter().any(|line| line.text == "a"),
        "{:?}",
        &page.lines[..2]
    );
    assert!(extraction
        .notes
        .iter()
        .any(|note| note.contains("cut short")));
}
