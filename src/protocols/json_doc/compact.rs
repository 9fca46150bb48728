//! A JSON text spaced anew — compact on one line, or indented for people —
//! with every token kept as written: numbers digit for digit, keys in their
//! order, string escapes as they were.
//!
//! What `send` publishes: re-serialising a parsed value instead would turn
//! `12345678901234567890123` into `1.2345678901234568e+22`, `1.50` into
//! `1.5` and reorder the keys, a change the sender never asked for.

use std::borrow::Cow;

/// `text`, a JSON document already parsed, without the whitespace between
/// its tokens. `None` when `text` holds a byte outside a string that no
/// JSON token has (a quote prefix, a code fence) or ends inside a string:
/// the caller then writes the message from its parsed value.
pub fn compact(text: &str) -> Option<Cow<'_, str>> {
    let bytes = text.as_bytes();
    // Built only once a byte must be left out: a document that is already
    // compact is returned as it is.
    let mut out: Option<Vec<u8>> = None;
    let mut kept_to = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' => {
                let buf = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
                buf.extend_from_slice(&bytes[kept_to..i]);
                i += 1;
                kept_to = i;
            }
            b'"' => i = string_end(bytes, i + 1)?,
            b'{' | b'}' | b'[' | b']' | b',' | b':' | b'-' | b'+' | b'.' | b'0'..=b'9' => i += 1,
            // The letters of numbers' exponents and of true, false and null.
            b'e' | b'E' | b't' | b'r' | b'u' | b'f' | b'a' | b'l' | b's' | b'n' => i += 1,
            _ => return None,
        }
    }
    Some(match out {
        None => Cow::Borrowed(text),
        Some(mut buf) => {
            buf.extend_from_slice(&bytes[kept_to..]);
            // Only ASCII whitespace was left out, between tokens: still UTF-8.
            Cow::Owned(String::from_utf8(buf).ok()?)
        }
    })
}

/// `text`, a JSON document already parsed, indented as
/// `serde_json::to_string_pretty` indents (two spaces, `"key": value`, `{}`
/// and `[]` when empty) with its tokens as written. `None` where
/// [`compact`] is.
pub fn pretty(text: &str) -> Option<String> {
    let compact = compact(text)?;
    let bytes = compact.as_bytes();
    let mut out = String::with_capacity(bytes.len() * 2);
    let mut depth = 0usize;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i + 1)?;
                out.push_str(&compact[i..end]);
                i = end;
                continue;
            }
            open @ (b'{' | b'[') => {
                out.push(char::from(open));
                if matches!(bytes.get(i + 1), Some(b'}' | b']')) {
                    out.push(char::from(bytes[i + 1]));
                    i += 1;
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            close @ (b'}' | b']') => {
                depth = depth.checked_sub(1)?;
                newline(&mut out, depth);
                out.push(char::from(close));
            }
            b',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            b':' => out.push_str(": "),
            // What is left are the bytes of numbers and literals: ASCII.
            other => out.push(char::from(other)),
        }
        i += 1;
    }
    Some(out)
}

/// The index just past the closing quote of the string whose text starts
/// at `from`; `None` when the text ends first.
fn string_end(bytes: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let at = from + memchr::memchr2(b'"', b'\\', bytes.get(from..)?)?;
        if bytes[at] == b'"' {
            return Some(at + 1);
        }
        // An escape: the next byte is part of it, whatever it is.
        from = at + 2;
    }
}

#[cfg(test)]
mod tests {
    use super::compact;

    #[test]
    fn tokens_are_kept_as_written_and_whitespace_between_them_dropped() {
        let text = "{\n  \"b\": 1.50,\n  \"a\" : [ 12345678901234567890123 , true, null ],\n  \"s\": \"x  y\\\" \\\\ }\"\n}";
        assert_eq!(
            compact(text).unwrap(),
            r#"{"b":1.50,"a":[12345678901234567890123,true,null],"s":"x  y\" \\ }"}"#
        );
    }

    #[test]
    fn a_compact_document_is_borrowed_as_it_is() {
        let text = r#"{"a":"é ü","b":-1e-7}"#;
        assert!(matches!(compact(text), Some(std::borrow::Cow::Borrowed(t)) if t == text));
    }

    #[test]
    fn text_that_is_not_only_json_tokens_is_refused() {
        for text in [
            "> {\"a\": 1}",
            "```json\n{\"a\": 1}\n```",
            "{\"a\": \"open",
            "{\"a\": \"ends in an escape\\",
            "{\"a\": 1} // note",
        ] {
            assert_eq!(compact(text), None, "{text:?}");
        }
    }

    #[test]
    fn pretty_spacing_is_serde_jsons_with_the_tokens_as_written() {
        // Keys already in serde_json's order, so that only the number it
        // writes again differs.
        let text = r#"{"a":{"n":[1.50,{}],"s":"x, y: {z} \"q\""},"b":[],"e":{}}"#;
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let theirs = serde_json::to_string_pretty(&value).unwrap();
        let ours = super::pretty(text).unwrap();
        assert_eq!(ours.replace("1.50", "1.5"), theirs);
        assert!(
            ours.contains("\"n\": [\n      1.50,\n      {}\n    ]"),
            "{ours}"
        );
        assert_eq!(
            super::pretty(r#"{"z":1,"a":2}"#).unwrap(),
            "{\n  \"z\": 1,\n  \"a\": 2\n}"
        );
        assert_eq!(super::pretty("> {}"), None);
    }

    #[test]
    fn the_compact_text_reads_as_the_same_value() {
        for text in [
            "[1, {\"k\": [\"\\u00e9\", 2.5e+3]}, \"tab\\tin\"]",
            " { \"emoji\" : \"😀 \\ud83d\\ude00\" } ",
            "{}",
        ] {
            let original: serde_json::Value = serde_json::from_str(text).unwrap();
            let compacted: serde_json::Value =
                serde_json::from_str(&compact(text).unwrap()).unwrap();
            assert_eq!(original, compacted, "{text:?}");
        }
    }
}
