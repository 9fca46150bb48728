//! The fact check per kind, and measured on generated pairs: a sentence
//! with one fact (or its negation) changed must be caught; a paraphrase
//! that changes none must pass.

use super::*;
use crate::prose::meaning::polarity_issue;

fn keys(text: &str) -> Vec<(Kind, String)> {
    facts(text).into_iter().map(|f| (f.kind, f.key)).collect()
}

#[test]
fn numbers_keep_their_units_and_spellings_compare_alike() {
    assert_eq!(
        keys("Cut it to 250 ms, then 1,500 users and 20% and $40."),
        vec![
            (Kind::Number, "250 ms".into()),
            (Kind::Number, "1500 users".into()),
            (Kind::Number, "20 %".into()),
            (Kind::Number, "$40".into()),
        ]
    );
    assert_eq!(keys("three retries"), keys("3 retries"));
    assert_eq!(keys("wait 5 seconds"), keys("wait 5 sec"));
    assert!(fact_issues("Retry 3 times.", "Retry three times.").is_empty());
    let issues = fact_issues("Set the timeout to 250 ms.", "Set the timeout to 500 ms.");
    assert_eq!(issues, vec!["Fact changed: the number `250` became `500`"]);
}

#[test]
fn times_and_dates_in_their_usual_spellings() {
    assert_eq!(keys("at 3pm"), keys("at 15:00"));
    assert_eq!(keys("at 3 pm"), keys("at 15:00"));
    assert_eq!(
        keys("Ship it on March 3rd"),
        vec![(Kind::Date, "03-03".into())]
    );
    assert_eq!(
        keys("by 2025-10-09"),
        vec![(Kind::Date, "2025-10-09".into())]
    );
    assert_eq!(keys("until Friday"), keys("until friday"));
    let issues = fact_issues("Deploy at 14:00 on Friday.", "Deploy at 16:00 on Friday.");
    assert_eq!(
        issues,
        vec!["Fact changed: the time `14:00` became `16:00`"]
    );
    // "may" is a month only before a day.
    assert!(keys("it may fail").is_empty());
    // A count after a month is no day of it, nor a number past a comma.
    let march = (Kind::Date, "03".to_string());
    assert_eq!(
        keys("for March 11 million rows"),
        vec![march.clone(), (Kind::Number, "11".into())]
    );
    assert_eq!(
        keys("In March, 11 people left"),
        vec![march, (Kind::Number, "11".into())]
    );
    assert!(
        fact_issues(
            "In March that is 11 million rows.",
            "March 11 million rows."
        )
        .is_empty()
    );
}

/// A sentence ends at the last word a fact takes: the word after "every
/// 20 minutes." opens a sentence (and a capitalised opener is no name).
#[test]
fn a_sentence_ends_after_a_number_and_its_unit() {
    assert_eq!(
        keys("It runs every 20 minutes. For each option, say why."),
        vec![(Kind::Number, "20 min".into())]
    );
    assert!(
        fact_issues(
            "Every 20 minutes. For each option, say.",
            "Every 20 minutes. Option say."
        )
        .is_empty()
    );
}

#[test]
fn names_identifiers_paths_and_urls() {
    assert_eq!(
        keys("Ask Priya to check orders_v2, PROJ-123, src/main.rs and https://example.com/x."),
        vec![
            (Kind::Name, "priya".into()),
            (Kind::Name, "orders_v2".into()),
            (Kind::Name, "proj-123".into()),
            (Kind::Name, "src/main.rs".into()),
            (Kind::Name, "https://example.com/x".into()),
            // A list: an item that is a name is checked as a name.
            (Kind::Item, "check order v2".into()),
        ]
    );
    // A capitalised word opening a sentence is not a name; an acronym is.
    assert_eq!(
        keys("Deploy the API. Then stop."),
        vec![(Kind::Name, "api".into())]
    );
    let issues = fact_issues(
        "Migrate orders_v2 tonight.",
        "Migrate the orders table tonight.",
    );
    assert_eq!(
        issues,
        vec!["Fact missing: the name `orders_v2` is not in the decoded text"]
    );
    // A name that opens a sentence before an auxiliary is its subject.
    assert_eq!(
        keys("Priya is looking at it. Tom is changing the flow. Nothing is blocked."),
        vec![(Kind::Name, "priya".into()), (Kind::Name, "tom".into())]
    );
    assert!(keys("It is done. This is fine. Something has changed. Deploy it.").is_empty());
    // A message's manner is no name: "FYI", "ASAP" (but "MFA" is one).
    assert_eq!(
        keys("FYI: the window moved. Fix it ASAP, with MFA."),
        vec![(Kind::Name, "mfa".into())]
    );
    assert_eq!(
        fact_issues("Tom is changing the flow.", "Someone is changing the flow."),
        vec!["Fact missing: the name `Tom` is not in the decoded text"]
    );
    // A name that opens a sentence of the decoding is still there.
    assert!(fact_issues("Tell Alice about it.", "Alice should be told about it.").is_empty());
}

