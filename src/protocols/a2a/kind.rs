//! Which A2A object a document is: told from its fields alone (cheaply,
//! from the text, for detection; or from the parsed value), the JSON-RPC
//! envelope around it, and the 0.3 shapes that 1.0 replaced.

use serde_json::{Map, Value};

use super::text_field;
use crate::protocols::json_doc::Finding;

/// A JSON-RPC method of A2A 1.0 and the definition of its `params`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Method {
    pub name: &'static str,
    pub params: &'static str,
}

/// Every A2A 1.0 JSON-RPC method, with its A2A 0.3 name.
pub const METHODS: [(Method, &str); 11] = [
    (m("SendMessage", "SendMessageRequest"), "message/send"),
    (
        m("SendStreamingMessage", "SendMessageRequest"),
        "message/stream",
    ),
    (m("GetTask", "GetTaskRequest"), "tasks/get"),
    (m("ListTasks", "ListTasksRequest"), "tasks/list"),
    (m("CancelTask", "CancelTaskRequest"), "tasks/cancel"),
    (
        m("SubscribeToTask", "SubscribeToTaskRequest"),
        "tasks/resubscribe",
    ),
    (
        m(
            "CreateTaskPushNotificationConfig",
            "TaskPushNotificationConfig",
        ),
        "tasks/pushNotificationConfig/set",
    ),
    (
        m(
            "GetTaskPushNotificationConfig",
            "GetTaskPushNotificationConfigRequest",
        ),
        "tasks/pushNotificationConfig/get",
    ),
    (
        m(
            "ListTaskPushNotificationConfigs",
            "ListTaskPushNotificationConfigsRequest",
        ),
        "tasks/pushNotificationConfig/list",
    ),
    (
        m(
            "DeleteTaskPushNotificationConfig",
            "DeleteTaskPushNotificationConfigRequest",
        ),
        "tasks/pushNotificationConfig/delete",
    ),
    (
        m("GetExtendedAgentCard", "GetExtendedAgentCardRequest"),
        "agent/getAuthenticatedExtendedCard",
    ),
];

const fn m(name: &'static str, params: &'static str) -> Method {
    Method { name, params }
}

/// Fields only A2A objects have, as they appear (quoted) in a text.
pub const A2A_KEYS: [&str; 5] = [
    "\"messageId\"",
    "\"contextId\"",
    "\"taskId\"",
    "\"artifactId\"",
    "\"supportedInterfaces\"",
];

/// What an A2A document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Message,
    Task,
    /// `TaskStatusUpdateEvent`.
    StatusUpdate,
    /// `TaskArtifactUpdateEvent`.
    ArtifactUpdate,
    AgentCard,
    /// The body of `SendMessage` over HTTP+JSON: `{"message": …, "configuration": …}`.
    SendMessageRequest,
    /// A response wrapper holding one of task, message, statusUpdate or
    /// artifactUpdate (`SendMessageResponse`, `StreamResponse`).
    StreamResponse,
    ListTasksResponse,
    /// `TaskPushNotificationConfig`.
    PushConfig,
    /// A JSON-RPC request and the `params` it carries.
    Request(Method),
    Params(Method),
    /// A JSON-RPC response with a `result`.
    Result,
    /// A JSON-RPC response with an `error`.
    Error,
}

impl Kind {
    /// The bundle's definition of this object, for the schema and rules.
    pub fn definition(self) -> Option<&'static str> {
        Some(match self {
            Kind::Message => "Message",
            Kind::Task => "Task",
            Kind::StatusUpdate => "TaskStatusUpdateEvent",
            Kind::ArtifactUpdate => "TaskArtifactUpdateEvent",
            Kind::AgentCard => "AgentCard",
            Kind::SendMessageRequest => "SendMessageRequest",
            Kind::StreamResponse => "StreamResponse",
            Kind::ListTasksResponse => "ListTasksResponse",
            Kind::PushConfig => "TaskPushNotificationConfig",
            Kind::Params(method) => method.params,
            Kind::Request(_) | Kind::Result | Kind::Error => return None,
        })
    }

    /// How `inspect` and reports name it.
    pub fn label(self) -> String {
        match self {
            Kind::Request(method) | Kind::Params(method) => format!("{} request", method.name),
            Kind::Result => "JSON-RPC result".into(),
            Kind::Error => "JSON-RPC error".into(),
            other => other.definition().unwrap_or("").to_string(),
        }
    }
}

