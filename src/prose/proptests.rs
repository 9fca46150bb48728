//! The MSP spec's correctness properties 2–6, for the offline backend,
//! over generated signals and generated prose (256 cases each).

use proptest::prelude::*;

use super::backend::{self, Backend};
use super::offline::{self, Offline};
use super::pipeline::{self, Settings};
use crate::protocols::msp::MinimalSignal;
use crate::protocols::msp::proptests::signal;
use crate::tokens::Encoding;

/// Prose an agent might send: a mix of words, cues, numbers and punctuation.
fn prose() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        "[a-z]{1,10}",
        "[A-Z][a-z]{1,8}",
        prop::sample::select(vec![
            "analyze",
            "write",
            "review",
            "translate",
            "find",
            "report",
            "delegate",
            "urgent",
            "must",
            "only",
            "by",
            "Friday",
            "200",
            "words",
            "status:",
            "80%",
            "done",
            "?",
            ".",
            "https://example.com/x",
            "plan.md",
            "\n",
            "asap",
            "to",
            "French",
        ])
        .prop_map(str::to_string),
    ];
    prop::collection::vec(word, 1..40)
        .prop_map(|w| w.join(" "))
        .prop_filter("non-empty prose", |s| !s.trim().is_empty())
}

/// Longer prose, in sentences, with facts here and there: numbers with
/// units, times, dates, names and identifiers.
fn prose_with_facts() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        4 => "[a-z]{2,9}",
        1 => prop::sample::select(vec![
            "14:00", "3 GB", "Marta", "orders_v2", "Tuesday", "42", "0.5%", "PROJ-123",
            "Kafka", "March 3", "seven", "docs/run.md", "250 ms", "not", "must",
        ])
        .prop_map(str::to_string),
    ];
    let sentence = prop::collection::vec(word, 4..16).prop_map(|w| {
        let mut s = w.join(" ");
        s[..1].make_ascii_uppercase();
        s + "."
    });
    prop::collection::vec(sentence, 1..30).prop_map(|s| s.join(" "))
}

/// Sentences of filler words mixed with the words a telegraphic note must
/// keep: negations, numbers, number words and the words of a bound.
fn sentence_with_filler() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        3 => prop::sample::select(vec![
            "the", "a", "to", "of", "at", "up", "in", "one", "than", "more", "most", "least",
            "is", "we", "it", "please", "just", "no", "not", "never", "don't", "do", "can't",
            "without", "two", "twelve", "10,000", "3.5", "90%", "batches", "run", "go",
            "need", "know", "if", "so", "far", "24",
        ])
        .prop_map(str::to_string),
        1 => "[a-z]{2,8}",
    ];
    prop::collection::vec(word, 1..25).prop_map(|w| w.join(" "))
}

/// The words of `text` a telegraphic note keeps whatever else it drops, in
/// order: negations, words with a digit, number words, "than", and "at"
/// before "most" or "least", "to" after "up" or between numbers, "if",
/// "so" before "far", and a filler verb after a negation ("don't need").
fn kept_for_meaning(text: &str) -> Vec<String> {
    let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
    let digits = |w: &str| w.chars().any(|c| c.is_ascii_digit());
    let number = |w: &str| {
        digits(w)
            || [
                "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve",
            ]
            .contains(&w)
    };
    words
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            let next = words.get(i + 1).map(String::as_str);
            let previous = i.checked_sub(1).map(|p| words[p].as_str());
            super::meaning::is_negation(w)
                || number(w)
                || *w == "than"
                || (*w == "at" && matches!(next, Some("most" | "least")))
                || (*w == "to" && previous == Some("up"))
                || (*w == "to" && previous.is_some_and(digits) && next.is_some_and(digits))
                || *w == "if"
                || (*w == "so" && next == Some("far"))
                || (matches!(w.as_str(), "need" | "know" | "do")
                    && previous.is_some_and(super::meaning::is_negation))
        })
        .map(|(_, w)| w.clone())
        .collect()
}

