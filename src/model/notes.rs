//! What aiproto notes in a converted message beside the model's slots:
//! its own namespace, the slots a writer generated, meta blocks carried as
//! JSON, and the report of a value the target could not hold. Every
//! protocol's model map uses these; none of them knows a protocol.

use serde_json::{Map, Value};

use super::{Loss, Message, MetaBlock, Slot};

/// The namespace of aiproto's own notes in a converted message.
pub const AIPROTO_NAMESPACE: &str = "aiproto";
/// The key, inside the aiproto namespace, listing generated slots.
pub const GENERATED_KEY: &str = "generated";

/// Removes the fields a writer would produce again from the model alone, so
/// that an extension holds only what the model cannot say.
pub fn keep_unexplained(fields: &mut Map<String, Value>, synthesized: &Map<String, Value>) {
    fields.retain(|k, v| synthesized.get(k) != Some(v));
}

/// Empties the model slots a writer listed as generated (made up, not converted).
pub fn forget_generated<'a>(msg: &mut Message, names: impl IntoIterator<Item = &'a str>) {
    for name in names {
        if let Some(slot) = Slot::parse(name) {
            msg.clear(slot);
        }
    }
}

/// The generated slots listed in a JSON aiproto note (`{"generated": [...]}`).
pub fn generated_in(note: &Value) -> Vec<&str> {
    note.get(GENERATED_KEY)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A JSON aiproto note listing generated slots, or other values a writer
/// made up by name (`None` when there are none).
pub fn generated_note(generated: &[&str]) -> Option<Value> {
    (!generated.is_empty()).then(|| {
        let names: Vec<Value> = generated.iter().map(|s| Value::from(*s)).collect();
        let mut note = Map::new();
        note.insert(GENERATED_KEY.into(), Value::Array(names));
        Value::Object(note)
    })
}

/// The Crosstalk `meta:` blocks of a model as JSON, order kept:
/// `[{"namespace": "routing", "entries": [["X-Priority", "high"]]}]`.
pub fn meta_to_json(meta: &[MetaBlock]) -> Option<Value> {
    (!meta.is_empty()).then(|| serde_json::to_value(meta).unwrap_or_default())
}

/// What a JSON writer carries of a model besides its own fields: the
/// Crosstalk meta blocks under `name("crosstalk")` and each other
/// protocol's extension under `name(protocol)` (`x_crosstalk`, `m.hsp`…).
/// The writer's own extension is taken out of the model before.
pub fn carried(msg: &Message, name: impl Fn(&str) -> String) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(meta) = meta_to_json(&msg.meta) {
        out.insert(name("crosstalk"), meta);
    }
    for ext in &msg.extensions {
        out.insert(name(ext.protocol.name()), Value::Object(ext.fields.clone()));
    }
    out
}

/// Reads back what [`meta_to_json`] wrote; `None` when the value is not that shape.
pub fn meta_from_json(value: &Value) -> Option<Vec<MetaBlock>> {
    serde_json::from_value(value.clone()).ok()
}

/// The loss of a value, with why the target could not hold it.
pub fn loss(field: impl Into<String>, value: impl Into<String>, reason: impl Into<String>) -> Loss {
    Loss {
        field: field.into(),
        value: value.into(),
        reason: reason.into(),
    }
}

/// A JSON value as loss-report text (strings without quotes).
pub fn value_text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}
