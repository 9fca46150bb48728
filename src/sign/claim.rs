//! What a message says about its signature, and the bytes that signature
//! covers, for each protocol.
//!
//! Crosstalk: the canonical form of the envelope without its `sig:` line and
//! `[[END]]`, every line stripped of trailing spaces and tabs, in Unicode NFC.
//! So line ends, trailing spaces, code fences, quote prefixes and
//! re-indentation do not change it; any change to a header, a meta value or
//! the body text does.
//!
//! The detached JWS form of the upstream canonicalization appendix
//! (`sig: <b64url header>..<b64url signature>`, EdDSA) signs
//! `b64url(header) "." b64url(payload)`, the payload being the same fixed
//! order of headers but the body lines as written, tabs and trailing spaces
//! kept, LF line ends, NFC — as the appendix's golden vectors do.
//!
//! HSP: the RFC 8785 (JCS) canonical JSON of the envelope without
//! `security_parameters.signature`.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Map, Value};
use unicode_normalization::UnicodeNormalization;

use super::key::{Algorithm, PublicKey, SigningKey};
use crate::protocols::crosstalk::sig_line::{self, SigLine};
use crate::protocols::crosstalk::{self, Envelope, ParsedEnvelope};

/// A signature as a message carries it.
#[derive(Debug, Clone)]
pub struct Claim {
    pub algorithm: Algorithm,
    pub key_id: String,
    pub signature: Vec<u8>,
    /// The signer's public key, when it travels with the signature.
    pub public_key: Option<PublicKey>,
}

/// Why a message's signature cannot even be checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClaimError {
    #[error("the message is not signed")]
    Unsigned,
    #[error("malformed signature: {0}")]
    Malformed(String),
    #[error("unknown signature algorithm `{0}`")]
    UnknownAlgorithm(String),
    #[error("{0} signatures are not verified by this version")]
    Unsupported(&'static str),
}

/// The bytes a Crosstalk signature covers.
pub fn crosstalk_input(env: &Envelope) -> Vec<u8> {
    let mut unsigned = env.clone();
    unsigned.sig = None;
    let text = crosstalk::render(&unsigned);
    let text = text.strip_suffix("[[END]]\n").unwrap_or(&text);
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(line.trim_end_matches([' ', '\t']));
        out.push('\n');
    }
    out.nfc().collect::<String>().into_bytes()
}

/// Signs an envelope in place with the spec's `<alg>:pkid=…;sig=…` form.
pub fn sign_crosstalk(env: &mut Envelope, key: &SigningKey, key_id: &str, with_public_key: bool) {
    let signature = key.sign(&crosstalk_input(env));
    let mut value = format!(
        "{}:pkid={key_id};sig={}",
        key.algorithm.name(),
        STANDARD.encode(signature)
    );
    if with_public_key {
        value.push_str(&format!(";pk={}", key.public_key().to_base64()));
    }
    env.sig = Some(value);
}

/// The protected header aiproto writes for the detached JWS form: the
/// appendix's, with the signer's key id.
fn jws_header(key_id: &str) -> String {
    serde_json::json!({"alg": "EdDSA", "b64": true, "crit": ["b64", "cty", "ver"], "cty": "crosstalk/v1.1", "kid": key_id, "typ": "JOSE", "ver": "1.1-rc1"}).to_string()
}

