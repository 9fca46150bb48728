//! One keystore line: `<id> <algorithm> <base64 key> [signs-for=…]
//! [may-revoke=…] [expires=…] [retired=…]`, the form of `known_keys`, `.pub`
//! files, `keys export` and `--trusted-keys` files, and the rules for which
//! senders a key may sign for and when.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, SecondsFormat, Utc};

use super::key::{Algorithm, PublicKey};

/// One line of `known_keys`, a `.pub` file or a `--trusted-keys` file: a
/// key, the id it signs under, and the senders it may sign for (like the
/// principals of ssh's `allowed_signers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownKey {
    pub id: String,
    pub key: PublicKey,
    /// Sender names or patterns (`*` matches any run of characters:
    /// `*@example.com`, `did:hsp:team_*`); empty: only the key's own id.
    pub signs_for: Vec<String>,
    /// Other key ids whose signed REVOKE of this key is applied (the key
    /// itself always may): the person's choice, never a file's.
    pub revokers: Vec<String>,
    /// After this time the key signs nothing: messages dated later fail.
    pub expires: Option<DateTime<Utc>>,
    /// When a rotation replaced the key: it still verifies the messages
    /// dated before, and nothing later.
    pub retired: Option<DateTime<Utc>>,
}

impl KnownKey {
    /// A key that signs for its own id only.
    pub fn new(id: impl Into<String>, key: PublicKey) -> KnownKey {
        KnownKey {
            id: id.into(),
            key,
            signs_for: Vec::new(),
            revokers: Vec::new(),
            expires: None,
            retired: None,
        }
    }

    /// The same key, signing for these senders.
    pub fn signing_for(mut self, signs_for: Vec<String>) -> KnownKey {
        self.signs_for = signs_for;
        self
    }

    pub fn to_line(&self) -> String {
        let mut line = format!(
            "{} {} {}",
            encode(&self.id),
            self.key.algorithm.name(),
            self.key.to_base64()
        );
        if !self.signs_for.is_empty() {
            let patterns: Vec<String> = self.signs_for.iter().map(|p| encode(p)).collect();
            line.push_str(&format!(" signs-for={}", patterns.join(",")));
        }
        if !self.revokers.is_empty() {
            let ids: Vec<String> = self.revokers.iter().map(|p| encode(p)).collect();
            line.push_str(&format!(" may-revoke={}", ids.join(",")));
        }
        for (name, date) in [("expires", self.expires), ("retired", self.retired)] {
            if let Some(date) = date {
                line.push_str(&format!(" {name}={}", format_date(date)));
            }
        }
        line
    }

    /// Reads `<id> <algorithm> <base64> [signs-for=P1,P2] [may-revoke=ID,…]
    /// [expires=DATE] [retired=DATE]`.
    pub fn parse(line: &str) -> Result<KnownKey, String> {
        let mut parts = line.split_whitespace();
        let (Some(id), Some(alg), Some(b64)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(
                "expected `<key id> <algorithm> <base64 public key> [signs-for=SENDER,…]`".into(),
            );
        };
        let algorithm = Algorithm::parse(alg)
            .ok_or_else(|| format!("unknown algorithm `{alg}` (ed25519 or secp256r1)"))?;
        let bytes = STANDARD
            .decode(b64)
            .map_err(|_| "the public key is not base64".to_string())?;
        let key = PublicKey::new(algorithm, bytes).map_err(|e| e.to_string())?;
        let mut known = KnownKey::new(decode(id)?, key);
        for field in parts {
            let (name, value) = field.split_once('=').unwrap_or((field, ""));
            let list = || -> Result<Vec<String>, String> {
                value
                    .split(',')
                    .filter(|p| !p.is_empty())
                    .map(decode)
                    .collect()
            };
            let date = || parse_date(value).map_err(|why| format!("`{field}`: {why}"));
            match name {
                "signs-for" if known.signs_for.is_empty() => known.signs_for = list()?,
                "may-revoke" if known.revokers.is_empty() => known.revokers = list()?,
                "expires" if known.expires.is_none() => known.expires = Some(date()?),
                "retired" if known.retired.is_none() => known.retired = Some(date()?),
                "signs-for" | "may-revoke" | "expires" | "retired" => {
                    return Err(format!("`{name}=` given twice"));
                }
                _ => {
                    return Err(format!(
                        "unexpected `{field}` (expected signs-for=SENDER,…, may-revoke=ID,…, expires=DATE or retired=DATE)"
                    ));
                }
            }
        }
        Ok(known)
    }

    /// Why this key does not vouch for a message dated `time` (`None`: the
    /// message carries no date): past its expiry, or retired by a rotation.
    pub fn out_of_date(&self, time: Option<DateTime<Utc>>) -> Option<String> {
        let when = |t: Option<DateTime<Utc>>| {
            t.map_or_else(
                || "carries no date".to_string(),
                |t| format!("is dated {}", format_date(t)),
            )
        };
        // Dates are written to the second: a message dated within the
        // rotation's own second may have been signed before it, and is
        // judged under the key it names.
        if let Some(retired) = self.retired
            && time.is_none_or(|t| t.timestamp() > retired.timestamp())
        {
            return Some(format!(
                "the key was retired on {} by a rotation, and the message {}",
                format_date(retired),
                when(time)
            ));
        }
        if let Some(expires) = self.expires
            && time.is_none_or(|t| t > expires)
        {
            return Some(format!(
                "the key expired on {}, and the message {}",
                format_date(expires),
                when(time)
            ));
        }
        None
    }

