//! The items of the lists a text enumerates ("offline mode for saved
//! articles, a redesigned settings screen, and a fix for the crash"): a
//! fact the similarity barely sees when one goes, and none of the number,
//! date or name kinds catches ("offline mode" is plain words).
//!
//! A list here is three items or more parted by commas, the last opened
//! by "and" or "or" ("A, B, and C", "A, B or C"), each inner item six
//! words at most (longer parts are clauses, not items). The first item
//! starts after the word that opens the list ("are", "include", a colon…)
//! or, with none near, is the last two words before its comma; the last
//! item stops at a word that opens a clause ("when", "which"…), eight
//! words at most. An item is kept by a text that says more than half of
//! its head's content words (before its first preposition) or of all of
//! them, compared by their stems; a word another item of the list has
//! does not count.

use std::collections::{HashMap, HashSet};

use super::brief;

/// One item of a list: as written, the stems of its head (its content
/// words before its first preposition: "offline mode" of "offline mode
/// for saved articles") and of all its content words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub text: String,
    head: Vec<String>,
    all: Vec<String>,
}

impl Item {
    /// The item as a key of words: the head's stems, then `|` and the
    /// others' when it has more; what [`kept`] reads.
    pub fn key(&self) -> String {
        if self.head == self.all {
            self.head.join(" ")
        } else {
            format!("{} | {}", self.head.join(" "), self.all.join(" "))
        }
    }
}

/// Whether a text whose word stems are `said` keeps the item of this
/// [`Item::key`]: more than half of the stems of its head, or of all its
/// words ("offline mode" is not kept by "dark mode support"; "offline
/// mode for saved articles" is by "saved articles offline").
pub fn kept(key: &str, said: &HashSet<String>) -> bool {
    key.split(" | ").any(|stems| {
        let (mut found, mut all) = (0, 0);
        for stem in stems.split(' ') {
            all += 1;
            found += usize::from(said.contains(stem));
        }
        found * 2 > all
    })
}

/// The most words an inner item has, and the most taken of the first
/// item.
const ITEM_WORDS: usize = 6;

/// The most words taken of the last item, which runs on to its clause's
/// end ("and a fix for the crash on Android 14 when …").
const LAST_WORDS: usize = 8;

/// Words after which the first item of a list starts ("The main changes
/// are offline mode, …", "including logs, …").
const OPENERS: &[&str] = &[
    "are",
    "is",
    "were",
    "was",
    "include",
    "includes",
    "included",
    "including",
    "like",
    "as",
    "namely",
    "covering",
    "cover",
    "covers",
    "between",
];

/// Words that open a sentence, not a list ("First, eight incidents …").
const DISCOURSE: &[&str] = &[
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "finally",
    "next",
    "then",
    "however",
    "also",
    "meanwhile",
    "instead",
    "otherwise",
    "still",
    "now",
    "so",
    "yes",
    "no",
    "ok",
    "okay",
    "well",
    "today",
    "yesterday",
    "tomorrow",
    "unfortunately",
    "fortunately",
    "overall",
    "anyway",
];

/// Prepositions: a part that opens with one is a phrase of the sentence,
/// not an item ("between 01:00 and 05:00 UTC", "in five of those").
const PREPOSITIONS: &[&str] = &[
    "in", "on", "at", "by", "for", "with", "from", "to", "of", "between", "during", "into",
    "about", "after", "before", "since", "until", "except", "via", "per", "without", "under",
    "over",
];

/// Pronouns and auxiliaries: a part with one says something of a subject.
const PRONOUNS_AND_AUXILIARIES: &[&str] = &[
    "i", "we", "you", "he", "she", "it", "they", "is", "are", "was", "were", "has", "have", "had",
    "will", "would", "can", "could", "should", "must", "may", "might", "be", "been", "do", "does",
    "did",
];

/// Words that open a clause: the last item stops before one, and an inner
/// part that starts with one is a clause, not an item.
const CLAUSE_WORDS: &[&str] = &[
    "when", "which", "that", "who", "where", "while", "because", "since", "so", "but", "if",
    "unless", "then", "although", "though", "before", "after", "until", "except",
];

