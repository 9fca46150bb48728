//! The offline backend: deterministic, no network, no model.
//!
//! - The encoder reads prose with rules: the intent and target as
//!   [`super::cues`] reads them (the earliest cue it knows; a question is a
//!   QUERY), `key: value` lines, URLs, file names, dates, quantities and
//!   formats as params, sentences with must / should / do not / only /
//!   within… as constraints, progress and blockers as state, and urgency
//!   words as the priority (params, state and priority: `super::fields`).
//!   It cannot resolve pronouns, read negation in
//!   general, or tell two requests in one message apart: the first wins.
//! - The decoder writes the signal back as plain sentences from templates
//!   (`super::template`); it always names the intent and the target
//!   verbatim.
//! - The judge is lexical (`super::lexical`): the mean of the cosine
//!   similarities of word counts and of character trigram counts. It
//!   rewards shared wording, not shared meaning: a paraphrase scores lower
//!   than an embedding model would give it.

use std::borrow::Cow;

use serde_json::{Value, json};

use super::backend::{Backend, Embed, ErrorKind, JudgedBy, MspError};
use super::cues;
pub use super::lexical::similarity;
use super::template::plain;
pub use super::template::{STYLES, decode};
use super::{brief, cover, facts, fields, guide, meaning};
use crate::protocols::msp::{Intent, MinimalSignal};
use crate::tokens::Encoding;

/// The offline backend.
#[derive(Debug, Default, Clone, Copy)]
pub struct Offline;

impl Backend for Offline {
    fn runs_here(&self) -> bool {
        true
    }

    fn encode_text(&self, text: &str) -> Result<MinimalSignal, MspError> {
        Ok(encode(text))
    }

    fn candidates(&self, text: &str) -> Result<Vec<MinimalSignal>, MspError> {
        Ok(candidates(text))
    }

    fn candidates_guided(&self, text: &str, embed: &Embed) -> Result<Vec<MinimalSignal>, MspError> {
        candidates_guided(text, embed)
    }

    fn decode_signal(&self, signal: &Value, style: &str) -> Result<String, MspError> {
        Ok(decode(signal, style))
    }

    fn similarity(&self, a: &str, b: &str) -> Result<f64, MspError> {
        Ok(similarity(a, b))
    }

    fn judged_by(&self) -> JudgedBy {
        JudgedBy::lexical()
    }
}

/// Encodes prose into a signal with rules (never fails on non-empty text),
/// as tightly as [`candidates`] allows.
pub fn encode(text: &str) -> MinimalSignal {
    let mut all = candidates(text);
    all.swap_remove(0)
}

/// The token budget of a signal for prose of `n` tokens: under half for
/// 200 tokens or more, under the prose itself from 60; shorter prose is
/// kept whole (the tracing fields alone cost about 30 tokens).
fn budget(n: usize) -> f64 {
    let n = n as f64;
    if n >= 200.0 {
        0.45 * n
    } else if n >= 60.0 {
        0.9 * n
    } else {
        f64::INFINITY
    }
}

/// Signals for a text from the least detail (within `budget`) to the
/// most (every sentence), the fewest tokens first: the same intent, target, parameters, state and
/// priority, with more of the prose's sentences in `params.notes` and
/// `constraints`. A clause that negates, forbids, requires or limits is in
/// every one.
pub fn candidates(text: &str) -> Vec<MinimalSignal> {
    let Ok(all) = candidates_by(text, None, |order: &Order| {
        Ok::<_, std::convert::Infallible>(order.ranked.to_vec())
    });
    all
}

/// [`candidates`] with the clauses beyond the required ones added in the
/// order that brings the signal's meaning closest to the whole message's,
/// by the judge's own sentence model ([`guide::order`]), instead of by
/// [`brief::ranked`]'s word counts.
pub fn candidates_guided(text: &str, embed: &Embed) -> Result<Vec<MinimalSignal>, MspError> {
    let by_meaning = super::intent::by_meaning(text, embed)?;
    candidates_by(text, by_meaning, |order: &Order| guided_order(order, embed))
}

/// What decides the order in which clauses are added to the required ones.
struct Order<'a> {
    /// The prose.
    text: &'a str,
    /// The signal every candidate starts from, the required clauses in it.
    required_signal: &'a MinimalSignal,
    required: &'a [usize],
    sentences: &'a [brief::Sentence],
    cost: &'a [usize],
    /// Every clause by [`brief::ranked`].
    ranked: &'a [usize],
}

