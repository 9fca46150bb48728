//! Deciding whether a signature is good: the key it must verify with comes
//! from `--pubkey`, a `--trusted-keys` list, or the keystore (own keys and
//! keys pinned on first use); a known signer, or a known sender, presenting
//! a different key fails loudly; the key must be allowed to sign for the
//! message's sender (as `ssh-keygen -Y verify` checks a principal), so that
//! a key trusted for mallory cannot vouch for a message from alice; and it
//! must have been in force when the message was dated (not revoked, not
//! expired, not yet retired by a rotation).

use chrono::{DateTime, Utc};

use super::claim::{Claim, ClaimError};
use super::key::PublicKey;
use super::keystore::{FirstUse, Keystore, KnownKey, Origin, StoreError};
use crate::protocols::crosstalk::primer::PERSON;

/// Where trusted keys come from for one `verify` run.
pub enum Trust {
    /// `--pubkey FILE`: this key, whatever the message names.
    Key(PublicKey),
    /// `--trusted-keys FILE`: only these keys (several may share an id or a
    /// sender); nothing is pinned.
    List(Vec<KnownKey>),
    /// The keystore; with `tofu`, the key of a sender seen for the first
    /// time is pinned.
    Store { store: Keystore, tofu: bool },
}

/// What a signature is checked against besides the key: who the message
/// says it is from, and when it says it was written.
#[derive(Debug, Clone, Copy, Default)]
pub struct Claimed<'a> {
    pub sender: Option<&'a str>,
    pub time: Option<DateTime<Utc>>,
}

/// A good signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub key_id: String,
    pub algorithm: &'static str,
    pub fingerprint: String,
    /// True when the key was pinned by this verification (trust on first use).
    pub pinned_now: bool,
    /// The message's sender, when it names one.
    pub sender: Option<String>,
    /// Whether the key is bound to the sender (false with `--pubkey`,
    /// which checks the signature only).
    pub bound: bool,
    /// Set when the key is one a rotation retired (it verified a message
    /// dated before the rotation).
    pub retired: bool,
    /// What the verifier names without refusing (a date in the future).
    pub warning: Option<String>,
    /// What is worth knowing about a good signature (an Agent Card signed
    /// over the SDKs' reading of the field-presence rule).
    pub note: Option<String>,
}

