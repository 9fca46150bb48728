//! AI Crosstalk 1.0 and 1.1: the human-readable `[[A→B v1]] … [[END]]` envelope.
//!
//! `extract` finds envelopes in pasted text, `parse` reads one, `check` and
//! `meta_rules` judge it, `render` writes the canonical form, and
//! `model_map` moves it to and from the shared [`crate::model::Message`].

pub mod address;
pub mod audit;
pub mod check;
pub mod compose;
pub mod envelope;
pub mod extract;
pub mod intent;
pub mod json_meta;
pub mod meta_rules;
pub mod model_map;
pub mod parse;
pub mod primer;
#[cfg(test)]
mod proptests;
pub mod render;
pub mod repair;
pub mod reply;
pub mod sig_line;

use chrono::{DateTime, Utc};

pub use envelope::{Envelope, Version};
pub use parse::ParsedEnvelope;
pub use render::{render, render_all};

/// Whether a text holds at least one envelope header line.
pub fn detect(text: &str) -> bool {
    text.contains("[[") && extract::source_lines(text).any(extract::is_header)
}

/// Finds, parses and checks every envelope in a text. Each result holds the
/// syntax and rule findings together, in line order.
pub fn read(text: &str, now: DateTime<Utc>, max_message_bytes: usize) -> Vec<ParsedEnvelope> {
    extract::find_envelopes(text)
        .iter()
        .map(|block| {
            let mut parsed = parse::parse_block(block);
            let mut findings = check::check(&parsed, now);
            findings.extend(check::check_size(block, max_message_bytes));
            parsed.diagnostics.append(&mut findings);
            parsed.diagnostics.sort_by_key(|d| (d.line, d.column));
            parsed
        })
        .collect()
}

/// Parses the envelopes of a text without judging them (for tests and tools
/// that only need the values).
pub fn parse_all(text: &str) -> Vec<ParsedEnvelope> {
    extract::find_envelopes(text)
        .iter()
        .map(parse::parse_block)
        .collect()
}
