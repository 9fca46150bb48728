//! The A2A 1.0 JSON Schema bundle (`schemas/a2a/1.0/a2a.json`, vendored
//! from the A2A project), made usable: its `$ref`s name separate files
//! (`lf.a2a.v1.Message.jsonschema.json`) and its definitions are keyed by
//! titles with spaces (`Agent Card`), so at load time every definition is
//! filed under its proto name (`AgentCard`) in `$defs` and every `$ref`
//! pointed at it. One validator per top-level object, compiled on first use.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use serde_json::{Map, Value, json};

/// The vendored bundle, exactly as upstream wrote it.
pub const BUNDLE: &str = include_str!("../../../schemas/a2a/1.0/a2a.json");

/// The proto name a bundle title stands for: `Agent Card` → `AgentCard`.
fn proto_name(title: &str) -> String {
    title.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The proto name a `$ref` names: `lf.a2a.v1.AgentCard.jsonschema.json`
/// → `AgentCard`, `google.protobuf.Struct.jsonschema.json` → `Struct`.
fn ref_target(reference: &str) -> Option<&str> {
    let name = reference.strip_suffix(".jsonschema.json")?;
    name.rsplit('.').next()
}

/// Points every `$ref` of a schema at `#/$defs/<name>`, drops the
/// per-definition `$schema` (only a resource root may say it) and the
/// closing `additionalProperties: false`: the spec tells readers to ignore
/// unknown fields, so the rules report them as warnings instead.
fn relink(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("$schema");
            if map.get("additionalProperties") == Some(&Value::Bool(false)) {
                map.remove("additionalProperties");
            }
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && let Some(target) = ref_target(reference)
            {
                *reference = format!("#/$defs/{target}");
            }
            map.values_mut().for_each(relink);
        }
        Value::Array(items) => items.iter_mut().for_each(relink),
        _ => {}
    }
}

/// Every definition of the bundle by proto name, relinked.
pub fn definitions() -> &'static Map<String, Value> {
    static CELL: OnceLock<Map<String, Value>> = OnceLock::new();
    CELL.get_or_init(|| {
        let bundle: Value = serde_json::from_str(BUNDLE).unwrap_or_default();
        let mut defs = Map::new();
        if let Some(Value::Object(found)) = bundle.get("definitions") {
            for (title, schema) in found {
                let mut schema = schema.clone();
                relink(&mut schema);
                defs.insert(proto_name(title), schema);
            }
        }
        defs
    })
}

/// The compiled validator of one definition (`Message`, `AgentCard`…);
/// `None` for a name the bundle does not define.
pub fn validator(name: &str) -> Option<&'static jsonschema::Validator> {
    static CELL: OnceLock<Mutex<HashMap<String, &'static jsonschema::Validator>>> = OnceLock::new();
    let cache = CELL.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(v) = cache.get(name) {
        return Some(v);
    }
    let defs = definitions();
    defs.get(name)?;
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": defs,
        "$ref": format!("#/$defs/{name}"),
    });
    let compiled = jsonschema::options()
        .offline()
        .build(&schema)
        .unwrap_or_else(|e| panic!("the vendored A2A schema does not compile for {name}: {e}"));
    // One validator per definition name, kept for the process's life.
    let leaked: &'static jsonschema::Validator = Box::leak(Box::new(compiled));
    cache.insert(name.to_string(), leaked);
    Some(leaked)
}

/// The camelCase and snake_case spellings of a field, as the bundle names
/// them: ProtoJSON readers accept both, A2A 1.0 writes camelCase only.
pub fn snake_case(field: &str) -> String {
    let mut out = String::with_capacity(field.len() + 4);
    for c in field.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reference_resolves_and_every_definition_compiles() {
        let defs = definitions();
        assert!(defs.len() > 40, "{} definitions", defs.len());
        let text = serde_json::to_string(defs).unwrap();
        for (at, _) in text.match_indices("\"$ref\":\"#/$defs/") {
            let rest = &text[at + 16..];
            let name = &rest[..rest.find('"').unwrap()];
            assert!(defs.contains_key(name), "dangling $ref to {name}");
        }
        for name in [
            "Message",
            "Task",
            "AgentCard",
            "StreamResponse",
            "SendMessageRequest",
        ] {
            assert!(validator(name).is_some(), "{name}");
        }
        assert!(validator("NoSuchThing").is_none());
    }

    #[test]
    fn the_bundle_checks_what_it_says() {
        let message = validator("Message").unwrap();
        let ok = json!({"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]});
        assert!(message.is_valid(&ok));
        let bad_role = json!({"messageId": "m1", "role": "user", "parts": [{"text": "hi"}]});
        assert!(!message.is_valid(&bad_role));
        let bad_part = json!({"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": 3}]});
        assert!(!message.is_valid(&bad_part));
    }

    #[test]
    fn snake_case_of_a_camel_case_field() {
        assert_eq!(snake_case("contextId"), "context_id");
        assert_eq!(snake_case("defaultInputModes"), "default_input_modes");
        assert_eq!(snake_case("id"), "id");
    }
}
