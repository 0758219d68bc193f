//! Fonts as text extraction needs them: how a string's bytes split into codes, each code's
//! advance width, and the Unicode text it stands for.
//!
//! Unicode comes from the first source that knows the code: the ToUnicode CMap, then the
//! encoding (Differences over a base encoding, or the font program's built-in encoding) through
//! glyph names, then — for UCS-2 CMaps — the code itself.

mod cff;
pub mod cmap;
pub mod encoding;
pub mod glyph_names;
mod truetype;
mod type1;

use crate::objects;
use cmap::CMap;
use encoding::{BaseEncoding, CodeTable};
use lopdf::{Dictionary, Document, Object};
use rustc_hash::FxHashMap;

pub struct Glyph<'f> {
    /// Advance along the writing direction in text space units, before the font size.
    pub advance: f32,
    /// Word spacing applies to the single-byte code 32 only (PDF 32000-1 §9.3.3).
    pub is_word_space: bool,
    pub text: Option<&'f str>,
}

/// CID → glyph id → Unicode through an embedded TrueType program's own cmap.
struct GlyphUnicode {
    cid_to_glyph: Option<Vec<u16>>,
    unicode: FxHashMap<u16, char>,
}

impl GlyphUnicode {
    fn load(doc: &Document, descendant: &Dictionary) -> Option<GlyphUnicode> {
        let descriptor = objects::dict(doc, descendant, b"FontDescriptor")?;
        let program = objects::decoded(objects::stream(doc, descriptor, b"FontFile2")?)?;
        let unicode = truetype::glyph_unicode_map(&program)?;
        let cid_to_glyph = objects::stream(doc, descendant, b"CIDToGIDMap")
            .and_then(objects::decoded)
            .map(|data| {
                data.chunks_exact(2)
                    .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
                    .collect()
            });
        Some(GlyphUnicode {
            cid_to_glyph,
            unicode,
        })
    }

    fn get(&self, cid: u32) -> Option<char> {
        let glyph = match &self.cid_to_glyph {
            Some(table) => *table.get(cid as usize)?,
            None => u16::try_from(cid).ok()?,
        };
        self.unicode.get(&glyph).copied()
    }
}

// One font value per font of a document: the size difference between the variants is irrelevant.
#[allow(clippy::large_enum_variant)]
enum Codes {
    Simple {
        text: Vec<Option<Box<str>>>,
        widths: Vec<f32>,
    },
    Composite {
        encoding: CMap,
        to_unicode: Option<CMap>,
        code_is_unicode: bool,
        glyph_unicode: Option<GlyphUnicode>,
        widths: FxHashMap<u32, f32>,
        default_width: f32,
        unicode_cache: FxHashMap<u32, Option<Box<str>>>,
    },
}

/// A bold face by its PostScript name (`ABCDEF+Times-Bold`, `Arial-BoldMT`, `Inter-SemiBold`, …).
pub fn is_bold_name(name: &str) -> bool {
    let style = name
        .rsplit(['-', ','])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let lower = name.to_ascii_lowercase();
    // TeX's Computer Modern and EC fonts name the bold extended series in the family.
    let base = lower.rsplit('+').next().unwrap_or("");
    ["cmbx", "sfbx", "cmb1", "ecbx", "ecrb"]
        .iter()
        .any(|prefix| base.starts_with(prefix))
        || ["bold", "black", "heavy", "semibold", "demi"]
            .iter()
            .any(|word| style.contains(word) || lower.ends_with(word))
}

pub struct Font {
    codes: Codes,
    pub vertical: bool,
    /// Glyph space → text space along the advance (0.001 except for Type 3 fonts).
    pub width_scale: f32,
    /// Glyph height relative to the font size (1 except for Type 3 fonts with a scaled matrix).
    pub height_scale: f32,
    /// Set when codes have no Unicode source at all: extraction notes it for the agent.
    pub missing_unicode: bool,
    pub name: String,
    /// A bold face by its name (see [`is_bold_name`]), worked out once per font.
    pub bold: bool,
}

