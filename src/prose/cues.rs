//! How a prose message reads: the intent of its earliest cue word (a
//! question is a QUERY, an event said as done a REPORT, a cue negated, used
//! as a noun or as a question word outside a question is not the action)
//! and the target phrase that goes with it. The offline encoder builds its
//! signal on this; the judge compares the readings of two texts.

use super::negation;
use crate::protocols::msp::Intent;

/// Cues that delegate only when the clause hands the work to someone
/// ("I'm passing the cleanup to you"), not otherwise ("the tests are
/// passing").
const HAND_OFF_ONLY: &[&str] = &["passing"];

/// Whether the clause from `at` hands something over: "… to you",
/// "… over to …".
fn hands_off(lower: &str, at: usize) -> bool {
    let clause = lower[at..]
        .split(['.', ',', ';', '!', '?', '\n'])
        .next()
        .unwrap_or_default();
    [" to you", " over to ", " on to "]
        .iter()
        .any(|to| clause.contains(to))
}

/// Nouns that name a report: "here is the status" hands one over.
const REPORT_NOUNS: &[&str] = &[
    "status",
    "update",
    "report",
    "summary",
    "follow-up",
    "followup",
    "results",
    "findings",
    "postmortem",
    "recap",
    "overview",
    "rundown",
    "progress",
];

/// Whether one of the first four words from `at` (in its clause) names a
/// report.
fn reports_after(lower: &str, at: usize) -> bool {
    lower[at..]
        .split(['.', ',', ';', ':', '!', '?', '\n'])
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .take(4)
        .any(|w| REPORT_NOUNS.contains(&w) || w.ends_with("-status"))
}

/// Cue words of each intent, looked for as whole words; the earliest cue
/// in the text wins. The events ([`EVENTS`]) are REPORT cues too.
const CUES: &[(Intent, &[&str])] = &[
    (
        Intent::Delegate,
        &[
            "delegate",
            "delegating",
            "assign",
            "assigning",
            "hand off",
            "hand over",
            "handing off",
            "handing over",
            "handing",
            // Only as a hand-off ([`HAND_OFF_ONLY`]).
            "passing",
            "take over",
            "forward",
            "dispatch",
            "route",
            "reassign",
        ],
    ),
    (
        Intent::Analyze,
        &[
            "analyze",
            "analyse",
            "investigate",
            "examine",
            "inspect",
            "diagnose",
            "audit",
            "dig into",
            "look into",
            "break down",
            "profile",
            "compare",
            "debug",
            "trace",
        ],
    ),
    (
        Intent::Evaluate,
        &[
            "evaluate",
            "assess",
            "review",
            "rate",
            "score",
            "grade",
            "judge",
            "critique",
            "verify",
            "validate",
            "check",
            "test",
            "benchmark",
            "approve",
            "choose",
            "choosing",
            // "Make sure the tests pass": see that something holds.
            "make sure",
            "make certain",
            "ensure",
        ],
    ),
    (
        Intent::Transform,
        &[
            "convert",
            "translate",
            "transform",
            "rewrite",
            "refactor",
            "summarize",
            "summarise",
            "reformat",
            "migrate",
            "condense",
            "shorten",
            "paraphrase",
            "restructure",
            "port",
            "fix",
            "patch",
            "repair",
            "deploy",
            "roll out",
            "roll back",
            "upgrade",
            "restart",
            // Actions on a system's state: "lock those accounts".
            "lock",
            "unlock",
            "disable",
            "revoke",
            "rotate",
            "suspend",
            // "Status update" reports; "update the document" changes it.
            "update the",
            "update our",
            "update your",
            "update this",
            "update these",
            "update it",
            "update them",
        ],
    ),
    (
        Intent::Generate,
        &[
            "write",
            "generate",
            "create",
            "draft",
            "compose",
            "produce",
            "build",
            "design",
            "implement",
            "prepare",
            "make",
            "develop",
            "plan",
        ],
    ),
    (
        Intent::Query,
        &[
            "find",
            "look up",
            "search",
            "fetch",
            "retrieve",
            "list",
            "what",
            "which",
            "who",
            "where",
            "when",
            "how many",
            "how much",
            "is there",
            "are there",
            "questions about",
            "question about",
        ],
    ),
    (
        Intent::Respond,
        &[
            "in response",
            "responding",
            "replying",
            "reply",
            "respond",
            "answer",
            "here is",
            "here are",
            "as requested",
        ],
    ),
    (
        Intent::Report,
        &[
            "report", "status", "update", "fyi", "alert", "notify", "inform", "we found", "results",
        ],
    ),
];

