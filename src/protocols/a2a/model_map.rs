//! A2A ⇄ the shared model.
//!
//! A **Message** maps its `messageId` to the id, `contextId` to the thread,
//! `taskId` to the parent and its role to the intent (ROLE_USER asks:
//! REQUEST; ROLE_AGENT answers: RESPOND); a single text part is the body's
//! text, a single data part its JSON. A **Task** (and a status update) is
//! an answer about a task: its id is the parent (the request it answers,
//! as an HSP TaskResult's `correlation_id`), its state the intent
//! (COMPLETED → RESPOND, FAILED → ERROR, REJECTED → NACK, CANCELED →
//! REVOKE, SUBMITTED/WORKING → ACK, INPUT/AUTH_REQUIRED → REQUEST), its
//! artifacts the body. Cards and other requests travel whole as a JSON body.
//!
//! What the model has and A2A has no field for travels in the object's
//! `metadata`: `x_sender`, `x_recipient`, `x_timestamp`, `x_id`, the other
//! protocols' fields as `x_hsp`, `x_csdl`, `x_msp`, Crosstalk `meta:`
//! blocks as `x_crosstalk`, and the slots the writer made up in
//! `x_aiproto`. Nothing is lost; A2A → A2A is exact.

use serde_json::{Map, Value, json};

use super::{A2aDoc, Kind, hsp_payload};
use crate::model::notes::{self, AIPROTO_NAMESPACE};
use crate::model::{Body, Intent, Loss, Message, Slot};
use crate::protocols::{self, Protocol};

/// Which object the model came from, kept in the `a2a` extension.
const KIND: &str = "kind";
/// The document the object was read from, when it was wrapped (a JSON-RPC
/// request or response, a SendMessage body): `{"document", "at"}`.
const WRAPPER: &str = "wrapper";
/// The `metadata` key of each model slot A2A has no field for.
const CARRIED_SLOTS: [(Slot, &str); 4] = [
    (Slot::Sender, "x_sender"),
    (Slot::Recipient, "x_recipient"),
    (Slot::Timestamp, "x_timestamp"),
    (Slot::Id, "x_id"),
];

/// The model intent of a task state.
fn intent_of_state(state: &str) -> Intent {
    match state {
        "TASK_STATE_COMPLETED" => Intent::Respond,
        "TASK_STATE_FAILED" => Intent::Error,
        "TASK_STATE_REJECTED" => Intent::Nack,
        "TASK_STATE_CANCELED" => Intent::Revoke,
        "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_AUTH_REQUIRED" => Intent::Request,
        _ => Intent::Ack,
    }
}

/// The task state written for a model intent, or for an HSP TaskResult's
/// `status` when the body carries one.
fn state_for(intent: Option<&Intent>, body: &Body) -> &'static str {
    let hsp_status = match body {
        Body::Json(v) => v.get("status").and_then(Value::as_str),
        Body::Text(_) => None,
    };
    match hsp_status {
        Some("success") => return "TASK_STATE_COMPLETED",
        Some("failure") => return "TASK_STATE_FAILED",
        Some("in_progress") => return "TASK_STATE_WORKING",
        Some("queued") => return "TASK_STATE_SUBMITTED",
        Some("rejected") => return "TASK_STATE_REJECTED",
        _ => {}
    }
    match intent {
        Some(Intent::Error) => "TASK_STATE_FAILED",
        Some(Intent::Nack) => "TASK_STATE_REJECTED",
        Some(Intent::Revoke | Intent::Close) => "TASK_STATE_CANCELED",
        Some(Intent::Ack) => "TASK_STATE_WORKING",
        _ => "TASK_STATE_COMPLETED",
    }
}

/// The parts written for a body: one text part, or one data part.
fn parts_for(body: &Body) -> Value {
    match body {
        Body::Text(t) => json!([{"text": t}]),
        Body::Json(v) => json!([{"data": v}]),
    }
}

/// The body a list of parts stands for: one text part is text, one data
/// part its JSON; anything else the parts themselves (kept whole too).
fn body_of_parts(parts: Option<&Value>) -> Body {
    let one = parts
        .and_then(Value::as_array)
        .and_then(|p| match p.as_slice() {
            [one] => one.as_object(),
            _ => None,
        });
    match one.map(|p| (p.len(), p.get("text"), p.get("data"))) {
        Some((1, Some(Value::String(t)), None)) => Body::Text(t.clone()),
        Some((1, None, Some(v))) => Body::Json(v.clone()),
        _ => Body::Json(parts.cloned().unwrap_or(Value::Null)),
    }
}

