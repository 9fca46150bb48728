//! Reads one input into its messages: decode, detect the protocol (or use
//! the one forced by `--protocol`), parse and check.

use crate::chars;
use crate::diag::{Diagnostic, Pos};
use crate::input::{Input, InputError, Source};
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
    /// clipboards add one) and reported on the first message as `INPUT-BOM`.
    pub fn from_source(
        mut source: Source,
        forced: Option<ProtocolSpec>,
        options: &ReadOptions,
    ) -> Document {
        let bom = source.text.starts_with(chars::BOM);
        if bom {
            source.text.drain(..chars::BOM.len_utf8());
        }
        let protocol = forced
            .map(|s| s.protocol)
            .or_else(|| Protocol::detect(&source.text));
        let mut messages = protocol
            .map(|p| p.read(&source.text, options))
            .unwrap_or_default();
        if let Some(first) = messages.first_mut().filter(|_| bom) {
            first.diagnostics.insert(
                0,
                Diagnostic::warning(
                    "INPUT-BOM",
                    "the input starts with a byte-order mark (U+FEFF), which was ignored",
                )
                .at(Pos::new(1, 1), 1)
                .with_hint("save the file as UTF-8 without a BOM"),
            );
        }
        Document { source, messages }
    }
}

/// Reads and checks one input.
pub fn read(
    input: &Input,
    forced: Option<ProtocolSpec>,
    options: &ReadOptions,
) -> Result<Document, InputError> {
    Ok(Document::from_source(input.read()?, forced, options))
}

/// A short explanation for an input in which no message was found.
pub fn no_message_reason(text: &str) -> String {
    let t = text.trim_start();
    if t.is_empty() {
        "the input is empty".into()
    } else if t.starts_with('{') || t.starts_with('[') {
        match serde_json::from_str::<serde_json::Value>(text) {
            Err(e) if !e.to_string().starts_with("trailing characters") => format!(
                "starts like JSON but is not JSON ({e}); --protocol hsp|csdl|msp checks it as one of them"
            ),
            _ => {
                "JSON, but no protocol aiproto reads: no HSP envelope field (hsp_envelope_version, \
                  message_type \"HSP::…\"), no MSP intent and target, no CSDL t or T; \
                  --protocol says which it should be"
                    .into()
            }
        }
    } else {
        "no message found: no [[SENDER→RECEIVER v1]] header line".into()
    }
}
