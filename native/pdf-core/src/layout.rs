//! From placed glyphs to page text. Glyphs are grouped into lines in content order — the order
//! producers write text in, which for typeset documents follows the columns — then each line is
//! sorted along its baseline, gaps wider than a fraction of the font size become spaces, and
//! right-to-left lines are put in logical order. Layout mode instead places each line on a grid
//! of character cells so columns and indentation survive.

use crate::bidi::visual_to_logical;
use crate::rules::{Rule, Walls};

/// A glyph in "line space": rotated so its writing direction is +x and up is +y.
#[derive(Clone, Copy, Debug)]
pub struct PlacedGlyph {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub size: f32,
    /// Writing direction in quarter turns counter-clockwise from +x.
    pub direction: u8,
    pub text_start: u32,
    pub text_len: u32,
    /// Drawn in a bold face (by the font's name): Markdown mode reads headings from it.
    pub bold: bool,
}

impl PlacedGlyph {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        x: f32,
        y: f32,
        dx: f32,
        dy: f32,
        width: f32,
        size: f32,
        text_start: u32,
        text_len: u32,
    ) -> Self {
        let direction = if dx.abs() >= dy.abs() {
            if dx >= 0.0 {
                0
            } else {
                2
            }
        } else if dy > 0.0 {
            1
        } else {
            3
        };
        let (x, y) = match direction {
            0 => (x, y),
            1 => (y, -x),
            2 => (-x, -y),
            _ => (-y, x),
        };
        PlacedGlyph {
            x,
            y,
            width,
            size: size.max(0.1),
            direction,
            text_start,
            text_len,
            bold: false,
        }
    }

    fn end(&self) -> f32 {
        self.x + self.width
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Plain,
    Layout,
}

struct Line {
    direction: u8,
    baseline: f32,
    size: f32,
    start: f32,
    end: f32,
    glyphs: Vec<u32>,
}

/// A glyph joins the current line when it sits on the same baseline (within this fraction of
/// the smaller font size: superscripts and subscripts stay on their line) …
const BASELINE_TOLERANCE: f32 = 0.6;
/// … and starts no further than this many font sizes past the line's end.
const MAX_JOIN_GAP: f32 = 3.0;
/// A gap wider than this fraction of the font size is a word space.
const WORD_GAP: f32 = 0.1;

fn group_lines(glyphs: &[PlacedGlyph], walls: Option<&Walls>) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    for (index, glyph) in glyphs.iter().enumerate() {
        let joins = lines.last().is_some_and(|line| {
            // The smaller size decides: a drop capital three lines tall must not pull the
            // lines beside it into one.
            let size = line.size.min(glyph.size);
            line.direction == glyph.direction
                && (glyph.y - line.baseline).abs() <= BASELINE_TOLERANCE * size
                && glyph.x <= line.end + MAX_JOIN_GAP * size
                && glyph.end() >= line.start - MAX_JOIN_GAP * size
                && !walls.is_some_and(|walls| walled_off(walls, line, glyph, size))
        });
        if joins {
            let line = lines.last_mut().expect("checked above");
            line.start = line.start.min(glyph.x);
            line.end = line.end.max(glyph.end());
            line.glyphs.push(index as u32);
        } else {
            lines.push(Line {
                direction: glyph.direction,
                baseline: glyph.y,
                size: glyph.size,
                start: glyph.x,
                end: glyph.end(),
                glyphs: vec![index as u32],
            });
        }
    }
    lines
}

/// Rules are in page space, which is line space only for horizontal text. A wall splits only at
/// a gap wide enough to be a word space, so the words of the page stay the words of plain text.
fn walled_off(walls: &Walls, line: &Line, glyph: &PlacedGlyph, size: f32) -> bool {
    if glyph.direction != 0 {
        return false;
    }
    let min_gap = WORD_GAP * size;
    if glyph.x - line.end > min_gap {
        walls.between(line.end, glyph.x, line.baseline, size)
    } else if line.start - glyph.end() > min_gap {
        walls.between(glyph.end(), line.start, line.baseline, size)
    } else {
        false
    }
}

fn line_text(line: &mut Line, glyphs: &[PlacedGlyph], text: &str) -> String {
    line.glyphs
        .sort_by(|&a, &b| glyphs[a as usize].x.total_cmp(&glyphs[b as usize].x));
    let piece = |glyph: &PlacedGlyph| {
        &text[glyph.text_start as usize..(glyph.text_start + glyph.text_len) as usize]
    };
    let mut units: Vec<&str> = Vec::with_capacity(line.glyphs.len());
    let mut previous: Option<&PlacedGlyph> = None;
    for &index in &line.glyphs {
        let glyph = &glyphs[index as usize];
        let current = piece(glyph);
        if let Some(prev) = previous {
            // Fake bold draws the same glyph twice, a hair apart.
            if current == piece(prev)
                && (glyph.x - prev.x).abs() < 0.3 * prev.width.max(0.05 * prev.size)
            {
                continue;
            }
            let gap = glyph.x - prev.end();
            let spaced = piece(prev).ends_with(char::is_whitespace)
                || current.starts_with(char::is_whitespace);
            if !spaced && gap > WORD_GAP * prev.size.min(glyph.size) {
                units.push(" ");
            }
        }
        units.push(current);
        previous = Some(glyph);
    }
    visual_to_logical(units).trim_end().to_string()
}