/// An empty model message of A2A.
fn empty() -> Message {
    Message {
        protocol: Protocol::A2a,
        version: super::VERSION.to_string(),
        id: None,
        thread: None,
        parent: None,
        sender: None,
        recipient: None,
        timestamp: None,
        intent: None,
        body: Body::Text(String::new()),
        meta: Vec::new(),
        extensions: Vec::new(),
        signature: None,
    }
}

pub fn to_message(doc: &A2aDoc) -> Message {
    let (kind, value, at) = super::kind::payload(doc.kind, &doc.json);
    let mut msg = empty();
    let mut rest = value.as_object().cloned().unwrap_or_default();
    let take = |rest: &mut Map<String, Value>, key: &str| match rest.remove(key) {
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            rest.insert(key.to_string(), other);
            None
        }
        None => None,
    };
    // Whether the body is content an HSP payload can be rebuilt around: a
    // message's parts, a task's artifact (not its status message).
    let mut content = true;
    let written = match kind {
        Kind::Message => {
            msg.id = take(&mut rest, "messageId");
            msg.thread = take(&mut rest, "contextId");
            msg.parent = take(&mut rest, "taskId");
            msg.intent = match rest.get("role").and_then(Value::as_str) {
                Some("ROLE_USER") => Some(Intent::Request),
                Some("ROLE_AGENT") => Some(Intent::Respond),
                _ => None,
            };
            msg.body = body_of_parts(rest.get("parts"));
            "message"
        }
        Kind::Task | Kind::StatusUpdate | Kind::ArtifactUpdate => {
            let id_field = if kind == Kind::Task { "id" } else { "taskId" };
            msg.parent = take(&mut rest, id_field);
            msg.thread = take(&mut rest, "contextId");
            let status = rest.get("status").cloned().unwrap_or(Value::Null);
            let state = status.get("state").and_then(Value::as_str).unwrap_or("");
            msg.intent = Some(intent_of_state(state));
            msg.timestamp = status
                .get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_string);
            msg.body = match (kind, rest.get("artifacts"), rest.get("artifact")) {
                (Kind::ArtifactUpdate, _, Some(a)) => body_of_parts(a.get("parts")),
                (_, Some(Value::Array(a)), _) if a.len() == 1 => body_of_parts(a[0].get("parts")),
                _ => {
                    content = false;
                    match status.get("message") {
                        Some(m) => body_of_parts(m.get("parts")),
                        None => Body::Text(String::new()),
                    }
                }
            };
            match kind {
                Kind::Task => "task",
                Kind::StatusUpdate => "statusUpdate",
                _ => "artifactUpdate",
            }
        }
        Kind::AgentCard => {
            msg.intent = Some(Intent::Broadcast);
            msg.body = Body::Json(value.clone());
            rest.clear();
            "card"
        }
        _ => {
            msg.body = Body::Json(value.clone());
            rest.clear();
            "other"
        }
    };
    if let Some(hsp_rest) = take_carried(&mut msg, &mut rest) {
        let carried = content.then(|| msg.body.clone());
        msg.body = hsp_payload::join(written, carried.as_ref(), hsp_rest);
    }
    // Fields the writer would write again from the model alone are not kept.
    let (again, _) = write(&msg, written);
    if let Value::Object(again) = again {
        notes::keep_unexplained(&mut rest, &again);
    }
    if let Some(Value::Object(m)) = rest.get("metadata")
        && m.is_empty()
    {
        rest.remove("metadata");
    }
    // The kind travels when the model alone would not write it again.
    if written != kind_for(&msg) {
        rest.insert(KIND.into(), json!(written));
    }
    // A JSON-RPC envelope or a wrapper around the object travels too.
    if !at.is_empty() {
        let mut wrapper = doc.json.clone();
        if let Some(slot) = wrapper.pointer_mut(&at) {
            *slot = Value::Null;
        }
        rest.insert(WRAPPER.into(), json!({"document": wrapper, "at": at}));
    }
    msg.set_extension(Protocol::A2a, rest);
    msg
}

