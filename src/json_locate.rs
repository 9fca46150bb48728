//! Finds where a JSON Pointer points in JSON source text, so that findings
//! about parsed JSON can name a line and column. Only run for findings, so
//! it favours simplicity over speed: one forward scan, no allocation per value;
//! a [`Locator`] places many findings of one document in one pass.

use std::collections::HashMap;

/// The byte offset of the value at `pointer` (RFC 6901) in `text`, or of the
/// deepest enclosing value that exists (a missing member points at its object).
pub fn locate(text: &str, pointer: &str) -> usize {
    let bytes = text.as_bytes();
    let mut pos = skip_ws(bytes, 0);
    let tokens = pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"));
    for token in tokens {
        match find_child(bytes, pos, &token) {
            Some(child) => pos = child,
            None => break,
        }
    }
    pos.min(text.len())
}

/// The byte range of the value at `pointer` (see [`locate`]).
pub fn locate_span(text: &str, pointer: &str) -> (usize, usize) {
    let start = locate(text, pointer);
    (
        start,
        skip_value(text.as_bytes(), start).clamp(start, text.len()),
    )
}

/// Many pointers into one text: each container's children are listed the
/// first time a pointer passes through it, so placing every finding of a
/// document is linear in its size however many there are (a card's 20,000
/// skills each missing a field), where [`locate`] alone is quadratic.
pub struct Locator<'a> {
    bytes: &'a [u8],
    arrays: HashMap<usize, Vec<usize>>,
    objects: HashMap<usize, Vec<Member>>,
}

/// One member of an object: where its key is written (quotes included)
/// and where its value starts. Keys are compared as written, decoded only
/// when they hold an escape: a document with a finding or two is placed
/// without a string made per key.
struct Member {
    key: (usize, usize),
    escaped: bool,
    value: usize,
}

impl Member {
    fn is(&self, bytes: &[u8], token: &str) -> bool {
        let raw = &bytes[self.key.0..self.key.1];
        if self.escaped {
            std::str::from_utf8(raw)
                .ok()
                .and_then(|raw| serde_json::from_str::<String>(raw).ok())
                .is_some_and(|key| key == token)
        } else {
            // A key cut off by the end of the text names nothing.
            raw.len() >= 2 && raw.ends_with(b"\"") && &raw[1..raw.len() - 1] == token.as_bytes()
        }
    }
}

impl<'a> Locator<'a> {
    pub fn new(text: &'a str) -> Self {
        Locator {
            bytes: text.as_bytes(),
            arrays: HashMap::new(),
            objects: HashMap::new(),
        }
    }

    /// The byte range of the value at `pointer`, as [`locate_span`] gives it.
    pub fn locate_span(&mut self, pointer: &str) -> (usize, usize) {
        let bytes = self.bytes;
        let mut pos = skip_ws(bytes, 0);
        for token in pointer.split('/').skip(1) {
            let token = if token.contains('~') {
                std::borrow::Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
            } else {
                std::borrow::Cow::Borrowed(token)
            };
            match self.child(pos, &token) {
                Some(child) => pos = child,
                None => break,
            }
        }
        let start = pos.min(bytes.len());
        (start, skip_value(bytes, start).clamp(start, bytes.len()))
    }

    fn child(&mut self, pos: usize, token: &str) -> Option<usize> {
        let bytes = self.bytes;
        match bytes.get(pos)? {
            // The first of a repeated key.
            b'{' => self
                .objects
                .entry(pos)
                .or_insert_with(|| members(bytes, pos))
                .iter()
                .find(|m| m.is(bytes, token))
                .map(|m| m.value),
            b'[' => {
                let index: usize = token.parse().ok()?;
                self.arrays
                    .entry(pos)
                    .or_insert_with(|| elements(bytes, pos))
                    .get(index)
                    .copied()
            }
            _ => None,
        }
    }
}

/// The members of the object at `pos`, in order.
fn members(bytes: &[u8], pos: usize) -> Vec<Member> {
    let mut out = Vec::new();
    let mut p = skip_ws(bytes, pos + 1);
    while bytes.get(p) == Some(&b'"') {
        let key_end = skip_string(bytes, p);
        let key = (p, key_end);
        let escaped = memchr::memchr(b'\\', &bytes[p..key_end]).is_some();
        p = skip_ws(bytes, key_end);
        if bytes.get(p) != Some(&b':') {
            break;
        }
        p = skip_ws(bytes, p + 1);
        out.push(Member {
            key,
            escaped,
            value: p,
        });
        p = skip_ws(bytes, skip_value(bytes, p));
        if bytes.get(p) != Some(&b',') {
            break;
        }
        p = skip_ws(bytes, p + 1);
    }
    out
}

