//! A new envelope, or a reply to one, from named fields: what `compose`
//! writes on every face (the command line, the MCP server).

use super::envelope::Envelope;
use super::meta_rules::ERROR_CODES;
use super::parse::ParsedEnvelope;
use super::{Version, reply};
use crate::ids::{self, IdKind};

/// What the author says; everything else (ids, session) is generated.
#[derive(Debug, Clone, Default)]
pub struct Fields {
    pub from: Option<String>,
    pub to: Option<String>,
    pub intent: Option<String>,
    pub context: Option<String>,
    pub user: Option<String>,
    pub session: Option<String>,
    pub thread: Option<String>,
    pub parent: Option<String>,
    /// `NAMESPACE.Key=Value` entries, grouped by namespace in first-seen order.
    pub meta: Vec<String>,
    /// ERROR: the taxonomy's code and the reason.
    pub error_code: Option<String>,
    pub reason: Option<String>,
    /// The body as given (line ends are normalised).
    pub body: String,
}

/// Why nothing was composed, with a hint at what to give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComposeError {
    pub message: String,
    pub hint: Option<String>,
}

impl ComposeError {
    fn new(message: impl Into<String>) -> Self {
        ComposeError {
            message: message.into(),
            hint: None,
        }
    }

    fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl std::fmt::Display for ComposeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ComposeError {}

/// The envelope a reply starts from, and what to tell the author about it.
#[derive(Debug, Clone)]
pub struct ReplyBase {
    /// Route swapped, same thread, `parent` the original's message id.
    pub envelope: Envelope,
    /// The original's intent (for `Original-Intent` in an ERROR reply).
    pub original_intent: Option<String>,
    /// Which envelope of the text is answered (0-based) and how many it holds.
    pub index: usize,
    pub count: usize,
    pub original: Envelope,
    /// The original's header line in the text.
    pub line: usize,
    /// False when the original was cut off before its `[[END]]` line.
    pub complete: bool,
}

/// Starts a reply to an envelope of `text`: the last one, or the one
/// `pick` names (1-based place, negative from the end, or message id).
/// `from` says which receiver answers when the original went to several.
pub fn reply_base(
    envelopes: &[ParsedEnvelope],
    pick: Option<&str>,
    from: Option<&str>,
) -> Result<ReplyBase, (reply::ReplyError, Option<String>)> {
    let (index, original) = reply::pick(envelopes, pick).map_err(|e| (e, None))?;
    let env = &original.envelope;
    let envelope = reply::skeleton(env, from).map_err(|e| {
        let receivers = reply::receivers(env).join(" | ");
        (e, Some(receivers))
    })?;
    Ok(ReplyBase {
        envelope,
        original_intent: env.intent.clone(),
        index,
        count: envelopes.len(),
        original: env.clone(),
        line: original.start_line,
        complete: original.complete,
    })
}

/// How a face spells a field in its messages: `--error-code` on the
/// command line, `error_code` in a tool's arguments.
pub type Spelling = fn(&str) -> String;

/// The command line's spelling: `--error-code`.
pub fn flag(field: &str) -> String {
    format!("--{}", field.replace('_', "-"))
}

/// Composes an envelope from `fields`, on top of `base` (a reply's
/// skeleton) when given. New ids are of `id_kind`; errors name the fields
/// as `name` spells them.
pub fn compose(
    base: Option<&ReplyBase>,
    fields: &Fields,
    version: Version,
    id_kind: IdKind,
    name: Spelling,
) -> Result<Envelope, ComposeError> {
    if base.is_none() && (fields.from.is_none() || fields.to.is_none() || fields.intent.is_none()) {
        return Err(ComposeError::new(format!(
            "compose crosstalk needs {}, {} and {}",
            name("from"),
            name("to"),
            name("intent")
        ))
        .hint(format!("or answer an envelope with {}", name("reply_to"))));
    }
    let mut env = base.map_or_else(Envelope::default, |b| b.envelope.clone());
    env.version_token = "v1".into();
    apply_fields(&mut env, fields);
    if env.session.is_none() {
        env.session = Some(ids::new_session());
    }
    match version {
        Version::V1_1 => {
            env.message = Some(ids::new_id(id_kind));
            env.thread.get_or_insert_with(|| ids::new_id(id_kind));
        }
        Version::V1_0 => {
            if env.thread.is_some() || env.parent.is_some() || !fields.meta.is_empty() {
                return Err(ComposeError::new(
                    "Crosstalk 1.0 has no thread, parent or meta blocks",
                )
                .hint("compose crosstalk@1.1 (the default) to use them"));
            }
        }
    }
    add_meta(&mut env, &fields.meta, name)?;
    let original_intent = base.and_then(|b| b.original_intent.as_deref());
    add_error_block(&mut env, fields, original_intent, name)?;
    let body = normalize_body(&fields.body);
    env.body = Some(match (body.is_empty(), env.intent.as_deref()) {
        (false, _) => body,
        // An ERROR explains itself: its reason is a fine body.
        (true, Some("ERROR")) => fields
            .reason
            .clone()
            .unwrap_or_else(|| "The message could not be processed.".into()),
        (true, _) => {
            return Err(ComposeError::new("the message body is empty")
                .hint(format!("give the message's text as {}", name("body"))));
        }
    });
    env.sig = Some("none".into());
    Ok(env)
}

fn apply_fields(env: &mut Envelope, fields: &Fields) {
    if let Some(from) = &fields.from {
        env.sender.clone_from(from);
    }
    if let Some(to) = &fields.to {
        env.receiver.clone_from(to);
    }
    for (slot, value) in [
        (&mut env.intent, &fields.intent),
        (&mut env.context, &fields.context),
        (&mut env.user, &fields.user),
        (&mut env.session, &fields.session),
        (&mut env.thread, &fields.thread),
        (&mut env.parent, &fields.parent),
    ] {
        if value.is_some() {
            slot.clone_from(value);
        }
    }
}

/// `NAMESPACE.Key=Value` entries, grouped by namespace in first-seen order.
fn add_meta(env: &mut Envelope, entries: &[String], name: Spelling) -> Result<(), ComposeError> {
    for entry in entries {
        let parsed = entry
            .split_once('=')
            .and_then(|(path, value)| path.split_once('.').map(|(ns, key)| (ns, key, value)))
            .filter(|(ns, key, _)| !ns.is_empty() && !key.is_empty());
        let Some((ns, key, value)) = parsed else {
            return Err(ComposeError::new(format!(
                "{} `{entry}` is not NAMESPACE.Key=Value",
                name("meta")
            ))
            .hint("e.g. routing.X-Priority=high"));
        };
        if value.contains('\n') {
            return Err(ComposeError::new(format!(
                "{} `{ns}.{key}`: meta values are single lines",
                name("meta")
            )));
        }
        env.meta_block_mut(ns)
            .entries
            .push((key.to_string(), value.to_string()));
    }
    Ok(())
}

fn add_error_block(
    env: &mut Envelope,
    fields: &Fields,
    original_intent: Option<&str>,
    name: Spelling,
) -> Result<(), ComposeError> {
    let is_error = env.intent.as_deref() == Some("ERROR");
    let (code_name, intent_name) = (name("error_code"), name("intent"));
    match (is_error, fields.error_code.as_deref()) {
        (false, None) => Ok(()),
        (false, Some(_)) => Err(ComposeError::new(format!(
            "{code_name} needs {intent_name} ERROR"
        ))),
        (true, None) => Err(
            ComposeError::new(format!("{intent_name} ERROR needs {code_name}")).hint(format!(
                "e.g. {code_name} E-FORMAT and {} \"…\"",
                name("reason")
            )),
        ),
        (true, Some(code)) if !ERROR_CODES.contains(&code) => Err(ComposeError::new(format!(
            "{code_name} {code} is not in the Crosstalk taxonomy ({})",
            ERROR_CODES.join(", ")
        ))),
        (true, Some(code)) => {
            env.set_error(code, fields.reason.as_deref(), original_intent);
            Ok(())
        }
    }
}

/// LF line ends, no trailing blank lines: what the envelope can carry
/// exactly. Spaces at the end of the last line are the author's and stay
/// (the upstream canonicalization keeps them).
pub fn normalize_body(raw: &str) -> String {
    let text = raw.replace("\r\n", "\n");
    let mut lines: Vec<&str> = text.split('\n').collect();
    while lines.len() > 1 && lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}
