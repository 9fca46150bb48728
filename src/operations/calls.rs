//! The operations on messages — validate, inspect, verify, sign, compose,
//! convert, thread, poll — each a thin layer over the library functions the
//! commands use, answering with the records of `--format json` (see `records`).

use chrono::Utc;
use serde::Serialize;
use serde_json::{Value, json};

use super::composing::{self, HspComposeError, HspVersion};
use super::{Context, OpError, OpResult, params};
use crate::convert::{self, Attempt, WriteOptions};
use crate::diag::{self, Diagnostic};
use crate::ids::IdKind;
use crate::input::{Input, Source};
use crate::poll;
use crate::protocols::crosstalk::{self, compose as ct_compose, primer};
use crate::protocols::{Found, Protocol, ProtocolSpec, ReadOptions, Value as Read};
use crate::reader::{self, Document};
use crate::records;
use crate::records::validate::ValidateRecord;
use crate::sign::keystore::Keystore;
use crate::sign::message::{SigForm, Signer, verify_found};
use crate::sign::trust::Trust;

/// Serialises a record (plain data: cannot fail).
fn json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn protocol_spec(name: Option<&str>) -> Result<Option<ProtocolSpec>, OpError> {
    name.map(|n| n.parse::<ProtocolSpec>().map_err(OpError::new))
        .transpose()
}

/// Text handed in, within the size limit.
fn text_source(ctx: &Context, name: &str, text: String) -> Result<Source, OpError> {
    if text.len() > ctx.max_bytes {
        return Err(OpError::new(format!(
            "{name}: {} bytes, over this server's limit of {} (--max-bytes)",
            text.len(),
            ctx.max_bytes
        )));
    }
    Ok(Source {
        name: name.into(),
        text,
    })
}

/// A file inside the roots, opened, within the size limit.
fn opened_file(ctx: &Context, path: &str) -> Result<super::sandbox::Opened, OpError> {
    let opened = ctx
        .sandbox
        .existing_file(path)
        .map_err(|e| OpError::new(e.to_string()))?;
    let size = std::fs::metadata(opened.path()).map_or(0, |m| m.len());
    if size > ctx.max_bytes as u64 {
        return Err(OpError::new(format!(
            "{path}: {size} bytes, over this server's limit of {} (--max-bytes)",
            ctx.max_bytes
        )));
    }
    Ok(opened)
}

/// A file inside the roots, within the size limit, as text.
pub fn file_source(ctx: &Context, path: &str) -> Result<Source, OpError> {
    let opened = opened_file(ctx, path)?;
    let mut source = Input::File(opened.path().to_path_buf())
        .read()
        .map_err(|e| OpError::new(e.named(path).to_string()))?;
    source.name = path.into();
    Ok(source)
}

/// The `text` or the `path` of a tool's arguments, exactly one.
fn one_source(ctx: &Context, text: Option<String>, path: Option<&str>) -> Result<Source, OpError> {
    match (text, path) {
        (Some(text), None) => text_source(ctx, "<text>", text),
        (None, Some(path)) => file_source(ctx, path),
        (Some(_), Some(_)) => Err(OpError::new("give `text` or `path`, not both")),
        (None, None) => Err(OpError::new(
            "give the messages as `text`, or a file inside the roots as `path`",
        )),
    }
}

/// The messages of the `text` or the file at `path`, read as the command
/// line reads an input ([`reader::read`]: CBP frames, UTF-16, a saved mail,
/// a byte-order mark). A file that is not text fails with the record the
/// command line prints for it (`INPUT-NOT-UTF8`) in the error's details.
fn read(
    ctx: &Context,
    text: Option<String>,
    path: Option<&str>,
    protocol: Option<&str>,
    options: &ReadOptions,
) -> Result<Document, OpError> {
    let forced = protocol_spec(protocol)?;
    let Some(path) = path.filter(|_| text.is_none()) else {
        let source = one_source(ctx, text, path)?;
        return Ok(Document::from_source(source, forced, options));
    };
    // Held open while it is read: the path names the file that was checked.
    let opened = opened_file(ctx, path)?;
    let input = Input::File(opened.path().to_path_buf());
    let mut doc = reader::read(&input, forced, options).map_err(|e| match e.named(path) {
        crate::input::InputError::NotUtf8 {
            path,
            line,
            column,
            what,
        } => {
            let d = Diagnostic::error("INPUT-NOT-UTF8", what.describe())
                .at(crate::diag::Pos::new(line, column), 1);
            let record = json(&ValidateRecord::input(&path, &d));
            OpError::new(format!("{path}:{line}:{column}: {}", what.describe()))
                .with(json!({ "messages": [record] }))
        }
        other => OpError::new(other.to_string()),
    })?;
    doc.source.name = path.into();
    Ok(doc)
}

