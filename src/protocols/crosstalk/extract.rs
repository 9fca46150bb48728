//! Finds envelopes in whatever a person pastes: chat transcripts with prose
//! around them, Markdown code fences, CRLF line ends, `> ` quote prefixes.
//!
//! The result is a list of [`Block`]s: the lines of one envelope each, with
//! the quote or indentation prefix of its header line stripped from every
//! line, and each line's place in the source kept for diagnostics.

use std::borrow::Cow;

use super::repair::{self, Repairs};
use crate::diag::Pos;

/// One source line of an envelope, with the prefix removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'a> {
    /// The line's text after the prefix, without its line end (for the
    /// header and `[[END]]` lines: cleaned, see [`repair`]).
    pub text: Cow<'a, str>,
    /// 1-based line number in the source.
    pub number: usize,
    /// How many characters of prefix were stripped (so column = indent + 1 + offset).
    pub indent: usize,
    /// Where characters were removed from `text` by a repair ([`repair::shift`]).
    pub removed: Vec<usize>,
}

impl<'a> Line<'a> {
    /// A line as it stands in the source.
    pub fn plain(text: &'a str, number: usize, indent: usize) -> Self {
        Line {
            text: Cow::Borrowed(text),
            number,
            indent,
            removed: Vec::new(),
        }
    }

    /// The source position of the character at `offset` (in chars) of `text`.
    pub fn pos(&self, offset: usize) -> Pos {
        Pos::new(
            self.number,
            self.indent + offset + repair::shift(&self.removed, offset) + 1,
        )
    }
}

/// The lines of one envelope found in a source text.
#[derive(Debug, Clone)]
pub struct Block<'a> {
    pub lines: Vec<Line<'a>>,
    /// Whether the block ended with its own `[[END]]` line.
    pub terminated: bool,
    /// What was repaired to find the header line and `[[END]]`.
    pub repairs: Repairs,
    /// Whether its lines were quoted (`> `): a message quoted in a reply,
    /// not one of the reply's own.
    pub quoted: bool,
}

/// Splits a text into lines, accepting `\n` and `\r\n` line ends.
pub fn source_lines(text: &str) -> impl Iterator<Item = &str> {
    lines_and_ends(text).map(|(line, _)| line)
}

/// Each line of `text` without its line end, and how many carriage
/// returns beyond a CRLF's one ended it too: `\r\r\n` is what a CRLF file
/// converted to CRLF again has. Those belong to the line end (a line's text
/// never ends with `\r`, or its canonical form would read back shorter);
/// the envelope notes them as a repair.
fn lines_and_ends(text: &str) -> impl Iterator<Item = (&str, usize)> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let mut lines = text.split('\n');
    if text.is_empty() {
        lines.next();
    }
    lines.map(|l| {
        let line = l.trim_end_matches('\r');
        (line, (l.len() - line.len()).saturating_sub(1))
    })
}

