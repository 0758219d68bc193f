//! CMaps (PDF 32000-1 §9.7.5 and §9.10.3): how a composite font's bytes split into codes, which
//! CID each code selects, and — in a ToUnicode CMap — which Unicode text each code stands for.
//! Ranges stay ranges, so an identity map over 0000–FFFF costs one entry, not 65,536.

use crate::lexer::{Lexer, Token};
use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Copy)]
struct Codespace {
    length: usize,
    low: [u8; 4],
    high: [u8; 4],
}

#[derive(Debug, Clone)]
struct UnicodeRange {
    low: u32,
    high: u32,
    /// Text of `low`; later codes increment its last UTF-16 unit.
    first: Vec<u16>,
}

#[derive(Debug, Default, Clone)]
pub struct CMap {
    codespaces: Vec<Codespace>,
    unicode_single: FxHashMap<u32, String>,
    unicode_ranges: Vec<UnicodeRange>,
    cid_single: FxHashMap<u32, u32>,
    cid_ranges: Vec<(u32, u32, u32)>,
    pub vertical: bool,
}

fn bytes_to_code(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .take(4)
        .fold(0u32, |code, &b| code << 8 | u32::from(b))
}

fn utf16_units(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks(2)
        .map(|pair| u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]))
        .collect()
}

/// Text of UTF-16 units, or None when they are not well formed (a lone surrogate, say).
fn decode_utf16(units: &[u16]) -> Option<String> {
    char::decode_utf16(units.iter().copied())
        .collect::<Result<String, _>>()
        .ok()
}

impl CMap {
    /// The two predefined identity CMaps: two-byte codes that are their own CIDs.
    pub fn identity(vertical: bool) -> Self {
        let mut cmap = CMap {
            codespaces: vec![Codespace {
                length: 2,
                low: [0; 4],
                high: [0xFF, 0xFF, 0, 0],
            }],
            vertical,
            ..CMap::default()
        };
        cmap.cid_ranges.push((0, 0xFFFF, 0));
        cmap
    }

    pub fn parse(data: &[u8]) -> Self {
        let mut cmap = CMap::default();
        let mut lexer = Lexer::new(data);
        let mut operands: Vec<Token> = Vec::new();
        while let Some(token) = lexer.next_token() {
            let Token::Keyword(keyword) = token else {
                operands.push(token);
                continue;
            };
            match keyword {
                b"endcodespacerange" => cmap.read_codespaces(&operands),
                b"endbfchar" => cmap.read_bfchar(&operands),
                b"endbfrange" => cmap.read_bfrange(&operands),
                b"endcidchar" => cmap.read_cidchar(&operands),
                b"endcidrange" => cmap.read_cidrange(&operands),
                b"def" => {
                    if let [.., Token::Name(key), Token::Number(mode)] = operands.as_slice() {
                        if key.as_ref() == b"WMode" {
                            cmap.vertical = *mode == 1.0;
                        }
                    }
                }
                _ => {}
            }
            operands.clear();
        }
        cmap.unicode_ranges.sort_by_key(|range| range.low);
        cmap.cid_ranges.sort_by_key(|range| range.0);
        cmap
    }

    fn read_codespaces(&mut self, operands: &[Token]) {
        for pair in operands.chunks_exact(2) {
            if let [Token::String(low), Token::String(high)] = pair {
                let length = low.len().clamp(1, 4);
                let mut space = Codespace {
                    length,
                    low: [0; 4],
                    high: [0; 4],
                };
                space.low[..length].copy_from_slice(&low[..length]);
                space.high[..length.min(high.len())]
                    .copy_from_slice(&high[..length.min(high.len())]);
                self.codespaces.push(space);
            }
        }
    }

    fn read_bfchar(&mut self, operands: &[Token]) {
        for pair in operands.chunks_exact(2) {
            let text = match &pair[1] {
                Token::String(dst) => decode_utf16(&utf16_units(dst)),
                Token::Name(name) => std::str::from_utf8(name)
                    .ok()
                    .and_then(super::glyph_names::glyph_to_unicode),
                _ => None,
            };
            if let (Token::String(src), Some(text)) = (&pair[0], text) {
                self.unicode_single.insert(bytes_to_code(src), text);
            }
        }
    }

