//! Files built to make a reader do unbounded work must cost bounded work.

use pdf_core::{Mode, PdfDocument};
use std::time::Instant;

/// Forms drawing ten copies of the next form, ten levels deep: 10^10 glyph runs if unbounded.
fn nested_forms_pdf() -> Vec<u8> {
    nested_forms_pdf_drawing("BT /F1 12 Tf 10 10 Td (boom) Tj ET")
}

/// The innermost form draws `innermost` (text, or rules and text).
fn nested_forms_pdf_drawing(innermost: &str) -> Vec<u8> {
    forms_drawing_forms(10, 10, innermost)
}

/// `levels` forms, each drawing the next `copies` times; the last draws `innermost`.
fn forms_drawing_forms(levels: usize, copies: usize, innermost: &str) -> Vec<u8> {
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources 4 0 R /Contents 5 0 R >>"
            .to_string(),
    ];
    let forms: String = (0..=levels)
        .map(|level| format!("/X{level} {} 0 R ", 7 + level))
        .collect();
    objects.push(format!("<< /Font << /F1 6 0 R >> /XObject << {forms}>> >>"));
    objects.push(stream("/X0 Do"));
    objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string());
    for level in 0..levels {
        let body = format!("/X{} Do ", level + 1).repeat(copies);
        objects.push(stream_with(
            "/Type /XObject /Subtype /Form /BBox [0 0 200 200] /Resources 4 0 R",
            &body,
        ));
    }
    objects.push(stream_with(
        "/Type /XObject /Subtype /Form /BBox [0 0 200 200] /Resources 4 0 R",
        innermost,
    ));
    pdf_of(&objects)
}

/// A PDF of `objects`, numbered from 1, without a cross-reference table (the reader rebuilds it by
/// scanning, which is also under test).
fn pdf_of(objects: &[String]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    for (index, object) in objects.iter().enumerate() {
        out.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", index + 1).as_bytes());
    }
    out.extend_from_slice(b"trailer\n<< /Root 1 0 R >>\n%%EOF\n");
    out
}

/// Whether the extraction has a note containing `words`.
fn has_note(extraction: &pdf_core::Extraction, words: &str) -> bool {
    extraction.notes.iter().any(|note| note.contains(words))
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
    assert!(has_note(&extraction, "cut short"), "{:?}", extraction.notes);
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
    assert!(has_note(&extraction, "cut short"), "{:?}", extraction.notes);
}

/// One page of Helvetica drawing `content`; `junk` goes into the page dictionary.
fn page_pdf(content: &str, junk: &str) -> Vec<u8> {
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R {junk} /Resources << /Font << /F1 5 0 R >> >> >>"),
        stream(content),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    pdf_of(&objects)
}

/// Extracts page 1 on a thread with a 512 KiB stack, so that work recursing with the input's
/// nesting fails here, as it would on a smaller stack than the test harness's.
fn text_on_a_small_stack(pdf: Vec<u8>) -> String {
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || {
            let doc = PdfDocument::open(&pdf).expect("opens");
            doc.extract(1, 1, Mode::Plain).pages[0].text.clone()
        })
        .expect("a thread")
        .join()
        .expect("no overflow")
}

#[test]
fn arrays_nested_without_end_in_a_content_stream_cost_no_stack() {
    // 200,000 nested operand arrays overflowed the stack when dropped (an abort, not a panic).
    let depth = 200_000;
    let content = format!(
        "BT /F1 12 Tf 10 100 Td {}{} TJ [(kept)] TJ ET",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    assert_eq!(text_on_a_small_stack(page_pdf(&content, "")).trim(), "kept");
    // Arrays nested within reach still reach their operator: the marked-content properties here.
    let content =
        "/Span << /ActualText [[[(x)]]] >> BDC BT /F1 12 Tf 10 100 Td [(a) -20 (b)] TJ ET EMC";
    assert_eq!(text_on_a_small_stack(page_pdf(content, "")).trim(), "ab");
}

#[test]
fn arrays_nested_without_end_in_an_object_cost_no_stack() {
    let depth = 1_000_000;
    let junk = format!("/Junk {}{}", "[".repeat(depth), "]".repeat(depth));
    // The page's dictionary does not parse; the document must still answer, not overflow.
    text_on_a_small_stack(page_pdf("BT /F1 12 Tf 10 100 Td (a) Tj ET", &junk));
}

#[test]
fn forms_that_multiply_or_draw_themselves_are_not_rendered() {
    // 10^10 form runs; and one form drawing itself twice, which kept the renderer busy without end.
    let self_drawing = {
        let mut pdf = forms_drawing_forms(1, 2, "BT /F1 12 Tf 10 10 Td (a) Tj ET");
        let at = pdf
            .windows(6)
            .position(|w| w == b"/X1 Do")
            .expect("the outer form draws X1");
        pdf[at..at + 6].copy_from_slice(b"/X0 Do");
        pdf
    };
    for pdf in [nested_forms_pdf(), self_drawing] {
        // On a thread of its own, so that a renderer that never finishes fails the test, not hangs it.
        let (sender, answer) = std::sync::mpsc::channel();
        std::thread::spawn(move || sender.send(pdf_core::ocr::render_page(&pdf, 1, 72.0).err()));
        let error = answer
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("answered within a minute")
            .expect("refused");
        assert!(
            error
                .message
                .contains("draw one another more than 100000 times"),
            "{}",
            error.message
        );
    }
    // Three levels of three copies: 1 + 3 + 9 + 27 form runs, drawn.
    let page = pdf_core::ocr::render_page(
        &forms_drawing_forms(3, 3, "BT /F1 12 Tf 10 10 Td (a) Tj ET"),
        1,
        72.0,
    )
    .expect("renders");
    assert_eq!((page.width, page.height), (200, 200));
}

/// A page whose resources are `resources` and whose content is `content`, with `objects` from
/// object 6 on (1–5: catalog, pages, the page, its resources, its content).
fn page_with(resources: &str, content: &str, objects: Vec<String>) -> Vec<u8> {
    let mut all = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources 4 0 R /Contents 5 0 R >>"
            .to_string(),
        resources.to_string(),
        stream(content),
    ];
    all.extend(objects);
    pdf_of(&all)
}

