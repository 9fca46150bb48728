//! Detached signatures of any file in minisign's format, made with an
//! Ed25519 key of the keystore, so that the `minisign` tool verifies what
//! aiproto signs and aiproto verifies what minisign signs.
//!
//! The `minisign` crate writes and checks the format; aiproto only supplies
//! its Ed25519 key as a minisign key: key number = the first 8 bytes of
//! SHA-256 of the public key, secret = seed ‖ public key, with minisign's
//! BLAKE2b-256 checksum.

use std::io::{Read, Seek};

use blake2::Digest as _;
use sha2::Digest as _;

use super::key::{Algorithm, PublicKey, SigningKey};

/// Why a detached signature could not be made or checked.
#[derive(Debug, thiserror::Error)]
pub enum DetachedError {
    #[error("minisign signatures are Ed25519: this key is {0}")]
    NotEd25519(&'static str),
    #[error("not a minisign signature: {0}")]
    BadSignature(String),
    #[error("the signature does not match the file: {0}")]
    Mismatch(String),
    #[error("minisign: {0}")]
    Minisign(String),
}

/// The minisign key number of an Ed25519 public key.
pub fn keynum(public: &PublicKey) -> [u8; 8] {
    let digest = sha2::Sha256::digest(&public.bytes);
    let mut n = [0u8; 8];
    n.copy_from_slice(&digest[..8]);
    n
}

/// The key as a minisign public key; `keynum` defaults to [`keynum`].
pub fn minisign_public(
    public: &PublicKey,
    number: Option<[u8; 8]>,
) -> Result<minisign::PublicKey, DetachedError> {
    if public.algorithm != Algorithm::Ed25519 {
        return Err(DetachedError::NotEd25519(public.algorithm.name()));
    }
    let mut bytes = b"Ed".to_vec();
    bytes.extend_from_slice(&number.unwrap_or_else(|| keynum(public)));
    bytes.extend_from_slice(&public.bytes);
    minisign::PublicKey::from_bytes(&bytes).map_err(|e| DetachedError::Minisign(e.to_string()))
}

/// `untrusted comment: …` and the base64 line, as minisign writes `.pub` files.
pub fn minisign_public_text(public: &PublicKey) -> Result<String, DetachedError> {
    let pk = minisign_public(public, None)?;
    pk.to_box()
        .map(|b| b.into_string())
        .map_err(|e| DetachedError::Minisign(e.to_string()))
}

/// Reads a minisign public key (its `.pub` file or the base64 line) as an Ed25519 key.
pub fn parse_minisign_public(text: &str) -> Option<PublicKey> {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("untrusted comment:"))?;
    let pk = minisign::PublicKey::from_base64(line).ok()?;
    let bytes = pk.to_bytes();
    PublicKey::new(Algorithm::Ed25519, bytes.get(10..42)?.to_vec()).ok()
}

/// `key` as a minisign secret key; `public` is its public key.
fn minisign_secret(
    key: &SigningKey,
    public: &PublicKey,
) -> Result<minisign::SecretKey, DetachedError> {
    if key.algorithm != Algorithm::Ed25519 {
        return Err(DetachedError::NotEd25519(key.algorithm.name()));
    }
    let number = keynum(public);
    let mut sk = key.secret().to_vec();
    sk.extend_from_slice(&public.bytes);
    // minisign's checksum: BLAKE2b-256 over the algorithm, key number and secret.
    let mut hasher = blake2::Blake2b::<blake2::digest::consts::U32>::new();
    hasher.update(b"Ed");
    hasher.update(number);
    hasher.update(&sk);
    let checksum = hasher.finalize();
    let mut bytes = Vec::with_capacity(158);
    bytes.extend_from_slice(b"Ed"); // signature algorithm
    bytes.extend_from_slice(&[0, 0]); // no KDF: unencrypted
    bytes.extend_from_slice(b"B2"); // checksum algorithm
    bytes.extend_from_slice(&[0u8; 32 + 8 + 8]); // KDF salt, ops and memory limits
    bytes.extend_from_slice(&number);
    bytes.extend_from_slice(&sk);
    bytes.extend_from_slice(&checksum);
    minisign::SecretKey::from_bytes(&bytes).map_err(|e| DetachedError::Minisign(e.to_string()))
}

/// Signs `data`; returns the `.minisig` text.
pub fn sign(
    key: &SigningKey,
    data: impl Read,
    trusted_comment: &str,
) -> Result<String, DetachedError> {
    // The public half is derived from the secret here, so the two cannot
    // disagree: minisign's check of the new signature against a public key
    // (its first argument) would only spend a signature check per file.
    let sk = minisign_secret(key, &key.public_key())?;
    let sig = minisign::sign(
        None,
        &sk,
        data,
        Some(trusted_comment),
        Some("signature from aiproto"),
    )
    .map_err(|e| DetachedError::Minisign(e.to_string()))?;
    Ok(sig.into_string())
}

/// Checks a `.minisig` text against `data` with an Ed25519 key; returns the trusted comment.
pub fn verify(
    public: &PublicKey,
    signature: &str,
    data: impl Read + Seek,
) -> Result<String, DetachedError> {
    let sig = minisign::SignatureBox::from_string(signature)
        .map_err(|e| DetachedError::BadSignature(e.to_string()))?;
    let mut number = [0u8; 8];
    number.copy_from_slice(
        sig.keynum()
            .get(..8)
            .ok_or_else(|| DetachedError::BadSignature("no key number".into()))?,
    );
    // A key given as PEM or raw bytes carries no minisign key number: take the signature's.
    let pk = minisign_public(public, Some(number))?;
    minisign::verify(&pk, &sig, data, true, false, false)
        .map_err(|e| DetachedError::Mismatch(e.to_string()))?;
    sig.trusted_comment()
        .map_err(|e| DetachedError::BadSignature(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_and_verifies_detached() {
        let key = SigningKey::generate(Algorithm::Ed25519).unwrap();
        let sig = sign(&key, &b"file contents"[..], "file:x").unwrap();
        assert!(sig.starts_with("untrusted comment:"));
        assert_eq!(
            verify(
                &key.public_key(),
                &sig,
                std::io::Cursor::new(b"file contents")
            )
            .unwrap(),
            "file:x"
        );
        assert!(matches!(
            verify(
                &key.public_key(),
                &sig,
                std::io::Cursor::new(b"file Contents")
            ),
            Err(DetachedError::Mismatch(_))
        ));
        let other = SigningKey::generate(Algorithm::Ed25519).unwrap();
        assert!(
            verify(
                &other.public_key(),
                &sig,
                std::io::Cursor::new(b"file contents")
            )
            .is_err()
        );
        let text = minisign_public_text(&key.public_key()).unwrap();
        assert_eq!(parse_minisign_public(&text), Some(key.public_key()));
        let p256 = SigningKey::generate(Algorithm::P256).unwrap();
        assert!(matches!(
            sign(&p256, &b""[..], ""),
            Err(DetachedError::NotEd25519(_))
        ));
    }
}