/// The candidates, with the clauses beyond the required ones added in the
/// order `adding` gives.
fn candidates_by<E>(
    text: &str,
    by_meaning: Option<Intent>,
    adding: impl FnOnce(&Order) -> Result<Vec<usize>, E>,
) -> Result<Vec<MinimalSignal>, E> {
    // ASCII lowercasing keeps byte offsets, so a cue found in `lower` can be
    // cut out of `text` (full Unicode lowercasing can change lengths).
    let lower = text.to_ascii_lowercase();
    let (by_cues, target) = cues::reading(text, &lower);
    // A text without a cue word: the sentence model's reading, if any.
    let mut base = MinimalSignal::new(by_meaning.unwrap_or(by_cues), target);
    base.trace_id = short_trace_id();
    base.timestamp = crate::protocols::msp::signal::now_seconds();
    base.params = fields::find_params(text);
    base.state = fields::find_state(text, &mut base.params);
    for key in restating_target(text, &base.target) {
        base.params.remove(&key);
    }
    base.priority = fields::find_priority(&lower);

    let sentences = brief::sentences(text);
    let order = brief::ranked(&sentences);
    let request = brief::request_index(&sentences);
    // Counted with stand-ins of the tracing fields: the signal chosen for
    // the same prose must not depend on the id and time drawn.
    let count = |s: &MinimalSignal| {
        let mut counted = s.clone();
        counted.trace_id = TRACE_ID_STAND_IN.to_string();
        counted.timestamp =
            chrono::DateTime::from_timestamp(TIMESTAMP_STAND_IN, 0).unwrap_or_default();
        Encoding::O200kBase.count(&counted.to_wire_string())
    };
    let allowed = budget(Encoding::O200kBase.count(text));
    // The request, every clause that negates, every clause of a sentence
    // that forbids, requires or limits ("the evaluation must use the
    // held-out set only") or asks ("please use a constant-time
    // comparison", a question), then enough clauses to state every fact:
    // in every candidate. A similarity barely moves when a requirement or
    // a question goes; the receiver's work does.
    let required: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| {
            i == request
                || !meaning::negations(&sentences[i].text).is_empty()
                || sentences[i].constrains
                || sentences[i].asks
        })
        .collect();
    // What a clause adds to the signal: its tokens and a separator (counted
    // once each, so that a long text is not tokenized again per clause).
    let cost: Vec<usize> = sentences
        .iter()
        .map(|s| Encoding::O200kBase.count(&s.brief) + 1)
        .collect();
    // The facts each clause states, asked in every step below.
    let stated: Vec<facts::Stated> = sentences
        .iter()
        .map(|s| facts::Stated::of(&s.brief))
        .collect();
    let clauses = Clauses {
        sentences: &sentences,
        order: &order,
        cost: &cost,
        stated: &stated,
    };
    let required = with_states_said(&base, &sentences, &cost, required);
    let required = with_facts_stated(text, &base, &clauses, required);
    let required_signal = with_sentences(&base, &sentences, &required);
    let required_count = count(&required_signal);
    // Below 60 tokens every clause is in the one candidate: no order to
    // choose.
    let added = if allowed.is_finite() {
        adding(&Order {
            text,
            required_signal: &required_signal,
            required: &required,
            sentences: &sentences,
            cost: &cost,
            ranked: &order,
        })?
    } else {
        order.clone()
    };
    let mut out: Vec<MinimalSignal> = Vec::new();
    for scale in LADDER {
        let limit = allowed * scale;
        let mut chosen = required.clone();
        let mut total = required_count;
        for &i in &added {
            if !chosen.contains(&i) && (total + cost[i]) as f64 <= limit {
                chosen.push(i);
                total += cost[i];
            }
        }
        // A clause added may take the place of a parameter that stated a
        // fact: stated again.
        let chosen = with_facts_stated(text, &base, &clauses, chosen);
        let signal = with_sentences(&base, &sentences, &chosen);
        if out.last() != Some(&signal) {
            out.push(signal);
        }
    }
    // A clause that takes a parameter's place can make a rung cheaper
    // than the one before: the judge takes the first it passes, so the
    // cheapest come first (in ladder order on a tie).
    out.sort_by_cached_key(count);
    out.dedup();
    // Last, every clause as written: telegraphic notes can read too far
    // from the prose for a sentence model ("report price 50 million
    // vectors 768 dimensions …"), and a signal that says it all in the
    // prose's own words is still better than one the judge fails.
    let verbatim: Vec<brief::Sentence> = sentences
        .iter()
        .map(|s| brief::Sentence {
            brief: s
                .text
                .trim_end_matches(['.', '!', ',', ';', ':'])
                .to_string(),
            ..s.clone()
        })
        .collect();
    let all: Vec<usize> = (0..sentences.len()).collect();
    let written = with_sentences(&base, &verbatim, &all);
    if out.last() != Some(&written) {
        out.push(written);
    }
    Ok(out)
}

/// The keys of the `key: value` lines whose value holds the target
/// ("Incident report: partial outage of the customer API on 12
/// November."): as parameters they would say it a second time, and a
/// fact only such a line states is stated by its clause instead. A key
/// that is a fact itself ("FYI: …") stays.
fn restating_target(text: &str, target: &str) -> Vec<String> {
    if target.split_whitespace().count() < 2 {
        return Vec::new();
    }
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .filter(|(key, value)| value.contains(target) && facts::facts(key).is_empty())
        .map(|(key, _)| fields::snake(key.trim().trim_start_matches(['-', '*', '•'])))
        .collect()
}

