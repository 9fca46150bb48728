//! The MSP 1.0 `MinimalSignal`: intent and target, with parameters,
//! constraints, state, priority and tracing. Unknown fields are refused;
//! everything but intent and target has a default, as in the spec's model.

use std::fmt;

use chrono::{DateTime, NaiveDateTime, SecondsFormat, SubsecRound, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// What the signal asks for or tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Intent {
    Analyze,
    Generate,
    Evaluate,
    Transform,
    Query,
    Respond,
    Delegate,
    Report,
}

impl Intent {
    pub const ALL: &'static [Intent] = &[
        Intent::Analyze,
        Intent::Generate,
        Intent::Evaluate,
        Intent::Transform,
        Intent::Query,
        Intent::Respond,
        Intent::Delegate,
        Intent::Report,
    ];

    /// The intent as written on the wire (`ANALYZE`).
    pub fn as_str(self) -> &'static str {
        match self {
            Intent::Analyze => "ANALYZE",
            Intent::Generate => "GENERATE",
            Intent::Evaluate => "EVALUATE",
            Intent::Transform => "TRANSFORM",
            Intent::Query => "QUERY",
            Intent::Respond => "RESPOND",
            Intent::Delegate => "DELEGATE",
            Intent::Report => "REPORT",
        }
    }

    pub fn parse(s: &str) -> Option<Intent> {
        Intent::ALL
            .iter()
            .copied()
            .find(|i| i.as_str().eq_ignore_ascii_case(s))
    }
}

impl fmt::Display for Intent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How urgent the signal is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    Low,
    #[default]
    Medium,
    High,
    Critical,
}

impl Priority {
    pub const ALL: &'static [Priority] = &[
        Priority::Low,
        Priority::Medium,
        Priority::High,
        Priority::Critical,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Low => "low",
            Priority::Medium => "medium",
            Priority::High => "high",
            Priority::Critical => "critical",
        }
    }
}

/// One MSP 1.0 signal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinimalSignal {
    #[serde(default = "default_version")]
    pub version: String,
    pub intent: Intent,
    pub target: String,
    #[serde(default)]
    pub params: Map<String, Value>,
    #[serde(default)]
    pub constraints: Vec<String>,
    #[serde(default)]
    pub state: Map<String, Value>,
    #[serde(default)]
    pub priority: Priority,
    #[serde(default = "new_trace_id")]
    pub trace_id: String,
    #[serde(
        default = "now_micros",
        serialize_with = "write_timestamp",
        deserialize_with = "read_timestamp"
    )]
    pub timestamp: DateTime<Utc>,
    #[serde(default)]
    pub parent_id: Option<String>,
}

impl MinimalSignal {
    /// A fresh signal: a new trace id, stamped now.
    pub fn new(intent: Intent, target: impl Into<String>) -> Self {
        MinimalSignal {
            version: default_version(),
            intent,
            target: target.into(),
            params: Map::new(),
            constraints: Vec::new(),
            state: Map::new(),
            priority: Priority::default(),
            trace_id: new_trace_id(),
            timestamp: now_micros(),
            parent_id: None,
        }
    }

    /// Reads a signal from JSON, filling defaults.
    pub fn from_json(value: &Value) -> Result<Self, serde_json::Error> {
        Self::deserialize(value)
    }

    /// The signal with every field, as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// Every field, as one line of compact JSON.
    pub fn to_compact_string(&self) -> String {
        self.to_json().to_string()
    }

    /// The compact wire form: the fields equal to the spec's defaults
    /// (version 1.0, empty params, constraints and state, priority medium,
    /// no parent) left out, and a whole-second timestamp written as Unix
    /// seconds. Pydantic's `MinimalSignal` and [`MinimalSignal::from_json`]
    /// read it back as this signal; the trace id and timestamp are always
    /// written, as a reader would otherwise make up new ones.
    pub fn to_wire(&self) -> Value {
        let mut map = match self.to_json() {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let defaults = [
            ("version", Value::String(default_version())),
            ("params", Value::Object(Map::new())),
            ("constraints", Value::Array(Vec::new())),
            ("state", Value::Object(Map::new())),
            (
                "priority",
                Value::String(Priority::default().as_str().into()),
            ),
            ("parent_id", Value::Null),
        ];
        for (key, default) in defaults {
            if map.get(key) == Some(&default) {
                map.remove(key);
            }
        }
        if self.timestamp.timestamp_subsec_nanos() == 0 {
            map.insert("timestamp".into(), Value::from(self.timestamp.timestamp()));
        }
        Value::Object(map)
    }

    /// The wire form as one line of JSON (what the pipeline counts).
    pub fn to_wire_string(&self) -> String {
        self.to_wire().to_string()
    }
}

/// Now, to the microsecond (as Python's `datetime` keeps it).
fn now_micros() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(6)
}

