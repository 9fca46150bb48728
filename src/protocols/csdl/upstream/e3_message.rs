//! E3's two message dicts: the pydantic `CSDLMessage` its agents pass on
//! the message bus, and the CBP message (what a CBP frame carries, as E3's
//! `CBPMessage.to_dict` writes it: `type`, `sender`, `receiver`,
//! `content`, `metadata`, `timestamp`, `message_id`, `priority`). A CBP
//! message decoded from a frame has a `cbp` key with the frame's facts
//! (and the frame's damage, when it could not be decoded).

use serde_json::{Map, Value};

use super::{Shape, SpecMessage, at, one_of, show, string_field};
use crate::protocols::json_doc::Finding;

/// `message_type` of a CSDLMessage, and the CSDL 1.0 intent for it.
const PYDANTIC_TYPES: [(&str, &str); 7] = [
    ("query", "query"),
    ("response", "response"),
    ("request", "request"),
    ("notification", "notify"),
    ("error", "error"),
    ("coordination", "request"),
    ("synthesis", "response"),
];

const PYDANTIC_PRIORITIES: [&str; 4] = ["low", "normal", "high", "urgent"];

/// The CSDLMessage as a CSDL 1.0 message: `sender_id` → `from`,
/// `recipient_id` → `to` (none: a broadcast), `content` → `v`,
/// `message_id`/`correlation_id`/`in_response_to`/`timestamp` → `m.id`,
/// `m.thread`, `m.parent`, `m.timestamp`; the type, priority and metadata
/// kept under `m.e3`. Checked as pydantic would: `content` an object, the
/// enums, the ids strings.
pub fn pydantic(map: &Map<String, Value>, findings: &mut Vec<Finding>) -> Value {
    let (_, intent) = type_and_intent(map, "message_type", &PYDANTIC_TYPES, findings);
    one_of(map, "priority", &PYDANTIC_PRIORITIES, findings);
    require_object(map, "content", true, findings);
    require_object(map, "metadata", false, findings);
    let mut spec = SpecMessage::new(intent, Shape::E3Message);
    spec.from = string_field(map, "sender_id", findings);
    spec.to = string_field(map, "recipient_id", findings);
    spec.value = map.get("content").cloned();
    for (key, slot) in [
        ("message_id", "id"),
        ("correlation_id", "thread"),
        ("in_response_to", "parent"),
        ("timestamp", "timestamp"),
    ] {
        if let Some(value) = string_field(map, key, findings) {
            spec.slots.push((slot, value));
        }
    }
    let mapped = [
        "sender_id",
        "recipient_id",
        "content",
        "message_id",
        "correlation_id",
        "in_response_to",
        "timestamp",
    ];
    keep_the_rest(map, &mapped, &mut spec);
    spec.into_value()
}

/// CBP's message types (`MESSAGE_TYPE_TO_ID`), and the CSDL 1.0 intent for
/// each: request, response, context, handoff, feedback, sync, delta,
/// discover, register, heartbeat.
const CBP_TYPES: [(&str, &str); 10] = [
    ("req", "request"),
    ("res", "response"),
    ("ctx", "notify"),
    ("hnd", "request"),
    ("fbk", "response"),
    ("syn", "notify"),
    ("delta", "notify"),
    ("dsc", "query"),
    ("reg", "notify"),
    ("hbt", "notify"),
];

const CBP_PRIORITIES: [&str; 6] = ["low", "normal", "medium", "high", "critical", "urgent"];

/// The codes a decoded frame's damage may carry (see [`super::cbp`]).
const FRAME_CODES: [&str; 5] = [
    "CSDL-CBP-FRAME",
    "CSDL-CBP-CRC",
    "CSDL-CBP-PAYLOAD",
    "CSDL-CBP-UNRESOLVED",
    "CSDL-CBP-DELTA",
];

