//! Crosstalk ⇄ the shared model, and the 1.0 ⇄ 1.1 migration that happens on
//! the way out (ids generated, legacy intents mapped, what 1.0 cannot hold reported).
//!
//! Headers with no home in the model (user, session, context, unknown
//! headers, the version token) travel in a `meta: crosstalk` block of the
//! model so that Crosstalk → model → Crosstalk is the identity. The fields
//! of JSON protocols travel in `meta: hsp` / `csdl` / `msp` blocks
//! ([`json_meta`] spells them), aiproto's notes in `meta: aiproto`.

use super::envelope::{Envelope, Version};
use super::intent::{self, IntentClass};
use super::json_meta;
use crate::ids;
use crate::model::notes::{self, AIPROTO_NAMESPACE};
use crate::model::{Body, Intent, Loss, Message, MetaBlock, Signature, Slot};
use crate::protocols::Protocol;
use crate::protocols::{self, address};
use serde_json::Value;

/// The model meta namespace holding Crosstalk-only headers.
pub const ENVELOPE_NAMESPACE: &str = "crosstalk";
/// The envelope meta namespace recording a 1.0 intent that 1.1 cannot say exactly.
pub const COMPAT_NAMESPACE: &str = "compat";
const LEGACY_INTENT_KEY: &str = "Legacy-Intent";
const EXTRA_HEADER_PREFIX: &str = "Header-";
/// The `meta: crosstalk` entry of an envelope that had no `sig:` line.
const SIG_KEY: &str = "Sig";
const NO_SIG: &str = "absent";
/// The `meta: aiproto` key listing the slots a writer made up.
const GENERATED_KEY: &str = "Generated";
/// The `meta: aiproto` key saying the body is JSON (`Body: json`).
const BODY_KEY: &str = "Body";
const JSON_BODY: &str = "json";
/// The JSON protocols whose fields travel in a meta block of their name.
const JSON_PROTOCOLS: [Protocol; 4] = [Protocol::Hsp, Protocol::Csdl, Protocol::Msp, Protocol::A2a];

/// Reads an envelope into the shared model.
pub fn to_message(env: &Envelope) -> Message {
    let mut own = MetaBlock::new(ENVELOPE_NAMESPACE);
    // A session aiproto made up for 1.0 is forgotten, as generated ids are.
    let session = env.session.clone().filter(|s| !ids::is_made_up_session(s));
    for (key, value) in [
        ("User", &env.user),
        ("Session", &session),
        ("Context", &env.context),
    ] {
        if let Some(v) = value {
            own.entries.push((key.to_string(), v.clone()));
        }
    }
    for (name, value) in &env.extra_headers {
        own.entries
            .push((format!("{EXTRA_HEADER_PREFIX}{name}"), value.clone()));
    }
    // An envelope without a `sig:` line gets none written back.
    if env.sig.is_none() {
        own.entries.push((SIG_KEY.to_string(), NO_SIG.to_string()));
    }
    if !env.version_token.is_empty() && env.version_token != "v1" {
        own.entries
            .push(("Version-Token".to_string(), env.version_token.clone()));
    }
    let mut msg = Message {
        protocol: Protocol::Crosstalk,
        version: env.version().as_str().to_string(),
        id: env.message.clone(),
        thread: env.thread.clone(),
        parent: env.parent.clone(),
        sender: Some(env.sender.clone()),
        recipient: Some(env.receiver.clone()),
        timestamp: None,
        intent: env.intent.as_deref().map(Intent::parse),
        body: Body::Text(env.body.clone().unwrap_or_default()),
        meta: Vec::with_capacity(env.meta.len() + 1),
        extensions: Vec::new(),
        signature: env.sig.clone().map(|raw| Signature { raw }),
    };
    if !own.entries.is_empty() {
        msg.meta.push(own);
    }
    let mut generated = Vec::new();
    for block in &env.meta {
        if block.namespace == AIPROTO_NAMESPACE {
            if block.get(BODY_KEY) == Some(JSON_BODY)
                && let Ok(json) = serde_json::from_str(env.body.as_deref().unwrap_or_default())
            {
                msg.body = match json {
                    Value::String(text) => Body::Text(text),
                    other => Body::Json(other),
                };
            }
            generated.extend(
                block
                    .get(GENERATED_KEY)
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(str::to_string),
            );
            // Entries aiproto does not write are someone's data: kept.
            let mut rest = block.clone();
            rest.entries
                .retain(|(k, _)| k != BODY_KEY && k != GENERATED_KEY);
            if !rest.entries.is_empty() {
                msg.meta.push(rest);
            }
            continue;
        }
        match extension_of(block) {
            Some(protocol) if msg.extension(protocol).is_none() => {
                let fields = json_meta::fields_of(&block.entries);
                msg.set_extension(protocol, fields);
            }
            _ => msg.meta.push(block.clone()),
        }
    }
    notes::forget_generated(&mut msg, generated.iter().map(String::as_str));
    msg
}

