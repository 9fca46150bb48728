//! ANLT's shapes: the "CSDL Structured" T/C/R message (and the agent
//! response written in it), the v2 task with enum-coded lists, and the
//! quantized embedding. The codes and tables are those of E3's ANLT
//! translator and v2 compressor.

use base64::Engine;
use serde_json::{Map, Value, json};

use super::{Shape, SpecMessage, at, one_of, show, unmapped};
use crate::protocols::json_doc::Finding;

/// `T` codes of a message, and the CSDL 1.0 intent each maps to: query,
/// command, result, error, handoff, status.
const TYPE_CODES: [(&str, &str); 6] = [
    ("q", "query"),
    ("c", "request"),
    ("r", "response"),
    ("x", "error"),
    ("h", "request"),
    ("s", "notify"),
];

/// `R`: the answer expected: brief, detailed, structured, action items.
const RESPONSE_FORMATS: [&str; 4] = ["b", "d", "s", "a"];

/// The keys of an agent response's `C`: summary, analysis, findings,
/// recommendations, warnings (`raw` holds a model's unparsed text).
const RESPONSE_TEXT: [&str; 2] = ["s", "a"];
const RESPONSE_LISTS: [&str; 3] = ["f", "r", "w"];

/// Whether a T/C/R document is an agent response: `T` is `r` and `C`
/// holds its summary, analysis, findings or warnings.
pub fn is_agent_response(map: &Map<String, Value>) -> bool {
    map.get("T").and_then(Value::as_str) == Some("r")
        && map
            .get("C")
            .and_then(Value::as_object)
            .is_some_and(|c| ["s", "a", "f", "w"].iter().any(|k| c.contains_key(*k)))
}

/// The T/C/R message (and agent response) as a CSDL 1.0 message: `C` is
/// the value; `T`, `R`, `cx`, `e`, `p`, `m` are kept under `m.e3`.
///
/// A `T` that is none of the type codes is the topic of a task as E3's
/// CSDL-14B model writes it (`{"T": "auth", "C": [components], "R":
/// [requirements]}`): read as a request.
pub fn structured(map: &Map<String, Value>, shape: Shape, findings: &mut Vec<Finding>) -> Value {
    let intent = match map.get("T") {
        Some(Value::String(t)) => TYPE_CODES
            .iter()
            .find(|(code, _)| code == t)
            .map_or("request", |(_, intent)| intent),
        Some(other) => {
            findings.push(unmapped(
                at("T"),
                format!("`T` is {}, not a type code or a topic", show(other)),
            ));
            "notify"
        }
        None => "notify",
    };
    let message_form = map
        .get("T")
        .and_then(Value::as_str)
        .is_some_and(|t| TYPE_CODES.iter().any(|(code, _)| *code == t));
    if !map.contains_key("C") {
        findings.push(Finding::error(
            "",
            "CSDL-MISSING",
            "the T/C/R form carries its content in `C`, which is missing",
        ));
    }
    if message_form && map.get("R").is_some_and(|r| !r.is_array()) {
        one_of(map, "R", &RESPONSE_FORMATS, findings);
    }
    if let Some(p) = map.get("p") {
        let ok = p.as_u64().is_some_and(|p| p <= 3);
        if !ok {
            findings.push(unmapped(
                at("p"),
                format!(
                    "`p` is {}, not a priority from 0 (low) to 3 (critical)",
                    show(p)
                ),
            ));
        }
    }
    if let Some(cx) = map.get("cx") {
        let ok = cx.is_object() || cx.as_f64().is_some_and(|x| (0.0..=1.0).contains(&x));
        if !ok {
            findings.push(unmapped(
                at("cx"),
                format!(
                    "`cx` is {}, neither a context object nor a number from 0 to 1",
                    show(cx)
                ),
            ));
        }
    }
    if shape == Shape::AgentResponse
        && let Some(Value::Object(c)) = map.get("C")
    {
        check_response(c, findings);
    }
    let mut spec = SpecMessage::new(intent, shape);
    spec.value = map.get("C").cloned();
    for (key, value) in map {
        if key != "C" {
            spec.kept.insert(key.clone(), value.clone());
        }
    }
    spec.into_value()
}

