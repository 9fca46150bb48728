//! A2A 1.0 (Agent2Agent): messages, tasks, artifacts, streaming events,
//! Agent Cards and the JSON-RPC requests and responses that carry them.
//!
//! A document is recognised by its fields (`kind`), checked against the
//! vendored schema bundle of the A2A project (`schema`) and by the rules
//! the bundle cannot say (`rules`), and its findings placed in the text as
//! written. A2A 0.3 documents (`kind` fields, lowercase roles, `message/send`)
//! are recognised and named with what changed, never read as 1.0. Across
//! one input, a task seen in a terminal state that later reports another
//! state is found too (`A2A-AFTER-TERMINAL`).

pub mod hsp_payload;
pub mod kind;
pub mod model_map;
pub mod rules;
pub mod schema;
pub mod signing_input;

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::json_doc::{self, Finding, Where};
pub use kind::Kind;

/// The A2A version aiproto reads and writes.
pub const VERSION: &str = "1.0";

/// An A2A 1.0 document as read.
#[derive(Debug, Clone)]
pub struct A2aDoc {
    /// The document as written.
    pub json: Value,
    pub kind: Kind,
}

impl A2aDoc {
    /// The A2A object the document carries: itself, or the `params` of a
    /// JSON-RPC request, the `result` of a response, the one member of a
    /// response wrapper (`{"task": …}`).
    pub fn object(&self) -> (Kind, &Value) {
        let (kind, value, _) = kind::payload(self.kind, &self.json);
        (kind, value)
    }

    /// The id of the message carried (`messageId`). A task, its events and
    /// JSON-RPC calls have none of their own: a task id names the work,
    /// reported again at every state, and a JSON-RPC id a call on one
    /// connection; archives and duplicate checks must not take either for
    /// a message's identity.
    pub fn id(&self) -> Option<&str> {
        match self.object() {
            (Kind::Message, Value::Object(map)) => text_field(map, "messageId"),
            _ => None,
        }
    }
}

/// Whether a text looks like A2A: JSON whose first object has the fields
/// of an A2A 1.0 or 0.3 object, or is a JSON-RPC message about one.
pub fn detect(text: &str) -> bool {
    let t = text.trim_start();
    if !json_doc::starts_like_json(t) {
        return false;
    }
    let head = &t[..super::hsp::floor_char_boundary(t, 64 * 1024)];
    let keys = json_doc::top_level_keys(head, head.len());
    kind::from_keys(&keys, head).is_some()
        // JSON-RPC with a method A2A does not have, about A2A objects: read,
        // so that the method is named (A2A-METHOD) rather than the input skipped.
        || (keys.contains(&"jsonrpc") && kind::A2A_KEYS.iter().any(|k| head.contains(k)))
}

/// Reads and checks every document in a text.
pub fn read(text: &str, max_message_bytes: usize) -> Vec<json_doc::Read<A2aDoc>> {
    let syntax = json_doc::SyntaxCodes {
        json: "A2A-JSON",
        too_large: "A2A-TOO-LARGE",
    };
    let mut read = json_doc::read_all(text, max_message_bytes, syntax, check);
    terminal_states(text, &mut read);
    read
}

/// `A2A-<KEYWORD>` for the schema keywords the bundle uses.
fn schema_code(keyword: &str) -> &'static str {
    match keyword {
        "type" => "A2A-SCHEMA-TYPE",
        "enum" | "const" | "anyOf" | "oneOf" => "A2A-SCHEMA-ENUM",
        "pattern" => "A2A-SCHEMA-PATTERN",
        "minimum" | "maximum" => "A2A-SCHEMA-RANGE",
        _ => "A2A-SCHEMA",
    }
}

/// Checks one document: its kind, then the object it carries against the
/// bundle's definition of that kind and the rules.
pub fn check(value: Value) -> (Option<A2aDoc>, Vec<Finding>) {
    let Value::Object(map) = &value else {
        let f = Finding::error("", "A2A-NOT-OBJECT", "an A2A document is a JSON object");
        return (None, vec![f]);
    };
    if let Some(old) = kind::version_0_3(map) {
        return (None, vec![old]);
    }
    let kind = match kind::of(map) {
        Ok(kind) => kind,
        Err(f) => return (None, vec![*f]),
    };
    let mut findings = kind::envelope_findings(kind, map);
    let (inner_kind, inner, at) = kind::inner(kind, &value);
    if let Some(name) = inner_kind.definition() {
        findings.extend(object_findings(inner, name, &at));
    }
    let doc = A2aDoc { json: value, kind };
    (Some(doc), findings)
}

