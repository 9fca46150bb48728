//! Grading an HTTP receiver: each vector is POSTed as the protocol's HTTP
//! binding says, and the answer graded — 2xx takes the message, 4xx
//! refuses it, and either way the body must be the protocol's own answer:
//! an envelope (an ERROR one with a `Code:` for a refusal) for Crosstalk,
//! an ACK correlated with the message or a NACK with an `error_code` for HSP.

use std::time::Duration;

use crate::transport::http::post_bytes;

use super::grade::Observed;
use super::vectors::Vector;

/// The receiver under test.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub url: String,
    /// `crosstalk` or `hsp`.
    pub protocol: String,
    pub timeout: Duration,
}

/// The protocols an HTTP binding exists for, and the path each is POSTed to
/// on aiproto's own `serve` (a URL with another path is taken as given).
pub const ROUTES: [(&str, &[&str]); 2] = [
    ("crosstalk", &["/crosstalk/receive"]),
    ("hsp", &["/hsp", "/message"]),
];

/// The protocol a URL's path names, if it is one of [`ROUTES`].
pub fn protocol_of_url(url: &str) -> Option<&'static str> {
    let path = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest)
        .split_once('/')
        .map_or("", |(_, p)| p);
    let path = format!("/{}", path.split(['?', '#']).next().unwrap_or_default());
    ROUTES
        .iter()
        .find(|(_, paths)| paths.iter().any(|p| path.trim_end_matches('/') == *p))
        .map(|(protocol, _)| *protocol)
}

/// How many times a `429 Too Many Requests` is waited out before the vector fails.
const RATE_RETRIES: u32 = 5;

impl Endpoint {
    pub fn observe(&self, vector: &Vector) -> Observed {
        self.observe_status(vector).0
    }

    /// What the receiver did with `vector`, and the HTTP status it answered
    /// with (none when it could not be reached).
    pub fn observe_status(&self, vector: &Vector) -> (Observed, Option<u16>) {
        let content_type = match self.protocol.as_str() {
            "crosstalk" => "text/plain; charset=utf-8",
            _ => "application/json",
        };
        let mut attempt = 0;
        let (status, body) = loop {
            match post_bytes(&self.url, vector.bytes(), content_type, self.timeout) {
                Ok((429, _)) if attempt < RATE_RETRIES => {
                    attempt += 1;
                    std::thread::sleep(Duration::from_millis(250 << attempt));
                }
                Ok(answer) => break answer,
                Err(e) => return (Observed::broken(e.to_string()), None),
            }
        };
        let observed = match status {
            200..=299 => self.taken(vector, &body),
            400..=499 => self.refused(status, &body),
            _ => Observed::broken(format!("answered {status}: {}", first_line(&body))),
        };
        (observed, Some(status))
    }

    /// A 2xx: the answer must be the protocol's own (an envelope; an HSP
    /// ACK names the message it answers).
    fn taken(&self, vector: &Vector, body: &str) -> Observed {
        let problem = match self.protocol.as_str() {
            "crosstalk" if !(body.contains("[[") && body.contains("[[END]]")) => Some(format!(
                "took the message but answered without an envelope: {}",
                first_line(body)
            )),
            "hsp" => hsp_ack_problem(vector, body),
            _ => None,
        };
        Observed::Verdict {
            accepted: true,
            errors: vec![],
            warnings: vec![],
            problem,
            said: None,
        }
    }

    /// A 4xx: a refusal must say why, as the protocol's error message.
    fn refused(&self, status: u16, body: &str) -> Observed {
        let mut errors = Vec::new();
        let problem = match self.protocol.as_str() {
            "crosstalk" => match crosstalk_error_code(body) {
                Some(code) => {
                    errors.push(code);
                    None
                }
                None => Some(format!(
                    "refused ({status}) without an ERROR envelope naming a Code: {}",
                    first_line(body)
                )),
            },
            _ => match hsp_error_code(body) {
                Some(code) => {
                    errors.push(code);
                    None
                }
                None => Some(format!(
                    "refused ({status}) without a NACK or Error carrying an error_code: {}",
                    first_line(body)
                )),
            },
        };
        Observed::Verdict {
            accepted: false,
            errors,
            warnings: vec![],
            problem,
            said: reason_of(body),
        }
    }
}

