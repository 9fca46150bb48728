//! A TaskRequest out over MQTT and its TaskResult back: the exchange
//! `aiproto request` runs once and the A2A bridge runs for each task. The
//! request goes out once the callback subscription stands; each arrival
//! there is judged against it (correlation, request id, the agent asked,
//! a signature when one is required), progress reports are passed on, and
//! the first accepted answer ends the exchange.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::delivery::answer::{Asked, Judgement, judge};
use crate::delivery::routing;
use crate::protocols::{Found, Value};
use crate::sign::trust::Trust;
use crate::transport::mqtt::{MqttTransport, MqttUri};
use crate::transport::{Answer, Ended, Endpoint, Listen, Settings, Transport, TransportError};

/// Where and how a TaskRequest goes.
pub struct Delegation<'a> {
    /// The broker (its topic, if any, is where the request goes; else the
    /// request's own route).
    pub broker: MqttUri,
    pub settings: Settings,
    /// How long to wait for the answer.
    pub timeout: Duration,
    /// Set to stop waiting (a signal, a cancelled task).
    pub stop: Arc<AtomicBool>,
    /// Signatures required of the answer: the keys trusted for it.
    pub trust: Option<&'a Trust>,
}

/// Something heard on the callback topic that does not end the exchange.
#[derive(Debug)]
pub enum Heard<'t> {
    /// A TaskResult claiming to answer the request, not accepted: why.
    Refused { origin: &'t str, why: String },
    /// A plain MQTT 5 reply refused because signatures are required.
    UnsignedPlain { origin: &'t str },
    /// A progress report (`in_progress`, `queued`), and its text.
    Interim {
        from: String,
        status: String,
        text: &'t str,
    },
}

/// The answer accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    /// The TaskResult as it came.
    pub text: String,
    pub from: String,
    pub status: String,
    /// A failure's or rejection's `error_details`, as JSON.
    pub error: Option<String>,
}

/// How the exchange ended.
#[derive(Debug)]
pub enum Outcome {
    Answered(Answered),
    /// A plain MQTT 5 reply: no HSP message, the request's correlation data.
    Plain(String),
    /// No answer: the wait ended (timeout, stopped) with `refused` claims
    /// not accepted.
    Unanswered {
        ended: Ended,
        refused: usize,
    },
}

/// Why a request could not go out.
#[derive(Debug, thiserror::Error)]
pub enum DelegateError {
    #[error("an HSP TaskRequest with a payload.callback_address is needed")]
    NotATaskRequest,
    #[error("the TaskRequest cannot be written")]
    Unwritable,
    /// An A2A agent's answer that cannot be read as a TaskResult.
    #[error("{0}")]
    Answer(String),
    #[error(transparent)]
    Transport(#[from] TransportError),
}

/// The callback topic of a valid HSP TaskRequest, or `None`.
pub fn callback_of(found: &Found) -> Option<&str> {
    let Value::Hsp(Some(message)) = &found.value else {
        return None;
    };
    let json = &message.json;
    let is_task = json
        .get("message_type")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.starts_with("HSP::TaskRequest_v"));
    is_task
        .then(|| json.pointer("/payload/callback_address")?.as_str())
        .flatten()
}

/// Sends the TaskRequest `found` (read from `text`) and waits for its
/// answer, telling `heard` what else comes.
pub fn delegate(
    found: &Found,
    text: &str,
    d: Delegation<'_>,
    mut heard: impl FnMut(Heard<'_>),
) -> Result<Outcome, DelegateError> {
    let (Value::Hsp(Some(message)), Some(callback)) = (&found.value, callback_of(found)) else {
        return Err(DelegateError::NotATaskRequest);
    };
    let json = &message.json;
    let id = message.message_id().unwrap_or_default().to_string();
    let request = routing::outgoing(found, text, &Endpoint::Mqtt(d.broker.clone()))
        .ok_or(DelegateError::Unwritable)?;
    let mut transport = MqttTransport::new(d.broker, d.settings);
    // Over MQTT 5 it carries its callback as the response topic and its id
    // as the correlation data.
    let publication = transport.publication(&request)?;
    // The URI's topic is where the request goes; the reply comes on the callback.
    transport.uri.topic = None;
    let listen = Listen {
        timeout: Some(d.timeout),
        filters: vec![callback.to_string()],
        first: vec![publication],
        quiet: true,
        stop: d.stop,
        ..Listen::default()
    };
    let asked = Asked::of(json);
    let mut outcome = None;
    let mut refused = 0usize;
    let ended = transport.receive(&listen, &mut |arrival| {
        // An MQTT 5 answer names its request in its correlation data:
        // another's answer on a shared callback topic is not for us.
        let correlated = arrival
            .properties
            .and_then(|p| p.correlation_data.as_deref());
        if correlated.is_some_and(|data| data != id.as_bytes()) {
            return Ok(Answer::default());
        }
        let done = match judge(&asked, arrival.text, d.trust) {
            // A plain MQTT 5 reply: no HSP message, the request's
            // correlation data. Taken as it came, unless signatures are
            // required (it carries none).
            Judgement::NotForUs if correlated.is_some() && !is_hsp(arrival.text) => {
                if d.trust.is_some() {
                    refused += 1;
                    heard(Heard::UnsignedPlain {
                        origin: arrival.origin,
                    });
                    false
                } else {
                    outcome = Some(Outcome::Plain(arrival.text.to_string()));
                    true
                }
            }
            Judgement::NotForUs => false,
            Judgement::Refused(why) => {
                refused += 1;
                heard(Heard::Refused {
                    origin: arrival.origin,
                    why,
                });
                false
            }
            Judgement::Interim { from, status } => {
                heard(Heard::Interim {
                    from,
                    status,
                    text: arrival.text,
                });
                false
            }
            Judgement::Answer {
                from,
                status,
                error,
            } => {
                outcome = Some(Outcome::Answered(Answered {
                    text: arrival.text.to_string(),
                    from,
                    status,
                    error,
                }));
                true
            }
        };
        Ok(Answer {
            stop: done,
            ..Answer::default()
        })
    })?;
    Ok(outcome.unwrap_or(Outcome::Unanswered { ended, refused }))
}

/// Whether an arrival is an HSP message (then it is judged as a
/// TaskResult, never taken as a plain reply).
pub fn is_hsp(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| v.get("message_type").is_some())
}

/// Whether `text` is an HSP TaskResult (a worker's answer, to publish on
/// its request's callback address).
pub fn is_task_result(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| {
        v.get("message_type")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|t| t.starts_with("HSP::TaskResult_v"))
    })
}
