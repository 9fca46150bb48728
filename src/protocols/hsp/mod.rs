//! HSP 0.1 and 1.0: JSON envelopes with a typed payload, checked against the
//! published schemas in `schemas/hsp/` and the rules in `checks`.
//!
//! `json_doc::split` cuts an input into messages (an object, an array, JSON
//! Lines), `schemas` holds the embedded JSON Schemas, `checks` the rules with their
//! own codes, `model_map` the move to the shared model.

pub mod checks;
pub mod compiled;
pub mod compose;
pub mod directory;
pub mod message_type;
pub mod model_map;
pub mod payload_map;
pub mod schemas;
pub mod types;

use serde_json::Value;

use super::json_doc::split::{self, Doc};
use super::json_doc::strict::Selection;
use super::json_doc::{Finding, Where};
use crate::diag::Diagnostic;

/// The two HSP versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    V0_1,
    V1_0,
}

impl Version {
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V0_1 => "0.1",
            Version::V1_0 => "1.0",
        }
    }

    pub fn parse(s: &str) -> Option<Version> {
        match s {
            "0.1" => Some(Version::V0_1),
            "1.0" => Some(Version::V1_0),
            _ => None,
        }
    }
}

/// One HSP message: the envelope as JSON and the version it was checked as.
#[derive(Debug, Clone)]
pub struct HspMessage {
    pub json: Value,
    pub version: Version,
}

impl HspMessage {
    pub fn message_id(&self) -> Option<&str> {
        self.json.get("message_id").and_then(Value::as_str)
    }
}

/// A message read from an input, with its findings placed in the text.
pub struct Read {
    pub message: Option<HspMessage>,
    pub version: Option<Version>,
    pub diagnostics: Vec<Diagnostic>,
    pub line: usize,
    pub end_line: usize,
    /// Where the document sits in the text read; `None` for a line that
    /// could not be taken as text at all.
    pub span: Option<super::json_doc::Span>,
}

impl Read {
    /// Frees the message's JSON, all but its `message_id`, for a caller
    /// that only reports the verdict: freed on the thread that built it,
    /// it costs less than on the reporting thread (100,000 messages were
    /// validated in 437 ms instead of 523).
    pub fn keep_only_id(&mut self) {
        if let Some(HspMessage {
            json: Value::Object(envelope),
            ..
        }) = &mut self.message
        {
            let id = envelope.remove("message_id");
            envelope.clear();
            if let Some(id) = id {
                envelope.insert("message_id".to_string(), id);
            }
        }
    }
}

/// How strictly to judge.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Accept what the upstream implementation sends, as warnings.
    pub lenient: bool,
    pub max_message_bytes: usize,
    /// Parse only: the same bytes were checked by an earlier pass.
    pub checked_before: bool,
    /// Build only the members [`ROUTING`] names of each message of JSON
    /// Lines (for a caller that already checked the same bytes and only
    /// delivers them, as they were written): the JSON is read whole and
    /// refused as before, but most of it is not built.
    pub routing_only: bool,
    /// Keep only each message's id beside its findings (see
    /// [`Read::keep_only_id`]).
    pub verdicts_only: bool,
}

/// Whether a text looks like HSP: JSON that mentions an HSP envelope field.
pub fn detect(text: &str) -> bool {
    let t = text.trim_start();
    if !super::json_doc::starts_like_json(t) {
        return false;
    }
    let keys = super::json_doc::top_level_keys(t, 64 * 1024);
    // `message_type` alone is other projects' field too: with it, an HSP
    // envelope also names its parties or pattern (or its type says HSP::, below).
    let envelope_keys = ["sender_ai_id", "recipient_ai_id", "communication_pattern"];
    if keys.contains(&"hsp_envelope_version")
        || keys.contains(&"message_type") && envelope_keys.iter().any(|k| keys.contains(k))
    {
        return true;
    }
    // A CSDL, MSP or A2A message may carry HSP fields inside (a converted
    // message's `m.hsp`, an A2A object's `metadata.x_hsp`).
    let head = &t[..floor_char_boundary(t, 64 * 1024)];
    let other = keys.iter().any(|k| *k == "t" || *k == "T")
        || (keys.contains(&"intent") && keys.contains(&"target"))
        || super::a2a::kind::from_keys(&keys, head).is_some();
    !other && (head.contains("\"hsp_envelope_version\"") || head.contains("\"HSP::"))
}

