//! Text of a range of pages, with the per-page facts an agent needs: how many characters,
//! whether the page is empty, and whether it only holds images (so OCR would be needed).

use crate::document::PdfDocument;
use crate::interpreter::{FontCache, Interpreter};
use crate::layout::{page_lines, page_text, Mode, TextLine};
use crate::rules::Rule;
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[derive(Clone, Debug, PartialEq)]
pub struct PageText {
    /// 1-based page number in the document.
    pub number: usize,
    pub text: String,
    /// Unicode scalar values in `text`, whitespace included.
    pub chars: usize,
    /// No visible text and no images.
    pub empty: bool,
    /// Images but no text: a scan, where OCR would be needed.
    pub image_only: bool,
    /// Glyphs drawn whose font gives no way to know their characters.
    pub unmapped_glyphs: usize,
    /// The ruling lines drawn on the page (only from [`PdfDocument::extract_lines`]).
    pub rules: Vec<Rule>,
    /// The lines with their geometry (only from [`PdfDocument::extract_lines`]): the words of
    /// `text`, where a vertical rule between two table cells splits one of its lines in two.
    pub lines: Vec<TextLine>,
}

#[derive(Clone, Debug, Default)]
pub struct Extraction {
    pub pages: Vec<PageText>,
    pub notes: Vec<String>,
}

impl PdfDocument {
    /// Pages `first..=last` (1-based, already clamped by the caller to the document).
    pub fn extract(&self, first: usize, last: usize, mode: Mode) -> Extraction {
        self.extract_pages(first, last, mode, false)
    }

    /// Plain text of pages `first..=last`, with each page's lines and their geometry and its
    /// ruling lines (for structure such as Markdown and its tables, built above the core).
    pub fn extract_lines(&self, first: usize, last: usize) -> Extraction {
        self.extract_pages(first, last, Mode::Plain, true)
    }

    fn extract_pages(&self, first: usize, last: usize, mode: Mode, with_lines: bool) -> Extraction {
        let mut fonts = FontCache::default();
        let mut extraction = Extraction {
            pages: Vec::new(),
            notes: self.notes.clone(),
        };
        let mut fonts_without_unicode = BTreeSet::new();
        let mut failed_pages = Vec::new();
        let mut truncated_pages = Vec::new();
        let mut undecoded_pages = Vec::new();
        for number in first.max(1)..=last.min(self.page_count()) {
            let page = self.pages[number - 1];
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let mut interpreter =
                    Interpreter::new(&self.doc, &mut fonts, self.visible_box(page));
                if with_lines {
                    interpreter = interpreter.recording_rules();
                }
                let (content, skipped) = self.content(page);
                if skipped {
                    undecoded_pages.push(number);
                }
                interpreter.run(&content, self.resources(page));
                if let Ok(dict) = self.doc.get_dictionary(page) {
                    interpreter.run_annotations(dict);
                }
                interpreter.finish()
            }));
            let Ok(marks) = outcome else {
                // A bug on one hostile page must not lose the others; the cache may be half-built.
                fonts = FontCache::default();
                failed_pages.push(number);
                extraction.pages.push(PageText {
                    number,
                    text: String::new(),
                    chars: 0,
                    empty: true,
                    image_only: false,
                    unmapped_glyphs: 0,
                    lines: Vec::new(),
                    rules: Vec::new(),
                });
                continue;
            };
            let lines = if with_lines {
                let mut lines = page_lines(&marks.glyphs, &marks.text, &marks.rules);
                for line in &mut lines {
                    line.text = clean_text(&line.text);
                }
                lines
            } else {
                Vec::new()
            };
            let text = clean_text(&page_text(&marks.glyphs, &marks.text, mode));
            if marks.truncated {
                truncated_pages.push(number);
            }
            let visible = !text.trim().is_empty();
            fonts_without_unicode.extend(marks.fonts_without_unicode);
            extraction.pages.push(PageText {
                number,
                chars: text.chars().count(),
                empty: !visible && marks.images == 0,
                image_only: !visible && marks.images > 0,
                unmapped_glyphs: marks.unmapped_glyphs,
                text,
                lines,
                rules: marks.rules,
            });
        }
        if !truncated_pages.is_empty() {
            extraction.notes.push(format!("Pages {truncated_pages:?} have more content than a page can hold; their text is cut short."));
        }
        if !undecoded_pages.is_empty() {
            extraction.notes.push(format!(
                "Pages {undecoded_pages:?} have a content stream that could not be decoded (an unknown filter, or more than {} MiB decoded); it was left out.",
                crate::objects::MAX_STREAM_BYTES >> 20
            ));
        }
        if !failed_pages.is_empty() {
            extraction.notes.push(format!(
                "Pages {failed_pages:?} could not be read and are left empty."
            ));
        }
        let unmapped: usize = extraction.pages.iter().map(|p| p.unmapped_glyphs).sum();
        if unmapped > 0 {
            let names: Vec<_> = fonts_without_unicode
                .into_iter()
                .filter(|n| !n.is_empty())
                .take(5)
                .collect();
            extraction.notes.push(format!(
                "{unmapped} glyphs have no Unicode mapping and were left out{}; OCR would recover them.",
                if names.is_empty() { String::new() } else { format!(" (fonts: {})", names.join(", ")) }
            ));
        }
        let scanned: Vec<usize> = extraction
            .pages
            .iter()
            .filter(|p| p.image_only)
            .map(|p| p.number)
            .collect();
        if !scanned.is_empty() {
            extraction.notes.push(format!(
                "{} page(s) hold only images (no text layer); OCR would be needed: {scanned:?}.",
                scanned.len()
            ));
        }
        extraction
    }
}

/// Ligatures and Arabic or Hebrew presentation forms become the letters they stand for, so the
/// text searches and compares like typed text; control characters a font maps glyphs to (NUL,
/// tabs, carriage returns) become spaces or vanish, so each line of the page is one line of text.
fn clean_text(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    if !text
        .chars()
        .any(|ch| is_presentation_form(ch) || (ch.is_control() && ch != '\n'))
    {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\n' => out.push('\n'),
            '\t' | '\r' | '\u{0b}' | '\u{0c}' => out.push(' '),
            _ if ch.is_control() => {}
            _ if is_presentation_form(ch) => out.extend(std::iter::once(ch).nfkc()),
            _ => out.push(ch),
        }
    }
    out
}

fn is_presentation_form(ch: char) -> bool {
    matches!(ch as u32, 0xFB00..=0xFDFF | 0xFE70..=0xFEFF)
}

#[cfg(test)]
mod tests {
    use super::clean_text;

    #[test]
    fn folds_presentation_forms_and_drops_control_characters() {
        assert_eq!(clean_text("ﬁne\u{0}\tﻻ\nx"), "fine لا\nx");
        assert_eq!(clean_text("plain"), "plain");
    }
}
