//! What the A2A bridge does below its HTTP face: it keeps the HSP
//! agents' live advertisements (the directory, watched on the broker),
//! turns an A2A message into an HSP TaskRequest for a provider, and an
//! HSP TaskResult back into the A2A task's state, artifact and status
//! message. The mapping is the one `convert` uses for these payloads
//! (`protocols::a2a::hsp_payload`): parameters are the message's data
//! part, or `{"text": …}` for text alone; a result's payload is the
//! artifact.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use chrono::Utc;
use serde_json::{Map, Value, json};

use crate::protocols::hsp::Version;
use crate::protocols::hsp::compose::{self, Draft, Kind};
use crate::protocols::hsp::directory::{ADVERTISEMENTS, Directory};
use crate::protocols::{Found, Protocol, ReadOptions};
use crate::protocols::{a2a, json_doc};
use crate::sign::message::verify_found;
use crate::sign::trust::Trust;
use crate::transport::mqtt::MqttUri;
use crate::transport::{self, Answer, Ended, Endpoint, Listen, Settings, TransportError};

/// The media types the bridge takes in parts and gives in artifacts:
/// what an HSP payload can carry (text, JSON).
pub const MEDIA_TYPES: [&str; 2] = ["text/plain", "application/json"];

/// One capability an HSP agent advertises: an A2A skill of the bridge.
#[derive(Debug, Clone, PartialEq)]
pub struct Provider {
    /// The advertising agent (the TaskRequest's recipient).
    pub agent: String,
    /// Its `capability_id`: the skill's id.
    pub capability: String,
    /// The HSP version it advertised in (it is asked in the same).
    pub version: Version,
    /// The advertisement's payload.
    pub ad: Map<String, Value>,
}

impl Provider {
    /// The A2A `AgentSkill` of this capability. A skill needs tags: the
    /// advertisement's, or its capability id.
    pub fn skill(&self) -> Value {
        let text = |k: &str| self.ad.get(k).and_then(Value::as_str);
        let tags: Vec<Value> = match self.ad.get("tags").and_then(Value::as_array) {
            Some(tags) if !tags.is_empty() => tags.clone(),
            _ => vec![json!(self.capability)],
        };
        json!({
            "id": self.capability,
            "name": text("name").unwrap_or(&self.capability),
            "description": format!(
                "{} (HSP capability of {})",
                text("description").unwrap_or("no description"),
                self.agent
            ),
            "tags": tags,
            "inputModes": MEDIA_TYPES,
            "outputModes": MEDIA_TYPES,
        })
    }
}

/// Signs the Agent Cards a face serves, with one keystore key bound to the
/// card's name (A2A 1.0 section 8.4; `sign::card`).
pub struct CardSigner {
    pub key: crate::sign::key::SigningKey,
    pub key_id: String,
}

impl CardSigner {
    /// The card with this key's signature added.
    pub fn sign(&self, card: &Value) -> Value {
        // A card built by a face is an object without `signatures`: signing
        // it cannot fail; were it to, the card goes out unsigned, never
        // with a signature over other bytes.
        crate::sign::card::sign_card(card, &self.key, &self.key_id).unwrap_or_else(|_| card.clone())
    }
}

/// The directory the bridge keeps, shared between its watcher and the
/// requests that read it.
pub type SharedDirectory = Arc<Mutex<Directory>>;

