//! Sending, for every face: whether a message may be sent (the one rule:
//! nothing goes out unless every message may), each message routed for its
//! destination as its sender wrote it, the archive's idempotent append,
//! and a TaskResult judged against the request it claims to answer.

pub use crate::delivery::answer::{Asked, Judgement, judge};
pub use crate::delivery::archive::{ArchiveError, append};
pub use crate::delivery::receipt::{Receipt, receipt};
pub use crate::delivery::routing::{outgoing, with_text};
pub use crate::sign::trust::Trust;

use crate::protocols::Found;

/// Why a message may not be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsendable {
    /// An envelope cut off before its `[[END]]` line.
    CutOff,
    /// Not readable as a message at all (broken JSON): not even `--force`
    /// sends it, since it would be dropped while counted as sent.
    Unreadable,
    /// Invalid; `--force` on the command line sends it anyway.
    Invalid,
}

impl Unsendable {
    /// What a person is told, after the message's place.
    pub fn describe(self) -> &'static str {
        match self {
            Unsendable::CutOff => "the envelope was cut off before its [[END]] line",
            Unsendable::Unreadable => "not readable as a message",
            Unsendable::Invalid => "the message is invalid",
        }
    }
}

/// Why `found` may not be sent (`force`: an invalid message may), or `None`.
pub fn unsendable(found: &Found, force: bool) -> Option<Unsendable> {
    if !found.is_complete() {
        Some(Unsendable::CutOff)
    } else if !found.is_writable() {
        Some(Unsendable::Unreadable)
    } else if !force && !found.is_valid(false) {
        Some(Unsendable::Invalid)
    } else {
        None
    }
}

/// The check `send --require-signed-card` puts on an A2A agent's card
/// before anything is sent: read as A2A, an Agent Card that passes
/// `validate`, signed by a key `trust` holds for the card's name (never one
/// the card points to).
pub fn signed_card_check(trust: Trust) -> crate::transport::a2a::CardCheck {
    use crate::protocols::{Protocol, ReadOptions, Value};
    crate::transport::a2a::CardCheck(std::sync::Arc::new(move |text: &str| {
        let found = Protocol::A2a.read(text, &ReadOptions::default());
        let card = found
            .first()
            .filter(|f| {
                matches!(&f.value, Value::A2a(Some(d)) if d.kind == crate::protocols::a2a::Kind::AgentCard)
            })
            .ok_or("what the agent serves is not an A2A 1.0 Agent Card")?;
        let verified = crate::sign::message::verify_found(card, &trust)
            .map_err(|e| format!("{}: {e}", e.code()))?;
        Ok(format!(
            "the Agent Card is signed by `{}` ({} {}), trusted for `{}`",
            verified.key_id,
            verified.algorithm,
            verified.fingerprint,
            verified.sender.as_deref().unwrap_or_default()
        ))
    }))
}
