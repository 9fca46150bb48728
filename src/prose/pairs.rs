//! Pairs to judge, read from JSON Lines: one `{"original": …, "decoded": …}`
//! object a line, for `msp judge --pairs` (a corpus judged in one run).

use serde::Deserialize;

/// One pair, the line it was written on (1-based) and the name its writer
/// gave it, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    pub line: usize,
    pub original: String,
    pub decoded: String,
    pub id: Option<serde_json::Value>,
}

/// Why a line is not a pair: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {why}")]
pub struct PairError {
    pub line: usize,
    pub column: usize,
    pub why: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    original: String,
    decoded: String,
    /// A name for the pair, given back with its verdict; not judged.
    id: Option<serde_json::Value>,
}

/// Every pair of a JSON Lines text, blank lines passed over; the first line
/// that is not a pair is an error naming it, and no pair is returned.
pub fn read(text: &str) -> Result<Vec<Pair>, PairError> {
    let mut pairs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let written: Written = serde_json::from_str(line).map_err(|e| PairError {
            line: number,
            column: e.column().max(1),
            why: reason(&e),
        })?;
        pairs.push(Pair {
            line: number,
            original: written.original,
            decoded: written.decoded,
            id: written.id,
        });
    }
    Ok(pairs)
}

/// serde_json's message without its own "at line 1 column N" (the line is
/// the file's, given beside it).
fn reason(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let why = match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message,
    };
    format!("{why} (each line is one object: {{\"original\": \"…\", \"decoded\": \"…\"}})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_line_and_passes_over_blank_ones() {
        let text = "{\"original\": \"Deploy at 14:00\", \"decoded\": \"Deploy at 16:00\"}\r\n\n  \n{\"decoded\": \"b\", \"original\": \"a\", \"id\": 7}\n";
        let pairs = read(text).expect("pairs");
        assert_eq!(
            pairs,
            vec![
                Pair {
                    line: 1,
                    original: "Deploy at 14:00".into(),
                    decoded: "Deploy at 16:00".into(),
                    id: None,
                },
                Pair {
                    line: 4,
                    original: "a".into(),
                    decoded: "b".into(),
                    id: Some(7.into()),
                },
            ]
        );
        assert_eq!(read("").expect("no pairs"), Vec::new());
    }

    #[test]
    fn a_line_that_is_not_a_pair_is_named_with_its_column() {
        let cases = [
            ("{\"original\": \"a\"}", 1, "missing field `decoded`"),
            (
                "{\"original\": \"a\", \"decode\": \"b\"}",
                1,
                "unknown field `decode`",
            ),
            (
                "{\"original\": \"a\", \"decoded\": \"b\", \"original\": \"c\"}",
                1,
                "duplicate field `original`",
            ),
            (
                "{\"original\": 1, \"decoded\": \"b\"}",
                1,
                "expected a string",
            ),
            ("{\"original\": \"a\", \"decoded\": \"b\"", 1, "EOF"),
            ("[\"a\", \"b\"]", 1, "expected struct"),
        ];
        for (line, at, wanted) in cases {
            let text = format!("{{\"original\": \"x\", \"decoded\": \"y\"}}\n{line}\n");
            let err = read(&text).expect_err(line);
            assert_eq!(err.line, 2, "{line}");
            assert!(err.column >= at, "{line}: {err}");
            assert!(err.why.contains(wanted), "{line}: {err}");
            assert!(!err.why.contains("at line 1"), "{line}: {err}");
        }
        let err = read("{\"original\": \"a\", \"decoded\": 5}").expect_err("a number");
        assert_eq!((err.line, err.column), (1, 30), "{err}"); // the 5
    }
}
