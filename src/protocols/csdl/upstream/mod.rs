//! The shapes E3 (the CSDL upstream) writes besides the 1.0 spec: the ANLT
//! "CSDL Structured" T/C/R message and its agent-response form, ANLT v2's
//! enum-coded task, the quantized embedding, E3's pydantic message class,
//! and the CBP message (the dict CBP frames are made from and decode to;
//! the frames themselves are in [`cbp`]).
//!
//! Each shape is recognised by its keys, checked by the rules its own code
//! sets (an enum, a type, a range), and mapped to a CSDL 1.0 `message`
//! element: the shape's content becomes `v`, its parties `from`/`to`, its
//! type an intent, its ids `m.id`/`m.thread`/`m.parent`, and what 1.0 has
//! no field for stays under `m.e3`, so nothing is lost. What cannot be
//! mapped (an enum number no table names, a type no intent matches) is an
//! error naming the value.

pub mod anlt;
pub mod cbp;
pub mod e3_message;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::checks::ELEMENT_TYPES;
use crate::protocols::json_doc::Finding;

/// The key under `m` that keeps what a shape has and CSDL 1.0 has not.
pub const KEPT: &str = "e3";

/// Which CSDL shape a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// CSDL 1.0 as its spec writes it.
    Spec,
    /// ANLT's "CSDL Structured" `{"T", "C", "R", "cx", "e", "p", "m"}`.
    AnltStructured,
    /// The structured form of an agent's answer: `T` is `r`, `C` holds
    /// `s`ummary, `a`nalysis, `f`indings, `r`ecommendations, `w`arnings.
    AgentResponse,
    /// ANLT v2: `t` a task, `a`/`tc`/`cs` numbers from its enum tables.
    AnltV2,
    /// A quantized sentence embedding (`emb`, `dim`, `bits`, `model`).
    Embedding,
    /// E3's pydantic `CSDLMessage` (`message_id`, `message_type`, `sender_id`…).
    E3Message,
    /// The dict a CBP frame carries (`type`, `sender`, `receiver`,
    /// `content`…), read from JSON or decoded from a frame (`cbp` key).
    CbpMessage,
}

impl Shape {
    /// The shape's name in findings, `inspect` and `--format json`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Spec => "csdl-1.0",
            Shape::AnltStructured => "anlt-structured",
            Shape::AgentResponse => "agent-response",
            Shape::AnltV2 => "anlt-v2",
            Shape::Embedding => "embedding",
            Shape::E3Message => "e3-message",
            Shape::CbpMessage => "cbp-message",
        }
    }

    /// What the shape is, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Shape::Spec => "CSDL 1.0",
            Shape::AnltStructured => "an ANLT \"CSDL Structured\" T/C/R message",
            Shape::AgentResponse => {
                "an E3 agent response (T/C/R with summary, analysis, findings, recommendations, warnings)"
            }
            Shape::AnltV2 => "an ANLT v2 task (enum-coded actions, tech and constraints)",
            Shape::Embedding => "an ANLT quantized embedding",
            Shape::E3Message => "an E3 CSDLMessage (its pydantic message class)",
            Shape::CbpMessage => "a CBP message (the dict CBP frames carry)",
        }
    }
}

/// The keys of an ANLT v2 task.
const V2_KEYS: [&str; 7] = ["t", "a", "tc", "cx", "cs", "cp", "sc"];

/// Which shape an object is. Anything not recognised is [`Shape::Spec`]
/// (and then checked, and refused where it is not 1.0).
pub fn shape_of(map: &Map<String, Value>) -> Shape {
    let has = |k: &str| map.contains_key(k);
    if has("cbp") || (has("type") && has("content") && (has("sender") || has("receiver"))) {
        return Shape::CbpMessage;
    }
    if has("message_type")
        && has("content")
        && (has("sender_id") || has("recipient_id") || has("message_id"))
    {
        return Shape::E3Message;
    }
    if has("emb") && has("dim") {
        return Shape::Embedding;
    }
    if has("T") && !has("t") {
        return if anlt::is_agent_response(map) {
            Shape::AgentResponse
        } else {
            Shape::AnltStructured
        };
    }
    let task = map
        .get("t")
        .and_then(Value::as_str)
        .is_some_and(|t| !ELEMENT_TYPES.contains(&t));
    if task && map.keys().all(|k| V2_KEYS.contains(&k.as_str())) && map.len() > 1 {
        return Shape::AnltV2;
    }
    Shape::Spec
}

/// A shape read: its CSDL 1.0 form, and the findings about it (pointers
/// into the document as written).
#[derive(Debug)]
pub struct Mapped {
    pub spec: Value,
    pub findings: Vec<Finding>,
}