/// The JSON protocol whose fields a meta block carries, when the block reads
/// back exactly as written (a hand-written block that would not stays text).
fn extension_of(block: &MetaBlock) -> Option<Protocol> {
    let protocol = JSON_PROTOCOLS
        .into_iter()
        .find(|p| p.name() == block.namespace)?;
    let (again, unwritable) = json_meta::entries_of(&json_meta::fields_of(&block.entries));
    (unwritable.is_empty() && again == block.entries).then_some(protocol)
}

/// Writes the model as an envelope of the target version, with what was lost.
/// A Crosstalk message already in the target version is written as it is.
pub fn from_message(msg: &Message, target: Version) -> (Envelope, Vec<Loss>) {
    let mut msg = msg.clone();
    let foreign = msg.protocol != Protocol::Crosstalk;
    let session = ids::made_up_session(
        msg.timestamp.as_deref(),
        msg.thread.as_deref().or(msg.id.as_deref()),
    );
    let mut generated = Vec::new();
    let mut losses = Vec::new();
    let mut env = Envelope {
        version_token: "v1".into(),
        ..Envelope::default()
    };
    if foreign {
        take_kept(&mut msg);
        env.sender = foreign_address(&mut msg, Slot::Sender, &mut generated);
        env.receiver = foreign_address(&mut msg, Slot::Recipient, &mut generated);
        env.message = foreign_id(&mut msg, Slot::Id, &mut generated);
        if target == Version::V1_0 && generated.contains(&Slot::Id) {
            // 1.0 has no ids: nothing to make up.
            generated.retain(|s| *s != Slot::Id);
            env.message = None;
        }
        env.thread = foreign_id(&mut msg, Slot::Thread, &mut generated);
        env.parent = foreign_id(&mut msg, Slot::Parent, &mut generated);
        if let Some(ts) = msg.timestamp.take() {
            protocols::stash(&mut msg, Slot::Timestamp, ts);
        }
        env.intent = Some(match msg.intent.clone() {
            // An ERROR envelope needs a `meta: error` block with its code.
            Some(Intent::Error) if !has_error_code(&msg) => {
                protocols::stash(&mut msg, Slot::Intent, Intent::Error.as_str().to_string());
                Intent::Nack.as_str().to_string()
            }
            Some(i) => i.as_str().to_string(),
            None => {
                generated.push(Slot::Intent);
                Intent::Broadcast.as_str().to_string()
            }
        });
    } else {
        env.sender = msg.sender.clone().unwrap_or_else(|| "UNKNOWN".into());
        env.receiver = msg.recipient.clone().unwrap_or_else(|| "UNKNOWN".into());
        env.message = msg.id.clone();
        env.thread = msg.thread.clone();
        env.parent = msg.parent.clone();
        env.intent = msg.intent.as_ref().map(|i| i.as_str().to_string());
    }
    // A JSON body is written pretty and marked; so is text that an envelope
    // body cannot hold exactly (edge blanks, trailing spaces, CR), as a JSON string.
    let json_body = match &msg.body {
        Body::Text(t) if !survives_as_body(t) => Some(Value::String(t.clone())),
        Body::Text(_) => None,
        Body::Json(v) => Some(v.clone()),
    };
    env.body = Some(json_body.as_ref().map_or_else(
        || msg.body_text(),
        |v| serde_json::to_string_pretty(v).unwrap_or_default(),
    ));
    env.sig = Some(
        msg.signature
            .as_ref()
            .map_or_else(|| "none".to_string(), |s| s.raw.clone()),
    );
    for block in &msg.meta {
        if block.namespace == ENVELOPE_NAMESPACE {
            restore_headers(&mut env, block);
        } else {
            env.meta.push(block.clone());
        }
    }
    for ext in &msg.extensions {
        let (entries, unwritable) = json_meta::entries_of(&ext.fields);
        for field in unwritable {
            let value = ext.fields.get(&field).map(notes::value_text);
            losses.push(notes::loss(
                format!("{}.{field}", ext.protocol),
                value.unwrap_or_default(),
                "the field name cannot be a meta key",
            ));
        }
        if !entries.is_empty() {
            env.meta.push(MetaBlock {
                namespace: ext.protocol.name().to_string(),
                entries,
            });
        }
    }
    let mut notes = Vec::new();
    if json_body.is_some() {
        notes.push((BODY_KEY.to_string(), JSON_BODY.to_string()));
    }
    if !generated.is_empty() {
        let names: Vec<&str> = generated.iter().map(|s| s.name()).collect();
        notes.push((GENERATED_KEY.to_string(), names.join(" ")));
    }
    if !notes.is_empty() {
        // Into the envelope's own `meta: aiproto` block when it has one.
        env.meta_block_mut(AIPROTO_NAMESPACE).entries.extend(notes);
    }
    // The 1.0 → 1.1 upgrade is for Crosstalk sources; the ids of other
    // protocols were mapped above.
    let same_version = !foreign && msg.version == target.as_str();
    match target {
        _ if same_version => {}
        Version::V1_1 if foreign => {}
        Version::V1_1 => upgrade(&mut env),
        Version::V1_0 => downgrade(&mut env, session, &mut losses),
    }
    (env, losses)
}

