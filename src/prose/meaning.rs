//! What a similarity score cannot see: a round trip that turned "do not
//! deploy" into "deploy", or a request into a report. Both fail a judgement
//! whatever the score (embeddings, lexical or neural, put a sentence and
//! its negation close together).

pub use super::negation::{FORBIDDING, is_negation, negations};
use crate::protocols::msp::Intent;

/// Why `decoded` says the opposite of `original`: one negates or forbids
/// and the other does not.
pub fn polarity_issue(original: &str, decoded: &str) -> Option<String> {
    let (a, b) = (negations(original), negations(decoded));
    match (a.first(), b.first()) {
        (Some(word), None) => Some(format!(
            "Polarity changed: the original negates or forbids (\"{word}\"), the decoded text does not"
        )),
        (None, Some(word)) => Some(format!(
            "Polarity changed: the decoded text negates or forbids (\"{word}\"), the original does not"
        )),
        _ => None,
    }
}

/// Why a decoded text does something else than its original: the two
/// read as different intents (`original`, `decoded`: each one's reading).
pub fn intent_issue(original: Intent, decoded: Intent) -> Option<String> {
    let (a, b) = (original, decoded);
    (a != b).then(|| {
        format!(
            "Intent changed: the original reads as {}, the decoded text as {}",
            a.as_str(),
            b.as_str()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negation_lost_or_added_is_a_changed_polarity() {
        let issue = polarity_issue(
            "Do not deploy the API to production",
            "Deploy the API to production now",
        );
        assert!(issue.is_some_and(|i| i.contains("\"not\"")));
        assert!(polarity_issue("Deploy it now", "Don’t deploy it").is_some());
        assert!(polarity_issue("Never merge on Friday", "Do not merge on Friday").is_none());
        assert!(polarity_issue("Deploy the API", "Please deploy the API").is_none());
        // "note" and "nothingness" are not negations.
        assert!(negations("note the nothingness").is_empty());
    }

    #[test]
    fn a_request_turned_into_a_report_is_a_changed_intent() {
        let read = super::super::cues::intent_of;
        let issue = |a, b| intent_issue(read(a), read(b));
        assert!(issue("Review the design doc", "Report on the design doc").is_some());
        assert!(issue("Review the design doc", "Please review the design doc").is_none());
    }
}
