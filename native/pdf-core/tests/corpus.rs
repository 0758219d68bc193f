//! Every PDF of the shared corpus, whole and damaged: the core returns text or an error value,
//! never panics. The damage is a seeded mutation loop (truncations, flipped bytes, dropped and
//! duplicated chunks) — a fuzz target that runs on stable Rust with a fixed budget here, and
//! with a bigger one through `PDF_FUZZ_CASES=20000 cargo test --release -p pdf-core --test corpus`
//! (`PDF_FUZZ_SEED`, a nonzero number, for another stream of damage than CI's).

use pdf_core::{ErrorCode, Mode, PdfDocument};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/pdf");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("SKIPPED: the shared corpus is not at {}", dir.display());
        None
    }
}

fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(folder)
            .expect("readable corpus")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "pdf") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Opens and extracts up to `max_pages`; Err(code) for a refused file, panics propagate as Err(None).
fn survive(bytes: &[u8], max_pages: usize) -> Result<Result<usize, ErrorCode>, ()> {
    catch_unwind(AssertUnwindSafe(|| match PdfDocument::open(bytes) {
        Ok(doc) => {
            let last = doc.page_count().min(max_pages);
            let extraction = doc.extract(1, last, Mode::Plain);
            let _ = doc.extract(1, last.min(3), Mode::Layout);
            Ok(extraction.pages.iter().map(|page| page.chars).sum())
        }
        Err(error) => Err(error.code),
    }))
    .map_err(|_| ())
}

#[test]
fn every_corpus_pdf_gives_text_or_an_error_code() {
    let Some(dir) = corpus_dir() else { return };
    let files = corpus_files(&dir);
    assert!(
        files.len() >= 20,
        "expected the corpus PDFs, found {}",
        files.len()
    );
    for file in files {
        let bytes = std::fs::read(&file).expect("readable file");
        let outcome =
            survive(&bytes, usize::MAX).unwrap_or_else(|_| panic!("panic on {}", file.display()));
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let malformed = file
            .components()
            .any(|part| part.as_os_str() == "malformed");
        let password = matches!(name, "saslprep-r6.pdf" | "libreoffice-writer-password.pdf");
        match outcome {
            Ok(_) => assert!(!password, "{name} needs a password but opened"),
            Err(code) => {
                assert!(
                    malformed || password,
                    "{name} is well formed but failed with {code:?}"
                );
                assert_eq!(code, ErrorCode::InvalidPdf, "{name}");
            }
        }
    }
}

/// xorshift64*: a fixed seed makes every run, and every failure, reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, original: &[u8]) -> Vec<u8> {
    let mut bytes = original.to_vec();
    match rng.below(4) {
        0 => bytes.truncate(rng.below(bytes.len())),
        1 => {
            for _ in 0..1 + rng.below(32) {
                let at = rng.below(bytes.len());
                if let Some(byte) = bytes.get_mut(at) {
                    *byte = rng.next() as u8;
                }
            }
        }
        2 => {
            let start = rng.below(bytes.len());
            let end = (start + 1 + rng.below(4096)).min(bytes.len());
            bytes.drain(start..end);
        }
        _ => {
            let start = rng.below(bytes.len());
            let end = (start + 1 + rng.below(4096)).min(bytes.len());
            let chunk = bytes[start..end].to_vec();
            let at = rng.below(bytes.len());
            bytes.splice(at..at, chunk);
        }
    }
    bytes
}

#[test]
fn mutated_and_truncated_corpus_pdfs_never_panic() {
    let Some(dir) = corpus_dir() else { return };
    let cases: usize = std::env::var("PDF_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(240);
    // Large files cost seconds per case in a debug build; the budget goes to the small ones.
    let files: Vec<Vec<u8>> = corpus_files(&dir)
        .into_iter()
        .map(|path| std::fs::read(path).expect("readable file"))
        .filter(|bytes| bytes.len() <= 1 << 20)
        .collect();
    let start = std::env::var("PDF_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&s: &u64| s != 0);
    let mut rng = Rng(start.unwrap_or(0x9E37_79B9_7F4A_7C15));
    let (mut opened, mut refused, mut slowest) = (0, 0, Duration::ZERO);
    for case in 0..cases {
        let original = &files[case % files.len()];
        let seed = rng.0;
        let mutant = mutate(&mut rng, original);
        let started = Instant::now();
        match survive(&mutant, 50) {
            Ok(Ok(_)) => opened += 1,
            Ok(Err(code)) => {
                assert!(
                    matches!(code, ErrorCode::InvalidPdf | ErrorCode::UnsupportedFormat),
                    "case {case}: {code:?}"
                );
                refused += 1;
            }
            Err(()) => panic!("case {case} (rng state {seed:#x}) panicked"),
        }
        slowest = slowest.max(started.elapsed());
    }
    eprintln!(
        "{cases} mutants: {opened} extracted, {refused} refused with a code; slowest {slowest:?}"
    );
    assert_eq!(opened + refused, cases);
}
