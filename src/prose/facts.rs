//! The facts a decoding must keep, which a similarity score barely sees
//! ("deploy at 14:00" and "deploy at 16:00" are 0.98 alike): numbers with
//! their units, times, dates, and names — capitalised words that do not
//! open a sentence, acronyms, identifiers (`orders_v2`, `PROJ-123`), file
//! paths and URLs — and the items of a list ([`lists`]). The judge fails a
//! decoding that drops or changes one and names it, as the upstream's loss
//! analyzer does with a model ("MISSING: …"), here offline and exact.

use std::collections::{HashMap, HashSet};

use super::brief;
use super::lists;
use super::meaning::negations;

/// What kind of fact a token states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Number,
    Time,
    Date,
    Name,
    /// An item of a list the text enumerates; its key is
    /// [`lists::Item::key`].
    Item,
}

impl Kind {
    fn noun(self) -> &'static str {
        match self {
            Kind::Number => "number",
            Kind::Time => "time",
            Kind::Date => "date",
            Kind::Name => "name",
            Kind::Item => "list item",
        }
    }
}

/// One fact: its kind, how it was written, and the form compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub kind: Kind,
    pub text: String,
    pub key: String,
}

/// Month and weekday names, lower case (the encoder reads them as dates too).
pub const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
pub const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];
/// Number words read as digits, from two (`one` and `zero` are pronouns
/// and idioms as often: "the one that", "zero-downtime").
const NUMBER_WORDS: [&str; 13] = [
    "", "", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve",
];
/// Units a number may be followed by, lowercased; the key keeps the unit.
const UNITS: &[&str] = &[
    "%", "percent", "ms", "s", "sec", "secs", "second", "seconds", "min", "mins", "minute",
    "minutes", "h", "hr", "hrs", "hour", "hours", "day", "days", "week", "weeks", "month",
    "months", "year", "years", "kb", "mb", "gb", "tb", "k", "m", "x", "usd", "eur", "users",
    "requests", "rps", "qps", "gib", "mib", "px", "items", "tokens",
];
/// Capitalised words that are not names: they open clauses or are the
/// decoder's and the prose's own framing.
const NOT_NAMES: &[&str] = &[
    "i",
    "please",
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "it",
    "we",
    "you",
    "they",
    "he",
    "she",
    "our",
    "my",
    "your",
    "their",
    "and",
    "or",
    "but",
    "if",
    "when",
    "then",
    "also",
    "note",
    "notes",
    "ok",
    "okay",
    "hi",
    "hello",
    "thanks",
    "thank",
    "yes",
    "no",
    "not",
    "do",
    "don't",
    "dont",
    "priority",
    "intent",
    "target",
    "constraints",
    "state",
    "params",
    "high",
    "low",
    "medium",
    "critical",
    "urgent",
    // Abbreviations of a message's manner, not names: "FYI:", "ASAP".
    "fyi",
    "asap",
    "eod",
    "btw",
    "tldr",
    "i'm",
    "i'd",
    "i'll",
    "i've",
    "which",
    "what",
    "who",
    "whom",
    "where",
    "why",
    "how",
    "since",
    "while",
    "after",
    "before",
    "once",
    "both",
    "each",
    "every",
    "some",
    "many",
    "most",
    "all",
    "any",
    "there",
    "here",
    "its",
    "his",
    "her",
    "weekly",
    "daily",
    "monthly",
    "today",
    "tomorrow",
    "yesterday",
    "details",
    "things",
    "everything",
    "nothing",
    "someone",
    "everyone",
    "something",
    "anything",
    "somebody",
    "anybody",
    "everybody",
    "nobody",
    "none",
    "one",
    "another",
    "other",
    "others",
    "such",
    "either",
    "neither",
];
/// Auxiliaries after which a capitalised word opening a sentence is its
/// subject ("Priya is looking at it"; "It is", "This is", "Nothing is"
/// are [`NOT_NAMES`]). A noun so placed ("Production is down") is asked
/// of the decoding as a name: it must be there, in any case.
const SUBJECT_AUXILIARIES: &[&str] = &[
    "is", "was", "has", "had", "will", "can", "cannot", "can't", "would", "should", "could", "did",
    "does", "isn't", "wasn't", "hasn't", "won't", "doesn't", "didn't",
];