/// Where each element starts, of the array at `pos`.
fn elements(bytes: &[u8], pos: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut p = skip_ws(bytes, pos + 1);
    while p < bytes.len() && bytes[p] != b']' {
        out.push(p);
        p = skip_ws(bytes, skip_value(bytes, p));
        if bytes.get(p) != Some(&b',') {
            break;
        }
        p = skip_ws(bytes, p + 1);
    }
    out
}

/// The byte ranges (start, end) of the elements of a top-level JSON array.
pub fn array_elements(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let start = skip_ws(bytes, 0);
    let mut out = Vec::new();
    if bytes.get(start) != Some(&b'[') {
        return out;
    }
    let mut pos = skip_ws(bytes, start + 1);
    while pos < bytes.len() && bytes[pos] != b']' {
        let end = skip_value(bytes, pos);
        out.push((pos, end));
        pos = skip_ws(bytes, end);
        if bytes.get(pos) == Some(&b',') {
            pos = skip_ws(bytes, pos + 1);
        } else {
            break;
        }
    }
    out
}

/// Line and column of increasing byte offsets, each found by scanning only
/// the text since the one before: linear over a whole text, however many
/// offsets (the elements of a large array on one line, say).
pub struct Cursor<'a> {
    text: &'a str,
    at: usize,
    line: usize,
    column: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str) -> Self {
        Cursor {
            text,
            at: 0,
            line: 1,
            column: 1,
        }
    }

    /// 1-based line and column (in characters) of `offset`, which must not
    /// be before the offset asked last (an earlier one gives the last answer).
    pub fn advance_to(&mut self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset > self.at {
            let passed = &self.text[self.at..offset];
            match passed.rfind('\n') {
                Some(last) => {
                    self.line += passed.matches('\n').count();
                    self.column = passed[last + 1..].chars().count() + 1;
                }
                None => self.column += passed.chars().count(),
            }
            self.at = offset;
        }
        (self.line, self.column)
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn find_child(bytes: &[u8], pos: usize, token: &str) -> Option<usize> {
    match bytes.get(pos)? {
        b'{' => {
            let mut p = skip_ws(bytes, pos + 1);
            while bytes.get(p) == Some(&b'"') {
                let key_end = skip_string(bytes, p);
                let raw = std::str::from_utf8(&bytes[p..key_end]).ok()?;
                let matches = if raw.contains('\\') {
                    serde_json::from_str::<String>(raw).ok().as_deref() == Some(token)
                } else {
                    // (An unterminated key has no closing quote to strip.)
                    raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) == Some(token)
                };
                p = skip_ws(bytes, key_end);
                if bytes.get(p) != Some(&b':') {
                    return None;
                }
                p = skip_ws(bytes, p + 1);
                if matches {
                    return Some(p);
                }
                p = skip_ws(bytes, skip_value(bytes, p));
                if bytes.get(p) != Some(&b',') {
                    return None;
                }
                p = skip_ws(bytes, p + 1);
            }
            None
        }
        b'[' => {
            let index: usize = token.parse().ok()?;
            let mut p = skip_ws(bytes, pos + 1);
            for _ in 0..index {
                p = skip_ws(bytes, skip_value(bytes, p));
                if bytes.get(p) != Some(&b',') {
                    return None;
                }
                p = skip_ws(bytes, p + 1);
            }
            (bytes.get(p) != Some(&b']')).then_some(p)
        }
        _ => None,
    }
}

fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while pos < bytes.len() && matches!(bytes[pos], b' ' | b'\t' | b'\n' | b'\r') {
        pos += 1;
    }
    pos
}

/// Past the end of the string starting at `pos` (which holds `"`).
fn skip_string(bytes: &[u8], pos: usize) -> usize {
    let mut p = pos + 1;
    while p < bytes.len() {
        match bytes[p] {
            b'\\' => p += 2,
            b'"' => return p + 1,
            _ => p += 1,
        }
    }
    bytes.len()
}

