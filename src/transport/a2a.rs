//! `a2a+http(s)://AGENT`: an A2A 1.0 agent over its JSON-RPC binding. The
//! agent's card is fetched from `/.well-known/agent-card.json` once, its
//! first JSON-RPC interface of protocol version 1.x chosen, and each
//! payload (a JSON-RPC request the delivery layer built) POSTed there with
//! `A2A-Version: 1.0`. The `result` of each answer is handed on as one line
//! of JSON; a JSON-RPC error fails the send with the A2A error it names.

use std::time::Duration;

use serde_json::Value;

use super::{Ended, Listen, OnArrival, Outgoing, Transport, TransportError, secrets};

/// The version every request names in its `A2A-Version` header.
pub const A2A_VERSION: &str = "1.0";
/// The largest card or answer read.
const MAX_REPLY_BYTES: u64 = 16 * 1024 * 1024;
/// How long one exchange may take (a blocking SendMessage waits for the task).
const TIMEOUT: Duration = Duration::from_secs(120);

/// An A2A agent, found by its card on first use.
pub struct A2aTransport {
    /// The agent's base URL, `http(s)://HOST[:PORT]`.
    pub base: String,
    /// The JSON-RPC endpoint its card names, once fetched.
    rpc: Option<String>,
}

impl A2aTransport {
    pub fn new(base: String) -> Self {
        A2aTransport { base, rpc: None }
    }

    /// Where the card is: the well-known path at the base URL's origin.
    fn card_url(&self) -> String {
        let (scheme, rest) = self.base.split_once("://").unwrap_or(("http", &self.base));
        let host = rest.split('/').next().unwrap_or_default();
        format!("{scheme}://{host}/.well-known/agent-card.json")
    }

    /// The JSON-RPC endpoint the card names (fetched once).
    fn rpc_url(&mut self) -> Result<String, TransportError> {
        if let Some(url) = &self.rpc {
            return Ok(url.clone());
        }
        let card_url = self.card_url();
        let (status, text) = exchange(&card_url, None)?;
        if !(200..300).contains(&status) {
            return Err(TransportError::Status {
                url: secrets::redact(&card_url),
                status,
                reply: text,
            });
        }
        let url = choose_interface(&text).map_err(|why| TransportError::Peer {
            url: secrets::redact(&card_url),
            why,
        })?;
        // Followed, as the SDK clients do, but never silently elsewhere.
        if origin(&url) != origin(&self.base) {
            eprintln!(
                "aiproto: note: the Agent Card at {} sends the calls to {}, not to the host named",
                secrets::redact(&card_url),
                secrets::redact(&url)
            );
        }
        self.rpc = Some(url.clone());
        Ok(url)
    }
}

/// `scheme://host[:port]` of a URL, lower-cased.
fn origin(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    format!("{scheme}://{host}").to_ascii_lowercase()
}

/// The first JSON-RPC interface of A2A 1.x a card lists, or why none fits.
pub fn choose_interface(card: &str) -> Result<String, String> {
    let card: Value =
        serde_json::from_str(card).map_err(|e| format!("the Agent Card is not JSON ({e})"))?;
    let interfaces = card
        .get("supportedInterfaces")
        .and_then(Value::as_array)
        .ok_or("the Agent Card lists no supportedInterfaces (an A2A 0.3 card has `url`; aiproto speaks 1.0)")?;
    let field = |i: &Value, k: &str| {
        i.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let fits = |i: &&Value| {
        let url = field(i, "url");
        (url.starts_with("http://") || url.starts_with("https://"))
            && field(i, "protocolBinding").eq_ignore_ascii_case("JSONRPC")
            && field(i, "protocolVersion").split('.').next() == Some("1")
    };
    match interfaces.iter().find(fits) {
        Some(i) => Ok(field(i, "url")),
        None => {
            let offered: Vec<String> = interfaces
                .iter()
                .map(|i| {
                    format!(
                        "{} {}",
                        field(i, "protocolBinding"),
                        field(i, "protocolVersion")
                    )
                })
                .collect();
            Err(format!(
                "the Agent Card offers no JSON-RPC interface of A2A 1.x (it offers: {})",
                if offered.is_empty() {
                    "nothing".to_string()
                } else {
                    offered.join(", ")
                }
            ))
        }
    }
}

/// What a JSON-RPC answer says: its `result`, or the A2A error as words.
pub fn answer_of(text: &str) -> Result<Value, String> {
    let answer: Value =
        serde_json::from_str(text).map_err(|e| format!("the answer is not JSON ({e})"))?;
    if let Some(error) = answer.get("error") {
        let code = error.get("code").and_then(Value::as_i64);
        let name = code.and_then(crate::a2a_errors::name).unwrap_or("an error");
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default();
        return Err(match code {
            Some(code) => format!("the agent answered {name} ({code}): {message}"),
            None => format!("the agent answered an error without a code: {message}"),
        });
    }
    answer
        .get("result")
        .cloned()
        .ok_or_else(|| "the answer has neither a result nor an error".to_string())
}

/// One HTTP exchange: GET when `body` is `None`, else a JSON-RPC POST.
fn exchange(url: &str, body: Option<&str>) -> Result<(u16, String), TransportError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(TIMEOUT))
        .build()
        .into();
    let shown = secrets::redact(url);
    let failed = |e: ureq::Error| TransportError::Peer {
        url: shown.clone(),
        why: e.to_string().replace(url, &shown),
    };
    let mut response = match body {
        None => agent
            .get(url)
            .header("Accept", "application/json")
            .header("A2A-Version", A2A_VERSION)
            .call()
            .map_err(failed)?,
        Some(body) => agent
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .header("A2A-Version", A2A_VERSION)
            .send(body)
            .map_err(failed)?,
    };
    let status = response.status().as_u16();
    let bytes = response
        .body_mut()
        .with_config()
        .limit(MAX_REPLY_BYTES)
        .read_to_vec()
        .map_err(|e| TransportError::Peer {
            url: shown.clone(),
            why: format!("reading the answer: {e}"),
        })?;
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}