/// Whether an envelope body gives back exactly this text when read.
fn survives_as_body(text: &str) -> bool {
    let env = Envelope {
        sender: "A".into(),
        receiver: "B".into(),
        version_token: "v1".into(),
        intent: Some("NOTE".into()),
        body: Some(text.to_string()),
        ..Envelope::default()
    };
    super::parse_all(&super::render(&env))
        .first()
        .is_some_and(|p| p.envelope.body.as_deref() == Some(text))
}

fn has_error_code(msg: &Message) -> bool {
    msg.meta_block("error")
        .is_some_and(|b| b.get("Code").is_some())
}

/// A model address as a Crosstalk address. One that cannot be written is
/// kept in the source's extension and written with the offending characters
/// replaced; a missing one is made up.
fn foreign_address(msg: &mut Message, slot: Slot, generated: &mut Vec<Slot>) -> String {
    let Some(value) = msg.slot(slot) else {
        generated.push(slot);
        return "UNKNOWN".into();
    };
    if let Some(address) = address::to_crosstalk(&value) {
        return address;
    }
    let name: String = address::plain(&value)
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "_.-@+".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    protocols::stash(msg, slot, value);
    if name.is_empty() {
        "UNKNOWN".into()
    } else {
        name
    }
}

/// A model id as a Crosstalk id (ULID or UUIDv7). Another id is kept in the
/// source's extension; the envelope gets the ULID of a UUID's bits, or for
/// `message`, which 1.1 requires, one derived from the id and its time
/// ([`ids::derived_ulid`]: the same each time, so an answer finds it).
fn foreign_id(msg: &mut Message, slot: Slot, generated: &mut Vec<Slot>) -> Option<String> {
    let Some(value) = msg.slot(slot) else {
        if slot == Slot::Id {
            generated.push(slot);
            return Some(ids::new_ulid());
        }
        return None;
    };
    if ids::classify(&value).is_some() {
        return Some(value);
    }
    let mapped = ids::as_crosstalk_id(&value);
    // MSP turns the ULID back into its UUID by itself.
    let undone = msg.protocol == Protocol::Msp
        && mapped.as_deref().and_then(ids::as_uuid).as_deref() == Some(value.as_str());
    if !undone {
        protocols::stash(msg, slot, value.clone());
    }
    match (mapped, slot) {
        (Some(id), _) => Some(id),
        (None, Slot::Id) => Some(ids::derived_ulid(
            &value,
            msg.slot(Slot::Timestamp).as_deref(),
        )),
        (None, _) => None,
    }
}

