//! JSON parsed as `serde_json` does, except that an object holding the same
//! key twice is an error. serde_json keeps the last of two duplicates and
//! other readers the first, so a message with `"payload"` twice means one
//! thing to the signer and another to the receiver (RFC 8259 §4 leaves the
//! choice open); aiproto reads neither.

use std::borrow::Cow;
use std::collections::HashSet;
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
        d.deserialize_any(StrictVisitor { select: None })
            .map(Strict)
    }
}

/// Builds a value; with a selection, only the members it names (the rest
/// is read and checked by [`Skipped`], not built).
#[derive(Clone, Copy)]
struct StrictVisitor<'s> {
    select: Option<Selection<'s>>,
}

impl<'de> de::DeserializeSeed<'de> for StrictVisitor<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictVisitor<'_> {
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
        if self.select.is_some() {
            // Checked, not built: nothing in an array is selected.
            return Skipped.visit_seq(seq).map(|()| Value::Array(Vec::new()));
        }
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        if let Some(select) = self.select {
            return selected_members(select, map);
        }
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

/// Which members [`parse_selected`] builds: `keys` at the top level, and
/// of each `(key, inner)` in `within`, an object whose members named in
/// `inner` are built.
#[derive(Debug, Clone, Copy)]
pub struct Selection<'s> {
    pub keys: &'s [&'s str],
    pub within: &'s [(&'s str, &'s [&'s str])],
}

/// Parses one JSON text as [`parse`] does — the same texts are refused, a
/// duplicate key at any depth among them — but builds only the members
/// `select` names; the rest is read and checked without being built. For
/// a reader that needs a few fields of each message (where to send it),
/// not the message.
pub fn parse_selected(text: &str, select: &Selection<'_>) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let select = Some(*select);
    let value = de::DeserializeSeed::deserialize(StrictVisitor { select }, &mut de)?;
    de.end()?;
    Ok(value)
}

/// The members of an object that `select` names, built; the others read
/// and checked, not built.
fn selected_members<'de, A: MapAccess<'de>>(
    select: Selection<'_>,
    mut map: A,
) -> Result<Value, A::Error> {
    let mut object = Map::new();
    let mut keys = Keys::default();
    while let Some(Key(key)) = map.next_key()? {
        keys.add::<A::Error>(key.clone())?;
        let key = key.as_ref();
        if select.keys.contains(&key) {
            let Strict(value) = map.next_value()?;
            object.insert(key.to_string(), value);
        } else if let Some((_, inner)) = select.within.iter().find(|(k, _)| *k == key) {
            let select = Some(Selection {
                keys: inner,
                within: &[],
            });
            let value = map.next_value_seed(StrictVisitor { select })?;
            object.insert(key.to_string(), value);
        } else {
            map.next_value_seed(Skipped)?;
        }
    }
    Ok(Value::Object(object))
}

/// A value read to its end and checked as [`parse`] checks it (duplicate
/// keys included), and not built.
#[derive(Clone, Copy)]
struct Skipped;

impl<'de> de::DeserializeSeed<'de> for Skipped {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skipped {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Skipped)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = Keys::default();
        while let Some(Key(key)) = map.next_key()? {
            keys.add::<A::Error>(key)?;
            map.next_value_seed(Skipped)?;
        }
        Ok(())
    }
}

/// An object key, borrowed from the text unless it holds an escape.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v.to_string())))
    }
}

/// The keys of one object met so far, to refuse a duplicate as [`parse`]
/// does (with the same words; the first pass placed the error already).
enum Keys<'de> {
    /// Up to [`Keys::SCANNED`] keys, searched one by one.
    Few(Vec<Cow<'de, str>>),
    Many(HashSet<Cow<'de, str>>),
}

impl Default for Keys<'_> {
    fn default() -> Self {
        Keys::Few(Vec::new())
    }
}

impl<'de> Keys<'de> {
    /// Below this many keys a scan beats hashing.
    const SCANNED: usize = 16;

