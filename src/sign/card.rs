//! Agent Card signatures (A2A 1.0, section 8.4): each is a JWS with a
//! detached payload, `{"protected": B64URL(header), "signature": B64URL(sig)}`
//! in the card's `signatures`, over `B64URL(header) "." B64URL(signing input)`,
//! the signing input being the card's RFC 8785 form without `signatures`
//! (`protocols::a2a::signing_input`).
//!
//! aiproto writes `{"alg","typ":"JOSE","kid"}` headers, `EdDSA` for an
//! Ed25519 key and `ES256` for a P-256 one. The key that verifies is looked
//! up by `kid` among the keys the person trusts, never taken from the card:
//! a `jku` (a URL of keys) or a `jwk` in the header is the card vouching for
//! itself, and is not followed.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value};

use super::claim::{Claim, ClaimError};
use super::key::{Algorithm, SigningKey};
use crate::protocols::a2a::signing_input::{self, Reading, SIGNATURES};

/// The JWS `alg` of a key's algorithm.
pub fn jws_alg(algorithm: Algorithm) -> &'static str {
    match algorithm {
        Algorithm::Ed25519 => "EdDSA",
        Algorithm::P256 => "ES256",
    }
}

/// One signature of a card, read: what it claims, what it could cover.
#[derive(Debug, Clone)]
pub struct CardClaim {
    pub claim: Claim,
    /// The `jku` the header names, never fetched (said in errors).
    pub jku: Option<String>,
    /// The JWS signing input under each reading of rule 1 (one when the
    /// readings agree on this card).
    pub inputs: Vec<(Reading, Vec<u8>)>,
}

/// Adds a signature by `key` to the card (after those it has): one per
/// reading of the field-presence rule that gives other bytes for this card
/// (the specification's first), so that verifiers of either kind accept
/// it. Fails when `signatures` is there but not a list, or the card is not
/// an object.
pub fn sign_card(card: &Value, key: &SigningKey, key_id: &str) -> Result<Value, ClaimError> {
    // Fixed order, as the specification's example writes it.
    let header = format!(
        "{{\"alg\":{},\"typ\":\"JOSE\",\"kid\":{}}}",
        Value::from(jws_alg(key.algorithm)),
        Value::from(key_id)
    );
    let protected = URL_SAFE_NO_PAD.encode(header);
    let mut signed = card.clone();
    let Some(map) = signed.as_object_mut() else {
        return Err(ClaimError::Malformed(
            "an Agent Card is a JSON object".into(),
        ));
    };
    let entry = map
        .entry(SIGNATURES)
        .or_insert_with(|| Value::Array(Vec::new()));
    let Value::Array(list) = entry else {
        return Err(ClaimError::Malformed("`signatures` is not a list".into()));
    };
    for payload in payloads(card)? {
        let input = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(payload.1));
        let mut one = Map::new();
        one.insert("protected".into(), protected.clone().into());
        one.insert(
            "signature".into(),
            URL_SAFE_NO_PAD.encode(key.sign(input.as_bytes())).into(),
        );
        list.push(Value::Object(one));
    }
    Ok(signed)
}

/// The card's signing input under each reading, those with the same bytes
/// as an earlier one left out.
fn payloads(card: &Value) -> Result<Vec<(Reading, Vec<u8>)>, ClaimError> {
    let mut payloads: Vec<(Reading, Vec<u8>)> = Vec::new();
    for reading in Reading::ALL {
        let bytes = signing_input::signing_input(card, reading)
            .map_err(|e| ClaimError::Malformed(e.to_string()))?;
        if !payloads.iter().any(|(_, b)| *b == bytes) {
            payloads.push((reading, bytes));
        }
    }
    Ok(payloads)
}

/// The signatures a card carries, each read or refused on its own (one
/// malformed signature does not hide a good one).
pub fn card_claims(card: &Value) -> Result<Vec<Result<CardClaim, ClaimError>>, ClaimError> {
    let list = match card.get(SIGNATURES) {
        None => return Err(ClaimError::Unsigned),
        Some(Value::Array(list)) if list.is_empty() => return Err(ClaimError::Unsigned),
        Some(Value::Array(list)) => list,
        Some(_) => return Err(ClaimError::Malformed("`signatures` is not a list".into())),
    };
    let inputs = payloads(card)?;
    Ok(list
        .iter()
        .enumerate()
        .map(|(i, s)| read_one(s, &inputs).map_err(|e| at(i, e)))
        .collect())
}

/// Names the signature an error is about.
fn at(index: usize, e: ClaimError) -> ClaimError {
    match e {
        ClaimError::Malformed(why) => ClaimError::Malformed(format!("signatures[{index}]: {why}")),
        other => other,
    }
}