/// The messages of a [`params::Messages`] argument, read with the defaults.
fn read_messages(ctx: &Context, p: params::Messages) -> Result<Document, OpError> {
    read(
        ctx,
        p.text,
        p.path.as_deref(),
        p.protocol.as_deref(),
        &ReadOptions::default(),
    )
}

/// The error of a document without any message: `NO-MESSAGE` and why.
fn no_message(doc: &Document) -> Diagnostic {
    let why = reader::why_no_message(&doc.source.text);
    Diagnostic::error("NO-MESSAGE", why.to_string()).at(why.pos(), 1)
}

fn require_messages(doc: &Document) -> Result<(), OpError> {
    if doc.messages.is_empty() {
        let d = no_message(doc);
        return Err(OpError::new(format!("{}: {}", doc.source.name, d.message))
            .with(json!({ "messages": [json(&ValidateRecord::input(&doc.source.name, &d))] })));
    }
    Ok(())
}

/// The verdicts of a document's messages, as `validate --format json`.
fn verdicts(doc: &Document, strict: bool) -> (bool, Vec<Value>) {
    let name = doc.source.name.as_str();
    if doc.messages.is_empty() {
        let d = no_message(doc);
        return (false, vec![json(&ValidateRecord::input(name, &d))]);
    }
    let mut all_valid = true;
    let mut seen = super::read::SeenIds::default();
    let records = doc
        .messages
        .iter()
        .map(|found| {
            let mut findings = found.diagnostics.clone();
            let source = &doc.source.text;
            findings.extend(seen.finding(found, || found.written(source).map(Into::into)));
            let (errors, warnings) = diag::partition(&findings, strict);
            let record = ValidateRecord::message(name, found, errors, warnings, None);
            all_valid &= record.valid;
            json(&record)
        })
        .collect();
    (all_valid, records)
}

pub fn validate(ctx: &Context, p: params::Validate) -> OpResult {
    let options = ReadOptions {
        now: Utc::now(),
        lenient: p.lenient,
        ..ReadOptions::default()
    };
    let doc = match read(
        ctx,
        p.text,
        p.path.as_deref(),
        p.protocol.as_deref(),
        &options,
    ) {
        Ok(doc) => doc,
        // A file that is not text is a verdict, as on the command line.
        Err(OpError {
            details: Some(details),
            ..
        }) => return Ok(json!({ "valid": false, "messages": details["messages"] })),
        Err(e) => return Err(e),
    };
    let (valid, messages) = verdicts(&doc, p.strict);
    Ok(json!({ "valid": valid, "messages": messages }))
}

/// Everything the library says about each message of a paste: its
/// verdict and findings (as `validate`), its fields (as `inspect`), its
/// signature (as `verify`), where it lies (`line`..`end_line`), whether it
/// is whole, and the times carried by its ids. A paste without any
/// message answers with the input's own verdict.
pub fn examine(ctx: &Context, p: params::Messages) -> OpResult {
    let doc = read_messages(ctx, p)?;
    let (valid, verdicts) = verdicts(&doc, false);
    if doc.messages.is_empty() {
        return Ok(json!({ "valid": false, "input": verdicts.first(), "messages": [] }));
    }
    let trust = store_trust()?;
    let name = doc.source.name.as_str();
    let messages: Vec<Value> = doc
        .messages
        .iter()
        .zip(verdicts)
        .map(|(found, verdict)| {
            let message = found.to_message();
            let time = |id: Option<&String>| {
                id.and_then(|id| crate::ids::created_at(id))
                    .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
            };
            let times = message.as_ref().map(|m| {
                json!({
                    "id": time(m.id.as_ref()),
                    "thread": time(m.thread.as_ref()),
                    "parent": time(m.parent.as_ref()),
                })
            });
            let signature = verify_found(found, &trust);
            json!({
                "verdict": verdict,
                "complete": found.is_complete(),
                "inspect": records::inspect::record(name, found),
                "signature": json(&records::verify::VerifyRecord::new(name, found, &signature)),
                "id_times": times,
            })
        })
        .collect();
    Ok(json!({ "valid": valid, "messages": messages }))
}