/// The fields a document is told by, wherever they are read from.
pub trait Fields {
    fn has(&self, key: &str) -> bool;
    /// Whether the field holds an object.
    fn holds_object(&self, key: &str) -> bool;
    /// The field's string value.
    fn text(&self, key: &str) -> Option<&str>;
}

impl Fields for Map<String, Value> {
    fn has(&self, key: &str) -> bool {
        self.contains_key(key)
    }
    fn holds_object(&self, key: &str) -> bool {
        self.get(key).is_some_and(Value::is_object)
    }
    fn text(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }
}

/// The top-level keys of a document's text, with the text to look their
/// values up in (detection reads no more than the first 64 KiB).
pub struct Head<'a> {
    pub keys: &'a [&'a str],
    pub text: &'a str,
}

impl Head<'_> {
    /// Where the value of a top-level key starts (after `"key":`).
    fn value_of(&self, key: &str) -> Option<&str> {
        let quoted = format!("\"{key}\"");
        self.text.match_indices(&quoted).find_map(|(at, _)| {
            let rest = self.text[at + quoted.len()..].trim_start();
            rest.strip_prefix(':').map(str::trim_start)
        })
    }
}

impl Fields for Head<'_> {
    fn has(&self, key: &str) -> bool {
        self.keys.contains(&key)
    }
    fn holds_object(&self, key: &str) -> bool {
        self.has(key) && self.value_of(key).is_some_and(|v| v.starts_with('{'))
    }
    fn text(&self, key: &str) -> Option<&str> {
        if !self.has(key) {
            return None;
        }
        let v = self.value_of(key)?.strip_prefix('"')?;
        v.find('"').map(|end| &v[..end])
    }
}

/// Which A2A object (1.0, or 0.3 to be named) the fields describe.
pub fn classify(f: &impl Fields) -> Option<Kind> {
    let has = |k: &str| f.has(k);
    let any = |ks: &[&str]| ks.iter().any(|k| f.has(k));
    if has("jsonrpc") {
        if let Some(name) = f.text("method") {
            return METHODS
                .iter()
                .find(|(m, old)| m.name == name || *old == name)
                .map(|(m, _)| Kind::Request(*m));
        }
        return if f.holds_object("error") && (has("id")) {
            Some(Kind::Error)
        } else if f.holds_object("result") {
            Some(Kind::Result)
        } else {
            None
        };
    }
    if any(&["messageId", "message_id"]) && any(&["parts", "role"]) {
        return Some(Kind::Message);
    }
    if any(&["taskId", "task_id"]) && has("status") {
        return Some(Kind::StatusUpdate);
    }
    if any(&["taskId", "task_id"]) && has("artifact") {
        return Some(Kind::ArtifactUpdate);
    }
    if has("id") && has("status") {
        return Some(Kind::Task);
    }
    // `capabilities` with the default modes too: a card written with its
    // keys sorted (as `aiproto sign` writes one) puts them before a long
    // `signatures`, and `skills` past the head that detection reads.
    if any(&["supportedInterfaces", "supported_interfaces"])
        || (has("skills") && any(&["capabilities", "defaultInputModes", "protocolVersion"]))
        || (has("capabilities") && any(&["defaultInputModes", "defaultOutputModes"]))
    {
        return Some(Kind::AgentCard);
    }
    if has("tasks") && any(&["nextPageToken", "totalSize", "pageSize"]) {
        return Some(Kind::ListTasksResponse);
    }
    if f.holds_object("message") && any(&["configuration", "metadata", "tenant"]) {
        return Some(Kind::SendMessageRequest);
    }
    let members = ["task", "message", "statusUpdate", "artifactUpdate"];
    if members.iter().any(|k| f.holds_object(k)) {
        return Some(Kind::StreamResponse);
    }
    if has("kind")
        && matches!(
            f.text("kind"),
            Some("message" | "task" | "status-update" | "artifact-update")
        )
    {
        return Some(Kind::Message); // 0.3, named by `version_0_3`
    }
    None
}

