//! Converting a message between protocols: its reader maps it to the shared
//! [`Message`], the target's writer maps that to the target, and whatever
//! the target cannot hold is reported as a [`Loss`], field by field.
//!
//! Three rules keep A → B → A exact (the mapping table is in `docs/convert.md`):
//! - what has no slot in the model travels in B's extension slot (a
//!   `meta: <protocol>` block, CSDL `m.<protocol>`, HSP `x_<protocol>`);
//! - a model value B cannot hold exactly (an id that is not a ULID, an intent
//!   B has no word for) is written approximately in B and kept, under its own
//!   name, in A's extension ([`stash`]);
//! - a value B must have but the model lacks (HSP's `timestamp_sent`) is made
//!   up and listed as generated (`meta: aiproto` / `Generated:`, `x_aiproto`,
//!   `m.aiproto`), and reading B again forgets it ([`forget_generated`]).

pub mod address;
mod attempt;
pub mod promise;

pub use attempt::{Attempt, attempt};

use serde_json::{Map, Value};

use crate::model::{Loss, Message, MetaBlock, Signature, Slot};
use crate::protocols::{
    Found, Protocol, ProtocolSpec, ReadOptions, Value as Typed, crosstalk, csdl, hsp, msp,
};

/// The namespace of aiproto's own notes in a converted message.
pub const AIPROTO_NAMESPACE: &str = "aiproto";
/// The key, inside the aiproto namespace, listing generated slots.
pub const GENERATED_KEY: &str = "generated";

/// A converted message in its target's wire form, with what was lost.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// One Crosstalk envelope, or one line of compact JSON; ends with a line end.
    pub text: String,
    pub losses: Vec<Loss>,
}

/// How a target is written.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteOptions {
    /// CSDL: write the long field names instead of the short codes.
    pub csdl_expanded: bool,
}

impl WriteOptions {
    fn csdl_form(self) -> csdl::codes::Form {
        if self.csdl_expanded {
            csdl::codes::Form::Expanded
        } else {
            csdl::codes::Form::Compact
        }
    }
}

/// Converts one valid message (`None` for input that is not a message).
/// A signature covers the source form, so it is dropped (and reported)
/// whenever the version or protocol changes.
pub fn convert(found: &Found, target: ProtocolSpec, options: WriteOptions) -> Option<Converted> {
    // HSP with no version asked stays in the message's own version.
    let target = match target {
        ProtocolSpec {
            protocol: Protocol::Hsp,
            version: None,
        } if found.protocol == Protocol::Hsp => found.spec(),
        other => other,
    };
    let moves = target.protocol != found.protocol || target.version_or_default() != found.version;
    if !moves {
        return canonical(found, options).map(|text| Converted {
            text,
            losses: Vec::new(),
        });
    }
    let mut msg = found.to_message()?;
    let mut dropped = Vec::new();
    if let Some(sig) = msg.signature.take_if(|s| s.raw != "none") {
        dropped.push(Loss {
            field: "signature".into(),
            value: sig.raw,
            reason: "the signature covers the source form and would not verify".into(),
        });
        msg.signature = Some(Signature { raw: "none".into() });
    }
    let mut out = write(&msg, target, options);
    dropped.append(&mut out.losses);
    out.losses = dropped;
    Some(out)
}

/// Why a converted message cannot be written: the errors its target's
/// checks find in it (a body too large for the target, say). `None` when
/// it is a valid message of the target, as every conversion must give.
pub fn refusal(out: &Converted, target: Protocol, options: &ReadOptions) -> Option<String> {
    let found = target.read(&out.text, options);
    let errors: Vec<String> = match found.as_slice() {
        [one] => one
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("{} {}", d.code, d.message))
            .collect(),
        other => vec![format!("{} messages written instead of one", other.len())],
    };
    (!errors.is_empty()).then(|| errors.join("; "))
}

/// A message rewritten in its own protocol and version, canonically: a
/// Crosstalk envelope re-rendered, CSDL in the asked spelling, an MSP 1.0
/// signal with every field, HSP as compact JSON.
fn canonical(found: &Found, options: WriteOptions) -> Option<String> {
    match &found.value {
        Typed::Csdl(Some(doc)) => Some(format!(
            "{}\n",
            csdl::codes::to_form(&doc.json, options.csdl_form())
        )),
        Typed::Msp(Some(doc)) if doc.version == msp::Version::V1_0 => {
            let json = msp::MinimalSignal::from_json(&doc.json)
                .map(|s| s.to_json())
                .unwrap_or_else(|_| doc.json.clone());
            Some(format!("{json}\n"))
        }
        _ => found.render(),
    }
}

/// Writes a model message in a target protocol and version.
pub fn write(msg: &Message, target: ProtocolSpec, options: WriteOptions) -> Converted {
    let version = target.version_or_default();
    match target.protocol {
        Protocol::Crosstalk => {
            let version = crosstalk::Version::parse(version).unwrap_or(crosstalk::Version::V1_1);
            let (env, losses) = crosstalk::model_map::from_message(msg, version);
            Converted {
                text: crosstalk::render(&env),
                losses,
            }
        }
        Protocol::Hsp => {
            let asked = target.version.and_then(hsp::Version::parse);
            let (json, losses) = hsp::model_map::from_message(msg, asked);
            json_line(json, losses)
        }
        Protocol::Csdl => {
            let json = csdl::model_map::from_message(msg);
            json_line(csdl::codes::to_form(&json, options.csdl_form()), Vec::new())
        }
        Protocol::Msp => {
            let version = match version {
                "2.0" => msp::Version::V2_0,
                _ => msp::Version::V1_0,
            };
            let (json, losses) = msp::model_map::from_message(msg, version);
            json_line(json, losses)
        }
    }
}

fn json_line(json: Value, losses: Vec<Loss>) -> Converted {
    Converted {
        text: format!("{json}\n"),
        losses,
    }
}

/// Keeps a slot's value, which the target could not hold exactly, in the
/// extension of the protocol the message came from, under that protocol's
/// own name for it: converting back then restores it.
pub fn stash(msg: &mut Message, slot: Slot, value: String) {
    match msg.protocol {
        Protocol::Crosstalk => crosstalk::model_map::stash(msg, slot, value),
        Protocol::Hsp => hsp::model_map::stash(msg, slot, value),
        Protocol::Csdl => csdl::model_map::stash(msg, slot, value),
        Protocol::Msp => msp::model_map::stash(msg, slot, value),
    }
}

/// Maps a Crosstalk 1.0 intent (`QUESTION`, `NOTE`…) to the 1.1 intent that
/// replaces it before another protocol's writer maps it. When writing 1.0
/// again would not give the same name back (STATUS, PATCH, or a 1.1 intent
/// written in a 1.0 envelope), the name is kept in a `meta: compat` block,
/// as the 1.0 → 1.1 upgrade keeps it, so that the way back restores it.
pub fn modernize_intent(msg: &mut Message) {
    let Some(intent) = msg.intent.clone() else {
        return;
    };
    let name = intent.as_str().to_string();
    let modern = match crosstalk::intent::classify(&name) {
        crosstalk::intent::IntentClass::Legacy { replacement, .. } => replacement,
        _ if msg.protocol == Protocol::Crosstalk
            && msg.version == crosstalk::Version::V1_0.as_str() =>
        {
            intent
        }
        _ => return,
    };
    if crosstalk::intent::as_v1_0(modern.as_str()).0 != name {
        crosstalk::model_map::keep_legacy_intent(msg, name);
    }
    msg.intent = Some(modern);
}

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

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod round_trip_tests;