fn first_line(body: &str) -> String {
    let line = body
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(an empty body)");
    line.chars().take(120).collect()
}

/// The reason a refusal gives: a Crosstalk ERROR's `Reason:`, an HSP
/// NACK's `error_message`, else the body's first line.
fn reason_of(body: &str) -> Option<String> {
    body.lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Reason:")
                .map(|r| r.trim().to_string())
        })
        .or_else(|| {
            hsp_objects(body).iter().find_map(|m| {
                m.pointer("/payload/error_message")
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_string)
            })
        })
        .or_else(|| Some(first_line(body)))
        .map(|r| r.chars().take(200).collect())
}

/// The `Code:` of the first ERROR envelope in `body`.
fn crosstalk_error_code(body: &str) -> Option<String> {
    let error = body.lines().any(|l| l.trim() == "intent: ERROR");
    let code = body
        .lines()
        .find_map(|l| l.trim().strip_prefix("Code:"))
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty());
    code.filter(|_| error)
}

/// The JSON objects of an HSP answer (one object, or JSON Lines).
fn hsp_objects(body: &str) -> Vec<serde_json::Value> {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        return vec![v];
    }
    body.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The `error_code` of the first NACK or Error payload in an HSP answer.
fn hsp_error_code(body: &str) -> Option<String> {
    hsp_objects(body).iter().find_map(|m| {
        m.pointer("/payload/error_code")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
    })
}

/// What is wrong with an HSP receiver's 2xx answer: each message posted
/// that has a `message_id` must be acknowledged by an ACK whose
/// `correlation_id` is that id (an empty 2xx body acknowledges nothing).
fn hsp_ack_problem(vector: &Vector, body: &str) -> Option<String> {
    let sent: Vec<String> = hsp_objects(&String::from_utf8_lossy(vector.bytes()))
        .iter()
        .flat_map(|v| match v {
            serde_json::Value::Array(items) => items.clone(),
            other => vec![other.clone()],
        })
        .filter_map(|m| {
            m.get("message_id")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        })
        .collect();
    let acked: Vec<String> = hsp_objects(body)
        .iter()
        .filter(|m| {
            m.get("message_type")
                .and_then(serde_json::Value::as_str)
                .is_some_and(|t| t.contains("Acknowledgement") && !t.contains("Negative"))
        })
        .filter_map(|m| {
            m.get("correlation_id")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        })
        .collect();
    let missing: Vec<&String> = sent.iter().filter(|id| !acked.contains(id)).collect();
    if missing.is_empty() {
        None
    } else {
        Some(format!(
            "took the message but no ACK carries its id {} as correlation_id (answered: {})",
            missing
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            first_line(body)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_protocol_comes_from_the_path_of_aiprotos_routes() {
        assert_eq!(
            protocol_of_url("http://127.0.0.1:8080/crosstalk/receive"),
            Some("crosstalk")
        );
        assert_eq!(protocol_of_url("http://h/hsp/"), Some("hsp"));
        assert_eq!(protocol_of_url("https://h:1/message?x=1"), Some("hsp"));
        assert_eq!(protocol_of_url("http://h/inbox"), None);
        assert_eq!(protocol_of_url("http://h"), None);
    }

    #[test]
    fn a_refusal_names_its_code_only_inside_an_error_envelope_or_a_nack() {
        let env =
            "[[A→B v1]]\nintent: ERROR\n\nmeta: error\nCode: E-FORMAT\n\nbody: |\n  x\n[[END]]\n";
        assert_eq!(crosstalk_error_code(env).as_deref(), Some("E-FORMAT"));
        assert_eq!(crosstalk_error_code("Code: E-FORMAT\n"), None);
        let nack = r#"{"message_type":"HSP::NegativeAcknowledgement_v1.0","payload":{"error_code":"E-FORMAT"}}"#;
        assert_eq!(hsp_error_code(nack).as_deref(), Some("E-FORMAT"));
        assert_eq!(hsp_error_code("bad request"), None);
    }
}
