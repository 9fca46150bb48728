//! Checks a parsed envelope against the Crosstalk 1.0/1.1 rules beyond syntax:
//! required headers, the intent registry, ids, addresses and the signature shape.
//! The meta-block rules live in `meta_rules`.

use chrono::{DateTime, Utc};

use super::address;
use super::envelope::{Envelope, Version};
use super::intent::{self, IntentClass};
use super::meta_rules;
use super::parse::ParsedEnvelope;
use super::sig_line::{self, ALGORITHMS, SigLine};
use crate::chars;
use crate::diag::Diagnostic;
use crate::ids;

/// Runs every check; `now` decides whether a privacy `Expires` is past.
pub fn check(parsed: &ParsedEnvelope, now: DateTime<Utc>) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let env = &parsed.envelope;
    check_route(parsed, &mut diags);
    check_required(parsed, &mut diags);
    check_placeholders(parsed, &mut diags);
    check_primer_example(parsed, &mut diags);
    check_intent(parsed, &mut diags);
    check_ids(parsed, &mut diags);
    check_sig(parsed, &mut diags);
    check_controls(parsed, &mut diags);
    check_hash(parsed, &mut diags);
    check_digest(parsed, &mut diags);
    meta_rules::check(parsed, now, &mut diags);
    if env.intent.as_deref() == Some("REVOKE") && matches!(env.sig.as_deref(), None | Some("none"))
    {
        diags.push(
            Diagnostic::warning(
                "CT-SIG-REQUIRED",
                "a REVOKE envelope should be signed so the receiver can verify it",
            )
            .at(parsed.locations.header("intent"), 6)
            .with_hint("sign it with `aiproto sign`"),
        );
    }
    diags
}

/// The `hash:` line, when there is one: the CRC-32 of the envelope from its
/// header line to its `sig:` line, in canonical form or as it came. A
/// mismatch means the paste was cut or edited.
fn check_hash(parsed: &ParsedEnvelope, diags: &mut Vec<Diagnostic>) {
    let env = &parsed.envelope;
    let (Some(said), Some(at)) = (env.hash.as_deref(), parsed.locations.hash) else {
        return;
    };
    // Over the canonical form, or over the lines as they came (a layout
    // other than the canonical one, intact).
    let expected = super::render::expected_hash(env);
    let same = |hash: &str| {
        u32::from_str_radix(said, 16)
            .ok()
            .zip(u32::from_str_radix(hash, 16).ok())
            .is_some_and(|(a, b)| a == b)
    };
    let matches = same(&expected) || parsed.raw_hash.as_deref().is_some_and(same);
    if !matches {
        diags.push(
            Diagnostic::error(
                "CT-HASH-MISMATCH",
                format!(
                    "the hash: line says `{said}`, the envelope from its header line to its sig: line hashes to `{expected}` (CRC-32)"
                ),
            )
            .at(at, said.chars().count().max(1))
            .with_hint("the paste was cut or edited on the way: copy the whole reply again"),
        );
    }
}

/// A `DIGEST:` field of the 1.1-rc1 roadmap (`sha-256=:BASE64:`, the
/// SHA-256 of the body): checked against the body as aiproto reads it —
/// its lines without their indentation, joined by LF, with or without a
/// final line end. The roadmap does not say which bytes, so a mismatch is
/// a warning; a digest in another algorithm is not checked.
fn check_digest(parsed: &ParsedEnvelope, diags: &mut Vec<Diagnostic>) {
    use base64::Engine;
    use sha2::Digest;
    let env = &parsed.envelope;
    let Some((_, value)) = env.extra_headers.iter().find(|(k, _)| k == "DIGEST") else {
        return;
    };
    let Some(encoded) = value
        .strip_prefix("sha-256=:")
        .and_then(|v| v.strip_suffix(':'))
    else {
        return;
    };
    let body = env.body.as_deref().unwrap_or("");
    let matches = [body.to_string(), format!("{body}\n")].iter().any(|bytes| {
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(bytes.as_bytes()))
            == encoded
    });
    if !matches {
        let expected =
            base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(body.as_bytes()));
        diags.push(
            Diagnostic::warning(
                "CT-DIGEST-MISMATCH",
                format!(
                    "DIGEST does not match the body: the body's SHA-256 is `sha-256=:{expected}:`"
                ),
            )
            .at(parsed.locations.header_line, 2)
            .with_hint(
                "the body was changed, or the DIGEST was computed over other bytes (the 1.1-rc1 roadmap does not say which)",
            ),
        );
    }
}