/// The CBP message as a CSDL 1.0 message: `sender`/`receiver` → `from`/`to`,
/// `content` → `v`, `message_id` → `m.id`, the Unix `timestamp` → an RFC
/// 3339 `m.timestamp`; type, priority, metadata and the frame's facts kept
/// under `m.e3`. A type CBP does not define is refused: E3's encoder would
/// silently send it as a request.
pub fn cbp(map: &Map<String, Value>, findings: &mut Vec<Finding>) -> Value {
    if let Some(Value::Object(frame)) = map.get("cbp") {
        frame_findings(frame, findings);
        if !map.contains_key("type") {
            // Only the damage of a frame that could not be decoded.
            let mut spec = SpecMessage::new("notify", Shape::CbpMessage);
            spec.kept.insert("cbp".into(), Value::Object(frame.clone()));
            return spec.into_value();
        }
    }
    let (kind, intent) = type_and_intent(map, "type", &CBP_TYPES, findings);
    if kind.is_none()
        && let Some(f) = findings.last_mut()
    {
        f.diagnostic.hint = Some(
            "E3's encoder sends a type it does not know as `req` (a request), changing what the message asks".into(),
        );
    }
    if map.get("priority").is_some_and(Value::is_string) {
        one_of(map, "priority", &CBP_PRIORITIES, findings);
    }
    require_object(map, "content", true, findings);
    require_object(map, "metadata", false, findings);
    let mut spec = SpecMessage::new(intent, Shape::CbpMessage);
    spec.from = string_field(map, "sender", findings);
    spec.to = string_field(map, "receiver", findings);
    spec.value = map.get("content").cloned();
    let mut mapped = vec!["sender", "receiver", "content"];
    match map.get("message_id") {
        Some(Value::String(id)) => spec.slots.push(("id", id.clone())),
        Some(Value::Number(id)) => spec.slots.push(("id", id.to_string())),
        _ => {}
    }
    if map
        .get("message_id")
        .is_some_and(|v| v.is_string() || v.is_number())
    {
        mapped.push("message_id");
    }
    if let Some(stamp) = map
        .get("timestamp")
        .and_then(Value::as_f64)
        .and_then(rfc3339)
    {
        spec.slots.push(("timestamp", stamp));
        mapped.push("timestamp");
    }
    keep_the_rest(map, &mapped, &mut spec);
    spec.into_value()
}

