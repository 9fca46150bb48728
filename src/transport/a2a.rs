//! `a2a+http(s)://AGENT`: an A2A 1.0 agent over its JSON-RPC or HTTP+JSON
//! binding. The agent's card is fetched from `/.well-known/agent-card.json`
//! once, and its first interface of protocol version 1.x over http(s)
//! chosen (JSON-RPC before HTTP+JSON). Each payload (a JSON-RPC request
//! the delivery layer built) goes there with `A2A-Version: 1.0`: as it is
//! over JSON-RPC, as the binding's route and body over HTTP+JSON. The
//! answer's result is handed on as one line of JSON; a stream's events
//! each as one line, as they come; an A2A error fails the send with its
//! name.

use std::io::BufRead;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Ended, Listen, OnArrival, Outgoing, Transport, TransportError, secrets};

/// The version every request names in its `A2A-Version` header.
pub const A2A_VERSION: &str = "1.0";
/// The largest card or answer read (a stream: each event).
const MAX_REPLY_BYTES: u64 = 16 * 1024 * 1024;
/// How long one exchange may take by default (a blocking SendMessage waits
/// for the task).
pub const TIMEOUT: Duration = Duration::from_secs(120);
/// How long a stream may stay open.
const STREAM_TIMEOUT: Duration = Duration::from_secs(3600);
/// How many times a stream cut before its task ended is followed again.
const RESUBSCRIBE: usize = 3;

/// How a message is sent: its task waited for (SendMessage), answered at
/// once (`returnImmediately`), or streamed (SendStreamingMessage).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Wait,
    NoWait,
    Stream,
}

/// The binding of the interface chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    JsonRpc,
    HttpJson,
}

/// A check of the agent's card text, given by a layer that knows what a
/// card is: `Ok` with what to say on stderr, or why nothing may be sent.
#[derive(Clone)]
pub struct CardCheck(pub std::sync::Arc<CheckCard>);

/// The function a [`CardCheck`] holds.
pub type CheckCard = dyn Fn(&str) -> Result<String, String> + Send + Sync;

impl std::fmt::Debug for CardCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CardCheck")
    }
}

/// An A2A agent, found by its card on first use.
pub struct A2aTransport {
    /// The agent's base URL, `http(s)://HOST[:PORT]`.
    pub base: String,
    mode: Mode,
    /// The bearer token for the agent named.
    token: Option<String>,
    /// The interface its card names, once fetched.
    interface: Option<(Binding, String)>,
    /// What the card must pass first.
    card_check: Option<CardCheck>,
    /// How long one exchange may take.
    timeout: Duration,
}

impl A2aTransport {
    pub fn new(base: String, mode: Mode, token: Option<String>) -> Self {
        A2aTransport {
            base,
            mode,
            token,
            interface: None,
            card_check: None,
            timeout: TIMEOUT,
        }
    }

    /// One exchange (a blocking SendMessage: until the task ends) may take
    /// `timeout` at most.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The agent's card must pass `check` before any message is sent.
    pub fn with_card_check(mut self, check: Option<CardCheck>) -> Self {
        self.card_check = check;
        self
    }

    /// The token for `url`: only on the origin the person named.
    fn token_for(&self, url: &str) -> Option<&str> {
        self.token
            .as_deref()
            .filter(|_| origin(url) == origin(&self.base))
    }

    /// Where the card is: the well-known path at the base URL's origin.
    fn card_url(&self) -> String {
        let (scheme, rest) = self.base.split_once("://").unwrap_or(("http", &self.base));
        let host = rest.split('/').next().unwrap_or_default();
        format!("{scheme}://{host}/.well-known/agent-card.json")
    }