impl Font {
    pub fn load(doc: &Document, dict: &Dictionary) -> Font {
        let subtype = objects::name(doc, dict, b"Subtype").unwrap_or(b"Type1");
        let name = objects::name(doc, dict, b"BaseFont")
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_default();
        let to_unicode = objects::stream(doc, dict, b"ToUnicode")
            .and_then(objects::decoded)
            .map(|data| CMap::parse(&data))
            .filter(CMap::has_unicode);
        if subtype == b"Type0" {
            return Self::composite(doc, dict, to_unicode, name);
        }
        let is_type3 = subtype == b"Type3";
        let matrix = objects::array(doc, dict, b"FontMatrix")
            .map(|items| objects::numbers(doc, items))
            .filter(|m| m.len() == 6);
        let (width_scale, height_scale) = match (&matrix, is_type3) {
            (Some(m), true) if m[0] != 0.0 => (m[0], (m[3] * 1000.0).abs().max(0.01)),
            _ => (0.001, 1.0),
        };
        let table = simple_code_table(doc, dict, &name, subtype);
        let mut text: Vec<Option<Box<str>>> = vec![None; 256];
        let mut missing_unicode = true;
        for code in 0..256u32 {
            let from_cmap = to_unicode.as_ref().and_then(|cmap| cmap.unicode(code));
            let value = from_cmap.or_else(|| table[code as usize].clone());
            if value.is_some() {
                missing_unicode = false;
            }
            text[code as usize] = value.map(String::into_boxed_str);
        }
        Font {
            codes: Codes::Simple {
                text,
                widths: simple_widths(doc, dict, &name),
            },
            vertical: false,
            width_scale,
            height_scale,
            missing_unicode,
            bold: is_bold_name(&name),
            name,
        }
    }

    fn composite(
        doc: &Document,
        dict: &Dictionary,
        to_unicode: Option<CMap>,
        name: String,
    ) -> Font {
        let (encoding, encoding_name) = match objects::get(doc, dict, b"Encoding") {
            Some(Object::Name(name)) => (
                predefined_cmap(name),
                String::from_utf8_lossy(name).into_owned(),
            ),
            Some(Object::Stream(stream)) => {
                let parsed = objects::decoded(stream)
                    .map(|data| CMap::parse(&data))
                    .filter(CMap::has_codespaces);
                (
                    parsed.unwrap_or_else(|| CMap::identity(false)),
                    String::new(),
                )
            }
            _ => (CMap::identity(false), String::new()),
        };
        // Uni…-UCS2 and Uni…-UTF16 CMaps take Unicode itself as the code.
        let code_is_unicode = encoding_name.starts_with("Uni")
            && (encoding_name.contains("UCS2") || encoding_name.contains("UTF16"));
        let descendant = objects::array(doc, dict, b"DescendantFonts")
            .and_then(|items| items.first())
            .and_then(|first| match objects::resolve(doc, first)? {
                Object::Dictionary(inner) => Some(inner),
                _ => None,
            });
        let mut widths = FxHashMap::default();
        let mut default_width = 1000.0;
        if let Some(descendant) = descendant {
            default_width = objects::number_at(doc, descendant, b"DW").unwrap_or(1000.0);
            if let Some(items) = objects::array(doc, descendant, b"W") {
                read_cid_widths(doc, items, &mut widths);
            }
        }
        let vertical = encoding.vertical;
        if vertical {
            // Vertical fonts advance by DW2's second entry, -1000 (one em downward) unless stated.
            let advance = descendant
                .and_then(|d| objects::array(doc, d, b"DW2"))
                .map(|items| objects::numbers(doc, items))
                .and_then(|n| n.get(1).copied())
                .unwrap_or(-1000.0);
            default_width = -advance;
            widths.clear();
        }
        let glyph_unicode = if to_unicode.is_none() && !code_is_unicode {
            descendant.and_then(|d| GlyphUnicode::load(doc, d))
        } else {
            None
        };
        let missing_unicode = to_unicode.is_none() && !code_is_unicode && glyph_unicode.is_none();
        Font {
            codes: Codes::Composite {
                encoding,
                to_unicode,
                code_is_unicode,
                glyph_unicode,
                widths,
                default_width,
                unicode_cache: FxHashMap::default(),
            },
            vertical,
            width_scale: 0.001,
            height_scale: 1.0,
            missing_unicode,
            bold: is_bold_name(&name),
            name,
        }
    }