/// An agent response's fields: `s` and `a` text, `f`, `r`, `w` lists of text.
fn check_response(c: &Map<String, Value>, findings: &mut Vec<Finding>) {
    for key in RESPONSE_TEXT {
        if let Some(v) = c.get(key).filter(|v| !v.is_string()) {
            findings.push(Finding::error(
                format!("/C/{key}"),
                "CSDL-FIELD-TYPE",
                format!("`C.{key}` is text in an agent response, not {}", show(v)),
            ));
        }
    }
    for key in RESPONSE_LISTS {
        match c.get(key) {
            None => {}
            Some(Value::Array(items)) => {
                if let Some(i) = items.iter().position(|v| !v.is_string()) {
                    findings.push(Finding::error(
                        format!("/C/{key}/{i}"),
                        "CSDL-FIELD-TYPE",
                        format!(
                            "`C.{key}` is a list of text; item {i} is {}",
                            show(&items[i])
                        ),
                    ));
                }
            }
            Some(other) => findings.push(Finding::error(
                format!("/C/{key}"),
                "CSDL-FIELD-TYPE",
                format!(
                    "`C.{key}` is a list of text in an agent response, not {}",
                    show(other)
                ),
            )),
        }
    }
}

/// ANLT v2's full key names.
const V2_NAMES: [(&str, &str); 7] = [
    ("t", "task"),
    ("a", "actions"),
    ("tc", "tech"),
    ("cx", "complexity"),
    ("cs", "constraints"),
    ("cp", "components"),
    ("sc", "success"),
];

const ACTIONS: [&str; 17] = [
    "create",
    "read",
    "update",
    "delete",
    "validate",
    "process",
    "send",
    "receive",
    "transform",
    "store",
    "load",
    "export",
    "sync",
    "encrypt",
    "decrypt",
    "compress",
    "parse",
];

const TECH: [&str; 33] = [
    "jwt",
    "api",
    "db",
    "auth",
    "oauth",
    "hash",
    "bcrypt",
    "sql",
    "nosql",
    "cache",
    "redis",
    "postgres",
    "mongodb",
    "docker",
    "k8s",
    "aws",
    "gcp",
    "azure",
    "ci/cd",
    "tls",
    "refresh",
    "session",
    "cookie",
    "cors",
    "rate_limit",
    "webhook",
    "queue",
    "stream",
    "batch",
    "cron",
    "log",
    "monitor",
    "alert",
];

const CONSTRAINTS: [&str; 18] = [
    "secure",
    "scalable",
    "fast",
    "reliable",
    "simple",
    "complex",
    "async",
    "sync",
    "real-time",
    "distributed",
    "centralized",
    "stateless",
    "stateful",
    "idempotent",
    "atomic",
    "consistent",
    "available",
    "partition-tolerant",
];

/// The ANLT v2 task as a CSDL 1.0 request whose value is the task with
/// full names and the enum numbers decoded (as v2's own decompressor does).
pub fn v2(map: &Map<String, Value>, findings: &mut Vec<Finding>) -> Value {
    let mut task = Map::new();
    for (key, value) in map {
        let name = V2_NAMES
            .iter()
            .find(|(code, _)| code == key)
            .map_or(key.as_str(), |(_, name)| name);
        let table: Option<&[&str]> = match key.as_str() {
            "a" => Some(&ACTIONS),
            "tc" => Some(&TECH),
            "cs" => Some(&CONSTRAINTS),
            _ => None,
        };
        let value = match (table, value) {
            (Some(table), Value::Array(items)) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        decode_enum(item, table, name, &format!("/{key}/{i}"), findings)
                    })
                    .collect(),
            ),
            (Some(_), other) => {
                findings.push(Finding::error(
                    at(key),
                    "CSDL-FIELD-TYPE",
                    format!("`{key}` ({name}) is a list in ANLT v2, not {}", show(other)),
                ));
                other.clone()
            }
            (None, other) => other.clone(),
        };
        task.insert(name.into(), value);
    }
    if let Some(cx) = map
        .get("cx")
        .filter(|cx| !cx.as_f64().is_some_and(|x| (0.0..=1.0).contains(&x)))
    {
        findings.push(unmapped(
            at("cx"),
            format!(
                "`cx` (complexity) is {}, not a number from 0 to 1",
                show(cx)
            ),
        ));
    }
    let mut spec = SpecMessage::new("request", Shape::AnltV2);
    spec.value = Some(Value::Object(task));
    spec.into_value()
}

