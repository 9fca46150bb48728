//! The two HTTP bindings of A2A over the same calls: JSON-RPC 2.0 on one
//! path, and HTTP+JSON (REST) under another, each with its error shape
//! and its server-sent events for streams.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Frame;
use hyper::{Method, Response, StatusCode, header};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use super::calls::Bridge;
use super::card::REST;
use super::errors::A2aError;
use super::tasks::ends_wait;
use crate::transport::door::{self, Body};

/// What a call answers: one object, or a stream that starts with the
/// task as it is and follows its events.
pub enum Reply {
    Object(Value),
    Stream(Value, broadcast::Receiver<Value>, Until),
}

/// Where a stream closes: a sent message's, once the task ends or waits
/// for the client; a subscription's, only once the task ends (it may be
/// the client's way to follow a task that waits for input).
#[derive(Clone, Copy)]
pub enum Until {
    EndsOrWaits,
    Ends,
}

impl Until {
    fn reached(self, state: &str) -> bool {
        match self {
            Until::EndsOrWaits => ends_wait(state),
            Until::Ends => crate::operations::bridging::is_terminal(state),
        }
    }
}

fn extended_card() -> A2aError {
    A2aError::new(
        -32007,
        "this agent has no extended Agent Card (capabilities.extendedAgentCard is false)",
    )
}

/// Whether a request's `Content-Type` is JSON (`application/json`, or the
/// `application/a2a+json` of the spec's examples; parameters allowed).
pub fn is_json(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|t| t.split(';').next())
        .map(|t| t.trim().to_ascii_lowercase())
        .is_some_and(|t| t == "application/json" || t == "application/a2a+json")
}

/// The A2A version a request asks for (header, else query parameter),
/// refused unless it is 1.0 (a patch number is not looked at).
pub fn version_refused(headers: &hyper::HeaderMap, query: Option<&str>) -> Option<A2aError> {
    let given = headers
        .get("a2a-version")
        .map(|v| v.to_str().unwrap_or("\u{FFFD}").trim().to_string())
        .or_else(|| {
            query_pairs(query.unwrap_or_default())
                .into_iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("A2A-Version"))
                .map(|(_, v)| v)
        });
    let major_minor = given
        .as_deref()
        .map(|v| v.split('.').take(2).collect::<Vec<_>>().join("."));
    (major_minor.as_deref() != Some("1.0")).then(|| A2aError::version(given.as_deref()))
}

/// A JSON-RPC request's body answered.
pub async fn json_rpc(
    bridge: &Arc<Bridge>,
    body: &[u8],
    json_body: bool,
    version: Option<A2aError>,
) -> Response<Body> {
    if !json_body {
        // Named before the body is read: a body of another type need not
        // be JSON at all.
        let id = serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|r| r.get("id").cloned())
            .unwrap_or(Value::Null);
        return rpc_error(
            &id,
            &A2aError::content_type("the request's Content-Type (send application/json)"),
        );
    }
    let request: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return rpc_error(&Value::Null, &A2aError::parse(e)),
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    if !matches!(id, Value::Null | Value::String(_) | Value::Number(_)) {
        return rpc_error(
            &Value::Null,
            &A2aError::invalid_request("id must be a string, a number or null"),
        );
    }
    if request.get("jsonrpc") != Some(&json!("2.0")) {
        let why = if request.is_array() {
            "batches are not served: one call per request"
        } else {
            "a JSON-RPC 2.0 request needs \"jsonrpc\": \"2.0\""
        };
        return rpc_error(&id, &A2aError::invalid_request(why));
    }
    let Some(method) = request.get("method").and_then(Value::as_str) else {
        return rpc_error(&id, &A2aError::invalid_request("method must be a string"));
    };
    if let Some(refused) = version {
        return rpc_error(&id, &refused);
    }
    if let Some(refused) = inexact(body) {
        return rpc_error(&id, &refused);
    }
    let params = &camel_case(request.get("params").cloned().unwrap_or(Value::Null));
    let reply = match method {
        "SendMessage" => bridge.send(params).await.map(Reply::Object),
        "SendStreamingMessage" => super::calls::checked(Some(params), "SendMessageRequest")
            .and_then(|p| bridge.start(p))
            .map(|s| Reply::Stream(s.snapshot, s.events, Until::EndsOrWaits)),
        "GetTask" => bridge.get(params).map(Reply::Object),
        "ListTasks" => bridge.list(params).map(Reply::Object),
        "CancelTask" => bridge.cancel(params).map(Reply::Object),
        "SubscribeToTask" => bridge
            .subscribe(params)
            .map(|(task, events)| Reply::Stream(task, events, Until::Ends)),
        "GetExtendedAgentCard" => Err(extended_card()),
        "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig" => Err(A2aError::push_not_supported()),
        other => Err(method_not_found(other)),
    };
    match reply {
        Ok(Reply::Object(result)) => json_response(
            StatusCode::OK,
            &json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        ),
        Ok(Reply::Stream(task, events, until)) => {
            let wrap = move |result: Value| json!({ "jsonrpc": "2.0", "id": id, "result": result });
            stream(bridge, task, events, until, wrap)
        }
        Err(e) => rpc_error(&id, &e),
    }
}