/// Words that end a target phrase.
pub(super) const STOP: &[&str] = &[
    "for",
    "by",
    "with",
    "to",
    "before",
    "after",
    "within",
    "using",
    "and",
    "so",
    "because",
    "in",
    "on",
    "from",
    "into",
    "that",
    "which",
    "if",
    "then",
    "while",
    "but",
    "as",
    "at",
    "under",
    "without",
    "until",
    "per",
    "via",
    "asap",
    "please",
    "now",
    "today",
    "tomorrow",
    "over",
    "immediately",
    "urgently",
    "quickly",
    "during",
    "since",
    "across",
    "through",
];

/// Words dropped from the start of a target (determiners, pronouns,
/// auxiliaries…): no quantity's unit either.
pub(super) const LEADING: &[&str] = &[
    "for", "to", "the", "a", "an", "our", "your", "my", "this", "these", "those", "that", "their",
    "its", "me", "us", "them", "it", "up", "out", "over", "on", "please", "some", "all", "of",
    "is", "are", "was", "were", "about", "you", "can", "could", "would", "should", "do", "many",
    "much", "there",
];

/// The intent of a text (`lower`: its ASCII lower case, which keeps byte
/// offsets) and its target: the phrase after the cue, or for an event the
/// subject it happened to ("The API went down" → `API`).
pub fn reading(text: &str, lower: &str) -> (Intent, String) {
    let (intent, cue_start, cue_end) = find_intent(text, lower);
    let event = EVENTS.iter().any(|e| lower[cue_start..].starts_with(e));
    let subject = if event {
        subject_before(text, cue_start)
    } else {
        String::new()
    };
    // "Weekly status from the platform team": the report is the target,
    // not who sends it.
    let from_someone = intent == Intent::Report
        && lower[cue_end..]
            .split_whitespace()
            .next()
            .is_some_and(|w| ["from", "by"].contains(&w));
    let target = if !subject.is_empty() {
        subject
    } else if let Some(object) = (lower[cue_start..cue_end] == *"make")
        .then(|| causative(lower, cue_end))
        .flatten()
    {
        text[object].to_string()
    } else if from_someone {
        subject_before(text, cue_end)
    } else {
        let target = find_target(text, cue_end);
        // "Status update on the payments outage": what the update is on.
        let lowered = target.to_ascii_lowercase();
        match lower[cue_end..].find(&lowered) {
            Some(at) if INTENT_NOUNS.contains(&lowered.as_str()) => {
                let after = find_target(text, cue_end + at + lowered.len());
                if after.is_empty() { target } else { after }
            }
            _ => target,
        }
    };
    (intent, target)
}

pub(super) fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive(['.', '!', '?', '\n'])
        .map(str::trim)
        .filter(|s| s.len() > 1)
}

/// The intent a text reads as, by the cues the offline encoder uses.
pub fn intent_of(text: &str) -> Intent {
    find_intent(text, &text.to_ascii_lowercase()).0
}

/// The intent of a text's earliest cue, or None when it has none (the
/// reading then falls back to QUERY for a question, REPORT otherwise).
pub fn cued_intent(text: &str) -> Option<Intent> {
    let (intent, _, end) = find_intent(text, &text.to_ascii_lowercase());
    (end > 0).then_some(intent)
}

/// The words before `at` in its sentence, leading articles and pronouns
/// dropped, at most eight: the subject of an event ("The API went down").
fn subject_before(text: &str, at: usize) -> String {
    let before = &text[..at];
    let sentence = before
        .rsplit(['.', '!', '?', ';', '\n'])
        .next()
        .unwrap_or(before);
    const PRONOUNS: &[&str] = &["i", "we", "you", "they", "he", "she", "it", "someone"];
    let words: Vec<&str> = sentence
        .split_whitespace()
        .skip_while(|w| LEADING.contains(&w.to_lowercase().as_str()))
        .collect();
    // "We finished the migration": the event's target is its object.
    if words
        .iter()
        .all(|w| PRONOUNS.contains(&w.to_lowercase().as_str()))
    {
        return String::new();
    }
    words[words.len().saturating_sub(8)..].join(" ")
}

