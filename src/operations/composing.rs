//! Composing a message, for every face: an HSP message from what the caller
//! gave (a kind, the addresses, a payload, an error) or a reply to one, and
//! a Crosstalk envelope through the protocol's own composer. Each face only
//! gathers the fields (flags, tool arguments) and says the errors its way.

use serde_json::{Map, Value, json};

pub use crate::protocols::crosstalk::compose::{
    ComposeError as EnvelopeError, Fields, ReplyBase, compose as compose_envelope, flag, reply_base,
};
pub use crate::protocols::crosstalk::primer::{self, ReplyPrimerError};
pub use crate::protocols::crosstalk::reply::ReplyError;
pub use crate::protocols::crosstalk::{
    ParsedEnvelope, Version as CrosstalkVersion, parse_all, render as render_envelope,
};
pub use crate::protocols::hsp::Version as HspVersion;
pub use crate::protocols::hsp::compose::Kind;
pub use crate::protocols::hsp::payload_map::is_string_field;
pub use crate::reader::check_written;

use crate::ids::{self, IdKind};
use crate::protocols::crosstalk;
use crate::protocols::hsp::compose::{self, Draft};
use crate::sign::composed::Composed;

/// Remembers a text the person composed (see [`crate::sign::composed`]):
/// `sign --only-mine` signs it for them. A ledger that cannot be written
/// costs only that, and is said on stderr. Never called for what an
/// assistant composes (MCP).
pub fn remember(text: &str) {
    let Some(ledger) = Composed::open() else {
        return;
    };
    if let Err(e) = ledger.record(text) {
        eprintln!(
            "aiproto: warning: cannot remember the composed message for `sign --only-mine` in {}: {e}",
            crate::sign::composed::FILE
        );
    }
}

/// What an HSP message is composed from.
#[derive(Debug, Default)]
pub struct HspFields {
    /// The message answered (`reply_to`): its kind of answer, addresses and
    /// correlation come from it.
    pub original: Option<Value>,
    pub kind: Option<Kind>,
    /// The version asked for; a new message is 1.0 by default, a reply
    /// answers in the original's.
    pub version: Option<HspVersion>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub correlation_id: Option<String>,
    pub requires_ack: bool,
    /// The payload given; its fields win over those a reply starts with.
    pub payload: Map<String, Value>,
    /// An error to carry: a NACK's or ERROR's own fields, a TaskResult's
    /// `error_details`.
    pub error_code: Option<String>,
    pub reason: Option<String>,
}

/// Why the fields make no HSP message.
#[derive(Debug, thiserror::Error)]
pub enum HspComposeError {
    #[error("an HSP message needs a kind (fact, belief, task-request, …)")]
    NoKind,
    #[error("an HSP message needs a sender (its DID)")]
    NoSender,
    /// An HSP 1.0 capability without the JSON Schemas of its input and
    /// output (the payload keys missing).
    #[error("an HSP 1.0 capability needs the JSON Schemas of its input and output: {}", .0.join(" and "))]
    CapabilitySchemas(Vec<&'static str>),
    #[error(transparent)]
    Draft(#[from] compose::ComposeError),
}

/// The kind a reply to `original` is (`kind` when given; else a
/// TaskResult to a TaskRequest, an ACK to anything else) and the version
/// it answers in.
pub fn reply_shape(original: &Value, kind: Option<Kind>) -> (Kind, HspVersion) {
    let (kind, draft) = compose::reply_to(original, kind);
    (kind, draft.version)
}

/// The HSP message the fields make, as indented JSON ending with a line end.
pub fn hsp(fields: HspFields) -> Result<String, HspComposeError> {
    let mut draft = match &fields.original {
        Some(original) => compose::reply_to(original, fields.kind).1,
        None => Draft {
            version: HspVersion::V1_0,
            kind: fields.kind.ok_or(HspComposeError::NoKind)?,
            from: String::new(),
            to: None,
            correlation_id: None,
            requires_ack: false,
            payload: Map::new(),
        },
    };
    if let Some(version) = fields.version {
        draft.version = version;
    }
    if let Some(from) = fields.from {
        draft.from = from;
    }
    if draft.from.is_empty() {
        return Err(HspComposeError::NoSender);
    }
    if fields.to.is_some() {
        draft.to = fields.to;
    }
    if fields.correlation_id.is_some() {
        draft.correlation_id = fields.correlation_id;
    }
    draft.requires_ack |= fields.requires_ack;
    let mut payload = fields.payload;
    for (k, v) in std::mem::take(&mut draft.payload) {
        payload.entry(k).or_insert(v);
    }
    match draft.kind {
        Kind::Nack | Kind::Error => {
            if let Some(code) = fields.error_code {
                payload.insert("error_code".into(), code.into());
            }
            if let Some(reason) = fields.reason {
                payload.insert("error_message".into(), reason.into());
            }
        }
        Kind::TaskResult if fields.error_code.is_some() || fields.reason.is_some() => {
            payload.insert(
                "error_details".into(),
                json!({
                    "error_code": fields.error_code.unwrap_or_default(),
                    "error_message": fields.reason.unwrap_or_default(),
                }),
            );
        }
        _ => {}
    }
    if draft.kind == Kind::Capability && draft.version == HspVersion::V1_0 {
        let missing: Vec<&'static str> = ["parameters", "returns"]
            .into_iter()
            .filter(|key| !payload.contains_key(*key))
            .collect();
        if !missing.is_empty() {
            return Err(HspComposeError::CapabilitySchemas(missing));
        }
    }
    draft.payload = payload;
    let envelope = compose::compose(draft)?;
    Ok(serde_json::to_string_pretty(&envelope).unwrap_or_default() + "\n")
}

/// Envelopes given fresh `message` ids.
#[derive(Debug)]
pub struct Reissued {
    /// The envelopes, each with its fresh id, a blank line between them.
    pub text: String,
    /// Each envelope's first line, its old id (if it had one) and its new one.
    pub changes: Vec<(usize, Option<String>, String)>,
}

/// Why envelopes were not given fresh ids; `line` where one starts.
#[derive(Debug, thiserror::Error)]
pub enum ReissueError {
    #[error("no Crosstalk envelope to give a fresh id")]
    NoEnvelope,
    #[error("{line}: the envelope was cut off before its [[END]] line; copy it whole")]
    CutOff { line: usize },
    #[error(
        "{line}: the envelope is signed, and its signature covers its id: remove the signature, give it a fresh id, then sign it again"
    )]
    Signed { line: usize },
    #[error("with a fresh id, the envelope is still invalid: {0}")]
    StillInvalid(String),
}