/// Control characters in the text (an escape sequence can clear a line or
/// hide text on the terminal that shows the envelope): a warning naming
/// the first one of the body, and of each header or meta value.
fn check_controls(parsed: &ParsedEnvelope, diags: &mut Vec<Diagnostic>) {
    let env = &parsed.envelope;
    let control = |text: &str| {
        text.chars()
            .find(|c| c.is_control() && *c != '\t' && *c != '\n')
    };
    let mut places: Vec<(String, &str, crate::diag::Pos)> = parsed
        .locations
        .headers
        .iter()
        .filter_map(|(name, at)| {
            env.header(name)
                .map(|v| (format!("header `{name}`"), v, *at))
        })
        .collect();
    if let (Some(body), Some(at)) = (env.body.as_deref(), parsed.locations.body) {
        places.push(("the body".into(), body, at));
    }
    if let (Some(sig), Some(at)) = (env.sig.as_deref(), parsed.locations.sig) {
        places.push(("the sig: line".into(), sig, at));
    }
    for block in &env.meta {
        for (key, value) in &block.entries {
            places.push((
                format!("meta `{}` `{key}`", block.namespace),
                value,
                parsed.locations.header_line,
            ));
        }
    }
    for (what, text, at) in places {
        if let Some(c) = control(text) {
            diags.push(
                Diagnostic::warning(
                    "CT-CONTROL-CHAR",
                    format!("{what} holds the control character {}", chars::describe(c)),
                )
                .at(at, 1)
                .with_hint("aiproto shows it escaped; a terminal showing the raw text may obey it"),
            );
        }
    }
}

fn check_route(parsed: &ParsedEnvelope, diags: &mut Vec<Diagnostic>) {
    let env = &parsed.envelope;
    let loc = &parsed.locations;
    for (role, value, at) in [
        ("sender", &env.sender, loc.sender),
        ("receiver", &env.receiver, loc.receiver),
    ] {
        if value.is_empty() {
            continue; // reported by the parser
        }
        // A POLL may address several receivers: `[[HUMAN→CLAUDE,GPT v1]]`;
        // a message always has one sender.
        if role == "sender" && value.contains(',') {
            diags.push(
                Diagnostic::error(
                    "CT-SENDER-LIST",
                    format!("the sender `{value}` names several senders; only the receiver may list several"),
                )
                .at(at, value.chars().count())
                .with_hint("a reply to a POLL comes from one of its receivers: `aiproto compose --reply-to … --from NAME`"),
            );
            continue;
        }
        if let Some(note) = chars::lookalike_identity(value) {
            diags.push(
                Diagnostic::warning(
                    "CT-ADDR-LOOKALIKE",
                    format!("{role} `{value}` could pass for another name: {note}"),
                )
                .at(at, value.chars().count())
                .with_hint("check who sent it: a look-alike letter makes a different sender"),
            );
        }
        let invalid = value
            .split(',')
            .map(str::trim)
            .find_map(|a| address::check(a).err().map(|why| (a, why)));
        if let Some((address, why)) = invalid {
            let value = if address == value {
                value.to_string()
            } else {
                format!("{value}` (`{address}`")
            };
            diags.push(
                Diagnostic::error(
                    "CT-ADDR-INVALID",
                    chars::with_explanation(format!("{role} `{value}`: {why}"), address),
                )
                .at(at, value.chars().count())
                .with_hint("use a simple name (CLAUDE) or an address such as claude://session/abc"),
            );
        }
    }
}

