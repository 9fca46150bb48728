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
pub(crate) mod proptests;
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
    // `\[\[`: a copy-as-Markdown tool's escapes, taken off when read.
    (text.contains("[[") || text.contains("\\[\\["))
        && extract::source_lines(text).any(extract::is_header)
}

/// Why a text without any envelope header line still holds an envelope
/// that cannot be read: its line and column, and the cause with its fix.
/// Two layouts keep the header plainly visible but lose the lines: a
/// Markdown table (`| [[A→B v1]] |`) and HTML source (`<br>` for line
/// breaks, `&rarr;` for →).
pub fn unreadable_layout(text: &str) -> Option<(usize, usize, String)> {
    for (n, line) in extract::source_lines(text).enumerate() {
        let Some(at) = line.find("[[") else { continue };
        let column = line[..at].chars().count() + 1;
        let trimmed = line.trim_start_matches(['>', ' ', '\t']);
        if trimmed.starts_with('|')
            && trimmed
                .split('|')
                .any(|cell| extract::is_header_line(cell.trim()))
        {
            return Some((
                n + 1,
                column,
                "the envelope is inside a Markdown table (`| [[…]] |`), which cannot carry its lines \
                 and indentation: ask the assistant to send it in a code block"
                    .into(),
            ));
        }
        let html = ["<br", "<p>", "<div", "&rarr;", "&nbsp;", "&amp;", "&gt;"]
            .iter()
            .any(|tag| line.contains(tag));
        if html {
            let decoded = line.replace("&rarr;", "→").replace("-&gt;", "->");
            let pieces = decoded
                .split('<')
                .map(|p| p.split_once('>').map_or(p, |(_, rest)| rest));
            if pieces
                .into_iter()
                .any(|p| extract::is_header_line(p.trim()))
            {
                return Some((
                    n + 1,
                    column,
                    "the envelope is HTML source (`<br>` for its line breaks, entities such as \
                     `&rarr;` and `&amp;`): copy it from the page as shown, not from its source"
                        .into(),
                ));
            }
        }
    }
    None
}

/// Finds, parses and checks every envelope in a text. Each result holds the
/// syntax and rule findings together, in line order.
pub fn read(text: &str, now: DateTime<Utc>, max_message_bytes: usize) -> Vec<ParsedEnvelope> {
    extract::find_envelopes(text)
        .iter()
        .map(|block| {
            let mut parsed = parse::parse_block(block);
            if parsed.lines_joined {
                return parsed;
            }
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
