//! What chat UIs, editors and people do to an envelope's structure, undone
//! and reported: non-breaking and other Unicode spaces read as spaces,
//! invisible format characters removed, Markdown around the header line and
//! `[[END]]` taken off, look-alike arrows read as `→`, non-breaking spaces
//! used as body indentation read as indentation.
//!
//! Every repair becomes a warning with its own code (an error under
//! `--strict`), placed at the character in the original text. The body's
//! own text is never touched: an emoji's zero-width joiner is content.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::chars;
use crate::diag::{Diagnostic, Pos};

/// Arrows that stand in for `→` in a header line: typographic arrows, what
/// autocorrect makes of `->` (an em or en dash, a minus sign) and the HTML
/// escapes a page can leave behind. `->` itself is a spelling the spec
/// accepts, not a repair.
pub const ARROW_LOOKALIKES: [&str; 12] = [
    "⟶", "➔", "➜", "➙", "➝", "➞", "⇾", "—>", "–>", "−>", "-&gt;", "&rarr;",
];

/// A line's text after cleaning, and where characters were removed from it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cleaned<'a> {
    pub text: Cow<'a, str>,
    /// For each character removed (or merged into an arrow): the offset, in
    /// characters of the cleaned text, before which it stood. Maps a column
    /// of the cleaned text back to the source.
    pub removed: Vec<usize>,
}

/// The column shift for a character at `offset` of a cleaned text.
pub fn shift(removed: &[usize], offset: usize) -> usize {
    removed.iter().take_while(|r| **r <= offset).count()
}