/// Sentences with slots for a number, a time, a date, a person and an
/// identifier ({N} {T} {D} {P} {I}).
const TEMPLATES: &[&str] = &[
    "Deploy the {I} service at {T} on {D}.",
    "The error rate rose to {N} after {P} merged the change.",
    "Please ask {P} to review {I} before {D}.",
    "Cut the timeout to {N} and restart {I} at {T}.",
    "{P} reported that {N} failed on {D}.",
    "Move the {I} table to the new cluster by {D}, then tell {P}.",
    "Keep the retry budget at {N} for the {I} job.",
    "The meeting with {P} moved from {T} to the afternoon.",
    "Do not touch {I} until {P} signs off on {D}.",
    "We need {N} more before {D}, so ping {P} at {T}.",
    "Summarize the incident in {I} for {P} by {T}.",
    "Never raise the limit above {N} without asking {P}.",
];
const NUMBERS: &[&str] = &[
    "250 ms",
    "12%",
    "1,500 users",
    "$40",
    "3 hours",
    "99.9%",
    "42 requests",
];
const TIMES: &[&str] = &["14:00", "9:30am", "3pm", "17:45"];
const DATES: &[&str] = &["Friday", "2025-10-09", "March 3", "Monday"];
const PEOPLE: &[&str] = &["Alice", "Priya", "Okafor", "Marta", "Kenji"];
const IDS: &[&str] = &[
    "orders_v2",
    "PROJ-123",
    "auth_service",
    "getUserById",
    "config.yaml",
];
/// What replaces a fact when it is dropped.
const DROPPED: [(&str, &str); 5] = [
    ("{N}", "a few"),
    ("{T}", "later"),
    ("{D}", "soon"),
    ("{P}", "the team"),
    ("{I}", "the system"),
];
/// Rewordings that keep every fact.
const PARAPHRASES: &[(&str, &str)] = &[
    ("Deploy", "Ship"),
    ("Please ask", "Could you ask"),
    ("rose to", "climbed to"),
    ("Cut", "Reduce"),
    ("restart", "reboot"),
    ("reported that", "said that"),
    ("Move", "Migrate"),
    ("then tell", "and then inform"),
    ("Keep", "Hold"),
    ("moved from", "was moved from"),
    ("Do not touch", "Don't touch"),
    ("We need", "We still need"),
    ("Summarize", "Write a summary of"),
    ("Never raise", "Do not ever raise"),
];

fn fill(template: &str, pick: usize) -> String {
    template
        .replace("{N}", NUMBERS[pick % NUMBERS.len()])
        .replace("{T}", TIMES[pick % TIMES.len()])
        .replace("{D}", DATES[pick % DATES.len()])
        .replace("{P}", PEOPLE[pick % PEOPLE.len()])
        .replace("{I}", IDS[pick % IDS.len()])
}

fn caught(original: &str, changed: &str) -> bool {
    !fact_issues(original, changed).is_empty() || polarity_issue(original, changed).is_some()
}