/// The intent of the earliest cue, and where the cue starts and ends in `text`.
fn find_intent(text: &str, lower: &str) -> (Intent, usize, usize) {
    if let Some(end) = question_word_end(text) {
        return (Intent::Query, 0, end);
    }
    let mut best: Option<(usize, Intent, usize)> = None;
    let events = [(Intent::Report, EVENTS)];
    for (intent, cues) in CUES.iter().chain(&events) {
        for cue in *cues {
            // "Do not deploy …" does not ask to deploy: a negated cue is
            // a constraint, not the action. "The deploy failed": a cue
            // after a determiner is a noun (or, for an event, an
            // adjective: "the failed tests"). "When you have time, …": a
            // question word asks only in a question.
            let at = find_words(lower, cue).find(|&at| {
                // An event after "the X" is said of X ("the deploy failed").
                let noun = after_determiner(lower, at, !EVENTS.contains(cue))
                    && !INTENT_NOUNS.contains(cue);
                let not_asked = QUESTION_WORDS.contains(cue) && !in_question(lower, at);
                let modifier = INTENT_NOUNS.contains(cue)
                    && lower[at + cue.len()..]
                        .split_whitespace()
                        .next()
                        .map(|w| w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
                        .is_some_and(|w| MODIFIED_NOUNS.contains(&w.trim_end_matches('s')));
                let compound = compound_at(lower, cue, at);
                let no_hand_off = HAND_OFF_ONLY.contains(cue) && !hands_off(lower, at);
                let subject = *cue == "results" && phrase_goes_on(lower, at + cue.len());
                let undecided = undecided_at(lower, at);
                !(negated_at(lower, at)
                    || noun
                    || not_asked
                    || modifier
                    || compound
                    || no_hand_off
                    || subject
                    || undecided)
            });
            if let Some(at) = at
                && best.is_none_or(|(b, _, _)| at < b)
            {
                best = Some((at, *intent, at + cue.len()));
            }
        }
    }
    // "Make the script resumable" changes the script; "make a dashboard"
    // makes one.
    if let Some((start, Intent::Generate, end)) = best
        && lower[start..end] == *"make"
        && causative(lower, end).is_some()
    {
        best = Some((start, Intent::Transform, end));
    }
    // "Here is the status for the quarter": a report handed over, not an
    // answer.
    if let Some((start, Intent::Respond, end)) = best
        && lower[start..].starts_with("here ")
        && reports_after(lower, end)
    {
        best = Some((start, Intent::Report, end));
    }
    match best {
        Some((start, intent, end)) => (intent, start, end),
        None if text.trim_end().ends_with('?') => (Intent::Query, 0, 0),
        None => (Intent::Report, 0, 0),
    }
}

/// Endings of the adjectives a causative "make" puts after its object
/// ("resumable", "stateless", "thread-safe"); nouns end so too ("the
/// environment variable", "the config loader"), so the list is short and
/// [`NOUNS_LIKE_ADJECTIVES`] and [`ADJECTIVES`] do the rest.
const ADJECTIVE_ENDINGS: &[&str] = &["able", "ible", "less", "ful", "ous", "safe", "proof"];

/// Nouns with an adjective's ending.
const NOUNS_LIKE_ADJECTIVES: &[&str] = &[
    "variable",
    "variables",
    "deliverable",
    "deliverables",
    "executable",
    "executables",
    "receivable",
    "payable",
    "timetable",
];

/// Adjectives a causative "make" puts after its object that no ending
/// tells: comparatives and a few common ones.
const ADJECTIVES: &[&str] = &[
    "faster",
    "slower",
    "safer",
    "smaller",
    "larger",
    "bigger",
    "cheaper",
    "clearer",
    "shorter",
    "longer",
    "simpler",
    "easier",
    "quicker",
    "cleaner",
    "lighter",
    "better",
    "stricter",
    "idempotent",
    "consistent",
    "transparent",
    "efficient",
    "robust",
    "secure",
    "public",
    "private",
    "optional",
    "mandatory",
    "atomic",
    "deterministic",
    "explicit",
    "async",
    "concurrent",
    "responsive",
];

/// After "make" at `end`: where the object is, of a causative "make the script
/// resumable" (a determiner, one to three words, then an adjective that
/// ends its clause or comes before a stop word), or `None` for a "make"
/// that creates ("make the release notes", "make a dashboard").
fn causative(lower: &str, end: usize) -> Option<std::ops::Range<usize>> {
    const DETERMINERS: &[&str] = &[
        "the", "this", "that", "these", "those", "its", "our", "your", "it", "them",
    ];
    let clause = lower[end..]
        .split(['.', ',', ';', ':', '!', '?', '\n'])
        .next()?;
    let words: Vec<&str> = clause.split_whitespace().collect();
    let determiner = words.first()?;
    if !DETERMINERS.contains(determiner) {
        return None;
    }
    let phrase_end = words
        .iter()
        .position(|w| STOP.contains(w))
        .unwrap_or(words.len());
    let phrase = &words[..phrase_end];
    // "make it faster": the pronoun is the object, alone.
    let object_words = if matches!(*determiner, "it" | "them") {
        1
    } else {
        2
    };
    let longest = if object_words == 1 { 2 } else { 5 };
    if phrase.len() < object_words + 1 || phrase.len() > longest {
        return None;
    }
    let adjective = phrase.last()?;
    let by_ending = ADJECTIVE_ENDINGS
        .iter()
        .any(|e| adjective.ends_with(e) && adjective.len() > e.len() + 2)
        && !NOUNS_LIKE_ADJECTIVES.contains(adjective);
    if !(by_ending || ADJECTIVES.contains(adjective)) {
        return None;
    }
    let first = phrase[if object_words == 1 { 0 } else { 1 }];
    let last = phrase[phrase.len() - 2];
    let from = first.as_ptr() as usize - lower.as_ptr() as usize;
    let to = last.as_ptr() as usize - lower.as_ptr() as usize + last.len();
    Some(from..to)
}

/// Cue words that name a thing together with the word after them: "rate
/// limiting is holding" rates nothing, "the test suite passed" asks for
/// no test.
const COMPOUNDS: &[(&str, &[&str])] = &[
    (
        "rate",
        &["limit", "limits", "limiting", "limiter", "limiters", "card"],
    ),
    (
        "test",
        &[
            "suite", "suites", "coverage", "case", "cases", "data", "plan", "run", "runs",
        ],
    ),
    ("check", &["box", "boxes", "list", "lists", "mark"]),
    ("review", &["board", "comments", "queue"]),
    ("plan", &["b"]),
    // "make sure" is a cue of its own.
    ("make", &["sure", "certain"]),
];

/// Whether the cue at `at` is the first word of one of [`COMPOUNDS`].
fn compound_at(lower: &str, cue: &str, at: usize) -> bool {
    COMPOUNDS.iter().any(|(word, nouns)| {
        *word == cue
            && lower[at + cue.len()..]
                .split_whitespace()
                .next()
                .map(|w| w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
                .is_some_and(|w| nouns.contains(&w))
    })
}

/// A first sentence that is a question ("Is the build green?", "What
/// changed?", but not "Can you review this?", a request): where its first
/// word ends.
fn question_word_end(text: &str) -> Option<usize> {
    const WH: &[&str] = &[
        "what", "which", "who", "whom", "whose", "where", "when", "why", "how",
    ];
    const AUX: &[&str] = &[
        "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could",
        "will", "would", "should", "shall", "may", "might",
    ];
    let first = sentences(text).next()?;
    if !first.ends_with('?') {
        return None;
    }
    let mut words = first.split_whitespace();
    let w0 = words.next()?.to_lowercase();
    let w1 = words.next().unwrap_or("").to_lowercase();
    let query =
        WH.contains(&w0.as_str()) || (AUX.contains(&w0.as_str()) && w1 != "you" && w1 != "we");
    let start = text.find(first)?;
    query.then(|| start + first.split_whitespace().next().map_or(0, str::len))
}

/// The byte offset of `word` in `text` as a whole word (ASCII boundaries).
pub(super) fn find_word(text: &str, word: &str) -> Option<usize> {
    find_words(text, word).next()
}

/// Every whole-word occurrence of `word` in `text`.
pub(super) fn find_words<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let bytes = text.as_bytes();
    text.match_indices(word).map(|(i, _)| i).filter(move |&i| {
        let before = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let end = i + word.len();
        let after = end >= bytes.len() || !bytes[end].is_ascii_alphanumeric();
        before && after
    })
}

/// Report cues that say an event happened: the target is its subject.
const EVENTS: &[&str] = &[
    "failed",
    "broke",
    "crashed",
    "went down",
    "is down",
    "is done",
    "are done",
    "is complete",
    "succeeded",
    "went live",
    "is live",
    "merged",
    "shipped",
    "released",
    "resolved",
    "completed",
    "finished",
    "deployed",
    "reviewed",
    "tested",
];

/// Cues that are nouns and still say their intent: "the status", "the
/// results" report; "a few questions about" asks.
const INTENT_NOUNS: &[&str] = &[
    "report",
    "status",
    "update",
    "results",
    "alert",
    "questions about",
];

/// Nouns that an intent noun only describes ("the status page is
/// updated by hand", "a report template"): then it says no intent.
const MODIFIED_NOUNS: &[&str] = &[
    "page", "code", "bar", "field", "line", "template", "card", "channel",
];

/// Query cues that ask only in a sentence that is a question.
const QUESTION_WORDS: &[&str] = &["what", "which", "who", "where", "when"];

/// Whether a determiner comes right before `at` (`the deploy`, `our
/// review`) or, when asked, one word before it (`the revocation check`).
fn after_determiner(lower: &str, at: usize, or_one_word_before: bool) -> bool {
    const DETERMINERS: &[&str] = &[
        "the", "a", "an", "our", "this", "that", "your", "my", "their", "its", "his", "her",
        "these", "those",
    ];
    // One word may stand between: "the revocation check happens" (but
    // "your help choosing" asks for the choosing).
    let before = &lower[..at];
    let clause = before
        .rsplit([',', ';', '.', '!', '?', '\n'])
        .next()
        .unwrap_or(before);
    let mut words = clause.split_whitespace().rev();
    let last = words.next();
    last.is_some_and(|w| DETERMINERS.contains(&w))
        || (or_one_word_before
            && last.is_some_and(|w| !STOP.contains(&w) && !LEADING.contains(&w) && w != "help")
            && words.next().is_some_and(|w| DETERMINERS.contains(&w)))
}

/// Whether the sentence holding `at` ends with a question mark.
fn in_question(lower: &str, at: usize) -> bool {
    lower[at..]
        .find(['.', '!', '?', '\n'])
        .is_some_and(|end| lower[at + end..].starts_with('?'))
}

/// Whether one of the two words before `at`, in its sentence, negates.
fn negated_at(lower: &str, at: usize) -> bool {
    let before = &lower[..at];
    let clause = before
        .rsplit(['.', '!', '?', ';', '\n'])
        .next()
        .unwrap_or(before);
    clause.split_whitespace().rev().take(2).any(|w| {
        negation::is_negation(w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '\'')))
    })
}