pub fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Reads and checks every message in a text.
pub fn read(text: &str, options: Options) -> Vec<Read> {
    let docs = split::split(text, options.max_message_bytes);
    crate::parallel::map_owned(docs, |doc| read_doc(doc, options))
}

/// The members that say what a message is and where it goes: its ids,
/// type, version and parties, and its payload's expiry and callback (what
/// `delivery::routing` reads to publish it, and a mail's subject and ids).
pub const ROUTING: Selection<'static> = Selection {
    keys: &[
        "message_id",
        "correlation_id",
        "message_type",
        "hsp_envelope_version",
        "protocol_version",
        "sender_ai_id",
        "recipient_ai_id",
    ],
    within: &[(
        "payload",
        &["valid_until", "deadline_timestamp", "callback_address"],
    )],
};

/// Reads and checks a text as JSON Lines, one message per non-blank line
/// (a line that is not JSON is a broken message, the others still read).
pub fn read_json_lines(text: &str, options: Options) -> Vec<Read> {
    let docs = split::json_lines_parsed_by(text, options.max_message_bytes, line_parser(options));
    crate::parallel::map_owned(docs, |doc| read_doc(doc, options))
}

/// Reads and checks one line of JSON Lines (`number` 1-based), as
/// [`read_json_lines`] reads each of its lines.
pub fn read_line(line: &str, number: usize, options: Options) -> Read {
    let doc = split::parse_line_by(
        line,
        number,
        options.max_message_bytes,
        line_parser(options),
    );
    read_doc(doc, options)
}

/// How a line is parsed: whole, or only the fields that route it.
fn line_parser(options: Options) -> impl Fn(&str) -> Result<Value, serde_json::Error> + Sync {
    move |line| {
        if options.routing_only {
            super::json_doc::strict::parse_selected(line, &ROUTING)
        } else {
            super::json_doc::strict::parse(line)
        }
    }
}

impl Read {
    /// A line that holds no message to read, with the finding that says
    /// why (over the size limit, not UTF-8).
    pub fn failed(d: Diagnostic) -> Read {
        Read {
            message: None,
            version: None,
            line: d.line,
            end_line: d.line,
            diagnostics: vec![d],
            span: None,
        }
    }
}

/// Checks one document of an input.
pub fn read_doc(mut doc: Doc<'_>, options: Options) -> Read {
    let at = Where::of(&doc);
    let mut read = Read {
        message: None,
        version: None,
        diagnostics: Vec::new(),
        line: doc.line,
        end_line: doc.end_line,
        span: Some(super::json_doc::Span::of(&doc)),
    };
    let value = match std::mem::replace(&mut doc.value, Ok(Value::Null)) {
        Err(e) => {
            let d = super::json_doc::syntax_diagnostic(&e, &at, "HSP-JSON", "HSP-TOO-LARGE");
            read.diagnostics.push(d);
            return read;
        }
        Ok(v) => v,
    };
    let Value::Object(envelope) = &value else {
        let f = Finding {
            pointer: String::new(),
            diagnostic: Diagnostic::error("HSP-NOT-OBJECT", "an HSP message is a JSON object"),
        };
        read.diagnostics.push(at.place(f));
        return read;
    };
    let version = detect_version(envelope);
    let mut findings = Vec::new();
    if !options.checked_before && !options.routing_only {
        findings = checks::check(envelope, version);
        findings.extend(schema_findings(&value, version, &findings));
        findings.extend(super::json_doc::numbers::inexact(doc.text));
    }
    if options.lenient {
        for f in &mut findings {
            lenient(f);
        }
    }
    read.diagnostics = at.place_all(findings);
    read.version = Some(version);
    read.message = Some(HspMessage {
        json: value,
        version,
    });
    if options.verdicts_only {
        read.keep_only_id();
    }
    read
}

/// The version to check against: `hsp_envelope_version`, else
/// `protocol_version`, else the `message_type` suffix, else 0.1. A patch
/// level (`0.1.0`, as the upstream writes it) names the same version.
fn detect_version(envelope: &serde_json::Map<String, Value>) -> Version {
    let from_type = envelope
        .get("message_type")
        .and_then(Value::as_str)
        .and_then(message_type::MessageType::parse)
        .map(|t| t.version);
    ["hsp_envelope_version", "protocol_version"]
        .iter()
        .filter_map(|f| envelope.get(*f).and_then(Value::as_str))
        .chain(from_type)
        .find_map(normalize_version)
        .unwrap_or(Version::V0_1)
}

