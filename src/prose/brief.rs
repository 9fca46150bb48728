//! The content of a signal in few tokens: prose cut into sentences, each
//! written telegraphically (articles, auxiliaries, pronouns and politeness
//! dropped; negations, numbers, names and every content word kept, never a
//! word cut), and the sentences that matter most chosen within a budget.

use super::meaning;

/// Words a telegraphic sentence leaves out: they carry grammar, not
/// meaning. Negations are never among them ([`meaning::is_negation`]).
const FILLER: &[&str] = &[
    "a",
    "an",
    "the",
    "to",
    "of",
    "and",
    "for",
    "in",
    "on",
    "at",
    "by",
    "with",
    "from",
    "that",
    "this",
    "these",
    "those",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "it",
    "its",
    "we",
    "our",
    "us",
    "you",
    "your",
    "i",
    "me",
    "my",
    "they",
    "them",
    "their",
    "please",
    "could",
    "would",
    "can",
    "will",
    "shall",
    "should",
    "just",
    "also",
    "very",
    "really",
    "so",
    "then",
    "there",
    "here",
    "as",
    "into",
    "about",
    "which",
    "who",
    "whom",
    "because",
    "some",
    "such",
    "too",
    "do",
    "does",
    "did",
    "have",
    "has",
    "had",
    "need",
    "want",
    "like",
    "sure",
    "make",
    "kindly",
    "hey",
    "hi",
    "hello",
    "thanks",
    "thank",
    "okay",
    "ok",
    "let",
    "know",
    "i'm",
    "we're",
    "it's",
    "that's",
    "there's",
    "you're",
    "i'd",
    "we'd",
    "i'll",
    "we'll",
    "you'll",
    "am",
    "all",
    "any",
    "both",
    "each",
    "other",
    "own",
    "same",
    "quite",
    "rather",
    "actually",
    "basically",
    "currently",
    "going",
    "get",
    "got",
];

/// One sentence of the source (or one clause of a long one), and its
/// telegraphic form.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentence {
    /// Where it stands among the text's sentences and clauses.
    pub index: usize,
    pub text: String,
    pub brief: String,
    /// Whether the whole sentence it is part of constrains
    /// ([`is_constraint`]): the clauses of one sentence go to one field, so
    /// a decoding reads them together.
    pub constrains: bool,
    /// Whether the whole sentence it is part of asks something of the
    /// receiver ([`asks`]): a question, a decision wanted.
    pub asks: bool,
    /// Whether it continues the clause before it in one statement cut
    /// finer ([`fine_clauses`]): kept together, the two are one note.
    pub continues: bool,
}

/// The sentences of a text: split after `.`, `!` or `?` followed by a
/// space (not inside `v2.4` or `gateway.py`), and at line ends (a list
/// item is a sentence); a long sentence cut into its [`clauses`].
pub fn sentences(text: &str) -> Vec<Sentence> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim().trim_start_matches(['-', '*', '•']).trim();
        let mut start = 0;
        let bytes = line.as_bytes();
        for (i, c) in line.char_indices() {
            let ends = matches!(c, '.' | '!' | '?')
                && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace());
            if ends {
                push(&mut out, &line[start..=i]);
                start = i + 1;
            }
        }
        push(&mut out, &line[start..]);
    }
    out
}

fn push(out: &mut Vec<Sentence>, text: &str) {
    let text = text.trim();
    let constrains = is_constraint(text);
    let asks = asks(text);
    // The request's sentence (the first but a greeting) keeps the coarse
    // cuts: "analyze X and tell me Y" is one request.
    let fine = out.iter().any(|s| !is_greeting(&s.text))
        && !constrains
        && meaning::negations(text).is_empty();
    let parts = if fine {
        fine_clauses(text)
    } else {
        clauses(text)
    };
    let mut first = true;
    for clause in parts {
        let clause = clause.trim();
        if clause.chars().any(char::is_alphanumeric) {
            out.push(Sentence {
                index: out.len(),
                text: clause.to_string(),
                brief: telegraphic(&super::merge::shared_units(clause)),
                constrains,
                asks,
                continues: fine && !first,
            });
            first = false;
        }
    }
}

/// Phrases with which a sentence asks something of its receiver.
const ASKING: &[&str] = &[
    "please",
    "can you",
    "could you",
    "would you",
    "will you",
    "let me know",
    "tell me",
    "i need you",
    "we need you",
    "need your",
    "need a decision",
    "need a call",
    "need an answer",
    "need approval",
    "need sign-off",
];

