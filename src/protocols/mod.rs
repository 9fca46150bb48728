//! The protocols aiproto reads and writes, one module each, and the single
//! list ([`Protocol::ALL`]) that drives detection, `--protocol` values and help.

pub mod a2a;
pub mod address;
pub mod crosstalk;
pub mod csdl;
pub mod hsp;
pub mod json_doc;
pub mod msp;
pub mod seen_ids;

use std::str::FromStr;

use chrono::{DateTime, Utc};

use crate::diag::Diagnostic;
pub use crate::model::Protocol;
use crate::model::{Message, Slot};

/// How inputs are read and judged.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// The time against which expiry dates are judged.
    pub now: DateTime<Utc>,
    /// Accept what real implementations send, as warnings (HSP).
    pub lenient: bool,
    /// The largest single message read (a JSON document, or a Crosstalk
    /// envelope from its header line to `[[END]]`).
    pub max_message_bytes: usize,
    /// The input is the same bytes a first pass already read and checked
    /// (`send`'s private copy): HSP messages are parsed and not checked
    /// again.
    pub checked_before: bool,
    /// Of each HSP message of JSON Lines, build only what delivering it
    /// reads ([`hsp::ROUTING`]: its topic, MQTT 5 properties, a mail's
    /// subject and ids): for the second pass of `send`, which sends each
    /// message's text as written. Implies `checked_before`.
    pub routing_only: bool,
    /// Only the verdicts are wanted (a run that reports or counts and needs
    /// nothing else of a message): an HSP message keeps its id and its
    /// findings, and the rest of its JSON is freed on the thread that
    /// checked it (see [`hsp::Read::keep_only_id`]).
    pub verdicts_only: bool,
}

impl ReadOptions {
    /// What the HSP reader takes of these options.
    pub fn hsp(&self) -> hsp::Options {
        hsp::Options {
            lenient: self.lenient,
            max_message_bytes: self.max_message_bytes,
            checked_before: self.checked_before,
            routing_only: self.routing_only,
            verdicts_only: self.verdicts_only,
        }
    }
}

/// The default `--max-message-bytes`: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            now: Utc::now(),
            lenient: false,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            checked_before: false,
            routing_only: false,
            verdicts_only: false,
        }
    }
}

/// What only the protocol modules know: how to recognise and read each.
impl Protocol {
    /// Whether a text looks like this protocol.
    pub fn detect_in(self, text: &str) -> bool {
        match self {
            Protocol::Hsp => hsp::detect(text),
            Protocol::Crosstalk => crosstalk::detect(text),
            Protocol::Csdl => csdl::detect(text),
            Protocol::Msp => msp::detect(text),
            Protocol::A2a => a2a::detect(text),
        }
    }

    /// The first protocol that recognises the text.
    pub fn detect(text: &str) -> Option<Protocol> {
        Protocol::ALL.iter().copied().find(|p| p.detect_in(text))
    }

    /// Reads and checks every message of this protocol in a text.
    pub fn read(self, text: &str, options: &ReadOptions) -> Vec<Found> {
        match self {
            Protocol::Hsp => hsp::read(text, options.hsp())
                .into_iter()
                .enumerate()
                .map(|(index, r)| Found::from_hsp(index, r))
                .collect(),
            Protocol::Crosstalk => crosstalk::read(text, options.now, options.max_message_bytes)
                .into_iter()
                .enumerate()
                .map(|(index, mut parsed)| Found {
                    index,
                    line: parsed.start_line,
                    end_line: parsed.end_line,
                    protocol: self,
                    version: parsed.envelope.version().as_str().to_string(),
                    // The findings move to the Found; the typed value keeps none.
                    diagnostics: std::mem::take(&mut parsed.diagnostics),
                    span: None,
                    value: Value::Crosstalk(Box::new(parsed)),
                })
                .collect(),
            Protocol::Csdl => csdl::read(text, options.max_message_bytes)
                .into_iter()
                .enumerate()
                .map(|(index, r)| {
                    Found::from_json_doc(index, self, r, |d| (csdl::VERSION, Value::Csdl(d)))
                })
                .collect(),
            Protocol::Msp => msp::read(text, options.max_message_bytes)
                .into_iter()
                .enumerate()
                .map(|(index, r)| {
                    Found::from_json_doc(index, self, r, |d| {
                        let version = d.as_ref().map_or("", |d| d.version.as_str());
                        (version, Value::Msp(d))
                    })
                })
                .collect(),
            Protocol::A2a => a2a::read(text, options.max_message_bytes)
                .into_iter()
                .enumerate()
                .map(|(index, r)| {
                    Found::from_json_doc(index, self, r, |d| {
                        // A 0.3 document is named by its finding and not read.
                        let version = if d.is_some() { a2a::VERSION } else { "" };
                        (version, Value::A2a(d.map(Box::new)))
                    })
                })
                .collect(),
        }
    }
}

