//! JSON numbers that a double cannot hold as written. RFC 8785 (JCS), the
//! canonical form signatures cover, writes every number as the double it
//! reads as, and so do most JSON readers (RFC 7493 §2.2: such numbers are
//! not interoperable): `1234567890123456789` becomes `1234567890123456800`.
//! A signature over such a message would cover another number than the
//! one shown, so these numbers are found and named, each by its pointer.

use super::Finding;

/// The finding's code.
pub const CODE: &str = "JSON-INEXACT-NUMBER";

/// Every number of the (already parsed, so well-formed) JSON text whose
/// double is another number than the one written.
pub fn inexact(text: &str) -> Vec<Finding> {
    if !may_hold_inexact(text.as_bytes()) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut walk = Walk {
        bytes: text.as_bytes(),
        text,
        at: 0,
        path: Vec::new(),
    };
    walk.run(&mut out);
    out
}

/// A cheap first look: whether some number outside a string reads as
/// another number. Only a literal of 16 digits or more, or with an
/// exponent, can (15 significant digits always survive the trip), and only
/// those are read; digits inside strings (ids, dates, hex) are passed over.
fn may_hold_inexact(bytes: &[u8]) -> bool {
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => at = after_string(bytes, at + 1),
            b'-' | b'0'..=b'9' => {
                let start = at;
                let mut digits = 0;
                let mut exponent = false;
                while at < bytes.len() {
                    match bytes[at] {
                        b'0'..=b'9' => digits += 1,
                        b'e' | b'E' => exponent = true,
                        b'-' | b'+' | b'.' => {}
                        _ => break,
                    }
                    at += 1;
                }
                if (digits >= 16 || exponent)
                    && std::str::from_utf8(&bytes[start..at])
                        .map_or(true, |literal| reads_otherwise(literal).is_some())
                {
                    return true;
                }
            }
            _ => at += 1,
        }
    }
    false
}

/// The index just past the closing quote of the string whose contents
/// start at `at` (the end of the text if it is not closed).
fn after_string(bytes: &[u8], mut at: usize) -> usize {
    while let Some(offset) = memchr::memchr2(b'"', b'\\', &bytes[at..]) {
        at += offset;
        if bytes[at] == b'"' {
            return at + 1;
        }
        at += 2;
        if at >= bytes.len() {
            return bytes.len();
        }
    }
    bytes.len()
}

enum Step {
    Key(Option<String>),
    Index(usize),
}

struct Walk<'a> {
    bytes: &'a [u8],
    text: &'a str,
    at: usize,
    path: Vec<Step>,
}

impl Walk<'_> {
    fn run(&mut self, out: &mut Vec<Finding>) {
        while self.at < self.bytes.len() {
            let b = self.bytes[self.at];
            match b {
                b'{' => {
                    self.path.push(Step::Key(None));
                    self.at += 1;
                }
                b'[' => {
                    self.path.push(Step::Index(0));
                    self.at += 1;
                }
                b'}' | b']' => {
                    self.path.pop();
                    self.at += 1;
                }
                b',' => {
                    match self.path.last_mut() {
                        Some(Step::Index(i)) => *i += 1,
                        Some(Step::Key(k)) => *k = None,
                        None => {}
                    }
                    self.at += 1;
                }
                b'"' => {
                    let start = self.at;
                    self.skip_string();
                    if let Some(Step::Key(key @ None)) = self.path.last_mut() {
                        let raw = &self.text[start..self.at];
                        *key = Some(serde_json::from_str(raw).unwrap_or_default());
                    }
                }
                b'-' | b'0'..=b'9' => {
                    let start = self.at;
                    while self.at < self.bytes.len()
                        && matches!(
                            self.bytes[self.at],
                            b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'
                        )
                    {
                        self.at += 1;
                    }
                    let literal = &self.text[start..self.at];
                    if let Some(reads_as) = reads_otherwise(literal) {
                        let message = format!(
                            "the number {literal} is not one a double holds: it reads as {reads_as} in JCS and most JSON readers (RFC 7493 §2.2), so a signature cannot cover it as written"
                        );
                        out.push(
                            Finding::warning(self.pointer(), CODE, message).hinted(
                                "write it as a string, or with at most 15 significant digits",
                            ),
                        );
                    }
                }
                _ => self.at += 1,
            }
        }
    }

    fn skip_string(&mut self) {
        self.at += 1;
        while self.at < self.bytes.len() {
            match self.bytes[self.at] {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return;
                }
                _ => self.at += 1,
            }
        }
    }

    fn pointer(&self) -> String {
        let mut out = String::new();
        for step in &self.path {
            out.push('/');
            match step {
                Step::Key(key) => {
                    let key = key.as_deref().unwrap_or_default();
                    out.push_str(&key.replace('~', "~0").replace('/', "~1"));
                }
                Step::Index(i) => out.push_str(&i.to_string()),
            }
        }
        out
    }
}

