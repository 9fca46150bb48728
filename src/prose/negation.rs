//! The words that negate or forbid ("not", "never", "avoid", "-n't"): what
//! the judge's polarity check, the fact check and the encoder's cues all
//! look for, below each of them.

/// Words and phrases that negate or forbid what follows, lowercased.
const NEGATIONS: &[&str] = &[
    "not",
    "no",
    "never",
    "none",
    "nothing",
    "nobody",
    "neither",
    "nor",
    "don't",
    "dont",
    "doesn't",
    "didn't",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "won't",
    "wouldn't",
    "can't",
    "cannot",
    "couldn't",
    "shouldn't",
    "mustn't",
    "haven't",
    "hasn't",
    "hadn't",
    "without",
];

/// Words that forbid, lowercased.
pub const FORBIDDING: &[&str] = &[
    "avoid",
    "forbid",
    "forbidden",
    "prohibit",
    "prohibited",
    "refrain",
];

/// Whether a lowercased word negates or forbids.
pub fn is_negation(word: &str) -> bool {
    NEGATIONS.contains(&word) || FORBIDDING.contains(&word) || word.ends_with("n't")
}

/// The negating words of a text, in order (as written, lowercased; a
/// typographic apostrophe read as `'`).
pub fn negations(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .map(|w| w.to_lowercase().replace('’', "'"))
        .filter(|w| is_negation(w))
        .collect()
}