/// `NAME[@VERSION]`, as given to `--protocol` and `--to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtocolSpec {
    pub protocol: Protocol,
    pub version: Option<&'static str>,
}

impl ProtocolSpec {
    /// The version asked for, or the protocol's default.
    pub fn version_or_default(&self) -> &'static str {
        self.version.unwrap_or(self.protocol.default_version())
    }
}

impl FromStr for ProtocolSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, version) = match s.split_once('@') {
            Some((n, v)) => (n, Some(v)),
            None => (s, None),
        };
        let names = || {
            Protocol::ALL
                .iter()
                .map(|p| p.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let protocol = Protocol::ALL
            .iter()
            .copied()
            .find(|p| p.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| format!("unknown protocol `{name}` (known: {})", names()))?;
        let version = match version {
            None => None,
            Some(v) => {
                let v = v.strip_prefix('v').unwrap_or(v);
                let v = if v == "1" { "1.0" } else { v };
                Some(
                    protocol
                        .versions()
                        .iter()
                        .copied()
                        .find(|known| *known == v)
                        .ok_or_else(|| {
                            format!(
                                "{protocol} has no version `{v}` (known: {})",
                                protocol.versions().join(", ")
                            )
                        })?,
                )
            }
        };
        Ok(ProtocolSpec { protocol, version })
    }
}

/// A protocol's typed value for one message.
#[derive(Debug, Clone)]
pub enum Value {
    Crosstalk(Box<crosstalk::ParsedEnvelope>),
    /// An HSP message; `None` when the input was not a readable JSON object.
    Hsp(Option<hsp::HspMessage>),
    /// A CSDL document; `None` when the input was not readable JSON.
    Csdl(Option<csdl::CsdlDoc>),
    /// An MSP signal; `None` when the input was not a readable JSON object.
    Msp(Option<msp::MspDoc>),
    /// An A2A 1.0 document; `None` when the input was not readable JSON,
    /// not an A2A object, or A2A 0.3.
    A2a(Option<Box<a2a::A2aDoc>>),
}

impl Value {
    /// Whether the input could not be read as a message at all.
    pub fn is_unreadable(&self) -> bool {
        matches!(
            self,
            Value::Hsp(None) | Value::Csdl(None) | Value::Msp(None) | Value::A2a(None)
        )
    }
}

/// One message found in a source, with its findings.
#[derive(Debug, Clone)]
pub struct Found {
    /// 0-based position among the messages of its source.
    pub index: usize,
    /// 1-based first and last line in the source.
    pub line: usize,
    pub end_line: usize,
    pub protocol: Protocol,
    pub version: String,
    pub diagnostics: Vec<Diagnostic>,
    /// Where a JSON message sits in the text read (HSP, CSDL, MSP).
    pub span: Option<json_doc::Span>,
    pub value: Value,
}

impl Found {
    /// Moves the message and its findings `lines` lines down: it was read
    /// from a piece of a longer input that starts after that many lines.
    pub fn shift_lines(&mut self, lines: usize) {
        if lines == 0 {
            return;
        }
        self.line += lines;
        self.end_line += lines;
        for d in self.diagnostics.iter_mut().filter(|d| d.line > 0) {
            d.line += lines;
        }
        if let Some(span) = &mut self.span {
            span.line_offset += lines;
        }
        if let Value::Crosstalk(parsed) = &mut self.value {
            parsed.start_line += lines;
            parsed.end_line += lines;
            parsed.locations.shift_lines(lines);
        }
    }

    /// An HSP read result as a found message.
    pub fn from_hsp(index: usize, r: hsp::Read) -> Found {
        Found {
            index,
            line: r.line,
            end_line: r.end_line,
            protocol: Protocol::Hsp,
            version: r
                .version
                .map_or_else(String::new, |v| v.as_str().to_string()),
            diagnostics: r.diagnostics,
            span: r.span,
            value: Value::Hsp(r.message),
        }
    }