/// Whether a sentence asks something of its receiver: a question ("Does
/// the discount apply to logs?") or a phrase that asks ("please …", "let
/// me know …", "we need a decision by Friday"). Dropped, the receiver
/// never hears what it was asked.
pub fn asks(sentence: &str) -> bool {
    let lower = sentence.to_lowercase().replace('’', "'");
    lower.trim_end().ends_with('?') || ASKING.iter().any(|cue| contains_phrase(&lower, cue))
}

/// Words that open a clause of their own after a comma.
const CLAUSE_OPENERS: &[&str] = &[
    "and",
    "but",
    "so",
    "which",
    "where",
    "while",
    "whereas",
    "because",
    "although",
    "though",
    "except",
    "unless",
    "since",
    "then",
    "or",
    "otherwise",
];

/// The fewest words either side of a cut: a list ("logs, metrics, and
/// traces") is not cut into clauses.
const CLAUSE_WORDS: usize = 5;

/// A sentence cut into its clauses: at a semicolon or a dash, and at a
/// comma that a conjunction or relative word follows, where each side has
/// at least five words. The unit the encoder keeps or drops:
/// a long sentence often carries one fact or one prohibition in one of
/// its clauses.
pub fn clauses(sentence: &str) -> Vec<&str> {
    let words = words_at(sentence);
    let mut out = Vec::new();
    let (mut start, mut since) = (0, 0);
    for (n, &(_, word)) in words.iter().enumerate() {
        since += 1;
        let Some(&(next_at, next)) = words.get(n + 1) else {
            break;
        };
        let next = next.to_lowercase();
        let cut = word.ends_with(';')
            || matches!(next.as_str(), "—" | "–" | "--")
            || (word.ends_with(',') && CLAUSE_OPENERS.contains(&next.as_str()));
        if cut && since >= CLAUSE_WORDS && words.len() - (n + 1) >= CLAUSE_WORDS {
            out.push(&sentence[start..next_at]);
            (start, since) = (next_at, 0);
        }
    }
    out.push(&sentence[start..]);
    out
}

/// Words that open a greeting line ("Hi Ana,", "Dear team,").
const GREETINGS: &[&str] = &["hi", "hello", "hey", "dear", "greetings", "morning", "good"];

/// Who a greeting is addressed to, besides names.
const ADDRESSED: &[&str] = &[
    "team",
    "all",
    "everyone",
    "there",
    "folks",
    "morning",
    "afternoon",
    "evening",
];

/// Whether a sentence is a greeting: three words at most, the first a
/// greeting word and the others names or whom it greets ("Hi Ana,",
/// "Good morning team,"; not "Hey, fix it.").
fn is_greeting(text: &str) -> bool {
    let bare = |w: &str| w.trim_end_matches([',', '!', '.', ':']).to_string();
    let words: Vec<String> = text.split_whitespace().map(bare).collect();
    words.len() <= 3
        && words
            .first()
            .is_some_and(|w| GREETINGS.contains(&w.to_lowercase().as_str()))
        && words[1..].iter().all(|w| {
            w.starts_with(|c: char| c.is_uppercase())
                || ADDRESSED.contains(&w.to_lowercase().as_str())
        })
}

/// Where the request is among a text's clauses: the first one, or the
/// first after a greeting.
pub fn request_index(sentences: &[Sentence]) -> usize {
    sentences
        .iter()
        .position(|s| !is_greeting(&s.text))
        .unwrap_or(0)
}

/// Words that open a clause of their own even without a comma.
const FINE_OPENERS: &[&str] = &[
    "and", "but", "so", "which", "while", "whereas", "because", "although",
];

/// The fewest words either side of a fine cut at a comma, colon or dash.
const FINE_WORDS: usize = 3;

/// The fewest words either side of a cut before a conjunction with no
/// comma: "with the plan names and prices of each month" is one phrase.
const FINE_WORDS_BARE: usize = 5;