/// Now, to the second: what an encoder stamps, so the wire form can say
/// it in a few digits.
pub fn now_seconds() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(0)
}

fn default_version() -> String {
    "1.0".to_string()
}

/// A random (version 4) UUID, as the spec's `uuid4()`.
pub fn new_trace_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn write_timestamp<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_rfc3339_opts(SecondsFormat::AutoSi, true))
}

/// ISO 8601 text, or Unix seconds (as pydantic reads a number).
fn read_timestamp<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    match Value::deserialize(d)? {
        Value::String(raw) => parse_timestamp(&raw).ok_or_else(|| {
            serde::de::Error::custom(format!("`{raw}` is not an ISO 8601 date and time"))
        }),
        Value::Number(n) => n
            .as_f64()
            .and_then(unix_time)
            .ok_or_else(|| serde::de::Error::custom(format!("{n} is not a Unix time"))),
        other => Err(serde::de::Error::custom(format!(
            "{other} is not an ISO 8601 date and time"
        ))),
    }
}

/// A number as pydantic reads it for a `datetime`: Unix seconds, or
/// milliseconds when its magnitude is above 2e10.
pub fn unix_time(n: f64) -> Option<DateTime<Utc>> {
    if !n.is_finite() {
        return None;
    }
    let secs = if n.abs() > 2e10 { n / 1000.0 } else { n };
    let whole = secs.floor();
    // Microseconds, as Python keeps them.
    let micros = ((secs - whole) * 1e6).round() as u32;
    DateTime::from_timestamp(whole as i64, micros.min(999_999) * 1000)
}

/// ISO 8601 with or without an offset (without one it is UTC, as Python's
/// `datetime.utcnow()` writes it), `T` or a space between date and time.
pub fn parse_timestamp(raw: &str) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(raw) {
        return Some(t.with_timezone(&Utc));
    }
    let raw = raw.replacen(' ', "T", 1);
    if let Ok(t) = DateTime::parse_from_rfc3339(&raw) {
        return Some(t.with_timezone(&Utc));
    }
    NaiveDateTime::parse_from_str(&raw, "%Y-%m-%dT%H:%M:%S%.f")
        .ok()
        .map(|n| n.and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_fill_in_and_unknown_fields_are_refused() {
        let s =
            MinimalSignal::from_json(&json!({"intent": "QUERY", "target": "the weather"})).unwrap();
        assert_eq!(s.priority, Priority::Medium);
        assert_eq!(s.version, "1.0");
        assert!(uuid::Uuid::parse_str(&s.trace_id).is_ok());
        let extra =
            MinimalSignal::from_json(&json!({"intent": "QUERY", "target": "x", "mood": "sunny"}));
        assert!(
            extra
                .unwrap_err()
                .to_string()
                .contains("unknown field `mood`")
        );
        assert!(MinimalSignal::from_json(&json!({"intent": "PONDER", "target": "x"})).is_err());
    }

    #[test]
    fn naive_timestamps_are_utc_and_written_with_z() {
        let s = MinimalSignal::from_json(&json!({"intent": "REPORT", "target": "x",
            "timestamp": "2026-02-19T05:39:18.755656"}))
        .unwrap();
        assert_eq!(
            s.to_json()["timestamp"],
            json!("2026-02-19T05:39:18.755656Z")
        );
        assert!(parse_timestamp("2026-02-19 05:39:18+02:00").is_some());
        assert!(parse_timestamp("2026-02-30T00:00:00").is_none());
    }

    #[test]
    fn the_wire_form_leaves_out_defaults_and_reads_back_as_the_signal() {
        let mut s = MinimalSignal::new(Intent::Analyze, "logs");
        s.timestamp = now_seconds();
        let wire = s.to_wire();
        let mut keys: Vec<&String> = wire.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["intent", "target", "timestamp", "trace_id"]);
        assert!(wire["timestamp"].is_i64());
        assert_eq!(MinimalSignal::from_json(&wire).unwrap(), s);
        // A timestamp with a fraction, and fields off their defaults, stay.
        s.timestamp = parse_timestamp("2026-02-19T05:39:18.755656").unwrap();
        s.priority = Priority::High;
        s.constraints.push("no weekends".into());
        let wire = s.to_wire();
        assert_eq!(wire["timestamp"], json!("2026-02-19T05:39:18.755656Z"));
        assert_eq!(wire["priority"], json!("high"));
        assert_eq!(MinimalSignal::from_json(&wire).unwrap(), s);
        assert!(s.to_wire_string().len() < s.to_compact_string().len());
    }

    #[test]
    fn json_round_trip() {
        let mut s = MinimalSignal::new(Intent::Analyze, "logs");
        s.params.insert("window".into(), json!("24h"));
        s.parent_id = Some("p".into());
        assert_eq!(MinimalSignal::from_json(&s.to_json()).unwrap(), s);
    }
}