/// Verbs after which a capitalised word opening a sentence is its subject.
const REPORTING: &[&str] = &[
    "says",
    "said",
    "asks",
    "asked",
    "reports",
    "reported",
    "wants",
    "wanted",
    "wrote",
    "writes",
    "thinks",
    "thought",
    "needs",
    "needed",
    "mentioned",
    "confirmed",
    "agreed",
    "noticed",
    "found",
    "merged",
    "approved",
    "owns",
    "leads",
];

/// The facts of a text: those its words state, in order, then the items
/// of its lists but those that are facts already (`PROJ-123`, `$40`).
pub fn facts(text: &str) -> Vec<Fact> {
    let mut out = word_facts(text);
    out.extend(
        lists::items(text)
            .into_iter()
            .filter(|item| {
                word_facts(&item.text).len() < brief::telegraphic(&item.text).split(' ').count()
            })
            .map(|item| Fact {
                kind: Kind::Item,
                key: item.key(),
                text: item.text,
            }),
    );
    out
}

/// The facts a text's words state, in order.
fn word_facts(text: &str) -> Vec<Fact> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::new();
    let mut sentence_start = true;
    let mut i = 0;
    while i < tokens.len() {
        let raw = tokens[i];
        let word = trim_punctuation(raw);
        // A comma or semicolon parts a word from the next: "In March, 11
        // people left" has no date with a day.
        let next = tokens
            .get(i + 1)
            .filter(|_| !raw.ends_with([',', ';']))
            .map(|t| trim_punctuation(t).to_lowercase());
        let then = tokens
            .get(i + 2)
            .map(|t| trim_punctuation(t).to_lowercase());
        let used = match fact_at(word, next.as_deref(), then.as_deref(), sentence_start) {
            Some((fact, used)) => {
                out.push(fact);
                used
            }
            None => 1,
        };
        // Whether the last word taken ends a sentence ("every 20 minutes.
        // For each…": the unit's stop, not the number's).
        let last = tokens[i + used - 1];
        sentence_start =
            last.ends_with(['.', '!', '?', ':']) && !is_path_or_url(trim_punctuation(last));
        i += used;
    }
    out
}