/// The number a literal reads as, when that is not the literal's value.
fn reads_otherwise(literal: &str) -> Option<String> {
    let Ok(double) = literal.parse::<f64>() else {
        return Some("nothing (it is not a number a double can read)".into());
    };
    if !double.is_finite() {
        return Some(format!("{double}"));
    }
    let shortest = format!("{double:e}");
    if decimal(literal) == decimal(&shortest) {
        None
    } else {
        // The way JCS writes it: ECMAScript's Number-to-String.
        Some(serde_json_canonicalizer::to_string(&double).unwrap_or(shortest))
    }
}

/// A decimal number as (negative, significant digits, exponent of the
/// first digit), so that `1.50e2`, `150` and `150.0` compare equal.
fn decimal(text: &str) -> (bool, String, i64) {
    let negative = text.starts_with('-');
    let text = text.trim_start_matches(['-', '+']);
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: String = format!("{int}{frac}");
    let leading = all.len() - all.trim_start_matches('0').len();
    let digits = all
        .trim_start_matches('0')
        .trim_end_matches('0')
        .to_string();
    if digits.is_empty() {
        return (false, String::new(), 0);
    }
    let point = int.len() as i64 - leading as i64 + exponent;
    (negative, digits, point)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pointers(text: &str) -> Vec<String> {
        inexact(text).into_iter().map(|f| f.pointer).collect()
    }

    #[test]
    fn the_first_look_passes_over_digits_in_strings_only() {
        assert!(!may_hold_inexact(
            br#"{"id": "550e8400-e29b-41d4-a716-446655440000"}"#
        ));
        assert!(!may_hold_inexact(
            br#"{"t": "12345678901234567890", "c": 0.9}"#
        ));
        // Long or exponent numbers a double holds are read, not walked.
        assert!(!may_hold_inexact(
            br#"{"t": "x", "c": 1e5, "d": 0.7234817326364827}"#
        ));
        assert!(may_hold_inexact(
            br#"{"t": "a\"b", "c": 12345678901234567}"#
        ));
        assert!(may_hold_inexact(br#"["\\", 2E400]"#));
        // Unclosed at the end (not reachable after a parse, but no panic).
        assert!(!may_hold_inexact(br#"{"a": "\"#));
    }

    #[test]
    fn numbers_a_double_changes_are_named_by_pointer() {
        assert_eq!(
            pointers(r#"{"a":{"b/c":[1, 1234567890123456789]},"d":0.1}"#),
            vec!["/a/b~1c/1"]
        );
        assert_eq!(pointers(r#"{"x": 9007199254740993}"#), vec!["/x"]);
        assert_eq!(pointers(r#"{"x": 0.30000000000000000001}"#), vec!["/x"]);
        assert_eq!(pointers(r#"{"x": 1e-400}"#), vec!["/x"]);
        assert_eq!(
            pointers(r#"[{"k": "1234567890123456789"}, 2]"#),
            Vec::<String>::new()
        );
        for exact in [
            "9007199254740992",
            "1.5e2",
            "150.000",
            "-0",
            "0.1",
            "1e21",
            "123456789012345",
            "0.30000000000000004",
        ] {
            assert!(pointers(&format!("[{exact}]")).is_empty(), "{exact}");
        }
        // A string that ends in an escaped quote or backslash does not hide
        // the number after it.
        assert_eq!(
            pointers(r#"{"a": "q\"", "b": "\\", "n": 12345678901234567890}"#),
            vec!["/n"]
        );
        let found = inexact(r#"{"n": 1234567890123456789}"#);
        assert!(found[0].diagnostic.message.contains("1234567890123456800"));
    }

    fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            "[0-9a-f\"\\\\ e.-]{0,12}".prop_map(serde_json::Value::String),
            any::<u64>().prop_map(|n| serde_json::json!(n)),
            any::<i32>().prop_map(|n| serde_json::json!(n)),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| serde_json::json!(f)),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
                prop::collection::btree_map("[a-z\"\\\\0-9]{1,4}", inner, 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
        .prop_map(|v| v.to_string())
    }

    proptest::proptest! {
        #![proptest_config(crate::proptest_config::config(500))]

        /// The first look never hides a number the full walk would name.
        #[test]
        fn the_first_look_never_hides_a_finding(text in json_text()) {
            let found = {
                let mut out = Vec::new();
                Walk { bytes: text.as_bytes(), text: &text, at: 0, path: Vec::new() }.run(&mut out);
                out
            };
            proptest::prop_assert!(found.is_empty() || may_hold_inexact(text.as_bytes()), "{}", text);
        }
    }
}
