//! The primer: short, ready-to-paste instructions that teach a chat
//! assistant to answer in a valid Crosstalk envelope, with the exact header
//! its reply must carry (route, session, thread, parent, a fresh message
//! id) when it answers a given envelope.

use super::envelope::Envelope;
use super::parse::ParsedEnvelope;
use super::render::render;
use super::reply::{self, ReplyError};
use crate::ids::{self, IdKind};

/// How many ids the primer gives for the assistant's follow-up messages.
pub const SPARE_IDS: usize = 3;

/// What the example envelope's body says.
pub const EXAMPLE_BODY: &str =
    "Your answer goes here, in plain text.\nEvery body line is indented by two spaces.";

/// The reply the assistant should write: `skeleton` (from
/// [`super::reply::skeleton`]) or a new message `from` → `to`, with a fresh
/// message id, `sig: none` and the example body.
pub fn example(skeleton: Option<Envelope>, from: &str, to: &str) -> Envelope {
    let mut env = skeleton.unwrap_or_else(|| Envelope {
        sender: from.to_string(),
        receiver: to.to_string(),
        session: Some(ids::new_session()),
        thread: Some(ids::new_id(IdKind::Ulid)),
        intent: Some("REQUEST".into()),
        ..Envelope::default()
    });
    env.version_token = "v1".into();
    env.message = Some(ids::new_id(IdKind::Ulid));
    env.body = Some(EXAMPLE_BODY.into());
    env.sig = Some("none".into());
    env
}

/// The primer text around `example` (rendered); `original` is the envelope
/// being answered, shown after the instructions when there is one.
pub fn primer(example: &Envelope, original: Option<&str>) -> String {
    let replying = original.is_some();
    let mut out = String::new();
    out.push_str(
        "We talk through AI Crosstalk envelopes: a person copies them between chats, \
         and a program checks them. ",
    );
    if replying {
        out.push_str("Answer the envelope at the end of this message with ONE envelope, ");
    } else {
        out.push_str("Write your messages as ONE envelope each, ");
    }
    out.push_str("inside a ``` code block, exactly in this shape:\n\n```\n");
    out.push_str(&render(example));
    out.push_str("```\n\nRules:\n");
    let original_fence = original.map(fence_for);
    let header = format!("[[{}→{} v1]]", example.sender, example.receiver);
    let mut rules = vec![
        format!("The first line is `{header}` (sender → receiver, then v1)."),
        "Then one `name: value` header per line, lowercase names, in the order shown.".into(),
    ];
    // Ids for the messages after this one: an assistant cannot make a ULID
    // it can be sure of, so it is given some.
    let spare: Vec<String> = (0..SPARE_IDS).map(|_| ids::new_id(IdKind::Ulid)).collect();
    if replying {
        rules.push(
            "Keep session, thread and parent exactly as shown: they link your reply to the \
             message you answer. Use the message id shown for your reply."
                .into(),
        );
    } else {
        rules.push("Keep the thread and message ids as shown.".into());
    }
    rules.push(format!(
        "Every message has its own id, never reused: for your next messages in this thread, use \
         these in turn: {}.",
        spare.join(", ")
    ));
    rules.extend([
        "intent is one of REQUEST (ask), RESPOND (answer), BROADCAST (inform), POLL (ask several), \
         ACK, NACK, ERROR."
            .to_string(),
        "`body: |` on its own line, then the text with EVERY line indented by two spaces \
         (blank lines allowed)."
            .into(),
        "End with `sig: none` and `[[END]]`, each on its own line. Never stop before [[END]]: \
         an envelope without it is rejected as cut off."
            .into(),
        "No Markdown around or inside the envelope (no bold, headings, bullets, quotes); \
         keep the code block so the chat keeps the indentation."
            .into(),
        "Write only plain spaces: no tabs or non-breaking spaces in the header lines.".into(),
        "If your body holds code in a ``` block, put the whole envelope in a ```` block \
         (four backticks) instead, so that the code's fence does not end it."
            .into(),
    ]);
    for rule in rules {
        out.push_str("- ");
        out.push_str(&rule);
        out.push('\n');
    }
    if let (Some(original), Some(fence)) = (original, original_fence) {
        out.push_str("\nThe envelope to answer:\n\n");
        out.push_str(&fence);
        out.push('\n');
        out.push_str(original);
        if !original.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&fence);
        out.push('\n');
    }
    out
}