/// The fact a word states (with the word after it, for a unit, a day of a
/// month or am/pm), and how many words it took; `then` is the word after
/// `next` ("March 11 million": 11 is no day).
fn fact_at(
    word: &str,
    next: Option<&str>,
    then: Option<&str>,
    sentence_start: bool,
) -> Option<(Fact, usize)> {
    if word.is_empty() {
        return None;
    }
    let lower = word.to_lowercase();
    let fact = |kind, key: String, used| {
        Some((
            Fact {
                kind,
                text: word.to_string(),
                key,
            },
            used,
        ))
    };
    if is_path_or_url(word) {
        return fact(Kind::Name, lower.trim_end_matches('/').to_string(), 1);
    }
    if let Some(time) = time_of(&lower, next) {
        let used = if next.is_some_and(|n| n == "am" || n == "pm") && !lower.ends_with('m') {
            2
        } else {
            1
        };
        return fact(Kind::Time, time, used);
    }
    if let Some(date) = iso_date(&lower) {
        return fact(Kind::Date, date, 1);
    }
    if let Some(month) = MONTHS
        .iter()
        .position(|m| lower == *m || (lower.len() == 3 && m.starts_with(&lower)))
        .filter(|_| lower != "may" || next.is_some_and(|n| day_of(n).is_some()))
    {
        let magnitude = then.is_some_and(|t| MAGNITUDES.contains(&t) || UNITS.contains(&t));
        let day = next.and_then(day_of).filter(|_| !magnitude);
        let key = match day {
            Some(d) => format!("{:02}-{d:02}", month + 1),
            None => format!("{:02}", month + 1),
        };
        return fact(Kind::Date, key, if day.is_some() { 2 } else { 1 });
    }
    if let Some(day) = WEEKDAYS
        .iter()
        .find(|d| lower == **d || (lower.len() == 3 && d.starts_with(&lower)))
    {
        return fact(Kind::Date, (*day).to_string(), 1);
    }
    if let Some(number) = number_of(&lower) {
        let unit = next
            .map(|n| n.trim_end_matches(['.', ',']))
            .filter(|n| UNITS.contains(n) && !number.contains(' '));
        return match unit {
            Some(unit) => fact(Kind::Number, format!("{number} {}", unit_key(unit)), 2),
            None => fact(Kind::Number, number, 1),
        };
    }
    if is_identifier(word) {
        return fact(Kind::Name, lower, 1);
    }
    let acronym = word.len() >= 2
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_uppercase());
    let capitalised = word.chars().next().is_some_and(char::is_uppercase)
        && word.chars().skip(1).any(char::is_lowercase);
    // At a sentence's start a capitalised word is a name when a verb in
    // the past or third person or an auxiliary follows ("Alice reported",
    // "Priya says", "Tom is changing the flow"): an imperative ("Deploy
    // the …") is followed by its object.
    let subject = sentence_start
        && next.is_some_and(|n| REPORTING.contains(&n) || SUBJECT_AUXILIARIES.contains(&n));
    if (acronym || (capitalised && (!sentence_start || subject)))
        && !NOT_NAMES.contains(&lower.as_str())
    {
        return fact(Kind::Name, lower, 1);
    }
    None
}

/// A word without the punctuation a sentence puts around it.
fn trim_punctuation(word: &str) -> &str {
    word.trim_start_matches(['(', '[', '"', '\'', '`', '“', '‘', '*'])
        .trim_end_matches([
            '.', ',', ';', ':', '!', '?', ')', ']', '"', '\'', '`', '”', '’', '*',
        ])
}

fn is_path_or_url(word: &str) -> bool {
    let lower = word.to_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("www.") {
        return true;
    }
    let has_letters = word.chars().any(char::is_alphabetic);
    let path = (word.contains('/') && has_letters && !word.starts_with('/')
        || word.starts_with('/'))
        && word.len() > 1
        && !word.split('/').any(str::is_empty);
    let file = word.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && stem.chars().any(char::is_alphabetic)
            && (1..=5).contains(&ext.len())
            && ext
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            && ext.chars().any(|c| c.is_ascii_lowercase())
            && !stem.contains(' ')
            && stem
                .chars()
                .all(|c| c.is_alphanumeric() || "_-./".contains(c))
            && stem
                .chars()
                .next()
                .is_some_and(|c| c.is_lowercase() || c == '_' || c == '.')
    });
    path || file
}

/// `orders_v2`, `PROJ-123`, `v1.2.3`, `getUserById`, `Q3`: letters with
/// digits, underscores, or a capital inside.
fn is_identifier(word: &str) -> bool {
    if !word.chars().any(char::is_alphabetic) {
        return false;
    }
    let allowed = word
        .chars()
        .all(|c| c.is_alphanumeric() || "_-.#".contains(c));
    let digits = word.chars().any(|c| c.is_ascii_digit());
    let underscore = word.contains('_');
    let inner_capital = word.chars().skip(1).any(char::is_uppercase)
        && word.chars().any(char::is_lowercase)
        && !word.contains('-');
    allowed && (digits || underscore || inner_capital) && !word.ends_with('-')
}

