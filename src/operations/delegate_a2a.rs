//! A TaskRequest to an A2A agent and the TaskResult its task becomes: what
//! `aiproto request --via a2a+http(s)://AGENT` runs. The request goes as
//! the `SendMessage` the shared mapping gives, blocking (the agent answers
//! when the task ends or needs input). The answer (a task, or the agent's
//! direct message) comes back as an HSP TaskResult replying to the
//! request, in its version: the task's state as the status
//! ([`bridging::status_of`]), its artifacts (or the message's parts) as
//! the result, its status message as the error's reason, and the whole
//! A2A answer kept under `x_a2a`. The HTTP exchange is the correlation:
//! nobody else can answer on it.

use std::time::Duration;

use serde_json::{Map, Value as Json, json};

use super::bridging;
use super::composing::{self, HspFields};
use super::delegate::{Answered, DelegateError};
use crate::convert::answers::is_task_request;
use crate::protocols::hsp::compose::Kind;
use crate::protocols::hsp::payload_map::UNKNOWN_AI;
use crate::protocols::{Found, Value};
use crate::transport::Transport;
use crate::transport::a2a::{A2aTransport, CardCheck, Mode};

/// Where and how the request goes.
pub struct A2aDelegation {
    /// The agent's base URL, `http(s)://HOST[:PORT]`.
    pub base: String,
    /// The bearer token for that host only.
    pub token: Option<String>,
    /// What the agent's card must pass first (its signature).
    pub card_check: Option<CardCheck>,
    /// How long the agent has to answer.
    pub timeout: Duration,
}

/// Sends the HSP TaskRequest `found` (read from `text`) to the agent and
/// returns its answer as an HSP TaskResult.
pub fn delegate_a2a(
    found: &Found,
    text: &str,
    d: A2aDelegation,
) -> Result<Answered, DelegateError> {
    let Value::Hsp(Some(message)) = &found.value else {
        return Err(DelegateError::NotATaskRequest);
    };
    if !is_task_request(&message.json) {
        return Err(DelegateError::NotATaskRequest);
    }
    let call =
        crate::delivery::a2a_call::send_message(found, text).ok_or(DelegateError::Unwritable)?;
    let base = d.base.clone();
    let mut agent = A2aTransport::new(d.base, Mode::Wait, d.token)
        .with_card_check(d.card_check)
        .with_timeout(d.timeout);
    let mut reply = None;
    agent.send(&[call], &mut |line| {
        reply = Some(line.to_string());
        Ok(())
    })?;
    let reply = reply.ok_or_else(|| DelegateError::Answer("the agent answered nothing".into()))?;
    let answer: Json = serde_json::from_str(&reply)
        .map_err(|e| DelegateError::Answer(format!("the agent's answer is not JSON ({e})")))?;
    let reading = read_answer(&answer)?;
    let from = reading
        .sender
        .clone()
        .unwrap_or_else(|| UNKNOWN_AI.to_string());
    let mut payload = Map::new();
    payload.insert("status".into(), reading.status.into());
    payload.insert("executing_ai_id".into(), from.clone().into());
    if let Some(result) = &reading.result {
        payload.insert("payload".into(), result.clone());
    }
    let failed = !matches!(reading.status, "success" | "in_progress" | "queued");
    let fields = HspFields {
        original: Some(message.json.clone()),
        kind: Some(Kind::TaskResult),
        from: Some(from.clone()),
        payload,
        error_code: failed.then(|| reading.state.clone()),
        reason: failed.then(|| reading.said.clone()).flatten(),
        ..HspFields::default()
    };
    let written = composing::hsp(fields).map_err(|e| DelegateError::Answer(e.to_string()))?;
    let mut result: Json = serde_json::from_str(&written)
        .map_err(|e| DelegateError::Answer(format!("the TaskResult written is not JSON ({e})")))?;
    // Nothing of the A2A answer is lost.
    result["x_a2a"] = answer;
    let error = result
        .pointer("/payload/error_details")
        .filter(|e| !e.is_null())
        .map(Json::to_string);
    Ok(Answered {
        text: result.to_string(),
        // An A2A agent has no HSP id unless its answer names one: then it
        // is named by where it was reached.
        from: reading.sender.unwrap_or(base),
        status: reading.status.to_string(),
        error,
    })
}

