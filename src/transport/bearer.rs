//! Secrets that open a listening face (the desk's URL, `mcp --listen`'s
//! bearer token): made from 256 random bits, compared in constant time,
//! or read from a file the person keeps.

use base64::Engine;

/// 256 random bits, base64url: a token or a session id.
pub fn random_secret() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness for the token: {e}"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// Compares without stopping at the first difference (the time taken
/// says nothing about how much of a guess was right).
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The shortest token taken from a file or the environment: a guessable
/// one would open the face to anyone who can reach it.
pub const MIN_TOKEN_CHARS: usize = 16;

/// A token the person gives (a file's first line, an environment
/// variable): trimmed, at least [`MIN_TOKEN_CHARS`] characters, visible
/// ASCII only (it travels in an HTTP header).
pub fn checked_token(given: &str, from: &str) -> Result<String, String> {
    let token = given.lines().next().unwrap_or_default().trim();
    if token.chars().count() < MIN_TOKEN_CHARS {
        return Err(format!(
            "the token in {from} is {} characters: at least {MIN_TOKEN_CHARS} are needed \
             (make one with `openssl rand -base64 32`)",
            token.chars().count()
        ));
    }
    if let Some(c) = token.chars().find(|c| !c.is_ascii_graphic()) {
        return Err(format!(
            "the token in {from} holds U+{:04X}: only visible ASCII can travel in an \
             Authorization header",
            c as u32
        ));
    }
    Ok(token.to_string())
}

/// The token of an `Authorization: Bearer TOKEN` header value, if it is one
/// (the scheme's name in any case, RFC 7235).
pub fn bearer_of(header: &str) -> Option<&str> {
    let (scheme, token) = header.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bytes_needs_every_byte() {
        assert!(same_bytes(b"abc", b"abc"));
        assert!(!same_bytes(b"abc", b"abd"));
        assert!(!same_bytes(b"abc", b"ab"));
    }

    #[test]
    fn secrets_differ_and_carry_256_bits() {
        let a = random_secret().unwrap();
        assert_eq!(a.len(), 43);
        assert_ne!(a, random_secret().unwrap());
    }

    #[test]
    fn given_tokens_are_checked() {
        assert_eq!(
            checked_token("  0123456789abcdefXYZ\nignored", "F").unwrap(),
            "0123456789abcdefXYZ"
        );
        assert!(
            checked_token("short", "F")
                .unwrap_err()
                .contains("at least 16")
        );
        let err = checked_token("0123456789abcdef\u{00a0}x", "F").unwrap_err();
        assert!(err.contains("U+00A0"), "{err}");
    }

    #[test]
    fn bearer_header_is_read_in_any_case() {
        assert_eq!(bearer_of("Bearer abc"), Some("abc"));
        assert_eq!(bearer_of("bearer  abc "), Some("abc"));
        assert_eq!(bearer_of("Basic abc"), None);
        assert_eq!(bearer_of("Bearer "), None);
        assert_eq!(bearer_of("Bearer"), None);
    }
}
