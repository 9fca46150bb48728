//! What the A2A 1.0 schema bundle cannot say, checked by walking a document
//! with the bundle's own definitions as the map: the fields the proto marks
//! REQUIRED (a required list must not be empty), the `oneof` groups (a
//! part is exactly one of text, raw, url or data), field names in camelCase
//! (ProtoJSON readers take snake_case, A2A 1.0 says MUST NOT write it),
//! enums by name and not `…_UNSPECIFIED` or a number, timestamps in UTC
//! with `Z`, and fields the bundle does not define (a warning: the spec
//! tells readers to ignore them).

use serde_json::{Map, Value};

use super::schema::{self, snake_case};
use crate::protocols::json_doc::Finding;

/// The fields the proto marks REQUIRED, by definition (camelCase).
const REQUIRED: &[(&str, &[&str])] = &[
    ("Task", &["id", "status"]),
    ("TaskStatus", &["state"]),
    ("Message", &["messageId", "role", "parts"]),
    ("Artifact", &["artifactId", "parts"]),
    ("TaskStatusUpdateEvent", &["taskId", "contextId", "status"]),
    (
        "TaskArtifactUpdateEvent",
        &["taskId", "contextId", "artifact"],
    ),
    ("AuthenticationInfo", &["scheme"]),
    (
        "AgentInterface",
        &["url", "protocolBinding", "protocolVersion"],
    ),
    (
        "AgentCard",
        &[
            "name",
            "description",
            "supportedInterfaces",
            "version",
            "capabilities",
            "defaultInputModes",
            "defaultOutputModes",
            "skills",
        ],
    ),
    ("AgentProvider", &["url", "organization"]),
    ("AgentSkill", &["id", "name", "description", "tags"]),
    ("AgentCardSignature", &["protected", "signature"]),
    ("TaskPushNotificationConfig", &["url"]),
    ("APIKeySecurityScheme", &["location", "name"]),
    ("HTTPAuthSecurityScheme", &["scheme"]),
    ("OAuth2SecurityScheme", &["flows"]),
    ("OpenIdConnectSecurityScheme", &["openIdConnectUrl"]),
    (
        "AuthorizationCodeOAuthFlow",
        &["authorizationUrl", "tokenUrl", "scopes"],
    ),
    ("ClientCredentialsOAuthFlow", &["tokenUrl", "scopes"]),
    (
        "DeviceCodeOAuthFlow",
        &["deviceAuthorizationUrl", "tokenUrl", "scopes"],
    ),
    ("SendMessageRequest", &["message"]),
    ("GetTaskRequest", &["id"]),
    ("CancelTaskRequest", &["id"]),
    ("SubscribeToTaskRequest", &["id"]),
    ("GetTaskPushNotificationConfigRequest", &["taskId", "id"]),
    ("DeleteTaskPushNotificationConfigRequest", &["taskId", "id"]),
    ("ListTaskPushNotificationConfigsRequest", &["taskId"]),
];

/// Required fields that may hold an empty value: a last page has no next
/// page token, and a list may be empty.
const MAY_BE_EMPTY: &[(&str, &str)] = &[
    ("ListTasksResponse", "tasks"),
    ("ListTasksResponse", "nextPageToken"),
];

/// The `oneof` groups: exactly one of these fields is set.
const ONE_OF: &[(&str, &[&str])] = &[
    ("Part", &["text", "raw", "url", "data"]),
    ("SendMessageResponse", &["task", "message"]),
    (
        "StreamResponse",
        &["task", "message", "statusUpdate", "artifactUpdate"],
    ),
    (
        "SecurityScheme",
        &[
            "apiKeySecurityScheme",
            "httpAuthSecurityScheme",
            "oauth2SecurityScheme",
            "openIdConnectSecurityScheme",
            "mtlsSecurityScheme",
        ],
    ),
    (
        "OAuthFlows",
        &[
            "authorizationCode",
            "clientCredentials",
            "implicit",
            "password",
            "deviceCode",
        ],
    ),
];

