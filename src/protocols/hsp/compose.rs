//! Composing HSP messages: what a person gives (a kind, a sender, payload
//! fields) completed with generated ids, timestamps, the communication
//! pattern and a conventional recipient topic, in the envelope of a version.

use chrono::{SecondsFormat, Utc};
use serde_json::{Map, Value, json};

use super::Version;
use super::message_type;
use super::types::{CommunicationPattern, Envelope, QosParameters};

/// The messages `aiproto compose hsp` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    Fact,
    Belief,
    Opinion,
    Capability,
    TaskRequest,
    TaskResult,
    ContextUpdate,
    StateSync,
    Ack,
    Nack,
    DiscoveryQuery,
    DiscoveryResponse,
    /// The upstream's Heartbeat: an agent saying it is alive (not in the spec).
    Heartbeat,
    /// The upstream's Discovery: an agent announcing its capabilities.
    Discovery,
    /// The upstream's Error: what went wrong, answering a message.
    Error,
}

impl Kind {
    /// The payload type name in `message_type`.
    pub fn type_name(self) -> &'static str {
        match self {
            Kind::Fact => "Fact",
            Kind::Belief => "Belief",
            Kind::Opinion => "Opinion",
            Kind::Capability => "CapabilityAdvertisement",
            Kind::TaskRequest => "TaskRequest",
            Kind::TaskResult => "TaskResult",
            Kind::ContextUpdate => "ContextUpdate",
            Kind::StateSync => "AIStateSynchronization",
            Kind::Ack => "Acknowledgement",
            Kind::Nack => "NegativeAcknowledgement",
            Kind::DiscoveryQuery => "CapabilityDiscoveryQuery",
            Kind::DiscoveryResponse => "CapabilityDiscoveryResponse",
            Kind::Heartbeat => "Heartbeat",
            Kind::Discovery => "Discovery",
            Kind::Error => "Error",
        }
    }

    /// hsp-0.1 §4.1: facts and advertisements are published, tasks and
    /// queries requested, results and ACKs are responses, state is streamed.
    pub fn pattern(self) -> CommunicationPattern {
        match self {
            Kind::Fact
            | Kind::Belief
            | Kind::Opinion
            | Kind::Capability
            | Kind::ContextUpdate
            | Kind::Heartbeat
            | Kind::Discovery => CommunicationPattern::Publish,
            Kind::TaskRequest | Kind::DiscoveryQuery => CommunicationPattern::Request,
            Kind::TaskResult | Kind::Ack | Kind::Nack | Kind::DiscoveryResponse | Kind::Error => {
                CommunicationPattern::Response
            }
            Kind::StateSync => CommunicationPattern::Stream,
        }
    }

    /// The topic a message of this kind goes to by default (hsp-0.1 §4.4).
    pub fn default_topic(self) -> Option<&'static str> {
        match self {
            Kind::Fact | Kind::Belief | Kind::Opinion => Some("hsp/knowledge/facts/general"),
            Kind::Capability => Some("hsp/capabilities/advertisements/all"),
            Kind::ContextUpdate => Some("hsp/context/global"),
            Kind::DiscoveryQuery => Some("hsp/capabilities/discovery"),
            // aiproto's choice: the upstream names no topic for these.
            Kind::Heartbeat => Some("hsp/heartbeats"),
            Kind::Discovery => Some("hsp/capabilities/announcements"),
            _ => None,
        }
    }
}

/// What the person gave.
#[derive(Debug, Clone)]
pub struct Draft {
    pub version: Version,
    pub kind: Kind,
    pub from: String,
    pub to: Option<String>,
    pub correlation_id: Option<String>,
    pub requires_ack: bool,
    pub payload: Map<String, Value>,
}