/// `14:00`, `9:30am`, `3pm` (with `pm` as the next word too): `HH:MM`.
fn time_of(word: &str, next: Option<&str>) -> Option<String> {
    let (clock, suffix) = if let Some(c) = word.strip_suffix("am") {
        (c, Some("am"))
    } else if let Some(c) = word.strip_suffix("pm") {
        (c, Some("pm"))
    } else {
        (word, next.filter(|n| *n == "am" || *n == "pm"))
    };
    let (h, m) = match clock.split_once(':') {
        Some((h, m)) => (h, m.get(..2)?),
        None if suffix.is_some() => (clock, "00"),
        None => return None,
    };
    let mut hour: u32 = h.parse().ok().filter(|_| !h.is_empty() && h.len() <= 2)?;
    let minute: u32 = m.parse().ok().filter(|m| *m < 60)?;
    match suffix {
        Some("pm") if hour < 12 => hour += 12,
        Some("am") if hour == 12 => hour = 0,
        _ => {}
    }
    (hour < 24).then(|| format!("{hour:02}:{minute:02}"))
}

/// `2025-10-09` (or `2025/10/09`): the date as written with dashes.
fn iso_date(word: &str) -> Option<String> {
    let parts: Vec<&str> = word.split(['-', '/']).collect();
    let [y, m, d] = parts.as_slice() else {
        return None;
    };
    let ok = y.len() == 4
        && (1..=2).contains(&m.len())
        && (1..=2).contains(&d.len())
        && [y, m, d]
            .iter()
            .all(|p| p.chars().all(|c| c.is_ascii_digit()));
    ok.then(|| format!("{y}-{:0>2}-{:0>2}", m, d))
}

/// Words that make the number before them a count, not a day of a month.
pub const MAGNITUDES: &[&str] = &["hundred", "thousand", "million", "billion", "trillion"];

/// A day of the month (`9`, `9th`, `21st`).
fn day_of(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == ',');
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

/// A day written as an ordinal: `20th`, `1st`, `22nd`, `3rd`.
pub fn is_ordinal_day(word: &str) -> bool {
    ["st", "nd", "rd", "th"].iter().any(|suffix| {
        word.strip_suffix(suffix)
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    }) && day_of(word).is_some()
}

/// A number as compared: `1,000` and `1000` alike, `$5` as `$5`, `20%` as
/// `20 %`, `three` as `3`.
fn number_of(word: &str) -> Option<String> {
    if let Some(n) = NUMBER_WORDS
        .iter()
        .position(|w| !w.is_empty() && *w == word)
    {
        return Some(n.to_string());
    }
    let (currency, rest) = match word.chars().next()? {
        c @ ('$' | '€' | '£') => (c.to_string(), &word[c.len_utf8()..]),
        _ => (String::new(), word),
    };
    let (rest, percent) = match rest.strip_suffix('%') {
        Some(r) => (r, " %"),
        None => (rest, ""),
    };
    // `5k`, `20ms`, `3x`: a number with its unit in one word.
    let split = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(rest.len());
    let (digits, unit) = rest.split_at(split);
    let plain = digits.replace(',', "");
    if plain.is_empty() || plain.parse::<f64>().is_err() || plain.ends_with('.') {
        return None;
    }
    let unit = unit.to_lowercase();
    if !unit.is_empty() && !UNITS.contains(&unit.as_str()) {
        return None;
    }
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!(" {}", unit_key(&unit))
    };
    Some(format!("{currency}{plain}{percent}{unit}"))
}

/// One spelling per unit: `seconds`, `sec` and `s` alike.
fn unit_key(unit: &str) -> &str {
    match unit {
        "percent" => "%",
        "sec" | "secs" | "second" | "seconds" => "s",
        "min" | "mins" | "minute" | "minutes" => "min",
        "h" | "hr" | "hrs" | "hour" | "hours" => "h",
        "day" | "days" => "d",
        "week" | "weeks" => "w",
        "month" | "months" => "mo",
        "year" | "years" => "y",
        other => other,
    }
}

/// Number keys by their value, with the units each was stated with, asked
/// whether they state the same number as a key — the same value, and the
/// same unit when both say one (`42 requests` and `42` alike, `250 ms` and
/// `250 s` not) — in constant time, so that comparing two texts of many
/// numbers is not quadratic.
#[derive(Default)]
struct Numbers(HashMap<String, Vec<Option<String>>>);