/// `levels` Type 3 fonts /T0, /T1, … whose one glyph (`a`) shows `copies` glyphs of the next
/// font; the last one's glyph fills a square. Fonts are objects 6, 8, …, each followed by its
/// glyph procedure.
fn type3_fonts(levels: usize, copies: usize) -> (String, Vec<String>) {
    let names: String = (0..levels)
        .map(|level| format!("/T{level} {} 0 R ", 6 + 2 * level))
        .collect();
    let mut objects = Vec::new();
    for level in 0..levels {
        objects.push(format!(
            "<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] \
             /CharProcs << /a {} 0 R >> /Encoding << /Differences [97 /a] >> /FirstChar 97 /LastChar 97 \
             /Widths [1000] /Resources 4 0 R >>",
            7 + 2 * level
        ));
        let glyph = match level + 1 < levels {
            true => format!(
                "1000 0 d0 BT /T{} 1000 Tf 0 0 Td ({}) Tj ET",
                level + 1,
                "a".repeat(copies)
            ),
            false => "1000 0 d0 0 0 500 500 re f".to_string(),
        };
        objects.push(stream(&glyph));
    }
    (format!("<< /Font << {names}>> >>"), objects)
}

/// The page rendered for OCR on a thread of 2 MiB of stack (so a renderer that never finishes
/// fails the test instead of hanging it): the rendered size, or the refusal's message.
fn rendered(pdf: Vec<u8>) -> Result<(u32, u32), String> {
    let (sender, answer) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let page = pdf_core::ocr::render_page(&pdf, 1, 72.0);
            sender.send(page.map(|p| (p.width, p.height)).map_err(|e| e.message))
        })
        .expect("a thread");
    answer
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("answered within a minute")
}

#[test]
fn type3_glyphs_that_multiply_or_draw_themselves_are_not_rendered() {
    let refused = |result: Result<(u32, u32), String>| {
        result.is_err_and(|message| message.contains("Type 3 glyphs draw one another"))
    };
    // A glyph that shows itself: the renderer recursed until its stack overflowed, which no
    // unwinding catches (the process ended).
    let (resources, mut objects) = type3_fonts(1, 1);
    objects[1] = stream("1000 0 d0 BT /T0 1000 Tf 0 0 Td (aa) Tj ET");
    let page = page_with(&resources, "BT /T0 12 Tf 10 10 Td (a) Tj ET", objects);
    assert!(refused(rendered(page)));
    // Eight fonts of ten glyphs each: 10^7 glyphs drawn for one on the page.
    let (resources, objects) = type3_fonts(8, 10);
    let page = page_with(&resources, "BT /T0 12 Tf 10 10 Td (a) Tj ET", objects);
    assert!(refused(rendered(page)));
    // The text state's font comes back with `Q`: the multiplying font shows the glyph.
    let (resources, objects) = type3_fonts(8, 10);
    let content = "BT /T0 12 Tf q /T7 12 Tf Q 10 10 Td (a) Tj ET";
    assert!(refused(rendered(page_with(&resources, content, objects))));
    // Glyphs that draw the next one, 45 fonts deep, and three levels of three: drawn.
    for (levels, copies) in [(45, 1), (3, 3)] {
        let (resources, objects) = type3_fonts(levels, copies);
        let page = page_with(&resources, "BT /T0 12 Tf 10 10 Td (aaaa) Tj ET", objects);
        assert_eq!(
            rendered(page),
            Ok((200, 200)),
            "{levels} levels of {copies}"
        );
    }
    // A page of 200,000 plain Type 3 glyphs draws each once: it is not refused for its length.
    let (resources, objects) = type3_fonts(1, 1);
    let content = format!("BT /T0 1 Tf 0 0 Td ({}) Tj ET", "a".repeat(200_000));
    assert_eq!(
        rendered(page_with(&resources, &content, objects)),
        Ok((200, 200))
    );
}

#[test]
fn a_content_stream_that_does_not_decode_is_left_out_with_a_note() {
    // Two content streams: one through a filter no reader knows, then one that draws text. (A
    // stream decoding past the 256 MiB ceiling is left out the same way.)
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents [4 0 R 5 0 R] /Resources << /Font << /F1 6 0 R >> >> >>".to_string(),
        stream_with("/Filter /NoSuchDecode", "BT /F1 12 Tf (lost) Tj ET"),
        stream("BT /F1 12 Tf 10 100 Td (kept) Tj ET"),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let extraction = PdfDocument::open(&pdf_of(&objects))
        .expect("opens")
        .extract(1, 1, Mode::Plain);
    assert_eq!(extraction.pages[0].text.trim(), "kept");
    assert!(
        has_note(
            &extraction,
            "Pages [1] have a content stream that could not be decoded"
        ),
        "{:?}",
        extraction.notes
    );
}
