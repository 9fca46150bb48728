//! Grading a live HSP agent over MQTT: each agent probe is published to the
//! agent's inbox (`hsp/agents/<agent>`) with fresh ids, a sender made up for
//! the probe and a callback topic of its own, and what the agent sends back
//! within the time bound is graded — an ACK or NACK naming the probe, a
//! TaskResult on the callback topic, or nothing at all for garbage — and
//! whether it is still there after garbage.

use std::time::Duration;

use serde_json::Value;

use crate::transport::Publication;
use crate::transport::mqtt::{MqttTransport, MqttUri};
use crate::transport::{Answer, Listen, Settings, Transport};

use super::grade::Observed;
use super::vectors::{AgentAnswer, Vector};

/// The agent under test and its broker.
#[derive(Debug, Clone)]
pub struct Agent {
    /// `mqtt(s)://host[:port]` (a topic in it is ignored).
    pub broker: MqttUri,
    pub ca_file: Option<std::path::PathBuf>,
    /// The agent's id: probes go to `hsp/agents/<id>`.
    pub id: String,
    /// The capability a TaskRequest asks for (`capability_id_filter`).
    pub capability: Option<String>,
    /// How long an answer may take, and how long silence is listened for.
    pub timeout: Duration,
}

/// What came back from one probe.
#[derive(Debug, Default)]
struct Heard {
    /// (message_type, correlation_id, sender, payload) of each JSON reply.
    replies: Vec<(String, Option<String>, Option<String>, Value)>,
    /// How many replies were not JSON objects.
    unreadable: usize,
}

/// A probe ready to publish, and the names it was given.
struct Probe {
    bytes: Vec<u8>,
    message_id: Option<String>,
    request_id: Option<String>,
    me: String,
    callback: String,
}

impl Agent {
    fn inbox_of(id: &str) -> String {
        format!("hsp/agents/{id}")
    }

    /// Gives the probe its live names: a fresh message id (and request id),
    /// a sender made up for this probe, the agent as recipient, and the
    /// probe's own callback topic. A probe that is not JSON goes as it is.
    fn prepare(&self, bytes: &[u8]) -> Probe {
        let tag = crate::ids::new_ulid()[16..].to_ascii_lowercase();
        let me = format!("did:hsp:aiproto-conformance-{tag}");
        let callback = format!("hsp/results/aiproto-conformance-{tag}");
        let Ok(Value::Object(mut m)) = serde_json::from_slice::<Value>(bytes) else {
            return Probe {
                bytes: bytes.to_vec(),
                message_id: None,
                request_id: None,
                me,
                callback,
            };
        };
        let message_id = crate::ids::new_uuid7();
        m.insert("message_id".into(), message_id.clone().into());
        m.insert("sender_ai_id".into(), me.clone().into());
        m.insert("recipient_ai_id".into(), self.id.clone().into());
        m.insert(
            "timestamp_sent".into(),
            chrono::Utc::now()
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
                .into(),
        );
        let mut request_id = None;
        if let Some(Value::Object(p)) = m.get_mut("payload")
            && p.contains_key("callback_address")
        {
            let id = crate::ids::new_uuid7();
            p.insert("request_id".into(), id.clone().into());
            p.insert("requester_ai_id".into(), me.clone().into());
            p.insert("callback_address".into(), callback.clone().into());
            if let Some(capability) = &self.capability {
                p.insert("capability_id_filter".into(), capability.clone().into());
            }
            request_id = Some(id);
        }
        Probe {
            bytes: serde_json::to_vec(&Value::Object(m)).unwrap_or_default(),
            message_id: Some(message_id),
            request_id,
            me,
            callback,
        }
    }

    /// Publishes `first` once subscribed to the probe's inbox and callback
    /// (and, with `everything`, to all of `hsp/#`), and gathers what the
    /// agent sends until `done` says so or the time bound passes.
    fn exchange(
        &self,
        probe: &Probe,
        first: Vec<(String, Vec<u8>)>,
        everything: bool,
        done: &dyn Fn(&Heard) -> bool,
    ) -> Result<Heard, String> {
        let mut uri = self.broker.clone();
        uri.topic = None;
        let settings = Settings {
            qos: 1,
            ca_file: self.ca_file.clone(),
            ..Settings::default()
        };
        let mut transport = MqttTransport::new(uri, settings);
        let filters = if everything {
            vec!["hsp/#".to_string()]
        } else {
            vec![Self::inbox_of(&probe.me), probe.callback.clone()]
        };
        let listen = Listen {
            timeout: Some(self.timeout),
            filters,
            first: first
                .iter()
                .map(|(topic, bytes)| Publication::new(topic.clone(), bytes.clone()))
                .collect(),
            quiet: true,
            ..Listen::default()
        };
        let sent: Vec<Vec<u8>> = first.into_iter().map(|(_, b)| b).collect();
        let mut heard = Heard::default();
        transport
            .receive(&listen, &mut |arrival| {
                // Our own probes come back on `hsp/#`: not the agent's words.
                if sent.iter().any(|b| b.as_slice() == arrival.text.as_bytes()) {
                    return Ok(Answer::default());
                }
                match serde_json::from_str::<Value>(arrival.text) {
                    Ok(v @ Value::Object(_)) => {
                        let text =
                            |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
                        let from = text("/sender_ai_id");
                        if everything && from.as_deref() != Some(self.id.as_str()) {
                            return Ok(Answer::default());
                        }
                        heard.replies.push((
                            text("/message_type").unwrap_or_default(),
                            text("/correlation_id"),
                            from,
                            v.get("payload").cloned().unwrap_or(Value::Null),
                        ));
                    }
                    _ if !everything => heard.unreadable += 1,
                    _ => {}
                }
                Ok(Answer {
                    stop: done(&heard),
                    ..Answer::default()
                })
            })
            .map_err(|e| e.to_string())?;
        Ok(heard)
    }