/// `chosen` and each clause that says a state of more than three words
/// ("currently …", "already …") for no more tokens than the state's own
/// entry: kept, it says the state in its place ([`with_sentences`] then
/// leaves the state out), where the state alone would be the dearer copy.
fn with_states_said(
    base: &MinimalSignal,
    sentences: &[brief::Sentence],
    cost: &[usize],
    mut chosen: Vec<usize>,
) -> Vec<usize> {
    for (key, value) in &base.state {
        let Some(value) = value.as_str() else {
            continue;
        };
        let said = brief::telegraphic(value);
        if said.split_whitespace().count() <= 3 {
            continue;
        }
        let entry = Encoding::O200kBase.count(&json!({ key: value }).to_string());
        if let Some(i) = sentences
            .iter()
            .position(|s| s.brief.contains(&said) && cost[s.index] <= entry)
            && !chosen.contains(&i)
        {
            chosen.push(i);
        }
    }
    chosen
}

/// The clauses not `required`, in the order [`guide::order`] gives by the
/// embeddings of the message, of each clause and of the decoding every
/// candidate shares.
fn guided_order(order: &Order, embed: &Embed) -> Result<Vec<usize>, MspError> {
    let Order {
        required_signal,
        required,
        sentences,
        cost,
        ..
    } = *order;
    let shared = decode(&required_signal.to_wire(), "professional");
    let mut texts: Vec<&str> = vec![order.text, &shared];
    texts.extend(sentences.iter().map(|s| s.brief.as_str()));
    let mut vectors = embed(&texts)?.into_iter();
    let mut part = |weight: usize| -> Result<guide::Part, MspError> {
        let vector = vectors.next().ok_or_else(|| {
            MspError::new(
                ErrorKind::Judge,
                "the model gave fewer embeddings than texts",
            )
        })?;
        Ok(guide::Part {
            vector,
            weight: weight as f64,
        })
    };
    let message = part(0)?.vector;
    let start = part(Encoding::O200kBase.count(&shared))?;
    let clauses = cost
        .iter()
        .map(|&c| part(c))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(guide::order(&message, &start, &clauses, cost, required))
}

/// The budgets of the candidates, as multiples of [`budget`]: the judge
/// takes the first it passes, so a finer ladder sends fewer tokens. It
/// starts below the budget: a long message whose request and facts carry
/// its meaning passes well under it (the 500-token-and-more corpus
/// messages: median 0.44 of the prose starting at the budget, 0.35 from
/// 0.6 of it; 0.36 once every requirement is kept).
const LADDER: [f64; 16] = [
    0.6,
    0.7,
    0.8,
    0.9,
    1.0,
    1.05,
    1.1,
    1.15,
    1.2,
    1.25,
    1.3,
    1.4,
    1.55,
    1.7,
    2.0,
    f64::INFINITY,
];

/// A text's clauses as the encoder weighs them: in rank order, each with
/// its token cost and the facts it states.
#[derive(Clone, Copy)]
struct Clauses<'a> {
    sentences: &'a [brief::Sentence],
    order: &'a [usize],
    cost: &'a [usize],
    stated: &'a [facts::Stated],
}

/// `chosen` and the fewest more clauses that state every fact of `text`
/// the decoding of the signal would otherwise lose (numbers, times, dates,
/// names: [`facts`], as the judge checks them): each time, the clause that
/// states the most lost facts per token, the higher ranked on a tie. The
/// signal is decoded and checked again after each round (a clause may
/// take the place of a quantity parameter that stated a fact). A fact no
/// clause can bring back (one a `key: value` line or the target states in
/// another form) is left to the judge.
fn with_facts_stated(
    text: &str,
    base: &MinimalSignal,
    clauses: &Clauses,
    mut chosen: Vec<usize>,
) -> Vec<usize> {
    let Clauses {
        sentences,
        order,
        cost,
        stated,
    } = *clauses;
    let lost_by = |chosen: &[usize]| {
        let decoded = decode(
            &with_sentences(base, sentences, chosen).to_wire(),
            "professional",
        );
        facts::lost(text, &decoded)
    };
    let mut tried = vec![false; sentences.len()];
    for &i in &chosen {
        tried[i] = true;
    }
    let mut lost = lost_by(&chosen);
    while !lost.is_empty() {
        let covers = cover::covering(stated, &tried, &lost);
        let taken = cover::greedy_cover(order, &covers, cost, &mut tried, lost.len());
        if taken.is_empty() {
            break;
        }
        chosen.extend(taken);
        lost = lost_by(&chosen);
    }
    chosen
}

/// A trace id and a timestamp of the counts every one takes, for budgets
/// that do not depend on the values drawn.
const TRACE_ID_STAND_IN: &str = "17956864891795686489";
const TIMESTAMP_STAND_IN: i64 = 1_795_686_489;

/// A trace id of 64 random bits written as 20 decimal digits: the
/// tokenizers read digits three at a time, so every id costs the same few
/// tokens (13 base-36 characters cost 6 to 12 by the letters drawn, a UUID
/// about 30 more), and the spec types the field as any string.
fn short_trace_id() -> String {
    format!("{:020}", (uuid::Uuid::new_v4().as_u128() >> 64) as u64)
}