fn method_not_found(method: &str) -> A2aError {
    let hint = match crate::operations::bridging::method_meant(method) {
        Some(m) if method.contains('/') => {
            format!("; that is A2A 0.3's name: 1.0 calls it `{m}`")
        }
        Some(m) => format!("; did you mean `{m}`?"),
        None => String::new(),
    };
    A2aError::new(-32601, format!("no method `{method}` in A2A 1.0{hint}"))
}

/// The refusal of a body holding numbers a JSON reader would change: the
/// HSP agent would read another number than the client sent, and the
/// bridge cannot carry it as written inside the parameters.
fn inexact(body: &[u8]) -> Option<A2aError> {
    let text = std::str::from_utf8(body).ok()?;
    let numbers = crate::operations::bridging::inexact_numbers(text);
    (!numbers.is_empty()).then(|| {
        A2aError::invalid_params(format!(
            "numbers beyond a double's precision would reach the HSP agent as other numbers: {}; send them as strings",
            numbers.join(", ")
        ))
    })
}

/// An HTTP+JSON request answered: `path` is below the binding's base.
pub async fn rest(
    bridge: &Arc<Bridge>,
    method: &Method,
    path: &str,
    query: Option<&str>,
    body: &[u8],
    json_body: bool,
) -> Response<Body> {
    let path = path.strip_prefix(REST).unwrap_or(path);
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    // A POST that needs no body (cancel, subscribe) may come without one.
    let wants_body = *method == Method::POST && !body.iter().all(u8::is_ascii_whitespace);
    let params: Value = if wants_body {
        if !json_body {
            return rest_error(&A2aError::content_type(
                "the request's Content-Type (send application/json)",
            ));
        }
        match serde_json::from_slice(body) {
            Ok(v) => match inexact(body) {
                Some(refused) => return rest_error(&refused),
                None => camel_case(v),
            },
            Err(e) => return rest_error(&A2aError::parse(e)),
        }
    } else {
        Value::Null
    };
    let reply = match (method.clone(), segments.as_slice()) {
        (Method::POST, ["message:send"]) => bridge.send(&params).await.map(Reply::Object),
        (Method::POST, ["message:stream"]) => {
            super::calls::checked(Some(&params), "SendMessageRequest")
                .and_then(|p| bridge.start(p))
                .map(|s| Reply::Stream(s.snapshot, s.events, Until::EndsOrWaits))
        }
        (Method::GET, ["tasks"]) => bridge
            .list(&query_params(query, &["pageSize", "historyLength"]))
            .map(Reply::Object),
        (Method::GET, ["tasks", id]) => {
            let mut p = query_params(query, &["historyLength"]);
            p["id"] = json!(id);
            bridge.get(&p).map(Reply::Object)
        }
        (Method::POST, ["tasks", action]) if action.ends_with(":cancel") => {
            let mut p = if params.is_object() {
                params
            } else {
                json!({})
            };
            p["id"] = json!(action.trim_end_matches(":cancel"));
            bridge.cancel(&p).map(Reply::Object)
        }
        (Method::POST, ["tasks", action]) if action.ends_with(":subscribe") => {
            let p = json!({ "id": action.trim_end_matches(":subscribe") });
            bridge
                .subscribe(&p)
                .map(|(task, events)| Reply::Stream(task, events, Until::Ends))
        }
        (_, ["tasks", _, "pushNotificationConfigs", ..]) => Err(A2aError::push_not_supported()),
        (Method::GET, ["extendedAgentCard"]) => Err(extended_card()),
        _ => {
            return door::plain(
                StatusCode::NOT_FOUND,
                &format!(
                    "no A2A HTTP+JSON operation at {method} {REST}{path} (message:send, message:stream, tasks, tasks/ID, tasks/ID:cancel, tasks/ID:subscribe)"
                ),
            );
        }
    };
    match reply {
        Ok(Reply::Object(result)) => json_response(StatusCode::OK, &result),
        Ok(Reply::Stream(task, events, until)) => stream(bridge, task, events, until, |v| v),
        Err(e) => rest_error(&e),
    }
}