/// The `meta: crosstalk` key keeping each slot's value (see [`stash`]).
const KEPT_KEYS: [(Slot, &str); 7] = [
    (Slot::Id, "Message"),
    (Slot::Thread, "Thread"),
    (Slot::Parent, "Parent"),
    (Slot::Sender, "Sender"),
    (Slot::Recipient, "Receiver"),
    (Slot::Timestamp, "Timestamp"),
    (Slot::Intent, "Intent"),
];

/// Values kept by an earlier conversion win over the model's approximations.
fn take_kept(msg: &mut Message) {
    let Some(at) = msg
        .meta
        .iter()
        .position(|b| b.namespace == ENVELOPE_NAMESPACE)
    else {
        return;
    };
    for (slot, key) in KEPT_KEYS {
        if let Some(value) = msg.meta[at].get(key).map(str::to_string) {
            msg.meta[at].entries.retain(|(k, _)| k != key);
            msg.set_slot(slot, value);
        }
    }
    if msg.meta[at].entries.is_empty() {
        msg.meta.remove(at);
    }
}

/// Keeps the intent a 1.0 envelope was written with, which 1.0 would not get
/// back from its 1.1 replacement, in a `meta: compat` block of the model (as
/// the 1.0 → 1.1 upgrade keeps it in the envelope).
pub fn keep_legacy_intent(msg: &mut Message, name: String) {
    let mut block = MetaBlock::new(COMPAT_NAMESPACE);
    block.entries.push((LEGACY_INTENT_KEY.to_string(), name));
    msg.meta.push(block);
}

/// Keeps a slot's original value in the model's `meta: crosstalk` block.
pub fn stash(msg: &mut Message, slot: Slot, value: String) {
    let key = KEPT_KEYS
        .iter()
        .find(|(s, _)| *s == slot)
        .map_or("Intent", |(_, k)| *k);
    let block = match msg
        .meta
        .iter()
        .position(|b| b.namespace == ENVELOPE_NAMESPACE)
    {
        Some(at) => &mut msg.meta[at],
        None => {
            msg.meta.insert(0, MetaBlock::new(ENVELOPE_NAMESPACE));
            &mut msg.meta[0]
        }
    };
    // The first value kept is the original (a 1.0 intent, say, before an
    // approximation of its 1.1 replacement is kept too).
    if block.get(key).is_none() {
        block.entries.push((key.to_string(), value));
    }
}

fn restore_headers(env: &mut Envelope, block: &MetaBlock) {
    for (key, value) in &block.entries {
        let v = Some(value.clone());
        match key.as_str() {
            "User" => env.user = v,
            "Session" => env.session = v,
            "Context" => env.context = v,
            "Version-Token" => env.version_token = value.clone(),
            SIG_KEY if value == NO_SIG => env.sig = None,
            other => match other.strip_prefix(EXTRA_HEADER_PREFIX) {
                Some(name) => env.extra_headers.push((name.to_string(), value.clone())),
                None => env
                    .meta_block_mut(ENVELOPE_NAMESPACE)
                    .entries
                    .push((key.clone(), value.clone())),
            },
        }
    }
}

/// crosstalk-1.1 "Backward Compatibility": missing ids are generated, legacy
/// intents mapped. STATUS and PATCH have no exact 1.1 intent; the original
/// is kept in `meta: compat` so that going back to 1.0 restores it.
fn upgrade(env: &mut Envelope) {
    if env.version_token == "v1.0" {
        env.version_token = "v1".into();
    }
    if env.message.is_none() {
        env.message = Some(ids::new_ulid());
    }
    if env.thread.is_none() {
        env.thread = Some(ids::new_ulid());
    }
    let Some(current) = env.intent.clone() else {
        return;
    };
    let written = match intent::classify(&current) {
        IntentClass::Legacy { replacement, .. } => replacement.as_str().to_string(),
        _ => current.clone(),
    };
    // Going back to 1.0 renames the intent; keep the 1.0 name when that
    // would not give it back (STATUS, PATCH, or a 1.1 name used in 1.0).
    if intent::as_v1_0(&written).0 != current {
        env.meta_block_mut(COMPAT_NAMESPACE)
            .entries
            .push((LEGACY_INTENT_KEY.into(), current));
    }
    env.intent = Some(written);
}