/// The base signal with the chosen sentences (in text order): those that
/// constrain as constraints, the others as notes; the request's sentence
/// without the words the intent and target already say. A number, file
/// name or URL parameter, or a state of more than three words, that a kept
/// sentence already says is left out.
fn with_sentences(
    base: &MinimalSignal,
    sentences: &[brief::Sentence],
    chosen: &[usize],
) -> MinimalSignal {
    let mut signal = base.clone();
    let request = brief::request_index(sentences);
    let mut chosen = chosen.to_vec();
    chosen.sort_unstable();
    let mut notes: Vec<String> = Vec::new();
    // The clause the last note ends with.
    let mut previous: Option<usize> = None;
    for &i in &chosen {
        let s = &sentences[i];
        // A `key: value` line is a parameter already.
        let is_param = s.text.split_once(':').is_some_and(|(key, value)| {
            base.params
                .get(&fields::snake(key))
                .is_some_and(|v| plain(v) == value.trim())
        });
        if is_param {
            continue;
        }
        if s.constrains {
            signal.constraints.push(s.brief.clone());
            continue;
        }
        let note = if i == request {
            after_target(&s.brief, &signal.target)
        } else {
            s.brief.clone()
        };
        // "into German and Japanese" after the target: the languages
        // parameter says no less.
        let restates_params = note.split_whitespace().all(|w| {
            base.params
                .values()
                .any(|v| plain(v).split(", ").any(|item| item == w))
        });
        if !note.is_empty() && !restates_params {
            // Two clauses in a row that open with the same subject: one
            // note.
            if previous == Some(i.wrapping_sub(1))
                && let Some(last) = notes.last_mut()
                && let Some(merged) = super::merge::shared_subject(last, &note)
            {
                *last = merged;
                previous = Some(i);
                continue;
            }
            match notes.last_mut() {
                Some(last) if s.continues && previous == Some(i - 1) => {
                    last.push(' ');
                    last.push_str(&note);
                }
                _ => notes.push(note),
            }
            previous = Some(i);
        }
    }
    // A unit two numbers of a note share, said once ("212 against 148
    // minutes"): each clause's brief says it once already, and here the
    // clauses a note joins.
    for note in notes.iter_mut().chain(&mut signal.constraints) {
        if let Cow::Owned(merged) = super::merge::shared_units(note) {
            *note = merged;
        }
    }
    // A quantity ("days": 90) reads better in its sentence or the target;
    // when that is kept, the parameter goes.
    let said: Vec<&str> = notes
        .iter()
        .chain(&signal.constraints)
        .chain([&signal.target])
        .flat_map(|s| s.split_whitespace())
        .collect();
    signal
        .params
        .retain(|_, value| !(value.is_number() && said.contains(&value.to_string().as_str())));
    // A state that is a clause of a kept sentence says it twice (a short
    // one, "80%" or "schema review", stays: it is what a program reads).
    // Notes said in full words are compared in their telegraphic form.
    let kept: Vec<String> = if signal.state.is_empty() {
        Vec::new()
    } else {
        notes
            .iter()
            .chain(&signal.constraints)
            .map(|k| brief::telegraphic(k))
            .collect()
    };
    signal.state.retain(|_, value| {
        let brief = value.as_str().map(brief::telegraphic).unwrap_or_default();
        brief.split_whitespace().count() <= 3 || !kept.iter().any(|k| k.contains(&brief))
    });
    // So do the file names and URLs picked out of the prose.
    for key in ["files", "file", "urls", "url"] {
        let Some(value) = signal.params.get_mut(key) else {
            continue;
        };
        let unsaid = |v: &Value| {
            !v.as_str().is_some_and(|v| {
                said.iter()
                    .any(|w| w.trim_matches(|c: char| "()\"'`,;".contains(c)) == v)
            })
        };
        let keep = match value {
            Value::Array(items) => {
                items.retain(unsaid);
                !items.is_empty()
            }
            other => unsaid(other),
        };
        if !keep {
            signal.params.remove(key);
        }
    }
    if !notes.is_empty() {
        signal.params.insert("notes".into(), json!(notes));
    }
    signal
}