    /// Whether the key is the current one for its id: not retired.
    pub fn is_current(&self) -> bool {
        self.retired.is_none()
    }

    /// Whether this key may sign a message from `sender`: the sender is the
    /// key's id, or matches one of its `signs-for` patterns.
    pub fn may_sign_for(&self, sender: &str) -> bool {
        if self.signs_for.is_empty() {
            return sender == self.id;
        }
        self.signs_for.iter().any(|p| matches_pattern(p, sender))
    }

    /// Whether the key's line names `sender` as one of its own (a bare `*`,
    /// which names no one in particular, does not): a sender so named has
    /// a key, and is no longer at first use.
    pub fn names_sender(&self, sender: &str) -> bool {
        if self.signs_for.is_empty() {
            return sender == self.id;
        }
        self.signs_for
            .iter()
            .any(|p| p != "*" && matches_pattern(p, sender))
    }

    /// Who the key may sign for, for messages: `alice, *@example.com`.
    pub fn allowed(&self) -> String {
        if self.signs_for.is_empty() {
            self.id.clone()
        } else {
            self.signs_for.join(", ")
        }
    }
}

/// A date as keystore lines write it: RFC 3339, UTC, whole seconds.
pub fn format_date(date: DateTime<Utc>) -> String {
    date.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Reads an RFC 3339 date, or a calendar day (`2027-01-31`, its start in UTC).
pub fn parse_date(text: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(date) = DateTime::parse_from_rfc3339(text) {
        return Ok(date.with_timezone(&Utc));
    }
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc())
        .ok_or_else(|| format!("`{text}` is not a date (2027-01-31 or 2027-01-31T12:00:00Z)"))
}

/// `*` matches any run of characters (none included); everything else itself.
pub fn matches_pattern(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = parts.collect();
    let Some((last, middle)) = pieces.split_last() else {
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(i) => rest = &rest[i + piece.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Percent-encodes what would not read back as itself in a key line: `%`,
/// `#` (a comment), `,` and `=` (the signs-for field), whitespace and
/// control characters.
fn encode(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for c in id.chars() {
        if matches!(c, '%' | '#' | ',' | '=') || c.is_whitespace() || c.is_control() {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn decode(text: &str) -> Result<String, String> {
    if !text.contains('%') {
        return Ok(text.to_string());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("`{text}`: a % not followed by two hex digits"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("`{text}` does not decode to UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sign::key::SigningKey;

    #[test]
    fn patterns_name_the_senders_a_key_may_sign_for() {
        assert!(matches_pattern("*@example.com", "alice@example.com"));
        assert!(!matches_pattern("*@example.com", "alice@example.com.evil"));
        assert!(matches_pattern("did:hsp:team_*", "did:hsp:team_a"));
        assert!(matches_pattern("a*b*c", "aXbYc"));
        assert!(!matches_pattern("alice", "alice2"));
        let key = SigningKey::generate(Algorithm::Ed25519)
            .unwrap()
            .public_key();
        assert!(KnownKey::new("alice", key.clone()).may_sign_for("alice"));
        assert!(!KnownKey::new("mallory", key.clone()).may_sign_for("alice"));
        // A bare `*` lets a key sign for anyone, but names no one: a sender
        // it is not otherwise bound to is still at first use elsewhere.
        let any = KnownKey::new("me", key).signing_for(vec!["*".into(), "ME".into()]);
        assert!(any.may_sign_for("BOB") && !any.names_sender("BOB"));
        assert!(any.names_sender("ME"));
    }

    #[test]
    fn every_field_reads_back_and_dates_bound_a_key() {
        let key = SigningKey::generate(Algorithm::Ed25519)
            .unwrap()
            .public_key();
        let mut known = KnownKey::new("a,b", key).signing_for(vec!["*@x.org".into()]);
        known.revokers = vec!["backup".into()];
        known.expires = Some(parse_date("2027-01-31").unwrap());
        known.retired = Some(parse_date("2026-06-01T10:00:00Z").unwrap());
        let line = known.to_line();
        assert!(line.ends_with("expires=2027-01-31T00:00:00Z retired=2026-06-01T10:00:00Z"));
        assert_eq!(KnownKey::parse(&line).unwrap(), known);
        let before = parse_date("2026-05-01").ok();
        assert_eq!(known.out_of_date(before), None);
        let rotation_second = parse_date("2026-06-01T10:00:00.750Z").ok();
        assert_eq!(
            known.out_of_date(rotation_second),
            None,
            "the rotation's second"
        );
        let next_second = known.out_of_date(parse_date("2026-06-01T10:00:01Z").ok());
        assert!(next_second.is_some(), "the second after the rotation");
        let after = known.out_of_date(parse_date("2026-07-01").ok()).unwrap();
        assert!(after.contains("retired on 2026-06-01T10:00:00Z"), "{after}");
        assert!(known.out_of_date(None).unwrap().contains("carries no date"));
        assert!(KnownKey::parse(&format!("{line} bogus=1")).is_err());
        assert!(KnownKey::parse(&format!("{line} expires=2028-01-01")).is_err());
    }
}
