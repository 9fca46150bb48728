//! HSP payloads ⇄ model bodies: a body wrapped in the payload of a type
//! (text as a TaskRequest's `parameters.text`, a Fact's `statement_nl`, …),
//! the body read back out of a payload that only wraps it, and the payload
//! fields a version requires filled in when a message lacks them.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use super::message_type::PAYLOAD_TYPES;
use super::{Version, schemas};
use crate::model::notes;
use crate::model::{Body, Loss, Message};
use crate::protocols::address;

/// The `error_message` of a NACK written from a message that gives no reason
/// in words (an empty or JSON body); read back, it is the empty body.
pub const NO_REASON: &str = "no reason given";

/// The AI id written for a sender or recipient a message does not name.
pub const UNKNOWN_AI: &str = "did:aiproto:unknown";

/// The body a payload stands for: the text or value it wraps, when the
/// writer would wrap exactly that into exactly this payload; else the payload.
pub fn body_of(msg: &Message, type_name: &str, payload: &Value) -> Body {
    let slot = |k: &str| payload.get(k).cloned();
    let inner = match type_name {
        "TaskRequest" => slot("parameters"),
        "TaskResult" => slot("payload"),
        "Acknowledgement" => slot("message").or(Some(Value::String(String::new()))),
        // The empty body first: its NACK says [`NO_REASON`].
        "NegativeAcknowledgement" => slot("details").or_else(|| {
            let said = slot("error_message");
            match said.as_ref().and_then(Value::as_str) {
                Some(NO_REASON) => Some(Value::String(String::new())),
                _ => said,
            }
        }),
        _ => slot("statement_nl").or_else(|| slot("statement_structured")),
    };
    let candidates = inner.into_iter().flat_map(|v| {
        let mut out = Vec::new();
        if let Some(text) = v.get("text").and_then(Value::as_str) {
            out.push(Body::Text(text.to_string()));
        }
        if let Some(value) = v.get("value") {
            out.push(Body::Json(value.clone()));
        }
        match v {
            Value::String(s) => out.push(Body::Text(s)),
            other => out.push(Body::Json(other)),
        }
        out
    });
    let ids = Derived::of(msg);
    for body in candidates {
        if payload_for(&body, type_name, &ids) == *payload {
            return body;
        }
    }
    Body::Json(payload.clone())
}

/// The envelope values a payload repeats, as the writer derives them.
pub struct Derived {
    pub id: String,
    pub timestamp: String,
    pub sender: String,
    pub parent: Option<String>,
}

impl Derived {
    pub fn of(msg: &Message) -> Derived {
        Derived {
            id: msg.id.clone().unwrap_or_default(),
            timestamp: msg.timestamp.clone().unwrap_or_default(),
            sender: msg
                .sender
                .as_deref()
                .map_or_else(|| UNKNOWN_AI.to_string(), address::to_hsp_ai_id),
            parent: msg.parent.clone(),
        }
    }
}

/// The payload for a body: the body itself when it already is a payload of
/// the type (a JSON object with the type's required fields, or text holding
/// one), else the body wrapped in a payload of the type.
pub fn payload_for(body: &Body, type_name: &str, d: &Derived) -> Value {
    let own = match body {
        Body::Json(v) => Some(v.clone()),
        Body::Text(t) => serde_json::from_str::<Value>(t).ok(),
    };
    // An object with the required fields of the type (in either version) is
    // a payload already; a type aiproto has no schema for takes any object.
    let is_payload = |obj: &Map<String, Value>| {
        let known: Vec<Vec<&str>> = [Version::V0_1, Version::V1_0]
            .into_iter()
            .filter_map(|v| required_fields(type_name, v))
            .collect();
        known.is_empty()
            || known
                .iter()
                .any(|req| req.iter().all(|f| obj.contains_key(*f)))
    };
    if let Some(Value::Object(obj)) = &own
        && is_payload(obj)
    {
        return Value::Object(obj.clone());
    }
    let as_value = || match body {
        Body::Text(t) => Value::String(t.clone()),
        Body::Json(v) => v.clone(),
    };
    let as_object = || match body {
        Body::Text(t) => json!({ "text": t }),
        Body::Json(v @ Value::Object(_)) => v.clone(),
        Body::Json(v) => json!({ "value": v }),
    };
    let mut p = Map::new();
    match type_name {
        "TaskRequest" => {
            p.insert("request_id".into(), json!(d.id));
            p.insert("requester_ai_id".into(), json!(d.sender));
            p.insert("capability_id_filter".into(), json!("*"));
            p.insert("parameters".into(), as_object());
            p.insert("callback_address".into(), json!(d.sender));
        }
        "TaskResult" => {
            p.insert("result_id".into(), json!(d.id));
            p.insert(
                "request_id".into(),
                json!(d.parent.clone().unwrap_or_else(|| d.id.clone())),
            );
            p.insert("executing_ai_id".into(), json!(d.sender));
            p.insert("status".into(), json!("success"));
            p.insert("payload".into(), as_value());
        }
        "Acknowledgement" => {
            p.insert("status".into(), json!("received"));
            p.insert("ack_timestamp".into(), json!(d.timestamp));
            if let Some(parent) = &d.parent {
                p.insert("target_message_id".into(), json!(parent));
            }
            if *body != Body::Text(String::new()) {
                p.insert("message".into(), as_value());
            }
        }
        "NegativeAcknowledgement" => {
            p.insert("status".into(), json!("error"));
            p.insert("error_code".into(), json!("UNSPECIFIED"));
            p.insert("nack_timestamp".into(), json!(d.timestamp));
            if let Some(parent) = &d.parent {
                p.insert("target_message_id".into(), json!(parent));
            }
            // HSP wants a reason; an empty or JSON body does not give one.
            match body {
                Body::Text(t) if !t.is_empty() => p.insert("error_message".into(), json!(t)),
                Body::Text(_) => p.insert("error_message".into(), json!(NO_REASON)),
                Body::Json(v) => {
                    p.insert("error_message".into(), json!(NO_REASON));
                    p.insert("details".into(), v.clone())
                }
            };
        }
        _ => {
            p.insert("id".into(), json!(d.id));
            match body {
                // A natural-language statement may not be empty.
                Body::Text(t) if !t.is_empty() => {
                    p.insert("statement_type".into(), json!("natural_language"));
                    p.insert("statement_nl".into(), json!(t));
                }
                _ => {
                    p.insert("statement_type".into(), json!("json_ld"));
                    p.insert("statement_structured".into(), as_object());
                }
            }
            p.insert("source_ai_id".into(), json!(d.sender));
            p.insert("timestamp_created".into(), json!(d.timestamp));
            p.insert("confidence_score".into(), json!(1.0));
        }
    }
    Value::Object(p)
}