/// Finds every envelope in `text`, in order.
pub fn find_envelopes(text: &str) -> Vec<Block<'_>> {
    let (lines, extra_returns): (Vec<&str>, Vec<usize>) = lines_and_ends(text).unzip();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        // Every line of the envelope a list item (`- session: …`): the
        // bullet is part of the prefix taken off each line, named once.
        let Some((prefix, header, repairs)) =
            header_in_list(&lines, i).or_else(|| header_at(lines[i], i + 1))
        else {
            i += 1;
            continue;
        };
        let mut block = Block {
            lines: vec![header],
            terminated: false,
            repairs,
            quoted: prefix.contains('>'),
        };
        let mut body = BodyWatch::default();
        i += 1;
        while i < lines.len() {
            let Some((text, indent)) = strip_prefix(lines[i], prefix) else {
                break;
            };
            if header_view(text, i + 1, indent).is_some() {
                // An example envelope in a body whose indentation a chat
                // took off is the body's text, when the outer one closes.
                if body.unindented() && nested_closes(&lines[i + 1..], prefix) == Some(true) {
                    block.repairs.note(
                        "CT-REPAIR-NESTED",
                        String::new(),
                        Pos::new(i + 1, indent + 1),
                        text.trim_end().chars().count(),
                        "an envelope inside the body, read as the body's text: the body lost its indentation (the outer envelope closes after it)".into(),
                    );
                    body.depth += 1;
                    block.lines.push(Line::plain(text, i + 1, indent));
                    i += 1;
                    continue;
                }
                break;
            }
            if is_fence(text) {
                // The header line (in bold, say) above the code block that
                // holds the rest of the envelope.
                if block.lines.len() == 1 && closes_before_fence(&lines[i + 1..], prefix) {
                    block.repairs.note(
                        "CT-REPAIR-MARKDOWN",
                        String::new(),
                        Pos::new(i + 1, indent + 1),
                        text.chars().count(),
                        "the header line stood above the code block that holds the rest of the envelope: the fence line left out".into(),
                    );
                    i += 1;
                    continue;
                }
                // A reply split into parts, each in its own code block, with
                // a part marker between them; or with none, as a chat's
                // "continue generating" writes it, when the next block goes
                // on with the envelope and closes it.
                let gap = part_gap(&lines[i..], prefix)
                    .flatten()
                    .or_else(|| unmarked_continuation(&lines[i..], prefix));
                if !body.unindented()
                    && let Some(skip) = gap
                {
                    block.repairs.note(
                        "CT-REPAIR-JOIN",
                        String::new(),
                        Pos::new(i + 1, indent + 1),
                        text.chars().count(),
                        format!(
                            "the envelope goes on after a break between parts (lines {}–{}, left out): the parts joined",
                            i + 1,
                            i + skip
                        ),
                    );
                    i += skip;
                    continue;
                }
                break;
            }
            // `sig: none [[END]]`: a chat joined the last two lines.
            if body.depth == 0
                && let Some(at) = end_on_sig_line(text)
            {
                let sig = text[..at].trim_end();
                let column = indent + text[..at].chars().count();
                block.lines.push(Line::plain(sig, i + 1, indent));
                block
                    .lines
                    .push(Line::plain(&text[at..at + "[[END]]".len()], i + 1, column));
                block.repairs.note(
                    "CT-REPAIR-END",
                    String::new(),
                    Pos::new(i + 1, column + 1),
                    "[[END]]".len(),
                    "`[[END]]` on the `sig:` line, read as the line after it".into(),
                );
                block.terminated = true;
                i += 1;
                break;
            }
            if let Some((end, repairs)) = end_view(text, i + 1, indent) {
                if body.depth > 0 {
                    body.depth -= 1;
                    block.lines.push(Line::plain(text, i + 1, indent));
                    i += 1;
                    continue;
                }
                block.lines.push(end);
                block.repairs.merge(repairs);
                block.terminated = true;
                i += 1;
                break;
            }
            body.see(text);
            block.lines.push(Line::plain(text, i + 1, indent));
            i += 1;
        }
        let first = block.lines[0].number - 1;
        for (at, &extra) in extra_returns[first..i].iter().enumerate() {
            if extra > 0 {
                let line = first + at;
                block.repairs.note(
                    "CT-REPAIR-LINE-END",
                    String::new(),
                    Pos::new(line + 1, lines[line].chars().count() + 1),
                    extra,
                    format!(
                        "{} carriage return{} (U+000D) before the line end, read as part of it (a CRLF file converted to CRLF again?)",
                        if extra == 1 { "an extra" } else { "extra" },
                        if extra == 1 { "" } else { "s" }
                    ),
                );
            }
        }
        blocks.push(block);
    }
    blocks
}

/// Where the body of the envelope being read stands, for the two readings
/// that look past a line: an unindented body may hold an example envelope,
/// an indented one may go on after a break between parts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum BodyState {
    /// No `body: |` line yet.
    #[default]
    Before,
    /// Right after `body: |`: the next line tells which.
    Starting,
    Indented,
    /// The body's lines are not indented (a chat took it off).
    Unindented,
}