/// The enum fields, by definition, with the names they may hold.
const ENUMS: &[(&str, &str, &[&str])] = &[
    ("Message", "role", &["ROLE_USER", "ROLE_AGENT"]),
    (
        "TaskStatus",
        "state",
        &[
            "TASK_STATE_SUBMITTED",
            "TASK_STATE_WORKING",
            "TASK_STATE_COMPLETED",
            "TASK_STATE_FAILED",
            "TASK_STATE_CANCELED",
            "TASK_STATE_INPUT_REQUIRED",
            "TASK_STATE_REJECTED",
            "TASK_STATE_AUTH_REQUIRED",
        ],
    ),
];

/// Definitions whose fields are free-form (protobuf `Struct`, `Value`):
/// their contents are not walked.
const OPAQUE: &[&str] = &["Struct", "Value"];

/// How deep the walk goes: deeper JSON is the schema's to judge.
const MAX_DEPTH: usize = 64;

/// Every rule finding of a document read as the definition `name`.
pub fn check(value: &Value, name: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    walk(value, name, "", 0, &mut out);
    out
}

fn pointer_to(at: &str, key: &str) -> String {
    format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// The definition a property's schema points at, for itself or its items
/// (or the values of a map).
fn target_of(property: &Value) -> Option<(Shape, &str)> {
    fn name(v: &Value) -> Option<&str> {
        v.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
    }
    if let Some(n) = name(property) {
        return Some((Shape::One, n));
    }
    if let Some(n) = property.get("items").and_then(name) {
        return Some((Shape::List, n));
    }
    if let Some(n) = property.get("additionalProperties").and_then(name) {
        return Some((Shape::Map, n));
    }
    None
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    One,
    List,
    Map,
}

fn walk(value: &Value, name: &str, at: &str, depth: usize, out: &mut Vec<Finding>) {
    if depth > MAX_DEPTH || OPAQUE.contains(&name) {
        return;
    }
    if name == "Timestamp" {
        timestamp(value, at, out);
        return;
    }
    let Value::Object(map) = value else {
        return; // the schema says what type it wanted
    };
    let Some(definition) = schema::definitions().get(name) else {
        return;
    };
    let no_properties = Map::new();
    let properties = definition
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&no_properties);
    required(map, name, at, out);
    one_of(map, name, at, out);
    enums(map, name, at, out);
    for (key, field) in map {
        let here = pointer_to(at, key);
        let property = match properties.get(key) {
            Some(p) => p,
            None => match properties
                .iter()
                .find(|(camel, _)| snake_case(camel) == *key && camel.as_str() != key)
            {
                Some((camel, p)) => {
                    out.push(
                        Finding::error(
                            here.clone(),
                            "A2A-FIELD-CASE",
                            format!("`{key}` is written in snake_case; A2A 1.0 JSON names it `{camel}`"),
                        )
                        .hinted("ProtoJSON readers accept both, but the spec says every A2A JSON serialisation MUST use camelCase"),
                    );
                    p
                }
                None => {
                    out.push(unknown_field(name, key, &here, properties));
                    continue;
                }
            },
        };
        let Some((shape, target)) = target_of(property) else {
            continue;
        };
        match (shape, field) {
            (Shape::One, _) => walk(field, target, &here, depth + 1, out),
            (Shape::List, Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, target, &format!("{here}/{i}"), depth + 1, out);
                }
            }
            (Shape::Map, Value::Object(entries)) => {
                for (k, item) in entries {
                    walk(item, target, &pointer_to(&here, k), depth + 1, out);
                }
            }
            _ => {}
        }
    }
}

/// A field the definition does not have: a warning, as the spec tells
/// readers to ignore unrecognised fields; a near name is suggested.
fn unknown_field(name: &str, key: &str, here: &str, properties: &Map<String, Value>) -> Finding {
    let lower = key.to_ascii_lowercase().replace('_', "");
    let near = properties
        .keys()
        .find(|p| p.to_ascii_lowercase() == lower || strsim_close(&p.to_ascii_lowercase(), &lower));
    let f = Finding::warning(
        here,
        "A2A-UNKNOWN-FIELD",
        format!("`{key}` is not a field of an A2A 1.0 {name}; readers ignore it"),
    );
    match near {
        Some(p) => f.hinted(format!("did you mean `{p}`?")),
        None => f.hinted(format!(
            "the fields of {name}: {}",
            properties.keys().cloned().collect::<Vec<_>>().join(", ")
        )),
    }
}