/// A line of text with its place on the page, for structure (Markdown) above the core.
#[derive(Clone, Debug, PartialEq)]
pub struct TextLine {
    pub text: String,
    /// Extent along the writing direction, and the baseline, in line space (PDF points).
    pub start: f32,
    pub end: f32,
    pub baseline: f32,
    pub size: f32,
    /// Most of the line's glyphs are bold.
    pub bold: bool,
    pub direction: u8,
}

/// The lines of one page in the order plain mode writes them. Without rules, joined with
/// newlines their texts are exactly plain mode's page text; with rules, text on two sides of a
/// vertical rule is two lines (two table cells), apart where plain mode has a space.
pub fn page_lines(glyphs: &[PlacedGlyph], text: &str, rules: &[Rule]) -> Vec<TextLine> {
    let walls = Walls::new(rules);
    let mut lines = group_lines(glyphs, (!walls.is_empty()).then_some(&walls));
    lines
        .iter_mut()
        .filter_map(|line| {
            let line_text = line_text(line, glyphs, text);
            if line_text.trim().is_empty() {
                return None;
            }
            let bold = line
                .glyphs
                .iter()
                .filter(|&&index| glyphs[index as usize].bold)
                .count();
            Some(TextLine {
                text: line_text,
                start: line.start,
                end: line.end,
                baseline: line.baseline,
                size: line.size,
                bold: bold * 2 > line.glyphs.len(),
                direction: line.direction,
            })
        })
        .collect()
}