/// The rule and schema findings of one object read as the definition
/// `name`, with pointers from the document's root (`at` is where it sits).
pub fn object_findings(value: &Value, name: &str, at: &str) -> Vec<Finding> {
    let mut rules = rules::check(value, name);
    if let Some(validator) = schema::validator(name) {
        let schema = json_doc::schema_findings(validator, value, &rules, schema_code);
        rules.extend(json_doc::unexplained_containers(schema, &rules));
    }
    for f in &mut rules {
        f.pointer = format!("{at}{}", f.pointer);
    }
    rules
}

/// The terminal task states: nothing follows them.
pub const TERMINAL: [&str; 4] = [
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
];

/// Across the documents of one input (a stream, a log), a task reported in
/// a terminal state and then in another state: an error at the later one.
fn terminal_states(text: &str, read: &mut [json_doc::Read<A2aDoc>]) {
    let mut ended: HashMap<String, (String, usize)> = HashMap::new();
    for r in read.iter_mut() {
        let Some(doc) = &r.doc else { continue };
        let Some((task, state, pointer)) = kind::task_state(doc) else {
            continue;
        };
        match ended.get(&task) {
            Some((end, line)) if *end != state => {
                let f = Finding::error(
                    pointer,
                    "A2A-AFTER-TERMINAL",
                    format!("task `{task}` ended in {end} (line {line}) and is now reported {state}; a task in a terminal state does not change"),
                )
                .hinted("a follow-up is a new task in the same context (same contextId, new message)");
                if let Some(place) = Where::within(text, r.span) {
                    r.diagnostics.push(place.place(f));
                }
            }
            Some(_) => {}
            None if TERMINAL.contains(&state.as_str()) => {
                ended.insert(task, (state, r.line));
            }
            None => {}
        }
    }
}

/// The string value of a field under its camelCase or snake_case name.
pub fn text_field<'a>(map: &'a Map<String, Value>, camel: &str) -> Option<&'a str> {
    map.get(camel)
        .or_else(|| map.get(&schema::snake_case(camel)))
        .and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(text: &str) -> Vec<Vec<&'static str>> {
        read(text, 1 << 20)
            .iter()
            .map(|r| r.diagnostics.iter().map(|d| d.code).collect())
            .collect()
    }

    #[test]
    fn detection_by_fields() {
        assert!(detect(
            r#"{"messageId": "m", "role": "ROLE_USER", "parts": []}"#
        ));
        assert!(detect(
            r#"{"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}"#
        ));
        assert!(detect(r#"{"name": "A", "supportedInterfaces": []}"#));
        assert!(detect(
            r#"{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}}"#
        ));
        assert!(detect(
            r#"{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {}}"#
        ));
        assert!(detect(r#"{"task": {"id": "t"}}"#));
        assert!(detect(
            r#"{"kind": "message", "messageId": "m", "parts": []}"#
        ));
        // Not A2A: MCP's JSON-RPC, a message that is a string, plain JSON.
        assert!(!detect(
            r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#
        ));
        assert!(!detect(r#"{"message": "hello"}"#));
        assert!(!detect(r#"{"id": 1, "name": "x"}"#));
        assert!(detect(
            r#"{"jsonrpc": "2.0", "id": 1, "method": "SendMesage", "params": {"message": {"messageId": "m"}}}"#
        ));
    }

    #[test]
    fn a_stream_that_changes_after_the_end_is_found_at_the_later_event() {
        let text = concat!(
            r#"{"taskId": "t1", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}"#,
            "\n",
            r#"{"taskId": "t1", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}"#,
            "\n",
            r#"{"taskId": "t1", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}"#,
            "\n",
        );
        let read = read(text, 1 << 20);
        assert!(read[0].diagnostics.is_empty() && read[1].diagnostics.is_empty());
        let d = &read[2].diagnostics[0];
        assert_eq!((d.code, d.line), ("A2A-AFTER-TERMINAL", 3));
        assert!(d.message.contains("line 2"), "{}", d.message);
    }

    #[test]
    fn version_0_3_is_named_and_not_read() {
        let old = r#"{"kind": "message", "messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}"#;
        let read = read(old, 1 << 20);
        assert!(read[0].doc.is_none());
        assert_eq!(read[0].diagnostics[0].code, "A2A-OLD-VERSION");
        assert!(read[0].diagnostics[0].message.contains("0.3"));
    }

    #[test]
    fn findings_inside_a_json_rpc_request_point_into_its_params() {
        let text = "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"SendMessage\",\n \"params\": {\"message\": {\"messageId\": \"m\", \"role\": \"ROLE_USER\", \"parts\": [{}]}}}";
        let read = read(text, 1 << 20);
        let d = &read[0].diagnostics[0];
        assert_eq!(d.code, "A2A-ONE-OF");
        assert_eq!(d.pointer.as_deref(), Some("/params/message/parts/0"));
        assert_eq!(d.line, 2);
        assert_eq!(
            codes(
                "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"SendMesage\", \"params\": {\"message\": {}}}"
            ),
            vec![vec!["A2A-METHOD"]]
        );
    }
}