    /// Calls `visit` for every glyph the string shows, in order.
    pub fn each_glyph(&mut self, bytes: &[u8], mut visit: impl FnMut(Glyph<'_>)) {
        match &mut self.codes {
            Codes::Simple { text, widths } => {
                for &byte in bytes {
                    visit(Glyph {
                        advance: widths[byte as usize],
                        is_word_space: byte == b' ',
                        text: text[byte as usize].as_deref(),
                    });
                }
            }
            Codes::Composite {
                encoding,
                to_unicode,
                code_is_unicode,
                glyph_unicode,
                widths,
                default_width,
                unicode_cache,
            } => {
                let mut rest = bytes;
                while !rest.is_empty() {
                    let length = encoding.code_length(rest).min(rest.len());
                    let code = rest[..length]
                        .iter()
                        .fold(0u32, |code, &b| code << 8 | u32::from(b));
                    let cid = encoding.cid(code).unwrap_or(code);
                    let advance = widths.get(&cid).copied().unwrap_or(*default_width);
                    let text = unicode_cache.entry(code).or_insert_with(|| {
                        let mapped = to_unicode.as_ref().and_then(|cmap| cmap.unicode(code));
                        let mapped = mapped.or_else(|| {
                            code_is_unicode
                                .then(|| char::from_u32(code).map(String::from))
                                .flatten()
                        });
                        let mapped =
                            mapped.or_else(|| glyph_unicode.as_ref()?.get(cid).map(String::from));
                        mapped.map(String::into_boxed_str)
                    });
                    visit(Glyph {
                        advance,
                        is_word_space: length == 1 && code == 32,
                        text: text.as_deref(),
                    });
                    rest = &rest[length..];
                }
            }
        }
    }
}

fn predefined_cmap(name: &[u8]) -> CMap {
    let vertical = name.ends_with(b"-V");
    if name.starts_with(b"Identity") {
        return CMap::identity(vertical);
    }
    // Other predefined CMaps are not bundled; two-byte codes are the common case (the UCS-2 ones
    // are read as Unicode by the caller).
    CMap::identity(vertical)
}

fn read_cid_widths(doc: &Document, items: &[Object], widths: &mut FxHashMap<u32, f32>) {
    let mut index = 0;
    // Bounded so a hostile range (0 to 4 billion) cannot allocate without end.
    const MAX_ENTRIES: usize = 1 << 20;
    while index + 1 < items.len() && widths.len() < MAX_ENTRIES {
        let Some(first) = objects::number(doc, &items[index]) else {
            break;
        };
        let first = first.max(0.0) as u32;
        match objects::resolve(doc, &items[index + 1]) {
            Some(Object::Array(list)) => {
                for (offset, width) in objects::numbers(doc, list).into_iter().enumerate() {
                    widths.insert(first + offset as u32, width);
                }
                index += 2;
            }
            _ => {
                let (Some(last), Some(width)) = (
                    objects::number(doc, &items[index + 1]),
                    items.get(index + 2).and_then(|w| objects::number(doc, w)),
                ) else {
                    break;
                };
                let last = (last.max(0.0) as u32).min(first.saturating_add(MAX_ENTRIES as u32));
                for cid in first..=last {
                    widths.insert(cid, width);
                }
                index += 3;
            }
        }
    }
}

fn simple_widths(doc: &Document, dict: &Dictionary, name: &str) -> Vec<f32> {
    let descriptor = objects::dict(doc, dict, b"FontDescriptor");
    let missing = descriptor
        .and_then(|d| objects::number_at(doc, d, b"MissingWidth"))
        .filter(|w| *w > 0.0);
    // Without widths (the standard 14 fonts may omit them) half an em is the usual guess;
    // Courier is the one monospaced family, at 600.
    let fallback = missing.unwrap_or(if name.contains("Courier") {
        600.0
    } else {
        500.0
    });
    let mut widths = vec![fallback; 256];
    let first = objects::number_at(doc, dict, b"FirstChar")
        .unwrap_or(0.0)
        .max(0.0) as usize;
    if let Some(items) = objects::array(doc, dict, b"Widths") {
        for (offset, width) in objects::numbers(doc, items).into_iter().enumerate() {
            if let Some(slot) = widths.get_mut(first + offset) {
                *slot = width;
            }
        }
    }
    widths
}

/// Code → text for a simple font from its encoding entry, falling back to the built-in encoding
/// of the embedded program, then to the standard encoding for a Latin font.
fn simple_code_table(
    doc: &Document,
    dict: &Dictionary,
    name: &str,
    subtype: &[u8],
) -> Vec<Option<String>> {
    let descriptor = objects::dict(doc, dict, b"FontDescriptor");
    let flags = descriptor
        .and_then(|d| objects::number_at(doc, d, b"Flags"))
        .unwrap_or(0.0) as u32;
    let symbolic = flags & 4 != 0;
    let builtin = descriptor.and_then(|d| builtin_table(doc, d));
    let (base_name, differences) = match objects::get(doc, dict, b"Encoding") {
        Some(Object::Name(name)) => (Some(name.as_slice()), None),
        Some(Object::Dictionary(encoding)) => (
            objects::name(doc, encoding, b"BaseEncoding"),
            objects::array(doc, encoding, b"Differences"),
        ),
        _ => (None, None),
    };
    let stripped = name.split('+').next_back().unwrap_or(name);
    let mut table: Vec<Option<String>> =
        match (base_name.and_then(BaseEncoding::from_name), builtin) {
            (Some(base), _) => to_strings(base.table()),
            (None, Some(builtin)) => builtin,
            (None, None) if stripped.starts_with("Symbol") => {
                to_strings(BaseEncoding::Symbol.table())
            }
            (None, None) if stripped.starts_with("ZapfDingbats") => vec![None; 256],
            (None, None) if symbolic && subtype == b"TrueType" => (0..256u32)
                .map(|code| {
                    char::from_u32(code)
                        .filter(|c| !c.is_control())
                        .map(String::from)
                })
                .collect(),
            (None, None) => to_strings(BaseEncoding::Standard.table()),
        };
    if let Some(differences) = differences {
        let mut code = 0usize;
        for item in differences {
            match objects::resolve(doc, item) {
                Some(Object::Integer(value)) => code = (*value).clamp(0, 256) as usize,
                Some(Object::Name(glyph)) => {
                    // A name outside the glyph list (Type 3 fonts invent them) keeps the base
                    // encoding's character, as poppler and MuPDF do.
                    let known = std::str::from_utf8(glyph)
                        .ok()
                        .and_then(glyph_names::glyph_to_unicode);
                    if let (Some(slot), Some(text)) = (table.get_mut(code), known) {
                        *slot = Some(text);
                    }
                    code += 1;
                }
                _ => {}
            }
        }
    }
    table
}

fn to_strings(table: CodeTable) -> Vec<Option<String>> {
    table.iter().map(|ch| ch.map(String::from)).collect()
}

fn builtin_table(doc: &Document, descriptor: &Dictionary) -> Option<Vec<Option<String>>> {
    let builtin = if let Some(program) =
        objects::stream(doc, descriptor, b"FontFile").and_then(objects::decoded)
    {
        type1::builtin_encoding(&program)?
    } else {
        let program = objects::stream(doc, descriptor, b"FontFile3")?;
        if objects::name(doc, &program.dict, b"Subtype") != Some(b"Type1C") {
            return None;
        }
        cff::builtin_encoding(&objects::decoded(program)?)?
    };
    Some(match builtin {
        type1::BuiltinEncoding::Standard => to_strings(BaseEncoding::Standard.table()),
        type1::BuiltinEncoding::Names(entries) => {
            let mut table = vec![None; 256];
            for (code, name) in entries {
                table[code as usize] = glyph_names::glyph_to_unicode(&name);
            }
            table
        }
    })
}

#[cfg(test)]
mod bold_tests {
    use super::is_bold_name;

    #[test]
    fn bold_faces_are_known_by_their_names() {
        for name in [
            "Helvetica-Bold",
            "ABCDEF+Times-Bold",
            "Arial,Bold",
            "Arial-BoldMT",
            "Inter-SemiBold",
            "NotoSans-Black",
            "XYZABC+CMBX12",
        ] {
            assert!(is_bold_name(name), "{name}");
        }
        for name in ["Helvetica", "Times-Roman", "ABCDEF+CMR10", "Bodoni-Italic"] {
            assert!(!is_bold_name(name), "{name}");
        }
    }
}
