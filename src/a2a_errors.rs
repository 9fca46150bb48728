//! The JSON-RPC error codes of A2A 1.0's binding, by name: JSON-RPC's own
//! and A2A's (-32001 to -32009). Below both of their users: the A2A reader
//! (which checks an error response) and the A2A transport (which names an
//! agent's refusal).

/// Every code the spec assigns, with the error it names.
pub const ERRORS: [(i64, &str); 14] = [
    (-32700, "JSONParseError"),
    (-32600, "InvalidRequestError"),
    (-32601, "MethodNotFoundError"),
    (-32602, "InvalidParamsError"),
    (-32603, "InternalError"),
    (-32001, "TaskNotFoundError"),
    (-32002, "TaskNotCancelableError"),
    (-32003, "PushNotificationNotSupportedError"),
    (-32004, "UnsupportedOperationError"),
    (-32005, "ContentTypeNotSupportedError"),
    (-32006, "InvalidAgentResponseError"),
    (-32007, "ExtendedAgentCardNotConfiguredError"),
    (-32008, "ExtensionSupportRequiredError"),
    (-32009, "VersionNotSupportedError"),
];

/// The error a code names, if the spec assigns it.
pub fn name(code: i64) -> Option<&'static str> {
    ERRORS.iter().find(|(c, _)| *c == code).map(|(_, n)| *n)
}

/// An error's ErrorInfo `reason`: its name in UPPER_SNAKE_CASE without
/// `Error` (`TaskNotFoundError`: `TASK_NOT_FOUND`).
pub fn reason(name: &str) -> String {
    let mut reason = String::new();
    for (i, c) in name.trim_end_matches("Error").chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            reason.push('_');
        }
        reason.push(c.to_ascii_uppercase());
    }
    reason
}
