//! Signing keys and public keys: Ed25519 and ECDSA P-256 (secp256r1), with
//! the algorithm names of the Crosstalk spec (`ed25519`, `secp256r1`).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// A signature algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Algorithm {
    /// Ed25519 (RFC 8032).
    Ed25519,
    /// ECDSA over NIST P-256 with SHA-256; signatures are 64 bytes r‖s.
    #[value(name = "p256", alias = "secp256r1")]
    P256,
}

impl Algorithm {
    /// The name written in `sig:` lines and key files.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Ed25519 => "ed25519",
            Algorithm::P256 => "secp256r1",
        }
    }

    pub fn parse(s: &str) -> Option<Algorithm> {
        match s.to_ascii_lowercase().as_str() {
            "ed25519" | "eddsa" => Some(Algorithm::Ed25519),
            "secp256r1" | "p256" | "p-256" | "es256" => Some(Algorithm::P256),
            _ => None,
        }
    }
}

/// Why a key or signature could not be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("no randomness available from the operating system: {0}")]
    Random(String),
    #[error("not a valid {0} key")]
    BadKey(&'static str),
}

/// A public key: the algorithm and its raw bytes (32 for Ed25519, SEC1 for P-256).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    pub algorithm: Algorithm,
    pub bytes: Vec<u8>,
}

impl PublicKey {
    /// Checks that the bytes are a key of the algorithm.
    pub fn new(algorithm: Algorithm, bytes: Vec<u8>) -> Result<PublicKey, KeyError> {
        let ok = match algorithm {
            Algorithm::Ed25519 => <[u8; 32]>::try_from(bytes.as_slice())
                .ok()
                .is_some_and(|b| ed25519_dalek::VerifyingKey::from_bytes(&b).is_ok()),
            Algorithm::P256 => p256::ecdsa::VerifyingKey::from_sec1_bytes(&bytes).is_ok(),
        };
        if ok {
            Ok(PublicKey { algorithm, bytes })
        } else {
            Err(KeyError::BadKey(algorithm.name()))
        }
    }

    /// Whether `signature` is this key's signature of `message`. Never panics;
    /// a malformed signature is simply not valid.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        match self.algorithm {
            Algorithm::Ed25519 => {
                let (Ok(key), Ok(sig)) = (
                    <[u8; 32]>::try_from(self.bytes.as_slice()),
                    ed25519_dalek::Signature::from_slice(signature),
                ) else {
                    return false;
                };
                ed25519_dalek::VerifyingKey::from_bytes(&key)
                    .is_ok_and(|k| k.verify_strict(message, &sig).is_ok())
            }
            Algorithm::P256 => {
                use p256::ecdsa::signature::Verifier;
                let (Ok(key), Ok(sig)) = (
                    p256::ecdsa::VerifyingKey::from_sec1_bytes(&self.bytes),
                    p256::ecdsa::Signature::from_slice(signature),
                ) else {
                    return false;
                };
                key.verify(message, &sig).is_ok()
            }
        }
    }

    /// `SHA256:<base64>` of the key bytes, as ssh prints fingerprints.
    pub fn fingerprint(&self) -> String {
        let digest = Sha256::digest(&self.bytes);
        format!(
            "SHA256:{}",
            base64::engine::general_purpose::STANDARD_NO_PAD.encode(digest)
        )
    }

    pub fn to_base64(&self) -> String {
        STANDARD.encode(&self.bytes)
    }
}

/// A private signing key.
pub struct SigningKey {
    pub algorithm: Algorithm,
    secret: Vec<u8>,
    /// Derived once, when the key is made: a signature's check of the
    /// keystore (revoked?) and its minisign form each need it.
    public: PublicKey,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({}, <secret>)", self.algorithm.name())
    }
}

impl SigningKey {
    /// A fresh key from the operating system's randomness.
    pub fn generate(algorithm: Algorithm) -> Result<SigningKey, KeyError> {
        loop {
            let mut secret = vec![0u8; 32];
            getrandom::fill(&mut secret).map_err(|e| KeyError::Random(e.to_string()))?;
            // A P-256 scalar must be below the group order; retry in the rare case it is not.
            if let Ok(key) = SigningKey::from_secret(algorithm, secret) {
                return Ok(key);
            }
        }
    }

    /// A key from its 32 secret bytes.
    pub fn from_secret(algorithm: Algorithm, secret: Vec<u8>) -> Result<SigningKey, KeyError> {
        let valid = match algorithm {
            Algorithm::Ed25519 => secret.len() == 32,
            Algorithm::P256 => p256::ecdsa::SigningKey::from_slice(&secret).is_ok(),
        };
        if !valid {
            return Err(KeyError::BadKey(algorithm.name()));
        }
        let public = derive_public(algorithm, &secret);
        Ok(SigningKey {
            algorithm,
            secret,
            public,
        })
    }

    pub fn secret(&self) -> &[u8] {
        &self.secret
    }

    pub fn public_key(&self) -> PublicKey {
        self.public.clone()
    }

    pub fn sign(&self, message: &[u8]) -> Vec<u8> {
        match self.algorithm {
            Algorithm::Ed25519 => {
                use ed25519_dalek::Signer;
                self.ed25519().sign(message).to_bytes().to_vec()
            }
            Algorithm::P256 => {
                use p256::ecdsa::signature::Signer;
                let sig: p256::ecdsa::Signature = self.p256().sign(message);
                sig.to_bytes().to_vec()
            }
        }
    }

    fn ed25519(&self) -> ed25519_dalek::SigningKey {
        ed25519_of(&self.secret)
    }

