//! POLL collation: the RESPONDs to each POLL grouped by answer, and who has not answered.

use serde::Serialize;

use crate::model::{Intent, Message};

use std::collections::{HashMap, HashSet};

/// A message and where it was read.
pub struct Located<'a> {
    pub message: &'a Message,
    pub source: &'a str,
    pub line: usize,
    /// Whether the message passed `validate` (an invalid reply is not counted).
    pub valid: bool,
}

/// The outcome of one POLL.
#[derive(Debug, Serialize)]
pub struct Collation {
    pub poll_id: String,
    pub source: String,
    pub line: usize,
    pub sender: Option<String>,
    pub question: String,
    /// The answers the POLL offers (`meta: poll` `Options:`); empty when
    /// any answer goes.
    pub options: Vec<String>,
    /// Answers by number of votes (then first seen), each with who gave it.
    pub answers: Vec<Answer>,
    pub expected: Vec<String>,
    /// Expected respondents who sent no RESPOND.
    pub missing: Vec<String>,
    /// Respondents who answered more than once: their last answer counts.
    pub changed: Vec<String>,
    /// Replies not counted, each with why: an answer that matches none of
    /// the options, a respondent who was not asked, an invalid reply, or a
    /// reply in the POLL's thread to another message.
    pub not_counted: Vec<NotCounted>,
}

#[derive(Debug, Serialize)]
pub struct Answer {
    pub answer: String,
    pub count: usize,
    pub respondents: Vec<String>,
}

/// A reply left out of the tally.
#[derive(Debug, Serialize)]
pub struct NotCounted {
    pub respondent: String,
    pub answer: String,
    pub source: String,
    pub line: usize,
    /// `no-option`, `not-asked`, `invalid` or `other-parent`.
    pub why: &'static str,
}

/// The answer a RESPOND gives: `meta: poll` `Answer:`, else its first non-empty body line.
pub fn answer_of(msg: &Message) -> String {
    if let Some(a) = msg.meta_block("poll").and_then(|b| b.get("Answer")) {
        return a.trim().to_string();
    }
    msg.body_text()
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_string()
}

/// Answers that differ only in case, surrounding space or final punctuation are the same answer.
fn answer_key(answer: &str) -> String {
    answer
        .trim()
        .trim_end_matches(['.', '!', '?', ',', ';', ':'])
        .trim()
        .to_lowercase()
}

/// The options a POLL offers: `meta: poll` `Options: Yes | No | Later`
/// (separated by `|`, or by commas when there is no `|`).
pub fn options_of(msg: &Message) -> Vec<String> {
    let Some(list) = msg.meta_block("poll").and_then(|b| b.get("Options")) else {
        return Vec::new();
    };
    let separator = if list.contains('|') { '|' } else { ',' };
    list.split(separator)
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(str::to_string)
        .collect()
}

/// The option an answer chooses: the one its first sentence or its first
/// word names ("Yes. The suite is green" and "yes!" both choose `Yes`).
pub fn choose<'o>(answer: &str, options: &'o [String]) -> Option<&'o str> {
    let first_sentence = answer
        .split_inclusive(['.', '!', '?', '\n'])
        .next()
        .unwrap_or(answer);
    let first_word = answer
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '.' | '!' | '?'))
        .find(|w| !w.is_empty())
        .unwrap_or("");
    let candidates = [
        answer_key(answer),
        answer_key(first_sentence),
        answer_key(first_word),
    ];
    options
        .iter()
        .find(|o| candidates.contains(&answer_key(o)))
        .map(String::as_str)
}

