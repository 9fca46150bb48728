//! CSDL 1.0: token-compressed JSON descriptions of functions, classes,
//! workflows, agent messages, memory operations and tools.
//!
//! A document is read in either spelling (`codes`: the short codes or the
//! full names), checked in the compact one (`checks`, `workflow`, and the
//! embedded schema in `schemas/csdl/1.0/`), and its findings are placed in
//! the text as written. Documents of the other dialects found in the wild
//! (the uppercase T/C/R "CSDL Structured" format, a `t` that is a task, the
//! uncompressed message CSDL is made from) get one finding that says so,
//! unless they are one of the shapes E3 writes (`upstream`), which are read
//! and mapped to a 1.0 message.

pub mod checks;
pub mod codes;
pub mod fields;
pub mod model_map;
#[cfg(test)]
pub(crate) mod proptests;
pub mod upstream;
pub mod workflow;

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::json_doc::{self, Finding};
use codes::Spelling;
use upstream::Shape;

/// The one CSDL version.
pub const VERSION: &str = "1.0";

/// The embedded schema of the compact form.
pub const SCHEMA: &str = include_str!("../../../schemas/csdl/1.0/element.schema.json");

/// A CSDL document as read.
#[derive(Debug, Clone)]
pub struct CsdlDoc {
    /// The document as written.
    pub json: Value,
    pub spelling: Spelling,
    /// The shape it was written in: the 1.0 spec or one of E3's.
    pub shape: Shape,
    /// A document of one of E3's shapes, as the CSDL 1.0 message it maps to.
    pub spec: Option<Value>,
}

impl CsdlDoc {
    /// The document in the short codes (an E3 shape: its 1.0 form).
    pub fn compact(&self) -> Value {
        match &self.spec {
            Some(spec) => spec.clone(),
            None => codes::compact(&self.json),
        }
    }

    /// The document as CSDL 1.0 writes it: itself, or an E3 shape's 1.0 form.
    pub fn spec_form(&self) -> &Value {
        self.spec.as_ref().unwrap_or(&self.json)
    }
}

/// Whether a text looks like CSDL: JSON whose first object has a `t` or
/// `T` key, or a `type` that names a CSDL element, or the keys of one of
/// E3's shapes.
pub fn detect(text: &str) -> bool {
    let t = text.trim_start();
    if !json_doc::starts_like_json(t) {
        return false;
    }
    let keys = json_doc::top_level_keys(t, 64 * 1024);
    let has = |k: &str| keys.contains(&k);
    keys.iter().any(|k| *k == "t" || *k == "T")
        || (has("type") && names_an_element_type(t))
        || has("cbp")
        || (has("type") && has("content") && (has("sender") || has("receiver")))
        || (has("message_type")
            && has("content")
            && (has("sender_id") || has("recipient_id") || has("message_id")))
        || (has("emb") && has("dim"))
}

/// Whether some `"type": "<element>"` occurs in the first 64 KiB.
fn names_an_element_type(text: &str) -> bool {
    let head = &text[..super::hsp::floor_char_boundary(text, 64 * 1024)];
    head.match_indices("\"type\"").any(|(i, _)| {
        let rest = head[i + 6..].trim_start();
        let Some(value) = rest.strip_prefix(':').map(str::trim_start) else {
            return false;
        };
        checks::ELEMENT_TYPES.iter().any(|e| {
            value
                .strip_prefix('"')
                .and_then(|v| v.strip_prefix(e))
                .is_some_and(|r| r.starts_with('"'))
        })
    })
}

/// Reads and checks every document in a text.
pub fn read(text: &str, max_message_bytes: usize) -> Vec<json_doc::Read<CsdlDoc>> {
    let syntax = json_doc::SyntaxCodes {
        json: "CSDL-JSON",
        too_large: "CSDL-TOO-LARGE",
    };
    json_doc::read_all(text, max_message_bytes, syntax, |value| {
        let shape = match &value {
            Value::Object(map) => upstream::shape_of(map),
            _ => Shape::Spec,
        };
        if let (Value::Object(map), false) = (&value, shape == Shape::Spec) {
            let mapped = upstream::to_spec(map, shape);
            let doc = CsdlDoc {
                json: value,
                spelling: Spelling::Compact,
                shape,
                spec: Some(mapped.spec),
            };
            return (Some(doc), mapped.findings);
        }
        let (spelling, findings) = check_as_written(&value);
        (
            Some(CsdlDoc {
                json: value,
                spelling,
                shape,
                spec: None,
            }),
            findings,
        )
    })
}