/// Repairs seen in one envelope, kept per kind and character so that a
/// character repeated on every line is reported once, with a count.
#[derive(Debug, Clone, Default)]
pub struct Repairs {
    /// The first of each kind of repair, in the order seen, with its key.
    first: Vec<((&'static str, String), Diagnostic)>,
    counts: HashMap<(&'static str, String), usize>,
}

impl Repairs {
    /// Notes one repair at `pos`; `key` tells repeats of the same repair apart.
    pub fn note(&mut self, code: &'static str, key: String, pos: Pos, length: usize, what: String) {
        let count = self.counts.entry((code, key.clone())).or_insert(0);
        *count += 1;
        if *count == 1 {
            let finding = Diagnostic::warning(code, what)
                .at(pos, length)
                .with_hint(hint(code));
            self.first.push(((code, key), finding));
        }
    }

    /// Adds the repairs noted elsewhere (while finding the envelope).
    pub fn merge(&mut self, other: Repairs) {
        for (key, n) in other.counts {
            *self.counts.entry(key).or_insert(0) += n;
        }
        for (key, d) in other.first {
            if !self.first.iter().any(|(k, _)| *k == key) {
                self.first.push((key, d));
            }
        }
    }

    /// The repairs as findings, each saying how often it recurred.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        let Repairs { first, counts } = self;
        first
            .into_iter()
            .map(|(key, mut d)| {
                let more = counts.get(&key).map_or(0, |n| n.saturating_sub(1));
                if more > 0 {
                    d.message
                        .push_str(&format!(" (and {more} more time(s) in this envelope)"));
                }
                d
            })
            .collect()
    }
}

fn hint(code: &str) -> &'static str {
    match code {
        "CT-REPAIR-SPACE" | "CT-REPAIR-INVISIBLE" => {
            "a chat UI or editor put it there; `aiproto convert --canonical` writes the clean envelope"
        }
        "CT-REPAIR-MARKDOWN" => {
            "paste envelopes inside a ``` code block so the chat UI leaves them as written"
        }
        "CT-REPAIR-ARROW" => "write the arrow as → or ->",
        "CT-REPAIR-LINE-END" => "save the file with one line-end convention (LF or CRLF)",
        "CT-REPAIR-WRAP" => {
            "send signed envelopes as attachments or in a code block, not re-wrapped text"
        }
        "CT-REPAIR-NESTED" => {
            "keep the body indented (a code block keeps it); `aiproto convert --canonical` writes it so"
        }
        "CT-REPAIR-JOIN" => {
            "ask the assistant for the whole envelope in one code block; `aiproto convert --canonical` writes it whole"
        }
        "CT-REPAIR-END" => "put `[[END]]` on a line of its own, after `sig:`",
        "CT-REPAIR-CASE" => {
            "write header names in lower case, as the primer shows (`session:`, `body: |`)"
        }
        _ => "indent body lines with two ASCII spaces",
    }
}

/// Cleans the structural text of one line (a header, meta or `sig:` line):
/// Unicode spaces become spaces and invisible characters go; in a header
/// line (`arrows`), look-alike arrows become `→`. `at` gives the source
/// position of an original character offset.
pub fn clean<'a>(
    text: &'a str,
    arrows: bool,
    at: impl Fn(usize) -> Pos,
    repairs: &mut Repairs,
) -> Cleaned<'a> {
    // Most lines are plain ASCII: nothing to do (only an HTML arrow escape
    // is ASCII and a repair).
    // A copy-as-Markdown tool escapes the brackets (`\[\[A→B v1\]\]`).
    let escaped = text.trim_start().starts_with("\\[\\[");
    let needs_work = escaped
        || (arrows && text.contains('\t'))
        || if text.is_ascii() {
            arrows && text.contains('&') && ARROW_LOOKALIKES.iter().any(|a| text.contains(a))
        } else {
            text.chars()
                .any(|c| chars::is_invisible(c) || chars::is_unicode_space(c))
                || (arrows && ARROW_LOOKALIKES.iter().any(|a| text.contains(a)))
        };
    if !needs_work {
        return Cleaned {
            text: Cow::Borrowed(text),
            removed: Vec::new(),
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut removed = Vec::new();
    let mut out_len = 0usize;
    let mut rest = text;
    let mut offset = 0usize;
    while let Some(c) = rest.chars().next() {
        let arrow = arrows
            .then(|| ARROW_LOOKALIKES.iter().find(|a| rest.starts_with(**a)))
            .flatten();
        if let Some(arrow) = arrow {
            let len = arrow.chars().count();
            repairs.note(
                "CT-REPAIR-ARROW",
                (*arrow).to_string(),
                at(offset),
                len,
                format!("`{arrow}` in the header line read as the arrow →"),
            );
            out.push('→');
            out_len += 1;
            removed.extend(std::iter::repeat_n(out_len, len - 1));
            rest = &rest[arrow.len()..];
            offset += len;
            continue;
        }
        if escaped && c == '\\' && rest[1..].starts_with(['[', ']', '_', '*', '-', '#']) {
            repairs.note(
                "CT-REPAIR-MARKDOWN",
                "escape".into(),
                at(offset),
                1,
                "Markdown escapes (`\\[`, `\\]`) a copy-as-Markdown tool wrote taken off".into(),
            );
            removed.push(out_len);
        } else if arrows && c == '\t' {
            repairs.note(
                "CT-REPAIR-SPACE",
                "tab".into(),
                at(offset),
                1,
                "a tab in the header line read as a space".into(),
            );
            out.push(' ');
            out_len += 1;
        } else if chars::is_invisible(c) {
            repairs.note(
                "CT-REPAIR-INVISIBLE",
                chars::describe(c),
                at(offset),
                1,
                format!("invisible {} removed", chars::describe(c)),
            );
            removed.push(out_len);
        } else if chars::is_unicode_space(c) {
            repairs.note(
                "CT-REPAIR-SPACE",
                chars::describe(c),
                at(offset),
                1,
                format!("{} read as a space", chars::describe(c)),
            );
            out.push(' ');
            out_len += 1;
        } else {
            out.push(c);
            out_len += 1;
        }
        rest = &rest[c.len_utf8()..];
        offset += 1;
    }
    Cleaned {
        text: Cow::Owned(out),
        removed,
    }
}

/// List bullets before a line: Markdown's, and the ones Word and Outlook
/// copy as text (a bullet character and a tab).
pub const BULLETS: [&str; 13] = [
    "- ", "* ", "+ ", "• ", "•\t", "◦ ", "◦\t", "▪ ", "▪\t", "· ", "·\t", "-\t", "*\t",
];

/// Markdown that a chat UI or a person put around a whole header or
/// `[[END]]` line: a heading (`### `), a list bullet (`- `), bold or
/// italics (`**…**`, `__…__`, `*…*`), inline code (`` `…` ``).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unwrapped<'a> {
    pub inner: &'a str,
    /// Characters taken off before `inner`.
    pub before: usize,
    /// What was taken off, for the finding (`None`: nothing).
    pub what: Option<&'static str>,
}

/// Takes Markdown off a line whose content (after it) starts with `[[`.
pub fn unwrap_markdown(text: &str) -> Unwrapped<'_> {
    let plain = Unwrapped {
        inner: text,
        before: 0,
        what: None,
    };
    if text.starts_with("[[") {
        return plain;
    }
    let mut inner = text.trim_end();
    let mut what = None;
    // A heading or a list bullet, then emphasis or code around the rest.
    let hashes = inner.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&hashes) && inner[hashes..].starts_with(' ') {
        inner = inner[hashes..].trim_start();
        inner = inner.trim_end_matches('#').trim_end();
        what = Some("a Markdown heading");
    } else if let Some(rest) = BULLETS.iter().find_map(|b| inner.strip_prefix(b)) {
        inner = rest.trim_start();
        what = Some("a list bullet");
    }
    loop {
        let pair = ["**", "__", "`", "*", "_"]
            .into_iter()
            .find(|m| inner.len() > 2 * m.len() && inner.starts_with(m) && inner.ends_with(m));
        let Some(marker) = pair else { break };
        inner = inner[marker.len()..inner.len() - marker.len()].trim();
        what = Some(match (what, marker) {
            (Some(w), _) if w != "bold or italics" && w != "inline code" => w,
            (_, "`") => "inline code",
            _ => "bold or italics",
        });
    }
    if what.is_none() || !inner.starts_with("[[") {
        return plain;
    }
    let start = text.len() - text.trim_start().len();
    let before = text[..text.find(inner).unwrap_or(start)].chars().count();
    Unwrapped {
        inner,
        before,
        what,
    }
}

