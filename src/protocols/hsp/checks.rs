//! The HSP rules with their own stable codes, checked on the parsed JSON.
//! The published schemas encode the same rules (so that any validator gives
//! the same verdicts); these checks give each a precise code and message,
//! and the schema's own finding at the same place is then left out.

use serde_json::{Map, Value};

use super::Version;
use super::message_type::MessageType;
pub use crate::protocols::json_doc::Finding;

fn error(pointer: impl Into<String>, code: &'static str, message: impl Into<String>) -> Finding {
    Finding::error(pointer, code, message)
}

fn warning(pointer: impl Into<String>, code: &'static str, message: impl Into<String>) -> Finding {
    Finding::warning(pointer, code, message)
}

/// What a field's name says its value must be, wherever it appears.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FieldRule {
    /// A DID (`did:method:id`).
    Did,
    /// An RFC 3339 date-time in UTC.
    Timestamp,
    /// A score in [0, 1].
    Score,
}

/// The rule a field falls under, by its name: matched, not looked up, so
/// an object's fields are each read once.
fn field_rule(field: &str) -> Option<FieldRule> {
    match field {
        "source_ai_id"
        | "belief_holder_ai_id"
        | "ai_id"
        | "requester_ai_id"
        | "target_ai_id"
        | "executing_ai_id"
        | "sender_ai_id" => Some(FieldRule::Did),
        "timestamp_sent"
        | "timestamp_created"
        | "timestamp_observed"
        | "valid_from"
        | "valid_until"
        | "deadline_timestamp"
        | "timestamp_completed"
        | "ack_timestamp"
        | "nack_timestamp" => Some(FieldRule::Timestamp),
        "confidence_score" | "min_trust_score" => Some(FieldRule::Score),
        _ => None,
    }
}

/// An object's fields that fall under `rule`.
fn fields_under(
    object: &Map<String, Value>,
    rule: FieldRule,
) -> impl Iterator<Item = (&String, &Value)> {
    object
        .iter()
        .filter(move |(field, _)| field_rule(field) == Some(rule))
}

/// Checks one envelope (already known to be a JSON object) of a version.
pub fn check(envelope: &Map<String, Value>, version: Version) -> Vec<Finding> {
    let mut out = Vec::new();
    check_versions(envelope, version, &mut out);
    check_ids(envelope, "", &mut out);
    if let Some(Value::String(r)) = envelope.get("recipient_ai_id") {
        if let Some(why) = crate::mqtt_topic::problem(r) {
            out.push(error(
                "/recipient_ai_id",
                "HSP-ID-FORMAT",
                format!("recipient_ai_id `{r}` cannot be published to: {why}"),
            ));
        } else if !is_did(r) && !is_topic(r) {
            out.push(error(
                "/recipient_ai_id",
                "HSP-ID-FORMAT",
                format!(
                    "recipient_ai_id `{r}` is neither a DID (did:method:id) nor an hsp/… topic"
                ),
            ));
        }
    }
    if let Some(Value::String(c)) = envelope
        .get("payload")
        .and_then(|p| p.get("callback_address"))
        && let Some(why) = crate::mqtt_topic::problem(c)
    {
        out.push(error(
            "/payload/callback_address",
            "HSP-ID-FORMAT",
            format!("callback_address `{c}` cannot be published to: {why}"),
        ));
    }
    let pattern = envelope
        .get("communication_pattern")
        .and_then(Value::as_str);
    let message_type = envelope
        .get("message_type")
        .and_then(Value::as_str)
        .and_then(MessageType::parse);
    let type_name = message_type.as_ref().map(|t| t.name);
    let needs_correlation = pattern == Some("response")
        || matches!(
            type_name,
            Some("Acknowledgement" | "NegativeAcknowledgement")
        );
    let has_correlation = envelope
        .get("correlation_id")
        .and_then(Value::as_str)
        .is_some_and(|c| !c.is_empty());
    if needs_correlation && !has_correlation {
        let why = if pattern == Some("response") {
            "a response"
        } else {
            "an ACK/NACK"
        };
        out.push(error(
            "/correlation_id",
            "HSP-CORRELATION-MISSING",
            format!("{why} must carry the correlation_id of the message it answers"),
        ));
    }
    if let Some(t) = &message_type
        && t.payload_type().is_none()
    {
        out.push(warning(
            "/message_type",
            "HSP-TYPE-UNKNOWN",
            format!(
                "unknown message type `{}`: only the envelope was checked",
                t.name
            ),
        ));
    }
    if let Some(Value::Object(payload)) = envelope.get("payload") {
        check_fields(payload, "/payload", &mut out);
        // A discovery response carries whole capability advertisements.
        if let Some(Value::Array(items)) = payload.get("capabilities") {
            for (i, item) in items.iter().enumerate() {
                if let Value::Object(cap) = item {
                    check_fields(cap, &format!("/payload/capabilities/{i}"), &mut out);
                    check_ids(cap, &format!("/payload/capabilities/{i}"), &mut out);
                }
            }
        }
        check_ids(payload, "/payload", &mut out);
        check_statement(payload, "/payload", &mut out);
        match type_name {
            Some("TaskResult") => check_task_result(payload, &mut out),
            Some("Acknowledgement") => check_status(payload, "received", &mut out),
            Some("NegativeAcknowledgement") => check_status(payload, "error", &mut out),
            _ => {}
        }
    }
    for (field, value) in fields_under(envelope, FieldRule::Timestamp) {
        check_timestamp(value, "", field, &mut out);
    }
    out
}

