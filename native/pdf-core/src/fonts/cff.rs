//! The built-in encoding of a bare CFF font program (FontFile3 /Type1C), from the Top DICT's
//! charset and encoding (Adobe Technical Note #5176). CID-keyed programs have no encoding.

use super::type1::BuiltinEncoding;

/// Standard strings 0–228 (the ISOAdobe charset). Higher standard SIDs are expert glyph names,
/// which Latin text never needs: they resolve to nothing.
const STANDARD_STRINGS: &str = ".notdef space exclam quotedbl numbersign dollar percent ampersand quoteright parenleft \
parenright asterisk plus comma hyphen period slash zero one two three four five six seven eight nine colon semicolon \
less equal greater question at A B C D E F G H I J K L M N O P Q R S T U V W X Y Z bracketleft backslash bracketright \
asciicircum underscore quoteleft a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft bar braceright \
asciitilde exclamdown cent sterling fraction yen florin section currency quotesingle quotedblleft guillemotleft \
guilsinglleft guilsinglright fi fl endash dagger daggerdbl periodcentered paragraph bullet quotesinglbase \
quotedblbase quotedblright guillemotright ellipsis perthousand questiondown grave acute circumflex tilde macron breve \
dotaccent dieresis ring cedilla hungarumlaut ogonek caron emdash AE ordfeminine Lslash Oslash OE ordmasculine ae \
dotlessi lslash oslash oe germandbls onesuperior logicalnot mu trademark Eth onehalf plusminus Thorn onequarter \
divide brokenbar degree thorn threequarters twosuperior registered minus eth multiply threesuperior copyright Aacute \
Acircumflex Adieresis Agrave Aring Atilde Ccedilla Eacute Ecircumflex Edieresis Egrave Iacute Icircumflex Idieresis \
Igrave Ntilde Oacute Ocircumflex Odieresis Ograve Otilde Scaron Uacute Ucircumflex Udieresis Ugrave Yacute Ydieresis \
Zcaron aacute acircumflex adieresis agrave aring atilde ccedilla eacute ecircumflex edieresis egrave iacute \
icircumflex idieresis igrave ntilde oacute ocircumflex odieresis ograve otilde scaron uacute ucircumflex udieresis \
ugrave yacute ydieresis zcaron";
const STANDARD_STRING_COUNT: usize = 391;

struct Reader<'a> {
    data: &'a [u8],
}

impl<'a> Reader<'a> {
    fn u8(&self, at: usize) -> Option<usize> {
        self.data.get(at).map(|&b| b as usize)
    }

    fn u16(&self, at: usize) -> Option<usize> {
        Some(self.u8(at)? << 8 | self.u8(at + 1)?)
    }

    fn offset(&self, at: usize, size: usize) -> Option<usize> {
        (0..size).try_fold(0usize, |value, i| Some(value << 8 | self.u8(at + i)?))
    }

    /// The items of the INDEX at `at` and the position just after it.
    fn index(&self, at: usize) -> Option<(Vec<&'a [u8]>, usize)> {
        let count = self.u16(at)?;
        if count == 0 {
            return Some((Vec::new(), at + 2));
        }
        let size = self.u8(at + 2)?;
        if !(1..=4).contains(&size) {
            return None;
        }
        let offsets_at = at + 3;
        let data_base = offsets_at + (count + 1) * size - 1;
        let mut items = Vec::with_capacity(count.min(65_536));
        let mut previous = self.offset(offsets_at, size)?;
        for i in 1..=count {
            let next = self.offset(offsets_at + i * size, size)?;
            items.push(self.data.get(data_base + previous..data_base + next)?);
            previous = next;
        }
        Some((items, data_base + previous))
    }
}

/// Top DICT operators we need: charset (15), Encoding (16), CharStrings (17), ROS (12 30).
struct TopDict {
    charset: usize,
    encoding: usize,
    char_strings: Option<usize>,
    cid_keyed: bool,
}

fn parse_top_dict(data: &[u8]) -> TopDict {
    let mut top = TopDict {
        charset: 0,
        encoding: 0,
        char_strings: None,
        cid_keyed: false,
    };
    let mut operands: Vec<f64> = Vec::new();
    let mut i = 0;
    while i < data.len() {
        let b0 = data[i];
        i += 1;
        match b0 {
            28 if i + 2 <= data.len() => {
                operands.push(f64::from(i16::from_be_bytes([data[i], data[i + 1]])));
                i += 2;
            }
            29 if i + 4 <= data.len() => {
                operands.push(f64::from(i32::from_be_bytes([
                    data[i],
                    data[i + 1],
                    data[i + 2],
                    data[i + 3],
                ])));
                i += 4;
            }
            30 => {
                // Real numbers are never offsets; skip the nibbles up to the 0xf terminator.
                while i < data.len() && data[i] & 0x0F != 0x0F && data[i] >> 4 != 0x0F {
                    i += 1;
                }
                i += 1;
                operands.push(0.0);
            }
            32..=246 => operands.push(f64::from(b0) - 139.0),
            247..=250 if i < data.len() => {
                operands.push((f64::from(b0) - 247.0) * 256.0 + f64::from(data[i]) + 108.0);
                i += 1;
            }
            251..=254 if i < data.len() => {
                operands.push(-(f64::from(b0) - 251.0) * 256.0 - f64::from(data[i]) - 108.0);
                i += 1;
            }
            12 => {
                if data.get(i) == Some(&30) {
                    top.cid_keyed = true;
                }
                i += 1;
                operands.clear();
            }
            0..=21 => {
                let value = operands.last().copied().unwrap_or(0.0).max(0.0) as usize;
                match b0 {
                    15 => top.charset = value,
                    16 => top.encoding = value,
                    17 => top.char_strings = Some(value),
                    _ => {}
                }
                operands.clear();
            }
            _ => {}
        }
    }
    top
}