/// A statement cut finer than [`clauses`]: at every comma, colon or dash
/// and before a conjunction, where each side has at least three words. A
/// list ("the logs, metrics, and traces") is not cut: the words between
/// two commas must be three or more on both sides of a cut too.
pub fn fine_clauses(sentence: &str) -> Vec<&str> {
    let words = words_at(sentence);
    let ends_part = |word: &str| word.ends_with([';', ',', ':']);
    // How many words from each word to the end of its comma-separated part.
    let mut to_part_end = vec![0; words.len()];
    let mut count = 0;
    for (n, &(_, word)) in words.iter().enumerate().rev() {
        if ends_part(word) {
            count = 0;
        }
        count += 1;
        to_part_end[n] = count;
    }
    let mut out = Vec::new();
    let (mut start, mut since, mut since_part) = (0, 0, 0);
    for (n, &(_, word)) in words.iter().enumerate() {
        since += 1;
        since_part += 1;
        let Some(&(next_at, next)) = words.get(n + 1) else {
            break;
        };
        let next = next.to_lowercase();
        let at_comma = ends_part(word);
        let dash = matches!(next.as_str(), "—" | "–" | "--");
        let cut = at_comma || dash || FINE_OPENERS.contains(&next.as_str());
        let least = if at_comma || dash {
            FINE_WORDS
        } else {
            FINE_WORDS_BARE
        };
        if cut
            && since >= least
            && since_part >= least
            && words.len() - (n + 1) >= least
            && (!at_comma || to_part_end[n + 1] >= FINE_WORDS)
        {
            out.push(&sentence[start..next_at]);
            (start, since) = (next_at, 0);
        }
        if at_comma {
            since_part = 0;
        }
    }
    out.push(&sentence[start..]);
    out
}

