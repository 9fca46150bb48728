//! The shared message model every protocol reads into and writes from.
//!
//! A codec maps its own typed value to a [`Message`] and back; `convert`,
//! `inspect` and `thread` work on this model only. Crosstalk `meta:` blocks
//! travel in [`Message::meta`]; the fields of a JSON protocol that have no
//! model slot travel in [`Message::extensions`], so that A → B → A is exact.

pub mod notes;

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A protocol aiproto speaks: its name and versions. How each is
/// recognised and read lives in the protocols layer above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// HSP 0.1 / 1.0: JSON envelopes with a typed payload.
    Hsp,
    /// AI Crosstalk 1.0 / 1.1: `[[A→B v1]] … [[END]]` text envelopes.
    Crosstalk,
    /// CSDL 1.0: token-compressed JSON (functions, workflows, messages…).
    Csdl,
    /// MSP 1.0 (and the later 2.0 shape): minimal signals.
    Msp,
    /// A2A 1.0: Agent2Agent messages, tasks, Agent Cards and JSON-RPC.
    A2a,
}

impl Protocol {
    /// Every protocol, in detection order.
    /// MSP comes before CSDL: a CSDL message has an intent but no target.
    pub const ALL: &'static [Protocol] = &[
        Protocol::Hsp,
        Protocol::Crosstalk,
        Protocol::Msp,
        Protocol::Csdl,
        Protocol::A2a,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Protocol::Hsp => "hsp",
            Protocol::Crosstalk => "crosstalk",
            Protocol::Csdl => "csdl",
            Protocol::Msp => "msp",
            Protocol::A2a => "a2a",
        }
    }

    /// The versions aiproto reads and writes, oldest first.
    pub fn versions(self) -> &'static [&'static str] {
        match self {
            Protocol::Hsp => &["0.1", "1.0"],
            Protocol::Crosstalk => &["1.0", "1.1"],
            Protocol::Csdl => &["1.0"],
            Protocol::Msp => &["1.0", "2.0"],
            Protocol::A2a => &["1.0"],
        }
    }

    /// The version written when none is asked for.
    pub fn default_version(self) -> &'static str {
        match self {
            Protocol::Hsp => "1.0",
            Protocol::Crosstalk => "1.1",
            Protocol::Csdl => "1.0",
            Protocol::Msp => "1.0",
            Protocol::A2a => "1.0",
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a message asks of its receiver, in the Crosstalk v1.1 vocabulary
/// (the richest of the protocols); the others map onto it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Intent {
    Request,
    Respond,
    Escalate,
    Handoff,
    Poll,
    Ack,
    Nack,
    Error,
    Broadcast,
    Revoke,
    Close,
    /// An intent outside the shared vocabulary, kept verbatim.
    #[serde(untagged)]
    Other(String),
}

impl Intent {
    /// Every intent of the shared vocabulary, in registry order.
    pub const REGISTRY: [Intent; 11] = [
        Intent::Request,
        Intent::Respond,
        Intent::Escalate,
        Intent::Handoff,
        Intent::Poll,
        Intent::Ack,
        Intent::Nack,
        Intent::Error,
        Intent::Broadcast,
        Intent::Revoke,
        Intent::Close,
    ];

    /// The wire name, e.g. `REQUEST`.
    pub fn as_str(&self) -> &str {
        match self {
            Intent::Request => "REQUEST",
            Intent::Respond => "RESPOND",
            Intent::Escalate => "ESCALATE",
            Intent::Handoff => "HANDOFF",
            Intent::Poll => "POLL",
            Intent::Ack => "ACK",
            Intent::Nack => "NACK",
            Intent::Error => "ERROR",
            Intent::Broadcast => "BROADCAST",
            Intent::Revoke => "REVOKE",
            Intent::Close => "CLOSE",
            Intent::Other(s) => s,
        }
    }

    /// Reads a wire name; anything outside the registry becomes `Other`.
    pub fn parse(s: &str) -> Intent {
        Intent::REGISTRY
            .iter()
            .find(|i| i.as_str() == s)
            .cloned()
            .unwrap_or_else(|| Intent::Other(s.to_string()))
    }
}

impl std::fmt::Display for Intent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A named group of ordered `Key: value` pairs (a Crosstalk `meta:` block,
/// or the extension slot of another protocol).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MetaBlock {
    pub namespace: String,
    pub entries: Vec<(String, String)>,
}

impl MetaBlock {
    pub fn new(namespace: impl Into<String>) -> Self {
        MetaBlock {
            namespace: namespace.into(),
            entries: Vec::new(),
        }
    }

    /// The first value stored under `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The content of a message: prose for text protocols, a JSON value for the others.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", content = "value", rename_all = "lowercase")]
pub enum Body {
    Text(String),
    Json(serde_json::Value),
}

/// A signature as carried by the message; verifying it is the `sign` module's job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Signature {
    /// The value exactly as written (e.g. `ed25519:pkid=alice;sig=…` or a detached JWS).
    pub raw: String,
}

