//! Verifying a message as a whole: it must pass `validate` first (a
//! finding is the verdict), then carry a good signature, in its protocol's
//! place, by a key trusted for its sender.

use super::claim::{self, ClaimError};
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