/// Params with the proto's own field names (`context_id`) under their
/// JSON names (`contextId`), as ProtoJSON readers take both: A2A writes
/// camelCase, and the TCK sends ListTasks in snake_case. The content of
/// `data` parts and of `metadata` is the sender's, left as it is.
fn camel_case(value: Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(
            object
                .into_iter()
                .map(|(key, value)| {
                    let key = camel(key);
                    let value = match key.as_str() {
                        "data" | "metadata" => value,
                        _ => camel_case(value),
                    };
                    (key, value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(camel_case).collect()),
        other => other,
    }
}

/// A proto field name as its JSON name (`page_size`: `pageSize`).
fn camel(key: String) -> String {
    if !key.contains('_') {
        return key;
    }
    let mut camel = String::new();
    let mut upper = false;
    for c in key.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                camel.extend(c.to_uppercase());
                upper = false;
            }
            c => camel.push(c),
        }
    }
    camel
}

/// The query's parameters as request params: numbers where `numeric`
/// says, booleans for `true`/`false`, the rest as text.
fn query_params(query: Option<&str>, numeric: &[&str]) -> Value {
    let mut params = serde_json::Map::new();
    for (key, value) in query_pairs(query.unwrap_or_default()) {
        if key.eq_ignore_ascii_case("A2A-Version") {
            continue;
        }
        let key = camel(key);
        let typed = if numeric.contains(&key.as_str()) {
            value.parse::<u64>().map_or(json!(value), |n| json!(n))
        } else if value == "true" || value == "false" {
            json!(value == "true")
        } else {
            json!(value)
        };
        params.insert(key, typed);
    }
    Value::Object(params)
}

/// `a=b&c=d`, percent-decoded.
fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let text = text.replace('+', " ");
    percent_encoding::percent_decode_str(&text)
        .decode_utf8_lossy()
        .into_owned()
}

fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    door::whole(status, "application/json", Bytes::from(value.to_string()))
}

fn rpc_error(id: &Value, error: &A2aError) -> Response<Body> {
    json_response(
        StatusCode::OK,
        &json!({ "jsonrpc": "2.0", "id": id, "error": error.json_rpc() }),
    )
}

pub fn rest_error(error: &A2aError) -> Response<Body> {
    let status = StatusCode::from_u16(error.http_status()).unwrap_or(StatusCode::BAD_REQUEST);
    json_response(status, &error.rest_body())
}

