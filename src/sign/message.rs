//! Verifying a message as a whole: it must pass `validate` first (a
//! finding is the verdict), show exactly what a signature can cover, be
//! dated within what the verifier accepts, then carry a good signature, in
//! its protocol's place, by a key trusted for its sender at its date. And
//! signing: a key signs only the messages of the senders it is bound to.

use chrono::{DateTime, Duration, Utc};
use unicode_normalization::UnicodeNormalization;

use super::card;
use super::claim::{self, ClaimError};
use super::key::SigningKey;
use super::key_line::{KnownKey, format_date};
use super::trust::{self, Claimed, Trust, Verified, VerifyError};
use crate::model::Message;
use crate::protocols::a2a::Kind;
use crate::protocols::a2a::signing_input::Reading;
use crate::protocols::{Found, Value, json_doc};

/// How far in the future a message may be dated before it is named:
/// clocks of different machines disagree by a little.
pub const FUTURE_SKEW: Duration = Duration::minutes(5);

/// What `verify` asks of a message's date besides its signature.
#[derive(Debug, Clone, Copy)]
pub struct Freshness {
    /// Messages dated longer ago than this are refused (`--max-age`).
    pub max_age: Option<Duration>,
    /// A message dated in the future (beyond [`FUTURE_SKEW`]) is refused
    /// instead of only named.
    pub strict: bool,
    pub now: DateTime<Utc>,
}

impl Default for Freshness {
    fn default() -> Self {
        Freshness {
            max_age: None,
            strict: false,
            now: Utc::now(),
        }
    }
}

/// When the message says it was written: its timestamp (HSP's
/// `timestamp_sent`), else the time its id carries (a ULID or UUIDv7).
pub fn message_time(message: &Message) -> Option<DateTime<Utc>> {
    message
        .timestamp
        .as_deref()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc))
        .or_else(|| message.id.as_deref().and_then(crate::ids::created_at))
}

/// Verifies one message with no demand on its date beyond the keys'.
pub fn verify_found(found: &Found, trust: &Trust) -> Result<Verified, VerifyError> {
    verify_fresh(found, trust, &Freshness::default())
}

/// Verifies one message: it must validate first (any error fails it with
/// that finding), show exactly what its signature covers, be dated as
/// `fresh` asks, then carry a good signature by a key trusted for its
/// sender when it was written.
pub fn verify_fresh(
    found: &Found,
    trust: &Trust,
    fresh: &Freshness,
) -> Result<Verified, VerifyError> {
    if let Some(d) = found.diagnostics.iter().find(|d| d.is_error()) {
        return Err(VerifyError::Invalid {
            code: d.code,
            message: d.message.clone(),
            line: d.line,
            column: d.column,
        });
    }
    not_coverable(found)?;
    let message = found.to_message();
    let sender = message.as_ref().and_then(|m| m.sender.as_deref());
    let time = message.as_ref().and_then(message_time);
    let warning = check_date(time, fresh)?;
    let claimed = Claimed { sender, time };
    let mut verified = match &found.value {
        Value::Crosstalk(p) => {
            let (claim, input) = claim::crosstalk_signed(p)?;
            trust::verify_claimed(&claim, &input, trust, claimed)
        }
        Value::Hsp(Some(m)) => {
            let claim = claim::hsp_claim(&m.json)?;
            trust::verify_claimed(&claim, &claim::hsp_input(&m.json), trust, claimed)
        }
        Value::Hsp(None) | Value::Csdl(None) | Value::Msp(None) | Value::A2a(None) => Err(VerifyError::Claim(
            ClaimError::Malformed("not a readable message".into()),
        )),
        Value::Csdl(Some(d)) => {
            let claim = claim::csdl_claim(&d.json)?;
            trust::verify_claimed(&claim, &claim::csdl_input(&d.json), trust, claimed)
        }
        Value::Msp(Some(_)) => Err(VerifyError::Claim(ClaimError::Malformed(
            "an MSP signal carries no inline signature; check a detached one with --signature"
                .into(),
        ))),
        // Only an Agent Card carries signatures in A2A.
        Value::A2a(Some(d)) => match d.object() {
            (Kind::AgentCard, card) => verify_card(card, trust),
            _ => Err(VerifyError::Claim(ClaimError::Malformed(
                "in A2A only an Agent Card carries a signature; check a detached one with --signature"
                    .into(),
            ))),
        },
    }?;
    verified.warning = warning;
    Ok(verified)
}

/// An Agent Card's signatures: good when one of them verifies, under
/// either reading of the field-presence rule, with a key trusted for the
/// card's `name`; else the first one's failure.
fn verify_card(card: &serde_json::Value, trust: &Trust) -> Result<Verified, VerifyError> {
    let claimed = Claimed {
        sender: card.get("name").and_then(serde_json::Value::as_str),
        time: None,
    };
    let mut failure = None;
    for claim in card::card_claims(card)? {
        let outcome = claim.map_err(VerifyError::from).and_then(|c| {
            let mut first_error = None;
            for (reading, input) in &c.inputs {
                match trust::verify_claimed(&c.claim, input, trust, claimed) {
                    Ok(mut verified) => {
                        if *reading != Reading::Spec {
                            verified.note = Some(format!(
                                "signed over the {} reading of A2A 8.4.1 rule 1 (every empty value removed), not the specification's: verifiers that follow the specification refuse this signature",
                                reading.name()
                            ));
                        }
                        return Ok(verified);
                    }
                    // The signature matched under this reading but is refused
                    // for another reason: that reason is the verdict.
                    Err(e) => match first_error {
                        None | Some(VerifyError::BadSignature(_)) => first_error = Some(e),
                        Some(_) => {}
                    },
                }
            }
            Err(match first_error {
                Some(VerifyError::UnknownKey(kid)) => VerifyError::UnknownCardKey { kid, jku: c.jku },
                Some(e) => e,
                None => VerifyError::BadSignature(c.claim.key_id),
            })
        });
        match outcome {
            Ok(verified) => return Ok(verified),
            Err(e) => {
                failure.get_or_insert(e);
            }
        }
    }
    Err(failure.unwrap_or(VerifyError::Claim(ClaimError::Unsigned)))
}