/// Why a signature is not accepted; each has a stable code.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    Claim(#[from] ClaimError),
    #[error("no trusted key for `{0}` (pin it with --tofu on first use, or `aiproto keys trust`)")]
    UnknownKey(String),
    #[error("`{0}` is not in the trusted keys")]
    NotTrusted(String),
    /// An Agent Card signed by a key nobody here trusts: the card's own
    /// `jku` or `jwk` is never taken as its key.
    #[error(
        "no trusted key for `{kid}`{}: a card cannot vouch for itself, so aiproto takes no key from it; get the provider's key by a channel you trust, then `aiproto keys trust {kid} KEY --signs-for 'CARD NAME'`",
        jku.as_deref().map(|u| format!(" (the card points to keys at {u}, which aiproto does not fetch)")).unwrap_or_default()
    )]
    UnknownCardKey { kid: String, jku: Option<String> },
    #[error(
        "THE KEY OF `{subject}` HAS CHANGED: `{pinned_id}` ({pinned}) is trusted for it, this message is signed by `{seen_id}` ({seen}); if the change is expected, apply the signer's key transition (`aiproto keys apply-transition FILE`), or run `aiproto keys forget {pinned_id}` and verify again with --tofu"
    )]
    KeyChanged {
        /// The sender or key id that already has a key.
        subject: String,
        pinned_id: String,
        pinned: String,
        seen_id: String,
        seen: String,
    },
    #[error(
        "THIS MESSAGE CLAIMS YOUR OWN KEY `{id}` BUT CARRIES ANOTHER ({seen}; yours is {own}): it was not signed by you"
    )]
    OwnKeyForged {
        id: String,
        own: String,
        seen: String,
    },
    #[error(
        "`{key_id}` signed it, but the sender is `{sender}`: `{key_id}` may sign for {allowed} only"
    )]
    NotForSender {
        key_id: String,
        sender: String,
        allowed: String,
    },
    #[error(
        "not pinned on first use: {what} `{id}` {note}; check who it is, then `aiproto keys trust`"
    )]
    LookAlike {
        what: &'static str,
        id: String,
        note: String,
    },
    /// Trust on first use binds a key to one named sender; this message
    /// gives none to bind (no sender, an empty one, or a pattern).
    #[error(
        "not pinned on first use: {why}, so `{key_id}` cannot be bound to a sender; check who signed it, then `aiproto keys trust {key_id} --signs-for NAME`"
    )]
    NoSenderToPin { key_id: String, why: String },
    #[error("`{id}` signs with {expected}, the message says {claimed}")]
    WrongAlgorithm {
        id: String,
        expected: &'static str,
        claimed: &'static str,
    },
    #[error("the signature does not match the message (signed by `{0}`)")]
    BadSignature(String),
    #[error("the key {fingerprint} of `{id}` was revoked{detail}")]
    Revoked {
        id: String,
        fingerprint: String,
        detail: String,
    },
    #[error("`{id}` did not sign for this message's date: {why}")]
    OutOfDate { id: String, why: String },
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The message does not pass `validate`: its signature is not even
    /// looked at (what a reader acts on may not be what was signed).
    #[error(
        "the message is invalid, so its signature is not accepted: {line}:{column}: {message} (see `aiproto validate`)"
    )]
    Invalid {
        code: &'static str,
        message: String,
        line: usize,
        column: usize,
    },
    /// What the message shows is not exactly what a signature can cover:
    /// a JSON number a double cannot hold, a look-alike character that
    /// Unicode normalization replaces.
    #[error("{line}:{column}: {why}: no signature can cover what this message shows")]
    Inexact {
        code: &'static str,
        why: String,
        line: usize,
        column: usize,
    },
    /// The message's own date is outside what the verifier accepts.
    #[error("{0}")]
    Freshness(&'static str, String),
}

impl VerifyError {
    pub fn code(&self) -> &'static str {
        match self {
            VerifyError::Claim(ClaimError::Unsigned) => "SIG-UNSIGNED",
            VerifyError::Claim(ClaimError::Malformed(_)) => "SIG-MALFORMED",
            VerifyError::Claim(ClaimError::UnknownAlgorithm(_)) => "SIG-ALGORITHM",
            VerifyError::Claim(ClaimError::Unsupported(_)) => "SIG-UNSUPPORTED",
            VerifyError::UnknownKey(_)
            | VerifyError::NotTrusted(_)
            | VerifyError::UnknownCardKey { .. } => "SIG-UNTRUSTED",
            VerifyError::KeyChanged { .. } | VerifyError::OwnKeyForged { .. } => "SIG-KEY-CHANGED",
            VerifyError::NotForSender { .. } => "SIG-SENDER",
            VerifyError::LookAlike { .. } => "SIG-LOOKALIKE",
            VerifyError::NoSenderToPin { .. } => "SIG-NO-SENDER",
            VerifyError::WrongAlgorithm { .. } => "SIG-ALGORITHM",
            VerifyError::BadSignature(_) => "SIG-BAD",
            VerifyError::Revoked { .. } => "SIG-REVOKED",
            VerifyError::OutOfDate { .. } => "SIG-EXPIRED",
            VerifyError::Store(_) => "SIG-KEYSTORE",
            VerifyError::Invalid { code, .. } | VerifyError::Inexact { code, .. } => code,
            VerifyError::Freshness(code, _) => code,
        }
    }
}

/// Verifies a claimed signature over `input`, made for a message from
/// `sender` (when it names one), with no date to check keys against.
pub fn verify(
    claim: &Claim,
    input: &[u8],
    trust: &Trust,
    sender: Option<&str>,
) -> Result<Verified, VerifyError> {
    verify_claimed(claim, input, trust, Claimed { sender, time: None })
}