/// The kind of a detected document's text head.
pub fn from_keys(keys: &[&str], text: &str) -> Option<Kind> {
    classify(&Head { keys, text })
}

/// The kind of a parsed document, or the finding that says it is none.
pub fn of(map: &Map<String, Value>) -> Result<Kind, Box<Finding>> {
    if map.contains_key("jsonrpc")
        && let Some(name) = map.get("method").and_then(Value::as_str)
        && classify(map).is_none()
    {
        let names: Vec<&str> = METHODS.iter().map(|(m, _)| m.name).collect();
        let lower = name.to_ascii_lowercase();
        let near = names.iter().find(|n| {
            let n = n.to_ascii_lowercase();
            n == lower || super::rules::strsim_close(&n, &lower)
        });
        let hint = match near {
            Some(n) => format!("did you mean `{n}`?"),
            None => format!("the methods: {}", names.join(", ")),
        };
        return Err(Box::new(
            Finding::error(
                "/method",
                "A2A-METHOD",
                format!("`{name}` is not an A2A 1.0 method"),
            )
            .hinted(hint),
        ));
    }
    classify(map).ok_or_else(|| {
        Box::new(Finding::error(
            "",
            "A2A-KIND",
            "cannot tell which A2A object this is: no messageId with parts, no task id with status, no card with supportedInterfaces, no JSON-RPC method",
        ))
    })
}

/// A2A 0.3, told by what 1.0 removed or renamed: one finding naming what
/// changed, so that nothing of 0.3 is read as if it were 1.0.
pub fn version_0_3(map: &Map<String, Value>) -> Option<Finding> {
    let said = |what: &str, pointer: &str| {
        Some(
            Finding::error(
                pointer.to_string(),
                "A2A-OLD-VERSION",
                format!("this is A2A 0.3 ({what}); aiproto reads A2A 1.0, which is not wire-compatible"),
            )
            .hinted("1.0 dropped `kind` (a part is one of text, raw, url, data), writes roles as ROLE_USER/ROLE_AGENT and states as TASK_STATE_*, names methods SendMessage, GetTask…, and lists a card's endpoints in supportedInterfaces"),
        )
    };
    if let Some(name) = map.get("method").and_then(Value::as_str)
        && let Some((new, _)) = METHODS.iter().find(|(_, old)| *old == name)
    {
        return said(&format!("method `{name}`, now `{}`", new.name), "/method");
    }
    if let Some(kind @ ("message" | "task" | "status-update" | "artifact-update")) =
        map.get("kind").and_then(Value::as_str)
    {
        return said(&format!("`\"kind\": \"{kind}\"`"), "/kind");
    }
    if map.contains_key("protocolVersion")
        && map.contains_key("url")
        && !map.contains_key("supportedInterfaces")
        && map.contains_key("skills")
    {
        return said(
            "a card with `url` and `protocolVersion`",
            "/protocolVersion",
        );
    }
    for member in ["params", "result"] {
        if let Some(Value::Object(inner)) = map.get(member)
            && let Some(f) = version_0_3(inner)
        {
            let mut f = f;
            f.pointer = format!("/{member}{}", f.pointer);
            return Some(f);
        }
    }
    None
}