    fn add<E: de::Error>(&mut self, key: Cow<'de, str>) -> Result<(), E> {
        let fresh = match self {
            Keys::Few(few) if few.len() < Self::SCANNED => {
                let fresh = !few.contains(&key);
                few.push(key.clone());
                fresh
            }
            Keys::Few(few) => {
                let mut many: HashSet<_> = few.drain(..).collect();
                let fresh = many.insert(key.clone());
                *self = Keys::Many(many);
                fresh
            }
            Keys::Many(many) => many.insert(key.clone()),
        };
        if !fresh {
            return Err(de::Error::custom(format!(
                "{DUPLICATE_KEY} `{key}`: an object may hold each key once"
            )));
        }
        Ok(())
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

    const SELECT: Selection<'static> = Selection {
        keys: &["message_id", "x"],
        within: &[("payload", &["callback_address", "x"])],
    };

    /// What `parse_selected` must give: `parse`'s value, pruned to `select`.
    fn pruned(value: Value, select: &Selection<'_>) -> Value {
        match value {
            Value::Object(members) => Value::Object(
                members
                    .into_iter()
                    .filter_map(|(k, v)| {
                        if select.keys.contains(&k.as_str()) {
                            return Some((k, v));
                        }
                        let (_, inner) = select.within.iter().find(|(w, _)| *w == k)?;
                        let inner = Selection {
                            keys: inner,
                            within: &[],
                        };
                        Some((k, pruned(v, &inner)))
                    })
                    .collect(),
            ),
            Value::Array(_) => Value::Array(Vec::new()),
            scalar => scalar,
        }
    }

    #[test]
    fn a_selected_parse_builds_the_selected_members_only() {
        let text = r#"{"message_id": "m", "big": {"deep": [1, 2, {"k": "v"}]}, "payload": {"callback_address": "hsp/r", "other": 1}}"#;
        assert_eq!(
            parse_selected(text, &SELECT).unwrap(),
            serde_json::json!({"message_id": "m", "payload": {"callback_address": "hsp/r"}})
        );
    }

    #[test]
    fn a_selected_parse_refuses_a_duplicate_key_at_any_depth() {
        for text in [
            r#"{"big": {"deep": [{"k": 1, "k": 2}]}}"#,
            r#"{"x": 1, "\u0078": 2}"#,
            r#"{"payload": {"other": 1, "other": 1}}"#,
        ] {
            let e = parse_selected(text, &SELECT).unwrap_err();
            assert!(e.to_string().starts_with(DUPLICATE_KEY), "{text}: {e}");
        }
        // Past the keys scanned one by one, a set finds the duplicate.
        let many: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
        let object = format!("{{{}}}", many.join(", "));
        assert!(parse_selected(&object, &SELECT).is_ok());
        let twice = format!("{{{}, \"k3\": 0}}", many.join(", "));
        assert!(parse_selected(&twice, &SELECT).is_err());
        assert!(parse(&twice).is_err());
    }

    use proptest::prelude::*;

    /// JSON texts whose objects may hold a key twice (written or escaped),
    /// with numbers serde_json reads and refuses.
    fn json_text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null"),
            Just("true"),
            Just("1.50"),
            Just("-0"),
            Just("12345678901234567890123"),
            Just("1e400"),
            Just("\"s\\u00e9 \\\"q\\\"\""),
            Just("\"\""),
        ]
        .prop_map(String::from);
        let key = prop_oneof![
            Just("\"message_id\""),
            Just("\"payload\""),
            Just("\"callback_address\""),
            Just("\"x\""),
            Just("\"\\u0078\""),
            Just("\"y\""),
        ];
        leaf.prop_recursive(4, 64, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5)
                    .prop_map(|items| format!("[{}]", items.join(", "))),
                prop::collection::vec((key.clone(), inner), 0..6).prop_map(|members| {
                    let members: Vec<String> =
                        members.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                    format!("{{{}}}", members.join(",\n "))
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(crate::proptest_config::config(512))]

        /// The same texts are refused, and of a text read, the selected
        /// members are what the whole parse holds.
        #[test]
        fn a_selected_parse_agrees_with_the_whole_parse(text in json_text(), cut in 0usize..400) {
            let mut cut = cut.min(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            for text in [text.as_str(), &text[..cut]] {
                let whole = parse(text);
                let selected = parse_selected(text, &SELECT);
                prop_assert_eq!(whole.is_ok(), selected.is_ok(), "{}", text);
                if let (Ok(whole), Ok(selected)) = (whole, selected) {
                    prop_assert_eq!(pruned(whole, &SELECT), selected, "{}", text);
                }
            }
        }
    }
}
