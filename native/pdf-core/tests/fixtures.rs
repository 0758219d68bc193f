//! Encryption, repair and encoding behaviour on small fixtures derived from one hand-written PDF
//! (see fixtures/make-fixtures.sh).

use pdf_core::{ErrorCode, Mode, PdfDocument};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture present")
}

fn text_of(name: &str) -> Vec<String> {
    let doc = PdfDocument::open(&fixture(name)).unwrap_or_else(|error| panic!("{name}: {error}"));
    doc.extract(1, doc.page_count(), Mode::Plain)
        .pages
        .into_iter()
        .map(|page| page.text)
        .collect()
}

const FIRST_PAGE: &str = "Kiln fixture: Grüße, café — naïve\nKerned words\nΩß";

#[test]
fn reads_winansi_differences_and_kerned_words() {
    assert_eq!(text_of("plain.pdf"), vec![FIRST_PAGE, "Second page"]);
}

#[test]
fn decrypts_rc4_and_aes_with_the_empty_user_password() {
    for name in ["rc4-40.pdf", "rc4-128.pdf", "aes-128.pdf", "aes-256.pdf"] {
        assert_eq!(text_of(name), vec![FIRST_PAGE, "Second page"], "{name}");
    }
}

#[test]
fn refuses_a_user_password_with_a_hint() {
    let error = PdfDocument::open(&fixture("user-password.pdf"))
        .err()
        .expect("password required");
    assert_eq!(error.code, ErrorCode::InvalidPdf);
    assert!(error.message.contains("password"), "{}", error.message);
    assert!(error.hint.contains("password"), "{}", error.hint);
}

#[test]
fn repairs_a_broken_cross_reference_table() {
    assert_eq!(text_of("broken-xref.pdf"), vec![FIRST_PAGE, "Second page"]);
}

#[test]
fn refuses_other_formats_and_garbage() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    assert_eq!(
        PdfDocument::open(png).err().map(|e| e.code),
        Some(ErrorCode::UnsupportedFormat)
    );
    assert_eq!(
        PdfDocument::open(b"%PDF-1.7\n garbage")
            .err()
            .map(|e| e.code),
        Some(ErrorCode::InvalidPdf)
    );
    assert_eq!(
        PdfDocument::open(b"").err().map(|e| e.code),
        Some(ErrorCode::UnsupportedFormat)
    );
}

#[test]
fn layout_mode_keeps_lines_and_columns() {
    let doc = PdfDocument::open(&fixture("plain.pdf")).expect("opens");
    let page = &doc.extract(1, 1, Mode::Layout).pages[0];
    assert!(
        page.text
            .lines()
            .next()
            .is_some_and(|line| line.starts_with("Kiln fixture")),
        "{}",
        page.text
    );
    assert_eq!(
        page.text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .count(),
        3
    );
}