/// The date rules: older than `--max-age` fails (as does no date at all
/// when a maximum age is asked for); dated in the future beyond the skew
/// is named, and fails with `strict`.
fn check_date(
    time: Option<DateTime<Utc>>,
    fresh: &Freshness,
) -> Result<Option<String>, VerifyError> {
    if let Some(max_age) = fresh.max_age {
        let Some(time) = time else {
            return Err(VerifyError::Freshness(
                "SIG-STALE",
                "the message carries no date (no timestamp, no ULID or UUIDv7 id), and --max-age asks for one".into(),
            ));
        };
        if fresh.now - time > max_age {
            return Err(VerifyError::Freshness(
                "SIG-STALE",
                format!(
                    "the message is dated {}, longer ago than --max-age allows (not after {}): a replay, or too old to act on",
                    format_date(time),
                    format_date(fresh.now - max_age)
                ),
            ));
        }
    }
    if let Some(time) = time
        && time > fresh.now + FUTURE_SKEW
    {
        let why = format!(
            "the message is dated {}, in the future (now is {})",
            format_date(time),
            format_date(fresh.now)
        );
        if fresh.strict {
            return Err(VerifyError::Freshness("SIG-FUTURE", why));
        }
        return Ok(Some(why));
    }
    Ok(None)
}

/// Fails when what the message shows is not exactly what its signature
/// form covers: a JSON number JCS would change, or a character that
/// Unicode normalization (which Crosstalk signatures go through) replaces
/// by another, such as U+037E GREEK QUESTION MARK for `;`.
pub fn not_coverable(found: &Found) -> Result<(), VerifyError> {
    if let Some(d) = found
        .diagnostics
        .iter()
        .find(|d| d.code == json_doc::numbers::CODE)
    {
        let at = d.pointer.as_deref().unwrap_or("");
        return Err(VerifyError::Inexact {
            code: "SIG-INEXACT",
            why: format!("at {at}: {}", d.message),
            line: d.line,
            column: d.column,
        });
    }
    if let Value::Crosstalk(parsed) = &found.value {
        let mut unsigned = parsed.envelope.clone();
        unsigned.sig = None;
        let text = crate::protocols::crosstalk::render(&unsigned);
        for (i, line) in text.lines().enumerate() {
            for (column, c) in line.chars().enumerate() {
                if c.is_ascii() || std::iter::once(c).nfc().eq(std::iter::once(c)) {
                    continue;
                }
                let becomes: Vec<String> = std::iter::once(c)
                    .nfc()
                    .map(crate::chars::describe)
                    .collect();
                return Err(VerifyError::Inexact {
                    code: "SIG-ALTERED",
                    why: format!(
                        "{} is not what a signature covers: Unicode normalization (NFC) replaces it by {}, which looks the same",
                        crate::chars::describe(c),
                        becomes.join(" + ")
                    ),
                    line: parsed.start_line + i,
                    column: column + 1,
                });
            }
        }
    }
    Ok(())
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
    /// The key's own public line: the senders it may sign for.
    pub entry: &'a KnownKey,
    pub form: SigForm,
    pub with_public_key: bool,
    /// The input's only message: a JSON one is written pretty, else as one
    /// line (JSON Lines).
    pub alone: bool,
}

impl Signer<'_> {
    /// Why this key may not sign the message: its sender is not one the
    /// key is bound to (a verifier would refuse it with SIG-SENDER).
    pub fn not_mine(&self, found: &Found) -> Option<String> {
        // A card's signer is bound to the card's name (as verify checks it).
        let message = found.to_message();
        let sender = match &found.value {
            Value::A2a(Some(d)) if d.kind == Kind::AgentCard => d.json.get("name")?.as_str()?,
            _ => message.as_ref()?.sender.as_deref()?,
        };
        (!self.entry.may_sign_for(sender)).then(|| {
            format!(
                "the sender is `{}`, and the key `{}` signs for {} only: nothing signed (sign only your own envelopes with --only-mine, or use the key bound to that sender)",
                crate::output::escape_controls(sender),
                self.key_id,
                crate::output::escape_controls(&self.entry.allowed())
            )
        })
    }

    /// The message's signed text (`None`: nothing to sign in it). Refused
    /// when the key is not bound to the sender, or when the message shows
    /// what no signature can cover.
    pub fn sign(&self, found: &Found) -> Result<Option<String>, String> {
        if let Some(why) = self.not_mine(found) {
            return Err(why);
        }
        not_coverable(found).map_err(|e| e.to_string())?;
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
            Value::A2a(Some(d)) if d.kind == Kind::AgentCard => {
                card::sign_card(&d.json, key, id).map_err(|e| e.to_string())?
            }
            Value::A2a(Some(_)) => {
                return Err("in A2A only an Agent Card carries a signature; sign this file detached with --detached".into());
            }
            Value::Hsp(None) | Value::Csdl(None) | Value::Msp(_) | Value::A2a(None) => {
                return Ok(None);
            }
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