    fn read_bfrange(&mut self, operands: &[Token]) {
        let mut index = 0;
        while index + 2 < operands.len() {
            let (Token::String(low), Token::String(high)) =
                (&operands[index], &operands[index + 1])
            else {
                index += 1;
                continue;
            };
            let (low, high) = (bytes_to_code(low), bytes_to_code(high));
            index += 2;
            match &operands[index] {
                Token::String(dst) if high >= low => {
                    self.unicode_ranges.push(UnicodeRange {
                        low,
                        high,
                        first: utf16_units(dst),
                    });
                    index += 1;
                }
                Token::ArrayStart => {
                    index += 1;
                    let mut code = low;
                    while let Some(Token::String(dst)) = operands.get(index) {
                        if let Some(text) = decode_utf16(&utf16_units(dst)) {
                            self.unicode_single.insert(code, text);
                        }
                        code = code.wrapping_add(1);
                        index += 1;
                    }
                    if matches!(operands.get(index), Some(Token::ArrayEnd)) {
                        index += 1;
                    }
                }
                _ => index += 1,
            }
        }
    }

    fn read_cidchar(&mut self, operands: &[Token]) {
        for pair in operands.chunks_exact(2) {
            if let [Token::String(src), Token::Number(cid)] = pair {
                self.cid_single.insert(bytes_to_code(src), *cid as u32);
            }
        }
    }

    fn read_cidrange(&mut self, operands: &[Token]) {
        for triple in operands.chunks_exact(3) {
            if let [Token::String(low), Token::String(high), Token::Number(cid)] = triple {
                self.cid_ranges
                    .push((bytes_to_code(low), bytes_to_code(high), *cid as u32));
            }
        }
    }

    pub fn has_codespaces(&self) -> bool {
        !self.codespaces.is_empty()
    }

    /// Length in bytes of the code at the start of `bytes`: the codespace it falls in, else the
    /// shortest codespace length (a damaged byte costs one code, not the rest of the string).
    pub fn code_length(&self, bytes: &[u8]) -> usize {
        for space in &self.codespaces {
            if space.length <= bytes.len()
                && (0..space.length).all(|i| bytes[i] >= space.low[i] && bytes[i] <= space.high[i])
            {
                return space.length;
            }
        }
        self.codespaces
            .iter()
            .map(|space| space.length)
            .min()
            .unwrap_or(1)
            .min(bytes.len())
            .max(1)
    }

    pub fn cid(&self, code: u32) -> Option<u32> {
        if let Some(&cid) = self.cid_single.get(&code) {
            return Some(cid);
        }
        let index = self.cid_ranges.partition_point(|range| range.0 <= code);
        let (low, high, first) = *self.cid_ranges[..index].last()?;
        (code <= high).then(|| first + (code - low))
    }

    pub fn unicode(&self, code: u32) -> Option<String> {
        if let Some(text) = self.unicode_single.get(&code) {
            return Some(text.clone());
        }
        let index = self
            .unicode_ranges
            .partition_point(|range| range.low <= code);
        let range = self.unicode_ranges[..index]
            .iter()
            .rev()
            .find(|range| code <= range.high)?;
        let mut units = range.first.clone();
        let last = units.last_mut()?;
        *last = last.wrapping_add((code - range.low) as u16);
        decode_utf16(&units)
    }

    pub fn has_unicode(&self) -> bool {
        !self.unicode_single.is_empty() || !self.unicode_ranges.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TO_UNICODE: &[u8] = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap
        1 begincodespacerange <0000> <FFFF> endcodespacerange
        2 beginbfchar <0003> <0020> <0011> <D835DC00> endbfchar
        2 beginbfrange <0024> <0026> <0041> <0050> <0051> [<0066006C> <00660069>] endbfrange
        endcmap";

    #[test]
    fn maps_codes_through_chars_ranges_and_arrays() {
        let cmap = CMap::parse(TO_UNICODE);
        assert_eq!(cmap.unicode(0x03).as_deref(), Some(" "));
        assert_eq!(cmap.unicode(0x11).as_deref(), Some("𝐀"));
        assert_eq!(cmap.unicode(0x26).as_deref(), Some("C"));
        assert_eq!(cmap.unicode(0x51).as_deref(), Some("fi"));
        assert_eq!(cmap.unicode(0x27), None);
        assert_eq!(cmap.code_length(&[0x00, 0x24]), 2);
    }

    #[test]
    fn splits_mixed_length_codes_by_codespace() {
        let cmap = CMap::parse(
            b"2 begincodespacerange <00> <80> <8140> <9FFC> endcodespacerange
              1 begincidrange <8140> <817E> 633 endcidrange 1 begincidchar <41> 34 endcidchar
              /WMode 1 def",
        );
        assert_eq!(cmap.code_length(&[0x41, 0x81]), 1);
        assert_eq!(cmap.code_length(&[0x81, 0x41]), 2);
        assert_eq!(cmap.cid(0x8142), Some(635));
        assert_eq!(cmap.cid(0x41), Some(34));
        assert!(cmap.vertical);
    }
}