impl Numbers {
    fn of<'a>(keys: impl IntoIterator<Item = &'a str>) -> Numbers {
        let mut numbers = Numbers::default();
        for key in keys {
            let (value, unit) = split_number(key);
            numbers
                .0
                .entry(value.to_string())
                .or_default()
                .push(unit.map(str::to_string));
        }
        numbers
    }

    /// Whether a number key here states the same number as `key`.
    fn has(&self, key: &str) -> bool {
        let (value, unit) = split_number(key);
        self.0.get(value).is_some_and(|units| {
            unit.is_none() || units.iter().any(|u| u.is_none() || u.as_deref() == unit)
        })
    }
}

/// A number key's value and unit.
fn split_number(key: &str) -> (&str, Option<&str>) {
    key.split_once(' ')
        .map_or((key, None), |(v, u)| (v, Some(u)))
}

/// What a text states, ready to be asked whether it keeps another text's
/// fact: its facts indexed by kind and key (numbers by value), so that a
/// question costs the same however many facts it states.
pub struct Stated {
    facts: Vec<Fact>,
    keys: HashSet<(Kind, String)>,
    numbers: Numbers,
    lower: String,
    stems: HashSet<String>,
}

impl Stated {
    pub fn of(text: &str) -> Self {
        let facts = facts(text);
        Stated {
            keys: facts.iter().map(|f| (f.kind, f.key.clone())).collect(),
            numbers: Numbers::of(
                facts
                    .iter()
                    .filter(|f| f.kind == Kind::Number)
                    .map(|f| f.key.as_str()),
            ),
            facts,
            lower: text.to_lowercase(),
            stems: lists::stems_of(text),
        }
    }

    /// Whether this text states `fact`: the same key (a number with or
    /// without its unit), or for a name, its text anywhere (a name may open
    /// a sentence here, or sit in a longer word); for a list item, more
    /// than half of its content words anywhere ([`lists::kept`]).
    pub fn keeps(&self, fact: &Fact) -> bool {
        self.states(fact) || (fact.kind == Kind::Name && self.lower.contains(&fact.key))
    }

    /// [`Stated::keeps`] without looking for a name inside the text.
    fn states(&self, fact: &Fact) -> bool {
        match fact.kind {
            Kind::Item => lists::kept(&fact.key, &self.stems),
            Kind::Number => self.numbers.has(&fact.key),
            Kind::Name | Kind::Time | Kind::Date => {
                self.keys.contains(&(fact.kind, fact.key.clone()))
            }
        }
    }

    /// Which of `names` occur anywhere in this text (lower-cased), found in
    /// one pass over it whatever their number.
    fn names_within<'a>(&self, names: &[&'a str]) -> HashSet<&'a str> {
        let Ok(searcher) = aho_corasick::AhoCorasick::new(names) else {
            // Past the automaton's size limits: one search a name.
            return names
                .iter()
                .copied()
                .filter(|n| self.lower.contains(n))
                .collect();
        };
        searcher
            .find_overlapping_iter(&self.lower)
            .map(|m| names[m.pattern().as_usize()])
            .collect()
    }

    /// The keys under which this text may keep a fact ([`index_keys`] of
    /// each of its facts, each of its words as a name, each of its
    /// stems for a list item), for an index that finds, among many texts,
    /// those worth asking [`Stated::keeps`]. A name kept only inside a
    /// longer word is not among them.
    pub fn index_keys(&self) -> Vec<(Kind, String)> {
        self.facts
            .iter()
            .flat_map(|fact| match fact.kind {
                Kind::Item => Vec::new(),
                _ => fact.index_keys(),
            })
            .chain(
                self.lower
                    .split_whitespace()
                    .map(|w| (Kind::Name, trim_punctuation(w).to_string())),
            )
            .chain(self.stems.iter().map(|s| (Kind::Item, s.clone())))
            .collect()
    }
}