/// Past the end of the value starting at `pos`.
fn skip_value(bytes: &[u8], pos: usize) -> usize {
    match bytes.get(pos) {
        Some(b'"') => skip_string(bytes, pos),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut p = pos;
            while p < bytes.len() {
                match bytes[p] {
                    b'"' => {
                        p = skip_string(bytes, p);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return p + 1;
                        }
                    }
                    _ => {}
                }
                p += 1;
            }
            bytes.len()
        }
        _ => {
            let mut p = pos;
            while p < bytes.len()
                && !matches!(bytes[p], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                p += 1;
            }
            p
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str =
        "{\n  \"a\": {\"b\": [1, {\"c\": \"x,]}\"}, 3]},\n  \"we\\\"ird\": true,\n  \"é\": 2\n}";

    fn at(pointer: &str) -> (usize, usize) {
        line_column(DOC, locate(DOC, pointer))
    }

    #[test]
    fn finds_members_and_elements() {
        assert_eq!(at(""), (1, 1));
        assert_eq!(at("/a"), (2, 8));
        assert_eq!(at("/a/b/1/c"), (2, 24));
        assert_eq!(at("/a/b/2"), (2, 33));
        assert_eq!(at("/we\"ird"), (3, 14));
        assert_eq!(at("/é"), (4, 8));
    }

    #[test]
    fn missing_members_point_at_the_nearest_parent() {
        assert_eq!(at("/a/zzz"), (2, 8));
        assert_eq!(at("/nope/deeper"), (1, 1));
    }

    #[test]
    fn a_key_cut_inside_a_character_is_no_match() {
        // Found by the fuzzer: `{"¢` sliced the key inside the `¢`.
        assert_eq!(locate("{\"¢", "/x"), 0);
        assert_eq!(locate("{\"¢\u{301}", "/¢"), 0);
    }

    #[test]
    fn the_cursor_agrees_with_line_column() {
        let mut cursor = Cursor::new(DOC);
        for offset in (0..DOC.len()).step_by(3) {
            assert_eq!(
                cursor.advance_to(offset),
                line_column(DOC, offset),
                "{offset}"
            );
        }
    }

    #[test]
    fn top_level_array_elements() {
        let text = " [ {\"a\": [1,2]} ,\n\"s]\", 3 ]";
        let starts = array_elements(text);
        assert_eq!(starts.len(), 3);
        assert_eq!(&text[starts[1].0..starts[1].1], "\"s]\"");
    }

    #[test]
    fn the_locator_agrees_with_locate_span() {
        let pointers = [
            "",
            "/a",
            "/a/b",
            "/a/b/0",
            "/a/b/1",
            "/a/b/1/c",
            "/a/b/2",
            "/a/b/3",
            "/we\"ird",
            "/é",
            "/nope",
            "/a/nope/deeper",
            "/a/b/x",
            "/a/b/1/c/0",
        ];
        let mut locator = Locator::new(DOC);
        // Twice: the second time from the lists the first pass made.
        for pointer in pointers.iter().chain(pointers.iter()) {
            assert_eq!(
                locator.locate_span(pointer),
                locate_span(DOC, pointer),
                "{pointer}"
            );
        }
        let cut = "{\"¢";
        assert_eq!(Locator::new(cut).locate_span("/x"), locate_span(cut, "/x"));
        // A repeated key names its first value; an escaped key its decoding.
        let twice = r#"{"k": 1, "k": 2, "e\u0301": 3, "a~b/c": 4}"#;
        let mut locator = Locator::new(twice);
        for pointer in ["/k", "/e\u{301}", "/a~0b~1c", "/a~b", "/k\""] {
            assert_eq!(
                locator.locate_span(pointer),
                locate_span(twice, pointer),
                "{pointer}"
            );
        }
        assert_eq!(locator.locate_span("/k").0, 6);
    }

    /// Every pointer into a document (and one step past each), as its
    /// members are written compact or pretty.
    fn pointers(value: &serde_json::Value, at: String, out: &mut Vec<String>) {
        out.push(format!("{at}/missing"));
        match value {
            serde_json::Value::Object(map) => {
                for (key, child) in map {
                    let token = key.replace('~', "~0").replace('/', "~1");
                    pointers(child, format!("{at}/{token}"), out);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    pointers(child, format!("{at}/{i}"), out);
                }
                out.push(format!("{at}/{}", items.len()));
            }
            _ => {}
        }
        out.push(at);
    }

    fn document() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            "[a-z\"\\\\é ]{0,6}".prop_map(serde_json::Value::String),
            any::<i32>().prop_map(|n| serde_json::json!(n)),
            Just(serde_json::Value::Null),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
                prop::collection::btree_map("[a-z~/\"\\\\é]{0,3}", inner, 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(crate::proptest_config::config(256))]

        /// The locator, which lists an object's members once, places every
        /// pointer where the one-pass scan does.
        #[test]
        fn the_locator_agrees_with_the_scan(value in document(), pretty in proptest::bool::ANY) {
            let text = if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                serde_json::to_string(&value).unwrap()
            };
            let mut all = Vec::new();
            pointers(&value, String::new(), &mut all);
            let mut locator = Locator::new(&text);
            for pointer in &all {
                proptest::prop_assert_eq!(
                    locator.locate_span(pointer),
                    locate_span(&text, pointer),
                    "{} in {}", pointer, text
                );
            }
        }
    }
}
