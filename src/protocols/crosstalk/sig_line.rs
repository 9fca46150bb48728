//! The shapes a `sig:` value may take: `none`, the spec's
//! `<alg>:pkid=<id>;sig=<base64>`, and the detached JWS
//! `<b64url header>..<b64url signature>` of the upstream canonicalization appendix.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE_NO_PAD};

/// Algorithms the spec names for the keyed form.
pub const ALGORITHMS: [&str; 2] = ["ed25519", "secp256r1"];

/// A parsed `sig:` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SigLine {
    /// `sig: none`: the envelope is unsigned.
    Unsigned,
    /// `<alg>:pkid=<id>;sig=<base64>[;pk=<base64>]`, parameters in any order.
    Keyed {
        algorithm: String,
        key_id: String,
        signature: Vec<u8>,
        /// The signer's public key, when it travels with the signature.
        public_key: Option<Vec<u8>>,
    },
    /// A detached JWS: the protected header (JSON) and the signature bytes.
    DetachedJws {
        header: serde_json::Value,
        signature: Vec<u8>,
    },
}

/// Why a `sig:` value could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SigShapeError(pub String);

/// Reads a `sig:` value.
pub fn parse(value: &str) -> Result<SigLine, SigShapeError> {
    let err = |m: &str| Err(SigShapeError(m.to_string()));
    if value == "none" {
        return Ok(SigLine::Unsigned);
    }
    if let Some((header, signature)) = value.split_once("..") {
        let header = URL_SAFE_NO_PAD
            .decode(header)
            .map_err(|_| SigShapeError("detached JWS header is not base64url".into()))?;
        let header: serde_json::Value = serde_json::from_slice(&header)
            .map_err(|_| SigShapeError("detached JWS header is not JSON".into()))?;
        if header.get("alg").and_then(|a| a.as_str()).is_none() {
            return err("detached JWS header has no \"alg\"");
        }
        let signature = URL_SAFE_NO_PAD
            .decode(signature)
            .map_err(|_| SigShapeError("detached JWS signature is not base64url".into()))?;
        return Ok(SigLine::DetachedJws { header, signature });
    }
    let Some((algorithm, params)) = value.split_once(':') else {
        return err(
            "expected `none`, `<alg>:pkid=<id>;sig=<base64>` or a detached JWS `<header>..<signature>`",
        );
    };
    let (mut key_id, mut signature, mut public_key) = (None, None, None);
    for param in params.split(';') {
        let Some((name, v)) = param.split_once('=') else {
            return err("expected `pkid=<key id>;sig=<base64>` after the algorithm");
        };
        match name.trim() {
            "pkid" => key_id = Some(v.trim().to_string()),
            "sig" => {
                signature = Some(
                    decode_base64(v.trim())
                        .ok_or_else(|| SigShapeError("`sig=` is not base64".into()))?,
                )
            }
            "pk" => {
                public_key = Some(
                    decode_base64(v.trim())
                        .ok_or_else(|| SigShapeError("`pk=` is not base64".into()))?,
                )
            }
            _ => {}
        }
    }
    match (
        key_id.filter(|k| !k.is_empty()),
        signature.filter(|s| !s.is_empty()),
    ) {
        (Some(key_id), Some(signature)) => Ok(SigLine::Keyed {
            algorithm: algorithm.to_string(),
            key_id,
            signature,
            public_key,
        }),
        (None, _) => err("signature has no `pkid=<key id>`"),
        (_, None) => err("signature has no `sig=<base64 signature>`"),
    }
}

/// Base64 with or without padding, standard or URL alphabet.
fn decode_base64(s: &str) -> Option<Vec<u8>> {
    STANDARD
        .decode(s)
        .or_else(|_| STANDARD_NO_PAD.decode(s))
        .or_else(|_| URL_SAFE_NO_PAD.decode(s))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_three_shapes() {
        assert_eq!(parse("none"), Ok(SigLine::Unsigned));
        assert!(matches!(
            parse("ed25519:pkid=alice@example.com;sig=AbC123DeF456"),
            Ok(SigLine::Keyed { ref key_id, .. }) if key_id == "alice@example.com"
        ));
        let jws = "eyJhbGciOiJFZERTQSIsImI2NCI6dHJ1ZSwiY3JpdCI6WyJiNjQiLCJjdHkiLCJ2ZXIiXSwiY3R5IjoiY3Jvc3N0YWxrL3YxLjEiLCJ0eXAiOiJKT1NFIiwidmVyIjoiMS4xLXJjMSJ9..oEOgk8uQrWq_xVa8n68QxQ-O2TbpEAKH7wMHrDpkNG0jD0t8LSt5qZSlMbyCIFTJHZ2zidfM1tfXZy6LruTEBQ";
        assert!(
            matches!(parse(jws), Ok(SigLine::DetachedJws { ref signature, .. }) if signature.len() == 64)
        );
    }

    #[test]
    fn names_what_is_missing() {
        assert!(parse("ed25519:abcdef").unwrap_err().0.contains("pkid"));
        assert!(parse("ed25519:pkid=a").unwrap_err().0.contains("sig="));
        assert!(
            parse("ed25519:pkid=a;sig=!!")
                .unwrap_err()
                .0
                .contains("base64")
        );
        assert!(parse("<signature>").is_err());
    }
}