impl Fact {
    /// The keys an index files this fact under: a number by its value
    /// alone (`3 gb` and `3` may be the same number), anything else by its
    /// key; a list item, see [`index_keys`].
    fn index_keys(&self) -> Vec<(Kind, String)> {
        match self.kind {
            Kind::Number => vec![(
                self.kind,
                self.key.split(' ').next().unwrap_or_default().to_string(),
            )],
            _ => vec![(self.kind, self.key.clone())],
        }
    }

    /// Whether every text that keeps this fact has one of its
    /// [`index_keys`] among its own: not a name, which may be kept inside
    /// a longer word.
    pub fn indexed_whole(&self) -> bool {
        self.kind != Kind::Name
    }
}

/// The keys an index files each of `facts` under, for texts that give
/// [`Stated::index_keys`]. A list item is filed under the rarer half of
/// its stems (rarer among these facts) and the rarer half of its head's:
/// a text that keeps it has more than half of either, so one of those
/// ("X Y last week" under X and Y: a text with "last week" is not asked
/// about every item that ends so, however many there are).
pub fn index_keys(facts: &[Fact]) -> Vec<Vec<(Kind, String)>> {
    let mut items_with: HashMap<&str, usize> = HashMap::new();
    for fact in facts.iter().filter(|f| f.kind == Kind::Item) {
        for stem in fact.key.split([' ', '|']).filter(|s| !s.is_empty()) {
            *items_with.entry(stem).or_default() += 1;
        }
    }
    let rarer_half = |stems: &str| -> Vec<(Kind, String)> {
        let mut stems: Vec<&str> = stems.split(' ').filter(|s| !s.is_empty()).collect();
        stems.sort_by_key(|s| (items_with.get(s).copied().unwrap_or(0), *s));
        let half = stems.len().div_ceil(2);
        stems[..half]
            .iter()
            .map(|s| (Kind::Item, (*s).to_string()))
            .collect()
    };
    facts
        .iter()
        .map(|fact| match fact.kind {
            Kind::Item => fact.key.split(" | ").flat_map(rarer_half).collect(),
            _ => fact.index_keys(),
        })
        .collect()
}

/// The facts of `original` (each once, in order) that `decoded` does not
/// keep.
pub fn lost(original: &str, decoded: &str) -> Vec<Fact> {
    let kept = Stated::of(decoded);
    let mut seen = HashSet::new();
    let (_, unstated): (Vec<Fact>, Vec<Fact>) = facts(original)
        .into_iter()
        .filter(|f| seen.insert((f.kind, f.key.clone())))
        .partition(|f| kept.states(f));
    // The names not stated as facts may sit anywhere in the text: all
    // looked for in one pass (a search each grew with names × text: 32 s
    // for a text that lost 20,000 names).
    let names: Vec<&str> = unstated
        .iter()
        .filter(|f| f.kind == Kind::Name)
        .map(|f| f.key.as_str())
        .collect();
    let within: HashSet<String> = kept
        .names_within(&names)
        .into_iter()
        .map(str::to_string)
        .collect();
    unstated
        .into_iter()
        .filter(|f| !(f.kind == Kind::Name && within.contains(&f.key)))
        .collect()
}

