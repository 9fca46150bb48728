//! The shared message model every protocol reads into and writes from.
//!
//! A codec maps its own typed value to a [`Message`] and back; `convert`,
//! `inspect` and `thread` work on this model only. Fields a protocol has no
//! native slot for travel in [`Message::meta`], namespaced, in order.

use serde::Serialize;

use crate::protocols::Protocol;

/// What a message asks of its receiver, in the Crosstalk v1.1 vocabulary
/// (the richest of the four protocols); other protocols map onto it.
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
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
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
    pub signature: Option<Signature>,
}

impl Message {
    /// The meta block with this namespace, if any.
    pub fn meta_block(&self, namespace: &str) -> Option<&MetaBlock> {
        self.meta.iter().find(|b| b.namespace == namespace)
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
