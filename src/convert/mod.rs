//! Converting a message between protocols: its reader maps it to the shared
//! [`Message`], the target's writer maps that to the target, and whatever
//! the target cannot hold is reported as a [`Loss`], field by field.
//!
//! Three rules keep A → B → A exact (the mapping table is in `docs/convert.md`):
//! - what has no slot in the model travels in B's extension slot (a
//!   `meta: <protocol>` block, CSDL `m.<protocol>`, HSP `x_<protocol>`);
//! - a model value B cannot hold exactly (an id that is not a ULID, an intent
//!   B has no word for) is written approximately in B and kept, under its own
//!   name, in A's extension ([`crate::protocols::stash`]);
//! - a value B must have but the model lacks (HSP's `timestamp_sent`) is made
//!   up and listed as generated (`meta: aiproto` / `Generated:`, `x_aiproto`,
//!   `m.aiproto`), and reading B again forgets it ([`crate::model::notes::forget_generated`]).

pub mod answers;
mod attempt;
pub mod promise;

pub use attempt::{Attempt, attempt};

use serde_json::Value;

use crate::model::{Loss, Message, Signature};
use crate::protocols::{
    Found, Protocol, ProtocolSpec, ReadOptions, Value as Typed, a2a, crosstalk, csdl, hsp, msp,
};

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
        // An E3 shape goes through the model, as a conversion from another
        // protocol does: parties it does not name are written `unknown`
        // and noted as generated.
        Typed::Csdl(Some(doc)) if doc.spec.is_some() => {
            let json = csdl::model_map::from_message(&found.to_message()?);
            Some(format!(
                "{}\n",
                csdl::codes::to_form(&json, options.csdl_form())
            ))
        }
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
        _ => found.canonical(),
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
        Protocol::A2a => {
            let (json, losses) = a2a::model_map::from_message(msg);
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

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod round_trip_tests;
