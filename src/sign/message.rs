//! Verifying a message as a whole: it must pass `validate` first (a
//! finding is the verdict), then carry a good signature, in its protocol's
//! place, by a key trusted for its sender.

use super::claim::{self, ClaimError};
use super::key::SigningKey;
use super::trust::{self, Trust, Verified, VerifyError};
use crate::protocols::{Found, Value};

/// Verifies one message: it must validate first (any error fails it with
/// that finding), then carry a good signature by a trusted key.
pub fn verify_found(found: &Found, trust: &Trust) -> Result<Verified, VerifyError> {
    if let Some(d) = found.diagnostics.iter().find(|d| d.is_error()) {
        return Err(VerifyError::Invalid {
            code: d.code,
            message: d.message.clone(),
            line: d.line,
            column: d.column,
        });
    }
    let message = found.to_message();
    let sender = message.as_ref().and_then(|m| m.sender.as_deref());
    match &found.value {
        Value::Crosstalk(p) => {
            let (claim, input) = claim::crosstalk_signed(p)?;
            trust::verify(&claim, &input, trust, sender)
        }
        Value::Hsp(Some(m)) => {
            let claim = claim::hsp_claim(&m.json)?;
            trust::verify(&claim, &claim::hsp_input(&m.json), trust, sender)
        }
        Value::Hsp(None) | Value::Csdl(None) | Value::Msp(None) => Err(VerifyError::Claim(
            ClaimError::Malformed("not a readable message".into()),
        )),
        Value::Csdl(Some(d)) => {
            let claim = claim::csdl_claim(&d.json)?;
            trust::verify(&claim, &claim::csdl_input(&d.json), trust, sender)
        }
        Value::Msp(Some(_)) => Err(VerifyError::Claim(ClaimError::Malformed(
            "an MSP signal carries no inline signature; check a detached one with --signature"
                .into(),
        ))),
    }
}

/// The two `sig:` forms of a Crosstalk signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SigForm {
    /// `sig: ed25519:KEY-ID:…`, the key named in the line.
    Keyed,
    /// A JWS over the canonical envelope.
    Jws,
}

/// Signs one message at a time with one key.
pub struct Signer<'a> {
    pub key: &'a SigningKey,
    pub key_id: &'a str,
    pub form: SigForm,
    pub with_public_key: bool,
    /// The input's only message: a JSON one is written pretty, else as one
    /// line (JSON Lines).
    pub alone: bool,
}

impl Signer<'_> {
    /// The message's signed text (`None`: nothing to sign in it).
    pub fn sign(&self, found: &Found) -> Result<Option<String>, String> {
        let (key, id, with_pk) = (self.key, self.key_id, self.with_public_key);
        let json = match &found.value {
            Value::Crosstalk(parsed) => {
                let mut parsed = (**parsed).clone();
                match self.form {
                    SigForm::Keyed => claim::sign_crosstalk(&mut parsed.envelope, key, id, with_pk),
                    SigForm::Jws => claim::sign_crosstalk_jws(&mut parsed, key, id)
                        .map_err(|e| e.to_string())?,
                }
                return Ok(Some(crate::protocols::crosstalk::render(&parsed.envelope)));
            }
            Value::Hsp(Some(m)) => {
                let mut json = m.json.clone();
                claim::sign_hsp(&mut json, key, id, with_pk);
                json
            }
            Value::Csdl(Some(d)) => claim::sign_csdl(&d.json, key, id, with_pk)?,
            Value::Hsp(None) | Value::Csdl(None) | Value::Msp(_) => return Ok(None),
        };
        // Serialising a serde_json::Value cannot fail.
        let mut text = if self.alone {
            serde_json::to_string_pretty(&json)
        } else {
            serde_json::to_string(&json)
        }
        .unwrap_or_default();
        text.push('\n');
        Ok(Some(text))
    }
}
