//! HSP ⇄ the shared model. The envelope fields with a model slot map to it;
//! the rest travel in the model's `hsp` extension, minus what the writer
//! would produce again from the model alone (the versions, a message type
//! and pattern that follow from the intent, a payload that only wraps a
//! body). Other protocols' fields travel in `x_crosstalk`, `x_csdl`, `x_msp`, `x_a2a`.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};

use super::message_type::{self, MessageType};
use super::payload_map::{Derived, UNKNOWN_AI, body_of, fill_required, payload_for};
use super::{HspMessage, Version};
use crate::model::notes::{self, AIPROTO_NAMESPACE};
use crate::model::{Body, Intent, Loss, Message, Signature, Slot};
use crate::protocols::Protocol;
use crate::protocols::{self, address};

/// The model extension namespace holding HSP envelope fields with no model slot.
pub const NAMESPACE: &str = "hsp";

/// The name, in the `x_aiproto` generated list, of a version that was asked
/// for rather than the message's own.
const VERSION_NOTE: &str = "version";

/// Envelope fields that have a slot in the model (when they hold a string).
const MAPPED: [&str; 6] = [
    "message_id",
    "correlation_id",
    "sender_ai_id",
    "recipient_ai_id",
    "timestamp_sent",
    "payload",
];
const SECURITY: &str = "security_parameters";
/// The envelope field of each model slot HSP has.
const SLOT_FIELDS: [(Slot, &str); 5] = [
    (Slot::Id, "message_id"),
    (Slot::Parent, "correlation_id"),
    (Slot::Sender, "sender_ai_id"),
    (Slot::Recipient, "recipient_ai_id"),
    (Slot::Timestamp, "timestamp_sent"),
];

/// The envelope field carrying another protocol's fields (`x_crosstalk`, …).
fn carry_field(protocol: &str) -> String {
    format!("x_{protocol}")
}

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
        "publish" | "stream" => Some(Intent::Broadcast),
        other => Some(Intent::Other(other.to_ascii_uppercase())),
    }
}

/// The communication pattern and payload type written for a message's
/// intent. HSP answers must name what they answer: without a parent an
/// answer is published as a fact (and its intent kept, see `stash`).
fn kind_for(msg: &Message) -> (&'static str, &'static str) {
    let answers = msg.parent.is_some();
    match &msg.intent {
        Some(Intent::Request | Intent::Escalate | Intent::Handoff | Intent::Poll) => {
            ("request", "TaskRequest")
        }
        Some(Intent::Respond) if answers => ("response", "TaskResult"),
        Some(Intent::Ack) if answers => ("response", "Acknowledgement"),
        Some(Intent::Nack | Intent::Error) if answers => ("response", "NegativeAcknowledgement"),
        _ => ("publish", "Fact"),
    }
}

pub fn to_message(m: &HspMessage) -> Message {
    let empty = Map::new();
    let j = m.json.as_object().unwrap_or(&empty);
    let text = |k: &str| j.get(k).and_then(Value::as_str).map(str::to_string);
    let signature = j
        .get(SECURITY)
        .and_then(|s| s.get("signature"))
        .and_then(Value::as_str)
        .map(|raw| Signature {
            raw: raw.to_string(),
        });
    let mut msg = Message {
        protocol: Protocol::Hsp,
        version: m.version.as_str().to_string(),
        id: text("message_id"),
        thread: None,
        parent: text("correlation_id"),
        sender: text("sender_ai_id"),
        recipient: text("recipient_ai_id"),
        timestamp: text("timestamp_sent"),
        intent: intent_of(&m.json),
        body: Body::Json(j.get("payload").cloned().unwrap_or(Value::Null)),
        meta: Vec::new(),
        extensions: Vec::new(),
        signature,
    };
    let mut rest = Map::new();
    let mut generated = Vec::new();
    for (key, value) in j {
        let carried = key.strip_prefix("x_");
        match (key.as_str(), carried) {
            (k, _) if MAPPED.contains(&k) && value.is_string() => {}
            ("payload", _) => {}
            (SECURITY, _) if msg.signature.is_some() => {}
            (_, Some("crosstalk")) if notes::meta_from_json(value).is_some() => {
                msg.meta = notes::meta_from_json(value).unwrap_or_default();
            }
            (_, Some(AIPROTO_NAMESPACE)) => {
                generated.extend(notes::generated_in(value).into_iter().map(str::to_string));
            }
            (_, Some(name @ ("csdl" | "msp" | "a2a"))) if value.is_object() => {
                let protocol = match name {
                    "csdl" => Protocol::Csdl,
                    "msp" => Protocol::Msp,
                    _ => Protocol::A2a,
                };
                if let Value::Object(fields) = value {
                    msg.set_extension(protocol, fields.clone());
                }
            }
            _ => {
                rest.insert(key.clone(), value.clone());
            }
        }
    }
    let type_name = j
        .get("message_type")
        .and_then(Value::as_str)
        .and_then(MessageType::parse)
        .map_or("", |t| t.name);
    if let Some(payload) = j.get("payload") {
        msg.body = body_of(&msg, type_name, payload);
    }
    notes::keep_unexplained(&mut rest, &envelope_defaults(&msg, m.version));
    // A version other than the default travels, so that converting back
    // with no version asked restores it.
    let made_up_version = generated.iter().any(|g| g == VERSION_NOTE);
    if m.version != Version::V1_0 && !made_up_version && !rest.contains_key("hsp_envelope_version")
    {
        rest.insert("hsp_envelope_version".into(), json!(m.version.as_str()));
    }
    notes::forget_generated(&mut msg, generated.iter().map(String::as_str));
    msg.set_extension(Protocol::Hsp, rest);
    msg
}

