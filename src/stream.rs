//! Reading JSON Lines of any length in constant memory: lines are read one
//! by one, each capped at a size limit (a longer line is skipped, not stored).

use std::io::{BufRead, ErrorKind};

use crate::diag::{Diagnostic, Pos};
use crate::protocols::json_doc::split;

/// One line of a stream.
pub enum Line {
    /// The line's text (without its line end), and its 1-based number.
    Text(usize, String),
    /// A line over the limit: its number and its size in bytes.
    TooLong(usize, usize),
    /// A line that is not UTF-8: its number and the column of the first bad byte.
    NotUtf8(usize, usize),
}

impl Line {
    /// The line's 1-based number.
    pub fn number(&self) -> usize {
        match self {
            Line::Text(n, _) | Line::TooLong(n, _) | Line::NotUtf8(n, _) => *n,
        }
    }

    /// The line's text, or why it cannot be read as a message, at line `at`
    /// (its number, or its place in a piece): over the size limit `max`
    /// (`HSP-TOO-LARGE`), or not UTF-8 (`INPUT-NOT-UTF8`). Every reader of
    /// JSON Lines words these alike.
    pub fn text_or_failure(&self, at: usize, max: usize) -> Result<&str, Diagnostic> {
        match self {
            Line::Text(_, text) => Ok(text),
            Line::TooLong(_, size) => Err(Diagnostic::error(
                "HSP-TOO-LARGE",
                split::too_large(*size, max),
            )
            .at(Pos::new(at, 1), 1)),
            Line::NotUtf8(_, column) => Err(Diagnostic::error(
                "INPUT-NOT-UTF8",
                "this line is not UTF-8 text",
            )
            .at(Pos::new(at, *column), 1)),
        }
    }
}