/// Verifies a claimed signature over `input` against what the message
/// claims: its sender and its date.
pub fn verify_claimed(
    claim: &Claim,
    input: &[u8],
    trust: &Trust,
    claimed: Claimed<'_>,
) -> Result<Verified, VerifyError> {
    let id = claim.key_id.clone();
    if id.is_empty() && !matches!(trust, Trust::Key(_)) {
        return Err(VerifyError::UnknownKey(
            "(the signature names no key; verify it with --pubkey)".into(),
        ));
    }
    // A revoked key is refused before anything else, pinned or not: a
    // revocation outlives `keys forget`, `--replace` and re-imports, and
    // first use never pins a revoked key.
    if let (Trust::Store { store, .. }, Some(seen)) = (trust, &claim.public_key) {
        refuse_revoked(store, seen)?;
    }
    let candidates: Vec<(KnownKey, Origin)> = match trust {
        Trust::Key(key) => {
            check_signature(claim, key, input)?;
            return Ok(verified(claim, key, claimed, None, false));
        }
        Trust::List(keys) => keys
            .iter()
            .filter(|k| k.id == id)
            .map(|k| (k.clone(), Origin::Pinned))
            .collect(),
        Trust::Store { store, .. } => store.entries_for(&id)?,
    };
    if candidates.is_empty() {
        return first_use(claim, input, trust, claimed);
    }
    // The key the message presents must be one of those known for its id.
    let candidates: Vec<(KnownKey, Origin)> = match &claim.public_key {
        Some(seen) => {
            let matching: Vec<_> = candidates
                .iter()
                .filter(|(k, _)| k.key == *seen)
                .cloned()
                .collect();
            if matching.is_empty() {
                let (current, origin) = candidates
                    .iter()
                    .find(|(k, _)| k.is_current())
                    .unwrap_or(&candidates[0]);
                return Err(changed(&id, current, *origin, &id, seen));
            }
            matching
        }
        None => candidates,
    };
    let mut failure = None;
    for (entry, _) in &candidates {
        match check_signature(claim, &entry.key, input) {
            Ok(()) => return accept(claim, trust, claimed, entry),
            Err(e) => failure = Some(failure.unwrap_or(e)),
        }
    }
    Err(failure.unwrap_or(VerifyError::BadSignature(id)))
}

/// A signature that checks out with `entry`: still in force for the
/// message's date, and allowed for its sender.
fn accept(
    claim: &Claim,
    trust: &Trust,
    claimed: Claimed<'_>,
    entry: &KnownKey,
) -> Result<Verified, VerifyError> {
    let id = &claim.key_id;
    if let Trust::Store { store, .. } = trust {
        refuse_revoked(store, &entry.key)?;
    }
    if let Some(why) = entry.out_of_date(claimed.time) {
        return Err(VerifyError::OutOfDate {
            id: id.clone(),
            why,
        });
    }
    if let Some(sender) = claimed.sender
        && !entry.may_sign_for(sender)
    {
        return Err(VerifyError::NotForSender {
            key_id: id.clone(),
            sender: sender.to_string(),
            allowed: entry.allowed(),
        });
    }
    Ok(verified(claim, &entry.key, claimed, Some(entry), false))
}

