//! POLL collation: the RESPONDs to each POLL grouped by answer, and who has not answered.

use serde::Serialize;

use crate::model::{Intent, Message};

/// A message and where it was read.
pub struct Located<'a> {
    pub message: &'a Message,
    pub source: &'a str,
    pub line: usize,
}

/// The outcome of one POLL.
#[derive(Debug, Serialize)]
pub struct Collation {
    pub poll_id: String,
    pub source: String,
    pub line: usize,
    pub sender: Option<String>,
    pub question: String,
    /// Answers by number of votes (then first seen), each with who gave it.
    pub answers: Vec<Answer>,
    pub expected: Vec<String>,
    /// Expected respondents who sent no RESPOND.
    pub missing: Vec<String>,
    /// Respondents who answered more than once: their last answer counts.
    pub changed: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Answer {
    pub answer: String,
    pub count: usize,
    pub respondents: Vec<String>,
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
        .trim_end_matches(['.', '!', '?'])
        .trim()
        .to_lowercase()
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
    messages
        .iter()
        .filter(|m| m.message.intent == Some(Intent::Poll))
        .filter_map(|poll| {
            let id = poll.message.id.clone()?;
            Some(collate_one(poll, &id, messages))
        })
        .collect()
}

fn collate_one(poll: &Located<'_>, id: &str, messages: &[Located<'_>]) -> Collation {
    // Last answer per respondent, in input order.
    let mut last: Vec<(String, String)> = Vec::new();
    let mut changed = Vec::new();
    for m in messages.iter().filter(|m| {
        m.message.intent == Some(Intent::Respond) && m.message.parent.as_deref() == Some(id)
    }) {
        let who = m.message.sender.clone().unwrap_or_default();
        let answer = answer_of(m.message);
        match last.iter_mut().find(|(w, _)| *w == who) {
            Some(slot) => {
                slot.1 = answer;
                if !changed.contains(&who) {
                    changed.push(who);
                }
            }
            None => last.push((who, answer)),
        }
    }
    let mut answers: Vec<Answer> = Vec::new();
    for (who, answer) in &last {
        match answers
            .iter_mut()
            .find(|a| answer_key(&a.answer) == answer_key(answer))
        {
            Some(a) => {
                a.count += 1;
                a.respondents.push(who.clone());
            }
            None => answers.push(Answer {
                answer: answer.clone(),
                count: 1,
                respondents: vec![who.clone()],
            }),
        }
    }
    answers.sort_by_key(|a| std::cmp::Reverse(a.count));
    let expected = expected_of(poll.message);
    let missing = expected
        .iter()
        .filter(|e| !last.iter().any(|(w, _)| w.eq_ignore_ascii_case(e)))
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
        answers,
        expected,
        missing,
        changed,
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
        let msgs: Vec<Message> = parse_all(&text)
            .iter()
            .map(|p| to_message(&p.envelope))
            .collect();
        let located: Vec<Located> = msgs
            .iter()
            .map(|m| Located {
                message: m,
                source: "t",
                line: 1,
            })
            .collect();
        let c = collate(&located);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].answers.len(), 1);
        assert_eq!(c[0].answers[0].count, 2);
        assert_eq!(c[0].missing, vec!["GEMINI"]);
        assert_eq!(c[0].changed, vec!["GPT"]);
    }
}