/// A server-sent event stream: `{"task": …}` first, then each event of
/// the task until `until`, each wrapped for the binding. A reader that falls behind is sent the task as it is then.
fn stream(
    bridge: &Arc<Bridge>,
    task: Value,
    mut events: broadcast::Receiver<Value>,
    until: Until,
    wrap: impl Fn(Value) -> Value + Send + Sync + 'static,
) -> Response<Body> {
    let (sender, receiver) = mpsc::channel::<Bytes>(16);
    let id = task["id"].as_str().unwrap_or_default().to_string();
    let bridge = Arc::clone(bridge);
    let ended = until.reached(task["status"]["state"].as_str().unwrap_or_default());
    tokio::spawn(async move {
        let frame = |value: Value| Bytes::from(format!("data: {}\n\n", wrap(value)));
        if sender.send(frame(json!({ "task": task }))).await.is_err() || ended {
            return;
        }
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                Err(broadcast::error::RecvError::Closed) => return,
                Err(broadcast::error::RecvError::Lagged(_)) => match bridge.tasks.get(&id, None) {
                    Some(now) => {
                        let state = now["status"]["state"].as_str().unwrap_or_default();
                        let done = until.reached(state);
                        if sender.send(frame(json!({ "task": now }))).await.is_err() || done {
                            return;
                        }
                        continue;
                    }
                    None => return,
                },
            };
            let state = event
                .pointer("/statusUpdate/status/state")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if sender.send(frame(event)).await.is_err() || until.reached(&state) {
                return;
            }
        }
    });
    let mut response = Response::new(Events { receiver }.boxed());
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-cache"),
    );
    response
}

/// A body fed by a channel: each message one frame, the end when the
/// sender is gone.
struct Events {
    receiver: mpsc::Receiver<Bytes>,
}

impl hyper::body::Body for Events {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.receiver
            .poll_recv(cx)
            .map(|next| next.map(|bytes| Ok(Frame::data(bytes))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_take_major_and_minor_and_no_header_is_0_3() {
        let mut headers = hyper::HeaderMap::new();
        assert_eq!(version_refused(&headers, None).unwrap().code, -32009);
        assert!(version_refused(&headers, Some("A2A-Version=1.0")).is_none());
        headers.insert("a2a-version", "1.0.1".parse().unwrap());
        assert!(version_refused(&headers, None).is_none());
        headers.insert("a2a-version", "0.3".parse().unwrap());
        assert!(version_refused(&headers, None).is_some());
    }

    #[test]
    fn json_content_types_are_both_spellings() {
        assert!(is_json(Some("application/json")));
        assert!(is_json(Some("application/a2a+json; charset=utf-8")));
        assert!(!is_json(Some("text/plain")));
        assert!(!is_json(None));
    }

    #[test]
    fn old_and_misspelt_methods_are_named() {
        assert!(
            method_not_found("message/send")
                .message
                .contains("`SendMessage`")
        );
        assert!(
            method_not_found("sendmessage")
                .message
                .contains("SendMessage")
        );
        assert!(
            !method_not_found("Frobnicate")
                .message
                .contains("did you mean")
        );
    }

    #[test]
    fn proto_names_are_read_as_json_names_but_not_inside_data() {
        let params = json!({"context_id": "c", "page_size": 2,
            "message": {"message_id": "m", "parts": [{"data": {"keep_me": 1}}], "metadata": {"x_y": 1}}});
        assert_eq!(
            camel_case(params),
            json!({"contextId": "c", "pageSize": 2,
                "message": {"messageId": "m", "parts": [{"data": {"keep_me": 1}}], "metadata": {"x_y": 1}}})
        );
    }

    #[test]
    fn queries_are_decoded_and_typed() {
        let p = query_params(
            Some("contextId=a%20b&pageSize=2&includeArtifacts=true&A2A-Version=1.0"),
            &["pageSize"],
        );
        assert_eq!(
            p,
            json!({"contextId": "a b", "pageSize": 2, "includeArtifacts": true})
        );
    }
}