/// Moves what an earlier conversion carried in `metadata` back into the
/// model: slots, other protocols' fields, meta blocks, generated notes;
/// returns the rest of an HSP task payload, for the body to be rebuilt.
fn take_carried(msg: &mut Message, rest: &mut Map<String, Value>) -> Option<Map<String, Value>> {
    let Some(Value::Object(metadata)) = rest.get_mut("metadata") else {
        return None;
    };
    for (slot, key) in CARRIED_SLOTS {
        if let Some(Value::String(v)) = metadata.remove(key) {
            msg.set_slot(slot, v);
        }
    }
    if let Some(meta) = metadata.get("x_crosstalk").and_then(notes::meta_from_json) {
        msg.meta = meta;
        metadata.remove("x_crosstalk");
    }
    for protocol in [Protocol::Hsp, Protocol::Csdl, Protocol::Msp] {
        let key = format!("x_{}", protocol.name());
        if let Some(Value::Object(fields)) = metadata.remove(&key) {
            msg.set_extension(protocol, fields);
        }
    }
    let generated_key = format!("x_{AIPROTO_NAMESPACE}");
    if let Some(note) = metadata.remove(&generated_key) {
        let names: Vec<String> = notes::generated_in(&note)
            .into_iter()
            .map(str::to_string)
            .collect();
        notes::forget_generated(msg, names.iter().map(String::as_str));
    }
    match metadata.remove(hsp_payload::KEY) {
        Some(Value::Object(payload)) => Some(payload),
        Some(other) => {
            metadata.insert(hsp_payload::KEY.into(), other);
            None
        }
        None => None,
    }
}

/// Whether an intent asks something of the receiver (a ROLE_USER message).
fn asks(intent: Option<&Intent>) -> bool {
    matches!(
        intent,
        None | Some(Intent::Request | Intent::Poll | Intent::Escalate | Intent::Handoff)
    )
}

/// The object kind written for a model from elsewhere: a request is a
/// Message from the user; anything else about a task (a parent: the task
/// it answers) is that Task; the rest a Message from the agent.
fn kind_for(msg: &Message) -> &'static str {
    if !asks(msg.intent.as_ref()) && msg.parent.is_some() {
        "task"
    } else {
        "message"
    }
}

/// Writes the model as an A2A 1.0 object: the kind it came from, else a
/// Task for an answer about a task and a Message for the rest. Nothing is
/// lost: what A2A has no field for travels in `metadata`.
pub fn from_message(msg: &Message) -> (Value, Vec<Loss>) {
    let mut msg = msg.clone();
    protocols::modernize_intent(&mut msg);
    let own = msg.extension(Protocol::A2a).cloned().unwrap_or_default();
    let kind = own.get(KIND).and_then(Value::as_str).map_or_else(
        || kind_for(&msg),
        |k| match k {
            "task" => "task",
            "statusUpdate" => "statusUpdate",
            "artifactUpdate" => "artifactUpdate",
            "card" => "card",
            "other" => "other",
            _ => "message",
        },
    );
    write(&msg, kind)
}

