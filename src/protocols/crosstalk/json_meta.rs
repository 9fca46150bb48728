//! JSON fields as Crosstalk `meta:` entries and back: how the fields of a
//! JSON protocol travel in a `meta: hsp` (or `csdl`, `msp`) block.
//!
//! Keys: `snake_case` becomes `Pascal-Case` (`message_type` → `Message-Type`),
//! other keys of letters, digits and `-` are written `X-<key>`, and keys
//! that would not read back are written as they are. Values: a string that
//! does not read as JSON is written bare; everything else as compact JSON.

use serde_json::{Map, Value};

/// The meta key for a JSON field name, or `None` when no key reads back as it.
pub fn key_of(field: &str) -> Option<String> {
    let key = if is_snake(field) {
        field
            .split('_')
            .map(|part| {
                let mut chars = part.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_uppercase().to_string() + chars.as_str()
                })
            })
            .collect::<Vec<_>>()
            .join("-")
    } else if !field.is_empty() && field.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        format!("X-{field}")
    } else {
        field.to_string()
    };
    (field_of(&key) == field && is_writable(&key)).then_some(key)
}

/// The JSON field name a meta key stands for.
pub fn field_of(key: &str) -> String {
    if let Some(raw) = key.strip_prefix("X-") {
        return raw.to_string();
    }
    let pascal = !key.is_empty()
        && key.split('-').all(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        });
    if pascal {
        key.to_ascii_lowercase().replace('-', "_")
    } else {
        key.to_string()
    }
}

/// The meta value for a JSON value.
pub fn value_of(v: &Value) -> String {
    match v {
        Value::String(s) if serde_json::from_str::<Value>(s).is_err() && is_bare(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The JSON value a meta value stands for.
pub fn json_of(value: &str) -> Value {
    serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string()))
}

/// The fields as meta entries, with the fields that cannot be keys apart.
pub fn entries_of(fields: &Map<String, Value>) -> (Vec<(String, String)>, Vec<String>) {
    let mut entries = Vec::with_capacity(fields.len());
    let mut unwritable = Vec::new();
    for (field, value) in fields {
        match key_of(field) {
            Some(key) => entries.push((key, value_of(value))),
            None => unwritable.push(field.clone()),
        }
    }
    (entries, unwritable)
}

/// The meta entries as JSON fields.
pub fn fields_of(entries: &[(String, String)]) -> Map<String, Value> {
    entries
        .iter()
        .map(|(k, v)| (field_of(k), json_of(v)))
        .collect()
}

/// `snake_case` whose Pascal form does not start with `X-` (that prefix is taken).
fn is_snake(s: &str) -> bool {
    let mut parts = s.split('_');
    let first_ok = parts.next().is_some_and(|p| {
        p != "x"
            && p.starts_with(|c: char| c.is_ascii_lowercase())
            && p.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    });
    first_ok
        && parts.all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// Whether a key can stand on a `Key: value` line of a meta block and be
/// read back as itself: checked by reading such a line (a key the reader
/// takes for Markdown, a code fence or a character to repair is not).
fn is_writable(key: &str) -> bool {
    let plain = !key.is_empty()
        && !key.contains(':')
        && !key.contains(char::is_whitespace)
        && !["meta", "body", "sig", "response"].contains(&key);
    plain && {
        let env = super::envelope::Envelope {
            sender: "A".into(),
            receiver: "B".into(),
            version_token: "v1".into(),
            message: Some("01J9J3DBC4N7P2Q3R5S7T9W1V2".into()),
            intent: Some("NOTE".into()),
            meta: vec![crate::model::MetaBlock {
                namespace: "x".into(),
                entries: vec![(key.to_string(), "v".to_string())],
            }],
            body: Some("b".into()),
            sig: Some("none".into()),
            ..Default::default()
        };
        super::parse_all(&super::render(&env))
            .first()
            .is_some_and(|p| {
                p.envelope.meta == env.meta && p.envelope.body == env.body && p.complete
            })
    }
}

/// Whether a string survives a meta line as it is (single line, no edge spaces).
fn is_bare(s: &str) -> bool {
    !s.is_empty() && s.trim() == s && !s.contains(['\n', '\r'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_read_back() {
        for field in [
            "message_type",
            "v2",
            "a_2b",
            "t",
            "fooBar",
            "FOO",
            "Foo",
            "x_foo",
            "$schema",
            "k-1",
        ] {
            let key = key_of(field).unwrap();
            assert_eq!(field_of(&key), field, "{field} → {key}");
        }
        assert_eq!(key_of("message_type").as_deref(), Some("Message-Type"));
        assert_eq!(key_of("fooBar").as_deref(), Some("X-fooBar"));
        assert_eq!(key_of("a b"), None);
        assert_eq!(key_of("a:b"), None);
        // Read as a code fence, Markdown or a character to repair: not keys.
        for field in ["```x", "a\u{200B}b", "a\u{00A0}b"] {
            assert_eq!(key_of(field), None, "{field}");
        }
    }

    #[test]
    fn values_read_back() {
        for v in [
            json!("plain words"),
            json!("5"),
            json!("true"),
            json!(""),
            json!(" padded "),
            json!("two\nlines"),
            json!(5),
            json!(1.5),
            json!(null),
            json!({"a": [1, "x"]}),
        ] {
            let text = value_of(&v);
            assert!(!text.contains('\n'));
            assert_eq!(json_of(&text), v, "{text}");
        }
        assert_eq!(value_of(&json!("HSP::Fact_v1.0")), "HSP::Fact_v1.0");
    }
}
