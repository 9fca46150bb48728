//! JSON parsed as `serde_json` does, except that an object holding the same
//! key twice is an error. serde_json keeps the last of two duplicates and
//! other readers the first, so a message with `"payload"` twice means one
//! thing to the signer and another to the receiver (RFC 8259 §4 leaves the
//! choice open); aiproto reads neither.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Value};

/// What serde_json's message starts with for a duplicate key.
pub const DUPLICATE_KEY: &str = "duplicate key";

/// Parses one JSON text; a duplicate object key is an error placed right
/// after the key, like any syntax error.
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Strict::deserialize(&mut de)?.0;
    de.end()?;
    Ok(value)
}

struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            // One search per key: the entry is looked up before the value
            // is read, so a duplicate is placed right after its key.
            match object.entry(key) {
                Entry::Occupied(taken) => {
                    return Err(de::Error::custom(format!(
                        "{DUPLICATE_KEY} `{}`: an object may hold each key once",
                        taken.key()
                    )));
                }
                Entry::Vacant(free) => {
                    let Strict(value) = map.next_value()?;
                    free.insert(value);
                }
            }
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"a": [1, -2, 3.5, true, null, "x"], "b": {"c": {}}}"#,
            "[]",
            "\"s\"",
            "1e400",
        ] {
            let ours = parse(text).ok();
            let theirs = serde_json::from_str::<Value>(text).ok();
            assert_eq!(ours, theirs, "{text}");
        }
    }

    #[test]
    fn a_duplicate_key_is_an_error_at_its_place() {
        let e = parse("{\n  \"payload\": 1,\n  \"payload\": 2\n}").unwrap_err();
        assert!(e.to_string().starts_with("duplicate key `payload`"), "{e}");
        assert_eq!(e.line(), 3);
        assert!(parse(r#"{"a": {"b": 1, "b": 1}}"#).is_err());
        assert!(parse(r#"[{"a": 1}, {"a": 1}]"#).is_ok());
        assert!(
            parse(r#"{"a": 1} x"#)
                .unwrap_err()
                .to_string()
                .starts_with("trailing characters")
        );
    }
}