/// Required in 1.0 and 1.1: the header line, `intent`, `body`, `[[END]]`.
/// Required in 1.1: `message` (replies point at it). Recommended: `session`,
/// `sig`, and `thread` in 1.1.
fn check_required(parsed: &ParsedEnvelope, diags: &mut Vec<Diagnostic>) {
    let env = &parsed.envelope;
    let loc = &parsed.locations;
    if env.intent.is_none() && !parsed.legacy_response {
        diags.push(
            Diagnostic::error("CT-HEADER-MISSING", "required header `intent` is missing")
                .at(loc.header_line, 2)
                .with_hint("add e.g. `intent: REQUEST` before the body"),
        );
    }
    if env.body.is_none() {
        diags.push(
            Diagnostic::error("CT-BODY-MISSING", "the envelope has no `body: |` block")
                .at(loc.end, 1)
                .with_hint("add `body: |` followed by the message indented by two spaces"),
        );
    }
    let v1_1 = env.version() == Version::V1_1;
    if v1_1 && env.message.is_none() {
        diags.push(
            Diagnostic::error("CT-HEADER-MISSING", "a 1.1 envelope needs a `message` id")
                .at(loc.header_line, 2)
                .with_hint("add `message: <ULID>` (`aiproto id` makes one)"),
        );
    }
    let recommended = [
        ("session", env.session.is_none()),
        ("thread", v1_1 && env.thread.is_none()),
    ];
    for (name, missing) in recommended {
        if missing {
            diags.push(
                Diagnostic::warning(
                    "CT-HEADER-RECOMMENDED",
                    format!("header `{name}` is missing"),
                )
                .at(loc.header_line, 2),
            );
        }
    }
    if env.sig.is_none() {
        diags.push(
            Diagnostic::warning(
                "CT-SIG-MISSING",
                "no `sig:` line; write `sig: none` for an unsigned envelope",
            )
            .at(loc.end, 1),
        );
    }
}

/// An envelope larger than `--max-message-bytes` (from its header line to
/// `[[END]]`), as the JSON protocols refuse a document that large.
pub fn check_size(block: &super::extract::Block, max_message_bytes: usize) -> Option<Diagnostic> {
    let size: usize = block.lines.iter().map(|l| l.text.len() + 1).sum();
    let first = block.lines.first()?;
    (size > max_message_bytes).then(|| {
        Diagnostic::error(
            "CT-TOO-LARGE",
            format!("the envelope is {size} bytes, over the limit of {max_message_bytes}"),
        )
        .at(crate::diag::Pos::new(first.number, 1), 2)
        .with_hint("raise --max-message-bytes if it is meant to be this large")
    })
}

/// Whether a header value is a template placeholder (`<original-thread>`, `{user}`).
fn is_placeholder(value: &str) -> bool {
    (value.starts_with('<') && value.contains('>'))
        || (value.starts_with('{') && value.contains('}'))
}

/// Template placeholders (`<original-thread>`, `{user}`) left in header values.
fn check_placeholders(parsed: &ParsedEnvelope, diags: &mut Vec<Diagnostic>) {
    for (name, at) in &parsed.locations.headers {
        let Some(value) = parsed.envelope.header(name) else {
            continue;
        };
        if is_placeholder(value) {
            diags.push(
                Diagnostic::error(
                    "CT-PLACEHOLDER",
                    format!("`{name}` holds a template placeholder, not a value"),
                )
                .at(*at, value.chars().count()),
            );
        }
    }
}

/// The example envelope of aiproto's primer (its body is the primer's
/// placeholder text) is never a message: what is on the clipboard is the
/// primer, not the assistant's answer, when the person forgot to copy it.
fn check_primer_example(parsed: &ParsedEnvelope, diags: &mut Vec<Diagnostic>) {
    let Some(body) = parsed.envelope.body.as_deref() else {
        return;
    };
    if body.trim_end() != super::primer::EXAMPLE_BODY {
        return;
    }
    let at = parsed
        .locations
        .body
        .unwrap_or(parsed.locations.header_line);
    diags.push(
        Diagnostic::error(
            "CT-PRIMER-EXAMPLE",
            "this is the example envelope of aiproto's primer, not a reply: its body is the primer's placeholder",
        )
        .at(at, 1)
        .with_hint("copy the assistant's answer (the clipboard still holds the primer you pasted into the chat)"),
    );
}

