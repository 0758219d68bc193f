//! A tokenizer for PDF content streams and the PostScript-like text of CMaps and Type 1 fonts.
//! It never fails: bytes it cannot make sense of become one-byte keywords the caller ignores,
//! which is how viewers treat damaged content.

use std::borrow::Cow;

#[derive(Debug, Clone, PartialEq)]
pub enum Token<'a> {
    Number(f64),
    String(Cow<'a, [u8]>),
    Name(Cow<'a, [u8]>),
    Keyword(&'a [u8]),
    ArrayStart,
    ArrayEnd,
    DictStart,
    DictEnd,
}

pub struct Lexer<'a> {
    data: &'a [u8],
    pub position: usize,
}

pub fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'\0')
}

fn is_delimiter(byte: u8) -> bool {
    matches!(
        byte,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

fn is_regular(byte: u8) -> bool {
    !is_whitespace(byte) && !is_delimiter(byte)
}

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

impl<'a> Lexer<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, position: 0 }
    }

    pub fn remaining(&self) -> &'a [u8] {
        &self.data[self.position.min(self.data.len())..]
    }

    fn skip_whitespace_and_comments(&mut self) {
        while let Some(&byte) = self.data.get(self.position) {
            if is_whitespace(byte) {
                self.position += 1;
            } else if byte == b'%' {
                while self.position < self.data.len()
                    && !matches!(self.data[self.position], b'\r' | b'\n')
                {
                    self.position += 1;
                }
            } else {
                break;
            }
        }
    }

    fn take_regular(&mut self) -> &'a [u8] {
        let start = self.position;
        while self.position < self.data.len() && is_regular(self.data[self.position]) {
            self.position += 1;
        }
        &self.data[start..self.position]
    }

    pub fn next_token(&mut self) -> Option<Token<'a>> {
        self.skip_whitespace_and_comments();
        let byte = *self.data.get(self.position)?;
        match byte {
            b'[' => {
                self.position += 1;
                Some(Token::ArrayStart)
            }
            b']' => {
                self.position += 1;
                Some(Token::ArrayEnd)
            }
            b'<' if self.data.get(self.position + 1) == Some(&b'<') => {
                self.position += 2;
                Some(Token::DictStart)
            }
            b'>' if self.data.get(self.position + 1) == Some(&b'>') => {
                self.position += 2;
                Some(Token::DictEnd)
            }
            b'<' => Some(Token::String(Cow::Owned(self.hex_string()))),
            b'(' => Some(Token::String(self.literal_string())),
            b'/' => {
                self.position += 1;
                Some(Token::Name(self.name()))
            }
            b'+' | b'-' | b'.' | b'0'..=b'9' => {
                let word = self.take_regular();
                match parse_number(word) {
                    Some(value) => Some(Token::Number(value)),
                    None => Some(Token::Keyword(word)),
                }
            }
            _ if is_regular(byte) => Some(Token::Keyword(self.take_regular())),
            _ => {
                self.position += 1;
                Some(Token::Keyword(&self.data[self.position - 1..self.position]))
            }
        }
    }

    fn name(&mut self) -> Cow<'a, [u8]> {
        let raw = self.take_regular();
        if !raw.contains(&b'#') {
            return Cow::Borrowed(raw);
        }
        let mut decoded = Vec::with_capacity(raw.len());
        let mut index = 0;
        while index < raw.len() {
            let escaped = (raw[index] == b'#')
                .then(|| {
                    Some(hex_value(*raw.get(index + 1)?)? << 4 | hex_value(*raw.get(index + 2)?)?)
                })
                .flatten();
            match escaped {
                Some(value) => {
                    decoded.push(value);
                    index += 3;
                }
                None => {
                    decoded.push(raw[index]);
                    index += 1;
                }
            }
        }
        Cow::Owned(decoded)
    }

    fn hex_string(&mut self) -> Vec<u8> {
        self.position += 1;
        let mut bytes = Vec::new();
        let mut high: Option<u8> = None;
        while let Some(&byte) = self.data.get(self.position) {
            self.position += 1;
            if byte == b'>' {
                break;
            }
            if let Some(value) = hex_value(byte) {
                match high.take() {
                    Some(h) => bytes.push(h << 4 | value),
                    None => high = Some(value),
                }
            }
        }
        if let Some(h) = high {
            bytes.push(h << 4);
        }
        bytes
    }

    fn literal_string(&mut self) -> Cow<'a, [u8]> {
        self.position += 1;
        let start = self.position;
        let mut depth = 1usize;
        let mut has_escape = false;
        while let Some(&byte) = self.data.get(self.position) {
            match byte {
                b'\\' => {
                    has_escape = true;
                    self.position += 1;
                }
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b'\r' => has_escape = true,
                _ => {}
            }
            self.position += 1;
        }
        let end = self.position.min(self.data.len());
        self.position = (self.position + 1).min(self.data.len());
        let raw = &self.data[start..end];
        if has_escape {
            Cow::Owned(unescape_literal(raw))
        } else {
            Cow::Borrowed(raw)
        }
    }
}

