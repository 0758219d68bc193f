//! The base encodings a simple font may name (PDF 32000-1, Annex D), as code → Unicode tables.
//! Each is printable ASCII plus the code points where the encoding departs from it.

pub type CodeTable = [Option<char>; 256];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseEncoding {
    Standard,
    WinAnsi,
    MacRoman,
    Symbol,
}

impl BaseEncoding {
    pub fn from_name(name: &[u8]) -> Option<Self> {
        match name {
            b"StandardEncoding" => Some(Self::Standard),
            b"WinAnsiEncoding" => Some(Self::WinAnsi),
            b"MacRomanEncoding" | b"MacExpertEncoding" => Some(Self::MacRoman),
            b"SymbolEncoding" => Some(Self::Symbol),
            _ => None,
        }
    }

    pub fn table(self) -> CodeTable {
        match self {
            Self::Standard => with_overrides(ascii_with_quotes('’', '‘'), STANDARD_HIGH),
            Self::WinAnsi => win_ansi(),
            Self::MacRoman => mac_roman(),
            Self::Symbol => with_overrides(ascii_with_quotes('∋', '\u{F8E5}'), SYMBOL),
        }
    }
}

fn ascii_with_quotes(quote_0x27: char, quote_0x60: char) -> CodeTable {
    let mut table = [None; 256];
    for code in 0x20u8..0x7F {
        table[code as usize] = Some(code as char);
    }
    table[0x27] = Some(quote_0x27);
    table[0x60] = Some(quote_0x60);
    table
}

fn with_overrides(mut table: CodeTable, overrides: &[(u8, char)]) -> CodeTable {
    for &(code, ch) in overrides {
        table[code as usize] = Some(ch);
    }
    table
}

/// WinAnsi is Windows code page 1252, with Latin-1 in its upper half.
fn win_ansi() -> CodeTable {
    let mut table = ascii_with_quotes('\'', '`');
    for code in 0xA0u32..=0xFF {
        table[code as usize] = char::from_u32(code);
    }
    table[0xA0] = Some(' ');
    table[0xAD] = Some('-');
    let cp1252 = "€\0‚ƒ„…†‡ˆ‰Š‹Œ\0Ž\0\0‘’“”•–—˜™š›œ\0žŸ";
    for (offset, ch) in cp1252.chars().enumerate() {
        if ch != '\0' {
            table[0x80 + offset] = Some(ch);
        }
    }
    table
}

fn mac_roman() -> CodeTable {
    let mut table = ascii_with_quotes('\'', '`');
    let upper = "ÄÅÇÉÑÖÜáàâäãåçéèêëíìîïñóòôöõúùûü†°¢£§•¶ß®©™´¨≠ÆØ∞±≤≥¥µ∂∑∏π∫ªºΩæø¿¡¬√ƒ≈∆«»… ÀÃÕŒœ–—“”‘’÷◊ÿŸ⁄¤‹›ﬁﬂ‡·‚„‰ÂÊÁËÈÍÎÏÌÓÔ\u{F8FF}ÒÚÛÙıˆ˜¯˘˙˚¸˝˛ˇ";
    for (offset, ch) in upper.chars().enumerate() {
        table[0x80 + offset] = Some(ch);
    }
    table
}

#[rustfmt::skip]
const STANDARD_HIGH: &[(u8, char)] = &[
    (0xA1, '¡'), (0xA2, '¢'), (0xA3, '£'), (0xA4, '⁄'), (0xA5, '¥'), (0xA6, 'ƒ'), (0xA7, '§'), (0xA8, '¤'),
    (0xA9, '\''), (0xAA, '“'), (0xAB, '«'), (0xAC, '‹'), (0xAD, '›'), (0xAE, 'ﬁ'), (0xAF, 'ﬂ'), (0xB1, '–'),
    (0xB2, '†'), (0xB3, '‡'), (0xB4, '·'), (0xB6, '¶'), (0xB7, '•'), (0xB8, '‚'), (0xB9, '„'), (0xBA, '”'),
    (0xBB, '»'), (0xBC, '…'), (0xBD, '‰'), (0xBF, '¿'), (0xC1, '`'), (0xC2, '´'), (0xC3, 'ˆ'), (0xC4, '˜'),
    (0xC5, '¯'), (0xC6, '˘'), (0xC7, '˙'), (0xC8, '¨'), (0xCA, '˚'), (0xCB, '¸'), (0xCD, '˝'), (0xCE, '˛'),
    (0xCF, 'ˇ'), (0xD0, '—'), (0xE1, 'Æ'), (0xE3, 'ª'), (0xE8, 'Ł'), (0xE9, 'Ø'), (0xEA, 'Œ'), (0xEB, 'º'),
    (0xF1, 'æ'), (0xF5, 'ı'), (0xF8, 'ł'), (0xF9, 'ø'), (0xFA, 'œ'), (0xFB, 'ß'),
];