/// A text cut at punctuation that ends a phrase: not at a stop or comma
/// inside a word (`4.2`, `1,100`, `gateway.py`).
fn clause_pieces(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut cuts = text.char_indices().filter_map(move |(i, c)| {
        let inner = matches!(c, '.' | ',' | ':')
            && bytes.get(i + 1).is_some_and(|b| !b.is_ascii_whitespace());
        (matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | '\n' | '(' | ')') && !inner).then_some(i)
    });
    std::iter::from_fn(move || {
        if start > text.len() {
            return None;
        }
        let end = cuts.next().unwrap_or(text.len());
        let piece = &text[start..end];
        start = end + 1;
        Some(piece)
    })
}

/// The phrase after the intent's cue: up to a stop word or punctuation,
/// leading articles and pronouns dropped, at most eight words.
fn find_target(text: &str, from: usize) -> String {
    let phrase = |start: usize| -> String {
        let rest = &text[start..];
        let clause = clause_pieces(rest)
            .find(|c| !c.trim().is_empty())
            .unwrap_or("");
        let words: Vec<&str> = clause.split_whitespace().collect();
        let mut out: Vec<&str> = Vec::new();
        let bare: Vec<String> = words
            .iter()
            .map(|w| {
                w.to_lowercase()
                    .trim_matches(|c: char| !c.is_alphanumeric())
                    .to_string()
            })
            .collect();
        for (i, w) in words.iter().enumerate() {
            let lw = bare[i].as_str();
            let next = bare.get(i + 1).map_or("", String::as_str);
            // "Who is on call": "on call" is what is asked about (but
            // "a report on call volumes" is on call volumes).
            let after = bare.get(i + 2).map_or("", String::as_str);
            let idiom = lw == "on"
                && ON_IDIOMS.contains(&next)
                && (after.is_empty()
                    || words[i + 1].ends_with(|c: char| !c.is_alphanumeric())
                    || STOP.contains(&after)
                    || WHEN_WORDS.contains(&after)
                    || matches!(after, "this" | "next" | "last"));
            if out.is_empty() && LEADING.contains(&lw) && !idiom {
                continue;
            }
            if !out.is_empty() && STOP.contains(&lw) {
                break;
            }
            // "… on call this week", "… tonight": when, not what.
            if !out.is_empty()
                && (WHEN_WORDS.contains(&lw)
                    || (matches!(lw, "this" | "next" | "last") && PERIODS.contains(&next)))
            {
                break;
            }
            // "How much headroom do we have": the question's verb and its
            // subject are not what it is about.
            if !out.is_empty()
                && QUESTION_AUX.contains(&lw)
                && bare
                    .get(i + 1)
                    .is_some_and(|n| SUBJECTS.contains(&n.as_str()))
            {
                break;
            }
            out.push(w.trim_matches(|c: char| c == '"' || c == '\''));
            if out.len() == 8 {
                break;
            }
        }
        // Eight words may end inside a phrase: not on an article.
        while out.len() > 1
            && out.last().is_some_and(|w| {
                let lw = w.to_lowercase();
                LEADING.contains(&lw.trim_matches(|c: char| !c.is_alphanumeric()))
            })
        {
            out.pop();
        }
        out.join(" ")
    };
    // "We need a migration plan … Please draft it as a document": the
    // object is a pronoun, and what it stands for was named as needed.
    // Otherwise what it is made as, if anything: "draft it as a document".
    if object_is_pronoun(&text[from..]) {
        // Not past the pronoun's clause: "approve it. First, …".
        let after_pronoun = word_ends(&text[from..])
            .nth(1)
            .filter(|_| !first_word_ends_clause(&text[from..]))
            .map(|end| from + end);
        for start in [needed_before(text, from), after_pronoun]
            .into_iter()
            .flatten()
        {
            let target = phrase(start);
            if !target.is_empty() {
                return target;
            }
        }
    }
    let target = phrase(from);
    if !target.is_empty() {
        return target;
    }
    // No phrase after the cue: the first words of the text, from its
    // first object if it opens with a subject ("I read your design
    // document …, approve it." is about the design document).
    let fallback = phrase(object_of_opening(text).unwrap_or(0));
    if fallback.is_empty() {
        text.split_whitespace()
            .take(6)
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        fallback
    }
}