    fn p256(&self) -> p256::ecdsa::SigningKey {
        p256_of(&self.secret)
    }
}

/// The public half of a secret `from_secret` has checked.
fn derive_public(algorithm: Algorithm, secret: &[u8]) -> PublicKey {
    let bytes = match algorithm {
        Algorithm::Ed25519 => ed25519_of(secret).verifying_key().to_bytes().to_vec(),
        Algorithm::P256 => p256_of(secret)
            .verifying_key()
            .to_sec1_point(false)
            .as_bytes()
            .to_vec(),
    };
    PublicKey { algorithm, bytes }
}

fn ed25519_of(secret: &[u8]) -> ed25519_dalek::SigningKey {
    let mut bytes = [0u8; 32];
    bytes.copy_from_slice(secret);
    ed25519_dalek::SigningKey::from_bytes(&bytes)
}

fn p256_of(secret: &[u8]) -> p256::ecdsa::SigningKey {
    // Checked in `from_secret`.
    p256::ecdsa::SigningKey::from_slice(secret)
        .unwrap_or_else(|_| unreachable!("validated P-256 secret"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_and_verify_with_both_algorithms() {
        for alg in [Algorithm::Ed25519, Algorithm::P256] {
            let key = SigningKey::generate(alg).unwrap();
            let public = key.public_key();
            let sig = key.sign(b"hello");
            assert!(public.verify(b"hello", &sig));
            assert!(!public.verify(b"hellO", &sig));
            let mut bad = sig.clone();
            bad[10] ^= 1;
            assert!(!public.verify(b"hello", &bad));
            assert!(!public.verify(b"hello", &sig[..10]));
            assert!(PublicKey::new(alg, public.bytes.clone()).is_ok());
            assert!(public.fingerprint().starts_with("SHA256:"));
        }
    }

    #[test]
    fn rejects_keys_of_the_wrong_shape() {
        assert!(PublicKey::new(Algorithm::Ed25519, vec![1, 2, 3]).is_err());
        assert!(PublicKey::new(Algorithm::P256, vec![4; 65]).is_err());
    }
}

/// DER prefixes of SubjectPublicKeyInfo for the two algorithms (RFC 8410 for
/// Ed25519; id-ecPublicKey with prime256v1 and an uncompressed point for P-256).
const ED25519_SPKI: [u8; 12] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];
const P256_SPKI: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

impl PublicKey {
    /// The key as a PEM `PUBLIC KEY` (SubjectPublicKeyInfo).
    pub fn to_pem(&self) -> String {
        let prefix: &[u8] = match self.algorithm {
            Algorithm::Ed25519 => &ED25519_SPKI,
            Algorithm::P256 => &P256_SPKI,
        };
        let der: Vec<u8> = prefix.iter().chain(&self.bytes).copied().collect();
        let b64 = STANDARD.encode(der);
        let lines: Vec<&str> = b64
            .as_bytes()
            .chunks(64)
            .map(|c| std::str::from_utf8(c).unwrap_or_default())
            .collect();
        format!(
            "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n",
            lines.join("\n")
        )
    }

    /// Reads a key given as PEM (SPKI), or as raw base64 (32 bytes: Ed25519;
    /// 65 bytes: an uncompressed P-256 point).
    pub fn parse_text(text: &str) -> Result<PublicKey, String> {
        let text = text.trim();
        if text.starts_with("-----BEGIN PUBLIC KEY-----") {
            let b64: String = text
                .lines()
                .filter(|l| !l.starts_with("-----"))
                .map(str::trim)
                .collect();
            let der = STANDARD
                .decode(b64)
                .map_err(|_| "the PEM body is not base64".to_string())?;
            let (algorithm, rest) = if let Some(rest) = der.strip_prefix(&ED25519_SPKI[..]) {
                (Algorithm::Ed25519, rest)
            } else if let Some(rest) = der.strip_prefix(&P256_SPKI[..]) {
                (Algorithm::P256, rest)
            } else {
                return Err("the PEM key is neither Ed25519 nor P-256".into());
            };
            return PublicKey::new(algorithm, rest.to_vec()).map_err(|e| e.to_string());
        }
        let bytes = STANDARD
            .decode(text)
            .map_err(|_| "expected a PEM public key or a base64 raw key".to_string())?;
        let algorithm = match bytes.len() {
            32 => Algorithm::Ed25519,
            33 | 65 => Algorithm::P256,
            n => {
                return Err(format!(
                    "a raw key of {n} bytes is neither Ed25519 (32) nor P-256 (65)"
                ));
            }
        };
        PublicKey::new(algorithm, bytes).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod pem_tests {
    use super::*;

    #[test]
    fn pem_round_trip_and_the_upstream_golden_key() {
        for alg in [Algorithm::Ed25519, Algorithm::P256] {
            let key = SigningKey::generate(alg).unwrap().public_key();
            assert_eq!(PublicKey::parse_text(&key.to_pem()).unwrap(), key);
            assert_eq!(PublicKey::parse_text(&key.to_base64()).unwrap(), key);
        }
        // The public key shipped with the upstream canonicalization appendix.
        let upstream = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA5NCXBC/h80o6gPLqLUoxutAE4TmAn2e4tVVfp08HeKA=\n-----END PUBLIC KEY-----\n";
        assert_eq!(
            PublicKey::parse_text(upstream).unwrap().algorithm,
            Algorithm::Ed25519
        );
        assert!(PublicKey::parse_text("not a key").is_err());
    }
}