/// What `decoded` lost or changed of the facts `original` states, and the
/// numbers, times, dates and identifiers it states that `original` does
/// not, each named: "`14:00` became `16:00`", "the name `orders_v2` is
/// missing", "the time `16:00` is not in the original".
pub fn fact_issues(original: &str, decoded: &str) -> Vec<String> {
    let kept = facts(decoded);
    let said: HashSet<(Kind, String)> = facts(original)
        .into_iter()
        .map(|f| (f.kind, f.key))
        .collect();
    let said_numbers = Numbers::of(
        said.iter()
            .filter(|(kind, _)| *kind == Kind::Number)
            .map(|(_, key)| key.as_str()),
    );
    let mut lost = lost(original, decoded);
    let new: Vec<&Fact> = kept
        .iter()
        .filter(|f| !said.contains(&(f.kind, f.key.clone())))
        .filter(|f| f.kind != Kind::Number || !said_numbers.has(&f.key))
        .collect();
    // The new facts of each kind in order, for the lost ones to be
    // matched with (a queue a kind: no scan of every new fact for each).
    let mut unmatched: HashMap<Kind, std::collections::VecDeque<usize>> = HashMap::new();
    for (at, fact) in new.iter().enumerate() {
        unmatched.entry(fact.kind).or_default().push_back(at);
    }
    let mut matched = vec![false; new.len()];
    let mut issues = Vec::new();
    // A negation lost where others remain ("Never raise it without asking"
    // → "Raise it without asking"): the polarity check sees both negate.
    // Not one added: a decoding says its target twice (the lead and the
    // clause it comes from), so "make sure nobody can read it" would count
    // two.
    let (said_negations, kept_negations) = (negations(original).len(), negations(decoded).len());
    if kept_negations > 0 && kept_negations < said_negations {
        issues.push(format!(
            "Negation lost: the original negates or forbids {said_negations} time(s), the decoded text {kept_negations}"
        ));
    }
    for fact in lost.drain(..) {
        // An item is missing, never replaced: a list of the decoding may
        // say the same items in other words.
        let replaced = (fact.kind != Kind::Item)
            .then(|| unmatched.get_mut(&fact.kind)?.pop_front())
            .flatten();
        match replaced {
            Some(at) => {
                matched[at] = true;
                let other = new[at];
                issues.push(format!(
                    "Fact changed: the {} `{}` became `{}`",
                    fact.kind.noun(),
                    fact.text,
                    other.text
                ));
            }
            None => issues.push(format!(
                "Fact missing: the {} `{}` is not in the decoded text",
                fact.kind.noun(),
                fact.text
            )),
        }
    }
    // What is left of `new` the decoding states alone: a deadline, an
    // amount or an identifier the original never gave ("… and drop the
    // `orders_v2` table at 16:00") is as wrong as one it lost. Not
    // counted: a list item, read by its words, which a decoding may
    // rephrase; a capitalised word or an acronym, which a decoding's
    // headings and list items make of words that name nothing
    // ("**Deployment Plan**", "Based on …", "SUMMARY"); a list's own
    // numbers at a line's start ("1.").
    let original = Stated::of(original);
    let unmarked: HashSet<(Kind, String)> = facts(&without_list_markers(decoded))
        .into_iter()
        .map(|f| (f.kind, f.key))
        .collect();
    let counted: Vec<&Fact> = new
        .into_iter()
        .zip(matched)
        .filter(|(fact, matched)| {
            !matched
                && match fact.kind {
                    Kind::Item => false,
                    Kind::Name => is_identifier(&fact.text) || is_path_or_url(&fact.text),
                    Kind::Number | Kind::Time | Kind::Date => true,
                }
                && unmarked.contains(&(fact.kind, fact.key.clone()))
                && !original.states(fact)
        })
        .map(|(fact, _)| fact)
        .collect();
    // Names the original may hold inside its text: looked for in one pass.
    let names: Vec<&str> = counted
        .iter()
        .filter(|f| f.kind == Kind::Name)
        .map(|f| f.key.as_str())
        .collect();
    let within = original.names_within(&names);
    let mut added = HashSet::new();
    for fact in counted {
        if !(fact.kind == Kind::Name && within.contains(fact.key.as_str()))
            && added.insert((fact.kind, fact.key.as_str()))
        {
            issues.push(format!(
                "Fact added: the {} `{}` is not in the original",
                fact.kind.noun(),
                fact.text
            ));
        }
    }
    issues
}

/// `text` without the marks that open a list item or a heading at a
/// line's start (`1.`, `2)`, `-`, `*`, `#`, `>`).
fn without_list_markers(text: &str) -> String {
    text.lines()
        .map(|line| {
            let rest = line.trim_start();
            let Some((first, after)) = rest.split_once(char::is_whitespace) else {
                return line;
            };
            let numbered = first
                .strip_suffix(['.', ')'])
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
            let marks = first.chars().all(|c| "#-*+>".contains(c));
            if numbered || marks { after } else { line }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests;