proptest! {
    #![proptest_config(crate::proptest_config::config(256))]

    /// A telegraphic note drops filler only: never a negation, a number,
    /// a number word ("in one go"), "than", a condition's "if", a verb a
    /// negation turns ("don't need"), nor the filler of a bound or range
    /// ("at most 10,000", "up to 68 minutes", "24 to 48 hours").
    #[test]
    fn telegraphic_notes_keep_negations_numbers_and_bounds(text in sentence_with_filler()) {
        let brief = super::brief::telegraphic(&text);
        prop_assert_eq!(kept_for_meaning(&brief), kept_for_meaning(&text), "{} -> {}", text, brief);
    }


    /// Property 2: the encoder turns any non-empty prose into a valid signal.
    #[test]
    fn p2_encoder_produces_valid_msp(text in prose()) {
        let s = backend::encode(&Offline, &text).unwrap();
        let (_, findings) = crate::protocols::msp::check(&s.to_json());
        prop_assert!(findings.iter().all(|f| !f.diagnostic.is_error()), "{findings:?}");
        prop_assert!(!s.target.trim().is_empty());
        // The compact wire form is valid too, and reads back as the signal.
        let wire = s.to_wire();
        let (_, findings) = crate::protocols::msp::check(&wire);
        prop_assert!(findings.iter().all(|f| !f.diagnostic.is_error()), "{findings:?}");
        prop_assert_eq!(MinimalSignal::from_json(&wire).unwrap(), s);
    }

    /// Any text at all, not only agent-like prose, encodes without a panic.
    #[test]
    fn p2_any_unicode_encodes(text in "\\PC{1,80}") {
        if !text.trim().is_empty() {
            let s = backend::encode(&Offline, &text).unwrap();
            prop_assert!(crate::protocols::msp::check(&s.to_json()).1.iter().all(|f| !f.diagnostic.is_error()));
        }
    }

    /// Property 3: the decoder's output is never empty.
    #[test]
    fn p3_decoder_output_is_not_empty(s in signal(), style in prop::sample::select(offline::STYLES.to_vec())) {
        let text = backend::decode(&Offline, &s.to_json(), style).unwrap();
        prop_assert!(!text.trim().is_empty());
    }

    /// Property 4: the decoded text names the intent and the target.
    #[test]
    fn p4_decoder_keeps_intent_and_target(s in signal(), style in prop::sample::select(offline::STYLES.to_vec())) {
        let text = Offline.decode_signal(&s.to_json(), style).unwrap();
        prop_assert!(text.contains(&s.target), "{text}");
        let verb = s.intent.as_str().to_lowercase();
        prop_assert!(text.to_lowercase().contains(&verb), "no `{verb}` in {text}");
    }

    /// Property 5: scores are in [0, 1]; below the threshold, a changed
    /// polarity or a changed intent fails, and nothing else does.
    #[test]
    fn p5_judge_score_bounds(a in ".{0,80}", b in ".{0,80}", threshold in 0.0f64..=1.0) {
        let r = backend::judge(&Offline, &a, &b, threshold).unwrap();
        prop_assert!((0.0..=1.0).contains(&r.similarity_score));
        let same_meaning = crate::prose::meaning::polarity_issue(&a, &b).is_none()
            && crate::prose::meaning::intent_issue(
                crate::prose::cues::intent_of(&a),
                crate::prose::cues::intent_of(&b),
            )
            .is_none()
            && crate::prose::facts::fact_issues(&a, &b).is_empty();
        prop_assert_eq!(r.passed, r.similarity_score >= threshold && same_meaning);
        prop_assert_eq!(r.issues.is_empty(), r.passed);
    }

    /// Property 5b: a text and its negation never pass, whatever the threshold.
    #[test]
    fn p5b_a_negation_never_passes(text in prose(), threshold in 0.0f64..=1.0) {
        let negated = format!("Do not {}", text.trim_start());
        let r = backend::judge(&Offline, &text, &negated, threshold).unwrap();
        let already_negative = !crate::prose::meaning::negations(&text).is_empty();
        prop_assert!(already_negative || !r.passed, "{text} passed against {negated}");
    }

    /// Property 5c: a decoding that loses or changes a number (with its
    /// unit) never passes, whatever the threshold and the rest of the text.
    #[test]
    fn p5c_a_lost_or_changed_number_never_passes(
        text in prose(),
        n in 2u32..100_000,
        unit in prop::sample::select(vec!["ms", "GB", "%", "users", "days"]),
        threshold in 0.0f64..=1.0,
    ) {
        let original = format!("{} within {n} {unit}.", text.trim_end());
        for decoded in [
            format!("{} within {} {unit}.", text.trim_end(), n + 1),
            format!("{} within some {unit}.", text.trim_end()),
        ] {
            let r = backend::judge(&Offline, &original, &decoded, threshold).unwrap();
            prop_assert!(!r.passed, "{original} passed against {decoded}");
        }
    }

    /// A decoding that drops an item of a list never passes, whatever the
    /// threshold; the same items in another order raise no fact issue.
    /// (Words of consonants only: never filler, nor two items alike.)
    #[test]
    fn p5d_a_dropped_list_item_never_passes(
        words in prop::collection::hash_set("[b-df-hj-np-tv-z]{4,8}", 6..15),
        sizes in prop::collection::vec(1usize..=3, 3..6),
        drop in any::<prop::sample::Index>(),
        threshold in 0.0f64..=1.0,
    ) {
        let mut words = words.into_iter();
        let items: Vec<String> = sizes
            .iter()
            .map_while(|&n| {
                let item: Vec<String> = words.by_ref().take(n).collect();
                (item.len() == n).then(|| item.join(" "))
            })
            .collect();
        prop_assume!(items.len() >= 3);
        let list = |items: &[String]| {
            let (last, rest) = items.split_last().unwrap();
            format!("Please check {}, and {last} before the release.", rest.join(", "))
        };
        let original = list(&items);
        let mut dropped = items.clone();
        dropped.remove(drop.index(items.len()));
        let decoded = format!("Please check {} before the release.", dropped.join(" and "));
        let r = backend::judge(&Offline, &original, &decoded, threshold).unwrap();
        prop_assert!(!r.passed, "{original} passed against {decoded}");
        let mut reordered = items.clone();
        reordered.rotate_left(1);
        let issues = super::facts::fact_issues(&original, &list(&reordered));
        prop_assert!(issues.is_empty(), "{original}: {issues:?}");
    }

    /// The least detailed candidate loses no fact that the most detailed
    /// (every sentence) keeps: the encoder adds the sentences that state
    /// them before it counts its budget.
    #[test]
    fn the_least_candidate_keeps_every_fact_the_whole_keeps(text in prose_with_facts()) {
        let all = offline::candidates(&text);
        let lost = |s: &MinimalSignal| -> Vec<String> {
            let decoded = offline::decode(&s.to_wire(), "professional");
            super::facts::lost(&text, &decoded).into_iter().map(|f| f.key).collect()
        };
        let least = lost(&all[0]);
        let whole = lost(&all[all.len() - 1]);
        for key in &least {
            prop_assert!(whole.contains(key), "`{key}` lost by the least candidate of {text}");
        }
    }

    /// `msp encode --if-smaller`: what it writes (compact or indented)
    /// costs fewer tokens than the prose, counted on the bytes themselves;
    /// else it writes nothing.
    #[test]
    fn if_smaller_writes_only_bytes_cheaper_than_the_prose(text in prose(), pretty in any::<bool>(), full in any::<bool>()) {
        let Ok(signal) = backend::encode_judged(&Offline, &text, 0.8) else {
            return Ok(());
        };
        let json = if full { signal.to_json() } else { signal.to_wire() };
        let encoding = Encoding::O200kBase;
        let written = pipeline::written(&json, &text, pretty, encoding);
        prop_assert_eq!(written.metrics.signal_tokens, encoding.count(&written.text).max(1));
        if written.metrics.compresses {
            prop_assert!(encoding.count(&written.text) < encoding.count(&text), "{}", written.text);
        }
    }

    /// Property 6: the ratio is signal over original, and counts are positive.
    #[test]
    fn p6_metrics(text in prose()) {
        let settings = Settings { style: "professional".into(), threshold: 0.8, encoding: Encoding::O200kBase, full: false };
        let r = pipeline::process(&Offline, &text, &settings).unwrap();
        let m = &r.metrics;
        prop_assert!(m.original_tokens > 0 && m.signal_tokens > 0 && m.decoded_tokens > 0);
        prop_assert_eq!(m.compression_ratio, m.signal_tokens as f64 / m.original_tokens as f64);
        prop_assert_eq!(m.signal_tokens, Encoding::O200kBase.count(&r.signal.to_string()));
    }

}