/// The body of an envelope being read, line by line, and how deep inside
/// example envelopes of an unindented body the reading is.
#[derive(Debug, Clone, Copy, Default)]
struct BodyWatch {
    state: BodyState,
    depth: usize,
}

impl BodyWatch {
    fn unindented(&self) -> bool {
        self.state == BodyState::Unindented
    }

    /// Takes a line of the envelope (prefix removed) that is neither a
    /// header line nor `[[END]]`.
    fn see(&mut self, text: &str) {
        self.state = match self.state {
            BodyState::Before if is_body_start(text) => BodyState::Starting,
            BodyState::Starting if repair::is_body_line(text) || is_sig_line(text) => {
                BodyState::Indented
            }
            BodyState::Starting => BodyState::Unindented,
            other => other,
        };
    }
}

/// `body: |` (or `|-`, `|+`, the upstream's `response: |`), in any case.
fn is_body_start(text: &str) -> bool {
    text.split_once(':').is_some_and(|(key, value)| {
        (key.eq_ignore_ascii_case("body") || key.eq_ignore_ascii_case("response"))
            && matches!(value.trim(), "|" | "|-" | "|+")
    })
}

/// A `sig:` line, in any case, invisible characters a chat put in its
/// name not counting.
pub fn is_sig_line(text: &str) -> bool {
    let name: String = text
        .chars()
        .filter(|c| !crate::chars::is_invisible(*c))
        .take(4)
        .collect();
    name.eq_ignore_ascii_case("sig:")
}

/// How far [`nested_closes`] looks ahead: an example envelope whose outer
/// envelope closes further on is not recognised as one.
const NESTED_LOOKAHEAD: usize = 1_000;
/// How many lines [`part_gap`] reads between two parts of a reply.
const GAP_LOOKAHEAD: usize = 12;

/// Whether a header line inside an unindented body opens an example
/// envelope: reading `after` (the lines after it), it closes with its own
/// `[[END]]` and the outer envelope closes after it, before a fence or the
/// end of the quote. `None` when `after` ends before that is known.
fn nested_closes(after: &[&str], prefix: &str) -> Option<bool> {
    let mut depth = 1usize;
    for (n, line) in after.iter().enumerate().take(NESTED_LOOKAHEAD) {
        let Some((text, indent)) = strip_prefix(line, prefix) else {
            return Some(false);
        };
        if header_view(text, n + 1, indent).is_some() {
            depth += 1;
        } else if is_fence(text) {
            return Some(false);
        } else if end_view(text, n + 1, indent).is_some() {
            if depth == 0 {
                return Some(true);
            }
            depth -= 1;
        }
    }
    (after.len() >= NESTED_LOOKAHEAD).then_some(false)
}

/// A line between the parts of a split reply: `Part 2/2`, `**Part 2 of
/// 3:**`, `(continued)`, `Continued from part 1`, `(cont'd)`. Short, not
/// indented, and saying nothing else.
pub fn is_part_marker(text: &str) -> bool {
    if text.starts_with(char::is_whitespace) || text.chars().count() > 60 {
        return false;
    }
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '/' || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    let continued = words
        .iter()
        .any(|w| w.starts_with("continu") || matches!(*w, "cont" | "cont'd" | "contd"));
    let part = words
        .windows(2)
        .any(|pair| pair[0] == "part" && pair[1].starts_with(|c: char| c.is_ascii_digit()));
    (continued || part) && words.len() <= 8
}

/// The break at a fence (`from[0]`) between two parts of one envelope:
/// fences, blank lines and at least one part marker. `Some(Some(n))`: the
/// envelope goes on at `from[n]`, an indented body line, a `name: value`
/// line or `[[END]]`; `Some(None)`: it does not; `None`: `from` ends before
/// that is known.
fn part_gap(from: &[&str], prefix: &str) -> Option<Option<usize>> {
    let mut marked = false;
    for n in 1..GAP_LOOKAHEAD {
        let line = from.get(n)?;
        let stripped = strip_prefix(line, prefix);
        let text = stripped.map_or(*line, |(text, _)| text);
        if is_part_marker(text) {
            marked = true;
        } else if !(text.trim().is_empty() || is_fence(text)) {
            let goes_on = repair::is_body_line(text)
                || text.trim_end() == "[[END]]"
                || text.split_once(':').is_some_and(|(k, _)| is_lower_name(k));
            return Some((marked && goes_on && stripped.is_some()).then_some(n));
        }
    }
    Some(None)
}

