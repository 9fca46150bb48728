//! From messages to payloads: each message's wire text with the routing a
//! transport needs — its content type, the HTTP binding's path, the MQTT
//! topic its recipient names (and, for MQTT 5, its expiry, response topic
//! and correlation), the mail that carries it.

use crate::protocols::{Found, Protocol, Value};
use crate::transport::{Endpoint, Outgoing, Routing};

/// A message as sent to `endpoint`, as its sender wrote it
/// ([`Found::written`]; `source` is the text it was read from): a JSON
/// message's tokens as written, a Crosstalk envelope in canonical form (LF,
/// no quote prefix or fence). `None` for a message that cannot be written
/// (broken JSON).
pub fn outgoing(found: &Found, source: &str, endpoint: &Endpoint) -> Option<Outgoing> {
    if let Endpoint::A2a(_) = endpoint {
        return super::a2a_call::send_message(found, source);
    }
    let text = found.written(source)?;
    Some(with_text(found, text, endpoint))
}

/// `text` (a form of `found`, say with a hop added) routed as `found` is.
pub fn with_text(found: &Found, text: String, endpoint: &Endpoint) -> Outgoing {
    let envelope = found.protocol == Protocol::Crosstalk;
    let hsp = match &found.value {
        Value::Hsp(Some(m)) => Some(&m.json),
        _ => None,
    };
    // Worded only for a mail: it renders the envelope again.
    let mail = matches!(endpoint, Endpoint::Email(_))
        .then(|| super::mail::mail_of(found, &text))
        .flatten();
    Outgoing {
        text,
        routing: Routing {
            content_type: envelope.then_some("text/plain; charset=utf-8"),
            kind: found.protocol.name(),
            http_path: http_path(found.protocol),
            topic: recipient_topic(found),
            mail,
            spaced: envelope,
            expires_at: hsp.and_then(expires_at),
            response_topic: hsp.and_then(response_topic),
            correlation: hsp.and_then(correlation),
        },
    }
}

/// When an HSP message stops being worth delivering: a fact's or an
/// advertisement's `valid_until`, a task's `deadline_timestamp`.
fn expires_at(json: &serde_json::Value) -> Option<std::time::SystemTime> {
    let payload = json.get("payload")?;
    let at = ["valid_until", "deadline_timestamp"]
        .iter()
        .find_map(|k| payload.get(*k)?.as_str())?;
    let at = chrono::DateTime::parse_from_rfc3339(at).ok()?;
    let seconds = u64::try_from(at.timestamp()).ok()?;
    Some(std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds))
}

/// Where the answer to a TaskRequest goes: its `callback_address`, when a
/// message can be published there.
fn response_topic(json: &serde_json::Value) -> Option<String> {
    let callback = json.pointer("/payload/callback_address")?.as_str()?;
    crate::mqtt_topic::problem(callback)
        .is_none()
        .then(|| callback.to_string())
}

/// What ties a message to a request: a request's own id (its answers name
/// it as their `correlation_id`), else the `correlation_id` of an answer.
fn correlation(json: &serde_json::Value) -> Option<String> {
    let text = |k: &str| json.get(k).and_then(serde_json::Value::as_str);
    if response_topic(json).is_some() {
        return text("message_id").map(str::to_string);
    }
    text("correlation_id").map(str::to_string)
}

/// The path the HTTP binding gives a protocol's messages (the one `aiproto
/// serve` answers on), if it has one.
pub fn http_path(protocol: Protocol) -> Option<&'static str> {
    match protocol {
        Protocol::Crosstalk => Some("/crosstalk/receive"),
        Protocol::Hsp => Some("/hsp"),
        Protocol::Csdl | Protocol::Msp | Protocol::A2a => None,
    }
}

