//! The findings every CSDL check words alike (a field missing, of the
//! wrong type, not an object), and JSON Pointer segments: below both the
//! element checks and the workflow checks.

use serde_json::{Map, Value};

use crate::protocols::json_doc::Finding;

/// A required string field; a finding when it is missing or not a string.
pub fn required_str<'a>(
    map: &'a Map<String, Value>,
    at: &str,
    key: &str,
    out: &mut Vec<Finding>,
) -> Option<&'a str> {
    match map.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        Some(Value::String(_)) => {
            out.push(Finding::error(
                format!("{at}/{key}"),
                "CSDL-EMPTY",
                format!("`{key}` is empty"),
            ));
            None
        }
        Some(_) => {
            out.push(wrong_type(format!("{at}/{key}"), key, "a string"));
            None
        }
        None => {
            out.push(missing(at, key, field_meaning(key)));
            None
        }
    }
}

/// What a required field holds, for the finding that says it is missing.
fn field_meaning(key: &str) -> &'static str {
    match key {
        "t" => "the type",
        "n" => "the name",
        "from" => "the sending agent",
        "to" => "the receiving agent",
        "intent" => "what the message asks",
        "op" => "store or retrieve",
        "key" => "the memory key",
        "query" => "the search query",
        "id" => "the step id",
        "action" => "what the step does",
        _ => "a required field",
    }
}

/// A required field is missing.
pub fn missing(at: &str, key: &str, meaning: &str) -> Finding {
    Finding::error(
        format!("{at}/{key}"),
        "CSDL-MISSING",
        format!("missing `{key}` ({meaning})"),
    )
}

/// A field holds another type.
pub fn wrong_type(at: impl Into<String>, what: &str, expected: &str) -> Finding {
    Finding::error(
        at,
        "CSDL-FIELD-TYPE",
        format!("`{what}` must be {expected}"),
    )
}

/// A value that must be an object is not.
pub fn not_object(at: String, what: &str) -> Finding {
    Finding::error(
        at,
        "CSDL-FIELD-TYPE",
        format!("{what} must be a JSON object"),
    )
}

/// A key as a JSON Pointer segment.
pub fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
