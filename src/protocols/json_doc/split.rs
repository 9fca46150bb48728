//! Splits a JSON input into documents: one object, an array of objects, or
//! JSON Lines; each keeps where it sits in the text for locating findings.

use serde_json::Value;

use crate::json_locate;

/// A document that could not be parsed, placed in the source.
#[derive(Debug, Clone)]
pub struct SyntaxError {
    /// True when it was not parsed for being over the size limit.
    pub too_large: bool,
    pub message: String,
    pub line: usize,
    pub column: usize,
}

/// One JSON document of an input.
pub struct Doc<'a> {
    pub value: Result<Value, SyntaxError>,
    /// The document's own text, in which its pointers are located.
    pub text: &'a str,
    /// Where `text` starts in the text that was split, in bytes.
    pub start: usize,
    /// Added to lines located in `text` (its first line's number - 1).
    pub line_offset: usize,
    /// Characters before `text` on its first line (an array element's).
    pub first_column: usize,
    /// 1-based first and last line in the source.
    pub line: usize,
    pub end_line: usize,
    /// The document's size in bytes.
    pub bytes: usize,
}

/// Splits a text into documents. A JSON array gives its elements, each
/// parsed (and held to `max_bytes`) on its own; a text that fails with
/// trailing data is read as JSON Lines.
pub fn split(text: &str, max_bytes: usize) -> Vec<Doc<'_>> {
    if text.trim_start().starts_with('[')
        && let Some(elements) = array_elements(text)
    {
        return elements_of(text, &elements, max_bytes);
    }
    if text.len() > max_bytes {
        if looks_like_json_lines(text) {
            return json_lines(text, max_bytes);
        }
        let error = SyntaxError {
            too_large: true,
            message: too_large(text.len(), max_bytes),
            line: 1,
            column: 1,
        };
        return vec![whole(text, Err(error))];
    }
    match super::strict::parse(text) {
        Ok(value) => vec![whole(text, Ok(value))],
        Err(e) if e.to_string().starts_with("trailing characters") => json_lines(text, max_bytes),
        Err(e) => vec![whole(text, Err(syntax_error(&e)))],
    }
}

/// The byte ranges of a top-level array's elements, when the array is well
/// formed between them (commas, one closing bracket, nothing after it);
/// `None` sends the text to the whole-text parser, which says what is wrong.
fn array_elements(text: &str) -> Option<Vec<(usize, usize)>> {
    let ranges = json_locate::array_elements(text);
    let after_last = ranges
        .last()
        .map_or_else(|| text.find('[').map_or(0, |i| i + 1), |&(_, end)| end);
    let rest = text.get(after_last..)?.trim_start();
    let closed = rest.strip_prefix(']')?;
    (closed.trim().is_empty() && !ranges.iter().any(|&(s, e)| s >= e)).then_some(ranges)
}

/// The elements of an array as documents, placed by one pass over the text
/// and parsed on every core.
fn elements_of<'a>(text: &'a str, ranges: &[(usize, usize)], max_bytes: usize) -> Vec<Doc<'a>> {
    let mut cursor = json_locate::Cursor::new(text);
    let placed: Vec<(&str, usize, usize, usize, usize)> = ranges
        .iter()
        .map(|&(start, end)| {
            let (line, column) = cursor.advance_to(start);
            let (end_line, _) = cursor.advance_to(end.saturating_sub(1));
            (&text[start..end], start, line, column, end_line)
        })
        .collect();
    crate::parallel::map_owned(placed, |(element, start, line, column, end_line)| {
        let value = if element.len() > max_bytes {
            Err(SyntaxError {
                too_large: true,
                message: too_large(element.len(), max_bytes),
                line: 1,
                column: 1,
            })
        } else {
            super::strict::parse(element).map_err(|e| syntax_error(&e))
        };
        Doc {
            value,
            text: element,
            start,
            line_offset: line - 1,
            first_column: column - 1,
            line,
            end_line,
            bytes: element.len(),
        }
    })
}

fn whole(text: &str, value: Result<Value, SyntaxError>) -> Doc<'_> {
    Doc {
        value,
        text,
        start: 0,
        line_offset: 0,
        first_column: 0,
        line: 1,
        end_line: text.trim_end().matches('\n').count() + 1,
        bytes: text.len(),
    }
}

/// Whether a text too large to be one message is JSON Lines: one object a
/// line, told by a line among its first three that holds a whole object
/// (`{…}`, not parsed: it may be too large itself). A pretty-printed
/// document opens with `{` alone, and is one document too large.
fn looks_like_json_lines(text: &str) -> bool {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first: Vec<&str> = lines.by_ref().take(3).collect();
    first.first().is_some_and(|l| l.starts_with('{'))
        && (first.len() > 1 || lines.next().is_some())
        && first
            .iter()
            .any(|l| l.len() > 1 && l.starts_with('{') && l.ends_with('}'))
}

/// One document per non-blank line.
pub fn json_lines(text: &str, max_bytes: usize) -> Vec<Doc<'_>> {
    json_lines_parsed_by(text, max_bytes, super::strict::parse)
}