pub fn inspect(ctx: &Context, p: params::Messages) -> OpResult {
    let doc = read_messages(ctx, p)?;
    require_messages(&doc)?;
    let messages: Vec<Value> = doc
        .messages
        .iter()
        .filter_map(|found| records::inspect::record(&doc.source.name, found))
        .collect();
    Ok(json!({ "messages": messages }))
}

pub fn verify(ctx: &Context, p: params::Messages) -> OpResult {
    let doc = read_messages(ctx, p)?;
    require_messages(&doc)?;
    let (valid, messages) = signature_verdicts(&doc.source.name, &doc.messages, &store_trust()?);
    Ok(json!({ "valid": valid, "messages": messages }))
}

/// Each message's signature verdict, as `verify --format json`, and
/// whether all are good.
fn signature_verdicts(source: &str, messages: &[Found], trust: &Trust) -> (bool, Vec<Value>) {
    let mut valid = true;
    let records = messages
        .iter()
        .map(|found| {
            let result = verify_found(found, trust);
            valid &= result.is_ok();
            json(&records::verify::VerifyRecord::new(source, found, &result))
        })
        .collect();
    (valid, records)
}

/// The keystore's own and pinned keys; nothing is pinned from here (a
/// key is trusted by a person, with `aiproto keys pin`).
fn store_trust() -> Result<Trust, OpError> {
    let store = Keystore::open().map_err(|e| OpError::new(e.to_string()))?;
    Ok(Trust::Store { store, tofu: false })
}

pub fn sign(ctx: &Context, p: params::Sign) -> OpResult {
    if !ctx.allow_signing {
        return Err(OpError::new(
            "signing speaks as the person and is not allowed here: they start `aiproto mcp --allow-signing` to allow it",
        ));
    }
    let doc = read(
        ctx,
        p.text,
        p.path.as_deref(),
        None,
        &ReadOptions::default(),
    )?;
    require_messages(&doc)?;
    let name = &doc.source.name;
    if let Some(found) = doc.messages.iter().find(|f| !f.is_valid(false)) {
        let (_, records) = verdicts(&doc, false);
        return Err(OpError::new(format!(
            "{name}:{}: the message is invalid, nothing signed",
            found.line
        ))
        .with(json!({ "messages": records })));
    }
    if doc.messages.iter().any(|f| matches!(f.value, Read::Msp(_))) {
        return Err(OpError::new(format!(
            "{name}: an MSP signal cannot carry a signature (its schema is closed)"
        )));
    }
    let form = match p.form.as_deref() {
        None | Some("keyed") => SigForm::Keyed,
        Some("jws") => SigForm::Jws,
        Some(other) => {
            return Err(OpError::new(format!(
                "form `{other}`: the forms are keyed and jws"
            )));
        }
    };
    let store = Keystore::open().map_err(|e| OpError::new(e.to_string()))?;
    let (key, entry) = store.own_signer(&p.key).map_err(OpError::new)?;
    let signer = Signer {
        key: &key,
        key_id: &p.key,
        entry: &entry,
        form,
        with_public_key: !p.no_public_key,
        alone: doc.messages.len() == 1,
    };
    let mut text = String::new();
    for found in &doc.messages {
        let signed = signer
            .sign(found)
            .map_err(|e| OpError::new(format!("{name}:{}: {e}", found.line)))?;
        let Some(signed) = signed else { continue };
        if !text.is_empty() && found.protocol == Protocol::Crosstalk {
            text.push('\n');
        }
        text.push_str(&signed);
    }
    // What a receiver with this keystore would conclude: the key must be
    // bound to each message's sender for the signature to verify.
    let signed = Document::from_source(
        Source {
            name: "<signed>".into(),
            text: text.clone(),
        },
        None,
        &ReadOptions::default(),
    );
    let trust = Trust::Store { store, tofu: false };
    let (_, verdicts) = signature_verdicts(name, &signed.messages, &trust);
    Ok(json!({ "text": text, "key_id": p.key, "verified_here": verdicts }))
}