    /// A CSDL or MSP read result as a found message; `value` gives the
    /// version and the protocol's typed value.
    pub fn from_json_doc<T>(
        index: usize,
        protocol: Protocol,
        r: json_doc::Read<T>,
        value: impl FnOnce(Option<T>) -> (&'static str, Value),
    ) -> Found {
        let (version, value) = value(r.doc);
        Found {
            index,
            line: r.line,
            end_line: r.end_line,
            protocol,
            version: version.to_string(),
            diagnostics: r.diagnostics,
            span: Some(r.span),
            value,
        }
    }

    /// The message in the shared model (`None` for unreadable JSON).
    pub fn to_message(&self) -> Option<Message> {
        match &self.value {
            Value::Crosstalk(p) => Some(crosstalk::model_map::to_message(&p.envelope)),
            Value::Hsp(m) => m.as_ref().map(hsp::model_map::to_message),
            Value::Csdl(d) => d.as_ref().map(csdl::model_map::to_message),
            Value::Msp(d) => d.as_ref().map(msp::model_map::to_message),
            Value::A2a(d) => d.as_deref().map(a2a::model_map::to_message),
        }
    }

    /// Whether the message was read to its end: a Crosstalk envelope
    /// without its `[[END]]` line was cut off.
    pub fn is_complete(&self) -> bool {
        match &self.value {
            Value::Crosstalk(p) => p.complete,
            _ => true,
        }
    }

    /// Whether the message can be written out at all: not JSON that could
    /// not be read, not an envelope cut off before its `[[END]]` line
    /// (where [`canonical`](Self::canonical) gives `None`).
    pub fn is_writable(&self) -> bool {
        match &self.value {
            Value::Crosstalk(p) => p.complete,
            Value::Hsp(m) => m.is_some(),
            Value::Csdl(d) => d.is_some(),
            Value::Msp(d) => d.is_some(),
            Value::A2a(d) => d.is_some(),
        }
    }

    /// The message in its own canonical wire form, ending with a line end:
    /// a Crosstalk envelope, or one line of compact JSON serialised again
    /// from its parsed value (keys sorted, numbers as a double holds them).
    /// A conversion, asked for by name (`convert`, `--canonical`): a path
    /// that only moves a message writes [`written`](Self::written). `None`
    /// for what cannot be written: unreadable JSON, or an envelope that was
    /// cut off (aiproto never closes one with an `[[END]]` of its own).
    pub fn canonical(&self) -> Option<String> {
        match &self.value {
            Value::Crosstalk(p) if !p.complete => None,
            Value::Crosstalk(p) => Some(crosstalk::render(&p.envelope)),
            Value::Hsp(m) => m.as_ref().map(|m| format!("{}\n", m.json)),
            Value::Csdl(d) => d.as_ref().map(|d| format!("{}\n", d.json)),
            Value::Msp(d) => d.as_ref().map(|d| format!("{}\n", d.json)),
            Value::A2a(d) => d.as_ref().map(|d| format!("{}\n", d.json)),
        }
    }

    /// The message as its sender wrote it, ending with a line end: what
    /// every path that does not convert writes (`send`, `recv`, `relay`,
    /// `serve`, archives, handlers, MCP, the desk). A JSON message written
    /// on one line is its own bytes in `source` (the text it was read
    /// from), exactly; one spread over several lines is joined onto one,
    /// the whitespace between its tokens taken out and every token (numbers
    /// digit for digit, key order, escapes) as written. A Crosstalk envelope
    /// is its [`canonical`](Self::canonical) text (LF, no quote prefix or
    /// fence; a repair made to read it is one of its findings). Falls back
    /// to `canonical` when the message's text is not in `source`. `None`
    /// where `canonical` is.
    pub fn written(&self, source: &str) -> Option<String> {
        if self.protocol == Protocol::Crosstalk || !self.is_writable() {
            return self.canonical();
        }
        self.span
            .and_then(|span| source.get(span.start..span.end))
            .map(|text| text.trim_matches([' ', '\t', '\n', '\r']))
            .and_then(|text| {
                // One line that starts a JSON value is the message as read
                // (a quote prefix or a fence sits at a line's start). The
                // line ends are looked for bytewise: a pattern of two chars
                // decoded every character (7% of `send --each`'s samples).
                let one_line = memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_none();
                if one_line && text.starts_with(['{', '[']) {
                    return Some(std::borrow::Cow::Borrowed(text));
                }
                // Also the check that the span holds JSON tokens only (no
                // quote prefix or fence): else the canonical form is written.
                let joined = json_doc::compact::compact(text)?;
                Some(if one_line { text.into() } else { joined })
            })
            .map(|text| {
                let mut line = String::with_capacity(text.len() + 1);
                line.push_str(&text);
                line.push('\n');
                line
            })
            .or_else(|| self.canonical())
    }

    /// The protocol and version the message is written in.
    pub fn spec(&self) -> ProtocolSpec {
        ProtocolSpec {
            protocol: self.protocol,
            version: self
                .protocol
                .versions()
                .iter()
                .copied()
                .find(|v| *v == self.version),
        }
    }

    /// The message id, when the message has one.
    pub fn id(&self) -> Option<&str> {
        match &self.value {
            Value::Crosstalk(p) => p.envelope.message.as_deref(),
            Value::Hsp(m) => m.as_ref().and_then(hsp::HspMessage::message_id),
            Value::Csdl(_) => None,
            Value::Msp(d) => d
                .as_ref()
                .and_then(|d| d.json.get("trace_id"))
                .and_then(serde_json::Value::as_str),
            Value::A2a(d) => d.as_deref().and_then(a2a::A2aDoc::id),
        }
    }

    /// Whether any finding is an error (or, with `strict`, a warning).
    pub fn is_valid(&self, strict: bool) -> bool {
        crate::diag::partition(&self.diagnostics, strict)
            .0
            .is_empty()
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
        Protocol::A2a => a2a::model_map::stash(msg, slot, value),
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