/// Whether two names differ by one edit at most (a typo).
pub fn strsim_close(a: &str, b: &str) -> bool {
    if a.len().abs_diff(b.len()) > 1 || a.len() < 4 {
        return false;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (mut i, mut j, mut edits) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            i += 1;
            j += 1;
            continue;
        }
        edits += 1;
        if edits > 1 {
            return false;
        }
        match a.len().cmp(&b.len()) {
            std::cmp::Ordering::Greater => i += 1,
            std::cmp::Ordering::Less => j += 1,
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
    edits + (a.len() - i) + (b.len() - j) <= 1
}

/// The value of a field under its camelCase name or its snake_case one.
fn field<'a>(map: &'a Map<String, Value>, camel: &str) -> Option<&'a Value> {
    map.get(camel).or_else(|| map.get(&snake_case(camel)))
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

fn required(map: &Map<String, Value>, name: &str, at: &str, out: &mut Vec<Finding>) {
    let Some((_, fields)) = REQUIRED.iter().find(|(n, _)| *n == name) else {
        return;
    };
    for camel in *fields {
        let may_be_empty = MAY_BE_EMPTY.contains(&(name, camel));
        match field(map, camel) {
            None => out.push(Finding::error(
                at.to_string(),
                "A2A-REQUIRED",
                format!("{name} has no `{camel}`, which A2A 1.0 requires"),
            )),
            Some(v) if is_empty(v) && !may_be_empty => {
                let what = if v.is_array() {
                    "an empty list"
                } else {
                    "empty"
                };
                out.push(Finding::error(
                    pointer_to(at, camel),
                    "A2A-REQUIRED",
                    format!("{name}.{camel} is {what}; A2A 1.0 requires a value (a required list holds at least one item)"),
                ));
            }
            Some(_) => {}
        }
    }
}

fn one_of(map: &Map<String, Value>, name: &str, at: &str, out: &mut Vec<Finding>) {
    let Some((_, group)) = ONE_OF.iter().find(|(n, _)| *n == name) else {
        return;
    };
    let set: Vec<&str> = group
        .iter()
        .copied()
        .filter(|camel| field(map, camel).is_some())
        .collect();
    let list = group.join(", ");
    match set.as_slice() {
        [_] => {}
        [] => out.push(Finding::error(
            at.to_string(),
            "A2A-ONE-OF",
            format!("a {name} holds exactly one of {list}; this one holds none"),
        )),
        [_, second, ..] => out.push(Finding::error(
            pointer_to(at, second),
            "A2A-ONE-OF",
            format!(
                "a {name} holds exactly one of {list}; this one holds {}",
                set.join(" and ")
            ),
        )),
    }
}

fn enums(map: &Map<String, Value>, name: &str, at: &str, out: &mut Vec<Finding>) {
    for (_, camel, names) in ENUMS.iter().filter(|(n, _, _)| *n == name) {
        let Some(value) = field(map, camel) else {
            continue;
        };
        let here = pointer_to(at, camel);
        let said = match value {
            Value::String(s) if names.contains(&s.as_str()) => continue,
            Value::Number(n) => format!("the number {n}"),
            Value::String(s) => format!("`{s}`"),
            _ => continue, // the schema says what type it wanted
        };
        let legacy = match value.as_str() {
            Some("user") => Some("ROLE_USER"),
            Some("agent") => Some("ROLE_AGENT"),
            Some(s) => names.iter().copied().find(|n| {
                n.strip_prefix("TASK_STATE_")
                    .is_some_and(|tail| tail.replace('_', "-").eq_ignore_ascii_case(s))
            }),
            None => None,
        };
        let f = Finding::error(
            here,
            "A2A-ENUM",
            format!(
                "{name}.{camel} is {said}; A2A 1.0 writes one of {}",
                names.join(", ")
            ),
        );
        out.push(match legacy {
            Some(new) => f.hinted(format!(
                "`{value}` is the A2A 0.3 spelling; 1.0 writes `{new}`"
            )),
            None => {
                f.hinted("enums are written by name (ProtoJSON); 0 and `…_UNSPECIFIED` mean unset")
            }
        });
    }
}