/// The object of a kind for a model, its own kept fields over the model's.
fn write(msg: &Message, kind: &str) -> (Value, Vec<Loss>) {
    let mut msg = msg.clone();
    let mut own = msg.take_extension(Protocol::A2a);
    own.remove(KIND);
    let wrapper = own.remove(WRAPPER);
    // Values kept by an earlier conversion (see `stash`) win over the model's.
    for (slot, field) in slot_fields(kind) {
        if let Some(Value::String(kept)) = own.remove(*field) {
            msg.set_slot(*slot, kept);
        }
    }
    for slot in Slot::ALL.into_iter().filter(|s| *s != Slot::Intent) {
        if let Some(Value::String(kept)) = own.remove(&kept_name(slot)) {
            msg.set_slot(slot, kept);
        }
    }
    let mut generated = Vec::new();
    let mut out = Map::new();
    let mut carried = Map::new();
    let new_id = |generated: &mut Vec<Slot>, slot: Slot| {
        generated.push(slot);
        crate::ids::new_uuid7()
    };
    match kind {
        "card" | "other" => {
            if let Body::Json(Value::Object(card)) = &msg.body {
                out = card.clone();
            }
        }
        "message" => {
            let id = msg
                .id
                .clone()
                .unwrap_or_else(|| new_id(&mut generated, Slot::Id));
            out.insert("messageId".into(), json!(id));
            if let Some(thread) = &msg.thread {
                out.insert("contextId".into(), json!(thread));
            }
            if let Some(parent) = &msg.parent {
                out.insert("taskId".into(), json!(parent));
            }
            let role = if asks(msg.intent.as_ref()) {
                "ROLE_USER"
            } else {
                "ROLE_AGENT"
            };
            out.insert("role".into(), json!(role));
            let parts = match hsp_payload::split(&msg.body, "message") {
                Some(split) => {
                    carried.insert(hsp_payload::KEY.into(), Value::Object(split.rest));
                    split
                        .content
                        .as_ref()
                        .map_or_else(|| parts_for(&msg.body), parts_for)
                }
                None => parts_for(&msg.body),
            };
            out.insert("parts".into(), parts);
            if let Some(t) = &msg.timestamp {
                carried.insert("x_timestamp".into(), json!(t));
            }
        }
        _ => {
            // task, statusUpdate, artifactUpdate: an answer about a task.
            let task = msg
                .parent
                .clone()
                .unwrap_or_else(|| new_id(&mut generated, Slot::Parent));
            let context = msg
                .thread
                .clone()
                .unwrap_or_else(|| new_id(&mut generated, Slot::Thread));
            out.insert(
                (if kind == "task" { "id" } else { "taskId" }).into(),
                json!(task),
            );
            out.insert("contextId".into(), json!(context));
            let mut status = Map::new();
            status.insert(
                "state".into(),
                json!(state_for(msg.intent.as_ref(), &msg.body)),
            );
            match &msg.timestamp {
                Some(t) if super::rules::is_timestamp(t) => {
                    status.insert("timestamp".into(), json!(t));
                }
                Some(t) => {
                    carried.insert("x_timestamp".into(), json!(t));
                }
                None => {}
            }
            let split = hsp_payload::split(&msg.body, "task");
            let content = match &split {
                Some(split) => split.content.clone(),
                None => Some(msg.body.clone()),
            };
            if let Some(error) = split.as_ref().and_then(|s| s.error.clone()) {
                status.insert(
                    "message".into(),
                    json!({"messageId": format!("{task}-status"), "role": "ROLE_AGENT", "parts": [{"text": error}]}),
                );
            }
            if let Some(split) = split {
                carried.insert(hsp_payload::KEY.into(), Value::Object(split.rest));
            }
            let artifact = content
                .map(|c| json!({"artifactId": format!("{task}-result"), "parts": parts_for(&c)}));
            match (kind, artifact) {
                ("artifactUpdate", artifact) => {
                    let empty =
                        json!({"artifactId": format!("{task}-result"), "parts": [{"text": ""}]});
                    out.insert("artifact".into(), artifact.unwrap_or(empty));
                }
                (_, artifact) => {
                    out.insert("status".into(), Value::Object(status));
                    if let ("task", Some(artifact)) = (kind, artifact) {
                        out.insert("artifacts".into(), json!([artifact]));
                    }
                }
            }
            if let Some(id) = &msg.id {
                carried.insert("x_id".into(), json!(id));
            }
        }
    }
    // An intent the role or state does not say is kept by the source,
    // unless a role or state (or intent) kept from an A2A origin says it.
    let kept_kind = own.contains_key("role")
        || own.contains_key("status")
        || own.contains_key(&kept_name(Slot::Intent));
    own.remove(&kept_name(Slot::Intent));
    let said = match (kind, out.get("role").and_then(Value::as_str)) {
        ("message", Some("ROLE_USER")) => Some(Intent::Request),
        ("message", _) => Some(Intent::Respond),
        ("card" | "other", _) => msg.intent.clone(),
        // (An artifact update has no state: it is work in progress.)
        _ => Some(intent_of_state(
            out.get("status")
                .and_then(|s| s.get("state"))
                .and_then(Value::as_str)
                .unwrap_or_default(),
        )),
    };
    if msg.protocol != Protocol::A2a
        && !kept_kind
        && let Some(intent) = msg.intent.clone()
        && said.as_ref() != Some(&intent)
    {
        protocols::stash(&mut msg, Slot::Intent, intent.as_str().to_string());
    }
    if !matches!(kind, "card" | "other") {
        for (slot, key) in [(Slot::Sender, "x_sender"), (Slot::Recipient, "x_recipient")] {
            if let Some(v) = msg.slot(slot) {
                carried.insert(key.into(), json!(v));
            }
        }
        carried.extend(notes::carried(&msg, |name| format!("x_{name}")));
        let names: Vec<&str> = generated.iter().map(|s| s.name()).collect();
        if let Some(note) = notes::generated_note(&names) {
            carried.insert(format!("x_{AIPROTO_NAMESPACE}"), note);
        }
    }
    // Fields kept from an A2A source win over the model's; a kept status
    // (a state) keeps the model's time beside it.
    for (key, value) in own {
        match (out.get_mut(&key), value) {
            (Some(Value::Object(written)), Value::Object(kept)) if key == "status" => {
                written.extend(kept);
            }
            (_, value) => {
                out.insert(key, value);
            }
        }
    }
    if !carried.is_empty() {
        let metadata = out.entry("metadata").or_insert_with(|| json!({}));
        if let Value::Object(m) = metadata {
            m.extend(carried);
        }
    }
    (wrapped(Value::Object(out), wrapper), Vec::new())
}