/// The fields the writer derives from the model: versions, message type, pattern.
fn envelope_defaults(msg: &Message, version: Version) -> Map<String, Value> {
    let (pattern, type_name) = kind_for(msg);
    let v = version.as_str();
    let mut out = Map::new();
    out.insert("hsp_envelope_version".into(), json!(v));
    out.insert("protocol_version".into(), json!(v));
    out.insert(
        "message_type".into(),
        json!(message_type::format(type_name, v)),
    );
    out.insert("communication_pattern".into(), json!(pattern));
    out
}

/// Writes the model as an HSP envelope of a version: the one asked, else
/// the one the message came from (kept in its `hsp` extension), else 1.0.
/// Nothing is lost: what HSP has no field for travels in `x_<protocol>`
/// fields. Payload fields the version requires and the message lacks are
/// filled and reported.
pub fn from_message(msg: &Message, asked: Option<Version>) -> (Value, Vec<Loss>) {
    let mut msg = msg.clone();
    protocols::modernize_intent(&mut msg);
    let mut own = msg.take_extension(Protocol::Hsp);
    let kept_version = own
        .get("hsp_envelope_version")
        .and_then(Value::as_str)
        .and_then(super::normalize_version);
    let version = asked.or(kept_version).unwrap_or(Version::V1_0);
    // Values kept by an earlier conversion (see `stash`) win over the model's.
    for (slot, field) in SLOT_FIELDS {
        if let Some(Value::String(kept)) = own.get(field) {
            msg.set_slot(slot, kept.clone());
            own.remove(field);
        }
    }
    let foreign = msg.protocol != Protocol::Hsp;
    let mut generated = Vec::new();
    let v = version.as_str();
    // A type or pattern kept from an HSP source wins over the intent's.
    let (mut pattern, mut type_name) = kind_for(&msg);
    let kept_type = own
        .get("message_type")
        .and_then(Value::as_str)
        .and_then(MessageType::parse)
        .map(|t| t.name.to_string());
    if let Some(name) = &kept_type {
        own.insert("message_type".into(), json!(message_type::format(name, v)));
        type_name = name.as_str();
    }
    if let Some(p) = own.get("communication_pattern").and_then(Value::as_str) {
        pattern = match p {
            "request" => "request",
            "response" => "response",
            "stream" => "stream",
            _ => "publish",
        };
    }
    for field in ["hsp_envelope_version", "protocol_version"] {
        // A patch level of another version does not apply to this one.
        if own
            .get(field)
            .and_then(Value::as_str)
            .is_some_and(|x| super::normalize_version(x) != Some(version))
        {
            own.remove(field);
        }
    }
    let id = msg.id.clone().unwrap_or_else(|| {
        generated.push(Slot::Id);
        crate::ids::new_uuid7()
    });
    let timestamp = match msg.timestamp.clone() {
        Some(t) => match hsp_timestamp(&t) {
            Some(ok) if ok == t => ok,
            Some(normalized) => {
                protocols::stash(&mut msg, Slot::Timestamp, t);
                normalized
            }
            None => {
                protocols::stash(&mut msg, Slot::Timestamp, t);
                now()
            }
        },
        None => {
            generated.push(Slot::Timestamp);
            now()
        }
    };
    let sender = msg.sender.as_deref().map(address::to_hsp_ai_id);
    let recipient = msg.recipient.as_deref().map(address::to_hsp_address);
    if sender.is_none() {
        generated.push(Slot::Sender);
    }
    if recipient.is_none() {
        generated.push(Slot::Recipient);
    }
    // The payload repeats the envelope's values as they will be written.
    let derived = Derived {
        id: id.clone(),
        timestamp: timestamp.clone(),
        sender: sender.clone().unwrap_or_else(|| UNKNOWN_AI.to_string()),
        parent: msg.parent.clone(),
    };
    let mut env = Map::new();
    env.insert("hsp_envelope_version".into(), json!(v));
    env.insert("message_id".into(), json!(id));
    if let Some(parent) = &msg.parent {
        env.insert("correlation_id".into(), json!(parent));
    }
    env.insert("sender_ai_id".into(), json!(derived.sender));
    env.insert(
        "recipient_ai_id".into(),
        json!(recipient.unwrap_or_else(|| UNKNOWN_AI.to_string())),
    );
    env.insert("timestamp_sent".into(), json!(timestamp));
    env.insert(
        "message_type".into(),
        json!(message_type::format(type_name, v)),
    );
    env.insert("protocol_version".into(), json!(v));
    env.insert("communication_pattern".into(), json!(pattern));
    let mut payload = payload_for(&msg.body, type_name, &derived);
    let losses = fill_required(&mut payload, type_name, version, &derived);
    env.insert("payload".into(), payload);
    if foreign && let Some(thread) = msg.thread.clone() {
        protocols::stash(&mut msg, Slot::Thread, thread);
    }
    // A type or pattern kept from an HSP origin says the intent exactly.
    let kept_kind = own.contains_key("message_type") || own.contains_key("communication_pattern");
    if foreign && !kept_kind {
        let written = intent_of(&Value::Object(
            own.clone().into_iter().chain(env.clone()).collect(),
        ));
        if let Some(intent) = msg.intent.clone()
            && written.as_ref() != Some(&intent)
        {
            protocols::stash(&mut msg, Slot::Intent, intent.as_str().to_string());
        }
    }
    env.extend(own);
    env.extend(notes::carried(&msg, carry_field));
    let mut names: Vec<&str> = generated.iter().map(|s| s.name()).collect();
    // A version asked of a message from elsewhere is not that message's own.
    if foreign && kept_version.is_none() && version != Version::V1_0 {
        names.push(VERSION_NOTE);
    }
    if let Some(note) = notes::generated_note(&names) {
        env.insert(carry_field(AIPROTO_NAMESPACE), note);
    }
    (Value::Object(env), losses)
}