/// The words of a text with their byte offsets.
fn words_at(text: &str) -> Vec<(usize, &str)> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(at)) => {
                words.push((at, &text[at..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(at) = start {
        words.push((at, &text[at..]));
    }
    words
}

/// A sentence without its filler words and its stops; words are kept
/// whole and in order, and commas stay between them. Filler that makes a
/// limit stays with it: "at most", "at least", "up to" (a bound, where
/// "most 10,000" or "up 68 minutes" would not be one), so do a range's
/// "to", a condition's "if", "so far" and a verb a negation turns ("don't
/// need").
pub fn telegraphic(sentence: &str) -> String {
    // A number, or a name ("Saturday", "EU"), as written.
    let names_or_numbers = |word: &str| {
        word.chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c.is_uppercase())
            && !word.ends_with([',', ';', '.', ':'])
    };
    let starts_with_digit = |word: &str| word.starts_with(|c: char| c.is_ascii_digit());
    let bare_lower = |word: &str| {
        let bare = word.trim_matches(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'));
        bare.to_lowercase().replace('’', "'")
    };
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let lowered: Vec<String> = words.iter().map(|w| bare_lower(w)).collect();
    let mut kept: Vec<String> = Vec::new();
    let mut comma_pending = false;
    for (i, &word) in words.iter().enumerate() {
        let lower = lowered[i].as_str();
        if lower.is_empty() {
            continue;
        }
        let next = lowered.get(i + 1).map_or("", String::as_str);
        let previous = i.checked_sub(1).map_or("", |p| lowered[p].as_str());
        let bound = (lower == "at" && (next == "most" || next == "least"))
            || (lower == "to" && previous == "up")
            // A range or a move: "24 to 48 hours", "from Saturday to
            // Sunday".
            || (lower == "to"
                && i > 0
                && names_or_numbers(words[i - 1])
                && words.get(i + 1).is_some_and(|w| names_or_numbers(w)))
            // A part of a whole: "212 of 212 jobs" is not "212 212 jobs".
            || (lower == "of"
                && i > 0
                && starts_with_digit(words[i - 1])
                && words.get(i + 1).is_some_and(|w| starts_with_digit(w)))
            // "so far none has it" is not "far none".
            || (lower == "so" && next == "far")
            // "We don't need the report" is not "don't report", a
            // prohibition; "I don't know whether" is not "don't whether".
            || (NEGATED_VERBS.contains(&lower) && meaning::is_negation(previous));
        // A comma stays: it parts the items of a list ("offline mode,
        // redesigned settings screen, fix crash") that would otherwise
        // run together. The comma of a dropped word ("keep it, and …")
        // goes to the word kept before it.
        let ends_comma = word.trim_end_matches([')', '"']).ends_with(',');
        if bound || meaning::is_negation(lower) || !FILLER.contains(&lower) {
            if comma_pending
                && let Some(last) = kept.last_mut()
                && !last.ends_with(',')
            {
                last.push(',');
            }
            comma_pending = false;
            // Stops go; a colon or inner punctuation (a file name, a
            // version, a ratio) stays.
            let mut bare = word
                .trim_end_matches([',', ';', '.', '!', '?'])
                .trim_start_matches(['(', '"'])
                .to_string();
            if ends_comma {
                bare.push(',');
            }
            kept.push(bare);
        } else if ends_comma {
            comma_pending = true;
        }
    }
    kept.join(" ").trim_end_matches([')', '"', ',']).to_string()
}

/// Filler verbs a negation before them turns into what the sentence
/// says: "don't need", "doesn't know", "didn't have".
const NEGATED_VERBS: &[&str] = &[
    "need", "want", "know", "have", "has", "had", "like", "make", "do", "does", "did",
];

/// Whether a sentence says what must or must not happen: a prohibition
/// ("do not", "never", "avoid"…) or a requirement or limit ("must",
/// "only", "at most"…). A statement that merely negates ("volume alone
/// does not explain it", "we do not know how", "it was never lowered")
/// is not one: it stays a note, in its place, with its negation. Nor is a
/// question ("does it apply to logs only?"): it asks, it does not rule.
pub fn is_constraint(sentence: &str) -> bool {
    let lower = sentence.to_lowercase().replace('’', "'");
    if lower.trim_end().ends_with('?') {
        return false;
    }
    IMPERATIVE_PROHIBITIONS
        .iter()
        .chain(IMPERATIVE_REQUIREMENTS)
        .any(|cue| imperative_phrase(&lower, cue))
        || PROHIBITIONS
            .iter()
            .chain(meaning::FORBIDDING)
            .any(|cue| contains_phrase(&lower, cue))
        || contains_phrase(&lower, "must")
        || (LIMITS.iter().any(|cue| contains_phrase(&lower, cue)) && !reports(&lower))
}

/// Words that limit wherever they stand in a rule ("Use only the EU
/// region", "A short report, at most four pages"), and that a statement
/// uses too ("traffic only grew 5%", "the alert fired within seven
/// minutes"): see [`reports`].
const LIMITS: &[&str] = &[
    "only",
    "at most",
    "at least",
    "no more than",
    "no longer than",
    "within",
    "limit",
    "required",
    "maximum",
    "minimum",
];

/// Words that open a statement about something, not a command: a
/// determiner, a subject (not "you": what is said to the receiver is
/// often its rule), a preposition, a number, "whether".
const STATEMENT_OPENERS: &[&str] = &[
    "the", "a", "an", "this", "that", "these", "those", "our", "their", "its", "his", "her", "my",
    "i", "we", "it", "they", "he", "she", "there", "someone", "everyone", "nobody", "for", "in",
    "on", "at", "by", "over", "during", "after", "before", "since", "of", "from", "with",
    "whether", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
];

/// Words a sentence that opens so may pass before its opener: "First, the
/// document assumes …".
const DISCOURSE: &[&str] = &[
    "first", "second", "third", "fourth", "fifth", "finally", "also", "and", "but", "so", "then",
    "however",
];

/// A verb that says what is or was: a form of be, have or do, or a
/// common past tense.
const FINITE: &[&str] = &[
    "is", "are", "was", "were", "has", "have", "had", "does", "did", "isn't", "aren't", "wasn't",
    "weren't", "hasn't", "haven't", "hadn't", "doesn't", "didn't", "went", "grew", "rose", "fell",
    "took", "came", "made", "got", "gave", "said", "saw", "found", "left", "ran", "began",
    "brought", "kept", "sent", "spent", "built", "wrote", "chose", "broke", "held", "met", "paid",
    "sold", "told", "thought", "knew", "became", "stood", "won", "lost",
];

/// Words that make a sentence ask or require whatever else it says.
const WANTING: &[&str] = &[
    "should",
    "need",
    "needs",
    "want",
    "wants",
    "would like",
    "has to",
    "have to",
    "shall",
];

/// Whether a sentence reports rather than rules: it opens as a statement
/// ([`STATEMENT_OPENERS`], after "First," and the like), says what is or
/// was (a form of be, have or do, a past tense: "went", "fired"), and
/// neither requires nor wants ("should", "need"…). "The total went up
/// 22% while traffic only grew 5%" reports; "I only need titles and
/// links", "The dashboard should show …, at least once", "A short report,
/// at most four pages" and "Include a list …, ordered by impact within
/// six weeks" rule.
fn reports(lower: &str) -> bool {
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '\'')))
        .filter(|w| !w.is_empty())
        .collect();
    let Some(opener) = words.iter().find(|w| !DISCOURSE.contains(w)) else {
        return false;
    };
    let past = |w: &str| w.len() >= 5 && w.ends_with("ed") && !w.ends_with("eed");
    // "our CDC setup only guarantees order per partition": after "only",
    // a word in -s is the subject's verb.
    let only_does = words.windows(2).any(|pair| {
        pair[0] == "only"
            && pair[1].len() >= 4
            && pair[1].ends_with('s')
            && !pair[1].ends_with("ss")
    });
    STATEMENT_OPENERS.contains(opener)
        && (only_does || words.iter().any(|w| FINITE.contains(w) || past(w)))
        && !WANTING.iter().any(|cue| contains_phrase(lower, cue))
}

