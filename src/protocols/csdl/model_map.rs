//! CSDL ⇄ the shared model. A `message` element maps field by field
//! (`from`, `to`, `intent`, `v`; ids, thread and timestamp in `m`); any
//! other element (a function, a workflow…) is the model's JSON body, marked
//! `element` in the `csdl` extension. Other protocols' fields travel in
//! `m.crosstalk`, `m.hsp`, `m.msp`; aiproto's notes in `m.aiproto`.

use serde_json::{Map, Value, json};

use crate::model::notes::{self, AIPROTO_NAMESPACE};
use crate::model::{Body, Intent, Message, Signature, Slot};
use crate::protocols::Protocol;
use crate::protocols::{self, address};

use super::CsdlDoc;

/// The extension key marking a body that is a whole non-message element.
const ELEMENT: &str = "element";
/// The `m` keys holding model slots, as the writer names them.
const M_SLOTS: [(Slot, &str); 4] = [
    (Slot::Id, "id"),
    (Slot::Thread, "thread"),
    (Slot::Parent, "parent"),
    (Slot::Timestamp, "timestamp"),
];
const SECURITY: &str = "security_parameters";

/// The model intent of a CSDL intent.
fn intent_of(csdl: &str) -> Intent {
    match csdl {
        "request" => Intent::Request,
        "response" => Intent::Respond,
        "notify" => Intent::Broadcast,
        "query" => Intent::Poll,
        "error" => Intent::Error,
        other => Intent::Other(other.to_ascii_uppercase()),
    }
}

/// The CSDL intent written for a model intent.
fn csdl_intent(intent: Option<&Intent>) -> &'static str {
    match intent {
        Some(Intent::Request | Intent::Escalate | Intent::Handoff) => "request",
        Some(Intent::Respond | Intent::Ack) => "response",
        Some(Intent::Poll) => "query",
        Some(Intent::Error | Intent::Nack) => "error",
        _ => "notify",
    }
}

pub fn to_message(doc: &CsdlDoc) -> Message {
    let mut msg = Message {
        protocol: Protocol::Csdl,
        version: super::VERSION.to_string(),
        id: None,
        thread: None,
        parent: None,
        sender: None,
        recipient: None,
        timestamp: None,
        intent: None,
        body: Body::Json(Value::Null),
        meta: Vec::new(),
        extensions: Vec::new(),
        signature: None,
    };
    let mut rest = match doc.compact() {
        Value::Object(map) => map,
        other => {
            msg.body = Body::Json(other);
            msg.set_extension(
                Protocol::Csdl,
                Map::from_iter([(ELEMENT.into(), json!(true))]),
            );
            return msg;
        }
    };
    let mut generated = Vec::new();
    match rest.remove("m") {
        Some(Value::Object(m)) => {
            let m = read_m(&mut msg, m, &mut generated);
            rest.insert("m".into(), Value::Object(m));
        }
        Some(other) => {
            rest.insert("m".into(), other);
        }
        None => {}
    }
    if rest.get("t").and_then(Value::as_str) == Some("message") {
        let mut take_str = |k: &str| match rest.get(k) {
            Some(Value::String(s)) => {
                let s = s.clone();
                rest.remove(k);
                Some(s)
            }
            _ => None,
        };
        msg.sender = take_str("from");
        msg.recipient = take_str("to");
        msg.intent = rest.get("intent").and_then(Value::as_str).map(intent_of);
        msg.body = match rest.remove("v") {
            Some(Value::String(s)) => Body::Text(s),
            Some(other) => Body::Json(other),
            None => Body::Json(Value::Null),
        };
        let mut synthesized = Map::new();
        synthesized.insert("t".into(), json!("message"));
        synthesized.insert("intent".into(), json!(csdl_intent(msg.intent.as_ref())));
        notes::keep_unexplained(&mut rest, &synthesized);
    } else {
        let m = rest.remove("m");
        msg.body = Body::Json(Value::Object(std::mem::take(&mut rest)));
        rest.insert(ELEMENT.into(), json!(true));
        if let Some(m) = m {
            rest.insert("m".into(), m);
        }
    }
    // An `m` emptied by the slots taken out of it is written again by them.
    if rest
        .get("m")
        .is_some_and(|m| m.as_object().is_some_and(Map::is_empty))
        && (msg.id.is_some()
            || msg.thread.is_some()
            || msg.parent.is_some()
            || msg.timestamp.is_some())
    {
        rest.remove("m");
    }
    notes::forget_generated(&mut msg, generated.iter().map(String::as_str));
    msg.set_extension(Protocol::Csdl, rest);
    msg
}

