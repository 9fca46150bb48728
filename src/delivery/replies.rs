//! What the receiving server answers: the ACK of a message in its own
//! protocol, the reply of an `--exec` handler, or an ERROR (Crosstalk) or
//! NACK (HSP) with its HTTP status.

use serde_json::json;

use crate::protocols::crosstalk::{self, Envelope};
use crate::protocols::hsp;
use crate::protocols::{Found, Protocol, Value};
use crate::transport::server::Answer;

/// The ACK of a received message, in its own protocol.
pub fn ack(found: &Found) -> String {
    match &found.value {
        Value::Crosstalk(p) => {
            crosstalk::render(&reply_envelope(Some(&p.envelope), "ACK", "Received."))
        }
        Value::Hsp(m) => {
            let json = m.as_ref().map(|m| &m.json);
            hsp_reply(json, hsp::compose::Kind::Ack, serde_json::Map::new())
        }
        // No route takes CSDL or MSP yet; a plain JSON receipt if one does.
        Value::Csdl(_) | Value::Msp(_) | Value::A2a(_) => json!({"status": "received"}).to_string(),
    }
}

/// A Crosstalk reply from this server: receiver and sender swapped, same thread.
fn reply_envelope(original: Option<&Envelope>, intent: &str, body: &str) -> Envelope {
    let o = original.cloned().unwrap_or_default();
    Envelope {
        sender: if o.receiver.is_empty() {
            "SYSTEM".into()
        } else {
            o.receiver.clone()
        },
        receiver: if o.sender.is_empty() {
            "UNKNOWN".into()
        } else {
            o.sender.clone()
        },
        version_token: "v1".into(),
        user: Some("system".into()),
        session: o.session.clone(),
        thread: o.thread.clone().or(o.message.clone()),
        parent: o.message.clone(),
        message: Some(crate::ids::new_ulid()),
        context: o.context.clone(),
        intent: Some(intent.into()),
        body: Some(body.into()),
        sig: Some("none".into()),
        ..Envelope::default()
    }
}

/// An HSP ACK or NACK answering `original` (when it could be read), as one JSON line.
fn hsp_reply(
    original: Option<&serde_json::Value>,
    kind: hsp::compose::Kind,
    payload: serde_json::Map<String, serde_json::Value>,
) -> String {
    let envelope = hsp::compose::acknowledge(original, kind, payload, "did:aiproto:server");
    envelope.map_or_else(
        |e| json!({"error": e.to_string()}).to_string(),
        |env| serde_json::to_string(&env).unwrap_or_default(),
    )
}

/// An ERROR envelope (Crosstalk) or a NACK (HSP) with an HTTP status.
pub fn error(
    protocol: Protocol,
    status: u16,
    code: &str,
    reason: &str,
    found: Option<&Found>,
) -> Answer {
    match protocol {
        Protocol::Crosstalk => {
            let original = found.and_then(|f| match &f.value {
                Value::Crosstalk(p) => Some(&p.envelope),
                _ => None,
            });
            let mut env = reply_envelope(original, "ERROR", reason);
            env.set_error(
                code,
                Some(reason),
                original.and_then(|o| o.intent.as_deref()),
            );
            Answer {
                status,
                content_type: "text/plain; charset=utf-8",
                body: crosstalk::render(&env),
            }
        }
        Protocol::Hsp | Protocol::Csdl | Protocol::Msp | Protocol::A2a => {
            let json = found.and_then(|f| match &f.value {
                Value::Hsp(Some(m)) => Some(&m.json),
                _ => None,
            });
            let mut payload = serde_json::Map::new();
            payload.insert("error_code".into(), code.into());
            payload.insert("error_message".into(), reason.into());
            Answer {
                status,
                content_type: "application/json",
                body: hsp_reply(json, hsp::compose::Kind::Nack, payload),
            }
        }
    }
}