/// Crosstalk 1.0 has no ids and no meta blocks: each is reported as a loss.
/// Its intents are the five 1.0 names ([`intent::as_v1_0`]); any other is
/// written as the nearest and reported. It has a session: one is made from
/// the message when it has none (`session`, see [`ids::made_up_session`]).
/// A 1.0 intent kept in `meta: compat` is written as it was.
fn downgrade(env: &mut Envelope, session: String, losses: &mut Vec<Loss>) {
    if env.version_token == "v1.1" {
        env.version_token = "v1".into();
    }
    let legacy = env
        .meta_block(COMPAT_NAMESPACE)
        .and_then(|b| b.get(LEGACY_INTENT_KEY))
        .map(str::to_string);
    let kept = legacy.is_some();
    if let Some(current) = legacy.or_else(|| env.intent.clone()) {
        let (written, exact) = if kept {
            (current.as_str(), true)
        } else {
            intent::as_v1_0(&current)
        };
        if !exact {
            losses.push(Loss {
                field: "intent".into(),
                value: current.clone(),
                reason: format!("Crosstalk 1.0 has no {current} intent; written as {written}"),
            });
        }
        env.intent = Some(written.to_string());
    }
    env.session.get_or_insert(session);
    for (name, slot) in [
        ("thread", &mut env.thread),
        ("parent", &mut env.parent),
        ("message", &mut env.message),
    ] {
        if let Some(value) = slot.take() {
            losses.push(Loss {
                field: name.into(),
                value,
                reason: "Crosstalk 1.0 has no threading headers".into(),
            });
        }
    }
    for block in std::mem::take(&mut env.meta) {
        if block.namespace == COMPAT_NAMESPACE {
            continue; // consumed above
        }
        for (key, value) in block.entries {
            losses.push(Loss {
                field: format!("meta.{}.{key}", block.namespace),
                value,
                reason: "Crosstalk 1.0 has no meta blocks".into(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::crosstalk::parse_all;

    const V1_0: &str = "[[CLAUDE→CHATGPT v1]]\nuser: kalle\nsession: 2025-10-09T16Z abc123\ncontext: test\nintent: PATCH\nx-trace: 7\nbody: |\n  diff here\nsig: none\n[[END]]\n";

    #[test]
    fn model_round_trip_is_identity() {
        let env = parse_all(V1_0).remove(0).envelope;
        let (back, losses) = from_message(&to_message(&env), Version::V1_0);
        assert_eq!(back, env);
        assert!(losses.is_empty());
    }

    #[test]
    fn other_entries_of_an_aiproto_block_are_kept() {
        let text = "[[A→B v1]]\nmessage: 01J9J3DBC4N7P2Q3R5S7T9W1V2\nintent: REQUEST\n\nmeta: aiproto\nGenerated: timestamp\nX-Note: keep me\n\nbody: |\n  hi\nsig: none\n[[END]]\n";
        let msg = to_message(&parse_all(text).remove(0).envelope);
        let kept = msg.meta_block(AIPROTO_NAMESPACE).unwrap();
        assert_eq!(
            kept.entries,
            vec![("X-Note".to_string(), "keep me".to_string())]
        );
    }

    #[test]
    fn upgrade_then_downgrade_restores_the_1_0_envelope() {
        let env = parse_all(V1_0).remove(0).envelope;
        let (up, _) = from_message(&to_message(&env), Version::V1_1);
        assert_eq!(up.intent.as_deref(), Some("REQUEST"));
        assert_eq!(up.version(), Version::V1_1);
        let (down, losses) = from_message(&to_message(&up), Version::V1_0);
        assert_eq!(down, env);
        assert_eq!(
            losses.iter().map(|l| l.field.as_str()).collect::<Vec<_>>(),
            vec!["thread", "message"]
        );
    }
}