fn check_intent(parsed: &ParsedEnvelope, diags: &mut Vec<Diagnostic>) {
    let Some(value) = parsed.envelope.intent.as_deref() else {
        return;
    };
    let at = parsed.locations.header("intent");
    let len = value.chars().count();
    match intent::classify(value) {
        IntentClass::Registered(_) => {}
        IntentClass::Legacy { advice, .. } => diags.push(
            Diagnostic::warning(
                "CT-INTENT-LEGACY",
                format!("intent {value} is deprecated since 1.1: {advice}"),
            )
            .at(at, len)
            .with_hint("`aiproto convert --to crosstalk@1.1` migrates it"),
        ),
        IntentClass::Unknown if is_placeholder(value) => {} // reported as a placeholder
        IntentClass::Unknown => {
            let upper = value.to_ascii_uppercase();
            let hint = if intent::classify(&upper) != IntentClass::Unknown {
                format!("intents are upper case: {upper}")
            } else {
                format!("known intents: {}", intent::all_names()[..11].join(", "))
            };
            diags.push(
                Diagnostic::error(
                    "CT-INTENT-UNKNOWN",
                    chars::with_explanation(format!("unknown intent `{value}`"), value),
                )
                .at(at, len)
                .with_hint(hint),
            );
        }
    }
}

fn check_ids(parsed: &ParsedEnvelope, diags: &mut Vec<Diagnostic>) {
    let env: &Envelope = &parsed.envelope;
    for name in ["thread", "parent", "message"] {
        let Some(value) = env.header(name) else {
            continue;
        };
        if is_placeholder(value) {
            continue; // reported as a placeholder
        }
        if ids::classify(value).is_none() {
            let at = parsed.locations.header(name);
            let mut message = format!("`{name}` is not a ULID or a UUIDv7: `{value}`");
            // Where it goes wrong, for an id meant as a ULID, the caret on it.
            let (at, length) =
                match ids::why_not_ulid(value).filter(|_| chars::explain(value).is_none()) {
                    Some((why, place)) if place > 0 || why.starts_with("character") => {
                        message = format!("{message}: {why}");
                        (crate::diag::Pos::new(at.line, at.column + place), 1)
                    }
                    Some((why, _)) => {
                        message = format!("{message}: {why}");
                        (at, value.chars().count())
                    }
                    None => (at, value.chars().count()),
                };
            diags.push(
                Diagnostic::error("CT-ID-INVALID", chars::with_explanation(message, value))
                    .at(at, length)
                    .with_hint("ids are 26-character ULIDs (01J9J3D3M6A4M3WQX8G1ZQ0S7K) or UUIDv7; `aiproto id` makes one"),
            );
        }
    }
    if env.parent.is_some() && env.parent == env.message {
        diags.push(
            Diagnostic::error(
                "CT-ID-SELF-PARENT",
                "`parent` is the envelope's own `message` id",
            )
            .at(parsed.locations.header("parent"), 26),
        );
    }
}

fn check_sig(parsed: &ParsedEnvelope, diags: &mut Vec<Diagnostic>) {
    let (Some(value), Some(at)) = (parsed.envelope.sig.as_deref(), parsed.locations.sig) else {
        return;
    };
    let len = value.chars().count();
    match sig_line::parse(value) {
        Err(why) => diags.push(
            Diagnostic::error("CT-SIG-MALFORMED", format!("malformed sig: {why}"))
                .at(at, len)
                .with_hint("write `sig: none`, `sig: ed25519:pkid=<key id>;sig=<base64>` or sign with `aiproto sign`"),
        ),
        Ok(SigLine::Keyed { algorithm, .. }) if !ALGORITHMS.contains(&algorithm.as_str()) => diags.push(
            Diagnostic::warning("CT-SIG-ALGORITHM", format!("signature algorithm `{algorithm}` is not ed25519 or secp256r1"))
                .at(at, algorithm.chars().count()),
        ),
        Ok(_) => {}
    }
}