/// One enum item: a number is looked up in the table, text is kept.
fn decode_enum(
    item: &Value,
    table: &[&str],
    name: &str,
    pointer: &str,
    findings: &mut Vec<Finding>,
) -> Value {
    match item {
        Value::String(_) => item.clone(),
        Value::Number(n) => match n.as_u64().and_then(|i| table.get(usize::try_from(i).ok()?)) {
            Some(word) => json!(word),
            None => {
                findings.push(unmapped(
                    pointer.to_string(),
                    format!(
                        "{n} is not in ANLT v2's {name} table (0 to {}): its meaning is unknown",
                        table.len() - 1
                    ),
                ));
                item.clone()
            }
        },
        other => {
            findings.push(Finding::error(
                pointer.to_string(),
                "CSDL-FIELD-TYPE",
                format!(
                    "a {name} item is a table number or text, not {}",
                    show(other)
                ),
            ));
            other.clone()
        }
    }
}

/// The embedding as a CSDL 1.0 notification whose value is the embedding
/// itself: it holds a vector, not words, so no protocol can carry its
/// meaning as text. Checked: `emb` is base64 of `dim` numbers of `bits`
/// (8 or 16) bits each, as ANLT's compressor writes and reads it.
pub fn embedding(map: &Map<String, Value>, findings: &mut Vec<Finding>) -> Value {
    let dim = match map.get("dim") {
        Some(d) if d.as_u64().is_some_and(|d| d > 0) => d.as_u64(),
        other => {
            findings.push(Finding::error(
                "/dim",
                "CSDL-FIELD-TYPE",
                format!(
                    "`dim` is the vector's length, a whole number above 0, not {}",
                    other.map_or_else(|| "missing".into(), show)
                ),
            ));
            None
        }
    };
    let bits = match map.get("bits") {
        None => None,
        Some(b) if matches!(b.as_u64(), Some(8 | 16)) => b.as_u64(),
        Some(other) => {
            findings.push(unmapped(
                "/bits".into(),
                format!("`bits` is {}; ANLT quantizes to 8 or 16 bits", show(other)),
            ));
            None
        }
    };
    match map.get("emb") {
        Some(Value::String(emb)) => match base64::engine::general_purpose::STANDARD.decode(emb) {
            Ok(bytes) => {
                if let (Some(dim), Some(bits)) = (dim, bits) {
                    let want = dim.saturating_mul(bits / 8);
                    if bytes.len() as u64 != want {
                        findings.push(Finding::error(
                            "/emb",
                            "CSDL-EMBEDDING",
                            format!(
                                "`emb` holds {} bytes; {dim} numbers of {bits} bits are {want}: the vector is cut or its size misstated",
                                bytes.len()
                            ),
                        ));
                    }
                }
            }
            Err(e) => findings.push(Finding::error(
                "/emb",
                "CSDL-EMBEDDING",
                format!("`emb` is not base64: {e}"),
            )),
        },
        other => findings.push(Finding::error(
            "/emb",
            "CSDL-FIELD-TYPE",
            format!(
                "`emb` is the base64 of the vector, not {}",
                other.map_or_else(|| "missing".into(), show)
            ),
        )),
    }
    let mut spec = SpecMessage::new("notify", Shape::Embedding);
    spec.value = Some(Value::Object(map.clone()));
    spec.into_value()
}

