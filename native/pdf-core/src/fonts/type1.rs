//! The built-in encoding of an embedded Type 1 font program (its cleartext `/Encoding` array),
//! which is where TeX fonts without a PDF-level encoding keep their code → glyph name table.

use crate::lexer::{Lexer, Token};

pub enum BuiltinEncoding {
    Standard,
    Names(Vec<(u8, String)>),
}

/// Reads `dup <code> /<name> put` entries up to the end of the array; None when the program
/// declares no encoding at all.
pub fn builtin_encoding(program: &[u8]) -> Option<BuiltinEncoding> {
    let start = find(program, b"/Encoding")?;
    let cleartext_end = find(&program[start..], b"eexec").map_or(program.len(), |end| start + end);
    let mut lexer = Lexer::new(&program[start + b"/Encoding".len()..cleartext_end]);
    let mut entries = Vec::new();
    let mut recent: Vec<Token> = Vec::new();
    while let Some(token) = lexer.next_token() {
        match token {
            Token::Keyword(b"StandardEncoding") if entries.is_empty() => {
                return Some(BuiltinEncoding::Standard)
            }
            Token::Keyword(b"put") => {
                if let [.., Token::Number(code), Token::Name(name)] = recent.as_slice() {
                    if (0.0..256.0).contains(code) {
                        entries.push((*code as u8, String::from_utf8_lossy(name).into_owned()));
                    }
                }
                recent.clear();
            }
            Token::Keyword(b"def" | b"readonly") if !entries.is_empty() => break,
            other => {
                recent.push(other);
                if recent.len() > 8 {
                    recent.remove(0);
                }
            }
        }
    }
    Some(BuiltinEncoding::Names(entries))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_dup_put_array_of_a_tex_font() {
        let program = b"%!PS-AdobeFont-1.0: CMR10\n/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\n\
            dup 11 /ff put\ndup 65 /A put\nreadonly def\ncurrentfile eexec\x80\x81";
        let Some(BuiltinEncoding::Names(entries)) = builtin_encoding(program) else {
            panic!("no encoding")
        };
        assert_eq!(entries, vec![(11, "ff".to_string()), (65, "A".to_string())]);
        assert!(matches!(
            builtin_encoding(b"/Encoding StandardEncoding def currentfile eexec"),
            Some(BuiltinEncoding::Standard)
        ));
    }
}