/// The figures in docs/msp.md: every template with several fillings; each
/// fact changed to another of its kind, dropped, or its negation flipped
/// (caught?), and each paraphrase (passed?).
#[test]
fn the_fact_check_catches_changes_and_passes_paraphrases() {
    let (mut changes, mut missed) = (0usize, Vec::new());
    let (mut rewordings, mut alarms) = (0usize, Vec::new());
    for template in TEMPLATES {
        for pick in 0..6 {
            let original = fill(template, pick);
            // One fact changed to another value of its kind, or dropped.
            for (slot, values) in [
                ("{N}", NUMBERS),
                ("{T}", TIMES),
                ("{D}", DATES),
                ("{P}", PEOPLE),
                ("{I}", IDS),
            ] {
                if !template.contains(slot) {
                    continue;
                }
                let other = values[(pick + 1) % values.len()];
                let changed = fill(&template.replace(slot, other), pick);
                let dropped_word = DROPPED.iter().find(|(s, _)| *s == slot).map(|(_, w)| *w);
                let dropped = fill(&template.replace(slot, dropped_word.unwrap_or("")), pick);
                for variant in [changed, dropped] {
                    changes += 1;
                    if !caught(&original, &variant) {
                        missed.push(format!("{original} → {variant}"));
                    }
                }
            }
            // The negation flipped.
            let flipped = if original.starts_with("Do not ") {
                Some(original.replacen("Do not touch", "Touch", 1))
            } else if original.starts_with("Never ") {
                Some(original.replacen("Never raise", "Raise", 1))
            } else {
                original
                    .starts_with("Deploy ")
                    .then(|| original.replacen("Deploy", "Do not deploy", 1))
            };
            if let Some(flipped) = flipped {
                changes += 1;
                if !caught(&original, &flipped) {
                    missed.push(format!("{original} → {flipped}"));
                }
            }
            for (from, to) in PARAPHRASES {
                if original.contains(from) {
                    rewordings += 1;
                    let reworded = original.replacen(from, to, 1);
                    if caught(&original, &reworded) {
                        alarms.push(format!(
                            "{original} → {reworded}: {:?}",
                            fact_issues(&original, &reworded)
                        ));
                    }
                }
            }
        }
    }
    let catch_rate = 1.0 - missed.len() as f64 / changes as f64;
    let alarm_rate = alarms.len() as f64 / rewordings as f64;
    eprintln!(
        "fact check: {} of {changes} changes caught ({:.1}%), {} false alarms in {rewordings} paraphrases ({:.1}%)",
        changes - missed.len(),
        catch_rate * 100.0,
        alarms.len(),
        alarm_rate * 100.0
    );
    assert!(changes > 300 && rewordings > 60, "{changes} {rewordings}");
    assert!(catch_rate >= 0.95, "missed: {missed:#?}");
    assert!(alarm_rate <= 0.05, "false alarms: {alarms:#?}");
}

#[test]
fn a_fact_only_the_decoding_states_is_added() {
    assert_eq!(
        fact_issues(
            "Deploy the billing API at 14:00.",
            "Deploy the billing API at 14:00, then drop orders_v2 at 16:00.",
        ),
        [
            "Fact added: the name `orders_v2` is not in the original",
            "Fact added: the time `16:00` is not in the original",
        ]
    );
    // A changed fact is said once, as changed, not as lost and added.
    assert_eq!(
        fact_issues("Retry 3 times.", "Retry 5 times."),
        ["Fact changed: the number `3` became `5`"]
    );
    // A name the original writes in lower case or at a sentence's start,
    // a number with its unit where the original gave it bare, a spelling
    // of the same number: all given.
    assert!(fact_issues("ask the api team about it.", "Ask the API team about it.").is_empty());
    assert!(fact_issues("Alice asked for it.", "Send it to Alice.").is_empty());
    assert!(fact_issues("Retry 3 times.", "Retry three times.").is_empty());
    assert!(fact_issues("Keep 42.", "Keep 42 requests.").is_empty());
    // A negation said twice is no negation added: the decoder writes its
    // target in the lead and in the clause it comes from.
    assert!(
        fact_issues(
            "Make sure that nobody can read the admin page.",
            "Please evaluate nobody can read the admin page. Make sure that nobody can read the admin page.",
        )
        .is_empty()
    );
    // Not counted: a person or any capitalised word only the decoding
    // names, which its headings make of words that name nothing.
    assert!(fact_issues("Ship it.", "**Release Plan**\n\nShip it, says Dmitri.").is_empty());
    // Said twice, named once.
    assert_eq!(
        fact_issues("Ship it.", "Ship it on Friday, on Friday."),
        ["Fact added: the date `Friday` is not in the original"]
    );
}