/// Where the first object of a text that opens with a pronoun subject
/// starts: just after the first determiner of its first clause ("I read
/// *your* design document", "We moved *the* …").
fn object_of_opening(text: &str) -> Option<usize> {
    const DETERMINERS: &[&str] = &["the", "a", "an", "your", "our", "my", "their", "this"];
    let clause_end = text
        .find(['.', ',', ';', ':', '!', '?', '\n'])
        .unwrap_or(text.len());
    let clause = &text[..clause_end];
    let mut words = clause.split_whitespace();
    let subject = words.next()?.to_ascii_lowercase();
    if !SUBJECTS.contains(&subject.as_str()) || subject == "it" || subject == "there" {
        return None;
    }
    word_ends(clause)
        .zip(clause.split_whitespace())
        .skip(1)
        .find(|(_, w)| DETERMINERS.contains(&w.to_ascii_lowercase().as_str()))
        .map(|(end, _)| end)
}

/// Words that make a phrase with "on" before them: "on call", "on duty".
const ON_IDIOMS: &[&str] = &["call", "duty", "hold", "track", "leave", "schedule"];

/// Words that say when, ending a target ("call tonight").
const WHEN_WORDS: &[&str] = &["tonight", "yesterday", "currently", "again"];

/// Periods after "this", "next" or "last" ("this week").
const PERIODS: &[&str] = &[
    "week",
    "month",
    "quarter",
    "year",
    "morning",
    "afternoon",
    "evening",
    "weekend",
    "sprint",
    "time",
];