/// Each envelope of `text` with a fresh `message` id (thread and parent
/// kept), checked as `validate` checks it: all of them or none.
pub fn reissue(text: &str, kind: IdKind) -> Result<Reissued, ReissueError> {
    let envelopes = crosstalk::parse_all(text);
    if envelopes.is_empty() {
        return Err(ReissueError::NoEnvelope);
    }
    let mut out = String::new();
    let mut changes = Vec::new();
    for parsed in &envelopes {
        let line = parsed.start_line;
        if !parsed.complete {
            return Err(ReissueError::CutOff { line });
        }
        if parsed.envelope.sig.as_deref().is_some_and(|s| s != "none") {
            return Err(ReissueError::Signed { line });
        }
        let mut envelope = parsed.envelope.clone();
        let fresh = ids::new_id(kind);
        changes.push((line, envelope.message.take(), fresh.clone()));
        envelope.message = Some(fresh);
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&crosstalk::render(&envelope));
    }
    // What is handed back must validate as it stands.
    let checked = crosstalk::read(&out, chrono::Utc::now(), usize::MAX);
    if let Some(bad) = checked
        .iter()
        .find(|p| p.diagnostics.iter().any(|d| d.is_error()))
    {
        let why: Vec<String> = bad
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("[{}] {}", d.code, d.message))
            .collect();
        return Err(ReissueError::StillInvalid(why.join("; ")));
    }
    Ok(Reissued { text: out, changes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact() -> HspFields {
        HspFields {
            kind: Some(Kind::Fact),
            from: Some("did:hsp:alice".into()),
            payload: Map::from_iter([
                ("statement_nl".to_string(), json!("water is wet")),
                ("confidence_score".to_string(), json!(0.9)),
            ]),
            ..HspFields::default()
        }
    }

    #[test]
    fn a_new_message_is_hsp_1_0_and_passes_validate() {
        let text = hsp(fact()).unwrap();
        let (_, passes) = check_written("<composed>", &text, crate::protocols::Protocol::Hsp);
        assert!(passes, "{text}");
        assert!(text.contains("HSP::Fact_v1.0"), "{text}");
    }

    #[test]
    fn a_sender_and_a_kind_are_required() {
        let no_sender = HspFields {
            from: None,
            ..fact()
        };
        assert!(matches!(hsp(no_sender), Err(HspComposeError::NoSender)));
        let no_kind = HspFields {
            kind: None,
            ..fact()
        };
        assert!(matches!(hsp(no_kind), Err(HspComposeError::NoKind)));
    }

    #[test]
    fn an_error_kind_carries_its_code_and_reason() {
        let error = HspFields {
            kind: Some(Kind::Error),
            to: Some("did:hsp:bob".into()),
            correlation_id: Some("01J9J3DBC4N7P2Q3R5S7T9W1V2".into()),
            error_code: Some("E42".into()),
            reason: Some("disk full".into()),
            payload: Map::new(),
            ..fact()
        };
        let text = hsp(error).unwrap_or_else(|e| panic!("{e}"));
        let json: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["payload"]["error_code"], "E42");
        assert_eq!(json["payload"]["error_message"], "disk full");
    }

    #[test]
    fn a_1_0_capability_names_the_schemas_it_lacks() {
        let capability = HspFields {
            kind: Some(Kind::Capability),
            payload: Map::from_iter([("parameters".to_string(), json!({"type": "object"}))]),
            ..fact()
        };
        match hsp(capability) {
            Err(HspComposeError::CapabilitySchemas(missing)) => assert_eq!(missing, ["returns"]),
            other => panic!("{other:?}"),
        }
    }
}
