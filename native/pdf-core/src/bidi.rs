//! Right-to-left text in logical order. PDFs place glyphs visually, left to right, so a line of
//! Arabic or Hebrew comes out reversed. This reverses the line, then turns the left-to-right
//! pieces inside it (Latin words, numbers) back — the inverse of the Unicode bidi reordering for
//! the common case of one paragraph direction per line. It works on glyph units, not characters:
//! a glyph whose ToUnicode entry holds several characters (a ligature, a shaped word) already
//! has them in logical order.

use std::borrow::Cow;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Rtl,
    Ltr,
    Number,
    Neutral,
}

fn is_rtl(ch: char) -> bool {
    matches!(ch as u32, 0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x10800..=0x10FFF | 0x1E800..=0x1EFFF)
}

/// The class of a unit is that of its first strong character.
fn classify(unit: &str) -> Class {
    for ch in unit.chars() {
        if is_rtl(ch) {
            return Class::Rtl;
        }
        if ch.is_ascii_digit() {
            return Class::Number;
        }
        if ch.is_alphanumeric() {
            return Class::Ltr;
        }
    }
    Class::Neutral
}

fn mirror(unit: &str) -> String {
    unit.chars()
        .map(|ch| match ch {
            '(' => ')',
            ')' => '(',
            '[' => ']',
            ']' => '[',
            '{' => '}',
            '}' => '{',
            '<' => '>',
            '>' => '<',
            '«' => '»',
            '»' => '«',
            other => other,
        })
        .collect()
}

/// Reverses each maximal stretch that starts and ends with a unit of class `inside` and holds
/// no unit of a class in `breaks`.
fn reverse_runs(units: &mut [(Class, Cow<'_, str>)], inside: Class, breaks: &[Class]) {
    let mut index = 0;
    while index < units.len() {
        if units[index].0 != inside {
            index += 1;
            continue;
        }
        let start = index;
        let mut end = index;
        let mut probe = index + 1;
        while probe < units.len() && !breaks.contains(&units[probe].0) {
            if units[probe].0 == inside {
                end = probe;
            }
            probe += 1;
        }
        units[start..=end].reverse();
        index = end + 1;
    }
}

/// Logical order of one line given as glyph units in visual order.
pub fn visual_to_logical(units: Vec<&str>) -> String {
    if !units.iter().any(|unit| unit.chars().any(is_rtl)) {
        return units.concat();
    }
    let mut units: Vec<(Class, Cow<str>)> = units
        .into_iter()
        .map(|unit| (classify(unit), Cow::Borrowed(unit)))
        .collect();
    let rtl = units
        .iter()
        .filter(|(class, _)| *class == Class::Rtl)
        .count();
    if rtl == 0 {
        return units.into_iter().map(|(_, unit)| unit).collect();
    }
    let ltr = units
        .iter()
        .filter(|(class, _)| *class == Class::Ltr)
        .count();
    if rtl >= ltr {
        units.reverse();
        for (class, unit) in units.iter_mut() {
            if *class == Class::Neutral {
                *unit = Cow::Owned(mirror(unit));
            }
        }
        // Latin words (with the spaces between them) and numbers read forwards again.
        reverse_runs(&mut units, Class::Ltr, &[Class::Rtl, Class::Number]);
        reverse_runs(
            &mut units,
            Class::Number,
            &[Class::Rtl, Class::Ltr, Class::Neutral],
        );
    } else {
        reverse_runs(&mut units, Class::Rtl, &[Class::Ltr, Class::Number]);
    }
    units.into_iter().map(|(_, unit)| unit).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logical(visual: &str) -> String {
        let units: Vec<String> = visual.chars().map(String::from).collect();
        visual_to_logical(units.iter().map(String::as_str).collect())
    }

    #[test]
    fn reverses_rtl_lines_and_keeps_numbers_and_latin_forwards() {
        // Visual "PDF 2024 םולש" is logical "שלום 2024 PDF" read right to left.
        assert_eq!(logical("PDF 2024 םולש"), "שלום 2024 PDF");
        assert_eq!(logical("(בא)"), "(אב)");
    }

    #[test]
    fn reverses_an_rtl_phrase_inside_a_latin_line() {
        assert_eq!(
            logical("the word םולש means peace"),
            "the word שלום means peace"
        );
        assert_eq!(logical("plain text"), "plain text");
    }

    #[test]
    fn keeps_multi_character_glyphs_in_their_logical_order() {
        let units = vec!["לא", "ב"];
        assert_eq!(visual_to_logical(units), "בלא");
    }
}