/// What a decoding may add: a clause with one fact of each kind the
/// templates do not state, and clauses with none.
const ADDED: &[(&str, &str)] = &[
    ("{N}", "Also keep a budget of 7 retries."),
    ("{T}", "Also check it again at 21:30."),
    ("{D}", "Also check it again on Thursday."),
    ("{I}", "Also update billing_v9 first."),
];
/// Clauses with no fact, and the headings and list marks of a decoding
/// written in Markdown.
const ADDED_WITHOUT_FACTS: &[&str] = &[
    "Also keep it short.",
    "Thanks in advance.",
    "Also tell the team.",
    "\n\n**Next Steps**\n\n- Based on this, keep it short.\n1. To be safe, tell the team.",
    "\n\n### SUMMARY\n\n2) Several people agree.",
];

/// The generated pairs again, each with a clause appended that states a
/// fact the original does not (caught?), or none (passed?).
#[test]
fn the_fact_check_catches_facts_added_and_passes_clauses_without_one() {
    let (mut additions, mut missed) = (0usize, Vec::new());
    let (mut plain, mut alarms) = (0usize, Vec::new());
    for template in TEMPLATES {
        for pick in 0..6 {
            let original = fill(template, pick);
            for (kind, clause) in ADDED {
                additions += 1;
                let longer = format!("{original} {clause}");
                let issues = fact_issues(&original, &longer);
                if !issues.iter().any(|i| i.starts_with("Fact added")) {
                    missed.push(format!("{kind}: {longer}: {issues:?}"));
                }
            }
            for clause in ADDED_WITHOUT_FACTS {
                plain += 1;
                let longer = format!("{original} {clause}");
                if caught(&original, &longer) {
                    alarms.push(format!("{longer}: {:?}", fact_issues(&original, &longer)));
                }
            }
        }
    }
    eprintln!(
        "fact check: {} of {additions} facts added caught, {} false alarms in {plain} clauses without one",
        additions - missed.len(),
        alarms.len()
    );
    assert!(missed.is_empty(), "missed: {missed:#?}");
    assert!(alarms.is_empty(), "false alarms: {alarms:#?}");
}

#[test]
fn a_list_item_dropped_is_missing_by_its_words() {
    let original = "The main changes are offline mode for saved articles, a redesigned \
                    settings screen, and a fix for the crash on Android 14.";
    let issues = fact_issues(
        original,
        "Main changes: fix crash Android 14, offline mode for saved articles.",
    );
    assert_eq!(
        issues,
        ["Fact missing: the list item `a redesigned settings screen` is not in the decoded text"]
    );
    // In other words or another order, every item is there.
    assert!(
        fact_issues(
            original,
            "Changes: Android 14 crash fixed, settings screen redesigned, saved articles offline."
        )
        .is_empty()
    );
}

/// Sentences with a list ({L}), filled from a pool of items.
const LIST_TEMPLATES: &[&str] = &[
    "The release adds {L}.",
    "Please check {L} before the deploy.",
    "The main changes are {L}.",
    "Write tests for {L} by the end of the sprint.",
    "We still need {L}, so the launch moves.",
    "Our dashboard shows {L} for every region.",
];
const ITEMS: &[&str] = &[
    "offline mode",
    "a redesigned settings screen",
    "dark mode support",
    "faster search",
    "a new billing page",
    "export to spreadsheets",
    "push notifications",
    "the audit log",
    "weekly active users",
    "churned accounts",
];

/// A list of these items: "A, B, and C" or, `oxford` off, "A, B and C".
fn listed(items: &[&str], oxford: bool) -> String {
    let (last, rest) = items.split_last().expect("items");
    let comma = if oxford && rest.len() > 1 { "," } else { "" };
    format!("{}{comma} and {last}", rest.join(", "))
}