/// Checks a document as written: findings point into its own spelling.
pub fn check_as_written(value: &Value) -> (Spelling, Vec<Finding>) {
    let compact = codes::compact(value);
    let spelling = codes::spelling_of(value, &compact);
    let mut findings = check_compacted(value, &compact);
    if spelling == Spelling::Expanded {
        for f in &mut findings {
            f.pointer = codes::expand_pointer(&compact, &f.pointer);
        }
    }
    if spelling == Spelling::Mixed {
        findings.push(Finding::warning(
            "",
            "CSDL-MIXED-SPELLING",
            "short codes and full names are mixed in one document; `aiproto convert --to csdl --compact` writes it one way",
        ));
    }
    (spelling, findings)
}

/// Checks a document in either spelling; pointers are to its compact form.
pub fn check(written: &Value) -> Vec<Finding> {
    check_compacted(written, &codes::compact(written))
}

/// [`check`], given the document's compact spelling too.
fn check_compacted(written: &Value, doc: &Value) -> Vec<Finding> {
    let Value::Object(map) = written else {
        return vec![Finding::error(
            "",
            "CSDL-NOT-OBJECT",
            "a CSDL document is a JSON object",
        )];
    };
    if let Some(f) = other_dialect(map) {
        return vec![f];
    }
    let Value::Object(map) = doc else {
        return Vec::new();
    };
    let mut rules = Vec::new();
    checks::check_element(map, "", &mut rules);
    let schema = json_doc::schema_findings(validator(), doc, &rules, schema_code);
    rules.extend(json_doc::unexplained_containers(schema, &rules));
    rules
}

/// One finding for a document of another dialect.
fn other_dialect(map: &Map<String, Value>) -> Option<Finding> {
    let has = |k: &str| map.contains_key(k);
    let element_type = map
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| checks::ELEMENT_TYPES.contains(&t));
    if !has("t")
        && has("type")
        && !element_type
        && (has("sender") || has("receiver") || has("content"))
    {
        return Some(Finding::error(
            "/type",
            "CSDL-DIALECT",
            "this is an uncompressed agent message (type, sender, receiver, content), the input CSDL is made from, not CSDL",
        ));
    }
    if has("T") && !has("t") {
        return Some(
            Finding::error(
                "/T",
                "CSDL-DIALECT",
                "this is the uppercase T/C/R dialect (\"CSDL Structured\" of ANLT), not CSDL 1.0",
            )
            .hinted("CSDL 1.0 uses the lowercase codes t, n, d, p, r, cx; the T/C/R dialect has no published schema to check against"),
        );
    }
    match map.get("t").or_else(|| map.get("type")) {
        Some(Value::String(t))
            if !checks::ELEMENT_TYPES.contains(&t.as_str()) && !has("n") && !has("name") =>
        {
            return Some(
                Finding::error(
                    if has("t") { "/t" } else { "/type" },
                    "CSDL-DIALECT",
                    format!("`t` is `{t}`, not a CSDL 1.0 element type: this looks like another dialect (ANLT v2 uses `t` for a task and `cx` for complexity)"),
                )
                .hinted(format!("CSDL 1.0 element types: {}", checks::ELEMENT_TYPES.join(", "))),
            );
        }
        _ => {}
    }
    if map.get("cx").is_some_and(Value::is_object) {
        return Some(Finding::error(
            "/cx",
            "CSDL-DIALECT",
            "`cx` is an object (a context, as in the ANLT dialect); in CSDL 1.0 it is a confidence from 0 to 1",
        ));
    }
    None
}

/// `CSDL-SCHEMA-<KEYWORD>` for the schema keywords aiproto's schema uses.
fn schema_code(keyword: &str) -> &'static str {
    match keyword {
        "required" => "CSDL-SCHEMA-REQUIRED",
        "type" => "CSDL-SCHEMA-TYPE",
        "enum" | "const" => "CSDL-SCHEMA-ENUM",
        "minimum" | "maximum" => "CSDL-SCHEMA-RANGE",
        "minLength" | "minItems" => "CSDL-SCHEMA-EMPTY",
        "anyOf" | "oneOf" | "allOf" => "CSDL-SCHEMA-ALTERNATIVES",
        _ => "CSDL-SCHEMA",
    }
}

