//! Reads one input into its messages: decode, detect the protocol (or use
//! the one forced by `--protocol`), parse and check; whole, or piece by
//! piece in bounded memory (`pieces`).

pub mod mail;
pub mod pieces;

use std::io::Read;

use crate::chars;
use crate::diag::Pos;
use crate::input::{self, Input, InputError, Source};
use crate::protocols::csdl::upstream::cbp;
use crate::protocols::{Found, Protocol, ProtocolSpec, ReadOptions};

/// An input and the messages found in it (none when no protocol matched).
#[derive(Debug)]
pub struct Document {
    pub source: Source,
    pub messages: Vec<Found>,
}

impl Document {
    /// Reads a source text that is already in memory.
    /// A byte-order mark at the start is dropped (editors and some
    /// clipboards add one) and reported on the first message as `INPUT-BOM`;
    /// a mail whose body is transfer-encoded or in parts is read as its
    /// decoded text ([`mail`]: lines then count in that text).
    pub fn from_source(
        mut source: Source,
        forced: Option<ProtocolSpec>,
        options: &ReadOptions,
    ) -> Document {
        let bom = prepare(&mut source);
        let protocol = forced
            .map(|s| s.protocol)
            .or_else(|| Protocol::detect(&source.text));
        let mut messages = protocol
            .map(|p| p.read(&source.text, options))
            .unwrap_or_default();
        if let Some(first) = messages.first_mut().filter(|_| bom) {
            first.diagnostics.insert(0, pieces::bom_warning());
        }
        Document { source, messages }
    }
}

/// Turns a text as it was read into the text its messages are looked for
/// in, the same for every command and face: a byte-order mark at the start
/// dropped (editors and some clipboards add one; `true` when there was
/// one), and a saved mail whose body is transfer-encoded or in parts read
/// as the text it carries ([`mail`]).
pub fn prepare(source: &mut Source) -> bool {
    let bom = source.text.starts_with(chars::BOM);
    if bom {
        source.text.drain(..chars::BOM.len_utf8());
    }
    if let Some(text) = mail::decoded(&source.text) {
        source.text = text;
    }
    bom
}

/// Reads an input whole as the text its messages are looked for in, as
/// [`read`] reads it before parsing ([`read_source`], then [`prepare`]):
/// for a command that reads the envelopes of a text itself (`compose
/// --reply-to`, `primer --reply-to`, `id --reissue`).
pub fn read_text(input: &Input) -> Result<Source, InputError> {
    let mut source = read_source(input, ReadOptions::default().max_message_bytes)?;
    prepare(&mut source);
    Ok(source)
}

/// The one HSP message of a text that `--reply-to` answers, read as every
/// command reads it ([`Document::from_source`]: a byte-order mark, a saved
/// mail, JSON Lines of one line): its JSON, or why it cannot be answered.
pub fn hsp_original(source: Source) -> Result<serde_json::Value, String> {
    use crate::protocols::Value;
    let spec = ProtocolSpec {
        protocol: Protocol::Hsp,
        version: None,
    };
    let doc = Document::from_source(source, Some(spec), &ReadOptions::default());
    let found = match doc.messages.as_slice() {
        [] => return Err("not one HSP message: it holds none".into()),
        [one] => one,
        many => {
            return Err(format!(
                "not one HSP message: it holds {}; answer one at a time",
                many.len()
            ));
        }
    };
    let Value::Hsp(Some(message)) = &found.value else {
        let why = found
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .map_or_else(|| "it cannot be read".to_string(), |d| d.message.clone());
        return Err(format!("not one HSP message: {why}"));
    };
    if message.message_id().is_none() {
        return Err("the message has no message_id to answer".into());
    }
    Ok(message.json.clone())
}

/// Reads and checks one input.
pub fn read(
    input: &Input,
    forced: Option<ProtocolSpec>,
    options: &ReadOptions,
) -> Result<Document, InputError> {
    let (source, utf16) = read_source_noting(input, options.max_message_bytes)?;
    let mut doc = Document::from_source(source, forced, options);
    // Said on the first message, as a streamed read says it.
    if let (Some(encoding), Some(first)) = (utf16, doc.messages.first_mut()) {
        first.diagnostics.insert(0, pieces::utf16_warning(encoding));
    }
    Ok(doc)
}

/// Reads an input whole as text: UTF-8 (or UTF-16 with a byte-order mark),
/// or a stream of CBP frames decoded into the JSON lines of their messages.
pub fn read_source(input: &Input, max_message_bytes: usize) -> Result<Source, InputError> {
    Ok(read_source_noting(input, max_message_bytes)?.0)
}

/// [`read_source`], and the UTF-16 encoding the text was decoded from, if
/// it was.
fn read_source_noting(
    input: &Input,
    max_message_bytes: usize,
) -> Result<(Source, Option<&'static str>), InputError> {
    if let Input::Text(source) = input {
        return Ok((source.clone(), None));
    }
    let name = input.name();
    let mut bytes = Vec::new();
    input
        .open()?
        .read_to_end(&mut bytes)
        .map_err(|error| InputError::Io {
            path: name.clone(),
            error,
        })?;
    let utf16 = input::utf16_bom(&bytes);
    Ok((text_of_bytes(name, bytes, max_message_bytes)?, utf16))
}