/// The items of every list in `text`, in order.
pub fn items(text: &str) -> Vec<Item> {
    sentences(text).flat_map(list_items).collect()
}

/// The word stems of a text, to ask [`kept`].
pub fn stems_of(text: &str) -> HashSet<String> {
    words_of(text).map(stem).collect()
}

/// The words of a text, parted at anything but letters, digits and
/// apostrophes (`point-of-sale` is three words, `orders_v2` two).
fn words_of(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
}

/// A text cut at the ends of its sentences (a stop, `!` or `?` before a
/// space or the end, a line end) and at semicolons: a list stays inside
/// one.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_is_space = chars.peek().is_none_or(|&(_, n)| n.is_whitespace());
        let end = match c {
            '\n' | ';' => true,
            '.' | '!' | '?' => next_is_space,
            _ => false,
        };
        if end {
            out.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    out.push(&text[start..]);
    out.into_iter().filter(|s| !s.trim().is_empty())
}

/// A word without the punctuation around it, in lower case.
fn lower_bare(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

/// The items of the lists in one sentence, read without what it says in
/// parentheses ("the export (sales.csv, about 2 GB), the snapshot, …": the
/// facts inside are numbers and names), parted at a comma before a space
/// (not inside `1,500`).
fn list_items(sentence: &str) -> Vec<Item> {
    let bare = without_parentheses(sentence);
    let parts: Vec<&str> = bare.split(", ").collect();
    let mut out = Vec::new();
    let mut first = 0;
    while first + 1 < parts.len() {
        match list_at(&parts, first) {
            Ok((items, end)) => {
                out.extend(distinct(items));
                first = end;
            }
            // A list that starts between `first` and the part that ended
            // the search would end there too: each part is looked at about
            // once, however many commas a hostile text has.
            Err(stopped) => first = stopped.max(first + 1),
        }
    }
    out
}

/// The items of one list, each by the stems no other item of the list
/// has (when it has one): "mode" says nothing of which of "offline mode"
/// and "dark mode support" a text kept.
fn distinct(items: Vec<Item>) -> Vec<Item> {
    // In how many items each stem is (each item's stems are distinct).
    let mut items_with: HashMap<String, usize> = HashMap::new();
    for stem in items.iter().flat_map(|item| &item.all) {
        *items_with.entry(stem.clone()).or_default() += 1;
    }
    let own = |stems: Vec<String>| -> Vec<String> {
        let own: Vec<String> = stems
            .iter()
            .filter(|s| items_with.get(*s) == Some(&1))
            .cloned()
            .collect();
        if own.is_empty() { stems } else { own }
    };
    items
        .into_iter()
        .map(|item| Item {
            text: item.text,
            head: own(item.head),
            all: own(item.all),
        })
        .collect()
}

/// A text without its parenthesised parts; an unclosed parenthesis runs
/// to the end.
fn without_parentheses(text: &str) -> String {
    let mut depth = 0usize;
    text.chars()
        .filter(|&c| {
            match c {
                '(' => depth += 1,
                ')' if depth > 0 => {
                    depth -= 1;
                    return false;
                }
                _ => {}
            }
            depth == 0
        })
        .collect()
}

/// The list whose first item ends `parts[first]`, if there is one: its
/// items and the index of the part after it; if not, the index of the
/// part where the search stopped. Each part after the first is
/// an item ([`is_item`]) up to the last, which opens with "and" or "or"
/// ("A, B, and C") or holds the last two items ("A, B and C", where no
/// item follows: in "id, created and closed times, category" the "and" is
/// inside an item).
fn list_at(parts: &[&str], first: usize) -> Result<(Vec<Item>, usize), usize> {
    let first_words: Vec<&str> = parts[first].split_whitespace().collect();
    if let [only] = first_words.as_slice()
        && DISCOURSE.contains(&lower_bare(only).as_str())
    {
        return Err(first + 1);
    }
    if first_words
        .first()
        .is_some_and(|w| CLAUSE_WORDS.contains(&lower_bare(w).as_str()))
    {
        return Err(first + 1);
    }
    let mut inner: Vec<&str> = Vec::new();
    for (at, part) in parts.iter().enumerate().skip(first + 1) {
        let words: Vec<&str> = part.split_whitespace().collect();
        let Some(opener) = words.first().map(|w| lower_bare(w)) else {
            return Err(at);
        };
        let list = |inner: &[&str], last: Option<Vec<Item>>| {
            let mut items = vec![first_item(parts[first]).ok_or(at)?];
            items.extend(inner.iter().filter_map(|p| item(p)));
            items.extend(last.ok_or(at)?);
            Ok((items, at + 1))
        };
        if opener == "and" || opener == "or" {
            // "A, B, and C": C after the conjunction; "A, and B" is no list.
            if inner.is_empty() {
                return Err(at);
            }
            return list(&inner, last_item(&words[1..]).map(|last| vec![last]));
        }
        let followed = parts.get(at + 1).is_some_and(|next| {
            let next: Vec<&str> = next.split_whitespace().collect();
            is_item(&next) || next.first().is_some_and(|w| is_conjunction(w))
        });
        // "A, B and C": the part holds the last two items.
        if !followed
            && let Some(and) = words.iter().rposition(|w| is_conjunction(w))
            && and > 0
            && is_item(&words[..and])
        {
            let before = item(&words[..and].join(" "));
            let last = last_item(&words[and + 1..]);
            return list(&inner, before.zip(last).map(|(b, l)| vec![b, l]));
        }
        if !is_item(&words) {
            return Err(at);
        }
        inner.push(part);
    }
    Err(parts.len())
}

fn is_conjunction(word: &str) -> bool {
    matches!(lower_bare(word).as_str(), "and" | "or")
}

/// Whether these words can be an item of a list rather than a clause: six
/// words at most, none a pronoun or an auxiliary ("three missed it
/// narrowly", "was adopted in August"), not opened by a word that opens a
/// clause or a preposition ("between 01:00 and 05:00").
fn is_item(words: &[&str]) -> bool {
    let Some(first) = words.first() else {
        return false;
    };
    let first = lower_bare(first);
    words.len() <= ITEM_WORDS
        && !CLAUSE_WORDS.contains(&first.as_str())
        && !PREPOSITIONS.contains(&first.as_str())
        && !words.iter().any(|w| is_clause_word(w))
}

/// A pronoun or an auxiliary: a part that has one is a clause.
fn is_clause_word(word: &str) -> bool {
    PRONOUNS_AND_AUXILIARIES.contains(&lower_bare(word).as_str())
}

/// The first item: the words of its part after the word that opens the
/// list, within six words; or, with none, its last two words.
fn first_item(part: &str) -> Option<Item> {
    let words: Vec<&str> = part.split_whitespace().collect();
    let tail = &words[words.len().saturating_sub(ITEM_WORDS)..];
    let start = tail
        .iter()
        .rposition(|w| w.ends_with(':') || OPENERS.contains(&lower_bare(w).as_str()))
        .map_or(tail.len().saturating_sub(2), |at| at + 1);
    item(&tail[start..].join(" "))
}

/// The last item: its words up to a word that opens a clause or says
/// when ("by the end of the sprint", "during the freeze"), eight at most;
/// none if they are a clause ("and two missed it badly", "and in five of
/// those the change had passed").
fn last_item(words: &[&str]) -> Option<Item> {
    let end = words
        .iter()
        .position(|w| {
            let lower = lower_bare(w);
            CLAUSE_WORDS.contains(&lower.as_str()) || lower == "by" || lower == "during"
        })
        .unwrap_or(words.len())
        .min(LAST_WORDS);
    let words = &words[..end];
    let opener = lower_bare(words.first()?);
    if PREPOSITIONS.contains(&opener.as_str()) || words.iter().any(|w| is_clause_word(w)) {
        return None;
    }
    item(&words.join(" "))
}

/// An item of these words, if it has a content word: the stems of its
/// telegraphic words, split as [`stems_of`] splits a text; its head stops
/// at its first preposition ("dark mode support for every region": the
/// words after often belong to the sentence).
fn item(text: &str) -> Option<Item> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let head = words
        .iter()
        .skip(1)
        .position(|w| PREPOSITIONS.contains(&lower_bare(w).as_str()))
        .map_or(text.to_string(), |at| words[..=at].join(" "));
    let all = content_stems(text);
    let head = Some(content_stems(&head))
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| all.clone());
    (!all.is_empty()).then(|| Item {
        text: text.trim().to_string(),
        head,
        all,
    })
}