/// SID of every glyph, by glyph id.
fn charset(reader: &Reader, offset: usize, glyphs: usize) -> Option<Vec<usize>> {
    let mut sids = vec![0usize];
    match offset {
        0 => sids.extend(1..glyphs.min(229)),
        1 | 2 => return None,
        _ => {
            let format = reader.u8(offset)?;
            let mut at = offset + 1;
            while sids.len() < glyphs {
                match format {
                    0 => {
                        sids.push(reader.u16(at)?);
                        at += 2;
                    }
                    1 | 2 => {
                        let first = reader.u16(at)?;
                        let left = if format == 1 {
                            reader.u8(at + 2)?
                        } else {
                            reader.u16(at + 2)?
                        };
                        at += if format == 1 { 3 } else { 4 };
                        sids.extend((first..=first + left).take(glyphs - sids.len()));
                    }
                    _ => return None,
                }
            }
        }
    }
    Some(sids)
}

pub fn builtin_encoding(data: &[u8]) -> Option<BuiltinEncoding> {
    let reader = Reader { data };
    let header_size = reader.u8(2)?;
    let (_, after_names) = reader.index(header_size)?;
    let (top_dicts, after_top) = reader.index(after_names)?;
    let (strings, _) = reader.index(after_top)?;
    let top = parse_top_dict(top_dicts.first()?);
    if top.cid_keyed {
        return None;
    }
    match top.encoding {
        0 => return Some(BuiltinEncoding::Standard),
        1 => return None,
        _ => {}
    }
    let (char_strings, _) = reader.index(top.char_strings?)?;
    let sids = charset(&reader, top.charset, char_strings.len())?;
    let standard: Vec<&str> = STANDARD_STRINGS.split(' ').collect();
    let sid_name = |sid: usize| -> Option<String> {
        if sid < standard.len() {
            return Some(standard[sid].to_string());
        }
        let custom = strings.get(sid.checked_sub(STANDARD_STRING_COUNT)?)?;
        Some(String::from_utf8_lossy(custom).into_owned())
    };
    let mut entries = Vec::new();
    let format = reader.u8(top.encoding)?;
    let mut at = top.encoding + 1;
    let mut glyph = 1usize;
    match format & 0x7F {
        0 => {
            let count = reader.u8(at)?;
            for i in 0..count {
                let code = reader.u8(at + 1 + i)?;
                if let Some(name) = sids.get(glyph).and_then(|&sid| sid_name(sid)) {
                    entries.push((code as u8, name));
                }
                glyph += 1;
            }
            at += 1 + count;
        }
        1 => {
            let ranges = reader.u8(at)?;
            for r in 0..ranges {
                let first = reader.u8(at + 1 + r * 2)?;
                let left = reader.u8(at + 2 + r * 2)?;
                for code in first..=(first + left).min(255) {
                    if let Some(name) = sids.get(glyph).and_then(|&sid| sid_name(sid)) {
                        entries.push((code as u8, name));
                    }
                    glyph += 1;
                }
            }
            at += 1 + ranges * 2;
        }
        _ => return None,
    }
    if format & 0x80 != 0 {
        let supplements = reader.u8(at)?;
        for s in 0..supplements {
            let code = reader.u8(at + 1 + s * 3)?;
            if let Some(name) = sid_name(reader.u16(at + 2 + s * 3)?) {
                entries.push((code as u8, name));
            }
        }
    }
    Some(BuiltinEncoding::Names(entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_strings_cover_the_iso_adobe_charset() {
        let names: Vec<&str> = STANDARD_STRINGS.split(' ').collect();
        assert_eq!(names.len(), 229);
        assert_eq!(
            (names[1], names[34], names[95], names[228]),
            ("space", "A", "asciitilde", "zcaron")
        );
    }

    #[test]
    fn rejects_truncated_programs_without_panicking() {
        for length in 0..12 {
            assert!(
                builtin_encoding(&[1, 0, 4, 1, 0, 1, 1, 1, 5, 0, 1][..length.min(11)]).is_none()
            );
        }
    }
}
