//! The HSP task payloads A2A says natively. A TaskRequest's `parameters`
//! are the data part of the user message (`{"text": …}` alone: a text
//! part); a TaskResult's `payload` is the task's artifact, its `status`
//! the task state and its error message the status message. The rest of
//! the HSP payload (ids, capability filter, callback address, error code)
//! travels in the object's `metadata` as `x_hsp_payload`, so that the way
//! back rebuilds the payload exactly.

use serde_json::{Map, Value, json};

use crate::model::Body;

/// The `metadata` key of the rest of an HSP payload.
pub const KEY: &str = "x_hsp_payload";

/// An HSP task payload split into what A2A says natively and the rest.
pub struct Split {
    /// The content: a request's parameters, a result's payload (none for a
    /// result that carries no payload, e.g. a failure).
    pub content: Option<Body>,
    /// A failed result's error message, for the task's status message.
    pub error: Option<String>,
    pub rest: Map<String, Value>,
}

/// A body that is an HSP TaskRequest payload, for a message, or a
/// TaskResult payload, for a task (`kind` is the A2A object written).
pub fn split(body: &Body, kind: &str) -> Option<Split> {
    let Body::Json(Value::Object(payload)) = body else {
        return None;
    };
    let has = |k: &str| payload.contains_key(k);
    let mut rest = payload.clone();
    match kind {
        "message"
            if has("request_id") && payload.get("parameters").is_some_and(Value::is_object) =>
        {
            let parameters = rest.remove("parameters").unwrap_or_default();
            let content = match parameters.as_object().map(|p| (p.len(), p.get("text"))) {
                Some((1, Some(Value::String(t)))) => Body::Text(t.clone()),
                _ => Body::Json(parameters),
            };
            Some(Split {
                content: Some(content),
                error: None,
                rest,
            })
        }
        "task" if has("result_id") && has("request_id") && has("status") => {
            let content = rest.remove("payload").map(|p| match p {
                Value::String(t) => Body::Text(t),
                other => Body::Json(other),
            });
            let error = payload
                .get("error_details")
                .and_then(|e| e.get("error_message"))
                .and_then(Value::as_str)
                .map(str::to_string);
            Some(Split {
                content,
                error,
                rest,
            })
        }
        _ => None,
    }
}

/// The HSP payload again from the rest and the content A2A carried.
pub fn join(kind: &str, content: Option<&Body>, mut rest: Map<String, Value>) -> Body {
    match (kind, content) {
        ("message", Some(Body::Text(t))) => {
            rest.insert("parameters".into(), json!({ "text": t }));
        }
        ("message", Some(Body::Json(v))) => {
            rest.insert("parameters".into(), v.clone());
        }
        (_, Some(Body::Text(t))) => {
            rest.insert("payload".into(), json!(t));
        }
        (_, Some(Body::Json(v))) => {
            rest.insert("payload".into(), v.clone());
        }
        (_, None) => {}
    }
    Body::Json(Value::Object(rest))
}