/// The stems of a text's telegraphic words, each once.
fn content_stems(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words_of(&brief::telegraphic(text))
        .map(stem)
        .filter(|s| seen.insert(s.clone()))
        .collect()
}

/// A word's stem as compared: lower case, without a plural's or a past's
/// or a gerund's ending ("settings" and "setting", "redesigned" and
/// "redesign" alike).
fn stem(word: &str) -> String {
    let mut w = lower_bare(word).replace('’', "'");
    if w.len() > 4 && w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        w.pop();
    }
    for suffix in ["ing", "ed"] {
        if w.len() > suffix.len() + 2 && w.ends_with(suffix) {
            w.truncate(w.len() - suffix.len());
            break;
        }
    }
    if w.len() > 3 && w.ends_with('e') {
        w.pop();
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<String> {
        items(text).into_iter().map(|i| i.text).collect()
    }

    #[test]
    fn a_list_is_three_items_or_more_the_last_after_and_or_or() {
        assert_eq!(
            texts(
                "The main changes are offline mode for saved articles, a redesigned settings \
                 screen, and a fix for the crash on Android 14 when rotating the screen."
            ),
            [
                "offline mode for saved articles",
                "a redesigned settings screen",
                "a fix for the crash on Android 14"
            ]
        );
        assert_eq!(
            texts("Check the logs, metrics and traces."),
            ["the logs", "metrics", "traces"]
        );
        assert_eq!(
            texts("Pick one of Postgres, MySQL, or SQLite; then tell me."),
            ["of Postgres", "MySQL", "SQLite"]
        );
        // Two items, or clauses parted by commas, are no list.
        assert!(texts("Fix the login bug and the signup bug.").is_empty());
        assert!(
            texts(
                "We migrated the service last week, which took longer than planned because \
                 the schema changed twice, and the team is tired."
            )
            .is_empty()
        );
        assert!(texts("Hi Ana, thanks.").is_empty());
    }

    #[test]
    fn an_item_is_kept_by_more_than_half_its_content_words() {
        let list = items("We shipped offline mode, a redesigned settings screen, and dark mode.");
        let said = stems_of("Shipped offline mode, dark mode, and a new setting screen.");
        let kept_items: Vec<bool> = list.iter().map(|i| kept(&i.key(), &said)).collect();
        assert_eq!(kept_items, [true, true, true]);
        let said = stems_of("Shipped offline mode and dark mode; fixed the screen.");
        let kept_items: Vec<bool> = list.iter().map(|i| kept(&i.key(), &said)).collect();
        assert_eq!(kept_items, [true, false, true]);
    }

    /// Each part is looked at about once: a text of 50,000 commas would
    /// take hours if every part started a new search to the end.
    #[test]
    fn a_hostile_run_of_commas_is_read_once() {
        let parts: Vec<String> = (0..50_000).map(|n| format!("item{n}")).collect();
        let unended = format!("Check {}.", parts.join(", "));
        assert!(items(&unended).is_empty());
        let listed = format!("Check {} and the rest.", parts.join(", "));
        assert_eq!(items(&listed).len(), 50_001);
    }

    #[test]
    fn stems_read_plurals_and_tenses_alike() {
        for (a, b) in [
            ("settings", "setting"),
            ("redesigned", "redesign"),
            ("queries", "query"),
            ("rotating", "rotate"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} {b}");
        }
        assert_ne!(stem("class"), stem("clas"));
    }
}