/// [`read_source`] of an input already open.
pub fn source_from(
    name: String,
    mut reader: impl Read,
    max_message_bytes: usize,
) -> Result<Source, InputError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|error| InputError::Io {
            path: name.clone(),
            error,
        })?;
    text_of_bytes(name, bytes, max_message_bytes)
}

/// An input's bytes as text: CBP frames as the JSON lines of their
/// messages, else UTF-8 (or UTF-16 with a byte-order mark).
fn text_of_bytes(
    name: String,
    bytes: Vec<u8>,
    max_message_bytes: usize,
) -> Result<Source, InputError> {
    let text = if cbp::is_cbp(&bytes) {
        cbp::to_text(&bytes, max_message_bytes)
    } else {
        input::decode_text(bytes, &name)?
    };
    Ok(Source { name, text })
}

/// A message just written (by `compose`), read back as `validate` reads
/// it: the document, and whether it holds a message without any error.
pub fn check_written(name: &str, text: &str, protocol: Protocol) -> (Document, bool) {
    let source = Source {
        name: name.into(),
        text: text.to_string(),
    };
    let spec = ProtocolSpec {
        protocol,
        version: None,
    };
    let doc = Document::from_source(source, Some(spec), &ReadOptions::default());
    let passes = !doc.messages.is_empty()
        && doc
            .messages
            .iter()
            .all(|f| f.diagnostics.iter().all(|d| !d.is_error()));
    (doc, passes)
}

/// Why no message was found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoMessage {
    Empty,
    /// It starts like JSON but does not parse: likely a broken message.
    BrokenJson(String),
    /// JSON of no protocol aiproto reads (a package.json).
    ForeignJson,
    /// Text without an envelope header line (a README).
    NoEnvelope,
    /// An envelope laid out so that its lines are lost (a Markdown table,
    /// HTML source): where, and the cause.
    Unreadable {
        line: usize,
        column: usize,
        cause: String,
    },
}

impl NoMessage {
    /// Whether a directory walk may pass the file over: it holds no message
    /// and is not one that broke (broken JSON is reported, never skipped).
    pub fn may_be_skipped(&self) -> bool {
        !matches!(
            self,
            NoMessage::BrokenJson(_) | NoMessage::Unreadable { .. }
        )
    }

    /// Where the finding about it points.
    pub fn pos(&self) -> Pos {
        match self {
            NoMessage::Unreadable { line, column, .. } => Pos::new(*line, *column),
            _ => Pos::new(1, 1),
        }
    }
}

impl std::fmt::Display for NoMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoMessage::Empty => f.write_str("the input is empty"),
            NoMessage::BrokenJson(e) => write!(
                f,
                "starts like JSON but is not JSON ({e}); --protocol hsp|csdl|msp|a2a checks it as one of them"
            ),
            NoMessage::ForeignJson => f.write_str(
                "JSON, but no protocol aiproto reads: no HSP envelope field (hsp_envelope_version, \
                 message_type \"HSP::…\"), no MSP intent and target, no CSDL t or T, \
                 no A2A messageId, task id or Agent Card; \
                 --protocol says which it should be",
            ),
            NoMessage::NoEnvelope => {
                f.write_str("no message found: no [[SENDER→RECEIVER v1]] header line")
            }
            NoMessage::Unreadable { line, cause, .. } => {
                write!(f, "no message read: line {line}: {cause}")
            }
        }
    }
}

/// Why no message is found in a text (which holds none).
pub fn why_no_message(text: &str) -> NoMessage {
    let t = text.trim_start();
    if t.is_empty() {
        NoMessage::Empty
    } else if t.starts_with('{') || t.starts_with('[') {
        match serde_json::from_str::<serde_json::Value>(text) {
            Err(e) if !e.to_string().starts_with("trailing characters") => {
                NoMessage::BrokenJson(e.to_string())
            }
            _ => NoMessage::ForeignJson,
        }
    } else if let Some((line, column, cause)) = crate::protocols::crosstalk::unreadable_layout(t) {
        let skipped = text[..text.len() - t.len()].matches('\n').count();
        NoMessage::Unreadable {
            line: line + skipped,
            column,
            cause,
        }
    } else {
        NoMessage::NoEnvelope
    }
}

/// A short explanation for an input in which no message was found.
pub fn no_message_reason(text: &str) -> String {
    why_no_message(text).to_string()
}

/// Reads `source`, the text of `input`, as [`Document::from_source`]
/// does; or, for a file a directory walk found that holds no message of
/// any protocol (whatever `forced` says) and is not a broken one, why it is
/// passed over. Detection runs once when nothing is forced.
pub fn read_or_skip(
    input: &Input,
    source: Source,
    forced: Option<ProtocolSpec>,
    options: &ReadOptions,
) -> Result<Document, (Source, NoMessage)> {
    fn without_bom(text: &str) -> &str {
        text.strip_prefix(chars::BOM).unwrap_or(text)
    }
    let foreign =
        |text: &str| Some(why_no_message(without_bom(text))).filter(NoMessage::may_be_skipped);
    if input.may_pass_over(&source.text)
        && forced.is_some()
        && Protocol::detect(without_bom(&source.text)).is_none()
        && let Some(why) = foreign(&source.text)
    {
        return Err((source, why));
    }
    let doc = Document::from_source(source, forced, options);
    if input.may_pass_over(&doc.source.text)
        && doc.messages.is_empty()
        && let Some(why) = foreign(&doc.source.text)
    {
        return Err((doc.source, why));
    }
    Ok(doc)
}