#[rustfmt::skip]
const SYMBOL: &[(u8, char)] = &[
    (0x22, '∀'), (0x24, '∃'), (0x2A, '∗'), (0x2D, '−'), (0x40, '≅'), (0x41, 'Α'), (0x42, 'Β'), (0x43, 'Χ'),
    (0x44, 'Δ'), (0x45, 'Ε'), (0x46, 'Φ'), (0x47, 'Γ'), (0x48, 'Η'), (0x49, 'Ι'), (0x4A, 'ϑ'), (0x4B, 'Κ'),
    (0x4C, 'Λ'), (0x4D, 'Μ'), (0x4E, 'Ν'), (0x4F, 'Ο'), (0x50, 'Π'), (0x51, 'Θ'), (0x52, 'Ρ'), (0x53, 'Σ'),
    (0x54, 'Τ'), (0x55, 'Υ'), (0x56, 'ς'), (0x57, 'Ω'), (0x58, 'Ξ'), (0x59, 'Ψ'), (0x5A, 'Ζ'), (0x5C, '∴'),
    (0x5E, '⊥'), (0x61, 'α'), (0x62, 'β'), (0x63, 'χ'), (0x64, 'δ'), (0x65, 'ε'), (0x66, 'φ'), (0x67, 'γ'),
    (0x68, 'η'), (0x69, 'ι'), (0x6A, 'ϕ'), (0x6B, 'κ'), (0x6C, 'λ'), (0x6D, 'μ'), (0x6E, 'ν'), (0x6F, 'ο'),
    (0x70, 'π'), (0x71, 'θ'), (0x72, 'ρ'), (0x73, 'σ'), (0x74, 'τ'), (0x75, 'υ'), (0x76, 'ϖ'), (0x77, 'ω'),
    (0x78, 'ξ'), (0x79, 'ψ'), (0x7A, 'ζ'), (0x7E, '∼'), (0xA1, 'ϒ'), (0xA2, '′'), (0xA3, '≤'), (0xA4, '⁄'),
    (0xA5, '∞'), (0xA6, 'ƒ'), (0xA7, '♣'), (0xA8, '♦'), (0xA9, '♥'), (0xAA, '♠'), (0xAB, '↔'), (0xAC, '←'),
    (0xAD, '↑'), (0xAE, '→'), (0xAF, '↓'), (0xB0, '°'), (0xB1, '±'), (0xB2, '″'), (0xB3, '≥'), (0xB4, '×'),
    (0xB5, '∝'), (0xB6, '∂'), (0xB7, '•'), (0xB8, '÷'), (0xB9, '≠'), (0xBA, '≡'), (0xBB, '≈'), (0xBC, '…'),
    (0xBF, '↵'), (0xC0, 'ℵ'), (0xC1, 'ℑ'), (0xC2, 'ℜ'), (0xC3, '℘'), (0xC4, '⊗'), (0xC5, '⊕'), (0xC6, '∅'),
    (0xC7, '∩'), (0xC8, '∪'), (0xC9, '⊃'), (0xCA, '⊇'), (0xCB, '⊄'), (0xCC, '⊂'), (0xCD, '⊆'), (0xCE, '∈'),
    (0xCF, '∉'), (0xD0, '∠'), (0xD1, '∇'), (0xD2, '®'), (0xD3, '©'), (0xD4, '™'), (0xD5, '∏'), (0xD6, '√'),
    (0xD7, '⋅'), (0xD8, '¬'), (0xD9, '∧'), (0xDA, '∨'), (0xDB, '⇔'), (0xDC, '⇐'), (0xDD, '⇑'), (0xDE, '⇒'),
    (0xDF, '⇓'), (0xE0, '◊'), (0xE1, '〈'), (0xE5, '∑'), (0xF1, '〉'), (0xF2, '∫'),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_place_the_characters_where_annex_d_puts_them() {
        let win = BaseEncoding::WinAnsi.table();
        assert_eq!(
            (win[0x80], win[0x93], win[0xE9]),
            (Some('€'), Some('“'), Some('é'))
        );
        let mac = BaseEncoding::MacRoman.table();
        assert_eq!(
            (mac[0x80], mac[0xDE], mac[0xFF]),
            (Some('Ä'), Some('ﬁ'), Some('ˇ'))
        );
        let standard = BaseEncoding::Standard.table();
        assert_eq!(
            (standard[0x27], standard[0xAE], standard[0xFB]),
            (Some('’'), Some('ﬁ'), Some('ß'))
        );
        assert_eq!(BaseEncoding::Symbol.table()[0x70], Some('π'));
    }
}