impl Transport for A2aTransport {
    /// Finds the agent's JSON-RPC endpoint, then POSTs each request in turn
    /// and hands on each `result` as one line of JSON. The first refusal
    /// (HTTP status, JSON-RPC error) stops the sending.
    fn send(
        &mut self,
        messages: &[Outgoing],
        on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError> {
        let url = self.rpc_url()?;
        let shown = secrets::redact(&url);
        for message in messages {
            let (status, text) = exchange(&url, Some(&message.text))?;
            if !(200..300).contains(&status) {
                return Err(TransportError::Status {
                    url: shown,
                    status,
                    reply: text,
                });
            }
            let result = answer_of(&text).map_err(|why| TransportError::Peer {
                url: shown.clone(),
                why,
            })?;
            on_reply(&format!("{result}\n")).map_err(|e| TransportError::Io {
                path: "<stdout>".into(),
                source: e,
            })?;
        }
        Ok(())
    }

    fn receive(
        &mut self,
        _listen: &Listen,
        _on_arrival: &mut OnArrival<'_>,
    ) -> Result<Ended, TransportError> {
        Err(TransportError::CannotReceive(
            self.base.clone(),
            ": an A2A agent is sent to (SendMessage); aiproto does not serve A2A yet",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_json_rpc_interface_of_1_x_is_chosen() {
        let card = r#"{"supportedInterfaces": [
            {"url": "https://a/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": "https://a/old", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            {"url": "https://a/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]}"#;
        assert_eq!(choose_interface(card).unwrap(), "https://a/rpc");
        let none = r#"{"supportedInterfaces": [{"url": "https://a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]}"#;
        assert!(
            choose_interface(none)
                .unwrap_err()
                .contains("HTTP+JSON 1.0")
        );
        let old = r#"{"url": "https://a", "protocolVersion": "0.3.0"}"#;
        assert!(choose_interface(old).unwrap_err().contains("0.3"));
    }

    #[test]
    fn only_http_interfaces_are_followed_and_origins_compare_by_host() {
        let card = r#"{"supportedInterfaces": [
            {"url": "file:///etc/passwd", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]}"#;
        assert!(choose_interface(card).is_err());
        assert_eq!(
            origin("http://127.0.0.1:9/rpc?x"),
            origin("HTTP://127.0.0.1:9")
        );
        assert_ne!(
            origin("http://127.0.0.1:9/rpc"),
            origin("http://127.0.0.1:10")
        );
    }

    #[test]
    fn an_error_answer_names_the_a2a_error() {
        let e = answer_of(
            r#"{"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "no such task"}}"#,
        );
        assert_eq!(
            e.unwrap_err(),
            "the agent answered TaskNotFoundError (-32001): no such task"
        );
        let ok =
            answer_of(r#"{"jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t"}}}"#).unwrap();
        assert_eq!(ok["task"]["id"], "t");
        assert!(answer_of("<html>").is_err());
    }
}
