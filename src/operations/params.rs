//! The tools' arguments: each a JSON object whose schema the host sees
//! (generated from these types, with their doc comments as descriptions).
//! They are the tools' descriptions, so `NAME[@VERSION]` there is text, not a link.
#![allow(rustdoc::broken_intra_doc_links)]

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

/// The messages to work on: pasted text or a file inside the roots.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Messages {
    /// The text holding the messages: a whole chat reply or transcript,
    /// Crosstalk envelopes, HSP/CSDL/MSP JSON, JSON Lines. Give this or `path`.
    pub text: Option<String>,
    /// A file inside the server's roots (relative to a root, or absolute
    /// inside one). Give this or `text`.
    pub path: Option<String>,
    /// Read as this protocol, NAME[@VERSION] (hsp, crosstalk@1.1, csdl,
    /// msp), instead of detecting it.
    pub protocol: Option<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Validate {
    /// The text holding the messages: a whole chat reply or transcript,
    /// Crosstalk envelopes, HSP/CSDL/MSP JSON, JSON Lines. Give this or `path`.
    pub text: Option<String>,
    /// A file inside the server's roots. Give this or `text`.
    pub path: Option<String>,
    /// Read as this protocol, NAME[@VERSION], instead of detecting it.
    pub protocol: Option<String>,
    /// Warnings count as errors.
    #[serde(default)]
    pub strict: bool,
    /// HSP: accept what real implementations send (non-DID ids…) as warnings.
    #[serde(default)]
    pub lenient: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Convert {
    /// The text holding the messages. Give this or `path`.
    pub text: Option<String>,
    /// A file inside the server's roots. Give this or `text`.
    pub path: Option<String>,
    /// Read as this protocol, NAME[@VERSION], instead of detecting it.
    pub protocol: Option<String>,
    /// The target, NAME[@VERSION]: hsp, hsp@0.1, crosstalk, crosstalk@1.0, csdl, msp, a2a.
    pub to: String,
    /// Refuse (a tool error, nothing converted) when anything would be lost.
    #[serde(default)]
    pub strict: bool,
    /// CSDL: write the full field names instead of the short codes.
    #[serde(default)]
    pub expand: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Compose {
    /// What to write, NAME[@VERSION]: crosstalk (1.1), crosstalk@1.0, hsp (1.0), hsp@0.1.
    pub protocol: String,
    /// The text of the message this one answers (a whole paste is fine: the
    /// last envelope, or the one `pick` names). The reply gets its thread,
    /// its parent and the route reversed.
    pub reply_to: Option<String>,
    /// Crosstalk: which envelope of `reply_to` to answer: 1-based place,
    /// negative from the end, or a message id.
    pub pick: Option<String>,
    /// The sender (Crosstalk name, HSP DID).
    pub from: Option<String>,
    /// The receiver (Crosstalk name, HSP recipient DID or topic).
    pub to: Option<String>,
    /// Crosstalk: the intent (REQUEST, RESPOND, ESCALATE, HANDOFF, POLL,
    /// ACK, NACK, ERROR, BROADCAST, REVOKE, CLOSE).
    pub intent: Option<String>,
    /// Crosstalk: the context line.
    pub context: Option<String>,
    /// Crosstalk: the user line.
    pub user: Option<String>,
    /// Crosstalk: the session id (generated when absent).
    pub session: Option<String>,
    /// Crosstalk: the thread id (a reply keeps its original's; generated otherwise).
    pub thread: Option<String>,
    /// Crosstalk: the parent message id (a reply's is its original's id).
    pub parent: Option<String>,
    /// Crosstalk meta entries, each `NAMESPACE.Key=Value`.
    #[serde(default)]
    pub meta: Vec<String>,
    /// ERROR (Crosstalk) or NACK/failed TaskResult (HSP): the error code.
    pub error_code: Option<String>,
    /// The error's reason.
    pub reason: Option<String>,
    /// Crosstalk: the body text.
    pub body: Option<String>,
    /// HSP: the message kind: fact, belief, opinion, capability,
    /// task-request, task-result, context-update, state-sync, ack, nack,
    /// discovery-query, discovery-response.
    pub kind: Option<String>,
    /// HSP: the payload object (merged over what a reply fills in).
    pub payload: Option<Map<String, Value>>,
    /// HSP: the correlation id (a reply's is its original's message id).
    pub correlation_id: Option<String>,
    /// HSP: ask the receiver for an acknowledgement.
    #[serde(default)]
    pub requires_ack: bool,
    /// New ids as UUIDv7 instead of ULIDs.
    #[serde(default)]
    pub uuid7: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sign {
    /// The text holding the messages. Give this or `path`.
    pub text: Option<String>,
    /// A file inside the server's roots. Give this or `text`.
    pub path: Option<String>,
    /// The keystore key to sign with (its id, as `aiproto keys list` shows).
    pub key: String,
    /// Crosstalk: `keyed` (the default) or `jws`.
    pub form: Option<String>,
    /// Leave the public key out of the signature (the receiver must know the key).
    #[serde(default)]
    pub no_public_key: bool,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Conversation {
    /// Texts, each holding messages (envelopes pasted one by one, say).
    #[serde(default)]
    pub texts: Vec<String>,
    /// Files inside the server's roots. Without `texts` or `paths`, the
    /// archive the server was started with.
    #[serde(default)]
    pub paths: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Send {
    /// The text holding the messages to send (each must be valid and whole).
    pub text: String,
    /// Where to: `file:PATH` (an archive inside the roots; a message already
    /// there is not appended again), `http(s)://…` (POSTed), or
    /// `mqtt(s)://HOST[:PORT]/TOPIC` (published).
    pub via: String,
    /// MQTT quality of service (0, 1 or 2; default 1).
    #[schemars(range(max = 2))]
    pub qos: Option<u8>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Recv {
    /// Where from: `mqtt(s)://HOST[:PORT]/TOPIC-FILTER` (subscribed) or
    /// `file:PATH` (read once, inside the roots).
    pub via: String,
    /// Stop after this many messages (default 1).
    pub count: Option<usize>,
    /// Stop after this many seconds (default 10, at most 300).
    pub timeout_seconds: Option<u64>,
}

/// The primer's arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Primer {
    /// The sender of the first message (default ASSISTANT); for a reply,
    /// which receiver answers when the envelope had several.
    pub from: Option<String>,
    /// The receiver of the first message (default HUMAN).
    pub to: Option<String>,
    /// The text holding the envelope the primer's example answers.
    pub reply_to: Option<String>,
    /// Which envelope of `reply_to`: 1-based place, negative from the end,
    /// or a message id (default the last).
    pub pick: Option<String>,
}
