//! MSP ⇄ the shared model. The target is the body, the trace id the id,
//! the task verb an intent; params, constraints, state and priority travel
//! in the `msp` extension. MSP signals are closed (no extra fields), so
//! writing one reports everything it cannot hold: sender, recipient,
//! thread, `meta:` blocks, other protocols' fields.

use chrono::{SecondsFormat, Utc};
use serde_json::{Map, Value, json};

use super::{FIELDS_1_0, FIELDS_2_0, MinimalSignal, MspDoc, Version};
use crate::ids;
use crate::model::notes::{self, loss};
use crate::model::{Body, Intent, Loss, Message, Slot};
use crate::protocols;
use crate::protocols::Protocol;

/// The signal field of each model slot MSP has.
const SLOT_FIELDS: [(Slot, &str); 3] = [
    (Slot::Id, "trace_id"),
    (Slot::Parent, "parent_id"),
    (Slot::Timestamp, "timestamp"),
];

/// The model intent of an MSP task verb.
fn intent_of(verb: &str) -> Intent {
    match verb {
        "QUERY" => Intent::Poll,
        "RESPOND" => Intent::Respond,
        "REPORT" => Intent::Broadcast,
        // ANALYZE, GENERATE, EVALUATE, TRANSFORM, DELEGATE: work asked of the receiver.
        _ => Intent::Request,
    }
}

/// The MSP verb written for a model intent.
fn verb_for(intent: Option<&Intent>) -> &'static str {
    match intent {
        Some(Intent::Request | Intent::Escalate | Intent::Handoff) => "DELEGATE",
        Some(Intent::Poll) => "QUERY",
        Some(Intent::Respond | Intent::Ack | Intent::Nack | Intent::Error) => "RESPOND",
        _ => "REPORT",
    }
}

pub fn to_message(doc: &MspDoc) -> Message {
    let json = match doc.version {
        Version::V1_0 => MinimalSignal::from_json(&doc.json)
            .map(|s| s.to_json())
            .unwrap_or_else(|_| doc.json.clone()),
        Version::V2_0 => doc.json.clone(),
    };
    let mut rest = match json {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let mut take_str = |k: &str| match rest.remove(k) {
        Some(Value::String(s)) => Some(s),
        Some(Value::Null) => None,
        Some(other) => {
            rest.insert(k.to_string(), other);
            None
        }
        None => None,
    };
    let id = take_str("trace_id");
    let parent = take_str("parent_id");
    let timestamp = take_str("timestamp");
    let target = take_str("target").unwrap_or_default();
    let intent = rest.get("intent").and_then(Value::as_str).map(intent_of);
    let body = match serde_json::from_str::<Value>(&target) {
        Ok(v @ (Value::Object(_) | Value::Array(_))) => Body::Json(v),
        _ => Body::Text(target),
    };
    let mut msg = Message {
        protocol: Protocol::Msp,
        version: doc.version.as_str().to_string(),
        id,
        thread: None,
        parent,
        sender: None,
        recipient: None,
        timestamp,
        intent,
        body,
        meta: Vec::new(),
        extensions: Vec::new(),
        signature: None,
    };
    notes::keep_unexplained(&mut rest, &defaults(&msg, doc.version));
    msg.set_extension(Protocol::Msp, rest);
    msg
}

/// The fields the writer fills from the model alone.
fn defaults(msg: &Message, version: Version) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("version".into(), json!(version.as_str()));
    out.insert("intent".into(), json!(verb_for(msg.intent.as_ref())));
    if version == Version::V1_0 {
        out.insert("params".into(), json!({}));
        out.insert("constraints".into(), json!([]));
        out.insert("state".into(), json!({}));
        out.insert("priority".into(), json!("medium"));
    }
    out
}