    pub fn observe(&self, vector: &Vector) -> Observed {
        let Some(answer) = vector.answer else {
            return Observed::broken("not an agent probe");
        };
        let probe = self.prepare(vector.bytes());
        let to = Self::inbox_of(&self.id);
        match answer {
            AgentAnswer::Ack | AgentAnswer::Nack => {
                self.acknowledged(&probe, vec![(to, probe.bytes.clone())])
            }
            AgentAnswer::Survive => {
                // The garbage first, then a Fact asking for an ACK: answered
                // only by an agent that is still there.
                let fact = self.prepare(ACK_PROBE);
                let first = vec![(to.clone(), probe.bytes.clone()), (to, fact.bytes.clone())];
                match self.acknowledged(&fact, first) {
                    Observed::Verdict { accepted: true, .. } => Observed::refused(vec![], vec![]),
                    Observed::Verdict { .. } => Observed::Verdict {
                        accepted: false,
                        errors: vec![],
                        warnings: vec![],
                        problem: Some(
                            "after the garbage, a Fact asking for an ACK got a NACK".into(),
                        ),
                        said: None,
                    },
                    Observed::Broken { why } => Observed::broken(format!(
                        "after the garbage, the agent did not acknowledge a valid Fact: {why}"
                    )),
                }
            }
            AgentAnswer::Silence => {
                match self.exchange(&probe, vec![(to, probe.bytes.clone())], true, &|_| false) {
                    Err(why) => Observed::broken(why),
                    Ok(heard) if heard.replies.is_empty() => Observed::refused(vec![], vec![]),
                    Ok(heard) => Observed::Verdict {
                        accepted: false,
                        errors: vec![],
                        warnings: vec![],
                        problem: Some(format!(
                            "answered what cannot be answered: {}",
                            heard
                                .replies
                                .iter()
                                .map(|r| r.0.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                        said: None,
                    },
                }
            }
            AgentAnswer::TaskResult => self.task_result(&probe, to),
        }
    }

    /// An ACK or NACK naming the probe, on the probe's inbox.
    fn acknowledged(&self, probe: &Probe, first: Vec<(String, Vec<u8>)>) -> Observed {
        let id = probe.message_id.clone().unwrap_or_default();
        let names = |r: &(String, Option<String>, Option<String>, Value)| {
            r.1.as_deref() == Some(id.as_str())
        };
        let heard = match self.exchange(probe, first, false, &|h| h.replies.iter().any(names)) {
            Ok(heard) => heard,
            Err(why) => return Observed::broken(why),
        };
        let Some((kind, _, from, payload)) = heard.replies.iter().find(|r| names(r)) else {
            let others = heard.replies.len() + heard.unreadable;
            return Observed::broken(if others == 0 {
                format!(
                    "no ACK or NACK naming {id} within {} s",
                    self.timeout.as_secs_f64()
                )
            } else {
                format!(
                    "{others} repl(ies) within {} s, none naming {id} in correlation_id",
                    self.timeout.as_secs_f64()
                )
            });
        };
        let problem = (from.as_deref() != Some(self.id.as_str())).then(|| {
            format!(
                "the answer comes from {}, not the agent",
                from.as_deref().unwrap_or("nobody")
            )
        });
        let said = payload
            .get("error_message")
            .and_then(Value::as_str)
            .map(str::to_string);
        Observed::Verdict {
            accepted: kind.contains("Acknowledgement") && !kind.contains("Negative"),
            errors: payload
                .get("error_code")
                .and_then(Value::as_str)
                .map(|c| vec![c.to_string()])
                .unwrap_or_default(),
            warnings: vec![],
            problem,
            said,
        }
    }

    /// A TaskResult on the callback topic, for the request, from the agent.
    fn task_result(&self, probe: &Probe, to: String) -> Observed {
        let id = probe.message_id.clone().unwrap_or_default();
        let is_result = |r: &(String, Option<String>, Option<String>, Value)| {
            r.0.starts_with("HSP::TaskResult_v")
        };
        let heard = match self.exchange(probe, vec![(to, probe.bytes.clone())], false, &|h| {
            h.replies.iter().any(is_result)
        }) {
            Ok(heard) => heard,
            Err(why) => return Observed::broken(why),
        };
        let Some((_, correlation, from, payload)) = heard.replies.iter().find(|r| is_result(r))
        else {
            return Observed::broken(format!(
                "no TaskResult on {} within {} s",
                probe.callback,
                self.timeout.as_secs_f64()
            ));
        };
        let request_id = payload.get("request_id").and_then(Value::as_str);
        let status = payload
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let problem = if correlation.as_deref() != Some(id.as_str()) {
            Some(format!(
                "the TaskResult's correlation_id is {}, not the request's message_id {id}",
                correlation.as_deref().unwrap_or("missing")
            ))
        } else if request_id != probe.request_id.as_deref() {
            Some(format!(
                "the TaskResult answers request_id {}, not {}",
                request_id.unwrap_or("(none)"),
                probe.request_id.as_deref().unwrap_or_default()
            ))
        } else if from.as_deref() != Some(self.id.as_str()) {
            Some(format!(
                "the TaskResult comes from {}, not the agent asked",
                from.as_deref().unwrap_or("nobody")
            ))
        } else {
            None
        };
        Observed::Verdict {
            accepted: matches!(status, "success" | "in_progress" | "queued"),
            errors: vec![],
            warnings: vec![],
            problem,
            said: (!status.is_empty()).then(|| format!("status {status}")),
        }
    }
}

/// The Fact asking for an ACK that follows garbage (the `ack-when-asked-1.0` probe).
const ACK_PROBE: &[u8] = br#"{"hsp_envelope_version":"1.0","message_id":"x","correlation_id":null,"sender_ai_id":"x","recipient_ai_id":"x","timestamp_sent":"2024-07-05T14:00:00Z","message_type":"HSP::Fact_v1.0","protocol_version":"1.0","communication_pattern":"publish","qos_parameters":{"priority":"medium","requires_ack":true},"payload":{"id":"fact_after_garbage","statement_type":"natural_language","statement_nl":"The agent is still listening.","source_ai_id":"did:hsp:ai_alpha","timestamp_created":"2024-07-05T13:59:00Z","confidence_score":0.9}}"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn agent() -> Agent {
        Agent {
            broker: MqttUri::parse("mqtt://127.0.0.1:1").unwrap(),
            ca_file: None,
            id: "did:hsp:worker".into(),
            capability: Some("echo".into()),
            timeout: Duration::from_secs(1),
        }
    }

    #[test]
    fn a_probe_gets_fresh_names_and_the_agent_as_recipient() {
        let a = agent();
        let task = br#"{"message_id":"old","sender_ai_id":"old","payload":{"callback_address":"x","request_id":"r","capability_id_filter":"c"}}"#;
        let p = a.prepare(task);
        let m: Value = serde_json::from_slice(&p.bytes).unwrap();
        assert_eq!(m["message_id"].as_str(), p.message_id.as_deref());
        assert_ne!(m["message_id"], "old");
        assert_eq!(m["sender_ai_id"].as_str(), Some(p.me.as_str()));
        assert_eq!(m["recipient_ai_id"], "did:hsp:worker");
        assert_eq!(
            m["payload"]["callback_address"].as_str(),
            Some(p.callback.as_str())
        );
        assert_eq!(m["payload"]["request_id"].as_str(), p.request_id.as_deref());
        assert_eq!(m["payload"]["capability_id_filter"], "echo");
        // Two probes never share a name.
        assert_ne!(a.prepare(task).me, p.me);
        // Garbage goes as it is.
        assert_eq!(a.prepare(b"\x00garbage").bytes, b"\x00garbage");
    }

    #[test]
    fn the_probe_after_garbage_is_a_valid_fact_asking_for_an_ack() {
        let m: Value = serde_json::from_slice(ACK_PROBE).unwrap();
        assert_eq!(m["qos_parameters"]["requires_ack"], true);
        assert_eq!(m["message_type"], "HSP::Fact_v1.0");
    }

    #[test]
    fn a_broker_that_cannot_be_reached_is_no_verdict() {
        let v = crate::conformance::vectors::all()
            .into_iter()
            .find(|v| v.answer == Some(AgentAnswer::Ack))
            .unwrap();
        assert!(matches!(agent().observe(&v), Observed::Broken { .. }));
    }
}