/// The object put back in the document it was read from, if it was wrapped.
fn wrapped(object: Value, wrapper: Option<Value>) -> Value {
    let Some(Value::Object(mut wrapper)) = wrapper else {
        return object;
    };
    let (Some(Value::String(at)), Some(mut document)) =
        (wrapper.remove("at"), wrapper.remove("document"))
    else {
        return object;
    };
    match document.pointer_mut(&at) {
        Some(slot) => {
            *slot = object;
            document
        }
        None => object,
    }
}

/// The key, in the `a2a` extension, of a slot the object has no field for.
fn kept_name(slot: Slot) -> String {
    format!("x_{}", slot.name())
}

/// The A2A field of each model slot an object of a kind has.
fn slot_fields(kind: &str) -> &'static [(Slot, &'static str)] {
    match kind {
        "message" => &[
            (Slot::Id, "messageId"),
            (Slot::Thread, "contextId"),
            (Slot::Parent, "taskId"),
        ],
        "task" => &[(Slot::Parent, "id"), (Slot::Thread, "contextId")],
        "statusUpdate" | "artifactUpdate" => {
            &[(Slot::Parent, "taskId"), (Slot::Thread, "contextId")]
        }
        _ => &[],
    }
}

/// Keeps a slot's original value in the model's `a2a` extension, under
/// the A2A field that held it, so that converting back restores it.
pub fn stash(msg: &mut Message, slot: Slot, value: String) {
    let kind = msg
        .extension(Protocol::A2a)
        .and_then(|e| e.get(KIND))
        .and_then(Value::as_str)
        .unwrap_or_else(|| kind_for(msg))
        .to_string();
    if slot == Slot::Intent {
        // An intent as the role or task state that says it.
        let intent = Intent::parse(&value);
        let (field, said) = match kind.as_str() {
            "message" => {
                let role = if asks(Some(&intent)) {
                    "ROLE_USER"
                } else {
                    "ROLE_AGENT"
                };
                ("role".to_string(), json!(role))
            }
            "task" | "statusUpdate" => (
                "status".to_string(),
                json!({"state": state_for(Some(&intent), &Body::Text(String::new()))}),
            ),
            // An artifact update, a card: no field says an intent.
            _ => (kept_name(Slot::Intent), json!(value)),
        };
        msg.extension_mut(Protocol::A2a)
            .entry(field)
            .or_insert(said);
        return;
    }
    // A slot with no field of its own in this object is kept as `x_<slot>`.
    let field = match slot_fields(&kind).iter().find(|(s, _)| *s == slot) {
        Some((_, field)) => (*field).to_string(),
        None => kept_name(slot),
    };
    msg.extension_mut(Protocol::A2a)
        .insert(field, Value::String(value));
}

/// The model as an A2A Message a client sends an agent (`SendMessage`),
/// whatever it came from: a message from the user (ROLE_USER). An intent
/// that is not a request, and a parent that is not an A2A task id (in
/// another protocol a parent names a message), are kept in the source's
/// extension, which travels in `metadata`: a task id the agent does not
/// know would fail the call.
pub fn as_message(msg: &Message) -> Value {
    let mut msg = msg.clone();
    protocols::modernize_intent(&mut msg);
    let kind = msg
        .extension(Protocol::A2a)
        .and_then(|e| e.get(KIND))
        .and_then(Value::as_str)
        .unwrap_or_else(|| kind_for(&msg))
        .to_string();
    if kind != "message" {
        // A task's fields (status, artifacts) do not fit a message.
        msg.take_extension(Protocol::A2a);
    }
    let foreign = msg.protocol != Protocol::A2a || kind != "message";
    if let Some(intent) = msg.intent.clone()
        && !asks(Some(&intent))
    {
        if msg.protocol != Protocol::A2a {
            protocols::stash(&mut msg, Slot::Intent, intent.as_str().to_string());
        }
        msg.intent = Some(Intent::Request);
    }
    // (The parent is taken whenever foreign; kept when there is a source to keep it.)
    if foreign
        && let Some(parent) = msg.parent.take()
        && msg.protocol != Protocol::A2a
    {
        protocols::stash(&mut msg, Slot::Parent, parent);
    }
    write(&msg, "message").0
}