/// The embedded payload schema of a known type in a version.
fn payload_schema(type_name: &str, version: Version) -> Option<&'static Value> {
    type Table = Vec<(Version, &'static str, Value)>;
    static TABLE: OnceLock<Table> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut out = Vec::new();
        for v in [Version::V0_1, Version::V1_0] {
            for t in PAYLOAD_TYPES {
                if let Some(schema) = schemas::find(&format!("{}/{}", v.as_str(), t.schema))
                    .and_then(|f| serde_json::from_str::<Value>(f.text).ok())
                {
                    out.push((v, t.name, schema));
                }
            }
        }
        out
    });
    table
        .iter()
        .find(|(v, name, _)| *v == version && *name == type_name)
        .map(|(_, _, schema)| schema)
}

/// Whether a payload field of a known type is a string in its schema
/// (`version` of a capability, say), so that text given for it stays text.
pub fn is_string_field(type_name: &str, version: Version, field: &str) -> bool {
    payload_schema(type_name, version)
        .and_then(|s| s.pointer(&format!("/properties/{field}/type")))
        .and_then(Value::as_str)
        == Some("string")
}

/// The required payload fields of a known type, from its embedded schema.
fn required_fields(type_name: &str, version: Version) -> Option<Vec<&'static str>> {
    let schema = payload_schema(type_name, version)?;
    let required = schema.get("required").and_then(Value::as_array);
    Some(
        required
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect(),
    )
}

/// Fills the fields a payload of this type needs in this version but does
/// not have (0.1 and 1.0 capability advertisements need different ones),
/// each reported: the value written is made up, not converted.
pub fn fill_required(
    payload: &mut Value,
    type_name: &str,
    version: Version,
    d: &Derived,
) -> Vec<Loss> {
    let mut losses = Vec::new();
    fill_object(payload, "payload", type_name, version, d, &mut losses);
    if type_name == "CapabilityDiscoveryResponse"
        && let Some(Value::Array(items)) = payload.get_mut("capabilities")
    {
        for (i, item) in items.iter_mut().enumerate() {
            let at = format!("payload.capabilities.{i}");
            fill_object(
                item,
                &at,
                "CapabilityAdvertisement",
                version,
                d,
                &mut losses,
            );
        }
    }
    losses
}

fn fill_object(
    object: &mut Value,
    at: &str,
    type_name: &str,
    version: Version,
    d: &Derived,
    losses: &mut Vec<Loss>,
) {
    let (Some(schema), Value::Object(map)) = (payload_schema(type_name, version), object) else {
        return;
    };
    for field in required_fields(type_name, version).unwrap_or_default() {
        if map.contains_key(field) {
            continue;
        }
        let property = schema
            .pointer(&format!("/properties/{field}"))
            .unwrap_or(&Value::Null);
        let value = placeholder(property, d);
        losses.push(notes::loss(
            format!("{at}.{field}"),
            "(absent)",
            format!(
                "HSP {} requires it of a {type_name}; written as {value}",
                version.as_str()
            ),
        ));
        map.insert(field.to_string(), value);
    }
}

/// The emptiest value a schema property accepts (the sender for an AI id,
/// the message time for a timestamp).
fn placeholder(property: &Value, d: &Derived) -> Value {
    if let Some(first) = property
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    let reference = property.get("$ref").and_then(Value::as_str).unwrap_or("");
    if reference.ends_with("/ai_id") {
        return json!(d.sender);
    }
    if reference.ends_with("/timestamp") {
        return json!(d.timestamp);
    }
    match property.get("type").and_then(Value::as_str) {
        Some("array") => json!([]),
        Some("string") => json!("unspecified"),
        Some("integer" | "number") => json!(0),
        Some("boolean") => json!(false),
        _ => json!({}),
    }
}