/// Phrases that forbid wherever they stand, besides
/// [`meaning::FORBIDDING`]'s words: "we must not", "it may not" rule.
const PROHIBITIONS: &[&str] = &[
    "must not",
    "mustn't",
    "should not",
    "shouldn't",
    "may not",
    "not allowed",
];

/// Phrases that forbid only as a command ([`imperative_phrase`]): "Do
/// not merge", "please never", "you can't"; after another subject they
/// state a fact ("we do not know how", "it was never lowered", "I can't
/// reproduce it").
const IMPERATIVE_PROHIBITIONS: &[&str] = &["do not", "don't", "dont", "never", "cannot", "can't"];

/// Requirements only as a command: "Keep it to five bullet points",
/// "ensure the job is idempotent"; "the decisions were … to keep the
/// monolith" reports one.
const IMPERATIVE_REQUIREMENTS: &[&str] = &["keep it", "keep the", "ensure", "make sure"];

/// Words that may stand between a clause's start and its command.
const BEFORE_COMMAND: &[&str] = &[
    "please", "and", "but", "so", "then", "just", "also", "you", "should", "must",
];

/// Whether `phrase` stands in `lower` as a command: at the start of the
/// sentence or of a clause (after `,` `;` `:` or a dash), with only
/// [`BEFORE_COMMAND`] words before it.
fn imperative_phrase(lower: &str, phrase: &str) -> bool {
    phrase_starts(lower, phrase).any(|i| {
        let clause = lower[..i]
            .rsplit([',', ';', ':', '—', '–', '(', '.'])
            .next()
            .unwrap_or("");
        clause
            .split_whitespace()
            .all(|w| BEFORE_COMMAND.contains(&w.trim_matches(|c: char| !c.is_alphanumeric())))
    })
}

fn contains_phrase(lower: &str, phrase: &str) -> bool {
    phrase_starts(lower, phrase).next().is_some()
}