/// The live capabilities, one per provider and id, in a stable order.
pub fn providers(directory: &SharedDirectory) -> Vec<Provider> {
    let directory = directory.lock().unwrap_or_else(|e| e.into_inner());
    directory
        .live(Utc::now())
        .into_iter()
        .map(|(agent, version, ad)| Provider {
            agent: agent.to_string(),
            version,
            capability: ad
                .get("capability_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            ad: ad.clone(),
        })
        .collect()
}

/// When the directory last took an advertisement in.
pub fn changed(directory: &SharedDirectory) -> Option<chrono::DateTime<Utc>> {
    directory
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .changed()
}

/// Watches the broker's advertisements into `directory` until `stop` is
/// set (or the broker is lost: the error). With a `trust`, only an
/// advertisement that verifies with a key trusted for its sender is kept:
/// on an open broker anyone may claim to be any agent.
pub fn watch(
    broker: MqttUri,
    settings: Settings,
    directory: SharedDirectory,
    trust: Option<Arc<Trust>>,
    stop: Arc<AtomicBool>,
) -> Result<Ended, TransportError> {
    let mut uri = broker;
    uri.topic = None;
    let listen = Listen {
        filters: vec![ADVERTISEMENTS.to_string()],
        quiet: true,
        stop,
        ..Listen::default()
    };
    let mut peer = transport::open(Endpoint::Mqtt(uri), settings);
    peer.receive(&listen, &mut |arrival| {
        if let Ok(message) = serde_json::from_str::<Value>(arrival.text) {
            if let Some(trust) = &trust {
                let found = Protocol::Hsp.read(arrival.text, &ReadOptions::default());
                let verified = found
                    .first()
                    .is_some_and(|f| verify_found(f, trust).is_ok());
                if !verified {
                    eprintln!(
                        "aiproto: an advertisement on {} was not kept: it does not verify with a key trusted for its sender (--require-signed)",
                        arrival.origin
                    );
                    return Ok(Answer::default());
                }
            }
            let mut directory = directory.lock().unwrap_or_else(|e| e.into_inner());
            directory.see(&message);
        }
        Ok(Answer::default())
    })
}

/// The HSP TaskRequest asking `provider` for what the A2A `message` says,
/// sent as `from` with its answer to `callback`, by `deadline` (RFC 3339):
/// its text, read as an HSP message. The whole A2A message travels too,
/// as `payload.a2a_message`, so that a worker can read what the HSP
/// parameters do not say (its ids, its metadata, file parts).
pub fn task_request(
    message: &Value,
    from: &str,
    provider: &Provider,
    callback: &str,
    deadline: &str,
) -> Result<(String, Found), String> {
    let mut payload = Map::new();
    payload.insert("capability_id_filter".into(), json!(provider.capability));
    payload.insert("target_ai_id".into(), json!(provider.agent));
    payload.insert("parameters".into(), parameters(message));
    payload.insert("callback_address".into(), json!(callback));
    payload.insert("deadline_timestamp".into(), json!(deadline));
    payload.insert("a2a_message".into(), message.clone());
    let envelope = compose::compose(Draft {
        version: provider.version,
        kind: Kind::TaskRequest,
        from: from.to_string(),
        to: Some(provider.agent.clone()),
        correlation_id: None,
        requires_ack: false,
        payload,
    })
    .map_err(|e| e.to_string())?;
    let text = serde_json::to_string(&envelope).map_err(|e| e.to_string())?;
    let found = Protocol::Hsp
        .read(&text, &ReadOptions::default())
        .into_iter()
        .next()
        .ok_or("the TaskRequest cannot be read back")?;
    if let Some(d) = found.diagnostics.iter().find(|d| d.is_error()) {
        return Err(format!(
            "the TaskRequest made of this message is invalid: error[{}]: {}",
            d.code, d.message
        ));
    }
    Ok((text, found))
}

/// The TaskRequest parameters of an A2A message: its one data part's
/// object, `{"text": …}` for text parts alone, else every part under
/// `parts` with the text joined beside them.
pub fn parameters(message: &Value) -> Value {
    let parts = message
        .get("parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    let data: Vec<&Value> = parts.iter().filter_map(|p| p.get("data")).collect();
    match (texts.len(), data.as_slice()) {
        (_, []) if texts.len() == parts.len() => json!({ "text": texts.join("\n") }),
        (0, [Value::Object(object)]) if parts.len() == 1 => Value::Object(object.clone()),
        _ => json!({ "text": texts.join("\n"), "parts": parts }),
    }
}

/// The media type of a part that the bridge cannot carry, if any: a
/// file (`raw`, `url`) or a part declaring another type.
pub fn unsupported_media(message: &Value) -> Option<String> {
    let parts = message.get("parts").and_then(Value::as_array)?;
    parts.iter().find_map(|part| {
        let declared = part.get("mediaType").and_then(Value::as_str);
        let file = part.get("raw").is_some() || part.get("url").is_some();
        match declared {
            Some(t) if !MEDIA_TYPES.contains(&t.split(';').next().unwrap_or(t).trim()) => {
                Some(t.to_string())
            }
            None if file => Some("a file part (raw or url) with no media type".into()),
            _ => None,
        }
    })
}

/// What an HSP answer makes of the A2A task.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TaskOutcome {
    /// The A2A task state.
    pub state: &'static str,
    /// The artifacts, in order (one of the same id again appends to it).
    pub artifacts: Vec<Value>,
    /// The status message's text, when there is something to say.
    pub said: Option<String>,
    /// The status message the agent wrote itself (an A2A answer).
    pub status_message: Option<Value>,
    /// A direct reply: the agent answers with a message, not a task.
    pub reply: Option<Value>,
}

/// The A2A task states an agent may report.
const STATES: [&str; 8] = [
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_AUTH_REQUIRED",
];

/// The key of a TaskResult payload that answers in A2A's own terms.
pub const A2A_ANSWER: &str = "a2a";

/// A TaskResult payload `{"a2a": {…}}`: the agent's answer in A2A terms,
/// for what HSP cannot say (a state that waits for input, file parts,
/// several artifacts, a direct message). Its `state`, `artifacts`,
/// `statusMessage` and `message` are checked against the A2A schema; an
/// answer that does not pass fails the task, saying why.
fn a2a_answer(content: &Value, status: &str) -> Option<TaskOutcome> {
    let answer = content
        .as_object()
        .filter(|o| o.len() == 1)?
        .get(A2A_ANSWER)?;
    let Some(answer) = answer.as_object() else {
        return Some(invalid_answer(vec![format!(
            "`{A2A_ANSWER}` must be an object"
        )]));
    };
    let mut errors = Vec::new();
    let mut check = |value: &Value, definition: &str, at: &str| {
        errors.extend(
            a2a_errors(value, definition)
                .into_iter()
                .map(|e| format!("{at}{e}")),
        );
    };
    let artifacts: Vec<Value> = match answer.get("artifacts") {
        None => Vec::new(),
        Some(Value::Array(all)) => all.clone(),
        Some(_) => {
            check(&json!(null), "Artifact", "artifacts");
            Vec::new()
        }
    };
    for (i, artifact) in artifacts.iter().enumerate() {
        check(artifact, "Artifact", &format!("artifacts/{i}"));
    }
    for key in ["statusMessage", "message"] {
        if let Some(message) = answer.get(key) {
            check(message, "Message", key);
        }
    }
    let state = match answer.get("state").and_then(Value::as_str) {
        None => state_of(status),
        Some(s) => match STATES.iter().find(|known| **known == s) {
            Some(known) => known,
            None => {
                errors.push(format!("state `{s}` is not an A2A 1.0 task state"));
                "TASK_STATE_FAILED"
            }
        },
    };
    if !errors.is_empty() {
        return Some(invalid_answer(errors));
    }
    Some(TaskOutcome {
        state,
        artifacts,
        said: None,
        status_message: answer.get("statusMessage").cloned(),
        reply: answer.get("message").cloned(),
    })
}

fn invalid_answer(errors: Vec<String>) -> TaskOutcome {
    TaskOutcome {
        state: "TASK_STATE_FAILED",
        said: Some(format!(
            "the agent's A2A answer is not valid (InvalidAgentResponse): {}",
            errors.join("; ")
        )),
        ..TaskOutcome::default()
    }
}

/// The A2A state of an HSP TaskResult status.
pub fn state_of(status: &str) -> &'static str {
    match status {
        "success" => "TASK_STATE_COMPLETED",
        "in_progress" => "TASK_STATE_WORKING",
        "queued" => "TASK_STATE_SUBMITTED",
        "rejected" => "TASK_STATE_REJECTED",
        _ => "TASK_STATE_FAILED",
    }
}