/// The topic an HSP message's recipient names (hsp-0.1 §4.4): an `hsp/…`
/// topic as is, a DID as `hsp/agents/<did>`.
pub fn recipient_topic(found: &Found) -> Option<String> {
    let Value::Hsp(Some(m)) = &found.value else {
        return None;
    };
    let recipient = m.json.get("recipient_ai_id")?.as_str()?;
    Some(if recipient.starts_with("hsp/") {
        recipient.to_string()
    } else {
        format!("hsp/agents/{recipient}")
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::input::Source;
    use crate::protocols::ReadOptions;
    use crate::reader::Document;

    /// The first message read from `text`.
    pub(crate) fn first(text: &str) -> Found {
        let source = Source {
            name: "t".into(),
            text: text.into(),
        };
        let doc = Document::from_source(source, None, &ReadOptions::default());
        doc.messages.into_iter().next().unwrap()
    }

    /// An HSP message of type `kind` on one line.
    fn hsp_message(kind: &str, correlation: &str, payload: &str) -> String {
        format!(
            r#"{{"hsp_envelope_version":"0.1","message_id":"6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f","correlation_id":{correlation},"sender_ai_id":"did:hsp:a","recipient_ai_id":"did:hsp:b","timestamp_sent":"2026-01-01T00:00:00Z","message_type":"HSP::{kind}_v0.1","protocol_version":"0.1","communication_pattern":"request","requires_ack":false,"payload":{payload}}}"#
        )
    }

    const ENVELOPE: &str = "[[CHATGPT→CLAUDE v1]]\nthread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K\nmessage: 01J9J3DF8WQ0R2T4V6X8Z0B2D4\ncontext: api-design\nintent: RESPOND\nbody: |\n  Cursor.\nsig: none\n[[END]]\n";

    #[test]
    fn an_envelope_goes_as_text_to_its_route() {
        let found = first(ENVELOPE);
        let out = outgoing(&found, ENVELOPE, &Endpoint::Stdio).unwrap();
        assert_eq!(out.content_type(), "text/plain; charset=utf-8");
        assert_eq!(out.routing.http_path, Some("/crosstalk/receive"));
        assert_eq!(out.routing.topic, None);
        assert!(out.routing.mail.is_none(), "a mail only for email:");
        let mailed = outgoing(&found, ENVELOPE, &Endpoint::Email("k@example.com".into())).unwrap();
        let mail = mailed.routing.mail.unwrap();
        assert_eq!(mail.subject, "[AI Crosstalk] api-design - RESPOND");
    }

    #[test]
    fn an_hsp_message_names_its_topic() {
        let fact = |recipient: &str| {
            format!(
                r#"{{"hsp_version":"0.1","message_id":"6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f","sender_ai_id":"did:hsp:a","recipient_ai_id":"{recipient}","timestamp_sent":"2026-01-01T00:00:00Z","message_type":"HSP::Fact_v0.1","protocol_version":"0.1","communication_pattern":"publish","requires_ack":false,"payload":{{}}}}"#
            )
        };
        let found = first(&fact("did:hsp:b"));
        assert_eq!(found.protocol, Protocol::Hsp);
        assert_eq!(
            recipient_topic(&found).as_deref(),
            Some("hsp/agents/did:hsp:b")
        );
        let text = fact("hsp/knowledge/facts");
        let found = first(&text);
        assert_eq!(
            recipient_topic(&found).as_deref(),
            Some("hsp/knowledge/facts")
        );
        let out = outgoing(&found, &text, &Endpoint::Stdio).unwrap();
        assert_eq!(out.content_type(), "application/json");
        assert_eq!(out.routing.http_path, Some("/hsp"));
        // A fact with nothing to expire, answer or correlate carries none.
        assert_eq!(
            (
                out.routing.expires_at,
                out.routing.response_topic,
                out.routing.correlation
            ),
            (None, None, None)
        );
    }

    /// What MQTT 5 carries beside an HSP message: a request's callback and
    /// own id, an answer's correlation id, a deadline or validity as expiry.
    #[test]
    fn hsp_requests_and_answers_name_their_mqtt5_properties() {
        let message = |kind: &str, correlation: &str, payload: &str| {
            first(&hsp_message(kind, correlation, payload))
        };
        let request = message(
            "TaskRequest",
            "null",
            r#"{"request_id":"r1","requester_ai_id":"did:hsp:a","capability_id_filter":"c","parameters":{},"callback_address":"hsp/results/a","deadline_timestamp":"2030-01-01T00:00:00Z"}"#,
        );
        let routing = outgoing(&request, "", &Endpoint::Stdio).unwrap().routing;
        assert_eq!(routing.response_topic.as_deref(), Some("hsp/results/a"));
        assert_eq!(
            routing.correlation.as_deref(),
            Some("6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f")
        );
        let deadline = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_893_456_000);
        assert_eq!(routing.expires_at, Some(deadline));
        let answer = message(
            "TaskResult",
            r#""the-request""#,
            r#"{"result_id":"x","request_id":"r1","executing_ai_id":"did:hsp:b","status":"success"}"#,
        );
        let routing = outgoing(&answer, "", &Endpoint::Stdio).unwrap().routing;
        assert_eq!(routing.correlation.as_deref(), Some("the-request"));
        assert_eq!(routing.response_topic, None);
        // A callback no message can be published to is no response topic.
        let wild = message(
            "TaskRequest",
            "null",
            r#"{"request_id":"r1","requester_ai_id":"did:hsp:a","capability_id_filter":"c","parameters":{},"callback_address":"hsp/results/#"}"#,
        );
        let routing = outgoing(&wild, "", &Endpoint::Stdio).unwrap().routing;
        assert_eq!((routing.response_topic, routing.expires_at), (None, None));
    }

    /// What `send`'s second pass builds of HSP JSON Lines ([`hsp::ROUTING`])
    /// is all that routing reads: each message routes, and is written, as
    /// the whole message does. Fails when routing reads a field that
    /// `ROUTING` leaves out.
    #[test]
    fn routing_only_reading_routes_as_the_whole_message() {
        use crate::protocols::hsp;
        let text = [
            hsp_message(
                "TaskRequest",
                "null",
                r#"{"request_id":"r1","requester_ai_id":"did:hsp:a","capability_id_filter":"c","parameters":{"n": 1.50},"callback_address":"hsp/results/a","deadline_timestamp":"2030-01-01T00:00:00Z"}"#,
            ),
            hsp_message(
                "TaskResult",
                r#""the-request""#,
                r#"{"result_id":"x","request_id":"r1","executing_ai_id":"did:hsp:b","status":"success"}"#,
            ),
            hsp_message(
                "Fact",
                "null",
                r#"{"id":"f","statement_type":"natural_language","statement_nl":"x","source_ai_id":"did:hsp:a","timestamp_created":"2026-01-01T00:00:00Z","confidence_score":0.9,"valid_until":"2031-01-01T00:00:00Z"}"#,
            ),
        ]
        .join("\n");
        let read = |routing_only| {
            let options = ReadOptions {
                checked_before: true,
                routing_only,
                ..ReadOptions::default()
            };
            hsp::read_json_lines(&text, options.hsp())
                .into_iter()
                .enumerate()
                .map(|(i, r)| Found::from_hsp(i, r))
                .collect::<Vec<_>>()
        };
        let (whole, routed) = (read(false), read(true));
        assert_eq!(whole.len(), 3);
        let mqtt: Endpoint = "mqtt://127.0.0.1/x".parse().unwrap();
        for (a, b) in whole.iter().zip(&routed) {
            assert_eq!((a.id(), a.spec()), (b.id(), b.spec()));
            let (a, b) = (
                outgoing(a, &text, &mqtt).unwrap(),
                outgoing(b, &text, &mqtt).unwrap(),
            );
            assert_eq!(a.text, b.text);
            let (a, b) = (a.routing, b.routing);
            assert_eq!(
                (a.topic, a.expires_at, a.response_topic, a.correlation),
                (b.topic, b.expires_at, b.response_topic, b.correlation)
            );
        }
        // A mail's subject, ids and body too.
        let email = Endpoint::Email("k@example.com".into());
        for (a, b) in whole.iter().zip(&routed) {
            let mail = |found| {
                outgoing(found, &text, &email)
                    .unwrap()
                    .routing
                    .mail
                    .unwrap()
            };
            let (a, b) = (mail(a), mail(b));
            assert_eq!(
                (a.subject, a.message_id, a.in_reply_to, a.body),
                (b.subject, b.message_id, b.in_reply_to, b.body)
            );
        }
        let Value::Hsp(Some(m)) = &routed[0].value else {
            panic!("an HSP message")
        };
        assert!(
            m.json.get("timestamp_sent").is_none(),
            "not built: {}",
            m.json
        );
    }
}
