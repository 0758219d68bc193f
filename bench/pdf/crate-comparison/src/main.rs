//! Runs pdf_oxide and pdf-extract (with lopdf) over PDFs: for each, one line
//! `crate  file  ok|err|panic  pages  milliseconds`, and the text of every page, form-feed
//! separated, in OUT_DIR/<crate>/<stem>.txt for bench/pdf/similarity.ts --texts.
use std::path::Path;
use std::time::Instant;

type Outcome = std::thread::Result<Result<Vec<String>, String>>;

fn main() {
    let mut args = std::env::args().skip(1);
    let out_dir = args.next().expect("usage: OUT_DIR FILE.pdf...");
    for path in args {
        let bytes = std::fs::read(&path).expect("readable file");
        let stem = Path::new(&path).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(|| -> Result<Vec<String>, String> {
            let doc = pdf_oxide::PdfDocument::from_bytes(bytes.clone()).map_err(|e| e.to_string())?;
            let pages = doc.page_count().map_err(|e| e.to_string())?;
            (0..pages).map(|page| doc.extract_text(page).map_err(|e| e.to_string())).collect()
        });
        report(Path::new(&out_dir), "pdf_oxide", &stem, started, outcome);
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem_by_pages(&bytes).map_err(|e| e.to_string()));
        report(Path::new(&out_dir), "pdf-extract", &stem, started, outcome);
    }
}

fn report(out_dir: &Path, name: &str, stem: &str, started: Instant, outcome: Outcome) {
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    match outcome {
        Ok(Ok(pages)) => {
            let dir = out_dir.join(name);
            std::fs::create_dir_all(&dir).expect("writable output dir");
            std::fs::write(dir.join(format!("{stem}.txt")), pages.join("\x0c")).expect("written text");
            println!("{name}\t{stem}\tok\t{}\t{ms:.1}", pages.len());
        }
        Ok(Err(error)) => println!("{name}\t{stem}\terr\t{}\t{ms:.1}", error.chars().take(100).collect::<String>()),
        Err(_) => println!("{name}\t{stem}\tpanic\t\t{ms:.1}"),
    }
}
