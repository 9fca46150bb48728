//! Checking messages against a project's schemas: the findings are coded
//! `PROJECT-SCHEMA` (and `PROJECT-SCHEMA-MISSING` for a required Crosstalk
//! meta block that is absent) and placed where the readers place their own.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::schemas::{ProjectSchema, Target};
use crate::diag::{Diagnostic, Pos};
use crate::protocols::crosstalk::ParsedEnvelope;
use crate::protocols::hsp::HspMessage;
use crate::protocols::hsp::message_type::MessageType;
use crate::protocols::json_doc::{Finding, Where};
use crate::protocols::{Found, Value as Typed};

/// A project's schemas, applied message by message in input order.
pub struct ProjectChecks {
    schemas: Vec<ProjectSchema>,
    /// The capabilities each TaskRequest met so far asked for, by request
    /// id: a TaskResult does not name its capability, its request does.
    /// Kept only while some schema constrains a capability's result.
    requests: HashMap<String, Vec<String>>,
    /// Whether some schema constrains a capability's result (so requests are kept).
    results_constrained: bool,
}

impl ProjectChecks {
    pub fn new(schemas: Vec<ProjectSchema>) -> Self {
        let results_constrained = schemas
            .iter()
            .any(|s| matches!(s.target, Target::CapabilityResult(_)));
        ProjectChecks {
            schemas,
            requests: HashMap::new(),
            results_constrained,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.schemas.is_empty()
    }

    /// Adds the project's findings to a message read from `source`, the
    /// text (or JSON Lines line) its reader was given.
    pub fn check(&mut self, found: &mut Found, source: &str) {
        if self.schemas.is_empty() {
            return;
        }
        let added = match &found.value {
            Typed::Crosstalk(parsed) => self.crosstalk(parsed),
            Typed::Hsp(Some(message)) => place(found, source, self.hsp(message)),
            Typed::Csdl(Some(doc)) => place(found, source, self.csdl(&doc.json)),
            _ => Vec::new(),
        };
        if !added.is_empty() {
            found.diagnostics.extend(added);
            found.diagnostics.sort_by_key(|d| (d.line, d.column));
        }
    }

    fn hsp(&mut self, message: &HspMessage) -> Vec<Finding> {
        let json = &message.json;
        let Some(kind) = json
            .get("message_type")
            .and_then(Value::as_str)
            .and_then(MessageType::parse)
        else {
            return Vec::new();
        };
        let payload = json.get("payload");
        let field = |name: &str| payload.and_then(|p| p.get(name));
        let text = |name: &str| field(name).and_then(Value::as_str);
        let asked: Vec<&str> = ["capability_name_filter", "capability_id_filter"]
            .into_iter()
            .filter_map(text)
            .collect();
        let answered: &[String] = match (kind.name, text("request_id")) {
            ("TaskResult", Some(id)) => self.requests.get(id).map_or(&[], Vec::as_slice),
            _ => &[],
        };
        let mut findings = Vec::new();
        for schema in &self.schemas {
            let (value, pointer) = match &schema.target {
                Target::HspType(name) if *name == kind.name => (payload, "/payload"),
                Target::CapabilityParameters(c)
                    if kind.name == "TaskRequest" && asked.contains(&c.as_str()) =>
                {
                    (field("parameters"), "/payload/parameters")
                }
                Target::CapabilityResult(c) if answered.contains(c) => {
                    (field("payload"), "/payload/payload")
                }
                _ => continue,
            };
            if let Some(value) = value {
                findings.extend(schema_findings(schema, value, pointer));
            }
        }
        if kind.name == "TaskRequest"
            && self.results_constrained
            && let Some(id) = text("request_id")
        {
            let asked = asked.into_iter().map(str::to_string).collect();
            self.requests.insert(id.to_string(), asked);
        }
        findings
    }

    fn csdl(&self, json: &Value) -> Vec<Finding> {
        let mut findings = Vec::new();
        for schema in &self.schemas {
            if let Target::CsdlElement(element) = &schema.target {
                each_element(json, element, &mut String::new(), &mut |value, pointer| {
                    findings.extend(schema_findings(schema, value, pointer));
                });
            }
        }
        findings
    }

    fn crosstalk(&self, parsed: &ParsedEnvelope) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for schema in &self.schemas {
            let Target::CrosstalkMeta {
                namespace,
                required,
            } = &schema.target
            else {
                continue;
            };
            let meta = &parsed.envelope.meta;
            let Some(index) = meta.iter().position(|b| b.namespace == *namespace) else {
                if *required {
                    let message = format!(
                        "this envelope has no `meta: {namespace}` block, which the project requires ({})",
                        schema.file
                    );
                    out.push(
                        Diagnostic::error("PROJECT-SCHEMA-MISSING", message)
                            .at(parsed.locations.header_line, 2),
                    );
                }
                continue;
            };
            let block = &meta[index];
            // A key written twice keeps its first value, as the model reads it.
            let mut object = Map::new();
            for (key, value) in &block.entries {
                object
                    .entry(key.clone())
                    .or_insert_with(|| Value::String(value.clone()));
            }
            let (block_line, key_places) = parsed
                .locations
                .meta
                .get(index)
                .cloned()
                .unwrap_or_default();
            for finding in schema_findings(schema, &Value::Object(object), "") {
                // `/KEY…` sits on the key's line; anything else on `meta:`.
                let key = finding.pointer.split('/').nth(1).map(unescape);
                let entry = key.and_then(|key| {
                    block
                        .entries
                        .iter()
                        .position(|(k, _)| *k == key)
                        .map(|i| (key.chars().count(), key_places.get(i).copied()))
                });
                let mut d = finding.diagnostic;
                d = match entry {
                    Some((length, Some(pos))) => d.at(pos, length.max(1)),
                    _ => d.at(block_line, "meta:".len()),
                };
                d.pointer = Some(finding.pointer);
                out.push(d);
            }
        }
        out
    }
}