pub fn compose(ctx: &Context, p: params::Compose) -> OpResult {
    let spec: ProtocolSpec = p.protocol.parse().map_err(OpError::new)?;
    let id_kind = if p.uuid7 {
        IdKind::UuidV7
    } else {
        IdKind::Ulid
    };
    let (text, answered) = match spec.protocol {
        Protocol::Crosstalk => compose_crosstalk(ctx, spec, p, id_kind)?,
        Protocol::Hsp => (compose_hsp(ctx, spec, p)?, None),
        Protocol::Csdl | Protocol::Msp | Protocol::A2a => {
            return Err(OpError::new(
                "compose writes crosstalk and hsp messages (convert writes CSDL, MSP and A2A)",
            ));
        }
    };
    let (doc, passes) = reader::check_written("<composed>", &text, spec.protocol);
    let (_, messages) = verdicts(&doc, false);
    if !passes {
        return Err(OpError::new("the composed message is invalid")
            .with(json!({ "text": text, "messages": messages })));
    }
    if ctx.person_composes {
        composing::remember(&text);
    }
    let message = doc.messages.first().and_then(Found::to_message);
    Ok(json!({
        "text": text,
        "protocol": spec.protocol.name(),
        "version": doc.messages.first().map(|f| f.version.clone()),
        "id": message.as_ref().and_then(|m| m.id.clone()),
        "thread": message.as_ref().and_then(|m| m.thread.clone()),
        "parent": message.as_ref().and_then(|m| m.parent.clone()),
        "answered": answered,
        "messages": messages,
    }))
}

fn compose_crosstalk(
    ctx: &Context,
    spec: ProtocolSpec,
    p: params::Compose,
    id_kind: IdKind,
) -> Result<(String, Option<Value>), OpError> {
    let hsp_only = [
        ("kind", p.kind.is_some()),
        ("payload", p.payload.is_some()),
        ("correlation_id", p.correlation_id.is_some()),
        ("requires_ack", p.requires_ack),
    ];
    if let Some((name, _)) = hsp_only.iter().find(|(_, given)| *given) {
        return Err(OpError::new(format!("`{name}` is for hsp messages")));
    }
    let version =
        crosstalk::Version::parse(spec.version_or_default()).unwrap_or(crosstalk::Version::V1_1);
    let base = match p.reply_to {
        Some(original) => {
            let mut source = text_source(ctx, "<reply_to>", original)?;
            crate::reader::prepare(&mut source);
            let envelopes = crosstalk::parse_all(&source.text);
            let base = ct_compose::reply_base(&envelopes, p.pick.as_deref(), p.from.as_deref())
                .map_err(|(e, receivers)| {
                    let message = e
                        .to_string()
                        .replace("--pick", "pick")
                        .replace("--from", "from");
                    match receivers {
                        Some(r) => OpError::new(format!("{message} (from: one of {r})")),
                        None => OpError::new(message),
                    }
                })?;
            Some(base)
        }
        None => None,
    };
    let answered = base.as_ref().map(|b| {
        json!({
            "envelope": b.index + 1,
            "of": b.count,
            "line": b.line,
            "sender": b.original.sender,
            "receiver": b.original.receiver,
            "message": b.original.message,
            "complete": b.complete,
        })
    });
    let fields = ct_compose::Fields {
        from: p.from,
        to: p.to,
        intent: p.intent,
        context: p.context,
        user: p.user,
        session: p.session,
        thread: p.thread,
        parent: p.parent,
        meta: p.meta,
        error_code: p.error_code,
        reason: p.reason,
        body: p.body.unwrap_or_default(),
    };
    let env = ct_compose::compose(base.as_ref(), &fields, version, id_kind, |f| {
        format!("`{f}`")
    })
    .map_err(|e| match e.hint {
        Some(hint) => OpError::new(format!("{} ({hint})", e.message)),
        None => OpError::new(e.message),
    })?;
    Ok((crosstalk::render(&env), answered))
}

