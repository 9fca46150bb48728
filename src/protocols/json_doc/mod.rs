//! What the JSON protocols (HSP, CSDL, MSP) share: cutting an input into
//! documents (`split`), findings addressed by JSON Pointer, placing them in
//! the source text, and turning JSON Schema errors into findings.

pub mod compact;
pub mod numbers;
pub mod split;
pub mod strict;

use serde_json::Value;

use crate::diag::{Diagnostic, Pos};
use crate::json_locate;

/// Whether a text (its start: leading whitespace already trimmed or not)
/// opens a JSON object, or an array that is empty or holds objects. A
/// Crosstalk header line (`[[A→B v1]]`) opens no JSON, however much JSON its
/// body quotes.
pub fn starts_like_json(text: &str) -> bool {
    let t = text.trim_start();
    match t.strip_prefix('[') {
        Some(rest) => {
            let rest = rest.trim_start();
            rest.is_empty() || rest.starts_with('{') || rest.starts_with(']')
        }
        None => t.starts_with('{'),
    }
}

/// A finding about one value of a JSON document, by JSON Pointer.
#[derive(Debug, Clone)]
pub struct Finding {
    pub pointer: String,
    pub diagnostic: Diagnostic,
}

impl Finding {
    pub fn error(
        pointer: impl Into<String>,
        code: &'static str,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            pointer: pointer.into(),
            diagnostic: Diagnostic::error(code, message),
        }
    }

    pub fn warning(
        pointer: impl Into<String>,
        code: &'static str,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            pointer: pointer.into(),
            diagnostic: Diagnostic::warning(code, message),
        }
    }
}

impl Finding {
    /// Adds a hint to the finding.
    pub fn hinted(mut self, hint: impl Into<String>) -> Self {
        self.diagnostic.hint = Some(hint.into());
        self
    }
}

/// Where a document sits in its source, to place findings.
pub struct Where<'a> {
    pub text: &'a str,
    pub line_offset: usize,
    /// Characters before the document on its first line.
    pub first_column: usize,
}

/// Where a document sits in the text it was read from, kept with the
/// message so that later checks (a project's schemas) place their findings
/// as the reader placed its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// The document's bytes in the text read.
    pub start: usize,
    pub end: usize,
    pub line_offset: usize,
    pub first_column: usize,
}

impl Span {
    /// The span of a split document.
    pub fn of(doc: &split::Doc<'_>) -> Span {
        Span {
            start: doc.start,
            end: doc.start + doc.text.len(),
            line_offset: doc.line_offset,
            first_column: doc.first_column,
        }
    }
}

impl<'a> Where<'a> {
    /// The place of a document by its span in `source`, the text it was
    /// read from; `None` when the span is not in it.
    pub fn within(source: &'a str, span: Span) -> Option<Self> {
        Some(Where {
            text: source.get(span.start..span.end)?,
            line_offset: span.line_offset,
            first_column: span.first_column,
        })
    }

    /// The place of a split document.
    pub fn of(doc: &split::Doc<'a>) -> Self {
        Where {
            text: doc.text,
            line_offset: doc.line_offset,
            first_column: doc.first_column,
        }
    }

    /// A line and column of the document's text as a position in the source.
    pub fn pos(&self, line: usize, column: usize) -> Pos {
        let column = if line == 1 {
            column + self.first_column
        } else {
            column
        };
        Pos::new(line + self.line_offset, column)
    }

    /// Gives a finding its line and column in the source, underlining the value.
    pub fn place(&self, f: Finding) -> Diagnostic {
        let (start, end) = json_locate::locate_span(self.text, &f.pointer);
        let (line, column) = json_locate::line_column(self.text, start);
        self.placed(f, (start, end), (line, column))
    }

    /// A finding at a located value.
    fn placed(
        &self,
        f: Finding,
        (start, end): (usize, usize),
        (line, column): (usize, usize),
    ) -> Diagnostic {
        let length = self.text[start..end]
            .split('\n')
            .next()
            .map_or(1, |first| first.chars().count());
        let mut d = f.diagnostic.at(self.pos(line, column), length);
        d.pointer = Some(f.pointer);
        d
    }