/// The text of one page from its glyphs (in content order) and the text they index into.
pub fn page_text(glyphs: &[PlacedGlyph], text: &str, mode: Mode) -> String {
    let mut lines = group_lines(glyphs, None);
    let texts: Vec<String> = lines
        .iter_mut()
        .map(|line| line_text(line, glyphs, text))
        .collect();
    match mode {
        Mode::Plain => texts
            .into_iter()
            .filter(|t| !t.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Mode::Layout => grid(&lines, &texts),
    }
}

/// Layout mode: lines sharing a baseline form one row, rows run top to bottom, and each line
/// starts at the column its position gives on a grid of average character width.
fn grid(lines: &[Line], texts: &[String]) -> String {
    let mut order: Vec<usize> = (0..lines.len())
        .filter(|&i| !texts[i].trim().is_empty())
        .collect();
    if order.is_empty() {
        return String::new();
    }
    let total_chars: usize = order.iter().map(|&i| texts[i].chars().count()).sum();
    let total_width: f32 = order.iter().map(|&i| lines[i].end - lines[i].start).sum();
    // A cell a little narrower than the average character keeps neighbouring columns apart.
    let cell = (0.9 * total_width / total_chars.max(1) as f32).max(0.5);
    let left = order
        .iter()
        .map(|&i| lines[i].start)
        .fold(f32::INFINITY, f32::min);
    order.sort_by(|&a, &b| {
        (lines[a].direction, -lines[a].baseline, lines[a].start)
            .partial_cmp(&(lines[b].direction, -lines[b].baseline, lines[b].start))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut rows: Vec<(f32, f32, Vec<usize>)> = Vec::new();
    for index in order {
        let line = &lines[index];
        match rows.last_mut() {
            Some((baseline, size, members))
                if (line.baseline - *baseline).abs()
                    <= BASELINE_TOLERANCE * size.max(line.size) =>
            {
                members.push(index);
            }
            _ => rows.push((line.baseline, line.size, vec![index])),
        }
    }
    let mut out = String::new();
    let mut previous_baseline: Option<(f32, f32)> = None;
    for (baseline, size, members) in rows {
        if let Some((previous, previous_size)) = previous_baseline {
            // A gap of more than about two lines becomes one blank line.
            if previous - baseline > 2.2 * previous_size.max(size) {
                out.push('\n');
            }
        }
        let mut members = members;
        members.sort_by(|&a, &b| lines[a].start.total_cmp(&lines[b].start));
        let mut row = String::new();
        let mut used = 0usize;
        for index in members {
            let column = ((lines[index].start - left) / cell).round().max(0.0) as usize;
            // Two spaces at least between the lines of one row, so columns stay recognisable.
            let column = column.max(if used == 0 { 0 } else { used + 2 });
            row.extend(std::iter::repeat_n(' ', column - used));
            row.push_str(&texts[index]);
            used = column + texts[index].chars().count();
        }
        out.push_str(row.trim_end());
        out.push('\n');
        previous_baseline = Some((baseline, size));
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glyphs_of(words: &[(&str, f32, f32)]) -> (Vec<PlacedGlyph>, String) {
        let mut text = String::new();
        let mut glyphs = Vec::new();
        for &(word, x, y) in words {
            let mut pen = x;
            for ch in word.chars() {
                let start = text.len() as u32;
                text.push(ch);
                glyphs.push(PlacedGlyph::new(
                    pen,
                    y,
                    1.0,
                    0.0,
                    5.0,
                    10.0,
                    start,
                    ch.len_utf8() as u32,
                ));
                pen += 5.0;
            }
        }
        (glyphs, text)
    }

    #[test]
    fn page_lines_join_to_plain_text_and_carry_geometry_and_weight() {
        let (mut glyphs, text) = glyphs_of(&[
            ("Title", 0.0, 700.0),
            ("left1", 0.0, 680.0),
            ("right1", 200.0, 680.0),
        ]);
        for glyph in glyphs.iter_mut().take(5) {
            glyph.bold = true;
        }
        let lines = page_lines(&glyphs, &text, &[]);
        let joined: Vec<&str> = lines.iter().map(|line| line.text.as_str()).collect();
        assert_eq!(joined.join("\n"), page_text(&glyphs, &text, Mode::Plain));
        assert!(lines[0].bold && !lines[1].bold);
        assert_eq!((lines[2].start, lines[2].baseline), (200.0, 680.0));
        assert_eq!(lines[2].end, 230.0);
    }

    #[test]
    fn a_vertical_rule_splits_a_line_into_cells_only_where_it_stands() {
        let (glyphs, text) =
            glyphs_of(&[("12", 0.0, 700.0), ("34", 16.0, 700.0), ("56", 32.0, 700.0)]);
        let wall = Rule {
            x0: 12.5,
            y0: 690.0,
            x1: 13.5,
            y1: 720.0,
        };
        let texts = |rules: &[Rule]| -> Vec<String> {
            page_lines(&glyphs, &text, rules)
                .into_iter()
                .map(|line| line.text)
                .collect()
        };
        assert_eq!(texts(&[]), vec!["12 34 56"]);
        assert_eq!(texts(&[wall]), vec!["12", "34 56"]);
        let elsewhere = Rule {
            y0: 600.0,
            y1: 650.0,
            ..wall
        };
        assert_eq!(texts(&[elsewhere]), vec!["12 34 56"]);
        assert_eq!(page_text(&glyphs, &text, Mode::Plain), "12 34 56");
    }

    #[test]
    fn words_on_a_baseline_become_a_line_with_spaces_at_gaps() {
        let (glyphs, text) = glyphs_of(&[
            ("Hello", 0.0, 700.0),
            ("world", 30.0, 700.0),
            ("Next", 0.0, 686.0),
        ]);
        assert_eq!(page_text(&glyphs, &text, Mode::Plain), "Hello world\nNext");
    }

    #[test]
    fn columns_keep_content_order_in_plain_mode_and_positions_in_layout_mode() {
        let (glyphs, text) = glyphs_of(&[
            ("left1", 0.0, 700.0),
            ("left2", 0.0, 686.0),
            ("right1", 200.0, 700.0),
            ("right2", 200.0, 686.0),
        ]);
        assert_eq!(
            page_text(&glyphs, &text, Mode::Plain),
            "left1\nleft2\nright1\nright2"
        );
        let layout = page_text(&glyphs, &text, Mode::Layout);
        let rows: Vec<&str> = layout.lines().collect();
        assert_eq!(rows.len(), 2);
        assert!(
            rows[0].starts_with("left1 ") && rows[0].ends_with("right1"),
            "{layout}"
        );
    }

    #[test]
    fn a_drop_capital_does_not_merge_the_lines_beside_it() {
        let (mut glyphs, mut text) =
            glyphs_of(&[("he first line", 40.0, 700.0), ("second line", 40.0, 688.0)]);
        let start = text.len() as u32;
        text.push('T');
        glyphs.insert(
            0,
            PlacedGlyph::new(0.0, 688.0, 1.0, 0.0, 30.0, 36.0, start, 1),
        );
        let page = page_text(&glyphs, &text, Mode::Plain);
        assert!(
            page.contains("he first line") && page.contains("second line"),
            "{page}"
        );
    }

    #[test]
    fn rotated_and_vertical_text_reads_along_its_direction() {
        let mut text = String::new();
        let mut glyphs = Vec::new();
        for (i, ch) in "上下".chars().enumerate() {
            let start = text.len() as u32;
            text.push(ch);
            glyphs.push(PlacedGlyph::new(
                100.0,
                700.0 - 10.0 * i as f32,
                0.0,
                -1.0,
                10.0,
                10.0,
                start,
                ch.len_utf8() as u32,
            ));
        }
        assert_eq!(page_text(&glyphs, &text, Mode::Plain), "上下");
    }
}
