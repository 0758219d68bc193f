//! lopdf decrypts only when the trailer's /Encrypt is a reference, but the dictionary may also be
//! written inline (MuPDF does so). For such a file we append an incremental update that moves the
//! dictionary into an object of its own, and load again: the original bytes stay untouched.

use lopdf::{Dictionary, Object};
use std::io::Write;

/// The file with an update appended that references the inline /Encrypt dictionary, or None
/// when /Encrypt is absent or already a reference.
pub fn with_referenced_encrypt(bytes: &[u8], trailer: &Dictionary) -> Option<Vec<u8>> {
    let Ok(Object::Dictionary(encrypt)) = trailer.get(b"Encrypt") else {
        return None;
    };
    let previous = last_startxref(bytes)?;
    let id = trailer.get(b"Size").ok()?.as_i64().ok()?.max(1);
    let mut out = Vec::with_capacity(bytes.len() + 1024);
    out.extend_from_slice(bytes);
    out.push(b'\n');
    let offset = out.len();
    writeln!(out, "{id} 0 obj").ok()?;
    write_object(&mut out, &Object::Dictionary(encrypt.clone()));
    out.extend_from_slice(b"\nendobj\n");
    let xref = out.len();
    write!(out, "xref\n{id} 1\n{offset:010} 00000 n \ntrailer\n<<").ok()?;
    for (key, value) in trailer.iter() {
        if !matches!(key.as_slice(), b"Encrypt" | b"Size" | b"Prev" | b"XRefStm") {
            write_name(&mut out, key);
            out.push(b' ');
            write_object(&mut out, value);
        }
    }
    write!(
        out,
        "/Size {}/Encrypt {id} 0 R/Prev {previous}>>\nstartxref\n{xref}\n%%EOF\n",
        id + 1
    )
    .ok()?;
    Some(out)
}

fn last_startxref(bytes: &[u8]) -> Option<usize> {
    let at = bytes
        .windows(9)
        .rposition(|window| window == b"startxref")?;
    let digits: String = bytes[at + 9..]
        .iter()
        .map(|&b| b as char)
        .skip_while(|c| c.is_ascii_whitespace())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn write_name(out: &mut Vec<u8>, name: &[u8]) {
    out.push(b'/');
    for &byte in name {
        if byte.is_ascii_alphanumeric() || b"-_.+".contains(&byte) {
            out.push(byte);
        } else {
            let _ = write!(out, "#{byte:02X}");
        }
    }
}

fn write_object(out: &mut Vec<u8>, object: &Object) {
    match object {
        Object::Null | Object::Stream(_) => out.extend_from_slice(b"null"),
        Object::Boolean(value) => out.extend_from_slice(if *value { b"true" } else { b"false" }),
        Object::Integer(value) => {
            let _ = write!(out, "{value}");
        }
        Object::Real(value) => {
            let _ = write!(out, "{value}");
        }
        Object::Name(name) => write_name(out, name),
        Object::String(bytes, _) => {
            out.push(b'<');
            for byte in bytes {
                let _ = write!(out, "{byte:02X}");
            }
            out.push(b'>');
        }
        Object::Array(items) => {
            out.push(b'[');
            for item in items {
                write_object(out, item);
                out.push(b' ');
            }
            out.push(b']');
        }
        Object::Dictionary(dict) => {
            out.extend_from_slice(b"<<");
            for (key, value) in dict.iter() {
                write_name(out, key);
                out.push(b' ');
                write_object(out, value);
            }
            out.extend_from_slice(b">>");
        }
        Object::Reference((number, generation)) => {
            let _ = write!(out, "{number} {generation} R");
        }
    }
}
