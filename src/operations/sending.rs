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
