//! The lexical judge: how alike two texts are by their content words and
//! character trigrams. It rewards shared wording, not shared meaning.

use std::collections::HashMap;

use super::backend::cosine;
use super::brief;

/// Lexical similarity in [0, 1]: the mean of word and character-trigram
/// cosine similarities.
pub fn similarity(a: &str, b: &str) -> f64 {
    // On the content words: filler says nothing about meaning, and a
    // telegraphic signal leaves it out.
    let (ta, tb) = (brief::telegraphic(a), brief::telegraphic(b));
    let (a, b) = if ta.is_empty() || tb.is_empty() {
        (a, b)
    } else {
        (ta.as_str(), tb.as_str())
    };
    let words = cosine_of(&word_counts(a), &word_counts(b));
    let (trigrams_a, trigrams_b) = (trigram_counts(a), trigram_counts(b));
    // Texts of a word or two shorter than three characters have no
    // trigrams: their words alone say how alike they are ("a b" against
    // itself is 1, not the mean of 1 and 0).
    if trigrams_a.is_empty() && trigrams_b.is_empty() {
        return words.clamp(0.0, 1.0);
    }
    let trigrams = cosine_of(&trigrams_a, &trigrams_b);
    ((words + trigrams) / 2.0).clamp(0.0, 1.0)
}

fn word_counts(text: &str) -> HashMap<String, f64> {
    let mut counts = HashMap::new();
    for w in text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        *counts.entry(w.to_string()).or_insert(0.0) += 1.0;
    }
    counts
}

fn trigram_counts(text: &str) -> HashMap<String, f64> {
    let normal: Vec<char> = text
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect();
    let mut counts = HashMap::new();
    for w in normal.windows(3) {
        *counts.entry(w.iter().collect::<String>()).or_insert(0.0) += 1.0;
    }
    counts
}

fn cosine_of(a: &HashMap<String, f64>, b: &HashMap<String, f64>) -> f64 {
    let keys: Vec<&String> = a
        .keys()
        .chain(b.keys().filter(|k| !a.contains_key(*k)))
        .collect();
    let va: Vec<f64> = keys
        .iter()
        .map(|k| a.get(*k).copied().unwrap_or(0.0))
        .collect();
    let vb: Vec<f64> = keys
        .iter()
        .map(|k| b.get(*k).copied().unwrap_or(0.0))
        .collect();
    cosine(&va, &vb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarity_is_bounded_and_reflexive() {
        assert!((similarity("the same words", "the same words") - 1.0).abs() < 1e-9);
        // Too short for a trigram, still the same text.
        assert!((similarity("a b", "a b") - 1.0).abs() < 1e-9);
        assert!(similarity("a b", "c d") < 0.5);
        assert_eq!(similarity("", "anything"), 0.0);
        let s = similarity("deploy the api", "deploy the web app");
        assert!(s > 0.3 && s < 1.0, "{s}");
    }
}