fn compose_hsp(ctx: &Context, spec: ProtocolSpec, p: params::Compose) -> Result<String, OpError> {
    let crosstalk_only = [
        ("intent", p.intent.is_some()),
        ("meta", !p.meta.is_empty()),
        ("body", p.body.is_some()),
        ("pick", p.pick.is_some()),
    ];
    if let Some((name, _)) = crosstalk_only.iter().find(|(_, given)| *given) {
        return Err(OpError::new(format!("`{name}` is for crosstalk envelopes")));
    }
    let kind = p
        .kind
        .as_deref()
        .map(|k| {
            <composing::Kind as clap::ValueEnum>::from_str(k, true).map_err(|_| {
                OpError::new(format!(
                    "kind `{k}`: one of fact, belief, opinion, capability, task-request, task-result, \
                     context-update, state-sync, ack, nack, discovery-query, discovery-response"
                ))
            })
        })
        .transpose()?;
    let original = match p.reply_to {
        Some(original) => {
            let source = text_source(ctx, "<reply_to>", original)?;
            let original = crate::reader::hsp_original(source)
                .map_err(|why| OpError::new(format!("reply_to: {why}")))?;
            Some(original)
        }
        None => None,
    };
    let fields = composing::HspFields {
        original,
        kind,
        version: spec.version.and_then(HspVersion::parse),
        from: p.from,
        to: p.to,
        correlation_id: p.correlation_id,
        requires_ack: p.requires_ack,
        payload: p.payload.unwrap_or_default(),
        error_code: p.error_code,
        reason: p.reason,
    };
    composing::hsp(fields).map_err(|e| match e {
        HspComposeError::NoKind => {
            OpError::new("an hsp message needs a `kind` (fact, belief, task-request, …)")
        }
        HspComposeError::NoSender => OpError::new("an hsp message needs `from` (the sender's DID)"),
        HspComposeError::CapabilitySchemas(missing) => {
            let keys: Vec<String> = missing.iter().map(|k| format!("`payload.{k}`")).collect();
            OpError::new(format!(
                "an HSP 1.0 capability needs the JSON Schemas of its input and output: give {}",
                keys.join(" and ")
            ))
        }
        other => OpError::new(other.to_string()),
    })
}

pub fn convert(ctx: &Context, p: params::Convert) -> OpResult {
    let target: ProtocolSpec = p.to.parse().map_err(OpError::new)?;
    let read_options = ReadOptions::default();
    let doc = read(
        ctx,
        p.text,
        p.path.as_deref(),
        p.protocol.as_deref(),
        &read_options,
    )?;
    require_messages(&doc)?;
    let name = doc.source.name.as_str();
    let options = WriteOptions {
        csdl_expanded: p.expand,
    };
    let mut converted = Vec::new();
    let mut refused = Vec::new();
    let mut lossy = false;
    for found in &doc.messages {
        match convert::attempt(found, target, options, &read_options, name) {
            Attempt::Converted(c) => {
                lossy |= !c.losses.is_empty();
                let mut record = json(&records::convert::LossRecord::new(name, found, &c.losses));
                record["from"] = json!(found.protocol.name());
                record["text"] = json!(c.text);
                converted.push(record);
            }
            Attempt::Refused(why) => {
                refused.push(json!({ "source": name, "index": found.index, "line": found.line, "error": why }));
            }
            Attempt::Nothing => {}
        }
    }
    let to = target.protocol.name();
    let result = json!({ "to": to, "messages": converted, "refused": refused });
    if p.strict && lossy {
        return Err(OpError::new(format!(
            "strict: converting to {to} would lose data (see `dropped`); nothing converted"
        ))
        .with(result));
    }
    if !refused.is_empty() {
        return Err(
            OpError::new(format!("{} message(s) not converted", refused.len())).with(result),
        );
    }
    Ok(result)
}

/// The texts and files of a conversation, or the archive.
fn conversation(ctx: &Context, p: params::Conversation) -> Result<Vec<Document>, OpError> {
    let mut sources = Vec::new();
    for (i, text) in p.texts.into_iter().enumerate() {
        sources.push(text_source(ctx, &format!("<text {}>", i + 1), text)?);
    }
    for path in &p.paths {
        sources.push(file_source(ctx, path)?);
    }
    if sources.is_empty() {
        let Some(archive) = &ctx.archive else {
            return Err(OpError::new(
                "give `texts` or `paths` (this server was started without --archive)",
            ));
        };
        sources.push(super::archive_source(ctx, archive)?);
    }
    Ok(sources
        .into_iter()
        .map(|s| Document::from_source(s, None, &ReadOptions::default()))
        .collect())
}