/// Whether the lines `after` close an envelope (`[[END]]`, or `sig: …
/// [[END]]`) before any fence or header line.
fn closes_before_fence(after: &[&str], prefix: &str) -> bool {
    for (n, line) in after.iter().enumerate().take(NESTED_LOOKAHEAD) {
        let Some((text, indent)) = strip_prefix(line, prefix) else {
            return false;
        };
        if is_fence(text) || header_view(text, n + 1, indent).is_some() {
            return false;
        }
        if end_view(text, n + 1, indent).is_some() || end_on_sig_line(text).is_some() {
            return true;
        }
    }
    false
}

/// The break at a fence (`from[0]`) between two code blocks of one reply
/// with no part marker: the fence that closes one, blank lines, the fence
/// that opens the next, and then lines that go on with the envelope and
/// close it before the next fence. `Some(n)`: it goes on at `from[n]`.
fn unmarked_continuation(from: &[&str], prefix: &str) -> Option<usize> {
    let mut fences = 1;
    for n in 1..GAP_LOOKAHEAD {
        let (text, _) = strip_prefix(from.get(n)?, prefix)?;
        if text.trim().is_empty() {
            continue;
        }
        if is_fence(text) {
            fences += 1;
            if fences > 2 {
                return None;
            }
            continue;
        }
        let goes_on = repair::is_body_line(text)
            || text.trim_end() == "[[END]]"
            || text.split_once(':').is_some_and(|(k, _)| is_lower_name(k));
        return (fences == 2 && goes_on && closes_before_fence(&from[n..], prefix)).then_some(n);
    }
    None
}

