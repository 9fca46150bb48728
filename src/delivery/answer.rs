//! Whether an arrival is the answer to a TaskRequest: an HSP TaskResult
//! that validates, correlates with the request's message id, names the
//! request's `request_id`, and comes from the agent asked — the request's
//! `recipient_ai_id` when that is a DID, else its `payload.target_ai_id`
//! when it names one; a request published to a topic for a capability
//! (neither names an agent) may be answered by any provider, and the
//! answering agent is named. With a trust, the result must also verify.

use serde_json::Value as Json;

use crate::protocols::{Protocol, ReadOptions, Value};
use crate::sign::message::verify_found;
use crate::sign::trust::Trust;

/// What an arrival on the callback topic is to the request.
#[derive(Debug, PartialEq)]
pub enum Judgement {
    /// Not a TaskResult correlated with this request (another exchange).
    NotForUs,
    /// It claims to answer the request but is not accepted: why.
    Refused(String),
    /// A progress report (`in_progress`, `queued`): keep waiting.
    Interim { from: String, status: String },
    /// The answer: its sender, status and text (`failure` and `rejected`
    /// carry their error details).
    Answer {
        from: String,
        status: String,
        error: Option<String>,
    },
}

/// The request being answered.
pub struct Asked<'a> {
    pub message_id: &'a str,
    pub request_id: Option<&'a str>,
    /// The agent that must answer; `None`: any provider of the capability.
    pub agent: Option<&'a str>,
}

impl<'a> Asked<'a> {
    pub fn of(request: &'a Json) -> Asked<'a> {
        let text = |v: Option<&'a Json>| v.and_then(Json::as_str);
        let did = |s: &&str| s.starts_with("did:");
        Asked {
            message_id: text(request.get("message_id")).unwrap_or_default(),
            request_id: text(request.pointer("/payload/request_id")),
            agent: text(request.get("recipient_ai_id"))
                .filter(did)
                .or(text(request.pointer("/payload/target_ai_id")).filter(did)),
        }
    }
}

/// Judges one arrival.
pub fn judge(asked: &Asked<'_>, arrival: &str, trust: Option<&Trust>) -> Judgement {
    let Ok(json) = serde_json::from_str::<Json>(arrival) else {
        return Judgement::NotForUs;
    };
    let text = |p: &str| json.pointer(p).and_then(Json::as_str);
    let is_result = text("/message_type").is_some_and(|t| t.starts_with("HSP::TaskResult_v"));
    if !is_result || text("/correlation_id") != Some(asked.message_id) {
        return Judgement::NotForUs;
    }
    let from = text("/sender_ai_id").unwrap_or_default().to_string();
    let found = Protocol::Hsp.read(arrival, &ReadOptions::default());
    let Some(found) = found
        .first()
        .filter(|f| matches!(f.value, Value::Hsp(Some(_))))
    else {
        return Judgement::Refused("it cannot be read as an HSP message".into());
    };
    if let Some(d) = found.diagnostics.iter().find(|d| d.is_error()) {
        return Judgement::Refused(format!(
            "from `{from}`, invalid: error[{}]: {}",
            d.code, d.message
        ));
    }
    if let Some(agent) = asked.agent
        && from != agent
    {
        return Judgement::Refused(format!("from `{from}`, but the request asked `{agent}`"));
    }
    if let Some(request_id) = asked.request_id
        && text("/payload/request_id") != Some(request_id)
    {
        return Judgement::Refused(format!(
            "from `{from}`, for request_id `{}`, not `{request_id}`",
            text("/payload/request_id").unwrap_or_default()
        ));
    }
    if let Some(trust) = trust
        && let Err(e) = verify_found(found, trust)
    {
        return Judgement::Refused(format!(
            "from `{from}`, and --require-signed: error[{}]: {e}",
            e.code()
        ));
    }
    let status = text("/payload/status").unwrap_or_default().to_string();
    match status.as_str() {
        "in_progress" | "queued" => Judgement::Interim { from, status },
        _ => Judgement::Answer {
            from,
            error: matches!(status.as_str(), "failure" | "rejected")
                .then(|| json.pointer("/payload/error_details").map(Json::to_string))
                .flatten(),
            status,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQUEST: &str = r#"{"message_id": "req-1", "recipient_ai_id": "did:hsp:worker", "payload": {"request_id": "r-1"}}"#;
    const RESULT: &str = r#"{"hsp_envelope_version": "1.0", "message_id": "018f4a70-0000-7000-8000-00000000c001", "correlation_id": "req-1", "sender_ai_id": "did:hsp:worker", "recipient_ai_id": "hsp/results/me", "timestamp_sent": "2024-07-05T14:00:05Z", "message_type": "HSP::TaskResult_v1.0", "protocol_version": "1.0", "communication_pattern": "response", "payload": {"result_id": "res-1", "request_id": "r-1", "executing_ai_id": "did:hsp:worker", "status": "success", "payload": {"ok": true}, "timestamp_completed": "2024-07-05T14:00:05Z"}}"#;

    fn judged(result: &str) -> Judgement {
        let request: Json = serde_json::from_str(REQUEST).unwrap();
        judge(&Asked::of(&request), result, None)
    }

    #[test]
    fn only_a_valid_result_from_the_agent_asked_for_the_request_answers() {
        assert!(
            matches!(judged(RESULT), Judgement::Answer { ref status, .. } if status == "success"),
            "{:?}",
            judged(RESULT)
        );
        let forged = RESULT.replace(
            "\"sender_ai_id\": \"did:hsp:worker\"",
            "\"sender_ai_id\": \"did:hsp:mallory\"",
        );
        assert!(
            matches!(judged(&forged), Judgement::Refused(why) if why.contains("asked `did:hsp:worker`"))
        );
        let invalid = RESULT.replace("\"status\": \"success\"", "\"status\": \"failure\"");
        assert!(
            matches!(judged(&invalid), Judgement::Refused(why) if why.contains("HSP-ERROR-DETAILS-MISSING"))
        );
        let failed = invalid.replace(
            "\"payload\": {\"ok\": true}",
            "\"error_details\": {\"error_code\": \"E1\", \"error_message\": \"disk full\"}",
        );
        assert!(
            matches!(judged(&failed), Judgement::Answer { ref error, .. } if error.as_deref().is_some_and(|e| e.contains("disk full"))),
            "{:?}",
            judged(&failed)
        );
        let other = RESULT.replace("\"request_id\": \"r-1\"", "\"request_id\": \"r-2\"");
        assert!(matches!(judged(&other), Judgement::Refused(why) if why.contains("r-2")));
        let elsewhere = RESULT.replace(
            "\"correlation_id\": \"req-1\"",
            "\"correlation_id\": \"req-9\"",
        );
        assert_eq!(judged(&elsewhere), Judgement::NotForUs);
        let progress = RESULT.replace("\"status\": \"success\"", "\"status\": \"in_progress\"");
        assert!(matches!(judged(&progress), Judgement::Interim { .. }));
    }
}