/// A timestamp as HSP writes it (RFC 3339 in UTC), `None` when unreadable.
fn hsp_timestamp(t: &str) -> Option<String> {
    let parsed: DateTime<Utc> = crate::protocols::msp::signal::parse_timestamp(t)?;
    let utc_already = DateTime::parse_from_rfc3339(t)
        .is_ok_and(|d| d.offset().local_minus_utc() == 0)
        && (t.ends_with('Z') || t.ends_with('z') || t.ends_with("+00:00") || t.ends_with("-00:00"));
    Some(if utc_already {
        t.to_string()
    } else {
        parsed.to_rfc3339_opts(SecondsFormat::AutoSi, true)
    })
}

fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Keeps a slot's original value in the model's `hsp` extension, as the
/// envelope field that held it (an intent as its pattern and message type).
pub fn stash(msg: &mut Message, slot: Slot, value: String) {
    let version = msg.version.clone();
    if slot == Slot::Intent {
        let answer = Message {
            intent: Some(Intent::parse(&value)),
            parent: Some(String::new()),
            ..msg.clone()
        };
        let (pattern, type_name) = kind_for(&answer);
        let ext = msg.extension_mut(Protocol::Hsp);
        // A type or pattern kept already says the intent exactly.
        ext.entry("communication_pattern")
            .or_insert_with(|| json!(pattern));
        ext.entry("message_type")
            .or_insert_with(|| json!(message_type::format(type_name, &version)));
    } else if let Some((_, field)) = SLOT_FIELDS.iter().find(|(s, _)| *s == slot) {
        msg.extension_mut(Protocol::Hsp)
            .insert((*field).to_string(), Value::String(value));
    }
    // HSP has no thread: an HSP source never has one to keep.
}
