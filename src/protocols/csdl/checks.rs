//! The CSDL 1.0 rules, checked on the compact form: required fields per
//! element, type names, confidence ranges, memory operations, message
//! intents, and the workflow graph (see `workflow`).

use serde_json::{Map, Value};

use super::fields::{escape, missing, not_object, required_str, wrong_type};
use super::workflow;
use crate::protocols::json_doc::Finding;

/// The element types of the complex-type table.
pub const ELEMENT_TYPES: &[&str] = &["function", "class", "workflow", "message", "memory", "tool"];
/// The basic types.
pub const BASIC_TYPES: &[&str] = &[
    "string", "integer", "float", "boolean", "array", "object", "null", "any",
];
/// Message intents.
pub const INTENTS: &[&str] = &["request", "response", "notify", "query", "error"];
/// Memory categories.
pub const CATEGORIES: &[&str] = &["working", "episodic", "semantic", "procedural"];

/// Checks one element (the document, a method, a child) at `at`.
pub fn check_element(map: &Map<String, Value>, at: &str, out: &mut Vec<Finding>) {
    let Some(kind) = required_str(map, at, "t", out) else {
        return;
    };
    if !ELEMENT_TYPES.contains(&kind) {
        out.push(Finding::error(
            format!("{at}/t"),
            "CSDL-ELEMENT-TYPE",
            format!(
                "`{kind}` is not a CSDL element type (one of {})",
                ELEMENT_TYPES.join(", ")
            ),
        ));
        return;
    }
    optional_str(map, at, "d", out);
    confidence(map, at, out);
    match kind {
        "function" | "tool" => {
            required_str(map, at, "n", out);
            param_map(map.get("p"), &format!("{at}/p"), out);
            if let Some(r) = map.get("r") {
                type_spec(r, &format!("{at}/r"), true, out);
            }
        }
        "class" => {
            required_str(map, at, "n", out);
            param_map(map.get("p"), &format!("{at}/p"), out);
            match map.get("methods") {
                None => {}
                Some(Value::Array(methods)) => {
                    for (i, m) in methods.iter().enumerate() {
                        let here = format!("{at}/methods/{i}");
                        match m {
                            Value::Object(m) => check_element(m, &here, out),
                            _ => out.push(not_object(here, "a method")),
                        }
                    }
                }
                Some(_) => out.push(wrong_type(
                    format!("{at}/methods"),
                    "methods",
                    "an array of functions",
                )),
            }
        }
        "workflow" => {
            required_str(map, at, "n", out);
            workflow::check(map, at, out);
        }
        "message" => message(map, at, out),
        "memory" => memory(map, at, out),
        _ => {}
    }
    if let Some(children) = map.get("c") {
        match children {
            Value::Array(items) => {
                for (i, c) in items.iter().enumerate() {
                    let here = format!("{at}/c/{i}");
                    match c {
                        Value::Object(c) => check_element(c, &here, out),
                        _ => out.push(not_object(here, "a child element")),
                    }
                }
            }
            _ => out.push(wrong_type(
                format!("{at}/c"),
                "c (children)",
                "an array of elements",
            )),
        }
    }
}

fn message(map: &Map<String, Value>, at: &str, out: &mut Vec<Finding>) {
    required_str(map, at, "from", out);
    required_str(map, at, "to", out);
    if let Some(intent) = required_str(map, at, "intent", out)
        && !INTENTS.contains(&intent)
    {
        out.push(Finding::error(
            format!("{at}/intent"),
            "CSDL-INTENT",
            format!("unknown intent `{intent}` (one of {})", INTENTS.join(", ")),
        ));
    }
}

fn memory(map: &Map<String, Value>, at: &str, out: &mut Vec<Finding>) {
    match required_str(map, at, "op", out) {
        Some("store") => {
            required_str(map, at, "key", out);
            if !map.contains_key("v") {
                out.push(missing(at, "v", "the value to store"));
            }
            if let Some(ttl) = map.get("ttl")
                && ttl.as_u64().is_none()
            {
                out.push(wrong_type(
                    format!("{at}/ttl"),
                    "ttl",
                    "a whole number of seconds, 0 or more",
                ));
            }
            if let Some(Value::Object(m)) = map.get("m") {
                category(m.get("category"), &format!("{at}/m/category"), out);
                unit_interval(
                    m.get("importance"),
                    &format!("{at}/m/importance"),
                    "importance",
                    out,
                );
            }
        }
        Some("retrieve") => {
            required_str(map, at, "query", out);
            if let Some(limit) = map.get("limit")
                && limit.as_u64().is_none_or(|n| n == 0)
            {
                out.push(wrong_type(
                    format!("{at}/limit"),
                    "limit",
                    "a whole number above 0",
                ));
            }
            match map.get("filters") {
                Some(Value::Object(f)) => {
                    category(f.get("category"), &format!("{at}/filters/category"), out);
                    unit_interval(
                        f.get("min_importance"),
                        &format!("{at}/filters/min_importance"),
                        "min_importance",
                        out,
                    );
                }
                Some(_) => out.push(wrong_type(format!("{at}/filters"), "filters", "an object")),
                None => {}
            }
        }
        Some(other) => out.push(Finding::error(
            format!("{at}/op"),
            "CSDL-MEMORY-OP",
            format!("unknown memory operation `{other}` (store or retrieve)"),
        )),
        None => {}
    }
}

