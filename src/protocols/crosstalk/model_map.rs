//! Crosstalk ⇄ the shared model, and the 1.0 ⇄ 1.1 migration that happens on
//! the way out (ids generated, legacy intents mapped, what 1.0 cannot hold reported).
//!
//! Headers with no home in the model (user, session, context, unknown
//! headers, the version token) travel in a `meta: crosstalk` block of the
//! model so that Crosstalk → model → Crosstalk is the identity.

use super::envelope::{Envelope, Version};
use super::intent::{self, IntentClass};
use crate::ids;
use crate::model::{Body, Intent, Loss, Message, MetaBlock, Signature};
use crate::protocols::Protocol;

/// The model meta namespace holding Crosstalk-only headers.
pub const ENVELOPE_NAMESPACE: &str = "crosstalk";
/// The envelope meta namespace recording a 1.0 intent that 1.1 cannot say exactly.
pub const COMPAT_NAMESPACE: &str = "compat";
const LEGACY_INTENT_KEY: &str = "Legacy-Intent";
const EXTRA_HEADER_PREFIX: &str = "Header-";

/// Reads an envelope into the shared model.
pub fn to_message(env: &Envelope) -> Message {
    let mut own = MetaBlock::new(ENVELOPE_NAMESPACE);
    for (key, value) in [
        ("User", &env.user),
        ("Session", &env.session),
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
    if !env.version_token.is_empty() && env.version_token != "v1" {
        own.entries
            .push(("Version-Token".to_string(), env.version_token.clone()));
    }
    let mut meta = Vec::with_capacity(env.meta.len() + 1);
    if !own.entries.is_empty() {
        meta.push(own);
    }
    meta.extend(env.meta.iter().cloned());
    Message {
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
        meta,
        signature: env.sig.clone().map(|raw| Signature { raw }),
    }
}

/// Writes the model as an envelope of the target version, with what was lost.
/// A Crosstalk message already in the target version is written as it is.
pub fn from_message(msg: &Message, target: Version) -> (Envelope, Vec<Loss>) {
    let mut env = Envelope {
        sender: msg.sender.clone().unwrap_or_else(|| "UNKNOWN".into()),
        receiver: msg.recipient.clone().unwrap_or_else(|| "UNKNOWN".into()),
        version_token: "v1".into(),
        thread: msg.thread.clone(),
        parent: msg.parent.clone(),
        message: msg.id.clone(),
        intent: msg.intent.as_ref().map(|i| i.as_str().to_string()),
        body: Some(msg.body_text()),
        sig: Some(
            msg.signature
                .as_ref()
                .map_or_else(|| "none".to_string(), |s| s.raw.clone()),
        ),
        ..Envelope::default()
    };
    for block in &msg.meta {
        if block.namespace == ENVELOPE_NAMESPACE {
            restore_headers(&mut env, block);
        } else {
            env.meta.push(block.clone());
        }
    }
    let mut losses = Vec::new();
    let same_version = msg.protocol == Protocol::Crosstalk && msg.version == target.as_str();
    match target {
        _ if same_version => {}
        Version::V1_1 => upgrade(&mut env),
        Version::V1_0 => downgrade(&mut env, &mut losses),
    }
    (env, losses)
}

fn restore_headers(env: &mut Envelope, block: &MetaBlock) {
    for (key, value) in &block.entries {
        let v = Some(value.clone());
        match key.as_str() {
            "User" => env.user = v,
            "Session" => env.session = v,
            "Context" => env.context = v,
            "Version-Token" => env.version_token = value.clone(),
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
    if let IntentClass::Legacy { replacement, .. } = intent::classify(&current) {
        env.intent = Some(replacement.as_str().to_string());
        if intent::downgrade(replacement.as_str()) != Some(current.as_str()) {
            env.meta_block_mut(COMPAT_NAMESPACE)
                .entries
                .push((LEGACY_INTENT_KEY.into(), current));
        }
    }
}

/// Crosstalk 1.0 has no ids and no meta blocks: each is reported as a loss.
fn downgrade(env: &mut Envelope, losses: &mut Vec<Loss>) {
    if env.version_token == "v1.1" {
        env.version_token = "v1".into();
    }
    let legacy = env
        .meta_block(COMPAT_NAMESPACE)
        .and_then(|b| b.get(LEGACY_INTENT_KEY))
        .map(str::to_string);
    if let Some(current) = env.intent.clone() {
        env.intent = Some(
            legacy.unwrap_or_else(|| intent::downgrade(&current).map_or(current, str::to_string)),
        );
    }
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