/// `0.1`, or `0.1.PATCH`, as a version.
pub fn normalize_version(raw: &str) -> Option<Version> {
    let minor = match raw.match_indices('.').nth(1) {
        Some((i, _)) if raw[i + 1..].chars().all(|c| c.is_ascii_digit()) && i + 1 < raw.len() => {
            &raw[..i]
        }
        Some(_) => return None,
        None => raw,
    };
    Version::parse(minor)
}

/// Schema findings, minus those a rule of `checks` already explains.
fn schema_findings(value: &Value, version: Version, rules: &[Finding]) -> Vec<Finding> {
    if compiled::is_valid(version, value) {
        return Vec::new(); // the common case: no run-time schema needed
    }
    super::json_doc::schema_findings(
        schemas::envelope_validator(version),
        value,
        rules,
        schema_code,
    )
}

/// `HSP-SCHEMA-<KEYWORD>` for the schema keywords aiproto's schemas use.
fn schema_code(keyword: &str) -> &'static str {
    match keyword {
        "required" => "HSP-SCHEMA-REQUIRED",
        "type" => "HSP-SCHEMA-TYPE",
        "enum" => "HSP-SCHEMA-ENUM",
        "const" => "HSP-SCHEMA-CONST",
        "pattern" => "HSP-SCHEMA-PATTERN",
        "format" => "HSP-SCHEMA-FORMAT",
        "minimum" | "maximum" => "HSP-SCHEMA-RANGE",
        "minLength" => "HSP-SCHEMA-EMPTY",
        "anyOf" | "oneOf" | "allOf" => "HSP-SCHEMA-ALTERNATIVES",
        _ => "HSP-SCHEMA",
    }
}

/// `--lenient`: everything but an unreadable message, a missing or non-object
/// payload, or a missing message_id becomes a warning.
fn lenient(f: &mut Finding) {
    let missing_core = matches!(f.pointer.as_str(), "/payload" | "/message_id")
        && matches!(f.diagnostic.code, "HSP-SCHEMA-REQUIRED" | "HSP-SCHEMA-TYPE");
    let fatal = missing_core
        || matches!(
            f.diagnostic.code,
            "HSP-JSON" | "HSP-NOT-OBJECT" | "HSP-TOO-LARGE"
        );
    if !fatal && f.diagnostic.is_error() {
        f.diagnostic.severity = crate::diag::Severity::Warning;
        f.diagnostic.hint = Some("accepted by --lenient; the spec does not allow it".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reading for verdicts only gives the same findings and id as a full
    /// read, and keeps nothing else of the message.
    #[test]
    fn verdicts_only_keeps_the_findings_and_the_id() {
        let text = concat!(
            r#"{"hsp_envelope_version":"0.1","message_id":"m-1","sender_ai_id":"did:hsp:a","recipient_ai_id":"hsp/x","timestamp_sent":"2025-01-01T00:00:00Z","message_type":"HSP::Fact_v0.1","protocol_version":"0.1","communication_pattern":"publish","payload":{"id":"f","statement_type":"natural_language","source_ai_id":"not a did","timestamp_created":"2025-01-01T00:00:00+02:00","confidence_score":1.5}}"#,
            "\n",
            r#"{"message_id":"m-2"}"#,
            "\n",
            "not json\n",
        );
        let full = Options {
            lenient: false,
            max_message_bytes: 1 << 20,
            checked_before: false,
            routing_only: false,
            verdicts_only: false,
        };
        let thin = Options {
            verdicts_only: true,
            ..full
        };
        let (full, thin) = (read_json_lines(text, full), read_json_lines(text, thin));
        assert_eq!(full.len(), 3);
        assert!(full[0].diagnostics.len() >= 3, "{:?}", full[0].diagnostics);
        for (a, b) in full.iter().zip(&thin) {
            let codes = |r: &Read| r.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>();
            assert_eq!(codes(a), codes(b));
            let id = |r: &Read| {
                r.message
                    .as_ref()
                    .and_then(|m| m.message_id().map(str::to_string))
            };
            assert_eq!(id(a), id(b));
            if let Some(m) = &b.message {
                assert!(
                    m.json.as_object().is_some_and(|o| o.len() <= 1),
                    "{}",
                    m.json
                );
            }
        }
    }
}
