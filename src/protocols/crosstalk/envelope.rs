//! The typed Crosstalk envelope: every part of `[[A→B v1]] … [[END]]`, nothing lost.

use crate::diag::Pos;
use crate::model::MetaBlock;

/// The two protocol versions. Both write `v1` in the header line; 1.1 is
/// recognised by what the envelope uses (see [`Envelope::version`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    V1_0,
    V1_1,
}

impl Version {
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V1_0 => "1.0",
            Version::V1_1 => "1.1",
        }
    }

    pub fn parse(s: &str) -> Option<Version> {
        match s {
            "1" | "1.0" => Some(Version::V1_0),
            "1.1" => Some(Version::V1_1),
            _ => None,
        }
    }
}

/// The single-line headers between the header line and the body, in the
/// canonical order in which they are rendered.
pub const HEADER_ORDER: [&str; 7] = [
    "user", "session", "thread", "parent", "message", "context", "intent",
];

/// One Crosstalk envelope. Rendering it gives the canonical text form.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Envelope {
    pub sender: String,
    pub receiver: String,
    /// The version token of the header line as written, e.g. `v1` or `v1.1`.
    pub version_token: String,
    pub user: Option<String>,
    pub session: Option<String>,
    pub thread: Option<String>,
    pub parent: Option<String>,
    pub message: Option<String>,
    pub context: Option<String>,
    pub intent: Option<String>,
    /// Headers outside the spec (`x-foo: bar`), kept in order for relaying.
    pub extra_headers: Vec<(String, String)>,
    pub meta: Vec<MetaBlock>,
    /// The body text: indentation removed, lines joined by `\n`, no trailing newline.
    pub body: Option<String>,
    /// The `sig:` value as written (`none`, `ed25519:pkid=…;sig=…`, a detached JWS).
    pub sig: Option<String>,
    /// The `hash:` line after `sig:` (a proposal of the upstream: the CRC-32
    /// of the envelope from its header line to its `sig:` line, against
    /// truncated pastes), as written. Rendering writes the hash of what it
    /// writes when this is set; it is not part of the message (no model slot).
    pub hash: Option<String>,
}

impl Envelope {
    /// The protocol version this envelope is written in: 1.1 when the header
    /// line says `v1.1`, or when it uses a 1.1 feature (thread, parent or
    /// message ids, or a `meta:` block); 1.0 otherwise.
    pub fn version(&self) -> Version {
        let uses_v1_1 = self.thread.is_some()
            || self.parent.is_some()
            || self.message.is_some()
            || !self.meta.is_empty();
        if self.version_token == "v1.1" || uses_v1_1 {
            Version::V1_1
        } else {
            Version::V1_0
        }
    }

    /// The value of one of the [`HEADER_ORDER`] headers.
    pub fn header(&self, name: &str) -> Option<&str> {
        match name {
            "user" => self.user.as_deref(),
            "session" => self.session.as_deref(),
            "thread" => self.thread.as_deref(),
            "parent" => self.parent.as_deref(),
            "message" => self.message.as_deref(),
            "context" => self.context.as_deref(),
            "intent" => self.intent.as_deref(),
            _ => None,
        }
    }

    /// A mutable slot for one of the [`HEADER_ORDER`] headers.
    pub fn header_mut(&mut self, name: &str) -> Option<&mut Option<String>> {
        match name {
            "user" => Some(&mut self.user),
            "session" => Some(&mut self.session),
            "thread" => Some(&mut self.thread),
            "parent" => Some(&mut self.parent),
            "message" => Some(&mut self.message),
            "context" => Some(&mut self.context),
            "intent" => Some(&mut self.intent),
            _ => None,
        }
    }

    /// crosstalk-1.1 "Error Envelope Format": the `meta: error` block with
    /// its `Code`, `Reason` (one line) and the `Original-Intent` answered.
    pub fn set_error(&mut self, code: &str, reason: Option<&str>, original_intent: Option<&str>) {
        let block = self.meta_block_mut("error");
        block.entries.push(("Code".into(), code.into()));
        if let Some(reason) = reason {
            block
                .entries
                .push(("Reason".into(), reason.replace('\n', " ")));
        }
        if let Some(intent) = original_intent {
            block
                .entries
                .push(("Original-Intent".into(), intent.into()));
        }
    }

    /// The meta block with this namespace, if any.
    pub fn meta_block(&self, namespace: &str) -> Option<&MetaBlock> {
        self.meta.iter().find(|b| b.namespace == namespace)
    }

    /// The meta block with this namespace, created at the end if absent.
    pub fn meta_block_mut(&mut self, namespace: &str) -> &mut MetaBlock {
        let index = match self.meta.iter().position(|b| b.namespace == namespace) {
            Some(i) => i,
            None => {
                self.meta.push(MetaBlock::new(namespace));
                self.meta.len() - 1
            }
        };
        &mut self.meta[index]
    }
}

/// Where each part of a parsed envelope sits in the source, for diagnostics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Locations {
    /// The `[[` of the header line.
    pub header_line: Pos,
    pub sender: Pos,
    pub receiver: Pos,
    /// The value of each known header, by name.
    pub headers: Vec<(&'static str, Pos)>,
    /// The `meta:` line of each block, and the key of each entry, parallel to `Envelope::meta`.
    pub meta: Vec<(Pos, Vec<Pos>)>,
    pub body: Option<Pos>,
    pub sig: Option<Pos>,
    /// The value of the `hash:` line.
    pub hash: Option<Pos>,
    /// The `[[END]]` line, or the last line of the envelope when it is missing.
    pub end: Pos,
}

impl Locations {
    /// Where the value of a known header starts, or the header line if absent.
    pub fn header(&self, name: &str) -> Pos {
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| *p)
            .unwrap_or(self.header_line)
    }

    /// Moves every place `lines` lines down (an envelope read from a piece
    /// of a longer input, placed in the whole).
    pub fn shift_lines(&mut self, lines: usize) {
        let headers = self.headers.iter_mut().map(|(_, p)| p);
        let meta = self
            .meta
            .iter_mut()
            .flat_map(|(block, keys)| std::iter::once(block).chain(keys.iter_mut()));
        let fixed = [
            &mut self.header_line,
            &mut self.sender,
            &mut self.receiver,
            &mut self.end,
        ];
        let optional = [self.body.as_mut(), self.sig.as_mut()]
            .into_iter()
            .flatten();
        // A part that was not found has no place (line 0) and keeps none.
        let placed = fixed.into_iter().chain(headers).chain(meta).chain(optional);
        for pos in placed.filter(|p| p.line > 0) {
            pos.line += lines;
        }
    }
}