/// Whether `at` stands in a clause that weighs a choice still open: "we
/// are deciding whether to build our own vector search or …" asks neither
/// to build nor to search.
fn undecided_at(lower: &str, at: usize) -> bool {
    const WEIGHING: &[&str] = &[
        "deciding whether",
        "decide whether",
        "considering whether",
        "wondering whether",
        "not sure whether",
        "unsure whether",
    ];
    let clause = lower[..at]
        .rsplit(['.', ',', ';', ':', '!', '?', '\n'])
        .next()
        .unwrap_or_default();
    WEIGHING.iter().any(|w| clause.contains(w))
}

/// Auxiliaries that open a question's inverted verb ("do we have", "are
/// we allowed").
const QUESTION_AUX: &[&str] = &[
    "do", "does", "did", "are", "is", "was", "were", "can", "could", "should", "will", "would",
    "have", "has",
];

/// The subjects after a question's auxiliary.
const SUBJECTS: &[&str] = &["we", "you", "i", "they", "it", "he", "she", "there"];

/// Whether the word after `at` in its clause is neither a preposition nor
/// the end: "how stale results get" (results as a subject, not results
/// handed over), against "the results of the test" and "results:".
fn phrase_goes_on(lower: &str, at: usize) -> bool {
    let rest = &lower[at..];
    if rest.starts_with([',', '.', ';', ':', '!', '?', '\n']) {
        return false;
    }
    rest.split_whitespace()
        .next()
        .map(|w| w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
        .is_some_and(|w| !w.is_empty() && !STOP.contains(&w) && !["of", "are", "is"].contains(&w))
}

/// Whether the words after a cue start with a pronoun that is the whole
/// object ("draft it as a document", "send them.").
fn object_is_pronoun(rest: &str) -> bool {
    const OBJECTS: &[&str] = &["it", "this", "that", "them", "these", "those"];
    let mut words = rest.split_whitespace().map(|w| {
        w.to_lowercase()
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_string()
    });
    words.next().is_some_and(|w| OBJECTS.contains(&w.as_str()))
        && (first_word_ends_clause(rest) || words.next().is_none_or(|w| STOP.contains(&w.as_str())))
}

/// Whether the first word of `rest` ends its clause ("it." "it,").
fn first_word_ends_clause(rest: &str) -> bool {
    rest.split_whitespace()
        .next()
        .is_some_and(|w| w.ends_with(['.', ',', ';', ':', '!', '?']))
}

/// The byte offsets where each word of `text` ends.
fn word_ends(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.split_whitespace()
        .map(move |w| w.as_ptr() as usize - text.as_ptr() as usize + w.len())
}

/// Where the thing a text says it needs is named, before `at`: just after
/// the last "need", "needs", "want", "would like" or "looking for".
fn needed_before(text: &str, at: usize) -> Option<usize> {
    const NEEDING: &[&str] = &[
        " need ",
        " needs ",
        " want ",
        " would like ",
        " looking for ",
    ];
    let before = text[..at].to_ascii_lowercase();
    NEEDING
        .iter()
        .filter_map(|cue| before.rfind(cue).map(|i| i + cue.len()))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cue readings, both ways: the same word as the action asked for and
    /// as something else (a noun after a determiner, an event reported, a
    /// question word inside a request), and the target each gives.
    #[test]
    fn cues_read_as_the_action_only_where_they_are_one() {
        for (text, intent, target) in [
            // Events reported: REPORT, about their subject.
            ("The deploy failed.", Intent::Report, "deploy"),
            ("The migration is done.", Intent::Report, "migration"),
            ("The API went down at 14:00.", Intent::Report, "API"),
            (
                "The billing job crashed twice overnight.",
                Intent::Report,
                "billing job",
            ),
            (
                "We finished the migration of orders_v2.",
                Intent::Report,
                "migration of orders_v2",
            ),
            // A hand-off with its object inside.
            (
                "I'm handing the search latency investigation over to you.",
                Intent::Delegate,
                "search latency investigation",
            ),
            (
                "I'm passing the data retention cleanup to you, since I move teams.",
                Intent::Delegate,
                "data retention cleanup",
            ),
            // A report handed over is a report; an answer is a response.
            (
                "Here is the end-of-quarter status for the data team.",
                Intent::Report,
                "end-of-quarter status",
            ),
            (
                "Here is the follow-up on last Thursday's incident.",
                Intent::Report,
                "follow-up",
            ),
            (
                "Here is the answer to your question about quotas.",
                Intent::Respond,
                "answer",
            ),
            (
                "I'm delegating the security review of the partner integration to you.",
                Intent::Delegate,
                "security review of the partner integration",
            ),
            // Choosing among options is an evaluation.
            (
                "I'd like your help choosing how we run incidents from next year. It should update our Statuspage.",
                Intent::Evaluate,
                "how we run incidents",
            ),
            (
                "Weekly status from the platform team. The upgrade is finished.",
                Intent::Report,
                "Weekly status",
            ),
            // Results that do something are not results reported.
            (
                "Incremental updates are right given how stale results get. Please update the document.",
                Intent::Transform,
                "document",
            ),
            (
                "Status update on the payments outage: it is fixed.",
                Intent::Report,
                "payments outage",
            ),
            (
                "Results of the load test: p99 is 80 ms.",
                Intent::Report,
                "load test",
            ),
            // A question is about its object, not its inverted verb.
            (
                "How much headroom do we have on the primary database?",
                Intent::Query,
                "headroom",
            ),
            (
                "Which regions are we allowed to store health data in?",
                Intent::Query,
                "regions",
            ),
            // A choice still being made is not the request.
            (
                "We are deciding whether to build our own vector search or to buy one. Please prepare a comparison of three services.",
                Intent::Generate,
                "comparison of three services",
            ),
            // A pronoun object stands for what was said to be needed.
            (
                "We need a migration plan for the email vendor. Please draft it as a document the team can work from.",
                Intent::Generate,
                "migration plan",
            ),
            (
                "Please draft it as a document.",
                Intent::Generate,
                "document",
            ),
            // Nothing named as needed: the text's first object, never the
            // next sentence's ("the schema changes"), nor its subject and
            // verb ("I read your").
            (
                "I read your design document. We may approve it. First, the schema changes.",
                Intent::Evaluate,
                "design document",
            ),
            (
                "We moved the billing jobs to the new cluster, approve it.",
                Intent::Evaluate,
                "billing jobs",
            ),
            (
                "Billing jobs moved. Approve it.",
                Intent::Evaluate,
                "Billing jobs moved",
            ),
            // A causative "make" changes its object; "make a …" creates.
            (
                "Please make the script resumable from the last id it wrote.",
                Intent::Transform,
                "script",
            ),
            (
                "Make the Backfill job idempotent and safe to rerun.",
                Intent::Transform,
                "Backfill job",
            ),
            (
                "Make the release notes for 2.4.",
                Intent::Generate,
                "release notes",
            ),
            (
                "Make the config loader for the new service.",
                Intent::Generate,
                "config loader",
            ),
            (
                "Make the environment variable.",
                Intent::Generate,
                "environment variable",
            ),
            ("Make the export faster.", Intent::Transform, "export"),
            // "Make sure" asks to see that something holds.
            (
                "Make sure the tests pass before you merge.",
                Intent::Evaluate,
                "tests pass",
            ),
            (
                "Please ensure the backup job runs every night.",
                Intent::Evaluate,
                "backup job runs every night",
            ),
            (
                "Make a dashboard for the support team.",
                Intent::Generate,
                "dashboard",
            ),
            // A cue that names a thing with the word after it.
            (
                "Rate limiting is holding, but two accounts were targeted. \
                 Please lock those accounts immediately.",
                Intent::Transform,
                "accounts",
            ),
            (
                "The test suite is green again. Review the parser change.",
                Intent::Evaluate,
                "parser change",
            ),
            ("Rate the three answers.", Intent::Evaluate, "three answers"),
            (
                "Please report on call volumes for March.",
                Intent::Report,
                "call volumes",
            ),
            // "On call" is what is asked about; "this week" says when.
            ("Who is on call this week?", Intent::Query, "on call"),
            (
                "Who is on call for payments tonight?",
                Intent::Query,
                "on call",
            ),
            (
                "Review the parser change tonight.",
                Intent::Evaluate,
                "parser change",
            ),
            // Passing tests hand nothing over.
            (
                "The tests are passing now. Review the parser change.",
                Intent::Evaluate,
                "parser change",
            ),
            // The same words as requests.
            ("Deploy the fix to staging.", Intent::Transform, "fix"),
            (
                "Fix the failed tests in the billing suite.",
                Intent::Transform,
                "failed tests",
            ),
            (
                "Investigate why the deploy failed.",
                Intent::Analyze,
                "why the deploy failed",
            ),
            // A noun after a determiner is not the action.
            (
                "The review found two bugs in the parser.",
                Intent::Report,
                "review found two bugs",
            ),
            (
                "Review the PR for the billing service.",
                Intent::Evaluate,
                "PR",
            ),
            // An intent noun that describes another noun says nothing.
            (
                "The status page is updated by hand. Compare the two tools.",
                Intent::Analyze,
                "two tools",
            ),
            // A version or a number is one word.
            (
                "Status of the mobile 4.2 release, as of Wednesday.",
                Intent::Report,
                "mobile 4.2 release",
            ),
            // Or after a determiner and one word.
            (
                "The revocation check happens too late, so fix the token compare.",
                Intent::Transform,
                "token compare",
            ),
            // A review done is a report, about what was reviewed.
            (
                "I reviewed your pull request for the session handling.",
                Intent::Report,
                "pull request",
            ),
            // Hedged requests read by their verb; a question word asks only in a question.
            (
                "It is not urgent, but when you have time, please generate a FAQ page.",
                Intent::Generate,
                "FAQ page",
            ),
            (
                "When you get a chance, summarize the incident notes.",
                Intent::Transform,
                "incident notes",
            ),
            (
                "When does the deploy start?",
                Intent::Query,
                "does the deploy start",
            ),
            (
                "I have a few questions about the renewal terms.",
                Intent::Query,
                "renewal terms",
            ),
        ] {
            let (read_intent, read_target) = reading(text, &text.to_ascii_lowercase());
            assert_eq!(read_intent, intent, "{text}");
            assert_eq!(read_target, target, "{text}");
        }
    }
}