    /// Places findings and sorts them by position: in one pass over the
    /// document however many there are (see [`json_locate::Locator`]).
    pub fn place_all(&self, findings: Vec<Finding>) -> Vec<Diagnostic> {
        let mut locator = json_locate::Locator::new(self.text);
        let mut located: Vec<(usize, usize, Finding)> = findings
            .into_iter()
            .map(|f| {
                let (start, end) = locator.locate_span(&f.pointer);
                (start, end, f)
            })
            .collect();
        located.sort_by_key(|(start, _, _)| *start);
        let mut cursor = json_locate::Cursor::new(self.text);
        located
            .into_iter()
            .map(|(start, end, f)| {
                let at = cursor.advance_to(start);
                self.placed(f, (start, end), at)
            })
            .collect()
    }
}

/// A document read from an input, with its findings placed in the text.
pub struct Read<T> {
    /// The typed document; `None` when it could not be read.
    pub doc: Option<T>,
    pub diagnostics: Vec<Diagnostic>,
    /// 1-based first and last line in the source.
    pub line: usize,
    pub end_line: usize,
    pub span: Span,
}

/// The codes a protocol gives to a document that is not JSON, or too large.
#[derive(Debug, Clone, Copy)]
pub struct SyntaxCodes {
    pub json: &'static str,
    pub too_large: &'static str,
}

/// Splits a text into documents and checks each with `check`, which gets
/// the parsed JSON and returns the typed document and findings by pointer.
pub fn read_all<T: Send>(
    text: &str,
    max_bytes: usize,
    codes: SyntaxCodes,
    check: impl Fn(Value) -> (Option<T>, Vec<Finding>) + Sync,
) -> Vec<Read<T>> {
    let docs = split::split(text, max_bytes);
    crate::parallel::map_owned(docs, |mut doc| {
        let mut read = Read {
            doc: None,
            diagnostics: Vec::new(),
            line: doc.line,
            end_line: doc.end_line,
            span: Span::of(&doc),
        };
        let value = std::mem::replace(&mut doc.value, Ok(Value::Null));
        match value {
            Err(e) => {
                let d = syntax_diagnostic(&e, &Where::of(&doc), codes.json, codes.too_large);
                read.diagnostics.push(d);
            }
            Ok(value) => {
                let (typed, mut findings) = check(value);
                findings.extend(numbers::inexact(doc.text));
                read.doc = typed;
                read.diagnostics = Where::of(&doc).place_all(findings);
            }
        }
        read
    })
}

/// A syntax error of a split document as a placed diagnostic.
pub fn syntax_diagnostic(
    e: &split::SyntaxError,
    at: &Where,
    json_code: &'static str,
    too_large_code: &'static str,
) -> Diagnostic {
    let code = if e.too_large {
        too_large_code
    } else if e.message.starts_with(strict::DUPLICATE_KEY) {
        "JSON-DUPLICATE-KEY"
    } else {
        json_code
    };
    Diagnostic::error(code, e.message.clone()).at(at.pos(e.line, e.column), 1)
}

/// Schema findings, minus those a rule already explains (same pointer or
/// below it). `code` names each schema keyword in the protocol's codes.
pub fn schema_findings(
    validator: &jsonschema::Validator,
    value: &Value,
    rules: &[Finding],
    code: fn(&str) -> &'static str,
) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    if validator.is_valid(value) {
        return out; // the common case, and far cheaper than collecting errors
    }
    for error in validator.iter_errors(value) {
        let mut pointer = error.instance_path().as_str().to_string();
        if let jsonschema::error::ValidationErrorKind::Required { property } = error.kind()
            && let Some(p) = property.as_str()
        {
            pointer = format!("{pointer}/{p}");
        }
        let explained = rules
            .iter()
            .any(|r| pointer == r.pointer || pointer.starts_with(&format!("{}/", r.pointer)));
        if explained || out.iter().any(|f| f.pointer == pointer) {
            continue;
        }
        out.push(Finding {
            pointer,
            diagnostic: Diagnostic::error(code(error.kind().keyword()), error.to_string()),
        });
    }
    out
}