/// The compiled schema.
pub fn validator() -> &'static jsonschema::Validator {
    static CELL: OnceLock<jsonschema::Validator> = OnceLock::new();
    CELL.get_or_init(|| {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap_or_default();
        jsonschema::options()
            .offline()
            .build(&schema)
            .unwrap_or_else(|e| panic!("the embedded CSDL schema does not compile: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes_of(doc: Value) -> Vec<&'static str> {
        check(&doc).iter().map(|f| f.diagnostic.code).collect()
    }

    #[test]
    fn the_schema_is_valid_2020_12() {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        assert!(jsonschema::meta::is_valid(&schema));
        validator();
    }

    #[test]
    fn spec_function_is_valid() {
        let f = json!({"t": "function", "n": "f", "d": "x",
            "p": {"q": {"t": "string", "r": true}, "l": {"t": "integer", "default": 10}},
            "r": {"t": "object", "p": ["a", "b"]}, "cx": 0.9});
        assert!(codes_of(f).is_empty());
    }

    #[test]
    fn each_rule_reports_once() {
        assert_eq!(codes_of(json!({"t": "function"})), vec!["CSDL-MISSING"]);
        assert_eq!(
            codes_of(json!({"t": "function", "n": "f", "p": {"x": {"t": "str"}}})),
            vec!["CSDL-TYPE"]
        );
        assert_eq!(
            codes_of(json!({"t": "function", "n": "f", "cx": 1.5})),
            vec!["CSDL-CONFIDENCE"]
        );
        assert_eq!(
            codes_of(json!({"t": "message", "from": "a", "to": "b", "intent": "shout"})),
            vec!["CSDL-INTENT"]
        );
        assert_eq!(
            codes_of(json!({"t": "memory", "op": "store", "key": "k"})),
            vec!["CSDL-MISSING"]
        );
        assert_eq!(
            codes_of(
                json!({"t": "memory", "op": "retrieve", "query": "q", "filters": {"category": "dreams"}})
            ),
            vec!["CSDL-MEMORY-CATEGORY"]
        );
        assert_eq!(
            codes_of(json!({"t": "function", "n": "f", "r": {"t": "void"}})),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn other_dialects_get_one_finding() {
        // (E3's shapes are read before these checks: see `upstream`.)
        let upper = json!({"T": "auth", "C": [{"id": "jwt"}], "R": ["sec"], "cx": 0.7});
        assert_eq!(codes_of(upper), vec!["CSDL-DIALECT"]);
        let context = json!({"t": "q", "n": "x", "cx": {"d": "auth"}});
        assert_eq!(codes_of(context), vec!["CSDL-DIALECT"]);
        let task = json!({"t": "task", "zz": 3});
        assert_eq!(codes_of(task), vec!["CSDL-DIALECT"]);
        let verbose = json!({"type": "analysis", "sender": "A", "receiver": "B", "content": {}});
        assert_eq!(codes_of(verbose), vec!["CSDL-DIALECT"]);
    }

    #[test]
    fn e3_shapes_are_read_and_mapped() {
        let text =
            "{\"T\":\"q\",\"C\":{\"i\":\"rk\"},\"R\":\"d\",\"p\":1}\n{\"t\":\"auth\",\"a\":[99]}\n";
        let read = read(text, 1 << 20);
        let doc = read[0].doc.as_ref().unwrap();
        assert_eq!(doc.shape, Shape::AnltStructured);
        assert_eq!(doc.compact()["intent"], "query");
        let codes: Vec<_> = read[0].diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec!["CSDL-UPSTREAM"]);
        let d = read[1]
            .diagnostics
            .iter()
            .find(|d| d.code == "CSDL-UNMAPPED")
            .unwrap();
        assert_eq!((d.line, d.pointer.as_deref()), (2, Some("/a/0")));
    }

    #[test]
    fn detection() {
        assert!(detect("{\"t\": \"function\", \"n\": \"f\"}"));
        assert!(detect("{\"T\":\"auth\"}"));
        assert!(detect("{\"type\": \"workflow\", \"name\": \"w\"}"));
        assert!(!detect("{\"type\": \"analysis\"}"));
        assert!(detect(
            "{\"type\": \"req\", \"sender\": \"a\", \"content\": {}}"
        ));
        assert!(detect(
            "{\"message_type\": \"query\", \"message_id\": \"x\", \"content\": {}}"
        ));
        assert!(detect("{\"emb\": \"AAEC\", \"dim\": 3}"));
        assert!(!detect("t: function"));
    }

    #[test]
    fn expanded_findings_are_placed_on_the_expanded_names() {
        let text = "{\n  \"type\": \"function\",\n  \"name\": \"f\",\n  \"parameters\": {\"q\": {\"type\": \"str\"}}\n}";
        let read = read(text, 1 << 20);
        let d = &read[0].diagnostics[0];
        assert_eq!(d.code, "CSDL-TYPE");
        assert_eq!(d.pointer.as_deref(), Some("/parameters/q/type"));
        assert_eq!(d.line, 4);
    }
}
