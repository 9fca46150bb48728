//! HSP → the shared model. The envelope fields with a model slot map to it;
//! the rest travel in a `meta: hsp` block (as JSON text when not a string).

use serde_json::Value;

use super::HspMessage;
use super::message_type::MessageType;
use crate::model::{Body, Intent, Message, MetaBlock, Signature};
use crate::protocols::Protocol;

/// The model meta namespace holding HSP envelope fields with no model slot.
pub const NAMESPACE: &str = "hsp";

/// Envelope fields that have a slot in the model.
const MAPPED: [&str; 7] = [
    "message_id",
    "correlation_id",
    "sender_ai_id",
    "recipient_ai_id",
    "timestamp_sent",
    "payload",
    "security_parameters",
];

/// The intent of an envelope: ACK and NACK by type, else by communication pattern.
pub fn intent_of(json: &Value) -> Option<Intent> {
    let name = json
        .get("message_type")
        .and_then(Value::as_str)
        .and_then(MessageType::parse)
        .map(|t| t.name);
    match name {
        Some("Acknowledgement") => return Some(Intent::Ack),
        Some("NegativeAcknowledgement") => return Some(Intent::Nack),
        _ => {}
    }
    match json.get("communication_pattern").and_then(Value::as_str)? {
        "request" => Some(Intent::Request),
        "response" => Some(Intent::Respond),
        "publish" => Some(Intent::Broadcast),
        other => Some(Intent::Other(other.to_ascii_uppercase())),
    }
}

pub fn to_message(m: &HspMessage) -> Message {
    let j = &m.json;
    let text = |k: &str| j.get(k).and_then(Value::as_str).map(str::to_string);
    let mut meta = MetaBlock::new(NAMESPACE);
    if let Some(Value::Object(map)) = Some(j) {
        for (key, value) in map
            .iter()
            .filter(|(k, v)| !MAPPED.contains(&k.as_str()) && !v.is_null())
        {
            let value = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_string);
            meta.entries.push((key.clone(), value));
        }
    }
    let signature = j
        .get("security_parameters")
        .and_then(|s| s.get("signature"))
        .and_then(Value::as_str)
        .map(|raw| Signature {
            raw: raw.to_string(),
        });
    Message {
        protocol: Protocol::Hsp,
        version: m.version.as_str().to_string(),
        id: text("message_id"),
        thread: None,
        parent: text("correlation_id"),
        sender: text("sender_ai_id"),
        recipient: text("recipient_ai_id"),
        timestamp: text("timestamp_sent"),
        intent: intent_of(j),
        body: Body::Json(j.get("payload").cloned().unwrap_or(Value::Null)),
        meta: if meta.entries.is_empty() {
            Vec::new()
        } else {
            vec![meta]
        },
        signature,
    }
}