fn unescape_literal(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut index = 0;
    while index < raw.len() {
        let byte = raw[index];
        index += 1;
        if byte == b'\r' {
            out.push(b'\n');
            if raw.get(index) == Some(&b'\n') {
                index += 1;
            }
            continue;
        }
        if byte != b'\\' {
            out.push(byte);
            continue;
        }
        let Some(&escaped) = raw.get(index) else {
            break;
        };
        index += 1;
        match escaped {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'\r' => {
                if raw.get(index) == Some(&b'\n') {
                    index += 1;
                }
            }
            b'\n' => {}
            b'0'..=b'7' => {
                let mut value = u32::from(escaped - b'0');
                for _ in 0..2 {
                    match raw.get(index) {
                        Some(&digit @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(digit - b'0');
                            index += 1;
                        }
                        _ => break,
                    }
                }
                out.push(value as u8);
            }
            other => out.push(other),
        }
    }
    out
}

fn parse_number(word: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(word).ok()?;
    if let Ok(value) = text.parse::<f64>() {
        return value.is_finite().then_some(value);
    }
    // Producers write things like "--5" or "5-"; viewers read the leading number.
    let cleaned: String = text
        .trim_start_matches(['+', '-'])
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let value = cleaned.parse::<f64>().ok()?;
    Some(if text.starts_with('-') { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: &[u8]) -> Vec<Token<'_>> {
        let mut lexer = Lexer::new(input);
        std::iter::from_fn(|| lexer.next_token()).collect()
    }

    #[test]
    fn reads_the_token_kinds_of_a_content_stream() {
        let input = b"BT /F#201 12 Tf [(a\\(b\\051) -250 <4142 4>] TJ % comment\n<< /K 1 >> ET";
        assert_eq!(
            tokens(input),
            vec![
                Token::Keyword(b"BT"),
                Token::Name(Cow::Borrowed(b"F 1")),
                Token::Number(12.0),
                Token::Keyword(b"Tf"),
                Token::ArrayStart,
                Token::String(Cow::Borrowed(b"a(b)")),
                Token::Number(-250.0),
                Token::String(Cow::Borrowed(b"AB@")),
                Token::ArrayEnd,
                Token::Keyword(b"TJ"),
                Token::DictStart,
                Token::Name(Cow::Borrowed(b"K")),
                Token::Number(1.0),
                Token::DictEnd,
                Token::Keyword(b"ET"),
            ]
        );
    }

    #[test]
    fn survives_unterminated_and_garbage_input() {
        assert_eq!(tokens(b"(abc").len(), 1);
        assert_eq!(tokens(b"<41").len(), 1);
        assert_eq!(tokens(b")>}").len(), 3);
        assert_eq!(
            tokens(b"1.2.3 --4"),
            vec![Token::Keyword(b"1.2.3"), Token::Number(-4.0)]
        );
    }
}