/// [`json_lines`], each line parsed by `parse` (say, for a few fields only).
pub fn json_lines_parsed_by(
    text: &str,
    max_bytes: usize,
    parse: impl Fn(&str) -> Result<Value, serde_json::Error> + Sync,
) -> Vec<Doc<'_>> {
    let mut start = 0;
    let lines: Vec<(usize, usize, &str)> = text
        .split('\n')
        .enumerate()
        .map(|(i, line)| {
            let at = start;
            start += line.len() + 1;
            (i, at, line)
        })
        .filter(|(_, _, l)| !l.trim().is_empty())
        .collect();
    // Parsing is most of the cost of reading: on every core, in line order.
    crate::parallel::map_owned(lines, |(i, start, line)| Doc {
        start,
        ..parse_line_by(line, i + 1, max_bytes, &parse)
    })
}

/// Parses one line of JSON Lines (line numbers 1-based); its `start` is 0.
pub fn parse_line(line: &str, number: usize, max_bytes: usize) -> Doc<'_> {
    parse_line_by(line, number, max_bytes, super::strict::parse)
}

/// [`parse_line`], parsed by `parse` (say, for a few fields only).
pub fn parse_line_by(
    line: &str,
    number: usize,
    max_bytes: usize,
    parse: impl Fn(&str) -> Result<Value, serde_json::Error>,
) -> Doc<'_> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let value = if line.len() > max_bytes {
        Err(SyntaxError {
            too_large: true,
            message: too_large(line.len(), max_bytes),
            line: 1,
            column: 1,
        })
    } else {
        parse(line).map_err(|e| syntax_error(&e))
    };
    Doc {
        value,
        text: line,
        start: 0,
        line_offset: number - 1,
        first_column: 0,
        line: number,
        end_line: number,
        bytes: line.len(),
    }
}

/// The message for a document over the size limit.
pub fn too_large(size: usize, max: usize) -> String {
    format!("message of {size} bytes is over the limit of {max} bytes (--max-message-bytes)")
}

fn syntax_error(e: &serde_json::Error) -> SyntaxError {
    let message = e.to_string();
    let message = message
        .rsplit_once(" at line ")
        .map_or(message.clone(), |(m, _)| m.to_string());
    SyntaxError {
        too_large: false,
        message,
        line: e.line().max(1),
        column: e.column().max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_knows_where_it_starts() {
        for text in [
            "{\"a\": 1}",
            "[\n {\"a\": 1},\n  {\"b\": [2]}\n]",
            "{\"a\": 1}\r\n\n  {\"b\": 2}\n{bad\n",
        ] {
            for doc in split(text, 1 << 20) {
                assert_eq!(&text[doc.start..doc.start + doc.text.len()], doc.text);
            }
        }
    }

    #[test]
    fn object_array_and_lines() {
        assert_eq!(split("{\"a\": 1}", 1 << 20).len(), 1);
        let arr = split("[\n {\"a\": 1},\n {\"b\": 2}\n]", 1 << 20);
        assert_eq!(arr.iter().map(|d| d.line).collect::<Vec<_>>(), vec![2, 3]);
        let lines = split("{\"a\": 1}\n\n{\"b\": 2}\n{bad\n", 1 << 20);
        assert_eq!(
            lines.iter().map(|d| d.line).collect::<Vec<_>>(),
            vec![1, 3, 4]
        );
        assert!(lines[2].value.is_err());
    }

    #[test]
    fn array_elements_are_placed_and_limited_one_by_one() {
        let text = "[{\"a\": 1}, {\"b\": \"long long long\"},\n  {\"c\": [1 2]}]";
        let docs = split(text, 20);
        assert_eq!(docs.len(), 3);
        assert!(docs[0].value.is_ok());
        assert_eq!((docs[1].line, docs[1].first_column), (1, 11));
        assert!(docs[1].value.as_ref().unwrap_err().too_large);
        let e = docs[2].value.as_ref().unwrap_err();
        assert_eq!((docs[2].line, docs[2].first_column), (2, 2));
        assert_eq!((e.line, e.column), (1, 10), "{}", e.message);
        // A malformed array is parsed whole, for its error.
        let bad = split("[{\"a\": 1},]", 1 << 20);
        assert_eq!(bad.len(), 1);
        assert!(bad[0].value.is_err());
    }

    #[test]
    fn syntax_errors_keep_line_and_column() {
        let docs = split("{\n  \"a\": 1,\n  \"b\": [1 2]\n}", 1 << 20);
        let e = docs[0].value.as_ref().unwrap_err();
        assert_eq!((e.line, e.column), (3, 11), "{}", e.message);
    }

    #[test]
    fn a_pretty_document_too_large_is_one_document_too_large_not_lines() {
        let pretty = format!(
            "{{\n  \"a\": \"{}\",\n  \"b\": {{\n    \"c\": 1\n  }}\n}}\n",
            "x".repeat(100)
        );
        let docs = split(&pretty, 50);
        assert_eq!(docs.len(), 1);
        let e = docs[0].value.as_ref().unwrap_err();
        assert!(e.too_large, "{}", e.message);
        // JSON Lines with a broken first line are still lines.
        let lines = split("{bad\n{\"a\": 1}\n{\"b\": 2}\n", 5);
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn oversized_lines_are_refused_without_parsing() {
        let big = format!("{{\"a\": \"{}\"}}\n{{\"b\": 1}}\n", "x".repeat(100));
        let docs = split(&big, 50);
        assert!(
            docs[0]
                .value
                .as_ref()
                .unwrap_err()
                .message
                .contains("over the limit")
        );
        assert!(docs[1].value.is_ok());
    }
}