/// A lower-case header name (`sig`, `x-trace`).
fn is_lower_name(key: &str) -> bool {
    key.starts_with(|c: char| c.is_ascii_lowercase())
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// Where a text may be cut so that [`find_envelopes`] finds in the pieces
/// what it finds in the whole: fed the lines in order, it follows the same
/// steps and says whether a line starts outside any envelope. Where
/// `find_envelopes` looks ahead (an example envelope in an unindented body,
/// a break between parts), the lines are kept until the answer is known,
/// then read again as `find_envelopes` reads them; no cut falls among them.
#[derive(Debug, Default)]
pub struct Cuts {
    open: Option<OpenEnvelope>,
    waiting: Option<Lookahead>,
}

/// The envelope being read: its quote or indentation prefix and its body.
#[derive(Debug, Clone)]
struct OpenEnvelope {
    prefix: String,
    body: BodyWatch,
}

/// Lines kept from a point where `find_envelopes` looks ahead.
#[derive(Debug)]
struct Lookahead {
    /// A header line in an unindented body (else: a fence).
    nested: bool,
    envelope: OpenEnvelope,
    lines: Vec<String>,
}

impl Cuts {
    /// Takes the next line (without its line end); true when no envelope
    /// is open before it, so the text may be cut there.
    pub fn before(&mut self, line: &str) -> bool {
        let Some(mut waiting) = self.waiting.take() else {
            return self.step(line);
        };
        waiting.lines.push(line.to_string());
        let lines: Vec<&str> = waiting.lines.iter().map(String::as_str).collect();
        let prefix = &waiting.envelope.prefix;
        let again = if waiting.nested {
            match nested_closes(&lines[1..], prefix) {
                None => None,
                Some(true) => {
                    let mut envelope = waiting.envelope.clone();
                    envelope.body.depth += 1;
                    self.open = Some(envelope);
                    Some(1)
                }
                Some(false) => Some(0),
            }
        } else {
            match part_gap(&lines, prefix) {
                None => None,
                Some(Some(skip)) => {
                    self.open = Some(waiting.envelope.clone());
                    Some(skip)
                }
                Some(None) => Some(0),
            }
        };
        let Some(from) = again else {
            self.waiting = Some(waiting);
            return false;
        };
        if from == 0 {
            // `find_envelopes` ended the envelope there.
            self.open = None;
        }
        let mut cut = false;
        for line in &waiting.lines[from..] {
            cut = self.before(line);
        }
        cut
    }

    /// [`Cuts::before`] when no lines are kept.
    fn step(&mut self, line: &str) -> bool {
        if let Some(envelope) = &mut self.open {
            match strip_prefix(line, &envelope.prefix) {
                Some((text, indent)) if header_view(text, 1, indent).is_some() => {
                    if envelope.body.unindented() {
                        self.wait(true, line);
                        return false;
                    }
                    self.open = None;
                }
                Some((text, _)) if is_fence(text) => {
                    if !envelope.body.unindented() {
                        self.wait(false, line);
                        return false;
                    }
                    self.open = None;
                }
                Some((text, indent)) => {
                    if end_view(text, 1, indent).is_none() {
                        envelope.body.see(text);
                    } else if envelope.body.depth > 0 {
                        envelope.body.depth -= 1;
                    } else {
                        self.open = None;
                    }
                    return false;
                }
                // The envelope ended before this line, which is read afresh.
                None => self.open = None,
            }
        }
        if let Some(prefix) = header_at(line, 1)
            .map(|(prefix, _, _)| prefix)
            .or_else(|| list_header(line))
        {
            self.open = Some(OpenEnvelope {
                prefix: prefix.to_string(),
                body: BodyWatch::default(),
            });
        }
        true
    }

    /// Keeps lines from `line` on, until `find_envelopes`'s look ahead is answered.
    fn wait(&mut self, nested: bool, line: &str) {
        if let Some(envelope) = self.open.take() {
            self.waiting = Some(Lookahead {
                nested,
                envelope,
                lines: vec![line.to_string()],
            });
        }
    }
}

/// Whether a source line holds an envelope header line (after any quote
/// prefix, Markdown or invisible characters).
pub fn is_header(line: &str) -> bool {
    header_at(line, 1).is_some() || list_header(line).is_some()
}

/// The bulleted prefix of `line` when it is a header line inside a list
/// item, judged on the line alone (as if the next line were a list item too).
fn list_header(line: &str) -> Option<&str> {
    header_in_list(&[line, line], 0).map(|(prefix, _, _)| prefix)
}

/// The header line at `at` when it and the line after it are Markdown list
/// items (`- [[A→B v1]]`, `- session: …`): the prefix with the bullet (a
/// slice of the line, taken off every line of the envelope), the header,
/// and the repair named once.
fn header_in_list<'a>(lines: &[&'a str], at: usize) -> Option<(&'a str, Line<'a>, Repairs)> {
    let line = lines[at];
    let quote = line.len() - line.trim_start_matches(['>', ' ', '\t']).len();
    let bullet = repair::BULLETS
        .into_iter()
        .find(|b| line[quote..].starts_with(b))?;
    let prefix = &line[..quote + bullet.len()];
    let next = lines.get(at + 1)?;
    if !next.starts_with(prefix) && next.trim_end() != prefix.trim_end() {
        return None;
    }
    let (header, mut repairs) = header_view(&line[prefix.len()..], at + 1, prefix.chars().count())?;
    repairs.note(
        "CT-REPAIR-MARKDOWN",
        "list".into(),
        Pos::new(at + 1, line[..quote].chars().count() + 1),
        1,
        "every line of the envelope was a Markdown list item: the bullets taken off".into(),
    );
    Some((prefix, header, repairs))
}

/// If `line` is an envelope header line: the quote prefix before it (quote
/// markers and indentation only, stripped from the lines that follow), the
/// cleaned header line, and what was repaired to read it.
fn header_at(line: &str, number: usize) -> Option<(&str, Line<'_>, Repairs)> {
    let start = line.find(|c: char| !matches!(c, '>' | ' ' | '\t'))?;
    let prefix = &line[..start];
    let (header, repairs) = header_view(&line[start..], number, prefix.chars().count())?;
    Some((prefix, header, repairs))
}

