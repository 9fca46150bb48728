//! The verdict on one message's signature: who signed, for which sender.

use serde::Serialize;

use crate::protocols::Found;
use crate::sign::trust::{Verified, VerifyError};

/// One verdict of `verify --format json`: on one message, or on a whole
/// input that gave none (`index` and `line` null, with the code and why).
/// Its schema is `schemas/aiproto/verify-report.schema.json`.
#[derive(Debug, Serialize)]
pub struct VerifyRecord<'a> {
    pub source: &'a str,
    pub index: Option<usize>,
    pub line: Option<usize>,
    pub valid: bool,
    /// The key that signed (on success).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_id: Option<&'a str>,
    /// The message's sender, beside the key that signed for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sender: Option<String>,
    /// Whether the key is bound to that sender (false with --pubkey).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pinned_now: bool,
    /// What was named without refusing (a date in the future).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<&'a str>,
    /// What is worth knowing about a good signature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Unsigned, and allowed: its sender is not one `--require-signed-from`
    /// names.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allowed_unsigned: bool,
}

impl<'a> VerifyRecord<'a> {
    pub fn new(source: &'a str, found: &Found, result: &'a Result<Verified, VerifyError>) -> Self {
        let (ok, err) = (result.as_ref().ok(), result.as_ref().err());
        VerifyRecord {
            source,
            index: Some(found.index),
            line: Some(found.line),
            valid: ok.is_some(),
            key_id: ok.map(|v| v.key_id.as_str()),
            sender: match ok {
                Some(v) => v.sender.clone(),
                None => found.to_message().and_then(|m| m.sender),
            },
            bound: ok.map(|v| v.bound),
            algorithm: ok.map(|v| v.algorithm),
            fingerprint: ok.map(|v| v.fingerprint.as_str()),
            pinned_now: ok.is_some_and(|v| v.pinned_now),
            warning: ok.and_then(|v| v.warning.as_deref()),
            note: ok.and_then(|v| v.note.as_deref()),
            code: err.map(VerifyError::code),
            error: err.map(ToString::to_string),
            allowed_unsigned: false,
        }
    }

    /// The verdict on a whole input: no message in it, not readable, or
    /// (for the run) nothing read at all.
    pub fn input(source: &'a str, code: &'static str, why: String) -> Self {
        VerifyRecord {
            source,
            index: None,
            line: None,
            valid: false,
            key_id: None,
            sender: None,
            bound: None,
            algorithm: None,
            fingerprint: None,
            pinned_now: false,
            warning: None,
            note: None,
            code: Some(code),
            error: Some(why),
            allowed_unsigned: false,
        }
    }
}
