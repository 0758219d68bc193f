//! Opening a PDF: the object layer (cross-reference tables and streams, object streams, repair
//! of broken tables by scanning for objects, decryption with the empty user password) comes
//! from lopdf; this file turns its outcomes into the service's errors and finds the pages.

use crate::error::{ErrorCode, PdfError};
use crate::inline_encrypt::with_referenced_encrypt;
use crate::objects;
use lopdf::{Dictionary, Document, LoadOptions, Object, ObjectId};

/// Where the `%PDF-` header may start: viewers accept some leading junk, as in mail-saved files.
const HEADER_SEARCH: usize = 1024;

pub struct PdfDocument {
    pub(crate) doc: Document,
    pub(crate) pages: Vec<ObjectId>,
    pub notes: Vec<String>,
}

fn invalid(message: impl Into<String>) -> PdfError {
    PdfError::new(
        ErrorCode::InvalidPdf,
        message,
        "The file is damaged or not a complete PDF; re-export or re-download it, then try again.",
    )
}

impl PdfDocument {
    pub fn open(bytes: &[u8]) -> Result<PdfDocument, PdfError> {
        let head = &bytes[..bytes.len().min(HEADER_SEARCH)];
        if !head.windows(5).any(|window| window == b"%PDF-") {
            return Err(PdfError::new(
                ErrorCode::UnsupportedFormat,
                "The file is not a PDF (no %PDF- header).",
                "Send a PDF document; other formats need another tool.",
            ));
        }
        let load = |bytes: &[u8]| {
            let options = LoadOptions {
                max_decompressed_size: Some(objects::load_stream_limit(bytes.len())),
                ..LoadOptions::default()
            };
            Document::load_mem_with_options(bytes, options).map_err(|error| {
                // lopdf reports a stream past the limit as one it could not decompress.
                if matches!(error, lopdf::Error::Decompress(_)) {
                    return invalid(format!(
                        "A compressed object or cross-reference stream of the PDF is corrupt or decodes to more than {} MB ({} times the file's size).",
                        objects::load_stream_limit(bytes.len()) >> 20,
                        objects::LOAD_EXPANSION
                    ));
                }
                invalid(format!("The PDF could not be parsed: {error}."))
            })
        };
        let mut doc = load(bytes)?;
        if let Some(patched) = with_referenced_encrypt(bytes, &doc.trailer) {
            doc = load(&patched)?;
        }
        if doc.trailer.get(b"Encrypt").is_ok() && !doc.was_encrypted() {
            return Err(PdfError::new(
                ErrorCode::InvalidPdf,
                "The PDF is protected by a password.",
                "Remove the open password (for example with `qpdf --decrypt --password=... in.pdf out.pdf` or by printing to PDF), then upload the file again.",
            ));
        }
        let mut notes = Vec::new();
        let mut pages: Vec<ObjectId> = doc.get_pages().into_values().collect();
        if pages.is_empty() {
            pages = scan_for_pages(&doc);
            if !pages.is_empty() {
                notes.push(format!("The page tree is damaged; {} pages were found by scanning the file, in file order.", pages.len()));
            }
        }
        if pages.is_empty() {
            return Err(invalid("The PDF has no readable pages."));
        }
        Ok(PdfDocument { doc, pages, notes })
    }

    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// The page's resources: its own, or the nearest ancestor's (they inherit).
    pub(crate) fn resources(&self, page: ObjectId) -> Option<&Dictionary> {
        let mut node = self.doc.get_dictionary(page).ok()?;
        for _ in 0..64 {
            if let Some(resources) = objects::dict(&self.doc, node, b"Resources") {
                return Some(resources);
            }
            node = objects::dict(&self.doc, node, b"Parent")?;
        }
        None
    }

    /// The visible area: CropBox, else MediaBox, both inheritable; as [left, bottom, right, top].
    pub(crate) fn visible_box(&self, page: ObjectId) -> Option<[f32; 4]> {
        let mut node = self.doc.get_dictionary(page).ok()?;
        for key in [b"CropBox".as_slice(), b"MediaBox"] {
            for _ in 0..64 {
                if let Some(items) = objects::array(&self.doc, node, key) {
                    let values = objects::numbers(&self.doc, items);
                    if let [x0, y0, x1, y1] = values[..] {
                        return Some([x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1)]);
                    }
                }
                match objects::dict(&self.doc, node, b"Parent") {
                    Some(parent) => node = parent,
                    None => break,
                }
            }
            node = self.doc.get_dictionary(page).ok()?;
        }
        None
    }

    /// The page's content streams joined, and whether any of them could not be decoded (an
    /// unknown filter, or past the decode ceiling) and was left out.
    pub(crate) fn content(&self, page: ObjectId) -> (Vec<u8>, bool) {
        let Ok(dict) = self.doc.get_dictionary(page) else {
            return (Vec::new(), false);
        };
        let streams: Vec<&Object> = match objects::get(&self.doc, dict, b"Contents") {
            Some(Object::Array(items)) => items.iter().collect(),
            Some(other) => vec![other],
            None => Vec::new(),
        };
        let mut content = Vec::new();
        let mut skipped = false;
        for item in streams {
            if let Some(Object::Stream(stream)) = objects::resolve(&self.doc, item) {
                match objects::decoded(stream) {
                    Some(data) => {
                        content.extend_from_slice(&data);
                        // Streams of one page are concatenated; a token must not run across the seam.
                        content.push(b'\n');
                    }
                    None => skipped = true,
                }
            }
        }
        (content, skipped)
    }
}

/// Page objects in object-number order, for files whose page tree cannot be walked.
fn scan_for_pages(doc: &Document) -> Vec<ObjectId> {
    doc.objects
        .iter()
        .filter(|(_, object)| matches!(object, Object::Dictionary(dict) if dict.get(b"Type").and_then(|t| t.as_name()).is_ok_and(|name| name == b"Page")))
        .map(|(id, _)| *id)
        .collect()
}