/// Who a POLL asks: `meta: poll` `Recipients:`, else its receiver, split on commas.
pub fn expected_of(msg: &Message) -> Vec<String> {
    let list = msg
        .meta_block("poll")
        .and_then(|b| b.get("Recipients"))
        .map(str::to_string)
        .or_else(|| msg.recipient.clone())
        .unwrap_or_default();
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Collates every POLL among the messages (in input order).
pub fn collate(messages: &[Located<'_>]) -> Vec<Collation> {
    let known: HashSet<String> = messages
        .iter()
        .filter_map(|m| m.message.id.clone())
        .collect();
    collate_among(messages, &known)
}

/// What a collation reads of a message: POLLs whole; of a RESPOND its ids,
/// sender and answer only (`None` for any other message). A long input is
/// collated from these and the ids of all its messages
/// ([`collate_among`]), without holding its messages.
pub fn kept_for_collation(message: Message) -> Option<Message> {
    match message.intent {
        Some(Intent::Poll) => Some(message),
        Some(Intent::Respond) => {
            let answer = answer_of(&message);
            Some(Message {
                body: crate::model::Body::Text(answer),
                meta: Vec::new(),
                extensions: Vec::new(),
                signature: None,
                ..message
            })
        }
        _ => None,
    }
}

/// What a collation keeps of a stream of messages, read one at a time:
/// the POLLs and the answers of RESPONDs, and every id seen.
#[derive(Debug, Default)]
pub struct Gathered {
    kept: Vec<(String, usize, bool, Message)>,
    known: HashSet<String>,
}

impl Gathered {
    /// Takes a message read at `source`:`line`; `valid` says whether it
    /// passed `validate`.
    pub fn add(&mut self, source: &str, line: usize, valid: bool, message: Message) {
        if let Some(id) = &message.id {
            self.known.insert(id.clone());
        }
        if let Some(m) = kept_for_collation(message) {
            self.kept.push((source.to_string(), line, valid, m));
        }
    }

    /// The collation of every POLL gathered.
    pub fn collate(&self) -> Vec<Collation> {
        let located: Vec<Located> = self
            .kept
            .iter()
            .map(|(source, line, valid, message)| Located {
                message,
                source,
                line: *line,
                valid: *valid,
            })
            .collect();
        collate_among(&located, &self.known)
    }
}

/// [`collate`] of some messages among others whose ids are `known` (all
/// the inputs' ids: a reply to one of them is no stray reply).
pub fn collate_among(messages: &[Located<'_>], known: &HashSet<String>) -> Vec<Collation> {
    // The replies to each message id, found once for all POLLs.
    let mut replies: HashMap<&str, Vec<&Located<'_>>> = HashMap::new();
    let mut by_thread: HashMap<&str, Vec<&Located<'_>>> = HashMap::new();
    for m in messages
        .iter()
        .filter(|m| m.message.intent == Some(Intent::Respond))
    {
        if let Some(parent) = m.message.parent.as_deref() {
            replies.entry(parent).or_default().push(m);
        }
        // A reply in a thread to a message that is not among the inputs
        // (another POLL that was not pasted, say) is shown beside the POLLs
        // of that thread, not dropped.
        let unknown_parent = m
            .message
            .parent
            .as_deref()
            .is_some_and(|p| !known.contains(p));
        if let Some(thread) = m.message.thread.as_deref().filter(|_| unknown_parent) {
            by_thread.entry(thread).or_default().push(m);
        }
    }
    messages
        .iter()
        .filter(|m| m.message.intent == Some(Intent::Poll))
        .filter_map(|poll| {
            let id = poll.message.id.as_deref()?;
            let direct = replies.get(id).map_or(&[][..], Vec::as_slice);
            let in_thread = poll
                .message
                .thread
                .as_deref()
                .and_then(|t| by_thread.get(t))
                .map_or(&[][..], Vec::as_slice);
            Some(collate_one(poll, id, direct, in_thread))
        })
        .collect()
}

fn collate_one(
    poll: &Located<'_>,
    id: &str,
    direct: &[&Located<'_>],
    in_thread: &[&Located<'_>],
) -> Collation {
    let expected = expected_of(poll.message);
    let asked =
        |who: &str| expected.is_empty() || expected.iter().any(|e| e.eq_ignore_ascii_case(who));
    let options = options_of(poll.message);
    let mut not_counted = Vec::new();
    let set_apart = |m: &Located<'_>, why| NotCounted {
        respondent: m.message.sender.clone().unwrap_or_default(),
        answer: answer_of(m.message),
        source: m.source.to_string(),
        line: m.line,
        why,
    };
    // Last answer per respondent, in input order.
    let mut last: Vec<(String, String)> = Vec::new();
    let mut slot_of: HashMap<String, usize> = HashMap::new();
    let mut changed = Vec::new();
    for m in direct {
        let who = m.message.sender.clone().unwrap_or_default();
        if !m.valid {
            not_counted.push(set_apart(m, "invalid"));
            continue;
        }
        if !asked(&who) {
            not_counted.push(set_apart(m, "not-asked"));
            continue;
        }
        let mut answer = answer_of(m.message);
        if !options.is_empty() {
            match choose(&answer, &options) {
                Some(option) => answer = option.to_string(),
                None => {
                    not_counted.push(set_apart(m, "no-option"));
                    continue;
                }
            }
        }
        match slot_of.get(&who.to_lowercase()) {
            Some(&i) => {
                last[i].1 = answer;
                if !changed.contains(&who) {
                    changed.push(who);
                }
            }
            None => {
                slot_of.insert(who.to_lowercase(), last.len());
                last.push((who, answer));
            }
        }
    }
    for m in in_thread {
        not_counted.push(set_apart(m, "other-parent"));
    }
    let mut answers: Vec<Answer> = Vec::new();
    let mut answer_slot: HashMap<String, usize> = HashMap::new();
    for (who, answer) in &last {
        let key = answer_key(answer);
        match answer_slot.get(&key) {
            Some(&i) => {
                answers[i].count += 1;
                answers[i].respondents.push(who.clone());
            }
            None => {
                answer_slot.insert(key, answers.len());
                answers.push(Answer {
                    answer: answer.clone(),
                    count: 1,
                    respondents: vec![who.clone()],
                });
            }
        }
    }
    answers.sort_by_key(|a| std::cmp::Reverse(a.count));
    let answered: std::collections::HashSet<String> =
        last.iter().map(|(w, _)| w.to_lowercase()).collect();
    let missing = expected
        .iter()
        .filter(|e| !answered.contains(&e.to_lowercase()))
        .cloned()
        .collect();
    Collation {
        poll_id: id.to_string(),
        source: poll.source.to_string(),
        line: poll.line,
        sender: poll.message.sender.clone(),
        question: poll
            .message
            .body_text()
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string(),
        options,
        answers,
        expected,
        missing,
        changed,
        not_counted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::crosstalk::{model_map::to_message, parse_all};

    const POLL: &str = "[[HUMAN→CLAUDE,GPT,GEMINI v1]]\nmessage: 01J9J3DBC4N7P2Q3R5S7T9U1V2\nintent: POLL\nbody: |\n  Ship on Friday?\nsig: none\n[[END]]\n";

    fn reply(from: &str, answer: &str) -> String {
        format!(
            "[[{from}→HUMAN v1]]\nparent: 01J9J3DBC4N7P2Q3R5S7T9U1V2\nintent: RESPOND\nbody: |\n  {answer}\nsig: none\n[[END]]\n"
        )
    }

    #[test]
    fn tallies_answers_and_lists_who_is_missing() {
        let text = [
            POLL.to_string(),
            reply("CLAUDE", "Yes."),
            reply("GPT", "no"),
            reply("GPT", "yes"),
        ]
        .join("\n");
        let msgs = messages_of(&text);
        let c = collate(&located(&msgs));
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].answers.len(), 1);
        assert_eq!(c[0].answers[0].count, 2);
        assert_eq!(c[0].missing, vec!["GEMINI"]);
        assert_eq!(c[0].changed, vec!["GPT"]);
    }

    /// The shared-model form of every envelope in a text.
    fn messages_of(text: &str) -> Vec<Message> {
        parse_all(text)
            .iter()
            .map(|p| to_message(&p.envelope))
            .collect()
    }

    fn located(msgs: &[Message]) -> Vec<Located<'_>> {
        msgs.iter()
            .map(|m| Located {
                message: m,
                source: "t",
                line: 1,
                valid: true,
            })
            .collect()
    }

    #[test]
    fn declared_options_are_matched_on_the_first_word_or_sentence() {
        let options: Vec<String> = ["Yes", "No", "Not sure"].map(String::from).to_vec();
        assert_eq!(choose("Yes. The suite is green", &options), Some("Yes"));
        assert_eq!(choose("yes!", &options), Some("Yes"));
        assert_eq!(choose("Not sure. Ask QA.", &options), Some("Not sure"));
        assert_eq!(choose("Maybe", &options), None);
    }

    /// The POLL with the options Yes and No in a meta block.
    fn poll_with_options() -> String {
        POLL.replace(
            "intent: POLL\n",
            "intent: POLL\n\nmeta: poll\nOptions: Yes | No\n\n",
        )
    }

    #[test]
    fn replies_that_do_not_count_are_listed_apart() {
        let text = [
            poll_with_options(),
            reply("CLAUDE", "Yes. The suite is green."),
            reply("GPT", "yes!"),
            reply("MALLORY", "No"),
            reply("GEMINI", "Perhaps"),
        ]
        .join("\n");
        let msgs = messages_of(&text);
        let c = &collate(&located(&msgs))[0];
        assert_eq!(c.answers.len(), 1);
        assert_eq!(
            (c.answers[0].answer.as_str(), c.answers[0].count),
            ("Yes", 2)
        );
        let apart: Vec<(&str, &str)> = c
            .not_counted
            .iter()
            .map(|n| (n.respondent.as_str(), n.why))
            .collect();
        assert_eq!(
            apart,
            vec![("MALLORY", "not-asked"), ("GEMINI", "no-option")]
        );
        assert_eq!(c.missing, vec!["GEMINI"]);
    }

    #[test]
    fn what_is_kept_for_a_collation_collates_the_same() {
        let text = [
            poll_with_options(),
            reply("CLAUDE", "Yes. The suite is green."),
            reply("GPT", "yes!\nBecause the suite is green."),
            reply("MALLORY", "No"),
            reply("GEMINI", "Perhaps"),
        ]
        .join("\n");
        let msgs = messages_of(&text);
        let kept: Vec<Message> = msgs
            .iter()
            .cloned()
            .filter_map(kept_for_collation)
            .collect();
        let known: HashSet<String> = msgs.iter().filter_map(|m| m.id.clone()).collect();
        let whole = serde_json::to_value(collate(&located(&msgs))).unwrap();
        let slim = serde_json::to_value(collate_among(&located(&kept), &known)).unwrap();
        assert_eq!(whole, slim);
    }
}
