//! A message's two forms, side by side, for weighing them (`aiproto
//! tokens`): a CSDL document compact and expanded, an MSP signal and the
//! prose it stands for, a Crosstalk or HSP message as an envelope of each.

use crate::convert::{self, WriteOptions};
use crate::prose::offline;
use crate::protocols::csdl::codes;
use crate::protocols::{Found, Protocol, ProtocolSpec, Value};

/// The pair a message is weighed in: its name (`csdl`, `msp`,
/// `crosstalk/hsp`), and each form's name and text, the compact one first.
pub type Forms = (&'static str, [(&'static str, String); 2]);

/// The two forms of `found`; `None` for a message that cannot be read, or
/// cannot be written in the other form.
pub fn two_forms(found: &Found) -> Option<Forms> {
    Some(match &found.value {
        Value::Csdl(Some(doc)) => (
            "csdl",
            [
                ("compact", codes::compact(&doc.json).to_string()),
                ("expanded", codes::expand(&doc.json).to_string()),
            ],
        ),
        Value::Msp(Some(doc)) => (
            "msp",
            [
                ("signal", doc.json.to_string()),
                ("prose", offline::decode(&doc.json, "professional")),
            ],
        ),
        // The same message as a Crosstalk envelope and as an HSP envelope.
        Value::Crosstalk(_) | Value::Hsp(Some(_)) => {
            let as_ = |protocol| {
                let target = ProtocolSpec {
                    protocol,
                    version: None,
                };
                convert::convert(found, target, WriteOptions::default()).map(|c| c.text)
            };
            (
                "crosstalk/hsp",
                [
                    ("crosstalk", as_(Protocol::Crosstalk)?),
                    ("hsp", as_(Protocol::Hsp)?),
                ],
            )
        }
        _ => return None,
    })
}
