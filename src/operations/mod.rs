//! What the faces (`mcp`, `desk`) both call: each operation takes JSON
//! arguments (the types in [`params`]) and answers with the records of the
//! command line's `--format json`, within a [`Context`] that says which
//! files may be named, which archive is kept and how large an input may be.

mod archive;
pub mod bridging;
mod calls;
pub mod composing;
pub mod delegate;
pub mod delegate_a2a;
pub mod forms;
mod network;
pub mod params;
mod person;
pub mod read;
pub mod receive;
pub mod relay;
pub mod sandbox;
pub mod sending;
pub mod serving;

use std::path::PathBuf;

use serde_json::Value;

/// The words every face and the operations share: a message as read
/// ([`Found`]) with its parsed value, its protocol, how an input is read,
/// and a document of messages.
pub use crate::protocols::{
    DEFAULT_MAX_MESSAGE_BYTES, Found, Protocol, ProtocolSpec, ReadOptions, Value as ReadValue,
};
pub use crate::reader::Document;

pub use archive::{append_checked, archive_source, archived_message, refuse_unsendable};
pub use calls::{
    compose, convert, examine, file_source, inspect, keys, poll_collate, primer, registry, sign,
    thread, validate, verify,
};
pub use network::{recv, send};
pub use person::person_names;
pub use sandbox::Sandbox;

/// Where and how the operations run.
pub struct Context {
    /// The directories whose files the operations may read and write.
    pub sandbox: Sandbox,
    /// The archive read by `thread` and `poll_collate` by default.
    pub archive: Option<PathBuf>,
    /// Offer `send` and `recv`.
    pub allow_network: bool,
    /// Sign with the person's key (the desk is the person's own page; an
    /// MCP server needs `--allow-signing`).
    pub allow_signing: bool,
    /// The largest text or file an operation takes.
    pub max_bytes: usize,
    /// The person drives the operations (the desk), not an assistant (an
    /// MCP server): what `compose` writes is remembered as the person's
    /// own text, which `sign --only-mine` signs.
    pub person_composes: bool,
}

/// An operation's failure, shown to the assistant or the person: what went wrong, and the
/// records that say where (findings), when there are some.
#[derive(Debug)]
pub struct OpError {
    pub message: String,
    pub details: Option<Value>,
}

impl OpError {
    pub fn new(message: impl Into<String>) -> Self {
        OpError {
            message: message.into(),
            details: None,
        }
    }

    pub fn with(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
}

pub type OpResult = Result<Value, OpError>;