fn read_one(signature: &Value, payloads: &[(Reading, Vec<u8>)]) -> Result<CardClaim, ClaimError> {
    let text = |k: &str| signature.get(k).and_then(Value::as_str);
    let malformed = |why: &str| ClaimError::Malformed(why.to_string());
    let protected = text("protected").ok_or_else(|| malformed("no `protected` header"))?;
    let signature = text("signature").ok_or_else(|| malformed("no `signature`"))?;
    let header: Value = URL_SAFE_NO_PAD
        .decode(protected)
        .ok()
        .and_then(|raw| serde_json::from_slice(&raw).ok())
        .filter(Value::is_object)
        .ok_or_else(|| malformed("`protected` is not a base64url JSON object"))?;
    let alg = header.get("alg").and_then(Value::as_str).unwrap_or("");
    let algorithm = match alg {
        "EdDSA" => Algorithm::Ed25519,
        "ES256" => Algorithm::P256,
        "" => return Err(malformed("the protected header has no `alg`")),
        other => return Err(ClaimError::UnknownAlgorithm(other.to_string())),
    };
    let key_id = header
        .get("kid")
        .and_then(Value::as_str)
        .filter(|k| !k.is_empty())
        .ok_or_else(|| malformed("the protected header has no `kid`"))?
        .to_string();
    if header.get("crit").is_some() {
        // RFC 7515 4.1.11: a verifier refuses a critical extension it does
        // not understand, and aiproto understands none.
        return Err(malformed(
            "the protected header has `crit` extensions aiproto does not implement",
        ));
    }
    let signature = URL_SAFE_NO_PAD
        .decode(signature)
        .map_err(|_| malformed("`signature` is not base64url"))?;
    let inputs = payloads
        .iter()
        .map(|(reading, payload)| {
            let input = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(payload));
            (*reading, input.into_bytes())
        })
        .collect();
    Ok(CardClaim {
        claim: Claim {
            algorithm,
            key_id,
            signature,
            public_key: None,
        },
        jku: header
            .get("jku")
            .and_then(Value::as_str)
            .map(str::to_string),
        inputs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card() -> Value {
        json!({"name": "Route Planner", "description": "Plans routes", "version": "1.0",
               "capabilities": {"streaming": true},
               "skills": [{"id": "route", "name": "Route", "description": "A route", "tags": ["maps"]}],
               "supportedInterfaces": [{"url": "https://planner.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
               "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"]})
    }

    fn verifies(card: &Value, key: &SigningKey) -> Vec<Option<Reading>> {
        card_claims(card)
            .unwrap()
            .into_iter()
            .map(|c| {
                let c = c.unwrap();
                c.inputs
                    .iter()
                    .find(|(_, input)| key.public_key().verify(input, &c.claim.signature))
                    .map(|(r, _)| *r)
            })
            .collect()
    }

    #[test]
    fn a_signed_card_verifies_and_a_changed_one_does_not() {
        for algorithm in [Algorithm::Ed25519, Algorithm::P256] {
            let key = SigningKey::generate(algorithm).unwrap();
            let signed = sign_card(&card(), &key, "planner-key").unwrap();
            assert_eq!(verifies(&signed, &key), [Some(Reading::Spec)]);
            let header = signed["signatures"][0]["protected"].as_str().unwrap();
            let header: Value =
                serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).unwrap()).unwrap();
            assert_eq!(header["alg"], jws_alg(algorithm));
            assert_eq!(header["kid"], "planner-key");
            assert_eq!(header["typ"], "JOSE");

            let mut changed = signed.clone();
            changed["capabilities"]["streaming"] = false.into();
            assert_eq!(verifies(&changed, &key), [None]);
            // A second signature leaves the first good (key rotation).
            let other = SigningKey::generate(algorithm).unwrap();
            let twice = sign_card(&signed, &other, "next-key").unwrap();
            assert_eq!(verifies(&twice, &key)[0], Some(Reading::Spec));
            assert_eq!(verifies(&twice, &other)[1], Some(Reading::Spec));
        }
    }

    #[test]
    fn a_card_the_readings_disagree_on_gets_one_signature_for_each() {
        let key = SigningKey::generate(Algorithm::P256).unwrap();
        let mut bare = card();
        bare["skills"] = json!([]);
        let signed = sign_card(&bare, &key, "k").unwrap();
        assert_eq!(
            verifies(&signed, &key),
            [Some(Reading::Spec), Some(Reading::Sdk)]
        );
    }

    #[test]
    fn a_plain_default_added_later_keeps_the_signature_and_a_meaningful_field_does_not() {
        let key = SigningKey::generate(Algorithm::Ed25519).unwrap();
        let signed = sign_card(&card(), &key, "k").unwrap();
        let mut padded = signed.clone();
        padded["capabilities"]["extensions"] = json!([]);
        assert_eq!(verifies(&padded, &key), [Some(Reading::Spec)]);
        let mut widened = signed.clone();
        widened["capabilities"]["extendedAgentCard"] = true.into();
        assert_eq!(verifies(&widened, &key), [None]);
    }

    #[test]
    fn headers_aiproto_cannot_honour_are_refused_by_name() {
        let key = SigningKey::generate(Algorithm::Ed25519).unwrap();
        let mut signed = sign_card(&card(), &key, "k").unwrap();
        for (header, says) in [
            (json!({"alg": "HS256", "kid": "k"}), "HS256"),
            (json!({"alg": "none", "kid": "k"}), "none"),
            (json!({"alg": "EdDSA"}), "no `kid`"),
            (json!({"kid": "k"}), "no `alg`"),
            (json!({"alg": "EdDSA", "kid": "k", "crit": ["b64"]}), "crit"),
        ] {
            signed["signatures"][0]["protected"] =
                URL_SAFE_NO_PAD.encode(header.to_string()).into();
            let err = card_claims(&signed).unwrap().remove(0).unwrap_err();
            assert!(err.to_string().contains(says), "{err}");
        }
        signed["signatures"] = json!([]);
        assert!(matches!(card_claims(&signed), Err(ClaimError::Unsigned)));
        signed["signatures"] = json!({"protected": "x"});
        assert!(matches!(
            card_claims(&signed),
            Err(ClaimError::Malformed(_))
        ));
    }
}