/// The HSP TaskResult status of an A2A task state (the inverse of
/// [`state_of`]): a task that ended any other way (canceled, waiting for
/// input or authorization a one-shot request cannot give) is a failure.
pub fn status_of(state: &str) -> &'static str {
    match state {
        "TASK_STATE_COMPLETED" => "success",
        "TASK_STATE_WORKING" => "in_progress",
        "TASK_STATE_SUBMITTED" => "queued",
        "TASK_STATE_REJECTED" => "rejected",
        _ => "failure",
    }
}

/// The numbers of a JSON text that a JSON reader would read as another
/// number (beyond a double's precision), each as `pointer: literal`.
pub fn inexact_numbers(text: &str) -> Vec<String> {
    json_doc::numbers::inexact(text)
        .into_iter()
        .map(|f| {
            let (start, end) = crate::json_locate::locate_span(text, &f.pointer);
            format!("{} ({})", f.pointer, &text[start..end])
        })
        .collect()
}

/// The task's outcome from the TaskResult `text`: its status as the
/// state, its payload as the artifact (a text part for a string, a data
/// part for JSON), its error details as the status message. A payload
/// holding a number that JSON readers would change goes as its text,
/// exactly as written, in a text part of type application/json: said so.
pub fn outcome(text: &str, capability: &str) -> TaskOutcome {
    let json: Value = serde_json::from_str(text).unwrap_or_default();
    let payload = json.get("payload").cloned().unwrap_or_default();
    let status = payload.get("status").and_then(Value::as_str).unwrap_or("");
    if let Some(answer) = payload
        .get("payload")
        .and_then(|content| a2a_answer(content, status))
    {
        return answer;
    }
    let inexact: Vec<String> = inexact_numbers(text)
        .into_iter()
        .filter(|n| n.starts_with("/payload/payload"))
        .collect();
    let artifact = payload.get("payload").map(|content| {
        let id = payload
            .get("result_id")
            .and_then(Value::as_str)
            .map_or_else(compose::new_id, str::to_string);
        if inexact.is_empty() {
            artifact(&id, capability, content)
        } else {
            let (start, end) = crate::json_locate::locate_span(text, "/payload/payload");
            let part = json!({ "text": &text[start..end], "mediaType": "application/json" });
            json!({ "artifactId": id, "name": capability, "parts": [part] })
        }
    });
    let exactly = (!inexact.is_empty()).then(|| {
        format!(
            "the result holds numbers a JSON reader would change ({}): the artifact carries it as written, as text",
            inexact.join(", ")
        )
    });
    let said = payload.get("error_details").map(|e| {
        let message = e.get("error_message").and_then(Value::as_str);
        let code = e.get("error_code").and_then(Value::as_str);
        match (code, message) {
            (Some(code), Some(message)) => format!("{code}: {message}"),
            (None, Some(message)) => message.to_string(),
            _ => e.to_string(),
        }
    });
    TaskOutcome {
        state: state_of(status),
        artifacts: artifact.into_iter().collect(),
        said: match (said, exactly) {
            (Some(said), Some(exactly)) => Some(format!("{said}; {exactly}")),
            (said, exactly) => said.or(exactly),
        },
        ..TaskOutcome::default()
    }
}