/// A key id nobody trusts yet: a sender that already has a key is not at
/// first use (whatever id the new key comes under); otherwise `--tofu`
/// pins the presented key for its id and the sender.
fn first_use(
    claim: &Claim,
    input: &[u8],
    trust: &Trust,
    claimed: Claimed<'_>,
) -> Result<Verified, VerifyError> {
    let id = &claim.key_id;
    let untrusted = || match trust {
        Trust::List(_) => VerifyError::NotTrusted(id.clone()),
        _ => VerifyError::UnknownKey(id.clone()),
    };
    let Some(seen) = &claim.public_key else {
        return Err(untrusted());
    };
    check_signature(claim, seen, input)?;
    let bound: Vec<(KnownKey, Origin)> = match (trust, claimed.sender) {
        (Trust::List(keys), Some(sender)) => keys
            .iter()
            .filter(|k| k.is_current() && k.names_sender(sender))
            .map(|k| (k.clone(), Origin::Pinned))
            .collect(),
        (Trust::Store { store, .. }, Some(sender)) => store.bound_to(sender)?,
        _ => Vec::new(),
    };
    if let (Some((entry, origin)), Some(sender)) = (bound.first(), claimed.sender) {
        return Err(changed(sender, entry, *origin, id, seen));
    }
    let Trust::Store { store, tofu: true } = trust else {
        return Err(untrusted());
    };
    refuse_lookalike("key id", id)?;
    let sender = named_sender(id, claimed.sender)?;
    refuse_lookalike("sender", sender)?;
    let pinned = KnownKey::new(id.clone(), seen.clone()).signing_for(vec![sender.to_string()]);
    match store.pin_first_use(id, seen, Some(sender))? {
        FirstUse::Pinned => Ok(verified(claim, seen, claimed, Some(&pinned), true)),
        FirstUse::AlreadyPinned => Ok(verified(claim, seen, claimed, Some(&pinned), false)),
        FirstUse::Taken { entry, origin } => Err(changed(sender, &entry, origin, id, seen)),
    }
}

/// The one sender a key met for the first time may be bound to: a message
/// without a sender, with an empty one, with a pattern (`*`, `*@x.org`,
/// which a key's `signs-for` reads as "anyone matching"), or from the
/// reserved party HUMAN gives none, and nothing is pinned: a key's scope
/// is widened by the person only.
fn named_sender<'s>(key_id: &str, sender: Option<&'s str>) -> Result<&'s str, VerifyError> {
    let refused = |why: String| VerifyError::NoSenderToPin {
        key_id: key_id.to_string(),
        why,
    };
    let Some(sender) = sender else {
        return Err(refused("the message names no sender".into()));
    };
    if sender.trim().is_empty() {
        return Err(refused("the message's sender is empty".into()));
    }
    if sender.contains(['*', '?', '[', ']', ',']) {
        return Err(refused(format!(
            "the message's sender `{sender}` is a pattern, not one sender"
        )));
    }
    // The person relaying: every relay calls them so, so a message "from
    // HUMAN" names no one in particular; the person's key is their own
    // (`keygen --signs-for HUMAN`), never one a message brought.
    if sender.trim().eq_ignore_ascii_case(PERSON) {
        return Err(refused(format!(
            "the message's sender `{sender}` is the name every person relaying goes by, not one party"
        )));
    }
    Ok(sender)
}

/// `SIG-REVOKED` for a key revoked here, whoever it is pinned for (if anyone).
fn refuse_revoked(store: &Keystore, key: &PublicKey) -> Result<(), VerifyError> {
    let Some(revoked) = store.revoked(key)? else {
        return Ok(());
    };
    let mut detail = String::new();
    if let Some(at) = revoked.at {
        detail.push_str(&format!(" on {}", super::key_line::format_date(at)));
    }
    if let Some(by) = revoked.by {
        detail.push_str(&format!(" by `{by}`"));
    }
    Err(VerifyError::Revoked {
        id: revoked.id,
        fingerprint: key.fingerprint(),
        detail,
    })
}

/// The error for a key that is not the one trusted for `subject`.
fn changed(
    subject: &str,
    trusted: &KnownKey,
    origin: Origin,
    seen_id: &str,
    seen: &PublicKey,
) -> VerifyError {
    if origin == Origin::Own {
        return VerifyError::OwnKeyForged {
            id: trusted.id.clone(),
            own: trusted.key.fingerprint(),
            seen: seen.fingerprint(),
        };
    }
    VerifyError::KeyChanged {
        subject: subject.to_string(),
        pinned_id: trusted.id.clone(),
        pinned: trusted.key.fingerprint(),
        seen_id: seen_id.to_string(),
        seen: seen.fingerprint(),
    }
}

