//! Declared sizes in a PDF (/Length of a stream, /N of an object stream, /Size of the
//! cross-reference stream) and the decoded size of the streams read while opening are bounded by
//! the file's own size: a counting allocator measures the most heap held at once while each
//! hostile file is opened.
use pdf_core::{ErrorCode, PdfDocument};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Every test holds its turn from start to end so no other test's allocations are measured.
static TURN: Mutex<()> = Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(before))
}

const MB: usize = 1 << 20;

/// The content deflated, with the /Filter entry that says so (none when deflate does not pay).
fn deflate(content: &[u8]) -> (Vec<u8>, &'static str) {
    let mut stream = lopdf::Stream::new(lopdf::Dictionary::new(), content.to_vec());
    stream.compress().unwrap();
    let filter = if stream.dict.get(b"Filter").is_ok() {
        "/Filter /FlateDecode"
    } else {
        ""
    };
    (stream.content, filter)
}

/// A one-page PDF with an unused string, object 4, in object stream 5, indexed by
/// cross-reference stream 6. `objstm_dict` is added to the object stream's dictionary,
/// `xref_dict` to the cross-reference stream's, `page_extra` to the page's.
fn pdf_with_object_stream(
    objstm_content: &[u8],
    objstm_dict: &str,
    xref_dict: &str,
    page_extra: &str,
) -> Vec<u8> {
    let mut out = b"%PDF-1.5\n".to_vec();
    let mut offsets = Vec::new();
    let mut object = |out: &mut Vec<u8>, number: usize, body: &[u8]| {
        offsets.push((number, out.len()));
        out.extend_from_slice(format!("{number} 0 obj\n").as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    };
    object(&mut out, 1, b"<< /Type /Catalog /Pages 2 0 R >>");
    object(&mut out, 2, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
    object(
        &mut out,
        3,
        format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] {page_extra} >>").as_bytes(),
    );
    let (packed, filter) = deflate(objstm_content);
    let mut stream = format!(
        "<< /Type /ObjStm /First 4 {filter} /Length {} {objstm_dict} >>\nstream\n",
        packed.len()
    )
    .into_bytes();
    stream.extend_from_slice(&packed);
    stream.extend_from_slice(b"\nendstream");
    object(&mut out, 5, &stream);
    let xref_at = out.len();
    let mut entries = vec![0u8, 0, 0, 0, 0, 0xFF, 0xFF];
    let offset_of = |n: usize| {
        offsets
            .iter()
            .find(|(m, _)| *m == n)
            .map(|(_, o)| *o as u32)
            .unwrap()
    };
    for n in 1..=6usize {
        let (kind, field, generation): (u8, u32, u16) = match n {
            4 => (2, 5, 0),
            6 => (1, xref_at as u32, 0),
            _ => (1, offset_of(n), 0),
        };
        entries.push(kind);
        entries.extend_from_slice(&field.to_be_bytes());
        entries.extend_from_slice(&generation.to_be_bytes());
    }
    out.extend_from_slice(
        format!(
            "6 0 obj\n<< /Type /XRef /W [1 4 2] /Root 1 0 R /Length {} {xref_dict} >>\nstream\n",
            entries.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(&entries);
    out.extend_from_slice(format!("\nendstream\nendobj\nstartxref\n{xref_at}\n%%EOF\n").as_bytes());
    out
}

const SMALL_OBJSTM: &[u8] = b"4 0 (a string in an object stream)";

#[test]
fn a_well_formed_file_of_this_shape_opens() {
    let _turn = turn();
    let file = pdf_with_object_stream(SMALL_OBJSTM, "/N 1", "/Size 7", "");
    let doc = PdfDocument::open(&file).expect("the reference file opens");
    assert_eq!(doc.page_count(), 1);
}

#[test]
fn an_object_stream_that_decodes_to_far_more_than_the_file_is_refused_while_small() {
    let _turn = turn();
    // 64 MB of spaces before the one object: deflate makes it about 64 KB.
    let mut content = b"4 0 ".to_vec();
    content.resize(64 * MB, b' ');
    content.extend_from_slice(b"(x)");
    let file = pdf_with_object_stream(&content, "/N 1", "/Size 7", "");
    drop(content);
    assert!(file.len() < MB, "the bomb is small ({} bytes)", file.len());
    let (result, peak) = peak_of(|| PdfDocument::open(&file).map(|d| d.page_count()));
    // The load limit for this file is 8 MB: decoding stops there (the whole 64 MB was decoded before).
    let e = result.expect_err("the bomb is refused");
    assert_eq!(e.code, ErrorCode::InvalidPdf, "{e}");
    assert!(e.message.contains("more than 8 MB"), "{}", e.message);
    assert!(!e.hint.is_empty());
    assert!(
        peak < 40 * MB,
        "peak heap {peak} bytes for a {} byte file",
        file.len()
    );
}

#[test]
fn declared_counts_and_lengths_do_not_size_allocations() {
    let _turn = turn();
    let cases = [
        (
            "object stream /N of two billion",
            pdf_with_object_stream(SMALL_OBJSTM, "/N 2000000000", "/Size 7", ""),
        ),
        (
            "cross-reference /Size of four billion",
            pdf_with_object_stream(SMALL_OBJSTM, "/N 1", "/Size 4294967295", ""),
        ),
        (
            "cross-reference /Index of four billion entries",
            pdf_with_object_stream(SMALL_OBJSTM, "/N 1", "/Size 7 /Index [0 4294967295]", ""),
        ),
    ];
    for (what, file) in cases {
        let (result, peak) = peak_of(|| PdfDocument::open(&file).map(|d| d.page_count()));
        if let Err(e) = &result {
            assert_eq!(e.code, ErrorCode::InvalidPdf, "{what}: {e}");
        }
        assert!(peak < 4 * MB, "{what}: peak heap {peak} bytes");
    }
    // A content stream whose /Length claims a terabyte.
    let mut file = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n".to_vec();
    file.extend_from_slice(b"3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>\nendobj\n");
    file.extend_from_slice(b"4 0 obj\n<< /Length 1000000000000 >>\nstream\nBT ET\nendstream\nendobj\ntrailer\n<< /Root 1 0 R /Size 5 >>\n%%EOF\n");
    let (result, peak) = peak_of(|| PdfDocument::open(&file).map(|d| d.page_count()));
    if let Err(e) = &result {
        assert_eq!(e.code, ErrorCode::InvalidPdf, "{e}");
    }
    assert!(
        peak < 4 * MB,
        "/Length of a terabyte: peak heap {peak} bytes"
    );
}
