//! Message ids met within one input (Crosstalk's `message`, HSP's
//! `message_id`), for `validate` on every face: a
//! second message under an id already used in the same input is named
//! (ID-DUPLICATE: a reply to that id could mean either), and
//! the same message again is said (ID-REPEATED: an archive or a paste
//! that holds it twice). Both are warnings (`--strict` fails them).

use std::collections::HashMap;
use std::collections::hash_map::{Entry, RandomState};
use std::hash::BuildHasher;

use super::{Found, Value};
use crate::diag::{Diagnostic, Pos};

/// The keys of one run's digests: a message's text digested with them on
/// any thread compares with what [`SeenIds`] kept.
#[derive(Debug, Clone)]
pub struct Digests {
    keys: RandomState,
}

impl Digests {
    /// The digest of a message as written (its surrounding whitespace aside).
    pub fn of(&self, text: &str) -> u64 {
        self.keys.hash_one(text.trim())
    }
}

/// The first message under each id of one input: its line and a digest of
/// its text, keyed for this run (SipHash with random keys, so a peer
/// cannot make another message pass as a copy).
#[derive(Debug, Default)]
pub struct SeenIds {
    keys: RandomState,
    first: HashMap<String, (usize, u64)>,
}

impl SeenIds {
    /// The finding of `found` when its id was met before in this input.
    /// `text`: the message as written ([`Found::written`], or the line it
    /// came on); a message that cannot be written (cut off, unreadable
    /// JSON) is left to its own findings.
    /// (`text` is asked for only when the message has an id to compare.)
    pub fn finding<'t>(
        &mut self,
        found: &Found,
        text: impl FnOnce() -> Option<std::borrow::Cow<'t, str>>,
    ) -> Option<Diagnostic> {
        let digests = self.digests();
        self.finding_digested(found, || Some(digests.of(&text()?)))
    }

    /// The keys of this run's digests, for a caller that digests each
    /// message's text elsewhere (on the threads that check them) and hands
    /// the digest to [`SeenIds::finding_digested`].
    pub fn digests(&self) -> Digests {
        Digests {
            keys: self.keys.clone(),
        }
    }

    /// [`SeenIds::finding`], given the digest of the message's text
    /// ([`Digests::of`]) instead of the text.
    pub fn finding_digested(
        &mut self,
        found: &Found,
        digest: impl FnOnce() -> Option<u64>,
    ) -> Option<Diagnostic> {
        // The protocols whose message ids name one message. CSDL carries
        // none of its own (E3's CBP frames number theirs, and a dedup frame
        // repeats one); an MSP trace id follows a task through its signals.
        let id: std::borrow::Cow<'_, str> = match &found.value {
            // Read without building the model: JSON Lines of 100,000 HSP
            // messages pass here.
            Value::Hsp(Some(m)) => m.json.get("message_id")?.as_str()?.into(),
            Value::Crosstalk(_) => found.to_message()?.id?.into(),
            // An A2A message's id (a task's names the work, not a message).
            Value::A2a(Some(doc)) => doc.id()?.into(),
            _ => return None,
        };
        let digest = digest()?;
        match self.first.entry(crate::ids::comparable(&id).into_owned()) {
            Entry::Vacant(slot) => {
                slot.insert((found.line, digest));
                None
            }
            Entry::Occupied(first) => {
                let (line, first_digest) = *first.get();
                let d = if first_digest == digest {
                    Diagnostic::warning(
                        "ID-REPEATED",
                        format!("the same message as on line {line} again (id {id})"),
                    )
                    .with_hint("keep one copy; `thread` shows it once")
                } else {
                    // A warning: a corpus gathered from many files may
                    // reuse ids across them, and an HSP sender that retries
                    // may restamp a message under its id. `thread` fails
                    // an archive that holds it; --strict fails it here.
                    Diagnostic::warning(
                        "ID-DUPLICATE",
                        format!(
                            "message id {id} is already used on line {line} by another message"
                        ),
                    )
                    .with_hint(
                        "every message needs its own id: give this one a fresh id (`aiproto id --reissue`)",
                    )
                };
                Some(d.at(Pos::new(found.line, 1), 1))
            }
        }
    }
}
