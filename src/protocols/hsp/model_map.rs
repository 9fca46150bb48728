//! HSP ⇄ the shared model. The envelope fields with a model slot map to it;
//! the rest travel in the model's `hsp` extension, minus what the writer
//! would produce again from the model alone (the versions, a message type
//! and pattern that follow from the intent, a payload that only wraps a
//! body). Other protocols' fields travel in `x_crosstalk`, `x_csdl`, `x_msp`.

use std::sync::OnceLock;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};

use super::message_type::{self, MessageType, PAYLOAD_TYPES};
use super::{HspMessage, Version, schemas};
use crate::convert::{self, AIPROTO_NAMESPACE, address};
use crate::model::{Body, Intent, Loss, Message, Signature, Slot};
use crate::protocols::Protocol;

/// The model extension namespace holding HSP envelope fields with no model slot.
pub const NAMESPACE: &str = "hsp";

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
/// A recipient for a message that names none.
const UNKNOWN_AI: &str = "did:aiproto:unknown";

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
            (_, Some("crosstalk")) if convert::meta_from_json(value).is_some() => {
                msg.meta = convert::meta_from_json(value).unwrap_or_default();
            }
            (_, Some(AIPROTO_NAMESPACE)) => {
                generated.extend(convert::generated_in(value).into_iter().map(str::to_string));
            }
            (_, Some(name @ ("csdl" | "msp"))) if value.is_object() => {
                let protocol = if name == "csdl" {
                    Protocol::Csdl
                } else {
                    Protocol::Msp
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
    convert::keep_unexplained(&mut rest, &envelope_defaults(&msg, m.version));
    convert::forget_generated(&mut msg, generated.iter().map(String::as_str));
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

/// The body a payload stands for: the text or value it wraps, when the
/// writer would wrap exactly that into exactly this payload; else the payload.
fn body_of(msg: &Message, type_name: &str, payload: &Value) -> Body {
    let slot = |k: &str| payload.get(k).cloned();
    let inner = match type_name {
        "TaskRequest" => slot("parameters"),
        "TaskResult" => slot("payload"),
        "Acknowledgement" => slot("message").or(Some(Value::String(String::new()))),
        "NegativeAcknowledgement" => slot("details").or_else(|| slot("error_message")),
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
struct Derived {
    id: String,
    timestamp: String,
    sender: String,
    parent: Option<String>,
}

impl Derived {
    fn of(msg: &Message) -> Derived {
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
fn payload_for(body: &Body, type_name: &str, d: &Derived) -> Value {
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
            match body {
                Body::Text(t) => p.insert("error_message".into(), json!(t)),
                Body::Json(v) => {
                    p.insert("error_message".into(), json!(""));
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
fn fill_required(payload: &mut Value, type_name: &str, version: Version, d: &Derived) -> Vec<Loss> {
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
        losses.push(convert::loss(
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

/// Writes the model as an HSP envelope of a version. Nothing is lost: what
/// HSP has no field for travels in `x_<protocol>` fields. Payload fields
/// the version requires and the message lacks are filled and reported.
pub fn from_message(msg: &Message, version: Version) -> (Value, Vec<Loss>) {
    let mut msg = msg.clone();
    convert::modernize_intent(&mut msg);
    let mut own = msg.take_extension(Protocol::Hsp);
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
                convert::stash(&mut msg, Slot::Timestamp, t);
                normalized
            }
            None => {
                convert::stash(&mut msg, Slot::Timestamp, t);
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
        convert::stash(&mut msg, Slot::Thread, thread);
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
            convert::stash(&mut msg, Slot::Intent, intent.as_str().to_string());
        }
    }
    env.extend(own);
    if let Some(meta) = convert::meta_to_json(&msg.meta) {
        env.insert(carry_field("crosstalk"), meta);
    }
    for ext in &msg.extensions {
        env.insert(
            carry_field(ext.protocol.name()),
            Value::Object(ext.fields.clone()),
        );
    }
    if let Some(note) = convert::generated_note(&generated) {
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
        ext.insert("communication_pattern".into(), json!(pattern));
        ext.insert(
            "message_type".into(),
            json!(message_type::format(type_name, &version)),
        );
    } else if let Some((_, field)) = SLOT_FIELDS.iter().find(|(s, _)| *s == slot) {
        msg.extension_mut(Protocol::Hsp)
            .insert((*field).to_string(), Value::String(value));
    }
    // HSP has no thread: an HSP source never has one to keep.
}