/// What an A2A answer says, in HSP's terms.
#[derive(Debug, PartialEq)]
struct Reading {
    /// The task's state (`TASK_STATE_…`), or `direct message`.
    state: String,
    status: &'static str,
    /// The artifacts' content (or the message's): one part's data or text
    /// as itself, else the parts or artifacts as written.
    result: Option<Json>,
    /// The status message's text.
    said: Option<String>,
    /// The HSP id the answer names (`metadata.x_sender`).
    sender: Option<String>,
}

/// Reads a SendMessage result: `{"task": …}`, `{"message": …}`, or the
/// task or message itself.
fn read_answer(answer: &Json) -> Result<Reading, DelegateError> {
    let sender = |object: &Json| {
        object
            .pointer("/metadata/x_sender")
            .and_then(Json::as_str)
            .map(str::to_string)
    };
    if let Some(task) = answer
        .get("task")
        .or_else(|| answer.get("status").map(|_| answer))
    {
        let state = task
            .pointer("/status/state")
            .and_then(Json::as_str)
            .ok_or_else(|| DelegateError::Answer("the agent's task has no state".into()))?;
        let artifacts: Vec<&Json> = task
            .get("artifacts")
            .and_then(Json::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        let result = match artifacts.as_slice() {
            [] => None,
            [one] => Some(content(one.get("parts").unwrap_or(&Json::Null))),
            many => Some(json!(many)),
        };
        return Ok(Reading {
            state: state.to_string(),
            status: bridging::status_of(state),
            result,
            said: task
                .pointer("/status/message/parts")
                .and_then(Json::as_array)
                .map(|parts| texts(parts))
                .filter(|t| !t.is_empty()),
            sender: sender(task),
        });
    }
    if let Some(message) = answer
        .get("message")
        .or_else(|| answer.get("messageId").map(|_| answer))
    {
        return Ok(Reading {
            state: "direct message".into(),
            status: "success",
            result: Some(content(message.get("parts").unwrap_or(&Json::Null))),
            said: None,
            sender: sender(message),
        });
    }
    Err(DelegateError::Answer(
        "the agent answered neither a task nor a message".into(),
    ))
}

/// Parts as a result: one data part's data, one text part's text, else the
/// parts as written.
fn content(parts: &Json) -> Json {
    match parts.as_array().map(Vec::as_slice) {
        Some([one]) => one
            .get("data")
            .or_else(|| one.get("text"))
            .cloned()
            .unwrap_or_else(|| parts.clone()),
        _ => parts.clone(),
    }
}

/// The text parts' texts, one per line.
fn texts(parts: &[Json]) -> String {
    parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Json::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_answer_shape_reads_as_a_status_and_a_result() {
        let task = json!({"id": "t", "status": {"state": "TASK_STATE_REJECTED",
            "message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "not mine"}]}},
            "artifacts": [{"artifactId": "a", "parts": [{"data": {"n": 1}}]}],
            "metadata": {"x_sender": "did:hsp:worker"}});
        for answer in [json!({"task": task}), task.clone()] {
            let r = read_answer(&answer).unwrap();
            assert_eq!(r.status, "rejected");
            assert_eq!(r.result, Some(json!({"n": 1})));
            assert_eq!(r.said.as_deref(), Some("not mine"));
            assert_eq!(r.sender.as_deref(), Some("did:hsp:worker"));
        }
        let message = json!({"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}, {"text": "there"}]});
        let r = read_answer(&json!({"message": message})).unwrap();
        assert_eq!(
            (r.status, r.result.unwrap()[1]["text"].clone()),
            ("success", json!("there"))
        );
        for (state, status) in [
            ("TASK_STATE_COMPLETED", "success"),
            ("TASK_STATE_FAILED", "failure"),
            ("TASK_STATE_CANCELED", "failure"),
            ("TASK_STATE_INPUT_REQUIRED", "failure"),
            ("TASK_STATE_WORKING", "in_progress"),
        ] {
            let r = read_answer(&json!({"task": {"id": "t", "status": {"state": state}}})).unwrap();
            assert_eq!(r.status, status, "{state}");
            assert_eq!(r.result, None);
        }
        assert!(read_answer(&json!({"tasks": []})).is_err());
        assert!(read_answer(&json!({"task": {"id": "t", "status": {}}})).is_err());
    }
}
