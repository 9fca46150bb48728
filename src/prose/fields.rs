//! What prose says besides its sentences, as the offline encoder reads
//! it: parameters (`key: value` lines, URLs, file names, deadlines,
//! quantities, formats, languages), state (progress, blockers, what is
//! done) and the priority asked for.

use serde_json::{Map, Value, json};

use super::cues::{LEADING, STOP, find_word, find_words, sentences};
use super::facts;
use crate::protocols::msp::Priority;

/// `key: value` lines, URLs, file names, dates, quantities, formats and
/// languages.
pub(super) fn find_params(text: &str) -> Map<String, Value> {
    let mut params = Map::new();
    for line in text.lines() {
        let line = line.trim().trim_start_matches(['-', '*', '•']).trim();
        if let Some((key, value)) = line.split_once(':')
            && !key.is_empty()
            && key.split_whitespace().count() <= 3
            // Not a sentence's words before a time ("Summary. Between
            // 14:05 and…"), nor a time or ratio itself.
            && !key.contains(['.', ',', '!', '?', ';'])
            && !(key.ends_with(|c: char| c.is_ascii_digit())
                && value.starts_with(|c: char| c.is_ascii_digit()))
            && !value.trim().is_empty()
            && !value.trim_start().starts_with("//")
            // "Critical: we detected … in the last hour. Rate limiting is
            // holding, …": sentences after a label are prose, not a value.
            && !says_sentences(value)
        {
            let key = snake(key);
            if !key.is_empty() && key.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
                params.insert(key, Value::String(value.trim().to_string()));
            }
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let clean = |w: &str| {
        w.trim_end_matches(['.', ',', ';', ')', ':', '!', '?'])
            .trim_start_matches('(')
            .to_string()
    };
    let urls: Vec<String> = words
        .iter()
        .filter(|w| w.starts_with("http://") || w.starts_with("https://"))
        .map(|w| clean(w))
        .collect();
    put_list(&mut params, "urls", urls);
    let files: Vec<String> = words
        .iter()
        .map(|w| clean(w))
        .filter(|w| !w.contains("://") && is_file_name(w))
        .collect();
    put_list(&mut params, "files", files);
    let lower: Vec<String> = words.iter().map(|w| clean(&w.to_lowercase())).collect();
    if let Some(deadline) = find_deadline(&words, &lower) {
        params.insert("deadline".into(), Value::String(deadline));
    }
    let mut languages: Vec<String> = Vec::new();
    let mut last_language = 0;
    for (i, w) in lower.iter().enumerate() {
        // A quantity: "200 words", "top 5", "3 bullet points".
        if let Ok(n) = w.parse::<u64>()
            // "March 3 …" is a date.
            && !(i > 0 && facts::MONTHS.contains(&lower[i - 1].as_str()))
            // "the wiki page from 2023, the setup script": a number that
            // ends a clause counts nothing after it.
            && !words[i].ends_with([',', '.', ';', ':', '!', '?', ')'])
            && let Some(unit) = lower.get(i + 1)
            && unit.chars().all(|c| c.is_ascii_alphabetic())
            // "March 3 Marta": a unit is not a name; "503 instead" not one.
            && words[i + 1].starts_with(|c: char| c.is_ascii_lowercase())
            && !NOT_UNITS.contains(&unit.as_str())
            // "4 million embeddings": a magnitude, not what is counted.
            && !facts::MAGNITUDES.contains(&unit.as_str())
            && unit.len() > 2
            && !STOP.contains(&unit.as_str())
            // "in 2023 the team…": a determiner or an auxiliary is no unit.
            && !LEADING.contains(&unit.as_str())
            && !is_time_word(unit)
        {
            params.entry(unit.clone()).or_insert(json!(n));
        }
        if w == "top"
            && let Some(n) = lower.get(i + 1).and_then(|n| n.parse::<u64>().ok())
        {
            params.entry("top").or_insert(json!(n));
        }
        if matches!(
            w.as_str(),
            "json" | "markdown" | "csv" | "yaml" | "html" | "xml" | "pdf" | "table"
        ) && lower
            .get(i + 1)
            .is_some_and(|n| n == "format" || n == "output")
            || (i > 0
                && lower[i - 1] == "as"
                && matches!(
                    w.as_str(),
                    "json"
                        | "markdown"
                        | "csv"
                        | "yaml"
                        | "html"
                        | "xml"
                        | "pdf"
                        | "table"
                        | "bullets"
                ))
        {
            params.entry("format").or_insert(Value::String(w.clone()));
        }
        // Languages: "into French", and every one of the list that follows
        // ("into Spanish and French", "to German, Italian or Dutch"); a
        // later "in English" ("keep names in English") is not another.
        let continues_list = languages.is_empty() || last_language + 2 >= i;
        if continues_list
            && LANGUAGES.contains(&w.as_str())
            && (1..=i.min(4)).any(|back| {
                matches!(lower[i - back].as_str(), "into" | "to" | "in")
                    && lower[i - back + 1..i].iter().all(|between| {
                        matches!(between.as_str(), "and" | "or")
                            || LANGUAGES.contains(&between.trim_end_matches(','))
                    })
            })
        {
            languages.push(clean(words[i]));
            last_language = i;
        }
    }
    put_list(&mut params, "languages", languages);
    params
}

/// Whether a value goes on past the end of a sentence ("… last hour.
/// Rate limiting is holding"); a version or a file name ("v2.4",
/// "gateway.py") has no space after its stop.
fn says_sentences(value: &str) -> bool {
    let value = value.trim();
    value.match_indices(['.', '!', '?']).any(|(at, _)| {
        value[at + 1..].starts_with(' ')
            && value[at + 1..].trim_start().starts_with(char::is_uppercase)
    })
}

/// Words that follow a number without counting anything ("return 503
/// instead", "twice more").
const NOT_UNITS: &[&str] = &[
    "instead", "again", "later", "earlier", "ago", "more", "less", "fewer", "times", "total",
    "each", "too", "only", "left", "apart",
];

const LANGUAGES: &[&str] = &[
    "english",
    "french",
    "german",
    "spanish",
    "italian",
    "portuguese",
    "japanese",
    "chinese",
    "korean",
    "dutch",
    "russian",
    "arabic",
    "hindi",
    "python",
    "rust",
    "go",
    "typescript",
    "javascript",
    "java",
    "kotlin",
    "swift",
    "sql",
];

/// The time the work is due: "by Friday", "by the 20th", "due
/// 2026-03-01", "no later than noon"; failing those, "before 5pm" where
/// the time ends its clause ("the data before November looks
/// incomplete" says when the data is from, not when the work is due).
/// "Until" says how long something lasts ("frozen until April"), not a
/// deadline.
fn find_deadline(words: &[&str], lower: &[String]) -> Option<String> {
    let at = |i: usize, strong: bool| -> Option<String> {
        let cue = lower[i].as_str();
        let cued = if strong {
            matches!(cue, "by" | "due")
                || (cue == "than" && i >= 2 && lower[i - 2] == "no" && lower[i - 1] == "later")
        } else {
            cue == "before"
        };
        if !cued {
            return None;
        }
        // "by the 20th": the day after its article.
        let first = i
            + 1
            + usize::from(
                lower.get(i + 1).is_some_and(|w| w == "the")
                    && lower.get(i + 2).is_some_and(|w| facts::is_ordinal_day(w)),
            );
        let next = lower.get(first)?;
        if !(is_time_word(next) || (first > i + 1 && facts::is_ordinal_day(next))) {
            return None;
        }
        // "next" and "end" say nothing alone: "next year", "end of day".
        let open = match next.as_str() {
            "next" => 1,
            "end" if lower.get(first + 1).is_some_and(|w| w == "of") => 2,
            _ => 0,
        };
        let mut last = first + open;
        // A lone "next" or "end of" at the end of the text says no time.
        if last >= words.len() {
            return None;
        }
        if let Some(after) = lower.get(last + 1)
            && (is_time_word(after) || after.chars().all(|c| c.is_ascii_digit()))
            && !words[last].ends_with([',', '.', ';'])
        {
            last += 1;
        }
        let ends_clause =
            last + 1 == words.len() || words[last].ends_with([',', '.', ';', '!', '?', ':', ')']);
        if !strong && !ends_clause {
            return None;
        }
        let clean = |w: &&str| {
            w.trim_end_matches(['.', ',', ';', ')', ':', '!', '?'])
                .to_string()
        };
        Some(
            words[first..=last]
                .iter()
                .map(clean)
                .collect::<Vec<_>>()
                .join(" "),
        )
    };
    [true, false]
        .into_iter()
        .find_map(|strong| (0..lower.len()).find_map(|i| at(i, strong)))
}

fn is_time_word(w: &str) -> bool {
    const WORDS: &[&str] = &[
        "today", "tomorrow", "tonight", "noon", "midnight", "eod", "eow", "end", "next", "q1",
        "q2", "q3", "q4",
    ];
    WORDS.contains(&w)
        || facts::WEEKDAYS.contains(&w)
        || facts::MONTHS.contains(&w)
        || (w.len() >= 8 && w.as_bytes()[4] == b'-' && w[..4].chars().all(|c| c.is_ascii_digit()))
        || ((w.ends_with("am") || w.ends_with("pm"))
            && w[..w.len() - 2]
                .chars()
                .all(|c| c.is_ascii_digit() || c == ':')
            && w.len() > 2)
}

fn is_file_name(w: &str) -> bool {
    const EXT: &[&str] = &[
        "py", "rs", "js", "ts", "go", "java", "md", "txt", "csv", "json", "yaml", "yml", "toml",
        "pdf", "docx", "xlsx", "log", "sql", "html", "png", "sh",
    ];
    match w.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && EXT.contains(&ext.to_lowercase().as_str())
                && stem
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_-/.".contains(c))
        }
        None => false,
    }
}

