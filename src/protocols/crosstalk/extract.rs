//! Finds envelopes in whatever a person pastes: chat transcripts with prose
//! around them, Markdown code fences, CRLF line ends, `> ` quote prefixes.
//!
//! The result is a list of [`Block`]s: the lines of one envelope each, with
//! the quote or indentation prefix of its header line stripped from every
//! line, and each line's place in the source kept for diagnostics.

/// One source line of an envelope, with the prefix removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// The line's text after the prefix, without its line end.
    pub text: &'a str,
    /// 1-based line number in the source.
    pub number: usize,
    /// How many characters of prefix were stripped (so column = indent + 1 + offset).
    pub indent: usize,
}

/// The lines of one envelope found in a source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block<'a> {
    pub lines: Vec<Line<'a>>,
    /// Whether the block ended with its own `[[END]]` line.
    pub terminated: bool,
}

/// Splits a text into lines, accepting `\n` and `\r\n` line ends.
pub fn source_lines(text: &str) -> impl Iterator<Item = &str> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let mut lines = text.split('\n');
    if text.is_empty() {
        lines.next();
    }
    lines.map(|l| l.strip_suffix('\r').unwrap_or(l))
}

/// Finds every envelope in `text`, in order.
pub fn find_envelopes(text: &str) -> Vec<Block<'_>> {
    let lines: Vec<&str> = source_lines(text).collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(prefix) = header_prefix(lines[i]) else {
            i += 1;
            continue;
        };
        let indent = prefix.chars().count();
        let mut block = Block {
            lines: vec![Line {
                text: &lines[i][prefix.len()..],
                number: i + 1,
                indent,
            }],
            terminated: false,
        };
        i += 1;
        while i < lines.len() {
            let Some((text, indent)) = strip_prefix(lines[i], prefix) else {
                break;
            };
            if is_header_line(text) || is_fence(text) {
                break;
            }
            block.lines.push(Line {
                text,
                number: i + 1,
                indent,
            });
            i += 1;
            if text.trim_end() == "[[END]]" {
                block.terminated = true;
                break;
            }
        }
        blocks.push(block);
    }
    blocks
}

/// If `line` is an envelope header line, the prefix before its `[[`
/// (quote markers and indentation only).
fn header_prefix(line: &str) -> Option<&str> {
    let start = line.find("[[")?;
    let prefix = &line[..start];
    if !prefix.chars().all(|c| c == '>' || c == ' ' || c == '\t') {
        return None;
    }
    is_header_line(&line[start..]).then_some(prefix)
}

/// Whether a line (prefix already removed) looks like `[[A→B v1]]`. A line
/// with brackets and an arrow or a version token counts, so that a damaged
/// header is reported rather than silently skipped.
pub fn is_header_line(text: &str) -> bool {
    let t = text.trim_end();
    if !t.starts_with("[[") || !t.ends_with("]]") || t == "[[END]]" || t.len() < 5 {
        return false;
    }
    let inner = &t[2..t.len() - 2];
    let has_version = inner.rsplit_once(' ').is_some_and(|(_, v)| {
        v.starts_with('v') && v[1..].starts_with(|c: char| c.is_ascii_digit())
    });
    inner.contains('→') || inner.contains("->") || has_version
}

fn is_fence(text: &str) -> bool {
    text.starts_with("```") || text.starts_with("~~~")
}

/// Removes the header line's prefix from a following line. A blank line, or
/// one holding only the quote marker, counts as an empty line; a line
/// without the prefix ends the envelope.
fn strip_prefix<'a>(line: &'a str, prefix: &str) -> Option<(&'a str, usize)> {
    if let Some(rest) = line.strip_prefix(prefix) {
        return Some((rest, prefix.chars().count()));
    }
    let bare = line.trim_end();
    if bare.is_empty() || bare == prefix.trim_end() {
        return Some(("", bare.chars().count()));
    }
    // A quoted line whose marker lost its trailing space (`>text` for `> text`).
    let trimmed_prefix = prefix.trim_end();
    if trimmed_prefix.ends_with('>')
        && let Some(rest) = line.strip_prefix(trimmed_prefix)
    {
        return Some((rest, trimmed_prefix.chars().count()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(b: &Block<'a>) -> Vec<&'a str> {
        b.lines.iter().map(|l| l.text).collect()
    }

    #[test]
    fn finds_envelopes_between_prose_and_fences() {
        let text = "Hi, here it is:\n```\n[[A→B v1]]\nintent: REQUEST\nbody: |\n  x\n[[END]]\n```\nand another\n[[B->A v1]]\nbody: |\n  y\n[[END]]\nbye\n";
        let blocks = find_envelopes(text);
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].lines[0].number, 3);
        assert!(blocks[0].terminated);
        assert_eq!(texts(&blocks[1])[0], "[[B->A v1]]");
        assert_eq!(blocks[1].lines[0].number, 10);
    }

    #[test]
    fn strips_quote_prefix_and_crlf() {
        let text = "> [[A→B v1]]\r\n> body: |\r\n>   x\r\n>\r\n>   y\r\n> [[END]]\r\n";
        let blocks = find_envelopes(text);
        assert_eq!(
            texts(&blocks[0]),
            vec!["[[A→B v1]]", "body: |", "  x", "", "  y", "[[END]]"]
        );
        assert_eq!(blocks[0].lines[2].indent, 2);
    }

    #[test]
    fn indented_end_is_body_text() {
        let text = "[[A→B v1]]\nbody: |\n  [[END]]\n[[END]]\n";
        let blocks = find_envelopes(text);
        assert_eq!(blocks[0].lines.len(), 4);
    }

    #[test]
    fn unterminated_envelope_stops_at_next_header_or_fence() {
        let text = "[[A→B v1]]\nbody: |\n  x\n```\n[[B→A v1]]\n[[END]]\n";
        let blocks = find_envelopes(text);
        assert_eq!(blocks.len(), 2);
        assert!(!blocks[0].terminated);
        assert_eq!(blocks[0].lines.len(), 3);
    }

    #[test]
    fn prose_mentions_are_not_envelopes() {
        assert!(find_envelopes("see `[[A→B v1]]` blocks\n[[wiki link]]\n").is_empty());
    }
}