/// A message type that must be one of `table`'s, and the CSDL 1.0 intent
/// it maps to (`notify` when it maps to none).
fn type_and_intent(
    map: &Map<String, Value>,
    key: &str,
    table: &[(&str, &'static str)],
    findings: &mut Vec<Finding>,
) -> (Option<String>, &'static str) {
    let names: Vec<&str> = table.iter().map(|(t, _)| *t).collect();
    let kind = one_of(map, key, &names, findings);
    let intent = kind
        .as_deref()
        .and_then(|k| table.iter().find(|(t, _)| *t == k))
        .map_or("notify", |(_, intent)| intent);
    (kind, intent)
}

/// A Unix time in seconds as RFC 3339 (UTC).
fn rfc3339(seconds: f64) -> Option<String> {
    if !seconds.is_finite() || !(0.0..=253_402_300_799.0).contains(&seconds) {
        return None;
    }
    let whole = seconds.trunc();
    let nanos = ((seconds - whole) * 1e9).round().min(999_999_999.0);
    // In range: checked above.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let stamp = chrono::DateTime::from_timestamp(whole as i64, nanos as u32)?;
    Some(stamp.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

/// The findings a decoded frame carries: its damage, and a delta whose
/// base the input does not hold.
fn frame_findings(frame: &Map<String, Value>, findings: &mut Vec<Finding>) {
    let Some(Value::Object(damage)) = frame.get("error") else {
        return;
    };
    let code = damage.get("code").and_then(Value::as_str).unwrap_or("");
    let code = FRAME_CODES
        .iter()
        .find(|c| **c == code)
        .copied()
        .unwrap_or("CSDL-CBP-FRAME");
    let message = damage
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("the frame could not be decoded")
        .to_string();
    let finding = if code == "CSDL-CBP-DELTA" {
        Finding::warning("/cbp", code, message)
    } else {
        Finding::error("/cbp", code, message)
    };
    findings.push(finding);
}

/// A field that must be a JSON object (when present, or always).
fn require_object(
    map: &Map<String, Value>,
    key: &str,
    required: bool,
    findings: &mut Vec<Finding>,
) {
    match map.get(key) {
        Some(Value::Object(_)) => {}
        None if !required => {}
        None => findings.push(Finding::error(
            "",
            "CSDL-MISSING",
            format!("the message has no `{key}`"),
        )),
        Some(other) => findings.push(Finding::error(
            at(key),
            "CSDL-FIELD-TYPE",
            format!("`{key}` is an object, not {}", show(other)),
        )),
    }
}

/// Everything not mapped to a 1.0 field is kept under `m.e3`.
fn keep_the_rest(map: &Map<String, Value>, mapped: &[&str], spec: &mut SpecMessage) {
    for (key, value) in map {
        if !mapped.contains(&key.as_str()) {
            spec.kept.insert(key.clone(), value.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{shape_of, to_spec};
    use super::*;
    use serde_json::json;

    fn mapped(v: Value) -> (Value, Vec<&'static str>) {
        let map = v.as_object().unwrap();
        let m = to_spec(map, shape_of(map));
        let mut codes: Vec<_> = m
            .findings
            .iter()
            .map(|f| f.diagnostic.code)
            .filter(|c| *c != "CSDL-UPSTREAM")
            .collect();
        codes.sort_unstable();
        (m.spec, codes)
    }

    #[test]
    fn a_pydantic_response_keeps_its_ids_and_parties() {
        let (spec, codes) = mapped(json!({
            "message_id": "7f1c", "message_type": "response", "sender_id": "architect",
            "recipient_id": "oracle", "content": {"T": "r", "C": {"s": "ok"}},
            "priority": "normal", "metadata": {}, "timestamp": "2026-11-26T10:00:00.123456",
            "correlation_id": null, "in_response_to": "41aa"
        }));
        assert!(codes.is_empty(), "{codes:?}");
        assert_eq!(spec["from"], "architect");
        assert_eq!(spec["to"], "oracle");
        assert_eq!(spec["intent"], "response");
        assert_eq!(spec["m"]["id"], "7f1c");
        assert_eq!(spec["m"]["parent"], "41aa");
        assert_eq!(spec["m"]["e3"]["message_type"], "response");
    }

    #[test]
    fn pydantic_would_refuse_these() {
        let (_, codes) = mapped(json!({
            "message_id": 3, "message_type": "shout", "content": "x", "priority": "meh"
        }));
        assert_eq!(
            codes,
            vec![
                "CSDL-FIELD-TYPE",
                "CSDL-FIELD-TYPE",
                "CSDL-UNMAPPED",
                "CSDL-UNMAPPED"
            ]
        );
    }

    #[test]
    fn a_cbp_message_maps_its_unix_time_and_refuses_unknown_types() {
        let (spec, codes) = mapped(json!({
            "type": "hnd", "sender": "analyzer", "receiver": "strategist",
            "content": {"task": "x"}, "metadata": {}, "timestamp": 1764151200,
            "message_id": 42, "priority": "high"
        }));
        assert!(codes.is_empty(), "{codes:?}");
        assert_eq!(spec["intent"], "request");
        assert_eq!(spec["m"]["timestamp"], "2025-11-26T10:00:00Z");
        assert_eq!(spec["m"]["id"], "42");
        assert_eq!(spec["m"]["e3"]["type"], "hnd");
        let (_, codes) =
            mapped(json!({"type": "analysis", "sender": "A", "receiver": "B", "content": {}}));
        assert_eq!(codes, vec!["CSDL-UNMAPPED"]);
    }

    #[test]
    fn a_frame_s_damage_is_its_finding() {
        let (_, codes) =
            mapped(json!({"cbp": {"frame": 2, "error": {"code": "CSDL-CBP-CRC", "message": "m"}}}));
        assert_eq!(codes, vec!["CSDL-CBP-CRC"]);
        // A code a JSON file makes up is not taken as given.
        let (_, codes) = mapped(json!({"cbp": {"error": {"code": "MADE-UP"}}}));
        assert_eq!(codes, vec!["CSDL-CBP-FRAME"]);
    }
}