/// `message_type`'s version agrees with `protocol_version` and `hsp_envelope_version`.
fn check_versions(envelope: &Map<String, Value>, version: Version, out: &mut Vec<Finding>) {
    let want = version.as_str();
    // hsp-0.1 §7 recommends semantic versioning: "0.1.0" names 0.1 too.
    for field in ["hsp_envelope_version", "protocol_version"] {
        if let Some(v) = envelope.get(field).and_then(Value::as_str)
            && super::normalize_version(v) != Some(version)
        {
            out.push(error(
                format!("/{field}"),
                "HSP-VERSION-MISMATCH",
                format!("{field} is `{v}`; this is an HSP {want} envelope"),
            ));
        }
    }
    if let Some(mt) = envelope.get("message_type").and_then(Value::as_str) {
        match MessageType::parse(mt) {
            None => out.push(error(
                "/message_type",
                "HSP-TYPE-FORMAT",
                format!("message_type `{mt}` is not HSP::<Type>_v<version>"),
            )),
            Some(t) if t.version != want => out.push(error(
                "/message_type",
                "HSP-VERSION-MISMATCH",
                format!(
                    "message_type is version {} but the envelope is HSP {want}",
                    t.version
                ),
            )),
            Some(_) => {}
        }
    }
}

fn check_ids(object: &Map<String, Value>, base: &str, out: &mut Vec<Finding>) {
    for (field, value) in fields_under(object, FieldRule::Did) {
        if let Value::String(id) = value
            && !is_did(id)
        {
            out.push(error(
                format!("{base}/{field}"),
                "HSP-ID-FORMAT",
                format!("{field} `{id}` is not a DID (did:method:id)"),
            ));
        }
    }
}

/// The scores and timestamps among an object's own fields.
fn check_fields(object: &Map<String, Value>, base: &str, out: &mut Vec<Finding>) {
    // Score and timestamp keys are plain words: no pointer escaping needed.
    for (field, value) in object {
        match field_rule(field) {
            Some(FieldRule::Score) => {
                if let Some(n) = value.as_f64().filter(|n| !(0.0..=1.0).contains(n)) {
                    out.push(error(
                        format!("{base}/{field}"),
                        "HSP-SCORE-RANGE",
                        format!("{field} {n} is outside [0, 1]"),
                    ));
                }
            }
            Some(FieldRule::Timestamp) => check_timestamp(value, base, field, out),
            _ => {}
        }
    }
}

/// RFC 3339 in UTC (`Z` or `+00:00`); the pointer is `base/field`.
fn check_timestamp(value: &Value, base: &str, field: &str, out: &mut Vec<Finding>) {
    let problem = match value {
        Value::String(s) => match chrono::DateTime::parse_from_rfc3339(s) {
            Err(_) => format!("{field} `{s}` is not an RFC 3339 date-time"),
            Ok(t) if t.offset().local_minus_utc() != 0 => {
                format!("{field} `{s}` is not in UTC (end it with Z)")
            }
            Ok(_) => return,
        },
        Value::Null => return,
        other => format!(
            "{field} is {}, not an RFC 3339 date-time string",
            kind(other)
        ),
    };
    out.push(error(format!("{base}/{field}"), "HSP-TIMESTAMP", problem));
}