/// Reads lines from a buffered reader, never holding more than `max` bytes of one.
pub struct LineReader<R> {
    inner: R,
    max: usize,
    number: usize,
    /// Bytes consumed so far (for progress).
    pub consumed: u64,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R, max: usize) -> Self {
        LineReader {
            inner,
            max,
            number: 0,
            consumed: 0,
        }
    }

    /// The next line, or `None` at the end of the input.
    pub fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        let mut buf = Vec::new();
        let mut size = 0usize;
        let mut any = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            any = true;
            let (take, done) = match memchr_newline(chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let content = if done {
                &chunk[..take - 1]
            } else {
                &chunk[..take]
            };
            size += content.len();
            if size <= self.max {
                if buf.is_empty() && done {
                    // The common case, a line within the buffer: one allocation.
                    buf = content.to_vec();
                } else {
                    buf.extend_from_slice(content);
                }
            }
            self.inner.consume(take);
            self.consumed += take as u64;
            if done {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        self.number += 1;
        if size > self.max {
            return Ok(Some(Line::TooLong(self.number, size)));
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        match String::from_utf8(buf) {
            Ok(text) => Ok(Some(Line::Text(self.number, text))),
            Err(e) => {
                let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
                let column = String::from_utf8_lossy(valid).chars().count() + 1;
                Ok(Some(Line::NotUtf8(self.number, column)))
            }
        }
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}

/// Whether the start of an input looks like HSP JSON Lines: a first line that
/// is a whole JSON object (or too long to be a pretty-printed document) and a
/// second line that starts another object.
pub fn looks_like_hsp_json_lines(head: &[u8]) -> bool {
    json_lines_look(head, Head::Start)
}

/// [`looks_like_hsp_json_lines`] for an input read whole (a small file): one
/// line alone is a JSON document, read with the other small files, and not
/// a stream of one record.
pub fn is_hsp_json_lines(whole: &[u8]) -> bool {
    json_lines_look(whole, Head::Whole)
}

/// What the bytes looked at are of their input.
#[derive(Clone, Copy, PartialEq)]
enum Head {
    /// Its start: more may come (a pipe's writer may not have written it).
    Start,
    /// All of it.
    Whole,
}

fn json_lines_look(head: &[u8], what: Head) -> bool {
    let text = match std::str::from_utf8(head) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(head),
    };
    let trimmed = text.trim_start();
    if !trimmed.starts_with('{') {
        return false;
    }
    // HSP's own detection: a CSDL, MSP or A2A message that carries HSP
    // fields inside (a converted message) is not HSP. It scans the top-level
    // keys, so it comes after the looks at the lines.
    let hsp = || crate::protocols::hsp::detect(trimmed);
    let first = trimmed.split('\n').next().unwrap_or("");
    let Some(rest) = trimmed.get(first.len() + 1..) else {
        // The first line does not end within the head: far longer than any
        // pretty-printed line, so a JSON Lines record; or, in an input read
        // whole, its only line.
        return what == Head::Start && hsp();
    };
    // A second object on a line of its own, or nothing yet after the first
    // line (a pipe's writer that wrote one message: read as it comes, not
    // once the pipe closes; one line that is a whole object reads the same
    // either way), and a first line that is a whole object (parsed last: it
    // is the costly look; into nothing, as only its syntax counts, and it
    // starts with `{`).
    let next = rest.lines().find(|l| !l.trim().is_empty());
    let second = match next {
        Some(line) => line.trim_start().starts_with('{'),
        None => what == Head::Start,
    };
    second && hsp() && serde_json::from_str::<serde::de::IgnoredAny>(first).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_long_lines_without_storing_them() {
        let input = format!("short\r\n{}\nlast", "x".repeat(10_000));
        let mut r = LineReader::new(std::io::BufReader::with_capacity(64, input.as_bytes()), 100);
        assert!(matches!(r.next_line().unwrap(), Some(Line::Text(1, t)) if t == "short"));
        assert!(matches!(
            r.next_line().unwrap(),
            Some(Line::TooLong(2, 10_000))
        ));
        assert!(matches!(r.next_line().unwrap(), Some(Line::Text(3, t)) if t == "last"));
        assert!(r.next_line().unwrap().is_none());
    }

    #[test]
    fn recognises_json_lines_but_not_pretty_json() {
        assert!(looks_like_hsp_json_lines(
            b"{\"hsp_envelope_version\":\"0.1\"}\n{\"a\":1}\n"
        ));
        assert!(!looks_like_hsp_json_lines(
            b"{\n  \"hsp_envelope_version\": \"0.1\"\n}\n"
        ));
        assert!(!looks_like_hsp_json_lines(
            b"[{\"hsp_envelope_version\":\"0.1\"}]"
        ));
        assert!(looks_like_hsp_json_lines(
            b"{\"hsp_envelope_version\":\"0.1\", \"x\": \"very long"
        ));
    }

    /// One whole object on its line and nothing after it yet (a pipe's
    /// first message) is a line, read as it comes; a second line that
    /// does not start an object, or a first line that is not a whole
    /// object, is not.
    #[test]
    fn one_whole_line_is_read_as_a_line() {
        assert!(looks_like_hsp_json_lines(
            b"{\"hsp_envelope_version\":\"0.1\"}\n"
        ));
        assert!(looks_like_hsp_json_lines(
            b"{\"hsp_envelope_version\":\"0.1\"}\n  \n"
        ));
        assert!(!looks_like_hsp_json_lines(
            b"{\"hsp_envelope_version\":\"0.1\"}\n]\n"
        ));
        assert!(!looks_like_hsp_json_lines(b"{\"hsp_envelope_version\":\n"));
        assert!(!looks_like_hsp_json_lines(
            b"{\"hsp_envelope_version\":\"0.1\"} {\"a\":1}\n"
        ));
    }

    /// A file read whole whose only line is one object is a JSON document
    /// (read with the other small files, in parallel), with or without a
    /// newline at its end; two objects on two lines are JSON Lines.
    #[test]
    fn a_whole_input_of_one_line_is_a_document() {
        let line = b"{\"hsp_envelope_version\":\"0.1\"}";
        assert!(!is_hsp_json_lines(line));
        assert!(!is_hsp_json_lines(
            b"{\"hsp_envelope_version\":\"0.1\"}\n\n"
        ));
        assert!(looks_like_hsp_json_lines(line));
        assert!(is_hsp_json_lines(
            b"{\"hsp_envelope_version\":\"0.1\"}\n{\"a\":1}"
        ));
        assert!(!is_hsp_json_lines(
            b"{\"hsp_envelope_version\":\"0.1\"}\n]\n"
        ));
    }
}
