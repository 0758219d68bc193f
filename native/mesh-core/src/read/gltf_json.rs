//! The glTF JSON as a serde_json Value, less the accessors' `min` and `max`: the core reads its
//! bounds from the decoded data and writes its own, and those number arrays were a third of
//! CesiumMan's JSON, each number parsed and held as a Value, then freed. Skipping them still
//! checks their syntax. Anything this reading does not expect (a root or an accessor that is not
//! an object, `accessors` that is not a list) returns None, and the caller reads the JSON as it
//! always did, for the same result and the same error messages.
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// The document without accessor bounds, or None when it is not the usual shape (see above).
pub fn parse_without_bounds(json: &[u8]) -> Option<Value> {
    let mut reader = serde_json::Deserializer::from_slice(json);
    let root = Document.deserialize(&mut reader).ok()?;
    reader.end().ok()?;
    Some(root)
}

/// The root object, with `accessors` read by `Accessors`.
struct Document;

impl<'de> DeserializeSeed<'de> for Document {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, reader: D) -> Result<Value, D::Error> {
        reader.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Document {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a glTF document")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Value, M::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = if key == "accessors" { map.next_value_seed(Accessors)? } else { map.next_value()? };
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

/// The accessor list, each accessor read by `Accessor`.
struct Accessors;

impl<'de> DeserializeSeed<'de> for Accessors {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, reader: D) -> Result<Value, D::Error> {
        reader.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Accessors {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of accessors")
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Value, S::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(accessor) = seq.next_element_seed(Accessor)? {
            out.push(accessor);
        }
        Ok(Value::Array(out))
    }
}

/// One accessor object, its `min` and `max` skipped.
struct Accessor;

impl<'de> DeserializeSeed<'de> for Accessor {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, reader: D) -> Result<Value, D::Error> {
        reader.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Accessor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an accessor object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Value, M::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "min" || key == "max" {
                map.next_value::<IgnoredAny>()?;
            } else {
                out.insert(key, map.next_value()?);
            }
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accessor_bounds_go_and_everything_else_stays() {
        let document = json!({
            "asset": { "version": "2.0", "extras": { "min": [1], "max": [2] } },
            "accessors": [
                { "bufferView": 0, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0.5], "extensions": { "X": { "min": 4 } } },
                { "count": 1, "type": "SCALAR" }
            ],
            "nodes": [{ "translation": [1.5, 2, 3] }]
        });
        let mut expected = document.clone();
        for accessor in expected["accessors"].as_array_mut().unwrap() {
            let accessor = accessor.as_object_mut().unwrap();
            accessor.remove("min");
            accessor.remove("max");
        }
        assert_eq!(parse_without_bounds(&serde_json::to_vec(&document).unwrap()), Some(expected));
    }

    #[test]
    fn unusual_shapes_are_left_to_the_plain_reading() {
        for text in [&b"[1, 2]"[..], b"{\"accessors\": 3}", b"{\"accessors\": [null]}", b"{\"accessors\": [[]]}", b"{} trailing", b"{\"a\": [1,"] {
            assert_eq!(parse_without_bounds(text), None, "{}", String::from_utf8_lossy(text));
        }
        assert_eq!(parse_without_bounds(b"{\"accessors\": []}"), Some(json!({ "accessors": [] })));
    }
}