/// Schema findings, minus those about a container in which a rule already
/// found something more precise.
pub fn unexplained_containers(schema: Vec<Finding>, rules: &[Finding]) -> Vec<Finding> {
    schema
        .into_iter()
        .filter(|s| {
            !rules
                .iter()
                .any(|r| r.pointer.starts_with(&format!("{}/", s.pointer)))
        })
        .collect()
}

/// Where the string that starts at `at` (after its opening quote) ends:
/// its closing quote, or `end` or one past it for a string cut off.
/// Escapes are skipped; the text is searched a vector at a time.
fn string_end(bytes: &[u8], mut at: usize, end: usize) -> usize {
    while at < end {
        match memchr::memchr2(b'"', b'\\', &bytes[at..end]) {
            Some(found) if bytes[at + found] == b'\\' => at += found + 2,
            Some(found) => return at + found,
            None => return end,
        }
    }
    at
}

/// The keys of the first JSON object of a text (the text itself, or the
/// first element of an array, or the first line of JSON Lines), read
/// without parsing the values; stops at `limit` bytes. For detection.
pub fn top_level_keys(text: &str, limit: usize) -> Vec<&str> {
    let bytes = text.as_bytes();
    let end = bytes.len().min(limit);
    let mut keys = Vec::new();
    let mut depth = 0usize;
    // The depth at which the keys of the first object sit.
    let mut object_depth: Option<usize> = None;
    let mut expect_key = false;
    let mut i = 0;
    while i < end {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i = string_end(bytes, start, end);
                if expect_key
                    && Some(depth) == object_depth
                    && let Some(k) = text.get(start..i.min(end))
                {
                    keys.push(k);
                }
                expect_key = false;
            }
            b'{' => {
                depth += 1;
                if object_depth.is_none() {
                    object_depth = Some(depth);
                }
                expect_key = true;
            }
            b'[' => depth += 1,
            b'}' | b']' => {
                if Some(depth) == object_depth && bytes[i] == b'}' {
                    return keys;
                }
                depth = depth.saturating_sub(1);
            }
            b',' => expect_key = Some(depth) == object_depth,
            _ => {}
        }
        i += 1;
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_envelope_that_quotes_json_is_no_json() {
        assert!(
            starts_like_json("  {\"a\": 1}")
                && starts_like_json("[\n {}]")
                && starts_like_json("[]")
        );
        let envelope = "[[CLAUDE→GPT v1]]\nintent: REQUEST\nbody: |\n  is \"HSP::Fact_v0.1\" with \"type\": \"function\" right?\n[[END]]\n";
        assert!(!starts_like_json(envelope));
        assert_eq!(
            crate::protocols::Protocol::detect(envelope),
            Some(crate::protocols::Protocol::Crosstalk)
        );
    }

    proptest::proptest! {
        #![proptest_config(crate::proptest_config::config(2048))]

        /// Strings end where a byte-at-a-time scan says they do.
        #[test]
        fn strings_end_where_a_bytewise_scan_ends_them(
            text in "[{}\\[\\],:\"\\\\a-c é]{0,40}",
            at in 0usize..48,
            limit in 0usize..48,
        ) {
            let (bytes, end) = (text.as_bytes(), text.len().min(limit));
            let mut i = at;
            while i < end && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            proptest::prop_assert_eq!(string_end(bytes, at, end), i);
        }
    }

    #[test]
    fn top_level_keys_skip_nested_objects() {
        let text = r#"{"a": {"b": 1, "c": [{"d": 2}]}, "e\"x": "f,g", "h": [1, {"i": 3}]}"#;
        assert_eq!(top_level_keys(text, 1 << 20), vec!["a", "e\\\"x", "h"]);
        assert_eq!(
            top_level_keys(r#"[{"t": 1}, {"u": 2}]"#, 1 << 20),
            vec!["t"]
        );
        assert_eq!(top_level_keys("{\"t\": 1}\n{\"u\": 2}", 1 << 20), vec!["t"]);
        assert_eq!(top_level_keys(r#"{"t": "#, 1 << 20), vec!["t"]);
    }
}