/// The fields of one JSON protocol that have no slot in the model, by their
/// own names (e.g. HSP's `message_type`, MSP's `params`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extension {
    pub protocol: Protocol,
    pub fields: Map<String, Value>,
}

/// A slot of the model, named as in the loss report and in `generated` markers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Id,
    Thread,
    Parent,
    Sender,
    Recipient,
    Timestamp,
    Intent,
}

impl Slot {
    pub const ALL: [Slot; 7] = [
        Slot::Id,
        Slot::Thread,
        Slot::Parent,
        Slot::Sender,
        Slot::Recipient,
        Slot::Timestamp,
        Slot::Intent,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Slot::Id => "id",
            Slot::Thread => "thread",
            Slot::Parent => "parent",
            Slot::Sender => "sender",
            Slot::Recipient => "recipient",
            Slot::Timestamp => "timestamp",
            Slot::Intent => "intent",
        }
    }

    pub fn parse(name: &str) -> Option<Slot> {
        Slot::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// One message of any protocol, in the shared shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    pub protocol: Protocol,
    pub version: String,
    pub id: Option<String>,
    pub thread: Option<String>,
    pub parent: Option<String>,
    pub sender: Option<String>,
    pub recipient: Option<String>,
    pub timestamp: Option<String>,
    pub intent: Option<Intent>,
    pub body: Body,
    pub meta: Vec<MetaBlock>,
    /// Fields of JSON protocols with no model slot, at most one per protocol.
    pub extensions: Vec<Extension>,
    pub signature: Option<Signature>,
}

impl Message {
    /// The meta block with this namespace, if any.
    pub fn meta_block(&self, namespace: &str) -> Option<&MetaBlock> {
        self.meta.iter().find(|b| b.namespace == namespace)
    }

    /// The extension fields of a protocol, if the message carries any.
    pub fn extension(&self, protocol: Protocol) -> Option<&Map<String, Value>> {
        self.extensions
            .iter()
            .find(|e| e.protocol == protocol)
            .map(|e| &e.fields)
    }

    /// The extension fields of a protocol, created empty when missing.
    pub fn extension_mut(&mut self, protocol: Protocol) -> &mut Map<String, Value> {
        let at = match self.extensions.iter().position(|e| e.protocol == protocol) {
            Some(at) => at,
            None => {
                self.extensions.push(Extension {
                    protocol,
                    fields: Map::new(),
                });
                self.extensions.len() - 1
            }
        };
        &mut self.extensions[at].fields
    }

    /// Removes and returns the extension fields of a protocol.
    pub fn take_extension(&mut self, protocol: Protocol) -> Map<String, Value> {
        match self.extensions.iter().position(|e| e.protocol == protocol) {
            Some(at) => self.extensions.remove(at).fields,
            None => Map::new(),
        }
    }

    /// Adds the extension fields of a protocol unless there are none.
    pub fn set_extension(&mut self, protocol: Protocol, fields: Map<String, Value>) {
        self.extensions.retain(|e| e.protocol != protocol);
        if !fields.is_empty() {
            self.extensions.push(Extension { protocol, fields });
        }
    }

    /// The value of a slot as text (the intent by its wire name).
    pub fn slot(&self, slot: Slot) -> Option<String> {
        match slot {
            Slot::Id => self.id.clone(),
            Slot::Thread => self.thread.clone(),
            Slot::Parent => self.parent.clone(),
            Slot::Sender => self.sender.clone(),
            Slot::Recipient => self.recipient.clone(),
            Slot::Timestamp => self.timestamp.clone(),
            Slot::Intent => self.intent.as_ref().map(|i| i.as_str().to_string()),
        }
    }

    /// Sets a slot from text (the intent by its wire name).
    pub fn set_slot(&mut self, slot: Slot, value: String) {
        match slot {
            Slot::Id => self.id = Some(value),
            Slot::Thread => self.thread = Some(value),
            Slot::Parent => self.parent = Some(value),
            Slot::Sender => self.sender = Some(value),
            Slot::Recipient => self.recipient = Some(value),
            Slot::Timestamp => self.timestamp = Some(value),
            Slot::Intent => self.intent = Some(Intent::parse(&value)),
        }
    }

    /// Empties a slot (a value the writer of the message made up).
    pub fn clear(&mut self, slot: Slot) {
        match slot {
            Slot::Id => self.id = None,
            Slot::Thread => self.thread = None,
            Slot::Parent => self.parent = None,
            Slot::Sender => self.sender = None,
            Slot::Recipient => self.recipient = None,
            Slot::Timestamp => self.timestamp = None,
            Slot::Intent => self.intent = None,
        }
    }

    /// The body as text (JSON bodies are rendered compactly).
    pub fn body_text(&self) -> String {
        match &self.body {
            Body::Text(t) => t.clone(),
            Body::Json(v) => v.to_string(),
        }
    }
}

/// One thing a conversion could not carry into its target, field by field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Loss {
    /// Where the value was, e.g. `thread` or `meta.routing.X-Priority`.
    pub field: String,
    pub value: String,
    /// Why the target cannot hold it.
    pub reason: String,
}
