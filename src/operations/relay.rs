//! The relay step, one message at a time: what a relay hands on for a
//! message it received (converted when asked, with this relay's audit hop
//! on a Crosstalk envelope), or why it hands on nothing. `aiproto relay`
//! streams it between transports; any face that relays calls the same step.

use chrono::{DateTime, Utc};

use crate::convert::{self, WriteOptions};
use crate::delivery::inbox::Received;
use crate::delivery::routing;
use crate::input::Source;
use crate::model::Loss;
use crate::protocols::crosstalk::{self, audit};
use crate::protocols::{ProtocolSpec, ReadOptions};
use crate::reader::Document;
use crate::transport::{Endpoint, Outgoing};

/// How a relay treats each message.
pub struct RelayStep<'a> {
    /// Convert each message to this protocol first.
    pub convert_to: Option<ProtocolSpec>,
    /// The relay's name in the audit hop it adds to an envelope.
    pub relay_id: &'a str,
    /// Where the messages go (each one's topic or mail subject comes from it).
    pub to: &'a Endpoint,
}

/// A message the relay hands on.
pub struct Relayed {
    /// The payload, routed for the destination.
    pub outgoing: Outgoing,
    /// What the conversion dropped, field by field.
    pub losses: Vec<Loss>,
    /// Why an envelope went on without an audit hop.
    pub no_hop: Option<String>,
}

/// Why a message is not handed on; `line` is where it starts in what came.
pub struct NotRelayed {
    pub line: usize,
    pub why: String,
}

impl RelayStep<'_> {
    /// The relay step for one received message, at time `now`.
    pub fn step(&self, r: &Received<'_>, now: DateTime<Utc>) -> Result<Relayed, NotRelayed> {
        let not = |line: usize, why: &str| NotRelayed {
            line,
            why: why.to_string(),
        };
        let Some(found) = r.found else {
            return Err(not(1, "not a message of a known protocol"));
        };
        if !found.is_valid(false) {
            return Err(NotRelayed {
                line: found.line,
                why: format!(
                    "invalid {} message (see `aiproto validate`)",
                    found.protocol
                ),
            });
        }
        let mut text = r.text.to_string();
        let mut losses = Vec::new();
        if let Some(target) = self.convert_to {
            let Some(converted) = convert::convert(found, target, WriteOptions::default()) else {
                return Err(not(found.line, "it cannot be converted"));
            };
            losses = converted.losses;
            text = converted.text;
        }
        let mut no_hop = None;
        if text.starts_with("[[") {
            match self.with_hop(&text, r.text, now) {
                Ok(with_hop) => text = with_hop,
                Err(why) => no_hop = Some(why),
            }
        }
        // The destination routes by the message it gets (an MQTT topic, a
        // mail's Subject): the new form is read back for that.
        let doc = Document::from_source(
            Source {
                name: r.origin.to_string(),
                text: text.clone(),
            },
            None,
            &ReadOptions::default(),
        );
        let Some(found) = doc.messages.first() else {
            return Err(not(found.line, "its new form cannot be read back"));
        };
        Ok(Relayed {
            outgoing: routing::with_text(found, text, self.to),
            losses,
            no_hop,
        })
    }

    /// The envelope with this relay's hop; why not, when it cannot take one.
    fn with_hop(&self, text: &str, received: &str, now: DateTime<Utc>) -> Result<String, String> {
        let Some(parsed) = crosstalk::parse_all(text).into_iter().next() else {
            return Err("the envelope cannot be read again".into());
        };
        let mut env = parsed.envelope;
        audit::add_hop(&mut env, self.relay_id, now, &audit::digest(received))
            .map_err(|why| why.to_string())?;
        Ok(crosstalk::render(&env))
    }
}
