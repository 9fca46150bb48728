//! Why the keystore could not do what was asked: one error for the
//! keystore and the files under it, below both.

use super::key::KeyError;

/// Why the keystore could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no keystore directory: set AIPROTO_HOME or HOME")]
    NoHome,
    #[error("a key `{0}` already exists (rotate it with `aiproto keygen --rotate {0}`)")]
    Exists(String),
    #[error("no key `{0}` in the keystore")]
    Unknown(String),
    #[error("key id `{0}` may not be empty or hold whitespace, control characters, `;` or `=`")]
    BadId(String),
    #[error("{path}: permissions {mode:o} let others read this private key; run: chmod 600 {path}")]
    Permissions { path: String, mode: u32 },
    #[error("{path}: {why}, so the keystore does not trust it; {fix}")]
    Unsafe {
        path: String,
        why: String,
        fix: String,
    },
    #[error(
        "`{id}` is already pinned with another key ({pinned}; this one is {new}): nothing changed; to replace it deliberately, add --replace"
    )]
    Replaces {
        id: String,
        pinned: String,
        new: String,
    },
    #[error("{0}")]
    SenderBound(Box<SenderBound>),
    #[error("`{0}` is one of your own keys: a key of someone else cannot be pinned under its id")]
    OwnId(String),
    #[error(
        "your key `{id}` was revoked on {at}: it signs nothing (make a new one: aiproto keygen --id NEW-ID)"
    )]
    RevokedOwn { id: String, at: String },
    #[error("your key `{id}` expired on {at}: it signs nothing (aiproto keygen --rotate {id})")]
    ExpiredOwn { id: String, at: String },
    #[error("{path}: {why}")]
    Corrupt { path: String, why: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Key(#[from] KeyError),
}

/// A sender another key already signs for, which a key being pinned would
/// sign for too.
#[derive(Debug, thiserror::Error)]
#[error(
    "`{sender}` is already signed for by {whose} key `{bound_id}` ({bound}); `{new_id}` ({new}) would sign for it too: nothing changed; to bind it deliberately, add --replace",
    whose = if *own { "your own" } else { "the pinned" }
)]
pub struct SenderBound {
    pub sender: String,
    pub bound_id: String,
    pub bound: String,
    pub own: bool,
    pub new_id: String,
    pub new: String,
}
