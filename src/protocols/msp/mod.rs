//! MSP: minimal signals (intent, target, parameters…) encoded from prose.
//!
//! `signal` is the 1.0 model; reading checks a document against the
//! embedded schema of its version (`schemas/msp/1.0/`, and the 2.0 shape
//! inferred from the upstream's own signals in `schemas/msp/2.0/`) plus the
//! rules a schema cannot say well. The encoder, decoder and judge that
//! turn prose into signals and back are a layer above, in `crate::prose`.

pub mod model_map;
#[cfg(test)]
pub(crate) mod proptests;
pub mod signal;

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::json_doc::{self, Finding};
pub use signal::{Intent, MinimalSignal, Priority};

/// The MSP versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V1_0,
    /// The upstream's later shape: summary and sections instead of params.
    V2_0,
}

impl Version {
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V1_0 => "1.0",
            Version::V2_0 => "2.0",
        }
    }
}

/// An MSP signal as read.
#[derive(Debug, Clone)]
pub struct MspDoc {
    pub json: Value,
    pub version: Version,
}

pub const FIELDS_1_0: &[&str] = &[
    "version",
    "intent",
    "target",
    "params",
    "constraints",
    "state",
    "priority",
    "trace_id",
    "timestamp",
    "parent_id",
];
pub const FIELDS_2_0: &[&str] = &[
    "version",
    "intent",
    "target",
    "priority",
    "summary",
    "sections",
    "constraints",
    "state",
    "encoding_strategy",
    "total_sections",
    "trace_id",
    "timestamp",
    "parent_id",
];

/// The embedded schemas.
pub const SCHEMA_1_0: &str = include_str!("../../../schemas/msp/1.0/signal.schema.json");
pub const SCHEMA_2_0: &str = include_str!("../../../schemas/msp/2.0/signal.schema.json");

/// Whether a text looks like MSP: JSON whose first object has `intent`
/// and `target` keys.
pub fn detect(text: &str) -> bool {
    let t = text.trim_start();
    if !json_doc::starts_like_json(t) {
        return false;
    }
    let keys = json_doc::top_level_keys(t, 64 * 1024);
    keys.contains(&"intent") && keys.contains(&"target")
}

/// Reads and checks every signal in a text.
pub fn read(text: &str, max_message_bytes: usize) -> Vec<json_doc::Read<MspDoc>> {
    let syntax = json_doc::SyntaxCodes {
        json: "MSP-JSON",
        too_large: "MSP-TOO-LARGE",
    };
    json_doc::read_all(text, max_message_bytes, syntax, |value| {
        let (version, findings) = check(&value);
        (
            version.map(|version| MspDoc {
                json: value,
                version,
            }),
            findings,
        )
    })
}

/// The version a signal declares (1.0 when it declares none).
pub fn version_of(map: &Map<String, Value>) -> Result<Version, String> {
    match map.get("version") {
        None => Ok(Version::V1_0),
        Some(Value::String(v)) if v == "1.0" || v == "1" => Ok(Version::V1_0),
        Some(Value::String(v)) if v == "2.0" || v == "2" => Ok(Version::V2_0),
        Some(other) => Err(other.to_string()),
    }
}

/// Checks a signal; the version is `None` when it is not a JSON object.
pub fn check(value: &Value) -> (Option<Version>, Vec<Finding>) {
    let Value::Object(map) = value else {
        let f = Finding::error("", "MSP-NOT-OBJECT", "an MSP signal is a JSON object");
        return (None, vec![f]);
    };
    let mut rules = Vec::new();
    let version = version_of(map).unwrap_or_else(|v| {
        rules.push(Finding::error(
            "/version",
            "MSP-VERSION",
            format!("unknown MSP version {v} (known: 1.0, 2.0); checked as 1.0"),
        ));
        Version::V1_0
    });
    let fields = match version {
        Version::V1_0 => FIELDS_1_0,
        Version::V2_0 => FIELDS_2_0,
    };
    for key in map.keys().filter(|k| !fields.contains(&k.as_str())) {
        rules.push(Finding::error(
            format!("/{}", super::csdl::fields::escape(key)),
            "MSP-UNKNOWN-FIELD",
            format!(
                "`{key}` is not a field of an MSP {} signal (extra fields are forbidden)",
                version.as_str()
            ),
        ));
    }
    if let Some(Value::String(intent)) = map.get("intent")
        && !Intent::ALL.iter().any(|i| i.as_str() == intent)
    {
        let known: Vec<&str> = Intent::ALL.iter().map(|i| i.as_str()).collect();
        rules.push(Finding::error(
            "/intent",
            "MSP-INTENT",
            format!("unknown intent `{intent}` (one of {})", known.join(", ")),
        ));
    }
    if let Some(Value::String(priority)) = map.get("priority")
        && !Priority::ALL.iter().any(|p| p.as_str() == priority)
    {
        let known: Vec<&str> = Priority::ALL.iter().map(|p| p.as_str()).collect();
        rules.push(Finding::error(
            "/priority",
            "MSP-PRIORITY",
            format!(
                "unknown priority `{priority}` (one of {})",
                known.join(", ")
            ),
        ));
    }
    if let Some(Value::String(target)) = map.get("target")
        && target.trim().is_empty()
    {
        rules.push(Finding::warning(
            "/target",
            "MSP-EMPTY-TARGET",
            "the target is empty: the signal does not say what it is about",
        ));
    }
    // The spec types trace_id as a string (a UUID is only its default):
    // upstream writes ids such as `trace-0001`. An empty one names nothing.
    if let Some(Value::String(id)) = map.get("trace_id")
        && id.trim().is_empty()
    {
        rules.push(Finding::warning(
            "/trace_id",
            "MSP-TRACE-ID",
            "the trace_id is empty: nothing can point at this signal",
        ));
    }
    if let Some(Value::String(t)) = map.get("timestamp")
        && signal::parse_timestamp(t).is_none()
    {
        rules.push(Finding::error(
            "/timestamp",
            "MSP-TIMESTAMP",
            format!("timestamp `{t}` is not an ISO 8601 date and time"),
        ));
    }
    if let Some(Value::Number(n)) = map.get("timestamp")
        && n.as_f64().and_then(signal::unix_time).is_none()
    {
        rules.push(Finding::error(
            "/timestamp",
            "MSP-TIMESTAMP",
            format!("timestamp {n} is not a Unix time a reader can represent"),
        ));
    }
    if version == Version::V2_0
        && let (Some(Value::Array(sections)), Some(total)) = (
            map.get("sections"),
            map.get("total_sections").and_then(Value::as_u64),
        )
        && sections.len() as u64 != total
    {
        rules.push(Finding::warning(
            "/total_sections",
            "MSP-SECTION-COUNT",
            format!(
                "total_sections is {total} but there are {} sections",
                sections.len()
            ),
        ));
    }
    let schema = json_doc::schema_findings(validator(version), value, &rules, schema_code);
    rules.extend(json_doc::unexplained_containers(schema, &rules));
    (Some(version), rules)
}

