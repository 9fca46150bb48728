//! The offline decoder: a signal (1.0 or 2.0) written back as plain
//! sentences from templates, every field said and the intent and target
//! named verbatim.

use serde_json::{Map, Value};

/// The styles the template decoder knows.
pub const STYLES: &[&str] = &["professional", "concise", "friendly"];

/// Writes a signal (1.0 or 2.0) as prose from templates: every field
/// said (notes as sentences, then the other parameters, constraints, state
/// and a priority other than medium).
pub fn decode(signal: &Value, style: &str) -> String {
    let get = |k: &str| signal.get(k);
    let intent = get("intent").and_then(Value::as_str).unwrap_or("REPORT");
    let target = get("target").and_then(Value::as_str).unwrap_or("");
    let verb = intent.to_lowercase();
    let lead = match (intent, style) {
        ("QUERY", _) => format!("Query: what can you tell me about {target}?"),
        ("RESPOND", _) => format!("Responding to {target}."),
        ("REPORT", _) => format!("Report on {target}."),
        (_, "concise") => format!("{}: {target}.", capitalize(&verb)),
        (_, "friendly") => format!("Hi! Could you {verb} {target}?"),
        _ => format!("Please {verb} {target}."),
    };
    let mut out = vec![lead];
    if let Some(Value::Object(params)) = get("params") {
        if let Some(notes) = params.get("notes") {
            let notes = match notes {
                Value::Array(items) => items.iter().map(plain).collect(),
                other => vec![plain(other)],
            };
            out.extend(notes.iter().map(|n| sentence(n)));
        }
        let rest: Map<String, Value> = params
            .iter()
            .filter(|(k, _)| *k != "notes")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !rest.is_empty() {
            out.push(format!("Details: {}.", describe(&rest)));
        }
    }
    if let Some(Value::Object(summary)) = get("summary")
        && !summary.is_empty()
    {
        out.push(format!("Summary: {}.", describe(summary)));
    }
    if let Some(Value::Array(sections)) = get("sections") {
        for s in sections {
            let title = s.get("title").and_then(Value::as_str).unwrap_or("");
            let content = s.get("content").and_then(Value::as_str).unwrap_or("");
            out.push(format!("{title}: {content}"));
        }
    }
    if let Some(Value::Array(constraints)) = get("constraints")
        && !constraints.is_empty()
    {
        out.extend(constraints.iter().map(|c| sentence(&plain(c))));
    }
    if let Some(Value::Object(state)) = get("state")
        && !state.is_empty()
    {
        out.push(format!("Current state: {}.", describe(state)));
    }
    match get("priority").and_then(Value::as_str) {
        Some(p) if p != "medium" => out.push(format!("Priority: {p}.")),
        _ => {}
    }
    out.join(" ")
}

/// A note as a sentence: capitalised, ending with a stop.
fn sentence(note: &str) -> String {
    let note = capitalize(note.trim());
    if note.ends_with(['.', '!', '?']) {
        note
    } else {
        format!("{note}.")
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// `key: value` for each entry, keys with spaces for underscores.
fn describe(map: &Map<String, Value>) -> String {
    map.iter()
        .map(|(k, v)| format!("{}: {}", k.replace('_', " "), plain(v)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A JSON value as plain words.
pub(super) fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(plain).collect::<Vec<_>>().join(", "),
        Value::Object(map) => describe(map),
        Value::Null => "none".into(),
        other => other.to_string(),
    }
}