/// A code fence that no line of `text` can end: backticks, one more than
/// the longest run of them that opens a line of it (three at least).
fn fence_for(text: &str) -> String {
    let longest = text
        .lines()
        .map(|l| l.trim_start().chars().take_while(|c| *c == '`').count())
        .max()
        .unwrap_or(0);
    "`".repeat((longest + 1).max(3))
}

/// The name every person relaying goes by, whatever keys they have.
pub const PERSON: &str = "HUMAN";

/// Why no primer for a reply could be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplyPrimerError {
    #[error(transparent)]
    Reply(#[from] ReplyError),
    #[error("line {0}: the envelope was cut off before its [[END]] line; copy it whole")]
    CutOff(usize),
    /// The envelope answered is invalid: the chat would answer what the
    /// archive, `send` and `recv` refuse.
    #[error(
        "line {line}: the envelope answered is invalid ([{code}] {message}); see `aiproto validate`"
    )]
    Invalid {
        line: usize,
        code: &'static str,
        message: String,
    },
    /// The envelope answered is addressed to the person: the chat given the
    /// primer would write as them.
    #[error(
        "line {line}: the envelope answered is addressed to {receiver}, that is you: the chat given the primer would answer as you"
    )]
    ToThePerson { line: usize, receiver: String },
}

/// A primer for answering an envelope of a paste, and which one it answers.
#[derive(Debug)]
pub struct ReplyPrimer {
    /// The 0-based index of the envelope answered.
    pub index: usize,
    pub text: String,
}

