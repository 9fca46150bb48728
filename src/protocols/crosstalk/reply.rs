//! Answering an envelope found in a paste: which envelope of a transcript
//! is answered, and the reply's skeleton (route, thread, parent), for
//! `compose --reply-to` and the primer alike.

use super::envelope::Envelope;
use super::parse::ParsedEnvelope;

/// Why no reply could be started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplyError {
    #[error("no Crosstalk envelope to reply to")]
    NoEnvelope,
    #[error(
        "--pick {pick}: the input holds {count} envelope(s), numbered 1 to {count} (or -1 for the last)"
    )]
    NoSuchPlace { pick: String, count: usize },
    #[error("--pick {0}: no envelope has this message id")]
    NoSuchId(String),
    #[error(
        "the envelope answered went to several receivers ({0}); say which one answers with --from"
    )]
    WhichReceiver(String),
    #[error(
        "--from {from}: the envelope answered went to {receivers}, and the reply must come from one of them"
    )]
    NotAReceiver { from: String, receivers: String },
}

/// Picks the envelope to answer: by place (1-based; negative counts from
/// the end) or by message id; when `pick` is `None`, the last one (the
/// newest of a transcript) of those not quoted (`> `) — a reply that
/// quotes the message it answers below its own envelopes means its own —
/// or the last one when all are quoted. Returns its 0-based index too.
pub fn pick<'a>(
    envelopes: &'a [ParsedEnvelope],
    pick: Option<&str>,
) -> Result<(usize, &'a ParsedEnvelope), ReplyError> {
    let count = envelopes.len();
    if count == 0 {
        return Err(ReplyError::NoEnvelope);
    }
    let Some(pick) = pick.map(str::trim) else {
        let index = envelopes
            .iter()
            .rposition(|e| !e.quoted)
            .unwrap_or(count - 1);
        return Ok((index, &envelopes[index]));
    };
    if let Ok(place) = pick.parse::<i64>() {
        let index = match place {
            1.. => usize::try_from(place - 1).ok(),
            ..=-1 => usize::try_from(-place)
                .ok()
                .and_then(|back| count.checked_sub(back)),
            0 => None,
        };
        return index
            .filter(|i| *i < count)
            .map(|i| (i, &envelopes[i]))
            .ok_or_else(|| ReplyError::NoSuchPlace {
                pick: pick.to_string(),
                count,
            });
    }
    envelopes
        .iter()
        .enumerate()
        .find(|(_, p)| p.envelope.message.as_deref() == Some(pick))
        .ok_or_else(|| ReplyError::NoSuchId(pick.to_string()))
}

/// The receivers an envelope went to (a POLL may list several).
pub fn receivers(env: &Envelope) -> Vec<&str> {
    env.receiver
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .collect()
}

/// The reply to `original`: from its receiver (or `from`, which must be one
/// of its receivers when it had several) back to its sender (or to its
/// `meta: routing` `X-Reply-To`), same session, user, context and thread,
/// parent = the original's message id, intent RESPOND.
pub fn skeleton(original: &Envelope, from: Option<&str>) -> Result<Envelope, ReplyError> {
    let receivers = receivers(original);
    let sender = match (from, receivers.as_slice()) {
        (Some(from), [_, _, ..]) if !receivers.iter().any(|r| r.eq_ignore_ascii_case(from)) => {
            return Err(ReplyError::NotAReceiver {
                from: from.to_string(),
                receivers: receivers.join(", "),
            });
        }
        (Some(from), _) => from.to_string(),
        (None, [one]) => (*one).to_string(),
        (None, _) => return Err(ReplyError::WhichReceiver(receivers.join(", "))),
    };
    let reply_to = original
        .meta_block("routing")
        .and_then(|b| b.get("X-Reply-To"))
        .map(str::to_string);
    Ok(Envelope {
        sender,
        receiver: reply_to.unwrap_or(original.sender.clone()),
        user: original.user.clone(),
        session: original.session.clone(),
        thread: original.thread.clone().or(original.message.clone()),
        parent: original.message.clone(),
        context: original.context.clone(),
        intent: Some("RESPOND".into()),
        ..Envelope::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::crosstalk::parse_all;

    const TWO: &str = "[[A→B v1]]\nmessage: 01J9J3DBC4N7P2Q3R5S7T9V1V2\nintent: REQUEST\nbody: |\n  one\nsig: none\n[[END]]\n\n[[HUMAN→CLAUDE,GPT v1]]\nmessage: 01J9J3DBC4N7P2Q3R5S7T9V1V3\nintent: POLL\nbody: |\n  two?\nsig: none\n[[END]]\n";

    #[test]
    fn a_quoted_envelope_is_not_answered_when_the_reply_has_its_own() {
        let quoted: String = TWO.lines().take(7).map(|l| format!("> {l}\n")).collect();
        let reply = format!("{TWO}\nYou asked:\n\n{quoted}");
        let envelopes = parse_all(&reply);
        assert_eq!(envelopes.len(), 3);
        assert!(envelopes[2].quoted);
        let (index, _) = pick(&envelopes, None).unwrap();
        assert_eq!(index, 1, "the reply's own last envelope");
        // Asked for by place, the quoted one is still there to answer.
        assert_eq!(pick(&envelopes, Some("3")).unwrap().0, 2);
        // Nothing but quotes: the last of them.
        let only = parse_all(&quoted);
        assert_eq!(pick(&only, None).unwrap().0, 0);
    }

    #[test]
    fn picks_the_last_by_default_and_by_place_or_id() {
        let all = parse_all(TWO);
        assert_eq!(pick(&all, None).unwrap().0, 1);
        assert_eq!(pick(&all, Some("1")).unwrap().0, 0);
        assert_eq!(pick(&all, Some("-2")).unwrap().0, 0);
        assert_eq!(pick(&all, Some("01J9J3DBC4N7P2Q3R5S7T9V1V2")).unwrap().0, 0);
        assert!(matches!(
            pick(&all, Some("3")),
            Err(ReplyError::NoSuchPlace { .. })
        ));
        assert!(matches!(
            pick(&all, Some("0")),
            Err(ReplyError::NoSuchPlace { .. })
        ));
        assert!(matches!(
            pick(&all, Some("01X")),
            Err(ReplyError::NoSuchId(_))
        ));
        assert_eq!(pick(&[], None).unwrap_err(), ReplyError::NoEnvelope);
    }

    #[test]
    fn a_reply_to_a_poll_comes_from_one_receiver() {
        let all = parse_all(TWO);
        let poll = &all[1].envelope;
        assert!(
            matches!(skeleton(poll, None), Err(ReplyError::WhichReceiver(r)) if r == "CLAUDE, GPT")
        );
        assert!(matches!(
            skeleton(poll, Some("GEMINI")),
            Err(ReplyError::NotAReceiver { .. })
        ));
        let reply = skeleton(poll, Some("GPT")).unwrap();
        assert_eq!(
            (reply.sender.as_str(), reply.receiver.as_str()),
            ("GPT", "HUMAN")
        );
        assert_eq!(reply.parent.as_deref(), Some("01J9J3DBC4N7P2Q3R5S7T9V1V3"));
        let plain = skeleton(&all[0].envelope, None).unwrap();
        assert_eq!((plain.sender.as_str(), plain.receiver.as_str()), ("B", "A"));
    }
}