/// Whether a line can be a line of an indented body: blank, or indented by
/// two spaces or a tab (Unicode spaces counting as spaces).
pub fn is_body_line(text: &str) -> bool {
    let text = indentation(text).map_or(Cow::Borrowed(text), |(respaced, _)| Cow::Owned(respaced));
    text.starts_with("  ") || text.starts_with('\t') || text.trim().is_empty()
}

/// The body indentation of a line whose leading spaces include non-breaking
/// (or other Unicode) spaces: the line with that run read as ASCII spaces,
/// and the first such character. `None` when the line has none.
pub fn indentation(text: &str) -> Option<(String, char)> {
    // Indented as written: a non-breaking space after it is content.
    if text.starts_with("  ") || text.starts_with('\t') {
        return None;
    }
    let lead_len = text
        .char_indices()
        .find(|(_, c)| !(*c == ' ' || chars::is_unicode_space(*c)))
        .map_or(text.len(), |(i, _)| i);
    let lead = &text[..lead_len];
    let odd = lead.chars().find(|c| chars::is_unicode_space(*c))?;
    let spaces = " ".repeat(lead.chars().count());
    Some((format!("{spaces}{}", &text[lead_len..]), odd))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cleaned(text: &str, arrows: bool) -> (String, Vec<usize>, Vec<Diagnostic>) {
        let mut repairs = Repairs::default();
        let c = clean(text, arrows, |o| Pos::new(1, o + 1), &mut repairs);
        (c.text.into_owned(), c.removed, repairs.into_diagnostics())
    }

    #[test]
    fn invisible_characters_go_and_spaces_become_spaces() {
        let (text, removed, diags) = cleaned("intent: RES\u{200b}POND\u{a0}", false);
        assert_eq!(text, "intent: RESPOND ");
        assert_eq!(removed, vec![11]);
        assert_eq!(diags[0].code, "CT-REPAIR-INVISIBLE");
        assert!(diags[0].message.contains("U+200B ZERO WIDTH SPACE"));
        assert_eq!(diags[0].column, 12);
        assert_eq!(diags[1].code, "CT-REPAIR-SPACE");
        assert_eq!(diags[1].column, 17);
        // The P after the removed character is at source column 13.
        assert_eq!(11 + shift(&removed, 11) + 1, 13);
    }

    #[test]
    fn lookalike_arrows_become_the_arrow() {
        let (text, removed, diags) = cleaned("[[A—>B v1]]", true);
        assert_eq!(text, "[[A→B v1]]");
        assert_eq!(removed, vec![4]);
        assert_eq!(diags[0].code, "CT-REPAIR-ARROW");
        let (text, _, diags) = cleaned("[[A->B v1]]", true);
        assert_eq!(text, "[[A->B v1]]");
        assert!(diags.is_empty());
    }

    #[test]
    fn markdown_around_a_line_comes_off() {
        for (line, inner, what) in [
            ("**[[A→B v1]]**", "[[A→B v1]]", "bold or italics"),
            ("### [[A→B v1]]", "[[A→B v1]]", "a Markdown heading"),
            ("`[[END]]`", "[[END]]", "inline code"),
            ("- **[[END]]**", "[[END]]", "a list bullet"),
            ("__[[END]]__", "[[END]]", "bold or italics"),
        ] {
            let u = unwrap_markdown(line);
            assert_eq!(u.inner, inner, "{line}");
            assert_eq!(u.what, Some(what), "{line}");
            assert_eq!(
                &line.chars().skip(u.before).collect::<String>()[..inner.len()],
                inner
            );
        }
        assert_eq!(unwrap_markdown("see `[[A→B v1]]` here").what, None);
        assert_eq!(unwrap_markdown("[[END]]").what, None);
    }

    #[test]
    fn non_breaking_indentation_reads_as_spaces() {
        assert_eq!(
            indentation("\u{a0}\u{a0}text\u{a0}x"),
            Some(("  text\u{a0}x".to_string(), '\u{a0}'))
        );
        assert_eq!(indentation("  text"), None);
        assert_eq!(indentation("  \u{a0}text"), None);
        assert_eq!(
            indentation(" \u{a0}text"),
            Some(("  text".to_string(), '\u{a0}'))
        );
    }
}