/// A plain (non-HSP) reply as the task's outcome: completed, the reply as
/// a text artifact.
pub fn plain_outcome(text: &str, capability: &str) -> TaskOutcome {
    TaskOutcome {
        state: "TASK_STATE_COMPLETED",
        artifacts: vec![artifact(&compose::new_id(), capability, &json!(text))],
        ..TaskOutcome::default()
    }
}

fn artifact(id: &str, capability: &str, content: &Value) -> Value {
    let part = match content {
        Value::String(text) => json!({ "text": text, "mediaType": "text/plain" }),
        other => json!({ "data": other, "mediaType": "application/json" }),
    };
    json!({ "artifactId": id, "name": capability, "parts": [part] })
}

/// The error findings of `value` read as the A2A definition `name` (a
/// request's params), one line each: `/pointer: message [code]`.
pub fn a2a_errors(value: &Value, name: &str) -> Vec<String> {
    a2a::object_findings(value, name, "")
        .into_iter()
        .filter(|f| f.diagnostic.is_error())
        .map(|f| {
            format!(
                "{}: {} [{}]",
                if f.pointer.is_empty() {
                    "/"
                } else {
                    &f.pointer
                },
                f.diagnostic.message,
                f.diagnostic.code
            )
        })
        .collect()
}

/// The A2A 1.0 method a name means: itself, its 0.3 name
/// (`message/send`), or the same letters in another case.
pub fn method_meant(name: &str) -> Option<&'static str> {
    a2a::kind::METHODS
        .iter()
        .find(|(m, old)| *old == name || m.name.eq_ignore_ascii_case(name))
        .map(|(m, _)| m.name)
}