    /// The interface the card names (fetched once).
    fn interface(&mut self) -> Result<(Binding, String), TransportError> {
        if let Some(found) = &self.interface {
            return Ok(found.clone());
        }
        let card_url = self.card_url();
        let (status, text) = exchange(
            &card_url,
            "GET",
            None,
            self.token_for(&card_url),
            self.timeout,
        )?;
        if !(200..300).contains(&status) {
            return Err(TransportError::Status {
                url: secrets::redact(&card_url),
                status,
                reply: text,
            });
        }
        if let Some(CardCheck(check)) = &self.card_check {
            let said = check(&text).map_err(|why| TransportError::Peer {
                url: secrets::redact(&card_url),
                why: format!("the Agent Card is not trusted, nothing sent: {why}"),
            })?;
            eprintln!("aiproto: {}: {said}", secrets::redact(&card_url));
        }
        let (binding, url) = choose_interface(&text).map_err(|why| TransportError::Peer {
            url: secrets::redact(&card_url),
            why,
        })?;
        // Followed, as the SDK clients do, but never silently elsewhere,
        // and without the token, which is the named host's.
        if origin(&url) != origin(&self.base) {
            eprintln!(
                "aiproto: note: the Agent Card at {} sends the calls to {}, not to the host named{}",
                secrets::redact(&card_url),
                secrets::redact(&url),
                if self.token.is_some() {
                    " (the bearer token is not sent there)"
                } else {
                    ""
                }
            );
        }
        self.interface = Some((binding, url.clone()));
        Ok((binding, url))
    }
}

/// `scheme://host[:port]` of a URL, lower-cased.
fn origin(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    format!("{scheme}://{host}").to_ascii_lowercase()
}

/// The interface of A2A 1.x over http(s) a card lists first, JSON-RPC
/// before HTTP+JSON, or why none fits.
pub fn choose_interface(card: &str) -> Result<(Binding, String), String> {
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
    let fits = |i: &Value, binding: &str| {
        let url = field(i, "url");
        (url.starts_with("http://") || url.starts_with("https://"))
            && field(i, "protocolBinding").eq_ignore_ascii_case(binding)
            && field(i, "protocolVersion").split('.').next() == Some("1")
    };
    for (name, binding) in [
        ("JSONRPC", Binding::JsonRpc),
        ("HTTP+JSON", Binding::HttpJson),
    ] {
        if let Some(i) = interfaces.iter().find(|i| fits(i, name)) {
            return Ok((binding, field(i, "url")));
        }
    }
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
        "the Agent Card offers no JSON-RPC nor HTTP+JSON interface of A2A 1.x over http(s) (it offers: {})",
        if offered.is_empty() {
            "nothing".to_string()
        } else {
            offered.join(", ")
        }
    ))
}

/// The A2A error an answer names, as words (`TaskNotFoundError (-32001): …`).
fn error_words(code: Option<i64>, message: &str) -> String {
    let name = code.and_then(crate::a2a_errors::name).unwrap_or("an error");
    match code {
        Some(code) => format!("the agent answered {name} ({code}): {message}"),
        None => format!("the agent answered an error without a code: {message}"),
    }
}

/// What a JSON-RPC answer says: its `result`, or the A2A error as words.
pub fn answer_of(text: &str) -> Result<Value, String> {
    let answer: Value =
        serde_json::from_str(text).map_err(|e| format!("the answer is not JSON ({e})"))?;
    if let Some(error) = answer.get("error") {
        let code = error.get("code").and_then(Value::as_i64);
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default();
        return Err(error_words(code, message));
    }
    answer
        .get("result")
        .cloned()
        .ok_or_else(|| "the answer has neither a result nor an error".to_string())
}

/// What an HTTP+JSON error body says (AIP-193: `error.code` the HTTP
/// status, the A2A error in `details[].reason`), as words.
fn rest_error_of(status: u16, text: &str) -> String {
    let body: Value = serde_json::from_str(text).unwrap_or_default();
    let error = &body["error"];
    let reason = error["details"]
        .as_array()
        .and_then(|d| d.iter().find_map(|i| i["reason"].as_str()))
        .unwrap_or("");
    let message = error["message"].as_str().unwrap_or(text.trim());
    let named = crate::a2a_errors::ERRORS
        .iter()
        .find(|(_, name)| !reason.is_empty() && crate::a2a_errors::reason(name) == reason);
    match named {
        Some((code, _)) => error_words(Some(*code), message),
        None => format!("the agent answered HTTP {status}: {message}"),
    }
}