/// Places findings on a JSON message in `source` as its reader placed its
/// own; without a span (never expected), on the message's first line.
fn place(found: &Found, source: &str, findings: Vec<Finding>) -> Vec<Diagnostic> {
    match found.span.and_then(|span| Where::within(source, span)) {
        Some(at) => at.place_all(findings),
        None => findings
            .into_iter()
            .map(|f| {
                let mut d = f.diagnostic.at(Pos::new(found.line, 1), 1);
                d.pointer = Some(f.pointer);
                d
            })
            .collect(),
    }
}

/// Calls `found` with every object of `value` (itself included) whose
/// element type (`t`, or `type` in the full spelling) is `element`.
fn each_element<'v>(
    value: &'v Value,
    element: &str,
    pointer: &mut String,
    found: &mut impl FnMut(&'v Value, &str),
) {
    let children: Box<dyn Iterator<Item = (String, &'v Value)>> = match value {
        Value::Object(object) => {
            let kind = object.get("t").or_else(|| object.get("type"));
            if kind.and_then(Value::as_str) == Some(element) {
                found(value, pointer);
            }
            Box::new(object.iter().map(|(k, v)| (escape(k), v)))
        }
        Value::Array(items) => Box::new(items.iter().enumerate().map(|(i, v)| (i.to_string(), v))),
        _ => return,
    };
    for (segment, child) in children {
        let len = pointer.len();
        pointer.push('/');
        pointer.push_str(&segment);
        each_element(child, element, pointer, found);
        pointer.truncate(len);
    }
}

/// The schema's findings on `value`, which sits at `pointer` in its message.
fn schema_findings(schema: &ProjectSchema, value: &Value, pointer: &str) -> Vec<Finding> {
    if schema.validator.is_valid(value) {
        return Vec::new();
    }
    schema
        .validator
        .iter_errors(value)
        .map(|error| {
            let mut at = format!("{pointer}{}", error.instance_path().as_str());
            if let jsonschema::error::ValidationErrorKind::Required { property } = error.kind()
                && let Some(p) = property.as_str()
            {
                at = format!("{at}/{}", escape(p));
            }
            let message = format!("{error} ({}, per {})", schema.target, schema.file);
            Finding {
                pointer: at,
                diagnostic: Diagnostic::error("PROJECT-SCHEMA", message),
            }
        })
        .collect()
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}