/// Maps a document of an upstream shape to CSDL 1.0.
pub fn to_spec(map: &Map<String, Value>, shape: Shape) -> Mapped {
    let mut findings = Vec::new();
    let spec = match shape {
        Shape::AnltStructured | Shape::AgentResponse => anlt::structured(map, shape, &mut findings),
        Shape::AnltV2 => anlt::v2(map, &mut findings),
        Shape::Embedding => anlt::embedding(map, &mut findings),
        Shape::E3Message => e3_message::pydantic(map, &mut findings),
        Shape::CbpMessage => e3_message::cbp(map, &mut findings),
        Shape::Spec => Value::Object(map.clone()),
    };
    // A frame that could not be decoded is its damage alone.
    let undecoded = map.contains_key("cbp") && !map.contains_key("type");
    if shape != Shape::Spec && !undecoded {
        findings.push(
            Finding::warning(
                "",
                "CSDL-UPSTREAM",
                format!(
                    "read as {}: a shape of E3's code, not of the CSDL 1.0 spec",
                    shape.describe()
                ),
            )
            .hinted("`aiproto convert --to csdl` writes it as a CSDL 1.0 message; docs/csdl.md lists the mapping"),
        );
    }
    Mapped { spec, findings }
}

/// A CSDL 1.0 message element.
pub(crate) struct SpecMessage {
    pub from: Option<String>,
    pub to: Option<String>,
    pub intent: &'static str,
    pub value: Option<Value>,
    /// `m.id`, `m.thread`, `m.parent`, `m.timestamp`.
    pub slots: Vec<(&'static str, String)>,
    /// What stays under `m.e3`.
    pub kept: Map<String, Value>,
}

impl SpecMessage {
    pub fn new(intent: &'static str, shape: Shape) -> Self {
        let mut kept = Map::new();
        kept.insert("shape".into(), json!(shape.name()));
        SpecMessage {
            from: None,
            to: None,
            intent,
            value: None,
            slots: Vec::new(),
            kept,
        }
    }

    pub fn into_value(self) -> Value {
        let mut out = Map::new();
        out.insert("t".into(), json!("message"));
        if let Some(from) = self.from {
            out.insert("from".into(), json!(from));
        }
        if let Some(to) = self.to {
            out.insert("to".into(), json!(to));
        }
        out.insert("intent".into(), json!(self.intent));
        if let Some(v) = self.value {
            out.insert("v".into(), v);
        }
        let mut m = Map::new();
        for (key, value) in self.slots {
            m.insert(key.into(), json!(value));
        }
        m.insert(KEPT.into(), Value::Object(self.kept));
        out.insert("m".into(), Value::Object(m));
        Value::Object(out)
    }
}

/// A JSON Pointer to a key of the document's top level.
pub(crate) fn at(key: &str) -> String {
    format!("/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// An error about a value the shape's code would not accept, or that no
/// CSDL 1.0 field or table can say.
pub(crate) fn unmapped(pointer: String, message: String) -> Finding {
    Finding::error(pointer, "CSDL-UNMAPPED", message)
}

/// A value that must be one of `allowed` (strings): an error otherwise.
pub(crate) fn one_of(
    map: &Map<String, Value>,
    key: &str,
    allowed: &[&str],
    findings: &mut Vec<Finding>,
) -> Option<String> {
    match map.get(key)? {
        Value::String(s) if allowed.contains(&s.as_str()) => Some(s.clone()),
        other => {
            findings.push(unmapped(
                at(key),
                format!(
                    "`{key}` is {}, not one of {}",
                    show(other),
                    allowed.join(", ")
                ),
            ));
            None
        }
    }
}

/// A short rendering of a value for a finding.
pub(crate) fn show(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

/// A field that must be a string (or absent): an error otherwise.
pub(crate) fn string_field(
    map: &Map<String, Value>,
    key: &str,
    findings: &mut Vec<Finding>,
) -> Option<String> {
    match map.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => {
            findings.push(Finding::error(
                at(key),
                "CSDL-FIELD-TYPE",
                format!("`{key}` must be a string, not {}", show(other)),
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(v: Value) -> Shape {
        shape_of(v.as_object().unwrap())
    }

    #[test]
    fn each_shape_is_recognised_by_its_keys() {
        assert_eq!(shape(json!({"t": "function", "n": "f"})), Shape::Spec);
        assert_eq!(
            shape(json!({"T": "auth", "C": [{"id": "jwt"}], "R": ["sec"], "cx": 0.7})),
            Shape::AnltStructured
        );
        assert_eq!(
            shape(json!({"T": "r", "C": {"s": "ok", "f": ["a"]}, "p": 1})),
            Shape::AgentResponse
        );
        assert_eq!(
            shape(json!({"t": "auth", "a": [0], "tc": [0, 3, 5], "cx": 0.7, "cs": [0]})),
            Shape::AnltV2
        );
        assert_eq!(
            shape(json!({"emb": "AAEC", "dim": 3, "bits": 8, "model": "m"})),
            Shape::Embedding
        );
        assert_eq!(
            shape(json!({"message_id": "x", "message_type": "query", "content": {}})),
            Shape::E3Message
        );
        assert_eq!(
            shape(json!({"type": "req", "sender": "analyzer", "content": {}})),
            Shape::CbpMessage
        );
        // A task with keys ANLT v2 does not have is no known shape.
        assert_eq!(shape(json!({"t": "task", "zz": 3})), Shape::Spec);
        assert_eq!(shape(json!({"t": "task"})), Shape::Spec);
    }
}
