//! The bridge's refusals, one value for both bindings: a JSON-RPC error
//! (code, message, `data` with the `google.rpc.ErrorInfo` A2A requires)
//! or an HTTP+JSON one (the status of the spec's table, AIP-193's body).

use serde_json::{Value, json};

/// An A2A error: its JSON-RPC code, what happened, and the context
/// (`metadata` of the ErrorInfo).
#[derive(Debug, Clone, PartialEq)]
pub struct A2aError {
    pub code: i64,
    pub message: String,
    pub metadata: serde_json::Map<String, Value>,
}

impl A2aError {
    pub fn new(code: i64, message: impl Into<String>) -> A2aError {
        A2aError {
            code,
            message: message.into(),
            metadata: serde_json::Map::new(),
        }
    }

    fn about(mut self, key: &str, value: &str) -> A2aError {
        self.metadata.insert(key.into(), json!(value));
        self
    }

    pub fn parse(why: impl std::fmt::Display) -> A2aError {
        A2aError::new(-32700, format!("the body is not JSON: {why}"))
    }

    pub fn invalid_request(why: impl Into<String>) -> A2aError {
        A2aError::new(-32600, why)
    }

    pub fn invalid_params(why: impl Into<String>) -> A2aError {
        A2aError::new(-32602, why)
    }

    pub fn internal(why: impl Into<String>) -> A2aError {
        A2aError::new(-32603, why)
    }

    pub fn task_not_found(id: &str) -> A2aError {
        A2aError::new(-32001, format!("no task `{id}` here")).about("taskId", id)
    }

    pub fn not_cancelable(id: &str, state: &str) -> A2aError {
        A2aError::new(
            -32002,
            format!("task `{id}` has ended ({state}): there is nothing to cancel"),
        )
        .about("taskId", id)
    }

    pub fn unsupported(why: impl Into<String>) -> A2aError {
        A2aError::new(-32004, why)
    }

    pub fn push_not_supported() -> A2aError {
        A2aError::new(
            -32003,
            "push notifications are not offered (capabilities.pushNotifications is false): poll GetTask or stream",
        )
    }

    pub fn content_type(what: &str) -> A2aError {
        A2aError::new(
            -32005,
            format!(
                "{what}: the bridge carries text/plain and application/json (what an HSP payload holds)"
            ),
        )
    }

    pub fn version(given: Option<&str>) -> A2aError {
        let said = match given {
            None | Some("") => "no A2A-Version was sent, which the spec reads as 0.3".to_string(),
            Some(v) => format!("A2A-Version {v}"),
        };
        A2aError::new(
            -32009,
            format!("{said}; this agent speaks A2A 1.0: send the header `A2A-Version: 1.0`"),
        )
        .about("supportedVersions", "1.0")
    }

    /// The error's name in the spec (`TaskNotFoundError`).
    fn name(&self) -> &'static str {
        crate::a2a_errors::name(self.code).unwrap_or("InternalError")
    }

    /// The ErrorInfo `reason`: the name in UPPER_SNAKE_CASE without `Error`.
    fn reason(&self) -> String {
        crate::a2a_errors::reason(self.name())
    }

    fn details(&self) -> Value {
        json!([{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": self.reason(),
            "domain": "a2a-protocol.org",
            "metadata": self.metadata,
        }])
    }

    /// The JSON-RPC error object.
    pub fn json_rpc(&self) -> Value {
        let mut error = json!({ "code": self.code, "message": self.message });
        if self.code > -32100 {
            error["data"] = self.details();
        }
        error
    }

    /// The HTTP status of the spec's table (§5.4) and JSON-RPC's own.
    pub fn http_status(&self) -> u16 {
        match self.code {
            -32001 => 404,
            -32002 => 409,
            -32005 => 415,
            -32006 => 502,
            -32601 => 404,
            -32603 => 500,
            _ => 400,
        }
    }

    /// The HTTP+JSON error body (AIP-193).
    pub fn rest_body(&self) -> Value {
        let status = match self.http_status() {
            404 => "NOT_FOUND",
            409 => "FAILED_PRECONDITION",
            415 | 400 => "INVALID_ARGUMENT",
            502 | 500 => "INTERNAL",
            _ => "UNKNOWN",
        };
        let mut error = json!({
            "code": self.http_status(),
            "status": status,
            "message": self.message,
        });
        if self.code > -32100 {
            error["details"] = self.details();
        }
        json!({ "error": error })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_the_names_in_upper_snake_case() {
        assert_eq!(A2aError::task_not_found("t").reason(), "TASK_NOT_FOUND");
        assert_eq!(A2aError::version(None).reason(), "VERSION_NOT_SUPPORTED");
        let rest = A2aError::not_cancelable("t", "TASK_STATE_COMPLETED").rest_body();
        assert_eq!(rest["error"]["code"], 409);
        assert_eq!(rest["error"]["details"][0]["metadata"]["taskId"], "t");
        // JSON-RPC's own errors carry no A2A ErrorInfo.
        assert!(A2aError::parse("x").json_rpc().get("data").is_none());
    }
}
