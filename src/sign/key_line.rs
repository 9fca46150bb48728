//! One keystore line: `<id> <algorithm> <base64 key> [signs-for=…]`, the
//! form of `known_keys`, `.pub` files, `keys export` and `--trusted-keys`
//! files, and the rule for which senders a key may sign for.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

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
}

impl KnownKey {
    /// A key that signs for its own id only.
    pub fn new(id: impl Into<String>, key: PublicKey) -> KnownKey {
        KnownKey {
            id: id.into(),
            key,
            signs_for: Vec::new(),
        }
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
        line
    }

    /// Reads `<id> <algorithm> <base64> [signs-for=P1,P2]`.
    pub fn parse(line: &str) -> Result<KnownKey, String> {
        let mut parts = line.split_whitespace();
        let (Some(id), Some(alg), Some(b64), extra, None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
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
        let signs_for = match extra {
            None => Vec::new(),
            Some(field) => field
                .strip_prefix("signs-for=")
                .ok_or_else(|| format!("unexpected `{field}` (expected signs-for=SENDER,…)"))?
                .split(',')
                .filter(|p| !p.is_empty())
                .map(decode)
                .collect::<Result<_, _>>()?,
        };
        Ok(KnownKey {
            id: decode(id)?,
            key,
            signs_for,
        })
    }

    /// Whether this key may sign a message from `sender`: the sender is the
    /// key's id, or matches one of its `signs-for` patterns.
    pub fn may_sign_for(&self, sender: &str) -> bool {
        if self.signs_for.is_empty() {
            return sender == self.id;
        }
        self.signs_for.iter().any(|p| matches_pattern(p, sender))
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
        assert!(!KnownKey::new("mallory", key).may_sign_for("alice"));
    }
}