/// Where `phrase` stands in `lower` as whole words.
fn phrase_starts<'a>(lower: &'a str, phrase: &'a str) -> impl Iterator<Item = usize> + 'a {
    lower
        .match_indices(phrase)
        .map(|(i, _)| i)
        .filter(move |&i| {
            let before = lower[..i].chars().next_back();
            let after = lower[i + phrase.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
}

/// How much a sentence is worth keeping: the request ([`request_index`])
/// most, then sentences that forbid or constrain, then numbers and names,
/// then words the rest of the text repeats (what it is about); earlier
/// sentences a little more than later ones.
pub fn ranked(sentences: &[Sentence]) -> Vec<usize> {
    let request = request_index(sentences);
    let mut frequency: std::collections::HashMap<String, f64> = std::collections::HashMap::new();
    for s in sentences {
        for w in s.brief.split_whitespace() {
            *frequency.entry(w.to_lowercase()).or_default() += 1.0;
        }
    }
    let mut scored: Vec<(f64, usize)> = sentences
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let words: Vec<String> = s.brief.split_whitespace().map(str::to_lowercase).collect();
            let central =
                words.iter().map(|w| frequency[w]).sum::<f64>() / words.len().max(1) as f64;
            let mut score = central / (1.0 + 0.05 * i as f64);
            if i == request {
                score += 100.0;
            }
            if !meaning::negations(&s.text).is_empty() {
                score += 50.0;
            } else if is_constraint(&s.text) {
                score += 3.0;
            }
            if s.text.chars().any(|c| c.is_ascii_digit()) {
                score += 1.0;
            }
            (score, i)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn telegraphic_keeps_negations_numbers_and_whole_words() {
        assert_eq!(
            telegraphic("Please do not deploy the API to production before 5pm, version 2.4."),
            "not deploy API production before 5pm, version 2.4"
        );
        // A negated need is no prohibition: "don't report" would be one.
        assert_eq!(
            telegraphic("We don't need the report in gateway.py"),
            "don't need report gateway.py"
        );
        assert_eq!(
            telegraphic("I don't know whether that has happened yet."),
            "don't know whether happened yet"
        );
        // A condition, a range and "so far" keep their words.
        assert_eq!(
            telegraphic("If the review takes the usual 24 to 48 hours, we ship on the 12th."),
            "If review takes usual 24 to 48 hours, ship 12th"
        );
        assert_eq!(telegraphic("So far none has it."), "So far none has");
        // Commas part a list's items and a sentence's commands.
        assert_eq!(
            telegraphic(
                "The main changes are offline mode for saved articles, a redesigned \
                 settings screen, and a fix for the crash."
            ),
            "main changes offline mode saved articles, redesigned settings screen, fix crash"
        );
        assert_eq!(
            telegraphic("Keep it, and avoid the old tables, please."),
            "Keep, avoid old tables"
        );
        assert_eq!(
            telegraphic("The window moved from Saturday to Sunday night, 22:00 to 02:00 UTC."),
            "window moved Saturday to Sunday night, 22:00 to 02:00 UTC"
        );
        assert_eq!(
            telegraphic("Send it to the team, to Lukas."),
            "Send team, Lukas"
        );
        // A part of a whole keeps its "of"; a name's does not ("most of
        // Berlin").
        assert_eq!(
            telegraphic("212 of 212 jobs now run in Airflow, most of Berlin too."),
            "212 of 212 jobs now run Airflow, most Berlin"
        );
        // Bounds, comparisons and counts keep their words.
        assert_eq!(
            telegraphic("Use batches of at most 10,000 accounts, at least two, up to 68 minutes."),
            "Use batches at most 10,000 accounts, at least two, up to 68 minutes"
        );
        assert_eq!(
            telegraphic("Do not run the job in one go; it is slower than the cron."),
            "not run job one go slower than cron"
        );
    }

    #[test]
    fn sentences_split_at_stops_and_lines_not_inside_names() {
        let s = sentences("Update gateway.py to v2.4. Then test it!\n- no weekends\n\n");
        let texts: Vec<&str> = s.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            ["Update gateway.py to v2.4.", "Then test it!", "no weekends"]
        );
    }

    #[test]
    fn long_sentences_are_cut_into_clauses_lists_are_not() {
        assert_eq!(
            clauses(
                "The key decisions were to move the event bus to Kafka, to keep the monolith \
                 for billing until next year, and to freeze the public API until the policy is agreed."
            ),
            [
                "The key decisions were to move the event bus to Kafka, to keep the monolith for billing until next year, ",
                "and to freeze the public API until the policy is agreed."
            ]
        );
        assert_eq!(
            clauses(
                "Do not delete the old invoice tables after the cut-over; we keep them read-only for 90 days."
            ),
            [
                "Do not delete the old invoice tables after the cut-over; ",
                "we keep them read-only for 90 days."
            ]
        );
        for whole in [
            "Collect the logs, metrics, and traces of the last seven days.",
            "Deploy it, but only after the review is done.",
        ] {
            assert_eq!(clauses(whole), [whole]);
        }
    }

    #[test]
    fn statements_are_cut_finer_requests_and_prohibitions_are_not() {
        let texts = |text: &str| -> Vec<(String, bool)> {
            sentences(text)
                .into_iter()
                .map(|s| (s.text, s.continues))
                .collect()
        };
        let owned = |v: &[(&str, bool)]| -> Vec<(String, bool)> {
            v.iter().map(|(t, c)| (t.to_string(), *c)).collect()
        };
        assert_eq!(
            texts(
                "Please check the build and tell me what broke. The Android build passed \
                 the suite and is in the internal track, with 31 testers on it."
            ),
            owned(&[
                ("Please check the build and tell me what broke.", false),
                ("The Android build passed the suite", false),
                ("and is in the internal track,", true),
                ("with 31 testers on it.", true),
            ])
        );
        // A bare "and" between two short phrases joins nouns.
        assert_eq!(
            texts("Check it. It has every account, with the plan names and prices of each month.")
                [1..],
            owned(&[
                ("It has every account,", false),
                ("with the plan names and prices of each month.", true),
            ])
        );
        // A prohibition, a limit and a negated statement stay whole (a
        // cut could leave an object without its "not"); so does a list.
        for whole in [
            "Do not delete the old tables and the nightly backup snapshots.",
            "Keep it short, with at most three sections in the report.",
            "The p50 has not moved and the slow tail got worse again.",
            "We collected the logs, metrics, and traces of the last week.",
        ] {
            let text = format!("Check the cluster. {whole}");
            assert_eq!(texts(&text)[1..], owned(&[(whole, false)]), "{whole}");
        }
    }

    /// After a greeting, the request is the next sentence: it keeps the
    /// coarse cuts and ranks first.
    #[test]
    fn the_request_follows_a_greeting() {
        let s = sentences(
            "Hi Ana,\nPlease analyze the churn numbers for the EU region and tell me \
             which customer segments drove the increase. It grew in March.",
        );
        assert_eq!(request_index(&s), 1);
        assert_eq!(
            s[1].text,
            "Please analyze the churn numbers for the EU region and tell me which \
             customer segments drove the increase."
        );
        assert_eq!(ranked(&s)[0], 1);
        assert_eq!(
            request_index(&sentences("Good morning team,\nFix it. Then ship it.")),
            1
        );
        // Without a greeting, the first sentence.
        assert_eq!(request_index(&sentences("Hey, fix it. Thanks.")), 0);
        assert_eq!(
            request_index(&sentences("Hi there, team members of ours. Fix it.")),
            0
        );
    }

    #[test]
    fn prohibitions_and_limits_constrain_statements_do_not() {
        for constraint in [
            "Do not delete the old tables.",
            "Don’t run benchmarks against production.",
            "Never merge on a Friday.",
            "Avoid the legacy endpoint.",
            "Keep it under 200 words.",
            "Use only the EU region.",
            "Please never force-push to main.",
            "Once it is merged, do not touch the flags.",
            "You can't deploy on Fridays.",
            "You should never store card numbers.",
            "The job is slow; don't run it twice.",
            "We must not lose an order.",
            "Keep it to five bullet points.",
            "Please make sure the backfill can resume.",
            // A limit in a rule, wherever it stands.
            "I only need titles and links.",
            "The dashboard should show the share reassigned at least once.",
            "A short report, at most four pages, with the main findings first.",
            "Include a list of actions, ordered by expected impact within six weeks.",
            "We need a recommendation, one page at most, before Thursday.",
            "You have at most three retries.",
            "Include only items over $40.",
            "Our reports should only use rows from this year.",
        ] {
            assert!(is_constraint(constraint), "{constraint}");
        }
        for statement in [
            "Volume alone does not explain it.",
            "The new hires are not trained yet.",
            "We ran it without a mismatch.",
            "The notes are online.",
            // Negated statements: the negation stays, in a note.
            "We do not know how a zero-quantity order got past the checkout form; Amara is looking.",
            "The alert fired late because its threshold was never lowered again.",
            "I can't reproduce it on staging.",
            "Priya doesn't think it is the cause.",
            // Questions ask, they do not rule.
            "Does the discount apply to log ingestion only or also to metrics?",
            "Are we allowed to reduce the volume, or only to increase it?",
            // A requirement reported, not made.
            "The key decisions were to move the bus to Kafka and to keep the monolith for billing.",
            // A limit in a statement: what was, not what must be.
            "The total went up 22% while traffic only grew 5%.",
            "The alert fired within seven minutes, and the page was updated at 14:20.",
            "The only open risk is the certificate rotation.",
            "First, whether the partner id check is applied on every endpoint or only on creation.",
            "For the reporting export, the objective was set too tight: it assumes exports finish within ten minutes.",
            "Two engineers asked to leave; this leaves the rotation with only four people.",
            "The second goal, a catalogue of every table, is only partly done.",
            "But our CDC setup only guarantees order per partition.",
        ] {
            assert!(!is_constraint(statement), "{statement}");
        }
    }

    #[test]
    fn the_request_and_prohibitions_rank_first() {
        let s = sentences(
            "Review the PR. It touches three files. Do not merge it yourself. Thanks a lot.",
        );
        let order = ranked(&s);
        assert_eq!(&order[..2], &[0, 2]);
    }
}