fn category(value: Option<&Value>, at: &str, out: &mut Vec<Finding>) {
    match value {
        None => {}
        Some(Value::String(c)) if CATEGORIES.contains(&c.as_str()) => {}
        Some(other) => out.push(Finding::error(
            at,
            "CSDL-MEMORY-CATEGORY",
            format!(
                "unknown memory category {other} (one of {})",
                CATEGORIES.join(", ")
            ),
        )),
    }
}

/// A map of parameter (or property) names to their types.
fn param_map(value: Option<&Value>, at: &str, out: &mut Vec<Finding>) {
    match value {
        None => {}
        Some(Value::Object(params)) => {
            for (name, spec) in params {
                type_spec(spec, &format!("{at}/{}", escape(name)), false, out);
            }
        }
        Some(_) => out.push(wrong_type(at, "p", "an object of named parameters")),
    }
}

/// A parameter, property, `items` or return type. A return type may also
/// be a bare type name and may be `void`.
fn type_spec(value: &Value, at: &str, is_return: bool, out: &mut Vec<Finding>) {
    let map = match value {
        Value::Object(map) => map,
        Value::String(name) if is_return => {
            type_name(name, at, is_return, out);
            return;
        }
        _ => {
            out.push(not_object(at.to_string(), "a type"));
            return;
        }
    };
    if let Some(name) = required_str(map, at, "t", out) {
        type_name(name, &format!("{at}/t"), is_return, out);
    }
    optional_str(map, at, "d", out);
    confidence(map, at, out);
    if let Some(r) = map.get("r")
        && !r.is_boolean()
    {
        out.push(wrong_type(
            format!("{at}/r"),
            "r (required)",
            "true or false",
        ));
    }
    match map.get("p") {
        Some(Value::Array(fields)) => {
            for (i, f) in fields.iter().enumerate() {
                if !f.is_string() {
                    out.push(wrong_type(
                        format!("{at}/p/{i}"),
                        "a field name",
                        "a string",
                    ));
                }
            }
        }
        other => param_map(other, &format!("{at}/p"), out),
    }
    if let Some(items) = map.get("items") {
        type_spec(items, &format!("{at}/items"), false, out);
    }
    match map.get("enum") {
        None => {}
        Some(Value::Array(allowed)) => {
            if let Some(default) = map.get("default")
                && !allowed.contains(default)
            {
                out.push(Finding::warning(
                    format!("{at}/default"),
                    "CSDL-DEFAULT-NOT-IN-ENUM",
                    format!("the default {default} is not one of the enum values"),
                ));
            }
        }
        Some(_) => out.push(wrong_type(
            format!("{at}/enum"),
            "enum",
            "an array of allowed values",
        )),
    }
}

fn type_name(name: &str, at: &str, is_return: bool, out: &mut Vec<Finding>) {
    let known = BASIC_TYPES.contains(&name)
        || ELEMENT_TYPES.contains(&name)
        || (is_return && name == "void");
    if !known {
        out.push(Finding::error(
            at,
            "CSDL-TYPE",
            format!(
                "unknown type `{name}` (basic: {}; complex: {}{})",
                BASIC_TYPES.join(", "),
                ELEMENT_TYPES.join(", "),
                if is_return { "; or void" } else { "" }
            ),
        ));
    }
}

/// `cx`, when present, is a number in [0, 1].
fn confidence(map: &Map<String, Value>, at: &str, out: &mut Vec<Finding>) {
    unit_interval(map.get("cx"), &format!("{at}/cx"), "cx (confidence)", out);
}

fn unit_interval(value: Option<&Value>, at: &str, what: &str, out: &mut Vec<Finding>) {
    match value {
        None => {}
        Some(v) if v.as_f64().is_some_and(|x| (0.0..=1.0).contains(&x)) => {}
        Some(v) => out.push(Finding::error(
            at,
            "CSDL-CONFIDENCE",
            format!("{what} is {v}; it must be a number from 0 to 1"),
        )),
    }
}

fn optional_str(map: &Map<String, Value>, at: &str, key: &str, out: &mut Vec<Finding>) {
    if let Some(v) = map.get(key)
        && !v.is_string()
    {
        out.push(wrong_type(format!("{at}/{key}"), key, "a string"));
    }
}