/// Reads `text` (the quote prefix already removed) as a header line; a
/// label a chat put before it (`**Reply:** [[A→B v1]]`, `Answer: [[…]]`) is
/// taken off and named.
fn header_view(text: &str, number: usize, indent: usize) -> Option<(Line<'_>, Repairs)> {
    let at = text.find("[[").or_else(|| text.find("\\[\\["))?;
    if let Some(found) = structural_view(text, number, indent, "header line", is_header_line) {
        return Some(found);
    }
    let label = &text[..at];
    let core = label.trim_end().trim_matches(|c| c == '*' || c == '_');
    let plausible = at > 0
        && !label.starts_with(char::is_whitespace)
        && label.chars().count() <= 40
        && core.len() > 1
        && core.ends_with(':');
    if !plausible {
        return None;
    }
    let width = label.chars().count();
    let (view, mut repairs) = structural_view(
        &text[at..],
        number,
        indent + width,
        "header line",
        is_header_line,
    )?;
    repairs.note(
        "CT-REPAIR-MARKDOWN",
        "label".into(),
        Pos::new(number, indent + 1),
        width,
        format!(
            "the label `{}` before the header line taken off",
            label.trim_end()
        ),
    );
    Some((view, repairs))
}

/// Where `[[END]]` starts on a `sig:` line that a chat joined with the
/// `[[END]]` line after it (`sig: none [[END]]`).
fn end_on_sig_line(text: &str) -> Option<usize> {
    let line = text.trim_end();
    let at = line.strip_suffix("[[END]]")?.len();
    let before = &line[..at];
    (line.starts_with("sig:") && before.ends_with([' ', '\t']) && before.trim_end().len() > 4)
        .then_some(at)
}

/// Reads `text` as an `[[END]]` line. An indented `[[END]]` is body text.
fn end_view(text: &str, number: usize, indent: usize) -> Option<(Line<'_>, Repairs)> {
    if !text.contains("END") {
        return None;
    }
    structural_view(text, number, indent, "[[END]] line", |t| {
        t.trim_end() == "[[END]]"
    })
}

/// `text` with Markdown around it taken off and cleaned ([`repair`]), when
/// the result is the `line` that `is_it` recognises; with the repairs made.
fn structural_view<'a>(
    text: &'a str,
    number: usize,
    indent: usize,
    line: &str,
    is_it: impl Fn(&str) -> bool,
) -> Option<(Line<'a>, Repairs)> {
    let unwrapped = repair::unwrap_markdown(text);
    let at = |o: usize| Pos::new(number, indent + unwrapped.before + o + 1);
    let mut repairs = Repairs::default();
    let arrows = line == "header line";
    let cleaned = repair::clean(unwrapped.inner, arrows, at, &mut repairs);
    if !is_it(&cleaned.text) {
        return None;
    }
    note_markdown(
        &mut repairs,
        unwrapped.what,
        line,
        Pos::new(number, indent + 1),
        text,
    );
    let view = Line {
        text: cleaned.text,
        number,
        indent: indent + unwrapped.before,
        removed: cleaned.removed,
    };
    Some((view, repairs))
}

fn note_markdown(repairs: &mut Repairs, what: Option<&str>, line: &str, at: Pos, text: &str) {
    if let Some(what) = what {
        repairs.note(
            "CT-REPAIR-MARKDOWN",
            format!("{what} {line}"),
            at,
            text.trim_end().chars().count(),
            format!("{what} around the {line} taken off"),
        );
    }
}

