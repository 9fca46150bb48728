//! What two parts of a note say alike, said once: the unit two numbers
//! share ("212 minutes against 148 minutes" → "212 against 148 minutes"),
//! and the subject two clauses in a row open with ("the cache is warm" and
//! "the cache hit rate is 90%" → one note). Each saves a few tokens and
//! keeps every fact: a number written without the unit a neighbour gives
//! it reads as the same fact to the judge ([`super::facts`]).

use std::borrow::Cow;

/// Words that join two quantities of one kind (a range, a comparison, a
/// choice) and that a telegraphic note keeps between numbers: "and",
/// "of" or "from" would go, and "4 and 6 days" would read "4 6 days".
const JOINING: &[&str] = &["to", "against", "vs", "vs.", "versus", "or", "than"];

/// Whether `between` joins two quantities: one joining word, or
/// "compared with" / "compared to".
fn joins(between: &[&str]) -> bool {
    let lower: Vec<String> = between.iter().map(|w| w.to_lowercase()).collect();
    match lower.as_slice() {
        [one] => JOINING.contains(&one.as_str()),
        [compared, with] => compared == "compared" && (with == "with" || with == "to"),
        _ => false,
    }
}

/// `text` with the unit of a number left out where the next number, a
/// joining word or two on, has the same unit ("3 hours to 11 hours" → "3
/// to 11 hours"; "212 minutes, against 148 minutes" → "212 against 148
/// minutes"). A unit is a word of letters after a number; anything else
/// between the two quantities, or two different units, leaves both.
pub fn shared_units(text: &str) -> Cow<'_, str> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut dropped = vec![false; words.len()];
    for i in 0..words.len() {
        let Some(unit) = unit_after_number(&words, i) else {
            continue;
        };
        // The unit may carry the comma that ends its clause ("212
        // minutes, against 148 minutes"): it goes with the unit.
        let joined = (1..=2).any(|n| {
            let next = i + 2 + n;
            next + 1 < words.len()
                && joins(&words[i + 2..next])
                && unit_after_number(&words, next) == Some(unit)
        });
        if joined {
            dropped[i + 1] = true;
        }
    }
    if !dropped.contains(&true) {
        return Cow::Borrowed(text);
    }
    let kept: Vec<&str> = words
        .iter()
        .zip(&dropped)
        .filter(|(_, dropped)| !**dropped)
        .map(|(w, _)| *w)
        .collect();
    Cow::Owned(kept.join(" "))
}

/// The unit after the number `words[at]`: the next word, when it is all
/// letters (a stop after it allowed, and left out of what is returned).
fn unit_after_number<'a>(words: &[&'a str], at: usize) -> Option<&'a str> {
    let number = words.get(at)?;
    let unit = words.get(at + 1)?;
    let is_number = number.chars().next().is_some_and(|c| c.is_ascii_digit())
        && number
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ',' | '.'))
        && !number.ends_with([',', '.']);
    let bare = unit.trim_end_matches([',', '.', ';', ':']);
    let is_unit = !bare.is_empty()
        && bare.chars().all(|c| c.is_ascii_lowercase())
        && !JOINING.contains(&bare);
    (is_number && is_unit).then_some(bare)
}

/// One note of two clauses in a row that open with the same word of
/// three letters or more ("number agents stayed 24" and "number incoming
/// tickets rose 12%" → "number agents stayed 24; incoming tickets rose
/// 12%"), or `None`. A word that names or counts ("API", "3") is a fact
/// each clause states, not a shared subject.
pub fn shared_subject(first: &str, second: &str) -> Option<String> {
    let (head, rest) = second.split_once(' ')?;
    let opens = first.split(' ').next()?;
    let subject = head.len() >= 3
        && head.chars().all(|c| c.is_ascii_lowercase())
        && opens.eq_ignore_ascii_case(head)
        && first.len() > opens.len()
        && !rest.is_empty();
    subject.then(|| format!("{first}; {rest}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_two_joined_numbers_share_is_said_once() {
        let cases = [
            (
                "212 minutes, against 148 minutes in Q2",
                "212 against 148 minutes in Q2",
            ),
            ("from 3 hours to 11 hours", "from 3 to 11 hours"),
            ("2 engineers or 2 engineers", "2 or 2 engineers"),
            (
                "rose 5 points compared with 2 points",
                "rose 5 compared with 2 points",
            ),
            ("4 days or 6 days or 8 days", "4 or 6 or 8 days"),
            ("1,500 users to 2,000 users.", "1,500 to 2,000 users."),
        ];
        for (text, merged) in cases {
            assert_eq!(shared_units(text), merged, "{text}");
        }
    }

    #[test]
    fn different_units_or_other_words_between_leave_both() {
        for text in [
            "250 ms to 250 s",
            "3 hours, then 11 hours",
            "4 days and 6 days",
            "3 hours 11 hours",
            "3 Hours to 11 Hours",
            "3 hours to Q3 hours",
            "v2 users to 3 users",
            "3 hours to 11",
            "3 of 5 checks",
            "5 users with 2 users",
            "5 users compared 2 users",
            "no numbers here",
        ] {
            assert_eq!(shared_units(text), text, "{text}");
        }
    }

    #[test]
    fn clauses_in_a_row_that_open_alike_are_one_note() {
        assert_eq!(
            shared_subject("cache warm", "cache hit rate 90%").as_deref(),
            Some("cache warm; hit rate 90%")
        );
        assert_eq!(
            shared_subject("payments not tested", "payment limits unknown"),
            None
        );
        assert_eq!(shared_subject("API down", "API back 10:20"), None);
        assert_eq!(shared_subject("3 failed", "3 passed"), None);
        assert_eq!(shared_subject("the", "the end"), None);
        assert_eq!(shared_subject("cache warm", "cache"), None);
    }
}