pub fn thread(ctx: &Context, p: params::Conversation) -> OpResult {
    let docs = conversation(ctx, p)?;
    let mut collector = records::thread::Collector::default();
    let mut copies = Vec::new();
    for doc in &docs {
        for found in &doc.messages {
            if let Some(copy) = collector.add(&doc.source.name, found) {
                copies.push(json!({
                    "id": copy.id,
                    "source": doc.source.name,
                    "line": found.line,
                    "first_source": &*copy.first.source,
                    "first_line": copy.first.line,
                }));
            }
        }
    }
    let nodes = collector.into_nodes();
    let forest = crate::thread::build(&nodes);
    let mut lines = Vec::new();
    records::thread::each_line::<std::convert::Infallible>(&nodes, &forest, &mut |line| {
        lines.push(json(line));
        Ok(())
    })
    .unwrap_or_default();
    let sound = forest.cycles.is_empty() && forest.duplicates.is_empty();
    Ok(json!({ "valid": sound, "records": lines, "copies": copies }))
}

pub fn poll_collate(ctx: &Context, p: params::Conversation) -> OpResult {
    let docs = conversation(ctx, p)?;
    let mut gathered = poll::Gathered::default();
    for doc in &docs {
        for found in &doc.messages {
            if let Some(m) = found.to_message() {
                gathered.add(&doc.source.name, found.line, found.is_valid(false), m);
            }
        }
    }
    let polls = gathered.collate();
    if polls.is_empty() {
        return Err(OpError::new(
            "no POLL envelope with a message id among the inputs",
        ));
    }
    Ok(json!({ "polls": json(&polls) }))
}

/// The Crosstalk primer: for a reply to the last (or the picked) envelope
/// of `reply_to`, with its route, thread and parent filled in; else for
/// a first message from `from` to `to`.
pub fn primer(ctx: &Context, p: params::Primer) -> Result<String, OpError> {
    let Some(original) = p.reply_to.filter(|t| !t.trim().is_empty()) else {
        let example = primer::example(
            None,
            p.from.as_deref().unwrap_or("ASSISTANT"),
            p.to.as_deref().unwrap_or("HUMAN"),
        );
        return Ok(primer::primer(&example, None));
    };
    let mut original = text_source(ctx, "reply_to", original)?;
    crate::reader::prepare(&mut original);
    let envelopes = crosstalk::parse_all(&original.text);
    let person = super::person_names();
    primer::for_reply(&envelopes, p.pick.as_deref(), p.from.as_deref(), &person)
        .map(|primed| primed.text)
        .map_err(|e| {
            let message = format!("reply_to: {e}")
                .replace("--pick", "pick")
                .replace("--from", "from");
            OpError::new(match e {
                primer::ReplyPrimerError::ToThePerson { .. } => format!(
                    "{message}; give `pick` (the envelope the other chat answers) or `from` (who answers)"
                ),
                _ => message,
            })
        })
}

/// The keystore's own keys: id and the senders each signs for (never the
/// private half).
pub fn keys() -> OpResult {
    let store = Keystore::open().map_err(|e| OpError::new(e.to_string()))?;
    let own = store.own_keys().map_err(|e| OpError::new(e.to_string()))?;
    let keys: Vec<Value> = own
        .iter()
        .map(|k| json!({ "id": k.id, "signs_for": k.signs_for }))
        .collect();
    Ok(json!({ "keys": keys }))
}

/// What a composer offers: the intents of each Crosstalk version, the
/// meta keys with a closed set of values, and the error codes.
pub fn registry() -> Value {
    let intents: Vec<&str> = crate::model::Intent::REGISTRY
        .iter()
        .map(|i| i.as_str())
        .collect();
    let meta: Vec<Value> = crosstalk::meta_rules::CLOSED_VALUES
        .iter()
        .map(|(ns, key, values)| json!({ "namespace": ns, "key": key, "values": values }))
        .collect();
    json!({
        "intents": { "1.1": intents, "1.0": crosstalk::intent::V1_0_NAMES },
        "meta": meta,
        "error_codes": crosstalk::meta_rules::ERROR_CODES,
    })
}