/// Hands one answer or event on, as a line of JSON.
fn hand_on(
    on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    value: &Value,
) -> Result<(), TransportError> {
    on_reply(&format!("{value}\n")).map_err(|e| TransportError::Io {
        path: "<stdout>".into(),
        source: e,
    })
}

/// A call with the mode applied: a SendMessage streamed, or answered at once.
fn with_mode(mut call: Value, mode: Mode) -> Value {
    if call["method"] != "SendMessage" {
        return call;
    }
    match mode {
        Mode::Wait => {}
        Mode::Stream => call["method"] = json!("SendStreamingMessage"),
        Mode::NoWait => {
            if !call["params"]["configuration"].is_object() {
                call["params"]["configuration"] = json!({});
            }
            call["params"]["configuration"]["returnImmediately"] = json!(true);
        }
    }
    call
}

/// Whether a method answers with a stream.
fn streams(method: &str) -> bool {
    matches!(method, "SendStreamingMessage" | "SubscribeToTask")
}

/// The HTTP+JSON request of a JSON-RPC call: method, path below the
/// interface's URL, and body.
fn rest_route(
    method: &str,
    params: &Value,
) -> Result<(&'static str, String, Option<String>), String> {
    let id = || {
        let id = params["id"].as_str().unwrap_or_default();
        percent_encoding::utf8_percent_encode(id, percent_encoding::NON_ALPHANUMERIC).to_string()
    };
    let query = |skip: &str| {
        let pairs: Vec<String> = params
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| k.as_str() != skip)
            .map(|(k, v)| {
                let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                format!(
                    "{k}={}",
                    percent_encoding::utf8_percent_encode(&v, percent_encoding::NON_ALPHANUMERIC)
                )
            })
            .collect();
        if pairs.is_empty() {
            String::new()
        } else {
            format!("?{}", pairs.join("&"))
        }
    };
    let body = Some(params.to_string());
    Ok(match method {
        "SendMessage" => ("POST", "/message:send".into(), body),
        "SendStreamingMessage" => ("POST", "/message:stream".into(), body),
        "GetTask" => ("GET", format!("/tasks/{}{}", id(), query("id")), None),
        "ListTasks" => ("GET", format!("/tasks{}", query("")), None),
        "CancelTask" => ("POST", format!("/tasks/{}:cancel", id()), body),
        "SubscribeToTask" => (
            "POST",
            format!("/tasks/{}:subscribe", id()),
            Some("{}".into()),
        ),
        "GetExtendedAgentCard" => ("GET", "/extendedAgentCard".into(), None),
        other => {
            return Err(format!(
                "{other} is not sent over HTTP+JSON by aiproto (the agent's card offers no JSON-RPC)"
            ));
        }
    })
}

fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(timeout))
        .build()
        .into()
}

/// One HTTP exchange read whole: its status and body.
fn exchange(
    url: &str,
    method: &str,
    body: Option<&str>,
    token: Option<&str>,
    timeout: Duration,
) -> Result<(u16, String), TransportError> {
    let mut response = request(url, method, body, "application/json", timeout, token)?;
    let status = response.status().as_u16();
    let bytes = response
        .body_mut()
        .with_config()
        .limit(MAX_REPLY_BYTES)
        .read_to_vec()
        .map_err(|e| TransportError::Peer {
            url: secrets::redact(url),
            why: format!("reading the answer: {e}"),
        })?;
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}

/// One HTTP request with the A2A headers, its response not read yet.
fn request(
    url: &str,
    method: &str,
    body: Option<&str>,
    accept: &str,
    timeout: Duration,
    token: Option<&str>,
) -> Result<ureq::http::Response<ureq::Body>, TransportError> {
    let shown = secrets::redact(url);
    let failed = |e: ureq::Error| TransportError::Peer {
        url: shown.clone(),
        why: e.to_string().replace(url, &shown),
    };
    let agent = agent(timeout);
    let bearer = token.map(|t| format!("Bearer {t}"));
    match (method, body) {
        ("GET", _) => {
            let mut get = agent
                .get(url)
                .header("Accept", accept)
                .header("A2A-Version", A2A_VERSION);
            if let Some(bearer) = &bearer {
                get = get.header("Authorization", bearer);
            }
            get.call().map_err(failed)
        }
        (_, body) => {
            let mut post = agent
                .post(url)
                .header("Content-Type", "application/json")
                .header("Accept", accept)
                .header("A2A-Version", A2A_VERSION);
            if let Some(bearer) = &bearer {
                post = post.header("Authorization", bearer);
            }
            post.send(body.unwrap_or("{}")).map_err(failed)
        }
    }
}

