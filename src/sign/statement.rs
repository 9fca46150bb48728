//! Signed statements about keys, written as Crosstalk envelopes so they
//! travel like any message (pasted, mailed, sent): a revocation (REVOKE
//! with `meta: revocation`, `Type: key`), signed by the key it revokes, as
//! an OpenPGP revocation certificate is; and a key transition (`meta:
//! key-transition`), signed by the old key and naming the new one, as an
//! OpenPGP key transition statement.

use chrono::{DateTime, Utc};

use super::claim;
use super::key::{Algorithm, PublicKey, SigningKey};
use super::key_line::{KnownKey, format_date, parse_date};
use crate::model::MetaBlock;
use crate::protocols::crosstalk::{self, Envelope, ParsedEnvelope};

/// The meta namespace of a key transition.
pub const TRANSITION: &str = "key-transition";

/// A key transition read from an envelope (its signature not yet checked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    pub id: String,
    pub old: PublicKey,
    pub new: PublicKey,
    pub at: DateTime<Utc>,
}

/// The sender a statement about `entry` is written as: the first plain
/// sender the key signs for, else `HUMAN` (statements are checked against
/// the key that signed them, not against their sender).
fn sender_of(entry: &KnownKey) -> String {
    entry
        .signs_for
        .iter()
        .find(|s| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || c == '-')
        })
        .cloned()
        .unwrap_or_else(|| "HUMAN".into())
}

fn envelope(entry: &KnownKey, intent: &str, block: MetaBlock, body: String) -> Envelope {
    let id = crate::ids::new_ulid();
    Envelope {
        sender: sender_of(entry),
        receiver: "EVERYONE".into(),
        version_token: "v1.1".into(),
        thread: Some(id.clone()),
        message: Some(id),
        intent: Some(intent.into()),
        meta: vec![block],
        body: Some(body),
        ..Envelope::default()
    }
}

fn key_value(key: &PublicKey) -> String {
    format!("{} {}", key.algorithm.name(), key.to_base64())
}

fn read_key_value(text: &str) -> Result<PublicKey, String> {
    let (algorithm, base64) = text
        .split_once(' ')
        .ok_or_else(|| format!("`{text}`: expected `<algorithm> <base64 key>`"))?;
    let algorithm =
        Algorithm::parse(algorithm).ok_or_else(|| format!("unknown algorithm `{algorithm}`"))?;
    let line = KnownKey::parse(&format!("x {} {}", algorithm.name(), base64.trim()))?;
    Ok(line.key)
}

/// A REVOKE of `entry`'s key signed by that key, to keep for the day the
/// key is lost or stolen.
pub fn revocation(key: &SigningKey, entry: &KnownKey, reason: &str) -> String {
    let mut block = MetaBlock::new("revocation");
    block.entries = vec![
        ("Type".into(), "key".into()),
        ("Key-ID".into(), entry.id.clone()),
        ("Fingerprint".into(), entry.key.fingerprint()),
        ("Reason".into(), reason.into()),
    ];
    let body = format!(
        "The key `{}` ({}) is revoked: do not trust signatures by it any more.\nApply with: aiproto keys apply-revoke FILE",
        entry.id,
        entry.key.fingerprint()
    );
    let mut env = envelope(entry, "REVOKE", block, body);
    claim::sign_crosstalk(&mut env, key, &entry.id, true);
    crosstalk::render(&env)
}

/// A key transition: the old key of `old.id` says that `new` replaces it.
pub fn transition(old_key: &SigningKey, old: &KnownKey, new: &PublicKey) -> String {
    let at = old.retired.unwrap_or_else(Utc::now);
    let mut block = MetaBlock::new(TRANSITION);
    block.entries = vec![
        ("Key-ID".into(), old.id.clone()),
        ("Old-Key".into(), key_value(&old.key)),
        ("New-Key".into(), key_value(new)),
        ("Date".into(), format_date(at)),
    ];
    let body = format!(
        "The key `{}` changes from {} to {}; this statement is signed by the old key.\nApply with: aiproto keys apply-transition FILE",
        old.id,
        old.key.fingerprint(),
        new.fingerprint()
    );
    let mut env = envelope(old, "BROADCAST", block, body);
    claim::sign_crosstalk(&mut env, old_key, &old.id, true);
    crosstalk::render(&env)
}

/// The transition an envelope states, if it carries a `meta:
/// key-transition` block.
pub fn read_transition(parsed: &ParsedEnvelope) -> Option<Result<Transition, String>> {
    let block = parsed.envelope.meta_block(TRANSITION)?;
    let field = |name: &str| {
        block
            .get(name)
            .ok_or_else(|| format!("the key-transition block has no `{name}:`"))
    };
    Some((|| {
        Ok(Transition {
            id: field("Key-ID")?.to_string(),
            old: read_key_value(field("Old-Key")?)?,
            new: read_key_value(field("New-Key")?)?,
            at: parse_date(field("Date")?)?,
        })
    })())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_read_back_and_verify_with_the_key_they_speak_for() {
        let old_key = SigningKey::generate(Algorithm::Ed25519).unwrap();
        let new_key = SigningKey::generate(Algorithm::Ed25519).unwrap();
        let mut old = KnownKey::new("me", old_key.public_key()).signing_for(vec!["HUMAN".into()]);
        old.retired = parse_date("2026-11-25T10:00:00Z").ok();
        let text = transition(&old_key, &old, &new_key.public_key());
        let parsed = crosstalk::parse_all(&text).remove(0);
        assert!(parsed.diagnostics.iter().all(|d| !d.is_error()), "{text}");
        assert_eq!(parsed.envelope.sender, "HUMAN");
        let t = read_transition(&parsed).unwrap().unwrap();
        assert_eq!(t.old, old_key.public_key());
        assert_eq!(t.new, new_key.public_key());
        assert_eq!(format_date(t.at), "2026-11-25T10:00:00Z");
        let (claim, input) = claim::crosstalk_signed(&parsed).unwrap();
        assert!(old_key.public_key().verify(&input, &claim.signature));
        let revoke = revocation(&old_key, &old, "lost");
        let parsed = crosstalk::parse_all(&revoke).remove(0);
        assert!(parsed.diagnostics.iter().all(|d| !d.is_error()), "{revoke}");
        assert_eq!(parsed.envelope.intent.as_deref(), Some("REVOKE"));
    }
}
