//! The promise of `convert`, checked: every message to every protocol and
//! version and back, the written message passes its target's checks; with
//! nothing reported lost the round trip gives back the original exactly
//! (JSON: equal values; Crosstalk: the same canonical text); and every
//! reported loss is really missing after it. The tests, the property tests
//! and the fuzzer all hold conversions to it.

use super::{WriteOptions, convert};
use crate::model::{Loss, Message, Slot};
use crate::protocols::{Found, Protocol, ProtocolSpec, ReadOptions};

/// Every protocol and version aiproto writes.
fn targets() -> Vec<ProtocolSpec> {
    Protocol::ALL
        .iter()
        .flat_map(|p| {
            p.versions().iter().map(|v| ProtocolSpec {
                protocol: *p,
                version: Some(v),
            })
        })
        .collect()
}

pub fn read(text: &str, protocol: Protocol) -> Vec<Found> {
    protocol.read(text, &ReadOptions::default())
}

pub fn errors(found: &Found) -> String {
    found
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.code, d.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Whether two texts of a protocol say the same. A Crosstalk 1.0 session
/// that aiproto made up says nothing (reading forgets it).
fn same(a: &str, b: &str, protocol: Protocol) -> bool {
    let said = |t: &str| -> String {
        t.lines()
            .filter(|l| {
                !l.strip_prefix("session: ")
                    .is_some_and(crate::ids::is_made_up_session)
            })
            .map(|l| format!("{l}\n"))
            .collect()
    };
    match protocol {
        Protocol::Crosstalk => said(a) == said(b),
        _ => {
            let parse = |t: &str| serde_json::from_str::<serde_json::Value>(t).ok();
            parse(a).is_some() && parse(a) == parse(b)
        }
    }
}

/// Whether a reported loss is really gone from the message read back.
fn is_real(
    loss: &Loss,
    back: &Message,
    back_text: &str,
    canonical: &str,
    protocol: Protocol,
) -> bool {
    let field = loss.field.as_str();
    if field == "signature" {
        return back.signature.as_ref().is_none_or(|s| s.raw != loss.value);
    }
    if let Some(slot) = Slot::parse(field) {
        return back.slot(slot).as_deref() != Some(loss.value.as_str());
    }
    if let Some(rest) = field.strip_prefix("meta.")
        && let Some((namespace, key)) = rest.split_once('.')
    {
        return !back.meta.iter().any(|b| {
            b.namespace == namespace && b.entries.iter().any(|(k, v)| k == key && *v == loss.value)
        });
    }
    if let Some((ns, key)) = field.split_once('.')
        && let Some(p) = Protocol::ALL.iter().find(|p| p.name() == ns)
    {
        return back
            .extension(*p)
            .and_then(|e| e.get(key))
            .is_none_or(|v| crate::model::notes::value_text(v) != loss.value);
    }
    // Anything else (a payload field filled in): the round trip is not the identity.
    !same(back_text, canonical, protocol)
}

/// What a Crosstalk 1.0 envelope written from another protocol or version
/// has that the upstream 1.0 readers refuse: an intent outside the five 1.0
/// names, or no session. (From a 1.0 source, its own intent comes back.)
fn not_upstream_1_0(source: &Found, written: &Found) -> Option<String> {
    use crate::protocols::{Value, crosstalk};
    let Value::Crosstalk(parsed) = &written.value else {
        return None;
    };
    if written.version != "1.0" || source.version == "1.0" && source.protocol == Protocol::Crosstalk
    {
        return None;
    }
    let env = &parsed.envelope;
    let intent = env.intent.as_deref().unwrap_or_default();
    if !crosstalk::intent::V1_0_NAMES.contains(&intent) {
        return Some(format!("1.0 written with the intent {intent}"));
    }
    env.session
        .is_none()
        .then(|| "1.0 written without a session".to_string())
}

/// Converts one message to every target and back; `Err` says what went wrong.
pub fn check_message(found: &Found) -> Result<(), String> {
    let source = found.spec();
    let options = WriteOptions::default();
    let canonical = convert(found, source, options)
        .ok_or("no canonical form")?
        .text;
    let original = read(&canonical, source.protocol)
        .into_iter()
        .next()
        .ok_or("canonical form not read back")?;
    for target in targets() {
        let what = format!(
            "{}@{} → {}@{}",
            source.protocol,
            found.version,
            target.protocol,
            target.version_or_default()
        );
        let out = convert(&original, target, options).ok_or(format!("{what}: not converted"))?;
        let written = read(&out.text, target.protocol);
        let [written] = written.as_slice() else {
            return Err(format!(
                "{what}: {} messages written:\n{}",
                written.len(),
                out.text
            ));
        };
        if !written.is_valid(false) {
            return Err(format!(
                "{what}: invalid output ({}):\n{}",
                errors(written),
                out.text
            ));
        }
        if written.version != target.version_or_default() {
            return Err(format!("{what}: written as version {}", written.version));
        }
        if let Some(problem) = not_upstream_1_0(found, written) {
            return Err(format!("{what}: {problem}:\n{}", out.text));
        }
        let back =
            convert(written, source, options).ok_or(format!("{what}: not converted back"))?;
        let back_found = read(&back.text, source.protocol);
        let back_msg = back_found
            .first()
            .and_then(Found::to_message)
            .ok_or(format!(
                "{what}: the way back is unreadable:\n{}",
                back.text
            ))?;
        // HSP with no version asked goes back to the version it came from.
        if source.protocol == Protocol::Hsp
            && target.protocol != Protocol::Hsp
            && out.losses.is_empty()
        {
            let unasked = ProtocolSpec {
                protocol: Protocol::Hsp,
                version: None,
            };
            let again =
                convert(written, unasked, options).ok_or(format!("{what}: not converted back"))?;
            if !same(&again.text, &canonical, source.protocol) {
                return Err(format!(
                    "{what}: back with no version asked differs\n--- original\n{canonical}--- back\n{}",
                    again.text
                ));
            }
        }
        if out.losses.is_empty() {
            if !same(&back.text, &canonical, source.protocol) {
                return Err(format!(
                    "{what}: nothing reported lost, yet the round trip differs\n--- original\n{canonical}--- via target\n{}--- back\n{}",
                    out.text, back.text
                ));
            }
        } else if let Some(fake) = out
            .losses
            .iter()
            .find(|l| !is_real(l, &back_msg, &back.text, &canonical, source.protocol))
        {
            return Err(format!(
                "{what}: reported {fake:?} as lost, but it came back\n--- via target\n{}--- back\n{}",
                out.text, back.text
            ));
        }
    }
    Ok(())
}