/// Writes the model as an MSP signal of a version, with what it cannot hold.
pub fn from_message(msg: &Message, version: Version) -> (Value, Vec<Loss>) {
    let mut msg = msg.clone();
    protocols::modernize_intent(&mut msg);
    let mut own = msg.take_extension(Protocol::Msp);
    // Values kept by an earlier conversion (see `stash`) win over the model's.
    for (slot, field) in SLOT_FIELDS {
        if let Some(Value::String(kept)) = own.get(field) {
            msg.set_slot(slot, kept.clone());
            own.remove(field);
        }
    }
    let mut losses = Vec::new();
    let mut out = defaults(&msg, version);
    let written_verb = own
        .get("intent")
        .and_then(Value::as_str)
        .map_or_else(|| verb_for(msg.intent.as_ref()).to_string(), str::to_string);
    if let Some(intent) = &msg.intent
        && own.get("intent").is_none()
        && intent_of(&written_verb) != *intent
    {
        losses.push(loss(
            "intent",
            intent.as_str(),
            format!("MSP has no such intent; written as {written_verb}"),
        ));
    }
    out.insert(
        "target".into(),
        json!(match &msg.body {
            Body::Text(t) => t.clone(),
            Body::Json(v) => v.to_string(),
        }),
    );
    // Any id is a trace_id; a ULID (from Crosstalk) goes back to the UUID of its bits.
    let trace_id = match msg.id.as_deref() {
        Some(id) => ids::as_uuid(id).unwrap_or_else(|| id.to_string()),
        None => {
            // A signal has no place to say a value was made up: say it here.
            losses.push(loss(
                "id",
                "",
                "the message has none and MSP requires a trace_id; a new one was written",
            ));
            super::signal::new_trace_id()
        }
    };
    out.insert("trace_id".into(), json!(trace_id));
    let timestamp = match msg.timestamp.as_deref() {
        Some(t) if super::signal::parse_timestamp(t).is_some() => t.to_string(),
        other => {
            losses.push(match other {
                Some(t) => loss("timestamp", t, "not an ISO 8601 time; now was written"),
                None => loss(
                    "timestamp",
                    "",
                    "the message has none and MSP requires one; now was written",
                ),
            });
            Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true)
        }
    };
    out.insert("timestamp".into(), json!(timestamp));
    // A ULID parent (from Crosstalk) goes back to the UUID of its bits.
    let parent = msg
        .parent
        .as_deref()
        .map(|p| ids::as_uuid(p).unwrap_or_else(|| p.to_string()));
    out.insert("parent_id".into(), json!(parent));
    let allowed = match version {
        Version::V1_0 => FIELDS_1_0,
        Version::V2_0 => FIELDS_2_0,
    };
    for (key, value) in std::mem::take(&mut own) {
        if key == "version" {
            continue; // the target version is the one asked for
        }
        if allowed.contains(&key.as_str()) {
            out.insert(key, value);
        } else {
            losses.push(loss(
                format!("msp.{key}"),
                notes::value_text(&value),
                format!("MSP {} has no such field", version.as_str()),
            ));
        }
    }
    for slot in [Slot::Sender, Slot::Recipient, Slot::Thread] {
        if let Some(value) = msg.slot(slot) {
            losses.push(loss(slot.name(), value, "MSP has no such field"));
        }
    }
    for block in &msg.meta {
        for (key, value) in &block.entries {
            losses.push(loss(
                format!("meta.{}.{key}", block.namespace),
                value.clone(),
                "MSP signals have no extension fields",
            ));
        }
    }
    for ext in &msg.extensions {
        for (key, value) in &ext.fields {
            losses.push(loss(
                format!("{}.{key}", ext.protocol),
                notes::value_text(value),
                "MSP signals have no extension fields",
            ));
        }
    }
    let json = Value::Object(out);
    let json = match version {
        // Through the model, so the signal is written with every field, as `convert` writes 1.0.
        Version::V1_0 => MinimalSignal::from_json(&json).map_or(json, |s| s.to_json()),
        Version::V2_0 => json,
    };
    (json, losses)
}

/// Keeps a slot's original value in the model's `msp` extension (an intent
/// as its verb). MSP has no thread, sender or recipient to keep.
pub fn stash(msg: &mut Message, slot: Slot, value: String) {
    let ext = msg.extension_mut(Protocol::Msp);
    if slot == Slot::Intent {
        // An MSP source's verb is kept already when the intent does not imply it.
        ext.entry("intent")
            .or_insert_with(|| json!(verb_for(Some(&Intent::parse(&value)))));
    } else if let Some((_, field)) = SLOT_FIELDS.iter().find(|(s, _)| *s == slot) {
        ext.insert((*field).to_string(), Value::String(value));
    }
}
