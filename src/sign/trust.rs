//! Deciding whether a signature is good: the key it must verify with comes
//! from `--pubkey`, a `--trusted-keys` list, or the keystore (own keys and
//! keys pinned on first use); a known signer presenting a different key
//! fails loudly; and the key must be allowed to sign for the message's
//! sender (as `ssh-keygen -Y verify` checks a principal), so that a key
//! trusted for mallory cannot vouch for a message from alice.

use super::claim::{Claim, ClaimError};
use super::key::PublicKey;
use super::keystore::{Keystore, KnownKey, StoreError};

/// Where trusted keys come from for one `verify` run.
pub enum Trust {
    /// `--pubkey FILE`: this key, whatever the message names.
    Key(PublicKey),
    /// `--trusted-keys FILE`: only these keys; nothing is pinned.
    List(Vec<KnownKey>),
    /// The keystore; with `tofu`, an unknown signer's presented key is pinned.
    Store { store: Keystore, tofu: bool },
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
    #[error(
        "THE KEY OF `{id}` HAS CHANGED: pinned {pinned}, this message carries {seen}; if the change is expected, run `aiproto keys forget {id}`"
    )]
    KeyChanged {
        id: String,
        pinned: String,
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
    #[error("`{id}` signs with {expected}, the message says {claimed}")]
    WrongAlgorithm {
        id: String,
        expected: &'static str,
        claimed: &'static str,
    },
    #[error("the signature does not match the message (signed by `{0}`)")]
    BadSignature(String),
    #[error("the key {fingerprint} of `{id}` was revoked")]
    Revoked { id: String, fingerprint: String },
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
}

impl VerifyError {
    pub fn code(&self) -> &'static str {
        match self {
            VerifyError::Claim(ClaimError::Unsigned) => "SIG-UNSIGNED",
            VerifyError::Claim(ClaimError::Malformed(_)) => "SIG-MALFORMED",
            VerifyError::Claim(ClaimError::UnknownAlgorithm(_)) => "SIG-ALGORITHM",
            VerifyError::Claim(ClaimError::Unsupported(_)) => "SIG-UNSUPPORTED",
            VerifyError::UnknownKey(_) | VerifyError::NotTrusted(_) => "SIG-UNTRUSTED",
            VerifyError::KeyChanged { .. } | VerifyError::OwnKeyForged { .. } => "SIG-KEY-CHANGED",
            VerifyError::NotForSender { .. } => "SIG-SENDER",
            VerifyError::LookAlike { .. } => "SIG-LOOKALIKE",
            VerifyError::WrongAlgorithm { .. } => "SIG-ALGORITHM",
            VerifyError::BadSignature(_) => "SIG-BAD",
            VerifyError::Revoked { .. } => "SIG-REVOKED",
            VerifyError::Store(_) => "SIG-KEYSTORE",
            VerifyError::Invalid { code, .. } => code,
        }
    }
}

/// Verifies a claimed signature over `input`, made for a message from
/// `sender` (when it names one).
pub fn verify(
    claim: &Claim,
    input: &[u8],
    trust: &Trust,
    sender: Option<&str>,
) -> Result<Verified, VerifyError> {
    let id = claim.key_id.clone();
    if id.is_empty() && !matches!(trust, Trust::Key(_)) {
        return Err(VerifyError::UnknownKey(
            "(the signature names no key; verify it with --pubkey)".into(),
        ));
    }
    // The key, the line that says whom it signs for (none with --pubkey),
    // and whether to pin it once the signature checks out.
    let (key, entry, pin_after) = match trust {
        Trust::Key(key) => (key.clone(), None, false),
        Trust::List(keys) => {
            let known = keys
                .iter()
                .find(|k| k.id == id)
                .ok_or_else(|| VerifyError::NotTrusted(id.clone()))?;
            (known.key.clone(), Some(known.clone()), false)
        }
        Trust::Store { store, tofu } => match (store.trusted_entry(&id)?, &claim.public_key) {
            (Some((own, true)), Some(seen)) if own.key != *seen => {
                return Err(VerifyError::OwnKeyForged {
                    id,
                    own: own.key.fingerprint(),
                    seen: seen.fingerprint(),
                });
            }
            (Some((pinned, false)), Some(seen)) if pinned.key != *seen => {
                return Err(VerifyError::KeyChanged {
                    id,
                    pinned: pinned.key.fingerprint(),
                    seen: seen.fingerprint(),
                });
            }
            (Some((known, _)), _) => (known.key.clone(), Some(known), false),
            (None, Some(seen)) if *tofu => {
                refuse_lookalike("key id", &id)?;
                if let Some(sender) = sender {
                    refuse_lookalike("sender", sender)?;
                }
                let pinned = KnownKey {
                    id: id.clone(),
                    key: seen.clone(),
                    signs_for: sender.map(|s| vec![s.to_string()]).unwrap_or_default(),
                };
                (seen.clone(), Some(pinned), true)
            }
            (None, _) => return Err(VerifyError::UnknownKey(id)),
        },
    };
    if let Trust::Store { store, .. } = trust
        && let Some(revoked_id) = store.revoked_as(&key)?
    {
        return Err(VerifyError::Revoked {
            id: revoked_id,
            fingerprint: key.fingerprint(),
        });
    }
    if key.algorithm != claim.algorithm {
        return Err(VerifyError::WrongAlgorithm {
            id,
            expected: key.algorithm.name(),
            claimed: claim.algorithm.name(),
        });
    }
    if !key.verify(input, &claim.signature) {
        return Err(VerifyError::BadSignature(id));
    }
    if let (Some(entry), Some(sender)) = (&entry, sender)
        && !entry.may_sign_for(sender)
    {
        return Err(VerifyError::NotForSender {
            key_id: id,
            sender: sender.to_string(),
            allowed: entry.allowed(),
        });
    }
    if pin_after && let (Trust::Store { store, .. }, Some(entry)) = (trust, &entry) {
        store.pin(&id, key.clone(), &entry.signs_for)?;
    }
    Ok(Verified {
        key_id: id,
        algorithm: key.algorithm.name(),
        fingerprint: key.fingerprint(),
        pinned_now: pin_after,
        sender: sender.map(str::to_string),
        bound: entry.is_some(),
    })
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
        let list = Trust::List(vec![KnownKey {
            id: "ci".into(),
            key: mallory.public_key(),
            signs_for: vec!["*@example.com".into()],
        }]);
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
}