/// Whether a line (prefix already removed) looks like `[[A→B v1]]`. A line
/// with brackets and an arrow or a version token counts, so that a damaged
/// header is reported rather than silently skipped.
pub fn is_header_line(text: &str) -> bool {
    let t = text.trim_end();
    let t = joined_header(t).map_or(t, |(head, _)| head);
    if !t.starts_with("[[") || !t.ends_with("]]") || t == "[[END]]" || t.len() < 5 {
        return false;
    }
    let inner = &t[2..t.len() - 2];
    let has_version = inner.rsplit_once(' ').is_some_and(|(_, v)| {
        v.starts_with('v') && v[1..].starts_with(|c: char| c.is_ascii_digit())
    });
    inner.contains('→') || inner.contains("->") || has_version
}

/// A header line with the rest of the envelope on the same line, as when
/// a chat or an editor joined its lines (`[[A→B v1]] intent: REQUEST body:
/// | … [[END]]`): the header and what follows it.
pub fn joined_header(text: &str) -> Option<(&str, &str)> {
    let close = text.find("]]")? + 2;
    let (head, rest) = text.split_at(close);
    let named = rest
        .trim_start()
        .split_once(':')
        .is_some_and(|(key, _)| is_lower_name(key));
    (head.starts_with("[[") && rest.starts_with(char::is_whitespace) && named)
        .then_some((head, rest))
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

    fn texts(b: &Block<'_>) -> Vec<String> {
        b.lines.iter().map(|l| l.text.to_string()).collect()
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
    fn a_header_above_the_code_block_joins_the_rest() {
        let text = "**[[A→B v1]]**\n```\nintent: REQUEST\nbody: |\n  x\nsig: none\n[[END]]\n```\n";
        let blocks = find_envelopes(text);
        assert!(blocks[0].terminated);
        assert_eq!(texts(&blocks[0])[1], "intent: REQUEST");
        // A header above a code block that does not close the envelope: cut off.
        let open = "[[A→B v1]]\n```\nintent: REQUEST\n```\n[[END]]\n";
        assert!(!find_envelopes(open)[0].terminated);
    }

    #[test]
    fn a_second_code_block_with_no_part_marker_continues_only_to_an_end() {
        let text =
            "```\n[[A→B v1]]\nbody: |\n  first\n```\n\n```\n  second\nsig: none\n[[END]]\n```\n";
        let blocks = find_envelopes(text);
        assert!(blocks[0].terminated);
        assert_eq!(
            texts(&blocks[0]),
            [
                "[[A→B v1]]",
                "body: |",
                "  first",
                "  second",
                "sig: none",
                "[[END]]"
            ]
        );
        // The next block is code of its own (no [[END]] in it): not joined.
        let code = "```\n[[A→B v1]]\nbody: |\n  first\n```\n```\n  fn main() {}\n```\n";
        let blocks = find_envelopes(code);
        assert!(!blocks[0].terminated);
        assert_eq!(texts(&blocks[0]).len(), 3);
        // Nor a new envelope in the next block.
        let next =
            "```\n[[A→B v1]]\nbody: |\n  first\n```\n```\n[[B→A v1]]\nbody: |\n  y\n[[END]]\n```\n";
        assert_eq!(find_envelopes(next).len(), 2);
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

    /// `\r\r\n` (a CRLF file converted again) ends the line, with a
    /// repair noted where the extra `\r` is: a line's text never ends with
    /// `\r`, so its canonical form reads back the same (fuzz finding).
    #[test]
    fn extra_carriage_returns_belong_to_the_line_end_and_are_noted() {
        let text = "[[A→B v1]]\r\r\nbody: |\r\n  x\r\r\r\n[[END]]\n";
        let blocks = find_envelopes(text);
        assert_eq!(
            texts(&blocks[0]),
            vec!["[[A→B v1]]", "body: |", "  x", "[[END]]"]
        );
        let noted = blocks[0].repairs.clone().into_diagnostics();
        assert_eq!(noted.len(), 1, "{noted:?}");
        assert_eq!(noted[0].code, "CT-REPAIR-LINE-END");
        assert_eq!((noted[0].line, noted[0].column), (1, 11));
        assert!(noted[0].message.contains("U+000D"), "{}", noted[0].message);
        assert!(
            noted[0]
                .message
                .ends_with("(and 1 more time(s) in this envelope)")
        );
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
    fn an_example_in_an_unindented_body_is_the_body_when_the_outer_envelope_closes() {
        let text =
            "[[A→B v1]]\nbody: |\nlook:\n[[B→A v1]]\nbody: |\n  x\n[[END]]\nthat is all\n[[END]]\n";
        let blocks = find_envelopes(text);
        assert_eq!(blocks.len(), 1);
        assert!(blocks[0].terminated);
        assert_eq!(blocks[0].lines.len(), 9);
        let noted = blocks[0].repairs.clone().into_diagnostics();
        assert_eq!(noted[0].code, "CT-REPAIR-NESTED");
        assert_eq!(noted[0].line, 4);
        // The outer one never closes: the second is an envelope of its own.
        let text = "[[A→B v1]]\nbody: |\ncut off here\n[[B→A v1]]\nbody: |\n  x\n[[END]]\n";
        let blocks = find_envelopes(text);
        assert_eq!(blocks.len(), 2);
        assert!(!blocks[0].terminated && blocks[1].terminated);
        // An indented body ends at a header line, as it always did.
        let text = "[[A→B v1]]\nbody: |\n  x\n[[B→A v1]]\n[[END]]\n[[END]]\n";
        assert_eq!(find_envelopes(text).len(), 2);
    }

    #[test]
    fn parts_in_separate_code_blocks_are_joined_across_a_marker_or_none() {
        let part = |marker: &str| {
            format!(
                "```\n[[A→B v1]]\nbody: |\n  one\n```\n\n{marker}\n\n```\n  two\n[[END]]\n```\n"
            )
        };
        for marker in [
            "**Part 2/2**",
            "Part 2 of 2:",
            "(continued)",
            "_Continued from part 1_",
            "(cont'd)",
        ] {
            let text = part(marker);
            let blocks = find_envelopes(&text);
            assert_eq!(blocks.len(), 1, "{marker}");
            assert!(blocks[0].terminated, "{marker}");
            assert_eq!(texts(&blocks[0])[3], "  two", "{marker}");
            let noted = blocks[0].repairs.clone().into_diagnostics();
            assert_eq!(noted[0].code, "CT-REPAIR-JOIN");
            assert_eq!((noted[0].line, noted[0].column), (5, 1));
        }
        // Prose between the blocks: not joined, the first part is cut off.
        let text = part("Here is more text about something else.");
        assert!(!find_envelopes(&text)[0].terminated);
        // No marker at all ("continue generating"): joined, since the next
        // block goes on with the envelope and closes it.
        let text = part("");
        let blocks = find_envelopes(&text);
        assert!(blocks[0].terminated);
        assert_eq!(
            blocks[0].repairs.clone().into_diagnostics()[0].code,
            "CT-REPAIR-JOIN"
        );
    }

    #[test]
    fn part_markers_are_short_lines_that_say_only_that() {
        for yes in [
            "Part 2/2",
            "**Part 1 of 3**",
            "(continued)",
            "Continued in the next message:",
            "[cont'd]",
            "### Part 2",
        ] {
            assert!(is_part_marker(yes), "{yes}");
        }
        for no in [
            "  (continued)",
            "Part of the plan is to ship",
            "The discussion continued for a long while after the meeting ended, as expected",
            "part two",
        ] {
            assert!(!is_part_marker(no), "{no}");
        }
    }

    #[test]
    fn a_header_with_the_envelope_on_its_line_is_joined_lines() {
        assert_eq!(
            joined_header("[[A→B v1]] intent: REQUEST body: | x [[END]]"),
            Some(("[[A→B v1]]", " intent: REQUEST body: | x [[END]]"))
        );
        assert!(is_header_line("[[A→B v1]] intent: REQUEST"));
        assert_eq!(joined_header("[[A→B v1]]"), None);
        assert_eq!(joined_header("[[A→B v1]] (continued)"), None);
    }

    #[test]
    fn prose_mentions_are_not_envelopes() {
        assert!(find_envelopes("see `[[A→B v1]]` blocks\n[[wiki link]]\n").is_empty());
    }
}