/// The figures in docs/msp.md for lists: every template with lists of
/// three and four items; each item dropped or changed for another (caught?),
/// and the list reordered, its serial comma toggled or an item's noun made
/// singular (passed?).
#[test]
fn list_items_dropped_or_changed_are_caught_reorderings_are_not() {
    let (mut changes, mut missed) = (0usize, Vec::new());
    let (mut rewordings, mut alarms) = (0usize, Vec::new());
    for template in LIST_TEMPLATES {
        for start in 0..ITEMS.len() {
            for len in [3, 4] {
                let items: Vec<&str> = (0..len).map(|k| ITEMS[(start + k) % ITEMS.len()]).collect();
                let oxford = start % 2 == 0;
                let original = template.replace("{L}", &listed(&items, oxford));
                let unused = ITEMS[(start + len) % ITEMS.len()];
                for at in 0..len {
                    let mut dropped = items.clone();
                    dropped.remove(at);
                    let mut changed = items.clone();
                    changed[at] = unused;
                    for variant in [
                        template.replace("{L}", &dropped.join(" and ")),
                        template.replace("{L}", &listed(&changed, oxford)),
                    ] {
                        changes += 1;
                        if fact_issues(&original, &variant).is_empty() {
                            missed.push(format!("{original} → {variant}"));
                        }
                    }
                }
                let mut reordered = items.clone();
                reordered.reverse();
                let singular: Vec<String> = items
                    .iter()
                    .map(|i| i.strip_suffix('s').unwrap_or(i).to_string())
                    .collect();
                let singular: Vec<&str> = singular.iter().map(String::as_str).collect();
                for variant in [
                    template.replace("{L}", &listed(&reordered, oxford)),
                    template.replace("{L}", &listed(&items, !oxford)),
                    template.replace("{L}", &listed(&singular, oxford)),
                ] {
                    rewordings += 1;
                    let issues = fact_issues(&original, &variant);
                    if !issues.is_empty() {
                        alarms.push(format!("{original} → {variant}: {issues:?}"));
                    }
                }
            }
        }
    }
    eprintln!(
        "list items: {} of {changes} changes caught, {} false alarms in {rewordings} rewordings",
        changes - missed.len(),
        alarms.len(),
    );
    assert!(
        changes >= 400 && rewordings >= 150,
        "{changes} {rewordings}"
    );
    assert!(
        missed.len() as f64 <= 0.05 * changes as f64,
        "missed: {missed:#?}"
    );
    assert!(
        alarms.len() as f64 <= 0.05 * rewordings as f64,
        "false alarms: {alarms:#?}"
    );
}

/// Thousands of facts, each checked through an index (names in one pass
/// over the text): every lost name and every changed number is named, a
/// name kept inside a longer word is not, nor is a fact kept elsewhere.
#[test]
fn thousands_of_facts_are_each_accounted_for() {
    let n = 2_000;
    let original: String = (0..n)
        .map(|i| format!("Server node_{i} handles {} requests at 14:05. ", 1000 + i))
        .collect();
    // Every name lost but node_7's (kept inside a path), number 1003
    // changed, the others said in another order.
    let decoded: String = (0..n)
        .rev()
        .map(|i| match i {
            3 => "A server handles 9999 requests at 14:05. ".to_string(),
            7 => format!("See /srv/node_7x for {} requests at 14:05. ", 1000 + i),
            _ => format!("A server handles {} requests at 14:05. ", 1000 + i),
        })
        .collect();
    let issues = fact_issues(&original, &decoded);
    let missing = issues
        .iter()
        .filter(|i| i.starts_with("Fact missing: the name"))
        .count();
    assert_eq!(missing, n - 1, "{:?}", &issues[..5.min(issues.len())]);
    assert!(!issues.iter().any(|i| i.contains("`node_7`")));
    assert!(
        issues.iter().any(|i| i.contains("`1003` became `9999`")),
        "{:?}",
        &issues[..5]
    );
}
