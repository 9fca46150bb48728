//! What each tool answers, as the `outputSchema` it declares (MCP 2025-06-18
//! and later), and the check that holds aiproto to it: every successful
//! call's `structuredContent` is validated against its tool's schema before
//! it is sent, so a host that trusts the schema is never handed something
//! else. A record that fails is a bug in aiproto; the call answers with a
//! tool error that says so instead of the record.
//!
//! A validate verdict and a signature verdict are the records
//! `validate --format json` and `verify --format json` publish
//! (`schemas/aiproto/`), embedded here as they are.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

const VALIDATE_RECORD: &str = include_str!("../../schemas/aiproto/validate-report.schema.json");
const VERIFY_RECORD: &str = include_str!("../../schemas/aiproto/verify-report.schema.json");

/// A published record schema, ready to sit inside a tool's schema: its
/// own `$id` and `$schema` taken off, its `$defs` handed to the caller
/// (refs inside it point at `#/$defs/…`, the tool schema's root).
fn record(text: &str, defs: &mut Map<String, Value>) -> Value {
    let mut schema: Value = serde_json::from_str(text).unwrap_or_else(|_| json!({}));
    if let Some(object) = schema.as_object_mut() {
        object.remove("$id");
        object.remove("$schema");
        if let Some(Value::Object(own)) = object.remove("$defs") {
            defs.extend(own);
        }
    }
    schema
}

fn nullable_string() -> Value {
    json!({ "type": ["string", "null"] })
}

/// The output schema of the tool `name`, or `None` for a name without one.
pub fn schema(name: &str) -> Option<Map<String, Value>> {
    let mut defs = Map::new();
    let body = match name {
        "validate" => json!({
            "required": ["valid", "messages"],
            "properties": {
                "valid": { "type": "boolean", "description": "Every message is valid." },
                "messages": { "type": "array", "items": record(VALIDATE_RECORD, &mut defs) },
            },
        }),
        "verify" => json!({
            "required": ["valid", "messages"],
            "properties": {
                "valid": { "type": "boolean", "description": "Every signature verifies." },
                "messages": { "type": "array", "items": record(VERIFY_RECORD, &mut defs) },
            },
        }),
        "inspect" => json!({
            "required": ["messages"],
            "properties": {
                "messages": {
                    "type": "array",
                    "items": { "type": "object", "description": "One message in the shared model." },
                },
            },
        }),
        "compose" => json!({
            "required": ["text", "protocol", "version", "id", "thread", "parent", "messages"],
            "properties": {
                "text": { "type": "string", "description": "The message, ready to send or paste." },
                "protocol": { "enum": ["crosstalk", "hsp", "csdl", "msp"] },
                "version": nullable_string(),
                "id": nullable_string(),
                "thread": nullable_string(),
                "parent": nullable_string(),
                "answered": {
                    "type": ["object", "null"],
                    "description": "The envelope of reply_to this one answers.",
                },
                "messages": { "type": "array", "items": record(VALIDATE_RECORD, &mut defs) },
            },
        }),
        "convert" => json!({
            "required": ["to", "messages", "refused"],
            "properties": {
                "to": { "enum": ["crosstalk", "hsp", "csdl", "msp", "a2a"] },
                "messages": { "type": "array", "items": { "type": "object" } },
                "refused": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["source", "error"],
                        "properties": {
                            "source": { "type": "string" },
                            "index": { "type": ["integer", "null"] },
                            "line": { "type": ["integer", "null"] },
                            "error": { "type": "string" },
                        },
                    },
                },
            },
        }),
        "sign" => json!({
            "required": ["text", "key_id", "verified_here"],
            "properties": {
                "text": { "type": "string", "description": "The signed messages." },
                "key_id": { "type": "string" },
                "verified_here": { "type": "array", "items": record(VERIFY_RECORD, &mut defs) },
            },
        }),
        "thread" => json!({
            "required": ["valid", "records", "copies"],
            "properties": {
                "valid": { "type": "boolean", "description": "No cycle and no id used twice." },
                "records": { "type": "array", "items": { "type": "object" } },
                "copies": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["id", "source", "line", "first_source", "first_line"],
                        "properties": {
                            "id": { "type": "string" },
                            "source": { "type": "string" },
                            "line": { "type": "integer" },
                            "first_source": { "type": "string" },
                            "first_line": { "type": "integer" },
                        },
                    },
                },
            },
        }),
        "poll_collate" => json!({
            "required": ["polls"],
            "properties": {
                "polls": { "type": "array", "minItems": 1, "items": { "type": "object" } },
            },
        }),
        "send" => json!({
            "required": ["via"],
            "properties": {
                "via": { "type": "string" },
                "messages": { "type": "integer", "minimum": 0 },
                "replies": { "type": "array", "items": { "type": "string" } },
                "archive": { "type": "string" },
            },
        }),
        "recv" => json!({
            "required": ["via", "ended", "messages"],
            "properties": {
                "via": { "type": "string" },
                "ended": { "enum": ["count", "exhausted", "timeout", "interrupted"] },
                "messages": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["origin"],
                        "properties": {
                            "origin": { "type": "string" },
                            "topic": { "type": ["string", "null"] },
                            "text": { "type": "string" },
                            "error": { "type": "string" },
                            "warning": { "type": "string" },
                            "verdict": record(VALIDATE_RECORD, &mut defs),
                        },
                    },
                },
            },
        }),
        _ => return None,
    };
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    if let Value::Object(body) = body {
        schema.extend(body);
    }
    if !defs.is_empty() {
        schema.insert("$defs".into(), Value::Object(defs));
    }
    Some(schema)
}