/// Why a draft cannot become a message.
#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    #[error("{kind} needs a recipient: give --to DID or TOPIC")]
    NoRecipient { kind: &'static str },
    #[error("{kind} answers another message: give --correlation-id ID or --reply-to FILE")]
    NoCorrelation { kind: &'static str },
}

/// A fresh message id: a UUIDv7.
pub fn new_id() -> String {
    crate::ids::new_uuid7()
}

/// Now, as an RFC 3339 UTC timestamp.
pub fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Completes a draft into an envelope.
pub fn compose(draft: Draft) -> Result<Envelope, ComposeError> {
    let kind = draft.kind;
    let recipient = draft
        .to
        .clone()
        .or_else(|| kind.default_topic().map(str::to_string))
        .ok_or(ComposeError::NoRecipient {
            kind: kind.type_name(),
        })?;
    let needs_correlation = kind.pattern() == CommunicationPattern::Response;
    if needs_correlation && draft.correlation_id.is_none() {
        return Err(ComposeError::NoCorrelation {
            kind: kind.type_name(),
        });
    }
    let mut payload = draft.payload;
    fill_payload(
        kind,
        &draft.from,
        draft.correlation_id.as_deref(),
        &mut payload,
    );
    let version = draft.version.as_str();
    Ok(Envelope {
        hsp_envelope_version: version.into(),
        message_id: new_id(),
        correlation_id: draft.correlation_id,
        sender_ai_id: draft.from,
        recipient_ai_id: recipient,
        timestamp_sent: now(),
        message_type: message_type::format(kind.type_name(), version),
        protocol_version: version.into(),
        communication_pattern: kind.pattern(),
        security_parameters: None,
        qos_parameters: draft.requires_ack.then(|| QosParameters {
            requires_ack: Some(true),
            ..QosParameters::default()
        }),
        routing_info: None,
        payload_schema_uri: None,
        payload: Value::Object(payload),
        extra: Map::new(),
    })
}

/// Ids, timestamps, the sender as source, and fixed statuses, where not given.
fn fill_payload(kind: Kind, from: &str, correlation: Option<&str>, p: &mut Map<String, Value>) {
    let mut default = |key: &str, value: Value| {
        p.entry(key.to_string()).or_insert(value);
    };
    match kind {
        Kind::Fact | Kind::Belief | Kind::Opinion => {
            default(
                "id",
                json!(format!("{}_{}", kind.type_name().to_lowercase(), new_id())),
            );
            default("source_ai_id", json!(from));
            default("timestamp_created", json!(now()));
            if kind == Kind::Belief {
                default("belief_holder_ai_id", json!(from));
            }
        }
        Kind::Capability => {
            default("ai_id", json!(from));
        }
        Kind::TaskRequest => {
            default("request_id", json!(new_id()));
            default("requester_ai_id", json!(from));
            default("parameters", json!({}));
        }
        Kind::TaskResult => {
            default("result_id", json!(new_id()));
            default("executing_ai_id", json!(from));
            default("timestamp_completed", json!(now()));
        }
        Kind::ContextUpdate => {
            default("update_id", json!(new_id()));
            default("source_ai_id", json!(from));
            default("timestamp_observed", json!(now()));
            default("parameters", json!({}));
        }
        Kind::StateSync => {
            default("sync_id", json!(new_id()));
            default("source_ai_id", json!(from));
            default("sequence_number", json!(0));
            default("is_last_chunk", json!(true));
        }
        Kind::Ack => {
            default("status", json!("received"));
            default("ack_timestamp", json!(now()));
            if let Some(c) = correlation {
                default("target_message_id", json!(c));
            }
        }
        Kind::Nack => {
            default("status", json!("error"));
            default("nack_timestamp", json!(now()));
            if let Some(c) = correlation {
                default("target_message_id", json!(c));
            }
        }
        Kind::Heartbeat => {
            default("status", json!("healthy"));
            default("sender_ai_id", json!(from));
            default("timestamp_sent", json!(now()));
        }
        Kind::Discovery => {
            default("sender_ai_id", json!(from));
            default("capabilities", json!([]));
        }
        Kind::Error => {
            default("timestamp_error", json!(now()));
        }
        Kind::DiscoveryQuery | Kind::DiscoveryResponse => {}
    }
    // The statement's kind follows from what was given.
    if matches!(kind, Kind::Fact | Kind::Belief | Kind::Opinion)
        && !p.contains_key("statement_type")
    {
        let t = if p.contains_key("statement_structured") {
            "semantic_triple"
        } else {
            "natural_language"
        };
        p.insert("statement_type".into(), json!(t));
    }
}

/// The ACK or NACK (hsp-0.1 §4.3) of a received message: from its recipient
/// (or `fallback_sender` when that is a topic), to its sender, with its
/// message id as `correlation_id`. `original` is `None` for input that could
/// not be read at all.
pub fn acknowledge(
    original: Option<&Value>,
    kind: Kind,
    payload: Map<String, Value>,
    fallback_sender: &str,
) -> Result<Envelope, ComposeError> {
    let text = |k: &str| {
        original
            .and_then(|o| o.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let draft = Draft {
        version: text("hsp_envelope_version")
            .as_deref()
            .and_then(super::normalize_version)
            .unwrap_or(Version::V1_0),
        kind,
        from: text("recipient_ai_id")
            .filter(|r| r.starts_with("did:"))
            .unwrap_or_else(|| fallback_sender.to_string()),
        to: Some(
            text("sender_ai_id")
                .filter(|s| s.starts_with("did:"))
                .unwrap_or_else(|| "did:aiproto:unknown".into()),
        ),
        correlation_id: Some(text("message_id").unwrap_or_else(|| "unknown".into())),
        requires_ack: false,
        payload,
    };
    compose(draft)
}

/// Whether a message asks for an ACK (`qos_parameters.requires_ack`).
pub fn requires_ack(message: &Value) -> bool {
    message
        .pointer("/qos_parameters/requires_ack")
        .and_then(Value::as_bool)
        == Some(true)
}

/// A reply to a message: the kind (TaskResult for a TaskRequest, else an ACK),
/// the recipient (the request's callback address, else its sender), the
/// correlation id and the ids the payload refers to.
pub fn reply_to(original: &Value, kind: Option<Kind>) -> (Kind, Draft) {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let payload = original.get("payload").cloned().unwrap_or(Value::Null);
    let original_type = text(original, "message_type");
    let is_request = original_type
        .as_deref()
        .and_then(message_type::MessageType::parse)
        .is_some_and(|t| t.name == "TaskRequest");
    let kind = kind.unwrap_or(if is_request {
        Kind::TaskResult
    } else {
        Kind::Ack
    });
    let version = original
        .get("hsp_envelope_version")
        .and_then(Value::as_str)
        .and_then(super::normalize_version)
        .unwrap_or(Version::V1_0);
    let mut fields = Map::new();
    if kind == Kind::TaskResult
        && let Some(id) = text(&payload, "request_id")
    {
        fields.insert("request_id".into(), json!(id));
    }
    let to = match kind {
        Kind::TaskResult => {
            text(&payload, "callback_address").or_else(|| text(original, "sender_ai_id"))
        }
        _ => text(original, "sender_ai_id"),
    };
    let from = text(original, "recipient_ai_id")
        .filter(|r| r.starts_with("did:"))
        .unwrap_or_default();
    let draft = Draft {
        version,
        kind,
        from,
        to,
        correlation_id: text(original, "message_id"),
        requires_ack: false,
        payload: fields,
    };
    (kind, draft)
}

/// Points an answer written from another protocol at the request it
/// answers, as [`reply_to`] would have: a TaskResult takes the request's
/// `request_id` and goes to its `callback_address`, an ACK or NACK goes to
/// its sender. `answer` must name the request in its `correlation_id`.
/// Returns whether anything changed.
pub fn point_at_request(answer: &mut Value, request: &Value) -> bool {
    let correlates = answer.get("correlation_id").and_then(Value::as_str)
        == request.get("message_id").and_then(Value::as_str);
    let Some(kind) = answer
        .get("message_type")
        .and_then(Value::as_str)
        .and_then(message_type::MessageType::parse)
        .map(|t| t.name)
    else {
        return false;
    };
    let kind = match kind {
        "TaskResult" => Kind::TaskResult,
        "Acknowledgement" => Kind::Ack,
        "NegativeAcknowledgement" => Kind::Nack,
        _ => return false,
    };
    if !correlates {
        return false;
    }
    let (_, draft) = reply_to(request, Some(kind));
    let before = answer.clone();
    if let Some(to) = draft.to {
        answer["recipient_ai_id"] = json!(to);
    }
    if let (Some(payload), Some(id)) = (
        answer.get_mut("payload").and_then(Value::as_object_mut),
        draft.payload.get("request_id"),
    ) {
        payload.insert("request_id".into(), id.clone());
    }
    *answer != before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_ids_timestamps_pattern_and_topic() {
        let mut payload = Map::new();
        payload.insert("statement_nl".into(), json!("The sky is blue."));
        payload.insert("confidence_score".into(), json!(0.9));
        let draft = Draft {
            version: Version::V0_1,
            kind: Kind::Fact,
            from: "did:hsp:a".into(),
            to: None,
            correlation_id: None,
            requires_ack: false,
            payload,
        };
        let env = compose(draft).unwrap();
        assert_eq!(env.message_type, "HSP::Fact_v0.1");
        assert_eq!(env.recipient_ai_id, "hsp/knowledge/facts/general");
        assert_eq!(env.communication_pattern, CommunicationPattern::Publish);
        assert_eq!(env.payload["statement_type"], "natural_language");
        assert_eq!(env.payload["source_ai_id"], "did:hsp:a");
    }

    #[test]
    fn replies_to_a_task_request_with_a_result() {
        let request = json!({"message_id": "m1", "sender_ai_id": "did:hsp:boss", "recipient_ai_id": "did:hsp:worker",
            "hsp_envelope_version": "0.1", "message_type": "HSP::TaskRequest_v0.1",
            "payload": {"request_id": "r1", "callback_address": "hsp/results/boss"}});
        let (kind, draft) = reply_to(&request, None);
        assert_eq!(kind, Kind::TaskResult);
        assert_eq!(draft.to.as_deref(), Some("hsp/results/boss"));
        assert_eq!(draft.correlation_id.as_deref(), Some("m1"));
        assert_eq!(draft.from, "did:hsp:worker");
        assert_eq!(draft.payload["request_id"], "r1");
    }

    #[test]
    fn an_answer_from_elsewhere_is_pointed_at_its_request() {
        let request = json!({"message_id": "m1", "sender_ai_id": "did:hsp:boss",
            "hsp_envelope_version": "1.0", "message_type": "HSP::TaskRequest_v1.0",
            "payload": {"request_id": "r1", "callback_address": "hsp/results/did:hsp:boss"}});
        let mut result = json!({"message_type": "HSP::TaskResult_v1.0", "correlation_id": "m1",
            "recipient_ai_id": "did:hsp:boss", "payload": {"request_id": "m1"}});
        assert!(point_at_request(&mut result, &request));
        assert_eq!(result["payload"]["request_id"], "r1");
        assert_eq!(result["recipient_ai_id"], "hsp/results/did:hsp:boss");
        assert!(!point_at_request(&mut result, &request), "already pointed");
        let mut other = json!({"message_type": "HSP::TaskResult_v1.0", "correlation_id": "m2",
            "payload": {"request_id": "m2"}});
        assert!(!point_at_request(&mut other, &request));
    }
}
