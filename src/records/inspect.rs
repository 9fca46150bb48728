//! A message as `inspect --format json` shows it: in the shared model, or
//! (CSDL and MSP) as its own document.

use serde::Serialize;

use crate::model::Message;
use crate::protocols::{Found, Protocol, Value};

/// The meta namespace the model keeps a Crosstalk envelope's own headers
/// in: the readable view shows them as rows.
pub use crate::protocols::crosstalk::model_map::ENVELOPE_NAMESPACE;

/// A message in the shared model, with where it came from.
#[derive(Debug, Serialize)]
pub struct Inspected<'a> {
    pub source: &'a str,
    pub index: usize,
    pub line: usize,
    pub valid: bool,
    pub message: &'a Message,
}

/// CSDL and MSP, which read best as their own document: CSDL in its
/// expanded spelling, an MSP signal with its fields.
#[derive(Debug, Serialize)]
pub struct InspectedDocument<'a> {
    pub source: &'a str,
    pub index: usize,
    pub line: usize,
    pub valid: bool,
    pub protocol: Protocol,
    pub version: &'a str,
    /// CSDL written in one of E3's shapes: which (the document is then its
    /// CSDL 1.0 form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<&'static str>,
    pub document: serde_json::Value,
}

/// What `inspect` shows of a message.
pub enum View {
    /// The shared model.
    Model(Box<Message>),
    /// The document itself (CSDL expanded, an MSP signal).
    Document(serde_json::Value),
    /// Nothing readable (a message whose JSON did not parse).
    Nothing,
}

/// How a message is shown: CSDL and MSP as their own document (full
/// names; the signal's fields) rather than as the shared model.
pub fn view(found: &Found) -> View {
    match &found.value {
        Value::Csdl(Some(d)) => {
            View::Document(crate::protocols::csdl::codes::expand(d.spec_form()))
        }
        Value::Msp(Some(d)) => View::Document(d.json.clone()),
        Value::Csdl(None) | Value::Msp(None) => View::Nothing,
        _ => found
            .to_message()
            .map_or(View::Nothing, |m| View::Model(Box::new(m))),
    }
}

/// The E3 shape a CSDL message was written in, when it is not the 1.0 spec.
pub fn shape_of(found: &Found) -> Option<&'static str> {
    match &found.value {
        Value::Csdl(Some(d)) if d.shape != crate::protocols::csdl::upstream::Shape::Spec => {
            Some(d.shape.name())
        }
        _ => None,
    }
}

/// The JSON record of a message (`None`: nothing readable to show).
pub fn record(source: &str, found: &Found) -> Option<serde_json::Value> {
    let valid = found.is_valid(false);
    // Serialising these plain structures cannot fail.
    match view(found) {
        View::Model(message) => serde_json::to_value(Inspected {
            source,
            index: found.index,
            line: found.line,
            valid,
            message: &message,
        })
        .ok(),
        View::Document(document) => serde_json::to_value(InspectedDocument {
            source,
            index: found.index,
            line: found.line,
            valid,
            protocol: found.protocol,
            version: &found.version,
            shape: shape_of(found),
            document,
        })
        .ok(),
        View::Nothing => None,
    }
}