/// HSP 0.1 §3.1 and §3.8: `statement_type` says where the statement is.
fn check_statement(payload: &Map<String, Value>, base: &str, out: &mut Vec<Finding>) {
    let Some(kind) = payload.get("statement_type").and_then(Value::as_str) else {
        return;
    };
    let has_nl = payload
        .get("statement_nl")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty());
    let structured = payload
        .get("statement_structured")
        .and_then(Value::as_object);
    match kind {
        "natural_language" if !has_nl => out.push(error(
            format!("{base}/statement_nl"),
            "HSP-STATEMENT-MISMATCH",
            "statement_type is natural_language but statement_nl is missing or empty",
        )),
        "semantic_triple" | "json_ld" if structured.is_none() => out.push(error(
            format!("{base}/statement_structured"),
            "HSP-STATEMENT-MISMATCH",
            format!("statement_type is {kind} but statement_structured is missing"),
        )),
        "semantic_triple" => {
            let s = structured.unwrap_or(payload);
            let has = |keys: &[&str]| keys.iter().any(|k| s.contains_key(*k));
            let missing: Vec<&str> = [
                ("subject", has(&["subject_uri", "subject"])),
                ("predicate", has(&["predicate_uri", "predicate"])),
                ("object", has(&["object_uri", "object_literal", "object"])),
            ]
            .iter()
            .filter(|(_, ok)| !ok)
            .map(|(n, _)| *n)
            .collect();
            if !missing.is_empty() {
                out.push(error(
                    format!("{base}/statement_structured"),
                    "HSP-TRIPLE-INCOMPLETE",
                    format!(
                        "a semantic triple needs a subject, a predicate and an object; missing: {}",
                        missing.join(", ")
                    ),
                ));
            }
        }
        _ => {}
    }
}

fn check_task_result(payload: &Map<String, Value>, out: &mut Vec<Finding>) {
    let status = payload.get("status").and_then(Value::as_str);
    if matches!(status, Some("failure" | "rejected")) && !payload.contains_key("error_details") {
        out.push(error(
            "/payload/error_details",
            "HSP-ERROR-DETAILS-MISSING",
            format!(
                "a TaskResult with status {} must say why in error_details",
                status.unwrap_or_default()
            ),
        ));
    }
}

/// HSP 0.1 §4.3: an ACK's status is `received`, a NACK's `error`.
fn check_status(payload: &Map<String, Value>, want: &str, out: &mut Vec<Finding>) {
    match payload.get("status").and_then(Value::as_str) {
        Some(s) if s == want => {}
        Some(s) => out.push(error(
            "/payload/status",
            "HSP-ACK-SHAPE",
            format!("status is `{s}`; this payload's status is `{want}`"),
        )),
        None => out.push(error(
            "/payload/status",
            "HSP-ACK-SHAPE",
            format!("the payload needs \"status\": \"{want}\""),
        )),
    }
}

pub fn is_did(s: &str) -> bool {
    let mut parts = s.splitn(3, ':');
    parts.next() == Some("did")
        && parts.next().is_some_and(|m| {
            !m.is_empty()
                && m.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
        && parts.next().is_some_and(|id| {
            !id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._:%-".contains(c))
        })
}

/// An `hsp/…` MQTT topic. A segment may hold a DID (`hsp/agents/did:hsp:x`),
/// as the topics aiproto publishes to do.
pub fn is_topic(s: &str) -> bool {
    s.strip_prefix("hsp/").is_some_and(|rest| {
        !rest.is_empty()
            && rest.split('/').all(|seg| {
                !seg.is_empty()
                    && seg
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_.{}:%-".contains(c))
            })
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dids_and_topics() {
        assert!(is_did("did:hsp:ai_alpha"));
        assert!(!is_did("test_ai") && !is_did("did::x") && !is_did("did:HSP:x"));
        assert!(
            is_topic("hsp/knowledge/facts/general") && is_topic("hsp/context/session/{session_id}")
        );
        assert!(!is_topic("hsp/") && !is_topic("hsp//x") && !is_topic("any_ai"));
        assert!(
            is_topic("hsp/results/did:hsp:ai_delta") && is_topic("hsp/agents/did:aiproto:A%20B")
        );
    }
}