/// The terminal A2A task states.
pub fn is_terminal(state: &str) -> bool {
    a2a::TERMINAL.contains(&state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_follow_the_convert_mapping() {
        let text = json!({"parts": [{"text": "hello"}, {"text": "world"}]});
        assert_eq!(parameters(&text), json!({"text": "hello\nworld"}));
        let data = json!({"parts": [{"data": {"n": 1}}]});
        assert_eq!(parameters(&data), json!({"n": 1}));
        let mixed = json!({"parts": [{"text": "see"}, {"data": [1, 2]}]});
        assert_eq!(parameters(&mixed)["text"], json!("see"));
        assert_eq!(parameters(&mixed)["parts"][1]["data"], json!([1, 2]));
    }

    #[test]
    fn files_and_other_media_are_named() {
        let image = json!({"parts": [{"url": "https://x/y.png", "mediaType": "image/png"}]});
        assert_eq!(unsupported_media(&image).as_deref(), Some("image/png"));
        let raw = json!({"parts": [{"raw": "AAAA"}]});
        assert!(unsupported_media(&raw).is_some());
        let fine = json!({"parts": [{"text": "x", "mediaType": "text/plain; charset=utf-8"}]});
        assert_eq!(unsupported_media(&fine), None);
    }

    #[test]
    fn results_become_states_artifacts_and_status_messages() {
        let done =
            r#"{"payload": {"result_id": "r1", "status": "success", "payload": {"ok": true}}}"#;
        let o = outcome(done, "echo");
        assert_eq!(o.state, "TASK_STATE_COMPLETED");
        assert_eq!(o.artifacts[0]["parts"][0]["data"], json!({"ok": true}));
        let failed = r#"{"payload": {"status": "failure", "error_details": {"error_code": "E1", "error_message": "no disk"}}}"#;
        let o = outcome(failed, "echo");
        assert_eq!(
            (o.state, o.said.as_deref(), o.artifacts.len()),
            ("TASK_STATE_FAILED", Some("E1: no disk"), 0)
        );
        assert_eq!(state_of("rejected"), "TASK_STATE_REJECTED");
        // A number a double cannot hold goes as written, in text.
        let big = r#"{"payload": {"status": "success", "payload": {"n": 12345678901234567890123, "x": 0.90}}}"#;
        let o = outcome(big, "echo");
        let part = &o.artifacts[0]["parts"][0];
        assert_eq!(part["text"], r#"{"n": 12345678901234567890123, "x": 0.90}"#);
        assert!(
            o.said
                .unwrap()
                .contains("/payload/payload/n (12345678901234567890123)")
        );
        assert_eq!(state_of("queued"), "TASK_STATE_SUBMITTED");
    }
}