/// The payload of the detached JWS form: headers in canonical order, the
/// body lines as written, LF, NFC, no `sig:` and no `[[END]]`.
pub fn jws_payload(parsed: &ParsedEnvelope) -> Vec<u8> {
    let mut head = parsed.envelope.clone();
    head.sig = None;
    let body = head.body.take();
    let text = crosstalk::render(&head);
    let mut out = text.strip_suffix("[[END]]\n").unwrap_or(&text).to_string();
    if let Some(body) = body {
        out.push_str("body: |\n");
        let raw = parsed.body_raw.clone().unwrap_or_else(|| {
            body.lines()
                .map(|l| {
                    if l.is_empty() {
                        String::new()
                    } else {
                        format!("  {l}")
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
        });
        if !raw.is_empty() {
            out.push_str(&raw);
            out.push('\n');
        }
    }
    out.nfc().collect::<String>().into_bytes()
}

/// Signs an envelope in place with the detached JWS form (Ed25519 only).
pub fn sign_crosstalk_jws(
    parsed: &mut ParsedEnvelope,
    key: &SigningKey,
    key_id: &str,
) -> Result<(), ClaimError> {
    if key.algorithm != Algorithm::Ed25519 {
        return Err(ClaimError::Malformed(
            "the detached JWS form is EdDSA: sign with an ed25519 key".into(),
        ));
    }
    parsed.body_raw = None; // sign the canonical body, as it will be rendered
    let header = URL_SAFE_NO_PAD.encode(jws_header(key_id));
    let input = format!("{header}.{}", URL_SAFE_NO_PAD.encode(jws_payload(parsed)));
    parsed.envelope.sig = Some(format!(
        "{header}..{}",
        URL_SAFE_NO_PAD.encode(key.sign(input.as_bytes()))
    ));
    Ok(())
}

/// The signature a Crosstalk envelope carries and the bytes it covers.
pub fn crosstalk_signed(parsed: &ParsedEnvelope) -> Result<(Claim, Vec<u8>), ClaimError> {
    let raw = parsed.envelope.sig.as_deref().ok_or(ClaimError::Unsigned)?;
    if let Ok(SigLine::DetachedJws { header, signature }) = sig_line::parse(raw) {
        let alg = header.get("alg").and_then(|a| a.as_str()).unwrap_or("");
        let algorithm = match alg {
            "EdDSA" => Algorithm::Ed25519,
            other => return Err(ClaimError::UnknownAlgorithm(other.to_string())),
        };
        let key_id = header
            .get("kid")
            .and_then(|k| k.as_str())
            .unwrap_or("")
            .to_string();
        let header_b64 = raw.split_once("..").map_or("", |(h, _)| h);
        let input = format!(
            "{header_b64}.{}",
            URL_SAFE_NO_PAD.encode(jws_payload(parsed))
        );
        return Ok((
            Claim {
                algorithm,
                key_id,
                signature,
                public_key: None,
            },
            input.into_bytes(),
        ));
    }
    Ok((
        crosstalk_claim(&parsed.envelope)?,
        crosstalk_input(&parsed.envelope),
    ))
}

/// The signature a Crosstalk envelope carries in the keyed form.
pub fn crosstalk_claim(env: &Envelope) -> Result<Claim, ClaimError> {
    let raw = env.sig.as_deref().ok_or(ClaimError::Unsigned)?;
    match sig_line::parse(raw).map_err(|e| ClaimError::Malformed(e.0))? {
        SigLine::Unsigned => Err(ClaimError::Unsigned),
        SigLine::DetachedJws { .. } => Err(ClaimError::Unsupported(
            "detached JWS (use `crosstalk_signed`)",
        )),
        SigLine::Keyed {
            algorithm,
            key_id,
            signature,
            public_key,
        } => {
            let algorithm =
                Algorithm::parse(&algorithm).ok_or(ClaimError::UnknownAlgorithm(algorithm))?;
            let public_key = public_key
                .map(|bytes| {
                    PublicKey::new(algorithm, bytes)
                        .map_err(|e| ClaimError::Malformed(format!("pk=: {e}")))
                })
                .transpose()?;
            Ok(Claim {
                algorithm,
                key_id,
                signature,
                public_key,
            })
        }
    }
}

/// Where a JSON protocol carries its signature block (`signature_algorithm`,
/// `key_id`, `public_key`, `signature`): HSP at the top, CSDL in `m`.
const HSP_BLOCK: &[&str] = &["security_parameters"];
const CSDL_BLOCK: &[&str] = &["m", "security_parameters"];

/// The block at `path`, when it is an object.
fn block<'a>(doc: &'a Value, path: &[&str]) -> Option<&'a Map<String, Value>> {
    path.iter()
        .try_fold(doc, |node, key| node.get(*key))
        .and_then(Value::as_object)
}

/// The bytes a JSON signature covers: the RFC 8785 (JCS) canonical JSON of
/// the document without the block's `signature`.
fn json_input(doc: &Value, path: &[&str]) -> Vec<u8> {
    let mut unsigned = doc.clone();
    let node = path
        .iter()
        .try_fold(&mut unsigned, |node, key| node.get_mut(*key));
    if let Some(Value::Object(sp)) = node {
        sp.remove("signature");
    }
    // Serialising a serde_json::Value cannot fail.
    serde_json_canonicalizer::to_vec(&unsigned).unwrap_or_default()
}

/// Signs a JSON document in place; the block at `path` (created as needed)
/// gets the algorithm, the key id, the public key and the signature. Fails
/// when a value on the path is not an object.
fn sign_json(
    doc: &mut Value,
    path: &[&str],
    key: &SigningKey,
    key_id: &str,
    with_public_key: bool,
) -> Result<(), String> {
    let mut node = &mut *doc;
    for (depth, k) in path.iter().enumerate() {
        let Value::Object(map) = node else {
            return Err(format!(
                "`{}` is not a JSON object",
                path[..depth].join(".")
            ));
        };
        node = map
            .entry(k.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    let Value::Object(sp) = node else {
        return Err(format!("`{}` is not a JSON object", path.join(".")));
    };
    sp.insert("signature_algorithm".into(), key.algorithm.name().into());
    sp.insert("key_id".into(), key_id.into());
    if with_public_key {
        sp.insert("public_key".into(), key.public_key().to_base64().into());
    } else {
        sp.remove("public_key");
    }
    sp.remove("signature");
    let signature = STANDARD.encode(key.sign(&json_input(doc, path)));
    let node = path
        .iter()
        .try_fold(&mut *doc, |node, key| node.get_mut(*key));
    if let Some(Value::Object(sp)) = node {
        sp.insert("signature".into(), signature.into());
    }
    Ok(())
}

/// The signature the block at `path` carries.
fn json_claim(doc: &Value, path: &[&str]) -> Result<Claim, ClaimError> {
    let sp = block(doc, path).ok_or(ClaimError::Unsigned)?;
    let text = |k: &str| sp.get(k).and_then(Value::as_str);
    let signature = text("signature").ok_or(ClaimError::Unsigned)?;
    let algorithm_name = text("signature_algorithm")
        .ok_or_else(|| ClaimError::Malformed("no signature_algorithm".into()))?;
    let algorithm = Algorithm::parse(algorithm_name)
        .ok_or_else(|| ClaimError::UnknownAlgorithm(algorithm_name.into()))?;
    let key_id = text("key_id")
        .ok_or_else(|| ClaimError::Malformed("no key_id".into()))?
        .to_string();
    let signature = STANDARD
        .decode(signature)
        .map_err(|_| ClaimError::Malformed("the signature is not base64".into()))?;
    let public_key = text("public_key")
        .map(|pk| {
            let bytes = STANDARD
                .decode(pk)
                .map_err(|_| ClaimError::Malformed("public_key is not base64".into()))?;
            PublicKey::new(algorithm, bytes)
                .map_err(|e| ClaimError::Malformed(format!("public_key: {e}")))
        })
        .transpose()?;
    Ok(Claim {
        algorithm,
        key_id,
        signature,
        public_key,
    })
}

/// The bytes an HSP signature covers.
pub fn hsp_input(envelope: &Value) -> Vec<u8> {
    json_input(envelope, HSP_BLOCK)
}

/// Signs an HSP envelope in place: `security_parameters` gets the algorithm,
/// the key id, the public key and the signature.
pub fn sign_hsp(envelope: &mut Value, key: &SigningKey, key_id: &str, with_public_key: bool) {
    if let Some(map) = envelope.as_object_mut()
        && !map.get("security_parameters").is_some_and(Value::is_object)
    {
        map.insert("security_parameters".into(), Value::Object(Map::new()));
    }
    // The block is an object now, so this cannot fail.
    let _ = sign_json(envelope, HSP_BLOCK, key, key_id, with_public_key);
}

/// The signature an HSP envelope carries.
pub fn hsp_claim(envelope: &Value) -> Result<Claim, ClaimError> {
    json_claim(envelope, HSP_BLOCK)
}

/// CSDL: the signature block is `m.security_parameters`, and the signature
/// covers the JCS of the document in its compact spelling, so that
/// `convert --expand` and `--compact` keep it valid.
pub fn csdl_input(doc: &Value) -> Vec<u8> {
    json_input(&crate::protocols::csdl::codes::compact(doc), CSDL_BLOCK)
}

/// Signs a CSDL document; the result keeps the document's spelling.
pub fn sign_csdl(
    doc: &Value,
    key: &SigningKey,
    key_id: &str,
    with_public_key: bool,
) -> Result<Value, String> {
    use crate::protocols::csdl::codes::{self, Form, Spelling};
    let mut compact = codes::compact(doc);
    sign_json(&mut compact, CSDL_BLOCK, key, key_id, with_public_key)
        .map_err(|e| format!("cannot carry a signature in `m`: {e}"))?;
    Ok(match codes::spelling(doc) {
        Spelling::Expanded => codes::to_form(&compact, Form::Expanded),
        Spelling::Compact | Spelling::Mixed => compact,
    })
}

/// The signature a CSDL document carries in `m` (or `metadata`).
pub fn csdl_claim(doc: &Value) -> Result<Claim, ClaimError> {
    json_claim(&crate::protocols::csdl::codes::compact(doc), CSDL_BLOCK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::crosstalk::parse_all;

    const ENV: &str = "[[A→B v1]]\nuser: kalle\nmessage: 01J9J3DBC4N7P2Q3R5S7T9W1V2\nintent: REQUEST\nbody: |\n  Café\n  second line\nsig: none\n[[END]]\n";

    #[test]
    fn csdl_signatures_survive_a_change_of_spelling_but_not_of_content() {
        use crate::protocols::csdl::codes;
        let key = SigningKey::generate(Algorithm::Ed25519).unwrap();
        let doc = serde_json::json!({"t": "function", "n": "f", "p": {"q": {"t": "string"}}});
        let signed = sign_csdl(&doc, &key, "k", true).unwrap();
        assert!(signed["m"]["security_parameters"]["signature"].is_string());
        let expanded = codes::expand(&signed);
        for form in [&signed, &expanded] {
            let claim = csdl_claim(form).unwrap();
            assert!(key.public_key().verify(&csdl_input(form), &claim.signature));
        }
        let mut changed = signed.clone();
        changed["n"] = "g".into();
        let claim = csdl_claim(&changed).unwrap();
        assert!(
            !key.public_key()
                .verify(&csdl_input(&changed), &claim.signature)
        );
        let bad = serde_json::json!({"t": "function", "n": "f", "m": "notes"});
        assert!(sign_csdl(&bad, &key, "k", true).is_err());
    }

    #[test]
    fn crosstalk_input_ignores_layout_but_not_content() {
        let base = crosstalk_input(&parse_all(ENV).remove(0).envelope);
        let damaged = format!(
            "```\n{}```\n",
            ENV.replace('\n', "  \r\n")
                .replace("  Café", "\tCafe\u{301}")
        );
        let quoted: String = ENV.lines().map(|l| format!("> {l}\n")).collect();
        for text in [damaged, quoted] {
            assert_eq!(crosstalk_input(&parse_all(&text).remove(0).envelope), base);
        }
        for change in [
            ("kalle", "kallE"),
            ("second line", "second  line"),
            ("REQUEST", "RESPOND"),
        ] {
            let changed = ENV.replace(change.0, change.1);
            assert_ne!(
                crosstalk_input(&parse_all(&changed).remove(0).envelope),
                base,
                "{change:?}"
            );
        }
    }
}