/// A telegraphic request without its leading cue and target words. A
/// target named later than the cue's few words ("Critical: detected
/// repeated login attempts against admin accounts", where the request to
/// lock the accounts comes two sentences on) cuts nothing: what comes
/// before it is not the cue.
fn after_target(brief: &str, target: &str) -> String {
    /// The most words before the target that a cue takes ("Could you
    /// analyze", "delegating", "Status").
    const CUE_WORDS: usize = 4;
    let target_brief = brief::telegraphic(target);
    match brief.find(&target_brief) {
        Some(at)
            if !target_brief.is_empty() && brief[..at].split_whitespace().count() <= CUE_WORDS =>
        {
            let rest = brief[at + target_brief.len()..]
                .trim_start_matches([':', ',', ';', '-', '—', ' '])
                .trim();
            // "Could you check the search index?": nothing after it.
            if rest.chars().any(char::is_alphanumeric) {
                rest.to_string()
            } else {
                String::new()
            }
        }
        _ => brief.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::msp::{Intent, Priority};

    #[test]
    fn finds_intent_target_params_constraints_priority() {
        let s = encode(
            "Please analyze the Q3 sales data for anomalies by Friday. \
             Only use the EU region. This is urgent.\nFormat: markdown",
        );
        assert_eq!(s.intent, Intent::Analyze);
        assert_eq!(s.target, "Q3 sales data");
        assert_eq!(s.params["deadline"], "Friday");
        assert_eq!(s.params["format"], "markdown");
        // A time or a sentence before a colon is not a `key: value` line.
        for text in [
            "Summary. Between 14:05 and 15:22 UTC, 35% of requests failed.",
            "The window opens 01:00 and closes 05:00 UTC.",
        ] {
            let keys: Vec<String> = encode(text).params.keys().cloned().collect();
            assert!(keys.iter().all(|k| k == "notes"), "{keys:?} from {text}");
        }
        for (text, deadline) in [
            ("Ship the report by next Friday.", "next Friday"),
            ("Send the notes by end of day.", "end of day"),
            ("I would like a first draft by the 20th.", "20th"),
            ("It is due 2026-03-01 at the latest.", "2026-03-01"),
            ("Ship it before 5pm, and tell Ana.", "5pm"),
            // A deadline by "by" wins over one by "before".
            (
                "Review it before Friday. I need the notes by Monday.",
                "Monday",
            ),
            ("Deliver it no later than noon tomorrow.", "noon tomorrow"),
        ] {
            let params = encode(text).params;
            assert_eq!(
                params.get("deadline"),
                Some(&json!(deadline)),
                "{text}: {params:?}"
            );
        }
        // How long something lasts, or when data is from, is no deadline.
        for text in [
            "Keep the monolith until next year.",
            "Marketing has frozen the templates until April.",
            "If the data before November looks incomplete, say so.",
            "Stand by the 20 replicas we have.",
            // Cut off after the cue: nothing to read, nothing to panic on.
            "Ship it by next",
            "Send it by end of",
            "It is due",
        ] {
            let params = encode(text).params;
            assert!(!params.contains_key("deadline"), "{text}: {params:?}");
        }
        assert_eq!(s.constraints, vec!["Only use EU region"]);
        // The format line is a parameter, not a note too.
        assert!(
            !s.params["notes"].to_string().contains("markdown"),
            "{:?}",
            s.params
        );
        assert_eq!(s.priority, Priority::High);
    }

    /// The same prose gives the same candidates, whatever trace id each
    /// run draws (its token count used to move the budgets: the corpus's
    /// code review got one signal or another from run to run).
    #[test]
    fn candidates_do_not_depend_on_the_trace_id_drawn() {
        let text = include_str!("../../examples/msp/prose/03_code_review.txt");
        let content = |mut all: Vec<MinimalSignal>| -> Vec<MinimalSignal> {
            for s in &mut all {
                s.trace_id.clear();
                s.timestamp = chrono::DateTime::default();
            }
            all
        };
        let first = content(candidates(text));
        for _ in 0..20 {
            assert_eq!(content(candidates(text)), first);
        }
    }

    /// The least detailed candidate already states every fact of the
    /// prose (numbers, times, dates, names): the judge fails a decoding
    /// that drops one, so a candidate without them is sent for nothing.
    #[test]
    fn every_candidate_states_every_fact() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/msp/prose");
        let mut checked = 0;
        for entry in std::fs::read_dir(corpus).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let least = &candidates(&text)[0];
            let lost = facts::lost(&text, &decode(&least.to_wire(), "professional"));
            assert!(lost.is_empty(), "{lost:?} lost from {text}");
            checked += 1;
        }
        assert!(checked >= 65, "{checked}");
    }

    /// A text of 200 tokens and more whose clauses the word-count ranking
    /// and a sentence model order differently.
    fn long_text_with_one_odd_clause() -> String {
        let mut text = String::from("Please review the release checklist for the mobile app.\n");
        for i in 0..24 {
            text.push_str(&format!(
                "The checklist item number {} covers the release checklist steps for the mobile app.\n",
                ["one", "two", "three"][i % 3]
            ));
        }
        text.push_str("Penguins migrate south across the glacier every winter season.\n");
        text
    }

    /// With a model, the least detailed candidate takes the clause the
    /// model puts nearest the message, which the word counts rank last;
    /// every candidate still states every fact of the prose.
    #[test]
    fn a_model_chooses_the_clauses_it_finds_nearest_the_message() {
        let text = long_text_with_one_odd_clause();
        assert!(Encoding::O200kBase.count(&text) >= 200);
        let odd = "Penguins migrate south";
        // A model that reads the message as being about penguins only.
        let embed = |texts: &[&str]| -> Result<Vec<Vec<f32>>, MspError> {
            Ok(texts
                .iter()
                .map(|t| {
                    if *t == text || t.contains("Penguins") {
                        vec![1.0, 0.0]
                    } else {
                        vec![0.0, 1.0]
                    }
                })
                .collect())
        };
        let says_odd = |s: &MinimalSignal| s.to_wire().to_string().contains(odd);
        let guided = candidates_guided(&text, &embed).unwrap();
        assert!(says_odd(&guided[0]), "{}", guided[0].to_wire());
        assert!(!says_odd(&candidates(&text)[0]));
        for signal in &guided {
            let lost = facts::lost(&text, &decode(&signal.to_wire(), "professional"));
            assert!(lost.is_empty(), "{lost:?}");
        }
        // A model that fails fails the encoding, named as the judge's.
        let broken = |_: &[&str]| -> Result<Vec<Vec<f32>>, MspError> { Ok(Vec::new()) };
        let error = candidates_guided(&text, &broken).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Judge);
    }

    /// A long message whose clauses say little the request does not: the
    /// ladder starts below the budget, so the judge can take a signal of
    /// well under half the prose (the 1,565-token quarterly report sent
    /// 0.42 of its tokens where 0.30 passed).
    #[test]
    fn the_least_detailed_candidate_is_well_under_the_budget() {
        let text = long_text_with_one_odd_clause();
        let n = Encoding::O200kBase.count(&text);
        let all = candidates(&text);
        let tokens = |s: &MinimalSignal| Encoding::O200kBase.count(&s.to_wire_string());
        assert!(
            tokens(&all[0]) as f64 <= 0.7 * budget(n),
            "{} of {n}: {}",
            tokens(&all[0]),
            all[0].to_wire()
        );
        // And the ladder still climbs to every clause.
        assert!(all.len() >= 5, "{}", all.len());
        assert!(tokens(&all[all.len() - 1]) as f64 > budget(n));
    }

    /// The candidates but the last, which says every clause as written.
    fn telegraphic_candidates(text: &str) -> Vec<MinimalSignal> {
        let mut all = candidates(text);
        let written = all.pop().unwrap().to_wire_string().len();
        assert!(all.iter().all(|s| s.to_wire_string().len() < written));
        all
    }

    /// Every clause of a sentence that requires or limits is in every
    /// candidate, as a negation is: "the evaluation must use the held-out
    /// set only" was dropped from the signal of a request that said it,
    /// with "do not touch the training data" kept (the judge passed it).
    #[test]
    fn requirements_are_in_every_candidate() {
        let mut text = long_text_with_one_odd_clause();
        text.push_str(
            "The evaluation must use the held-out set only; do not touch the training data.\n",
        );
        for signal in telegraphic_candidates(&text) {
            let wire = signal.to_wire().to_string();
            assert!(wire.contains("held-out set only"), "{wire}");
            assert!(wire.contains("not touch training data"), "{wire}");
        }
    }

    /// What the message asks of its receiver after its first sentence is
    /// in every candidate: a review's requested fix, an analysis's
    /// questions ("Who moved the routing rules?" was dropped and the judge
    /// passed it: a similarity barely moves when one question of five goes).
    #[test]
    fn what_the_message_asks_is_in_every_candidate() {
        let mut text = long_text_with_one_odd_clause();
        text.push_str(
            "The timing check leaks information; please use a constant-time comparison. \
             Who moved the routing rules in August?\n",
        );
        for signal in telegraphic_candidates(&text) {
            let wire = signal.to_wire().to_string();
            assert!(wire.contains("use constant-time comparison"), "{wire}");
            assert!(wire.contains("moved routing rules August"), "{wire}");
        }
        assert!(brief::asks("Could you check it"));
        assert!(brief::asks("So we need a decision by Friday noon."));
        assert!(!brief::asks("The deploy passed and we are done."));
    }

    /// A long log of distinct facts: every one is in the least detailed
    /// candidate (found through the index of lost facts, not a scan).
    #[test]
    fn a_long_text_of_distinct_facts_keeps_them_all() {
        let mut text = String::from("Please analyze the error logs below.\n");
        for i in 0..400 {
            text.push_str(&format!(
                "Server node{i} in rack {} reported {} errors at {:02}:{:02} UTC, owner Team{}.\n",
                i % 97 + 1,
                1000 + i * 37,
                i % 24,
                (i * 7) % 60,
                i % 53
            ));
        }
        let least = &candidates(&text)[0];
        let lost = facts::lost(&text, &decode(&least.to_wire(), "professional"));
        assert!(lost.is_empty(), "{lost:?}");
    }

    /// Every trace id costs the same tokens, in both encodings: a signal's
    /// size does not depend on the id drawn.
    #[test]
    fn trace_ids_cost_the_same_tokens_every_time() {
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let cost = |id: &str| {
                encoding.count(&format!(
                    "{{\"trace_id\":\"{id}\",\"timestamp\":1795686489}}"
                ))
            };
            let expected = cost(TRACE_ID_STAND_IN);
            for _ in 0..200 {
                let id = short_trace_id();
                assert_eq!(id.len(), 20, "{id}");
                assert_eq!(cost(&id), expected, "{id} in {encoding:?}");
            }
        }
    }

    /// The cases a new user's messages went wrong on.
    #[test]
    fn negations_lists_hand_offs_and_reports_keep_their_meaning() {
        let text =
            "Do not deploy the API to production. Roll out to staging only and report the results.";
        let s = encode(text);
        assert!(
            s.constraints
                .iter()
                .any(|c| c.contains("not deploy API production")),
            "{s:?}"
        );
        assert_ne!(s.target, "results");
        let decoded = decode(&s.to_wire(), "professional");
        assert!(
            meaning::polarity_issue(text, &decoded).is_none(),
            "{decoded}"
        );

        let s = encode("Translate the onboarding guide into Spanish and French by Monday.");
        assert_eq!(s.params["languages"], json!(["Spanish", "French"]));
        let decoded = decode(&s.to_wire(), "professional");
        assert!(
            decoded.contains("Spanish") && decoded.contains("French"),
            "{decoded}"
        );

        let s = encode("I'm handing off the on-call rotation to you until Friday.");
        assert_eq!(s.intent, Intent::Delegate);
        let s = encode("The payments API has been down since 14:05 UTC and 40% of requests fail.");
        assert_eq!(s.intent, Intent::Report);
        let s = encode("This is not urgent, sometime this week is fine. Write the release notes.");
        assert_eq!(s.priority, Priority::Low);
        // Urgency words said of the message, and the same words said of
        // its subject.
        for (text, priority) in [
            ("Lock those accounts immediately.", Priority::Critical),
            ("This is critical: restore the backups.", Priority::Critical),
            (
                "Production is down, roll back the deploy.",
                Priority::Critical,
            ),
            (
                "Write the postmortem of last week's outage.",
                Priority::Medium,
            ),
            (
                "Resets and receipts are the critical ones; plan the move.",
                Priority::Medium,
            ),
            (
                "Fix anything rated high or critical before launch.",
                Priority::Medium,
            ),
            (
                "Review the fix: an outage would turn into a bypass.",
                Priority::Medium,
            ),
            (
                "Summarize the notes from today's architecture review.",
                Priority::Medium,
            ),
            ("I need the summary today.", Priority::High),
            (
                "Help us choose a tool. Today we open the channel by hand.",
                Priority::Medium,
            ),
        ] {
            assert_eq!(encode(text).priority, priority, "{text}");
        }
    }

    /// A target is whole words of the text, in order: never a word cut.
    #[test]
    fn targets_are_whole_words() {
        for text in [
            "Please analyze the Q3 churn numbers for the EU region and tell me why.",
            "Review the pull request that adds rate limiting to the public API gateway.",
            "Summarize the incident report for the CTO",
        ] {
            let target = encode(text).target;
            for word in target.split_whitespace() {
                assert!(
                    text.split_whitespace()
                        .any(|w| w.trim_matches(|c: char| !c.is_alphanumeric())
                            == word.trim_matches(|c: char| !c.is_alphanumeric())),
                    "{word:?} of {target:?}"
                );
            }
        }
    }

    #[test]
    fn questions_are_queries() {
        let s = encode("How many open incidents are there in the payments service?");
        assert_eq!(s.intent, Intent::Query);
        let s = encode("Is the nightly build green?");
        assert_eq!(s.intent, Intent::Query);
    }

    #[test]
    fn state_and_quantities() {
        let s = encode(
            "Status update: the migration is 80% done. Blocked by the schema review. \
             Write a 200 words summary.",
        );
        assert_eq!(s.intent, Intent::Report);
        assert_eq!(s.state["progress"], "80%");
        assert_eq!(s.state["blocked_by"], "the schema review");
        // The quantity is said in its kept sentence, not twice.
        assert!(
            s.params["notes"].to_string().contains("200 words"),
            "{:?}",
            s.params
        );
        assert!(!s.params.contains_key("words"));
        let s = encode("Fail closed and return 503 instead, within 10 seconds.");
        assert!(!s.params.contains_key("instead"), "{:?}", s.params);
        // A state as long as a clause is not said twice either.
        let s = encode(
            "Check the index. We currently store about 4 million ticket embeddings of 768 dimensions.",
        );
        assert!(!s.state.contains_key("current"), "{:?}", s.state);
        assert!(
            s.params["notes"].to_string().contains("4 million"),
            "{:?}",
            s.params
        );
        // A number that ends its clause counts nothing after it, and a
        // determiner is no unit.
        let s = encode("Read the wiki page from 2023, setup scripts and in 2023 the team notes.");
        assert!(
            !s.params.contains_key("the") && !s.params.contains_key("setup"),
            "{:?}",
            s.params
        );
        // A verb and a pronoun are no state, nor is a relative clause.
        for text in [
            "Check the admin screens: any staff member can currently open them.",
            "Use the two test partners that already exist there.",
            "Review the files; so far none has it.",
            "Say how it handles the rotations we already keep in PagerDuty.",
        ] {
            let s = encode(text);
            assert!(s.state.is_empty(), "{text}: {:?}", s.state);
        }
        let s = encode("Report on the launch. Marketing has already scheduled the announcement.");
        assert_eq!(s.state["done"], "scheduled the announcement");
    }

    /// On a long text, a long state is said by its clause in every
    /// candidate (the clause costs less than the state's entry), and a
    /// magnitude is no unit: "4 million embeddings" is no `million: 4`.
    #[test]
    fn a_long_state_is_said_by_its_clause() {
        let mut text = String::from(
            "Could you check the search index? We currently store about 4 million \
             ticket embeddings of 768 dimensions, growing by roughly 150,000 a month.\n",
        );
        for i in 0..20 {
            text.push_str(&format!(
                "The review item number {} covers the search index steps for the support team.\n",
                ["one", "two", "three"][i % 3]
            ));
        }
        assert!(Encoding::O200kBase.count(&text) >= 200);
        let all = telegraphic_candidates(&text);
        assert!(all.len() > 1);
        for signal in &all {
            assert!(signal.state.is_empty(), "{:?}", signal.state);
            assert!(
                !signal.params.contains_key("million"),
                "{:?}",
                signal.params
            );
            let notes = signal.params["notes"].to_string();
            assert!(
                notes.contains("store 4 million ticket embeddings 768 dimensions"),
                "{notes}"
            );
        }
        // Without the clause to say it, the state is the one copy.
        let s = encode("Check the index. We currently store about 4 million embeddings");
        assert!(
            s.params["notes"].to_string().contains("4 million"),
            "{:?}",
            s
        );
    }

    /// Clauses of one statement kept together make one note: the cut
    /// lets the encoder keep one without the other, and costs nothing
    /// when it keeps both.
    #[test]
    fn clauses_of_a_statement_kept_together_are_one_note() {
        let text = "Check the cluster. The Android build passed the regression suite \
                    and is in the Play Console internal track, with 31 testers.";
        let s = encode(text);
        assert_eq!(
            s.params["notes"],
            json!(["Android build passed regression suite Play Console internal track 31 testers"])
        );
        let sentences = brief::sentences(text);
        let only_last = with_sentences(
            &MinimalSignal::new(Intent::Query, "cluster"),
            &sentences,
            &[0, 3],
        );
        assert_eq!(only_last.params["notes"], json!(["31 testers"]));
    }

    /// After a greeting the request is still said once, without the
    /// words the intent and target say.
    #[test]
    fn a_greeting_does_not_hide_the_request() {
        let s = encode("Hello team,\nPlease translate the help center articles into German.");
        assert_eq!(s.intent, Intent::Transform);
        let notes = s.params["notes"].to_string();
        assert!(!notes.contains("translate"), "{notes}");
    }

    /// What the target or a parameter says is not said again.
    #[test]
    fn a_line_that_holds_the_target_is_no_parameter() {
        let s = encode(
            "Incident report: partial outage of the customer API on 12 November.\n\n\
             Summary. About 35% of requests failed. No data was lost.",
        );
        assert_eq!(s.target, "partial outage of the customer API");
        assert!(!s.params.contains_key("incident_report"), "{:?}", s.params);
        assert!(
            s.to_wire_string().contains("12 November"),
            "{}",
            s.to_wire_string()
        );
    }

    /// The request's words before its target are cut only when they are
    /// the cue's few words: a first sentence that names the target late
    /// keeps what it says.
    #[test]
    fn a_target_named_late_in_the_first_sentence_cuts_nothing() {
        let s = encode(
            "Critical: we detected repeated login attempts against admin accounts from a \
             small set of IP ranges in the last hour. Rate limiting is holding, but two \
             accounts without MFA were targeted. Please lock those accounts immediately \
             and force a password reset. Production is not affected so far.",
        );
        assert_eq!(
            (s.intent, s.target.as_str()),
            (Intent::Transform, "accounts")
        );
        let wire = s.to_wire_string();
        assert!(wire.contains("repeated login attempts"), "{wire}");
        // The label's sentences are prose, not a `critical` parameter.
        assert!(!s.params.contains_key("critical"), "{wire}");
        assert_eq!(
            after_target("analyze Q3 sales data anomalies", "Q3 sales data"),
            "anomalies"
        );
    }

    /// When every telegraphic candidate reads too far from the prose, the
    /// last one says each clause in the prose's own words: a judge that
    /// fails the notes can still pass the message, uncompressed.
    #[test]
    fn the_last_candidate_says_every_clause_as_written() {
        let text = "Find all design documents that mention the legacy authentication \
                    service, so we can list what has to be updated before it is retired. \
                    Search the wiki and the docs repository. I only need titles and links.";
        let all = candidates(text);
        let last = all.last().unwrap().to_wire_string();
        for said in [
            "so we can list what has to be updated before it is retired",
            "Search the wiki and the docs repository",
            "I only need titles and links",
        ] {
            assert!(last.contains(said), "{said}: {last}");
        }
        assert!(
            !all[0].to_wire_string().contains("I only need"),
            "{:?}",
            all[0]
        );
    }

    #[test]
    fn the_request_is_said_once() {
        let s = encode(
            "Please translate the 14 new help center articles into German and Japanese. \
             They are in the help-center repo.",
        );
        assert_eq!(s.target, "14 new help center articles");
        assert_eq!(s.params["languages"], json!(["German", "Japanese"]));
        assert!(!s.params.contains_key("new"), "{:?}", s.params);
        assert!(
            !s.params["notes"].to_string().contains("German"),
            "{:?}",
            s.params
        );
        let s = encode(
            "In response to your request about the storage costs: the increase comes from the archive.",
        );
        let notes = s.params["notes"].to_string();
        assert!(notes.starts_with("[\"increase"), "{notes}");
    }

    #[test]
    fn decoding_names_intent_and_target() {
        let s = encode("Translate the onboarding guide into French.");
        assert_eq!(s.intent, Intent::Transform);
        assert_eq!(
            s.params["language"], "French",
            "one language is a single value"
        );
        let text = decode(&s.to_json(), "professional");
        assert!(
            text.contains("transform") && text.contains(&s.target),
            "{text}"
        );
    }

    #[test]
    fn text_whose_lowercase_changes_length_is_cut_safely() {
        // `İ` lowercases to two characters; offsets must still fall on boundaries.
        let s = encode("İİ analyze the thing. Currently İİİİ blocked by the ẞẞ review.");
        assert_eq!(s.state["blocked_by"], "the ẞẞ review");
        assert_eq!(s.intent, Intent::Analyze);
    }
}