/// The primer that hands the other chat an envelope of `envelopes` to
/// answer: the one `pick` names (see [`reply::pick`]), answered by `from`
/// or by its receiver. `person` names whoever relays (they sign for these
/// senders; [`PERSON`] always): a chat is never told to write as them. With
/// no `pick`, an envelope addressed to the person is passed over for the
/// last one that is not (the other half of a reply, addressed to the other
/// chat); with a `pick` that names one, or when every envelope is, it is an
/// error unless `from` says who answers.
pub fn for_reply(
    envelopes: &[ParsedEnvelope],
    pick: Option<&str>,
    from: Option<&str>,
    person: &[String],
) -> Result<ReplyPrimer, ReplyPrimerError> {
    let is_person = |env: &Envelope| {
        reply::receivers(env).iter().any(|r| {
            r.eq_ignore_ascii_case(PERSON) || person.iter().any(|p| p.eq_ignore_ascii_case(r))
        })
    };
    let (mut index, mut original) = reply::pick(envelopes, pick)?;
    if from.is_none() && is_person(&original.envelope) {
        let other = envelopes
            .iter()
            .enumerate()
            .rev()
            .find(|(_, e)| !e.quoted && !is_person(&e.envelope));
        match other {
            Some((i, e)) if pick.is_none() => (index, original) = (i, e),
            _ => {
                return Err(ReplyPrimerError::ToThePerson {
                    line: original.start_line,
                    receiver: original.envelope.receiver.clone(),
                });
            }
        }
    }
    if !original.complete {
        return Err(ReplyPrimerError::CutOff(original.start_line));
    }
    // What the chat is handed is the envelope as written again: it must
    // pass as the archive and `send` would take it.
    let rendered = render(&original.envelope);
    let checked = super::read(&rendered, chrono::Utc::now(), usize::MAX);
    let error = original
        .diagnostics
        .iter()
        .chain(checked.iter().flat_map(|p| p.diagnostics.iter()))
        .find(|d| d.is_error());
    if let Some(d) = error {
        return Err(ReplyPrimerError::Invalid {
            line: original.start_line,
            code: d.code,
            message: d.message.clone(),
        });
    }
    let skeleton = reply::skeleton(&original.envelope, from)?;
    let example = example(Some(skeleton), "", "");
    Ok(ReplyPrimer {
        index,
        text: primer(&example, Some(&rendered)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::crosstalk::{read, reply};
    use chrono::Utc;

    fn example_in(primer: &str) -> Vec<crate::protocols::crosstalk::ParsedEnvelope> {
        read(primer, Utc::now(), usize::MAX)
    }

    /// The errors of an example envelope but the one that marks it as the
    /// primer's (it is in the right shape; it is just not an answer).
    fn shape_errors(
        found: &crate::protocols::crosstalk::ParsedEnvelope,
    ) -> Vec<&crate::diag::Diagnostic> {
        assert!(
            found
                .diagnostics
                .iter()
                .any(|d| d.code == "CT-PRIMER-EXAMPLE"),
            "the example is marked as the primer's: {:?}",
            found.diagnostics
        );
        found
            .diagnostics
            .iter()
            .filter(|d| d.is_error() && d.code != "CT-PRIMER-EXAMPLE")
            .collect()
    }

    #[test]
    fn the_example_of_a_new_message_has_the_shape_and_is_marked() {
        let text = primer(&example(None, "CLAUDE", "HUMAN"), None);
        let found = example_in(&text);
        assert_eq!(found.len(), 1, "{text}");
        let errors = shape_errors(&found[0]);
        assert!(errors.is_empty(), "{errors:?}\n{text}");
        assert!(text.lines().count() < 40, "short enough to paste");
    }

    #[test]
    fn the_example_reply_carries_the_ids_of_the_original() {
        let original = "[[HUMAN→CLAUDE v1]]\nsession: 2025-10-09T16Z abc123\nthread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K\nmessage: 01J9J3DBC4N7P2Q3R5S7T9V1V2\nintent: REQUEST\nbody: |\n  Review the plan.\nsig: none\n[[END]]\n";
        let parsed = &crate::protocols::crosstalk::parse_all(original)[0];
        let skeleton = reply::skeleton(&parsed.envelope, None).unwrap();
        let text = primer(&example(Some(skeleton), "", ""), Some(original));
        let found = example_in(&text);
        assert_eq!(found.len(), 2);
        let reply = &found[0];
        assert!(shape_errors(reply).is_empty(), "{:?}", reply.diagnostics);
        assert!(
            found[1].diagnostics.iter().all(|d| !d.is_error()),
            "the original is a message: {:?}",
            found[1].diagnostics
        );
        let env = &reply.envelope;
        assert_eq!(env.parent.as_deref(), Some("01J9J3DBC4N7P2Q3R5S7T9V1V2"));
        assert_eq!(env.thread.as_deref(), Some("01J9J3D3M6A4M3WQX8G1ZQ0S7K"));
        assert_eq!(env.session.as_deref(), Some("2025-10-09T16Z abc123"));
        assert_eq!(
            (env.sender.as_str(), env.receiver.as_str()),
            ("CLAUDE", "HUMAN")
        );
        assert_eq!(
            found[1].envelope.message.as_deref(),
            Some("01J9J3DBC4N7P2Q3R5S7T9V1V2")
        );
    }

    const TO_GPT: &str = "[[CLAUDE→CHATGPT v1]]\nmessage: 01J9J3DBC4N7P2Q3R5S7T9V1V2\nintent: REQUEST\nbody: |\n  For ChatGPT.\nsig: none\n[[END]]\n";
    const TO_HUMAN: &str = "[[CLAUDE→HUMAN v1]]\nmessage: 01J9J3DBC4N7P2Q3R5S7T9V1V3\nintent: BROADCAST\nbody: |\n  For you.\nsig: none\n[[END]]\n";

    fn envelopes(text: &str) -> Vec<ParsedEnvelope> {
        crate::protocols::crosstalk::parse_all(text)
    }

    /// A reply holding an envelope for the other chat and, last, one for
    /// the person: the primer answers the first, never as the person.
    #[test]
    fn the_primer_passes_over_an_envelope_addressed_to_the_person() {
        let both = envelopes(&format!("{TO_GPT}\n{TO_HUMAN}"));
        let primed = for_reply(&both, None, None, &[]).unwrap();
        assert_eq!(primed.index, 0);
        assert!(
            primed.text.contains("[[CHATGPT→CLAUDE v1]]"),
            "{}",
            primed.text
        );
        assert!(!primed.text.contains("[[HUMAN→"), "{}", primed.text);
    }

    #[test]
    fn an_envelope_only_for_the_person_needs_a_from_or_another_pick() {
        let only = envelopes(TO_HUMAN);
        let err = for_reply(&only, None, None, &[]).unwrap_err();
        assert!(matches!(err, ReplyPrimerError::ToThePerson { .. }), "{err}");
        // Picked by hand, it is refused too: the chat would still speak as the person.
        let both = envelopes(&format!("{TO_GPT}\n{TO_HUMAN}"));
        let err = for_reply(&both, Some("2"), None, &[]).unwrap_err();
        assert!(matches!(err, ReplyPrimerError::ToThePerson { .. }), "{err}");
        // Said who answers, it is written.
        let primed = for_reply(&only, None, Some("CHATGPT"), &[]).unwrap();
        assert!(
            primed.text.contains("[[CHATGPT→CLAUDE v1]]"),
            "{}",
            primed.text
        );
    }

    /// A sender the person's keys sign for is the person too.
    #[test]
    fn the_senders_of_the_persons_keys_are_the_person() {
        let to_alice = envelopes(&TO_GPT.replace("→CHATGPT", "→alice"));
        let err = for_reply(&to_alice, None, None, &["ALICE".to_string()]).unwrap_err();
        assert!(matches!(err, ReplyPrimerError::ToThePerson { .. }), "{err}");
        assert!(for_reply(&to_alice, None, None, &[]).is_ok());
    }

    /// A body holding a fenced code block: the envelope handed over sits in
    /// a longer fence, so the chat sees it whole, up to its `[[END]]`.
    #[test]
    fn an_envelope_whose_body_holds_code_is_fenced_longer() {
        let with_code = TO_GPT.replace(
            "  For ChatGPT.\n",
            "  Run this:\n  ```sh\n  cargo test\n  ```\n",
        );
        let primed = for_reply(&envelopes(&with_code), None, None, &[]).unwrap();
        let text = &primed.text;
        let at = text.find("The envelope to answer:").unwrap();
        let handed = &text[at..];
        assert!(handed.contains("\n````\n[[CLAUDE→CHATGPT v1]]"), "{handed}");
        assert!(handed.trim_end().ends_with("[[END]]\n````"), "{handed}");
        assert!(
            text.contains("(four backticks)"),
            "the chat is told how: {text}"
        );
        // Without code, three backticks as before.
        let plain = for_reply(&envelopes(TO_GPT), None, None, &[]).unwrap();
        assert!(
            plain.text.contains("\n```\n[[CLAUDE→CHATGPT v1]]"),
            "{}",
            plain.text
        );
    }

    /// An envelope the archive and `send` would refuse is not handed on.
    #[test]
    fn an_invalid_envelope_is_not_handed_on() {
        let invalid = envelopes(&TO_GPT.replace("intent: REQUEST", "intent: PLEASE"));
        let err = for_reply(&invalid, None, None, &[]).unwrap_err();
        assert!(
            matches!(
                err,
                ReplyPrimerError::Invalid {
                    code: "CT-INTENT-UNKNOWN",
                    ..
                }
            ),
            "{err}"
        );
    }
}