fn put_list(params: &mut Map<String, Value>, key: &str, mut items: Vec<String>) {
    items.dedup();
    match items.len() {
        0 => {}
        1 => {
            params.insert(
                key.trim_end_matches('s').to_string(),
                Value::String(items.remove(0)),
            );
        }
        _ => {
            params.insert(key.to_string(), json!(items));
        }
    }
}

/// `Due Date` → `due_date`.
pub(super) fn snake(key: &str) -> String {
    key.trim()
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("_")
}

/// Progress, blockers and status as state; `status`-like params move here.
pub(super) fn find_state(text: &str, params: &mut Map<String, Value>) -> Map<String, Value> {
    let mut state = Map::new();
    for key in [
        "status", "progress", "phase", "stage", "state", "blocker", "blockers",
    ] {
        if let Some(v) = params.remove(key) {
            state.insert(key.to_string(), v);
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let w = w.trim_end_matches(['.', ',', ';']);
        if let Some(p) = w.strip_suffix('%')
            && p.parse::<f64>().is_ok()
            && words.get(i + 1).is_some_and(|n| {
                let n = n.to_lowercase();
                n.starts_with("done") || n.starts_with("complete") || n.starts_with("finished")
            })
        {
            state
                .entry("progress")
                .or_insert(Value::String(w.to_string()));
        }
    }
    for sentence in sentences(text) {
        // ASCII only: `at` is cut out of `sentence` below.
        let lower = sentence.to_ascii_lowercase();
        for (cue, key) in [
            ("blocked by", "blocked_by"),
            ("waiting on", "waiting_on"),
            ("waiting for", "waiting_on"),
            ("currently", "current"),
            ("so far", "so_far"),
            ("already", "done"),
        ] {
            if let Some(at) = find_word(&lower, cue) {
                // Up to the end of the clause: what comes after a comma
                // is another statement, kept as a note if at all.
                let rest = sentence[at + cue.len()..]
                    .split([',', ';', '(', '—'])
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .trim_end_matches(['.', '!', '?'])
                    .trim();
                // "… which you already have", "staff can currently open
                // them", "partners that already exist there": a verb
                // without what it acts on says nothing; nor does a
                // relative clause ("the rotations we already keep in
                // PagerDuty") say a state of the work.
                let said = rest
                    .split_whitespace()
                    .filter(|w| !STAND_INS.contains(&w.to_ascii_lowercase().as_str()))
                    .count();
                if said >= 2 && !relative_clause(&lower[..at]) {
                    state.entry(key).or_insert(Value::String(rest.to_string()));
                }
            }
        }
    }
    state
}

/// Pronouns and place words: they stand in for what another clause
/// names, so a state of only a verb and one of them says nothing.
const STAND_INS: &[&str] = &[
    "it", "them", "there", "here", "this", "that", "these", "those", "one", "none", "him", "her",
    "they", "we", "you", "i", "us", "me", "he", "she", "so",
];

/// Whether the words before a state cue end in a relative clause's
/// subject: a pronoun after a noun ("rotations we already keep"), not one
/// that opens its clause ("…; we already keep", "and we already keep").
fn relative_clause(before: &str) -> bool {
    let mut words = before.split_whitespace().rev();
    let subject = words.next().unwrap_or_default();
    if !matches!(subject, "we" | "they" | "you" | "i" | "he" | "she") {
        return false;
    }
    words.next().is_some_and(|w| {
        !w.ends_with([',', ';', ':', '.', '!', '?'])
            && !matches!(
                w,
                "and"
                    | "but"
                    | "so"
                    | "because"
                    | "since"
                    | "as"
                    | "while"
                    | "when"
                    | "if"
                    | "that"
                    | "then"
                    | "now"
                    | "what"
                    | "how"
                    | "where"
            )
    })
}

/// The priority the message asks for, by its urgency words. A word that
/// names a subject rather than the message's urgency is no cue: "the
/// critical ones", "findings rated high or critical", "a postmortem of
/// last week's outage" are not critical requests; "this is critical",
/// "immediately", "P0" are.
pub(super) fn find_priority(lower: &str) -> Priority {
    // "Today's review" says when, not how soon: a possessive is no cue;
    // nor is "Today we open a channel by hand" (nowadays), a sentence's
    // first word.
    let has = |cues: &[&str]| {
        cues.iter().any(|c| {
            find_words(lower, c).any(|at| {
                let after = &lower[at + c.len()..];
                let opens = lower[..at]
                    .trim_end()
                    .chars()
                    .next_back()
                    .is_none_or(|p| matches!(p, '.' | '!' | '?' | '\n'));
                !(after.starts_with("'s") || after.starts_with("’s") || (*c == "today" && opens))
            })
        })
    };
    // "Not urgent" says low before "urgent" can say high.
    if has(&["not urgent", "no rush", "not a priority", "low priority"]) {
        return Priority::Low;
    }
    if has(&[
        "this is critical",
        "it is critical",
        "it's critical",
        "critical priority",
        "priority: critical",
        "emergency",
        "asap",
        "immediately",
        "p0",
        "sev1",
        "sev-1",
        "right now",
        "production is down",
    ]) {
        Priority::Critical
    } else if has(&[
        "urgent",
        "urgently",
        "high priority",
        "important",
        "today",
        "eod",
        "end of day",
        "p1",
        "soon",
        "quickly",
    ]) {
        Priority::High
    } else if has(&[
        "no rush",
        "low priority",
        "whenever",
        "when you get a chance",
        "eventually",
        "nice to have",
        "not urgent",
        "someday",
    ]) {
        Priority::Low
    } else {
        Priority::Medium
    }
}
