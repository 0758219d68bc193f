//! Typed reads of lopdf objects that follow references and tolerate the wrong types real files
//! contain: a missing or mistyped entry reads as None, never as an error.

use lopdf::{Dictionary, Document, Object, Stream};

/// Ceiling on any decoded stream, so a compression bomb costs an error, not the worker's memory.
pub const MAX_STREAM_BYTES: usize = 256 << 20;

/// Object and cross-reference streams are decoded, and every object in them parsed and kept,
/// while the file is opened: each may decode to at most this many times the file's size (with a
/// floor for small files), so a few kilobytes that declare hundreds of megabytes are refused.
pub const LOAD_EXPANSION: usize = 64;
pub const MIN_LOAD_STREAM_BYTES: usize = 8 << 20;

/// The largest object or cross-reference stream a file of `file_bytes` may decode to while opening.
pub fn load_stream_limit(file_bytes: usize) -> usize {
    file_bytes
        .saturating_mul(LOAD_EXPANSION)
        .clamp(MIN_LOAD_STREAM_BYTES, MAX_STREAM_BYTES)
}

pub fn resolve<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Object> {
    doc.dereference(object).ok().map(|(_, object)| object)
}

pub fn get<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Object> {
    resolve(doc, dict.get(key).ok()?)
}

pub fn dict<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Dictionary> {
    match get(doc, dict, key)? {
        Object::Dictionary(inner) => Some(inner),
        Object::Stream(stream) => Some(&stream.dict),
        _ => None,
    }
}

pub fn array<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a [Object]> {
    match get(doc, dict, key)? {
        Object::Array(items) => Some(items),
        _ => None,
    }
}

pub fn name<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a [u8]> {
    match get(doc, dict, key)? {
        Object::Name(name) => Some(name),
        _ => None,
    }
}

pub fn stream<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Stream> {
    match get(doc, dict, key)? {
        Object::Stream(stream) => Some(stream),
        _ => None,
    }
}

/// The XObject `name` of `resources` (held by reference, as the format requires), with its
/// object id and its subtype (`Image`, `Form`, …).
pub fn xobject<'a>(
    doc: &'a Document,
    resources: Option<&'a Dictionary>,
    name: &[u8],
) -> Option<(lopdf::ObjectId, &'a Stream, Option<&'a [u8]>)> {
    let Ok(Object::Reference(id)) = dict(doc, resources?, b"XObject")?.get(name) else {
        return None;
    };
    let Ok(Object::Stream(stream)) = doc.get_object(*id) else {
        return None;
    };
    Some((*id, stream, self::name(doc, &stream.dict, b"Subtype")))
}

pub fn number(doc: &Document, object: &Object) -> Option<f32> {
    match resolve(doc, object)? {
        Object::Integer(value) => Some(*value as f32),
        Object::Real(value) if value.is_finite() => Some(*value),
        _ => None,
    }
}

pub fn number_at(doc: &Document, dict: &Dictionary, key: &[u8]) -> Option<f32> {
    number(doc, dict.get(key).ok()?)
}

pub fn numbers(doc: &Document, items: &[Object]) -> Vec<f32> {
    items
        .iter()
        .map(|item| number(doc, item).unwrap_or(0.0))
        .collect()
}

pub fn decoded(stream: &Stream) -> Option<Vec<u8>> {
    stream
        .decompressed_content_with_limit(MAX_STREAM_BYTES)
        .ok()
}