/// A tool's declared schema and its compiled validator.
type Declared = (Arc<Map<String, Value>>, jsonschema::Validator);

/// Each tool's schema, compiled once, and the check of an answer.
pub struct Checks {
    validators: HashMap<&'static str, Declared>,
}

impl Checks {
    /// Compiles the schema of every tool named; a schema that does not
    /// compile is a bug, reported at start.
    pub fn new(names: impl IntoIterator<Item = &'static str>) -> anyhow::Result<Checks> {
        let mut validators = HashMap::new();
        for name in names {
            let Some(schema) = schema(name) else {
                anyhow::bail!("the tool {name} has no output schema");
            };
            let validator = jsonschema::draft202012::new(&Value::Object(schema.clone()))
                .map_err(|e| anyhow::anyhow!("the output schema of {name}: {e}"))?;
            validators.insert(name, (Arc::new(schema), validator));
        }
        Ok(Checks { validators })
    }

    /// The declared schema of `name`.
    pub fn schema(&self, name: &str) -> Option<Arc<Map<String, Value>>> {
        self.validators.get(name).map(|(s, _)| Arc::clone(s))
    }

    /// `Err` with where and why, when `answer` is not what `name` declares.
    pub fn check(&self, name: &str, answer: &Value) -> Result<(), String> {
        let Some((_, validator)) = self.validators.get(name) else {
            return Err(format!("the tool {name} declares no output schema"));
        };
        match validator.iter_errors(answer).next() {
            None => Ok(()),
            Some(error) => Err(format!(
                "at {}: {}",
                match error.instance_path().to_string() {
                    path if path.is_empty() => "the top".to_string(),
                    path => path,
                },
                error
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: [&str; 10] = [
        "validate",
        "inspect",
        "compose",
        "convert",
        "sign",
        "verify",
        "thread",
        "poll_collate",
        "send",
        "recv",
    ];

    #[test]
    fn every_tool_schema_compiles() {
        let checks = Checks::new(TOOLS).unwrap();
        for name in TOOLS {
            assert_eq!(checks.schema(name).unwrap()["type"], "object", "{name}");
        }
    }

    #[test]
    fn an_answer_outside_the_schema_is_caught_with_its_place() {
        let checks = Checks::new(TOOLS).unwrap();
        let good = json!({ "valid": true, "messages": [] });
        assert!(checks.check("validate", &good).is_ok());
        // A verdict record missing its findings, as a careless change would write it.
        let bad = json!({ "valid": true, "messages": [{ "source": "x", "valid": true }] });
        let why = checks.check("validate", &bad).unwrap_err();
        assert!(why.contains("/messages/0"), "{why}");
        let why = checks
            .check(
                "recv",
                &json!({ "via": "x", "ended": "later", "messages": [] }),
            )
            .unwrap_err();
        assert!(why.contains("/ended"), "{why}");
        assert!(checks.check("no_such_tool", &good).is_err());
    }
}