fn check_signature(claim: &Claim, key: &PublicKey, input: &[u8]) -> Result<(), VerifyError> {
    if key.algorithm != claim.algorithm {
        return Err(VerifyError::WrongAlgorithm {
            id: claim.key_id.clone(),
            expected: key.algorithm.name(),
            claimed: claim.algorithm.name(),
        });
    }
    if !key.verify(input, &claim.signature) {
        return Err(VerifyError::BadSignature(claim.key_id.clone()));
    }
    Ok(())
}

fn verified(
    claim: &Claim,
    key: &PublicKey,
    claimed: Claimed<'_>,
    entry: Option<&KnownKey>,
    pinned_now: bool,
) -> Verified {
    Verified {
        key_id: claim.key_id.clone(),
        algorithm: key.algorithm.name(),
        fingerprint: key.fingerprint(),
        pinned_now,
        sender: claimed.sender.map(str::to_string),
        bound: entry.is_some(),
        retired: entry.is_some_and(|e| !e.is_current()),
        warning: None,
        note: None,
    }
}

/// Trust on first use never pins an id that mixes scripts or holds
/// invisible or look-alike characters: `аlice` (a Cyrillic а) beside `alice`.
fn refuse_lookalike(what: &'static str, id: &str) -> Result<(), VerifyError> {
    match crate::chars::lookalike_identity(id) {
        Some(note) => Err(VerifyError::LookAlike {
            what,
            id: id.to_string(),
            note,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sign::key::{Algorithm, SigningKey};

    fn claim_for(key: &SigningKey, id: &str, message: &[u8], with_pk: bool) -> Claim {
        Claim {
            algorithm: key.algorithm,
            key_id: id.into(),
            signature: key.sign(message),
            public_key: with_pk.then(|| key.public_key()),
        }
    }

    #[test]
    fn tofu_pins_then_detects_a_changed_key() {
        let dir = tempfile::tempdir().unwrap();
        let trust = Trust::Store {
            store: Keystore::at(dir.path()),
            tofu: true,
        };
        let alice = SigningKey::generate(Algorithm::Ed25519).unwrap();
        let first = verify(
            &claim_for(&alice, "alice", b"m", true),
            b"m",
            &trust,
            Some("alice"),
        )
        .unwrap();
        assert!(first.pinned_now);
        let again = verify(
            &claim_for(&alice, "alice", b"m2", false),
            b"m2",
            &trust,
            Some("alice"),
        )
        .unwrap();
        assert!(!again.pinned_now);
        let mallory = SigningKey::generate(Algorithm::Ed25519).unwrap();
        let err = verify(
            &claim_for(&mallory, "alice", b"m", true),
            b"m",
            &trust,
            Some("alice"),
        )
        .unwrap_err();
        assert_eq!(err.code(), "SIG-KEY-CHANGED");
        assert!(err.to_string().contains(&alice.public_key().fingerprint()));
        let err = verify(
            &claim_for(&mallory, "alice", b"m", false),
            b"m",
            &trust,
            Some("alice"),
        )
        .unwrap_err();
        assert_eq!(err.code(), "SIG-BAD");
    }

    #[test]
    fn unknown_keys_fail_without_tofu_and_lists_pin_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let key = SigningKey::generate(Algorithm::P256).unwrap();
        let store = Trust::Store {
            store: Keystore::at(dir.path()),
            tofu: false,
        };
        assert_eq!(
            verify(
                &claim_for(&key, "bob", b"m", true),
                b"m",
                &store,
                Some("bob")
            )
            .unwrap_err()
            .code(),
            "SIG-UNTRUSTED"
        );
        let list = Trust::List(vec![KnownKey::new("bob", key.public_key())]);
        assert!(
            verify(
                &claim_for(&key, "bob", b"m", false),
                b"m",
                &list,
                Some("bob")
            )
            .is_ok()
        );
        assert_eq!(
            verify(
                &claim_for(&key, "carol", b"m", true),
                b"m",
                &list,
                Some("carol")
            )
            .unwrap_err()
            .code(),
            "SIG-UNTRUSTED"
        );
        assert!(!dir.path().join("known_keys").exists());
    }

    #[test]
    fn a_key_signs_only_for_the_senders_it_is_bound_to() {
        let dir = tempfile::tempdir().unwrap();
        let trust = Trust::Store {
            store: Keystore::at(dir.path()),
            tofu: true,
        };
        let mallory = SigningKey::generate(Algorithm::Ed25519).unwrap();
        // Pinned on first use for the sender it signed as…
        verify(
            &claim_for(&mallory, "mallory", b"m", true),
            b"m",
            &trust,
            Some("mallory"),
        )
        .unwrap();
        // …it cannot then vouch for alice.
        let err = verify(
            &claim_for(&mallory, "mallory", b"m", true),
            b"m",
            &trust,
            Some("alice@example.com"),
        )
        .unwrap_err();
        assert_eq!(err.code(), "SIG-SENDER");
        let list = Trust::List(vec![
            KnownKey::new("ci", mallory.public_key()).signing_for(vec!["*@example.com".into()]),
        ]);
        assert!(
            verify(
                &claim_for(&mallory, "ci", b"m", false),
                b"m",
                &list,
                Some("bot@example.com")
            )
            .is_ok()
        );
        assert_eq!(
            verify(
                &claim_for(&mallory, "ci", b"m", false),
                b"m",
                &list,
                Some("bot@evil.com")
            )
            .unwrap_err()
            .code(),
            "SIG-SENDER"
        );
    }

    #[test]
    fn a_lookalike_id_is_never_pinned_on_first_use() {
        let dir = tempfile::tempdir().unwrap();
        let trust = Trust::Store {
            store: Keystore::at(dir.path()),
            tofu: true,
        };
        let key = SigningKey::generate(Algorithm::Ed25519).unwrap();
        let err = verify(
            &claim_for(&key, "\u{430}lice", b"m", true),
            b"m",
            &trust,
            Some("\u{430}lice"),
        )
        .unwrap_err();
        assert_eq!(err.code(), "SIG-LOOKALIKE");
        assert!(
            err.to_string().contains("U+0430 CYRILLIC SMALL LETTER A"),
            "{err}"
        );
        assert!(!dir.path().join("known_keys").exists());
    }

    /// A message without one named sender pins nothing: a key pinned for
    /// no sender would sign for its own id ("from ALICE" beside Alice's
    /// key), one pinned for a pattern for everyone it matches.
    #[test]
    fn first_use_pins_only_for_one_named_sender() {
        let dir = tempfile::tempdir().unwrap();
        let trust = Trust::Store {
            store: Keystore::at(dir.path()),
            tofu: true,
        };
        let key = SigningKey::generate(Algorithm::Ed25519).unwrap();
        for sender in [
            None,
            Some(""),
            Some("  "),
            Some("*"),
            Some("*@example.com"),
            Some("AL?CE"),
            Some("HUMAN"),
            Some("human"),
        ] {
            let err =
                verify(&claim_for(&key, "ALICE", b"m", true), b"m", &trust, sender).unwrap_err();
            assert_eq!(err.code(), "SIG-NO-SENDER", "{sender:?}: {err}");
            assert!(
                err.to_string().contains("keys trust ALICE --signs-for"),
                "{err}"
            );
            assert!(!dir.path().join("known_keys").exists(), "{sender:?} pinned");
        }
        // Named, it is pinned, for that sender only.
        let ok = verify(
            &claim_for(&key, "ALICE", b"m", true),
            b"m",
            &trust,
            Some("ALICE"),
        )
        .unwrap();
        assert!(ok.pinned_now);
        let no_tofu = Trust::Store {
            store: Keystore::at(dir.path()),
            tofu: false,
        };
        let err = verify(
            &claim_for(&key, "ALICE", b"m", true),
            b"m",
            &no_tofu,
            Some("BOB"),
        )
        .unwrap_err();
        assert_eq!(err.code(), "SIG-SENDER", "{err}");
    }
}