/// Takes the model's slots, carried fields and signature out of `m`; returns what is left.
fn read_m(
    msg: &mut Message,
    mut m: Map<String, Value>,
    generated: &mut Vec<String>,
) -> Map<String, Value> {
    for (slot, key) in M_SLOTS {
        if let Some(Value::String(s)) = m.get(key) {
            let s = s.clone();
            m.remove(key);
            match slot {
                Slot::Id => msg.id = Some(s),
                Slot::Thread => msg.thread = Some(s),
                Slot::Parent => msg.parent = Some(s),
                _ => msg.timestamp = Some(s),
            }
        }
    }
    if let Some(meta) = m.get("crosstalk").and_then(notes::meta_from_json) {
        msg.meta = meta;
        m.remove("crosstalk");
    }
    for protocol in [Protocol::Hsp, Protocol::Msp, Protocol::A2a] {
        if let Some(Value::Object(fields)) = m.get(protocol.name()) {
            msg.set_extension(protocol, fields.clone());
            m.remove(protocol.name());
        }
    }
    if let Some(note) = m.remove(AIPROTO_NAMESPACE) {
        generated.extend(notes::generated_in(&note).into_iter().map(str::to_string));
    }
    if let Some(sig) = m
        .get(SECURITY)
        .and_then(|s| s.get("signature"))
        .and_then(Value::as_str)
    {
        msg.signature = Some(Signature {
            raw: sig.to_string(),
        });
        m.remove(SECURITY);
    }
    m
}

/// Writes the model as a CSDL element in the short codes. Nothing is lost:
/// what CSDL has no field for travels in `m`.
pub fn from_message(msg: &Message) -> Value {
    let mut msg = msg.clone();
    protocols::modernize_intent(&mut msg);
    let mut own = msg.take_extension(Protocol::Csdl);
    let foreign = msg.protocol != Protocol::Csdl;
    let mut generated = Vec::new();
    let mut m = match own.remove("m") {
        Some(Value::Object(m)) => Some(m),
        // An `m` that is not an object is written back as it was.
        Some(other) => {
            own.insert("m".into(), other);
            None
        }
        None => None,
    };
    // Values kept by an earlier conversion (see `stash`) win over the model's.
    for (slot, key) in [(Slot::Sender, "from"), (Slot::Recipient, "to")] {
        if let Some(Value::String(kept)) = own.remove(key) {
            msg.set_slot(slot, kept);
        }
    }
    if let Some(m) = &mut m {
        for (slot, key) in M_SLOTS {
            if let Some(Value::String(kept)) = m.remove(key) {
                msg.set_slot(slot, kept);
            }
        }
    }
    let kept_intent = own.remove("intent");
    let element = own.remove(ELEMENT).is_some_and(|e| e == json!(true));
    let mut out = Map::new();
    if element && let Body::Json(body) = &msg.body {
        let Value::Object(body) = body else {
            return body.clone();
        };
        out = body.clone();
    } else {
        out.insert("t".into(), json!("message"));
        for (slot, key) in [(Slot::Sender, "from"), (Slot::Recipient, "to")] {
            let value = msg.slot(slot).map_or_else(
                || {
                    generated.push(slot);
                    "unknown".to_string()
                },
                |a| address::plain(&a),
            );
            out.insert(key.into(), json!(value));
        }
        let intent = csdl_intent(msg.intent.as_ref());
        out.insert("intent".into(), json!(intent));
        match msg.intent.clone() {
            _ if kept_intent.is_some() => {}
            None => generated.push(Slot::Intent),
            Some(original) if foreign && intent_of(intent) != original => {
                protocols::stash(&mut msg, Slot::Intent, original.as_str().to_string());
            }
            Some(_) => {}
        }
        match &msg.body {
            Body::Text(t) => out.insert("v".into(), json!(t)),
            Body::Json(Value::Null) => None,
            Body::Json(v) => out.insert("v".into(), v.clone()),
        };
    }
    let mut carried = Map::new();
    for (slot, key) in M_SLOTS {
        if let Some(value) = msg.slot(slot) {
            carried.insert(key.into(), json!(value));
        }
    }
    carried.extend(notes::carried(&msg, str::to_string));
    let names: Vec<&str> = generated.iter().map(|s| s.name()).collect();
    if let Some(note) = notes::generated_note(&names) {
        carried.insert(AIPROTO_NAMESPACE.into(), note);
    }
    if !carried.is_empty() {
        m.get_or_insert_with(Map::new).extend(carried);
    }
    if m.is_some() {
        own.remove("m");
    }
    out.extend(own);
    if let Some(intent) = kept_intent {
        out.insert("intent".into(), intent);
    }
    if let Some(m) = m {
        out.insert("m".into(), Value::Object(m));
    }
    Value::Object(out)
}

/// Keeps a slot's original value in the model's `csdl` extension, where the
/// writer puts that slot (`from`, `to`, `intent`, or `m`).
pub fn stash(msg: &mut Message, slot: Slot, value: String) {
    let ext = msg.extension_mut(Protocol::Csdl);
    let key = match slot {
        Slot::Sender => "from",
        Slot::Recipient => "to",
        Slot::Intent => {
            let intent = csdl_intent(Some(&Intent::parse(&value)));
            ext.insert("intent".into(), json!(intent));
            return;
        }
        _ => {
            let key = M_SLOTS
                .iter()
                .find(|(s, _)| *s == slot)
                .map_or("id", |(_, k)| *k);
            let m = ext.entry("m").or_insert_with(|| json!({}));
            if let Value::Object(m) = m {
                m.insert(key.into(), json!(value));
            }
            return;
        }
    };
    ext.insert(key.into(), json!(value));
}
