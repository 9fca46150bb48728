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
    /// The text in which `pointer_prefix` + a pointer is located.
    pub text: &'a str,
    /// Prepended to pointers (an array element's index).
    pub pointer_prefix: String,
    /// Added to lines located in `text` (JSON Lines: the line's number - 1).
    pub line_offset: usize,
    /// 1-based first and last line in the source.
    pub line: usize,
    pub end_line: usize,
    /// The document's size in bytes.
    pub bytes: usize,
}

/// Splits a text into documents. A text that parses as one JSON array gives
/// its elements; one that fails with trailing data is read as JSON Lines.
pub fn split(text: &str, max_bytes: usize) -> Vec<Doc<'_>> {
    if text.len() > max_bytes && !text.trim_start().starts_with('[') {
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
        Ok(Value::Array(items)) => {
            let ranges = json_locate::array_elements(text);
            items
                .into_iter()
                .zip(ranges)
                .enumerate()
                .map(|(i, (value, (start, end)))| Doc {
                    value: Ok(value),
                    text,
                    pointer_prefix: format!("/{i}"),
                    line_offset: 0,
                    line: json_locate::line_column(text, start).0,
                    end_line: json_locate::line_column(text, end.saturating_sub(1)).0,
                    bytes: end - start,
                })
                .collect()
        }
        Ok(value) => vec![whole(text, Ok(value))],
        Err(e) if e.to_string().starts_with("trailing characters") => json_lines(text, max_bytes),
        Err(e) => vec![whole(text, Err(syntax_error(&e)))],
    }
}

fn whole(text: &str, value: Result<Value, SyntaxError>) -> Doc<'_> {
    Doc {
        value,
        text,
        pointer_prefix: String::new(),
        line_offset: 0,
        line: 1,
        end_line: text.trim_end().matches('\n').count() + 1,
        bytes: text.len(),
    }
}

fn looks_like_json_lines(text: &str) -> bool {
    text.trim_start().starts_with('{') && text.lines().nth(1).is_some()
}

/// One document per non-blank line.
pub fn json_lines(text: &str, max_bytes: usize) -> Vec<Doc<'_>> {
    let lines: Vec<(usize, &str)> = text
        .split('\n')
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    // Parsing is most of the cost of reading: on every core, in line order.
    crate::parallel::map_owned(lines, |(i, line)| parse_line(line, i + 1, max_bytes))
}

/// Parses one line of JSON Lines (line numbers 1-based).
pub fn parse_line(line: &str, number: usize, max_bytes: usize) -> Doc<'_> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let value = if line.len() > max_bytes {
        Err(SyntaxError {
            too_large: true,
            message: too_large(line.len(), max_bytes),
            line: 1,
            column: 1,
        })
    } else {
        super::strict::parse(line).map_err(|e| syntax_error(&e))
    };
    Doc {
        value,
        text: line,
        pointer_prefix: String::new(),
        line_offset: number - 1,
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
    fn syntax_errors_keep_line_and_column() {
        let docs = split("{\n  \"a\": 1,\n  \"b\": [1 2]\n}", 1 << 20);
        let e = docs[0].value.as_ref().unwrap_err();
        assert_eq!((e.line, e.column), (3, 11), "{}", e.message);
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