/// Whether a time is as A2A writes it: RFC 3339 in UTC, ending in `Z`.
pub fn is_timestamp(text: &str) -> bool {
    chrono::DateTime::parse_from_rfc3339(text).is_ok()
        && (text.ends_with('Z') || text.ends_with('z'))
}

fn timestamp(value: &Value, at: &str, out: &mut Vec<Finding>) {
    let Value::String(text) = value else {
        return;
    };
    if !is_timestamp(text) {
        out.push(
            Finding::error(
                at.to_string(),
                "A2A-TIMESTAMP",
                format!("`{text}` is not an ISO 8601 time in UTC ending in `Z`"),
            )
            .hinted("A2A writes times as YYYY-MM-DDTHH:mm:ss.sssZ, with no other offset"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(value: Value, name: &str) -> Vec<(&'static str, String)> {
        check(&value, name)
            .into_iter()
            .map(|f| (f.diagnostic.code, f.pointer))
            .collect()
    }

    #[test]
    fn a_spec_message_and_task_pass() {
        let m = json!({"role": "ROLE_USER", "parts": [{"text": "What is the weather today?"}], "messageId": "msg-uuid"});
        assert!(codes(m, "Message").is_empty());
        let t = json!({"id": "task-uuid", "contextId": "context-uuid",
            "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2025-10-28T10:30:00.000Z"},
            "artifacts": [{"artifactId": "a", "name": "Weather Report", "parts": [{"text": "sunny"}]}]});
        assert!(codes(t, "Task").is_empty());
    }

    #[test]
    fn required_fields_and_lists_are_found_where_they_are_missing() {
        let m = json!({"messageId": "", "parts": []});
        assert_eq!(
            codes(m, "Message"),
            vec![
                ("A2A-REQUIRED", "/messageId".to_string()),
                ("A2A-REQUIRED", String::new()),
                ("A2A-REQUIRED", "/parts".to_string()),
            ]
        );
        let t = json!({"id": "t", "status": {}});
        assert_eq!(
            codes(t, "Task"),
            vec![("A2A-REQUIRED", "/status".to_string())]
        );
        let page = json!({"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0});
        assert!(codes(page, "ListTasksResponse").is_empty());
    }

    #[test]
    fn a_part_is_exactly_one_thing() {
        let two = json!({"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "a", "url": "https://x"}, {"mediaType": "text/plain"}, {"text": ""}]});
        assert_eq!(
            codes(two, "Message"),
            vec![
                ("A2A-ONE-OF", "/parts/0/url".to_string()),
                ("A2A-ONE-OF", "/parts/1".to_string()),
            ]
        );
    }

    #[test]
    fn snake_case_old_enums_and_unknown_fields_are_named() {
        let m =
            json!({"message_id": "m", "role": "user", "parts": [{"kind": "text", "text": "hi"}]});
        let found = check(&m, "Message");
        let got: Vec<_> = found
            .iter()
            .map(|f| (f.diagnostic.code, f.pointer.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("A2A-ENUM", "/role"),
                ("A2A-FIELD-CASE", "/message_id"),
                ("A2A-UNKNOWN-FIELD", "/parts/0/kind"),
            ]
        );
        assert!(
            found[0]
                .diagnostic
                .hint
                .as_deref()
                .unwrap()
                .contains("ROLE_USER")
        );
        let card = json!({"capabilities": {"stateTransitionHistory": true, "streamng": true}});
        let found = check(&card, "AgentCard");
        let typo = found
            .iter()
            .find(|f| f.pointer == "/capabilities/streamng")
            .unwrap();
        assert_eq!(
            typo.diagnostic.hint.as_deref(),
            Some("did you mean `streaming`?")
        );
    }

    #[test]
    fn timestamps_are_utc_with_z() {
        let s = json!({"state": "TASK_STATE_WORKING", "timestamp": "2025-10-28T10:30:00+02:00"});
        assert_eq!(
            codes(s, "TaskStatus"),
            vec![("A2A-TIMESTAMP", "/timestamp".to_string())]
        );
    }

    #[test]
    fn hostile_depth_does_not_overflow() {
        let mut v = json!({"text": "x"});
        for _ in 0..200 {
            v = json!({"metadata": {"deep": v}});
        }
        // Struct contents are opaque: nothing below is walked.
        assert!(check(&json!({"text": "x", "metadata": v}), "Part").is_empty());
    }
}
