//! Prints the text of a PDF, pages separated by form feeds (as pdftotext does), and the timing
//! to stderr: `cargo run --release --example extract -- file.pdf [layout]`.
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: extract FILE.pdf [layout]");
    let mode = if args.next().as_deref() == Some("layout") {
        pdf_core::Mode::Layout
    } else {
        pdf_core::Mode::Plain
    };
    let bytes = std::fs::read(&path).expect("readable file");
    let started = Instant::now();
    match pdf_core::PdfDocument::open(&bytes) {
        Ok(doc) => {
            let extraction = doc.extract(1, doc.page_count(), mode);
            for page in &extraction.pages {
                print!("{}\x0c", page.text);
            }
            eprintln!(
                "{} pages in {:.1} ms; notes: {:?}",
                extraction.pages.len(),
                started.elapsed().as_secs_f64() * 1000.0,
                extraction.notes
            );
        }
        Err(error) => eprintln!("{error} (hint: {})", error.hint),
    }
}