/// The task id and whether the stream's story is over, from one event
/// (a StreamResponse): a message, or a task that ended or waits.
fn event_state(event: &Value) -> (Option<String>, bool) {
    if event.get("message").is_some() {
        return (None, true);
    }
    let (id, state) = match (event.get("task"), event.get("statusUpdate")) {
        (Some(task), _) => (task["id"].as_str(), task["status"]["state"].as_str()),
        (_, Some(update)) => (
            update["taskId"].as_str(),
            update["status"]["state"].as_str(),
        ),
        _ => (
            event
                .pointer("/artifactUpdate/taskId")
                .and_then(Value::as_str),
            None,
        ),
    };
    let over = state.is_some_and(|s| {
        matches!(
            s,
            "TASK_STATE_COMPLETED"
                | "TASK_STATE_FAILED"
                | "TASK_STATE_CANCELED"
                | "TASK_STATE_REJECTED"
                | "TASK_STATE_INPUT_REQUIRED"
                | "TASK_STATE_AUTH_REQUIRED"
        )
    });
    (id.map(str::to_string), over)
}

/// Reads a server-sent event stream, handing each event's result on;
/// the task id seen and whether the story ended.
fn read_stream(
    response: ureq::http::Response<ureq::Body>,
    binding: Binding,
    shown: &str,
    on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
) -> Result<(Option<String>, bool), TransportError> {
    let peer = |why: String| TransportError::Peer {
        url: shown.to_string(),
        why,
    };
    let mut reader = std::io::BufReader::new(
        response
            .into_body()
            .into_with_config()
            .limit(u64::MAX)
            .reader(),
    );
    let (mut task, mut over) = (None, false);
    let mut data = String::new();
    let mut line = String::new();
    loop {
        line.clear();
        let read = match reader.read_line(&mut line) {
            Ok(n) => n,
            // A connection cut mid-stream: followed again by the caller.
            Err(_) => return Ok((task, over)),
        };
        if data.len() as u64 > MAX_REPLY_BYTES {
            return Err(peer(format!(
                "an event larger than {MAX_REPLY_BYTES} bytes"
            )));
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if read > 0 && !line.is_empty() {
            if let Some(value) = line.strip_prefix("data:") {
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(value.strip_prefix(' ').unwrap_or(value));
            }
            continue;
        }
        if !data.is_empty() {
            let event = match binding {
                Binding::JsonRpc => answer_of(&data).map_err(peer)?,
                Binding::HttpJson => serde_json::from_str(&data)
                    .map_err(|e| peer(format!("an event that is not JSON ({e})")))?,
            };
            data.clear();
            let (id, ended) = event_state(&event);
            task = id.or(task);
            over = ended;
            hand_on(on_reply, &event)?;
            if over {
                return Ok((task, over));
            }
        }
        if read == 0 {
            return Ok((task, over));
        }
    }
}

impl A2aTransport {
    /// One call over the binding: its answer (or each streamed event)
    /// handed on.
    fn call(
        &self,
        binding: Binding,
        url: &str,
        call: &Value,
        on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(Option<String>, bool), TransportError> {
        let method = call["method"].as_str().unwrap_or_default();
        let (http_method, target, body) = match binding {
            Binding::JsonRpc => ("POST", url.to_string(), Some(call.to_string())),
            Binding::HttpJson => {
                let (m, path, body) =
                    rest_route(method, &call["params"]).map_err(|why| TransportError::Peer {
                        url: secrets::redact(url),
                        why,
                    })?;
                (m, format!("{}{path}", url.trim_end_matches('/')), body)
            }
        };
        let shown = secrets::redact(&target);
        let refused = |status: u16, text: String| match binding {
            Binding::JsonRpc => TransportError::Status {
                url: shown.clone(),
                status,
                reply: text,
            },
            Binding::HttpJson => TransportError::Peer {
                url: shown.clone(),
                why: rest_error_of(status, &text),
            },
        };
        if streams(method) {
            let response = request(
                &target,
                http_method,
                body.as_deref(),
                "text/event-stream",
                STREAM_TIMEOUT,
                self.token_for(&target),
            )?;
            let status = response.status().as_u16();
            let is_events = response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|t| t.starts_with("text/event-stream"));
            if (200..300).contains(&status) && is_events {
                return read_stream(response, binding, &shown, on_reply);
            }
            // An error comes as a plain answer.
            let mut response = response;
            let text = response
                .body_mut()
                .with_config()
                .limit(MAX_REPLY_BYTES)
                .read_to_string()
                .unwrap_or_default();
            if !(200..300).contains(&status) {
                return Err(refused(status, text));
            }
            let result = answer_of(&text).map_err(|why| TransportError::Peer {
                url: shown.clone(),
                why,
            })?;
            hand_on(on_reply, &result)?;
            return Ok((None, true));
        }
        let (status, text) = exchange(
            &target,
            http_method,
            body.as_deref(),
            self.token_for(&target),
            self.timeout,
        )?;
        if !(200..300).contains(&status) {
            return Err(refused(status, text));
        }
        let result = match binding {
            Binding::JsonRpc => answer_of(&text),
            Binding::HttpJson => {
                serde_json::from_str(&text).map_err(|e| format!("the answer is not JSON ({e})"))
            }
        }
        .map_err(|why| TransportError::Peer {
            url: shown.clone(),
            why,
        })?;
        hand_on(on_reply, &result)?;
        Ok((None, true))
    }
}

impl Transport for A2aTransport {
    /// Finds the agent's interface, then sends each call in turn and hands
    /// on each answer (a stream: each event) as one line of JSON. A stream
    /// cut before its task ended is followed again with SubscribeToTask, a
    /// few times at most. The first refusal (HTTP status, A2A error) stops
    /// the sending.
    fn send(
        &mut self,
        messages: &[Outgoing],
        on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError> {
        let (binding, url) = self.interface()?;
        for message in messages {
            let call: Value =
                serde_json::from_str(&message.text).map_err(|e| TransportError::Peer {
                    url: secrets::redact(&url),
                    why: format!("the call to send is not JSON ({e})"),
                })?;
            let call = with_mode(call, self.mode);
            let (mut task, mut over) = self.call(binding, &url, &call, on_reply)?;
            let mut again = 0;
            while !over {
                let Some(id) = task.clone() else {
                    break;
                };
                if again == RESUBSCRIBE {
                    return Err(TransportError::Peer {
                        url: secrets::redact(&url),
                        why: format!(
                            "the stream of task {id} was cut {RESUBSCRIBE} times before the task ended"
                        ),
                    });
                }
                again += 1;
                eprintln!(
                    "aiproto: the stream of task {id} was cut before it ended; following it again (SubscribeToTask)"
                );
                let follow = json!({"jsonrpc": "2.0", "id": crate::ids::new_uuid7(),
                    "method": "SubscribeToTask", "params": {"id": id}});
                (task, over) = self.call(binding, &url, &follow, on_reply)?;
            }
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
            ": an A2A agent is sent to (SendMessage); `aiproto a2a serve` is the receiving side",
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
        assert_eq!(
            choose_interface(card).unwrap(),
            (Binding::JsonRpc, "https://a/rpc".into())
        );
        let rest = r#"{"supportedInterfaces": [{"url": "https://a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]}"#;
        assert_eq!(
            choose_interface(rest).unwrap(),
            (Binding::HttpJson, "https://a/rest".into())
        );
        let grpc = r#"{"supportedInterfaces": [{"url": "https://a/g", "protocolBinding": "GRPC", "protocolVersion": "1.0"}]}"#;
        assert!(choose_interface(grpc).unwrap_err().contains("GRPC 1.0"));
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