/// The JSON-RPC envelope's own findings.
pub fn envelope_findings(kind: Kind, map: &Map<String, Value>) -> Vec<Finding> {
    let mut out = Vec::new();
    if !matches!(kind, Kind::Request(_) | Kind::Result | Kind::Error) {
        return out;
    }
    if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        out.push(Finding::error(
            "/jsonrpc",
            "A2A-JSONRPC",
            "`jsonrpc` must be \"2.0\"",
        ));
    }
    match map.get("id") {
        Some(Value::String(_) | Value::Number(_)) => {}
        Some(Value::Null) if kind == Kind::Error => {} // an error about an unreadable request
        Some(_) => out.push(Finding::error(
            "/id",
            "A2A-JSONRPC",
            "a JSON-RPC id is a string or a number",
        )),
        None if matches!(kind, Kind::Request(_)) => out.push(Finding::warning(
            "",
            "A2A-JSONRPC",
            "a request without an `id` is a notification: the agent sends no answer",
        )),
        None => out.push(Finding::error(
            "",
            "A2A-JSONRPC",
            "a JSON-RPC response has an `id`",
        )),
    }
    if map.contains_key("result") && map.contains_key("error") {
        out.push(Finding::error(
            "/error",
            "A2A-JSONRPC",
            "a JSON-RPC response holds a result or an error, not both",
        ));
    }
    if matches!(kind, Kind::Request(_)) && !map.get("params").is_some_and(Value::is_object) {
        out.push(Finding::error(
            "/params",
            "A2A-JSONRPC",
            "an A2A request carries its parameters as a `params` object",
        ));
    }
    if kind == Kind::Error
        && let Some(Value::Object(error)) = map.get("error")
    {
        match error.get("code") {
            Some(Value::Number(n)) if n.is_i64() => {
                let code = n.as_i64().unwrap_or_default();
                if (-32099..=-32000).contains(&code) && crate::a2a_errors::name(code).is_none() {
                    out.push(Finding::warning(
                        "/error/code",
                        "A2A-ERROR-CODE",
                        format!(
                            "{code} is in A2A's range but names no A2A error (-32001 to -32009)"
                        ),
                    ));
                }
            }
            _ => out.push(Finding::error(
                "/error/code",
                "A2A-JSONRPC",
                "a JSON-RPC error has an integer `code`",
            )),
        }
        if !error.get("message").is_some_and(Value::is_string) {
            out.push(Finding::error(
                "/error/message",
                "A2A-JSONRPC",
                "a JSON-RPC error has a string `message`",
            ));
        }
    }
    out
}

/// The object a JSON-RPC envelope carries (`params`, `result`), with its
/// kind and where it sits; any other document is itself.
pub fn inner(kind: Kind, value: &Value) -> (Kind, &Value, String) {
    let member = |k: &str| value.get(k).unwrap_or(&Value::Null);
    match kind {
        Kind::Request(method) => (Kind::Params(method), member("params"), "/params".into()),
        Kind::Result => {
            let result = member("result");
            let kind = result
                .as_object()
                .and_then(classify)
                .unwrap_or(Kind::Result);
            (kind, result, "/result".into())
        }
        other => (other, value, String::new()),
    }
}

/// The A2A object a document carries in the end: past the JSON-RPC
/// envelope and past a wrapper (`{"task": …}`, a SendMessage body).
pub fn payload(kind: Kind, value: &Value) -> (Kind, &Value, String) {
    let (kind, value, at) = inner(kind, value);
    let unwrap = |key: &str, kind: Kind| -> Option<(Kind, &Value, String)> {
        value
            .get(key)
            .filter(|v| v.is_object())
            .map(|v| (kind, v, format!("{at}/{key}")))
    };
    let found = match kind {
        Kind::SendMessageRequest => unwrap("message", Kind::Message),
        Kind::Params(method) if method.params == "SendMessageRequest" => {
            unwrap("message", Kind::Message)
        }
        Kind::StreamResponse => unwrap("task", Kind::Task)
            .or_else(|| unwrap("message", Kind::Message))
            .or_else(|| unwrap("statusUpdate", Kind::StatusUpdate))
            .or_else(|| unwrap("artifactUpdate", Kind::ArtifactUpdate)),
        _ => None,
    };
    found.unwrap_or((kind, value, at))
}

/// The task a document reports a state of: its id, the state and where
/// the state is written.
pub fn task_state(doc: &super::A2aDoc) -> Option<(String, String, String)> {
    let (kind, value, at) = payload(doc.kind, &doc.json);
    let map = value.as_object()?;
    let id = match kind {
        Kind::Task => text_field(map, "id")?,
        Kind::StatusUpdate => text_field(map, "taskId")?,
        _ => return None,
    };
    let state = map.get("status")?.get("state")?.as_str()?;
    Some((
        id.to_string(),
        state.to_string(),
        format!("{at}/status/state"),
    ))
}