fn schema_code(keyword: &str) -> &'static str {
    match keyword {
        "required" => "MSP-SCHEMA-REQUIRED",
        "type" => "MSP-SCHEMA-TYPE",
        "enum" | "const" => "MSP-SCHEMA-ENUM",
        "pattern" => "MSP-SCHEMA-PATTERN",
        "minimum" => "MSP-SCHEMA-RANGE",
        "additionalProperties" => "MSP-UNKNOWN-FIELD",
        _ => "MSP-SCHEMA",
    }
}

/// The compiled schema of a version.
pub fn validator(version: Version) -> &'static jsonschema::Validator {
    static V1: OnceLock<jsonschema::Validator> = OnceLock::new();
    static V2: OnceLock<jsonschema::Validator> = OnceLock::new();
    let (cell, text) = match version {
        Version::V1_0 => (&V1, SCHEMA_1_0),
        Version::V2_0 => (&V2, SCHEMA_2_0),
    };
    cell.get_or_init(|| {
        let schema: Value = serde_json::from_str(text).unwrap_or_default();
        jsonschema::options()
            .offline()
            .build(&schema)
            .unwrap_or_else(|e| panic!("the embedded MSP schema does not compile: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes_of(v: Value) -> Vec<&'static str> {
        check(&v).1.iter().map(|f| f.diagnostic.code).collect()
    }

    #[test]
    fn schemas_are_valid_and_compile() {
        for text in [SCHEMA_1_0, SCHEMA_2_0] {
            let s: Value = serde_json::from_str(text).unwrap();
            assert!(jsonschema::meta::is_valid(&s));
        }
        validator(Version::V1_0);
        validator(Version::V2_0);
    }

    #[test]
    fn the_smallest_signal_is_valid() {
        assert!(codes_of(json!({"intent": "QUERY", "target": "x"})).is_empty());
        let full = MinimalSignal::new(Intent::Report, "uptime").to_json();
        assert!(codes_of(full).is_empty());
    }

    #[test]
    fn each_problem_reports_once() {
        assert_eq!(
            codes_of(json!({"intent": "QUERY", "target": "x", "mood": 1})),
            vec!["MSP-UNKNOWN-FIELD"]
        );
        assert_eq!(
            codes_of(json!({"intent": "PONDER", "target": "x"})),
            vec!["MSP-INTENT"]
        );
        assert_eq!(
            codes_of(json!({"intent": "QUERY"})),
            vec!["MSP-SCHEMA-REQUIRED"]
        );
        assert_eq!(
            codes_of(json!({"intent": "QUERY", "target": "x", "trace_id": " "})),
            vec!["MSP-TRACE-ID"]
        );
        assert!(
            codes_of(json!({"intent": "QUERY", "target": "x", "trace_id": "trace-0001"}))
                .is_empty()
        );
        assert_eq!(
            codes_of(json!({"intent": "QUERY", "target": "x", "priority": "urgent"})),
            vec!["MSP-PRIORITY"]
        );
        assert_eq!(
            codes_of(json!({"intent": "QUERY", "target": "x", "constraints": "be quick"})),
            vec!["MSP-SCHEMA-TYPE"]
        );
    }

    #[test]
    fn version_2_has_its_own_shape() {
        let v2 = json!({"version": "2.0", "intent": "REPORT", "target": "x",
            "summary": {"n": 1}, "sections": [{"title": "a", "content": "b", "importance": "high"}],
            "total_sections": 2, "encoding_strategy": "detailed"});
        assert_eq!(codes_of(v2), vec!["MSP-SECTION-COUNT"]);
        let params = json!({"version": "2.0", "intent": "REPORT", "target": "x", "params": {}});
        assert_eq!(codes_of(params), vec!["MSP-UNKNOWN-FIELD"]);
    }
}