#[cfg(test)]
mod tests {
    use super::super::to_spec;
    use super::*;

    fn mapped(v: Value) -> (Value, Vec<&'static str>) {
        let map = v.as_object().unwrap();
        let m = to_spec(map, super::super::shape_of(map));
        let codes = m
            .findings
            .iter()
            .map(|f| f.diagnostic.code)
            .filter(|c| *c != "CSDL-UPSTREAM")
            .collect();
        (m.spec, codes)
    }

    #[test]
    fn a_translator_query_maps_to_a_query_with_its_codes_kept() {
        let (spec, codes) = mapped(
            json!({"T": "q", "C": {"i": "rk", "k": ["security", "auth"]}, "cx": {"d": "auth"}, "R": "d", "p": 1}),
        );
        assert!(codes.is_empty(), "{codes:?}");
        assert_eq!(spec["t"], "message");
        assert_eq!(spec["intent"], "query");
        assert_eq!(spec["v"], json!({"i": "rk", "k": ["security", "auth"]}));
        assert_eq!(spec["m"]["e3"]["R"], "d");
        assert_eq!(spec["m"]["e3"]["cx"], json!({"d": "auth"}));
        assert_eq!(spec["m"]["e3"]["shape"], "anlt-structured");
    }

    #[test]
    fn the_model_topic_form_is_a_request() {
        let (spec, codes) =
            mapped(json!({"T": "auth", "C": [{"id": "jwt"}], "R": ["sec", "scale"], "cx": 0.7}));
        assert!(codes.is_empty(), "{codes:?}");
        assert_eq!(spec["intent"], "request");
        assert_eq!(spec["m"]["e3"]["T"], "auth");
    }

    #[test]
    fn bad_values_are_named() {
        let (_, codes) = mapped(json!({"T": "q", "C": {}, "R": "z", "p": 7, "cx": 3}));
        assert_eq!(codes, vec!["CSDL-UNMAPPED"; 3]);
        let (_, codes) = mapped(json!({"T": "q"}));
        assert_eq!(codes, vec!["CSDL-MISSING"]);
        let (_, codes) = mapped(json!({"T": "r", "C": {"s": 1, "f": ["a", 2], "w": "x"}}));
        assert_eq!(codes, vec!["CSDL-FIELD-TYPE"; 3]);
    }

    #[test]
    fn v2_numbers_are_decoded_and_unknown_ones_refused() {
        let (spec, codes) =
            mapped(json!({"t": "auth", "a": [0], "tc": [0, 3, 5], "cx": 0.7, "cs": [0]}));
        assert!(codes.is_empty(), "{codes:?}");
        assert_eq!(
            spec["v"],
            json!({"task": "auth", "actions": ["create"], "tech": ["jwt", "auth", "hash"], "complexity": 0.7, "constraints": ["secure"]})
        );
        let (_, mut codes) = mapped(json!({"t": "auth", "tc": [33, "kafka"], "a": "create"}));
        codes.sort_unstable();
        assert_eq!(codes, vec!["CSDL-FIELD-TYPE", "CSDL-UNMAPPED"]);
    }

    #[test]
    fn an_embedding_must_hold_what_it_says() {
        let (spec, codes) = mapped(json!({"emb": "AAEC", "dim": 3, "bits": 8, "model": "m"}));
        assert!(codes.is_empty(), "{codes:?}");
        assert_eq!(spec["intent"], "notify");
        let (_, codes) = mapped(json!({"emb": "AAEC", "dim": 384, "bits": 8}));
        assert_eq!(codes, vec!["CSDL-EMBEDDING"]);
        let (_, codes) = mapped(json!({"emb": "!!", "dim": 3, "bits": 4}));
        assert_eq!(codes, vec!["CSDL-UNMAPPED", "CSDL-EMBEDDING"]);
    }
}
