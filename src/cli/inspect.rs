//! `aiproto inspect`: a readable view of each message.

use std::io::{BufWriter, Write};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::args::{GlobalArgs, InspectArgs};
use super::common;
use crate::exit::CmdResult;
use crate::ids;
use crate::model::{Body, Message};
use crate::output::escape_controls as esc;
use crate::output::{self, Format, Painter, Stream};
use crate::protocols::Found;
use crate::protocols::crosstalk::model_map::ENVELOPE_NAMESPACE;
use crate::sign::claim::ClaimError;
use crate::sign::keystore::Keystore;
use crate::sign::trust::{Trust, VerifyError};

/// `--format json` for CSDL and MSP, which have no shared-model form yet:
/// the document itself (CSDL in its expanded spelling).
#[derive(Debug, Serialize)]
struct InspectedDocument<'a> {
    source: &'a str,
    index: usize,
    line: usize,
    valid: bool,
    protocol: crate::protocols::Protocol,
    version: &'a str,
    document: serde_json::Value,
}

/// A CSDL document in full names, or an MSP signal with its fields and the
/// prose the offline decoder writes from it.
fn inspect_json_document(
    out: &mut impl Write,
    p: &Painter,
    g: &GlobalArgs,
    source: &str,
    found: &Found,
    valid: bool,
    signature: &str,
) -> std::io::Result<()> {
    use crate::protocols::Value;
    let document = match &found.value {
        Value::Csdl(Some(d)) => crate::protocols::csdl::codes::expand(&d.json),
        Value::Msp(Some(d)) => d.json.clone(),
        _ => return Ok(()),
    };
    if g.format == Format::Json {
        return output::write_json_line(
            out,
            &InspectedDocument {
                source,
                index: found.index,
                line: found.line,
                valid,
                protocol: found.protocol,
                version: &found.version,
                document,
            },
        );
    }
    let verdict = if valid {
        p.good("valid")
    } else {
        p.error("invalid")
    };
    writeln!(
        out,
        "{} {} {} ({verdict})",
        p.bold(&format!("{}:{}", esc(source), found.line)),
        found.protocol,
        found.version
    )?;
    if found.protocol == crate::protocols::Protocol::Csdl {
        writeln!(out, "  signature: {signature}")?;
    }
    if found.protocol == crate::protocols::Protocol::Msp {
        let prose = crate::protocols::msp::offline::decode(&document, "professional");
        writeln!(out, "  {}", p.dim(&esc(&prose)))?;
    }
    let pretty = serde_json::to_string_pretty(&document).unwrap_or_default();
    // JSON escapes control characters itself: the pretty text is safe.
    for line in pretty.lines() {
        writeln!(out, "  {line}")?;
    }
    writeln!(out)
}

/// `--format json`: the message in the shared model, with where it came from.
#[derive(Debug, Serialize)]
struct Inspected<'a> {
    source: &'a str,
    index: usize,
    line: usize,
    valid: bool,
    message: &'a Message,
}

pub fn run(args: &InspectArgs, g: &GlobalArgs) -> CmdResult {
    let p = Painter::new(g.color, Stream::Stdout);
    let mut out = BufWriter::new(std::io::stdout().lock());
    let trust = Keystore::open()
        .ok()
        .map(|store| Trust::Store { store, tofu: false });
    let status = common::each_message(
        &args.input,
        &Default::default(),
        &mut |_, _| {},
        &mut |name, found| {
            let valid = found.is_valid(false);
            // CSDL and MSP read best as their own document (full names; the
            // signal with its decoded prose) rather than as the shared model.
            let document = matches!(
                found.value,
                crate::protocols::Value::Csdl(_) | crate::protocols::Value::Msp(_)
            );
            let msg = found.to_message().filter(|_| !document);
            let Some(msg) = msg else {
                let signature = signature_state(&p, found, trust.as_ref());
                inspect_json_document(&mut out, &p, g, name, found, valid, &signature)?;
                return Ok(());
            };
            match g.format {
                Format::Json => output::write_json_line(
                    &mut out,
                    &Inspected {
                        source: name,
                        index: found.index,
                        line: found.line,
                        valid,
                        message: &msg,
                    },
                )?,
                Format::Human => {
                    let errors = found.diagnostics.iter().filter(|d| d.is_error()).count();
                    let warnings = found.diagnostics.len() - errors;
                    let verdict = match (errors, warnings) {
                        (0, 0) => p.good("valid"),
                        (0, w) => p.warning(&format!("valid, {w} warning(s)")),
                        (e, _) => p.error(&format!("invalid, {e} error(s)")),
                    };
                    writeln!(
                        out,
                        "{} {} {} · {}:{}-{} · {verdict}",
                        p.accent("●"),
                        p.bold(found.protocol.name()),
                        esc(&found.version),
                        esc(name),
                        found.line,
                        found.end_line
                    )?;
                    write_message(
                        &mut out,
                        &p,
                        &msg,
                        &signature_state(&p, found, trust.as_ref()),
                    )?;
                    writeln!(out)?;
                }
            }
            Ok(())
        },
    )?;
    out.flush()?;
    Ok(status)
}

fn write_message(
    out: &mut impl Write,
    p: &Painter,
    msg: &Message,
    signature: &str,
) -> std::io::Result<()> {
    let row = |out: &mut dyn Write, label: &str, value: &str| {
        writeln!(out, "  {:<10}{value}", p.dim(label))
    };
    let none = p.dim("—");
    // Everything from the message is shown with control characters escaped.
    let shown = |v: &Option<String>| v.as_deref().map_or(none.clone(), |v| esc(v).into_owned());
    row(out, "from", &shown(&msg.sender))?;
    row(out, "to", &shown(&msg.recipient))?;
    row(
        out,
        "intent",
        &msg.intent
            .as_ref()
            .map_or(none.clone(), |i| p.bold(&esc(i.as_str()))),
    )?;
    for (label, id) in [
        ("thread", &msg.thread),
        ("parent", &msg.parent),
        ("message", &msg.id),
    ] {
        let value = id.as_deref().map_or(none.clone(), |id| {
            match ids::timestamp_ms(id)
                .and_then(|ms| DateTime::<Utc>::from_timestamp_millis(ms as i64))
            {
                Some(t) => format!(
                    "{}  {}",
                    esc(id),
                    p.dim(&format!("({})", t.format("%Y-%m-%d %H:%M:%S UTC")))
                ),
                None => esc(id).into_owned(),
            }
        });
        row(out, label, &value)?;
    }
    // Protocol headers the model keeps in its own namespace read best as rows.
    if let Some(own) = msg.meta_block(ENVELOPE_NAMESPACE) {
        for (k, v) in &own.entries {
            row(out, &esc(&k.to_lowercase()), &esc(v))?;
        }
    }
    for block in msg
        .meta
        .iter()
        .filter(|b| b.namespace != ENVELOPE_NAMESPACE)
    {
        writeln!(
            out,
            "  {} {}",
            p.dim("meta"),
            p.accent(&esc(&block.namespace))
        )?;
        for (k, v) in &block.entries {
            writeln!(out, "    {}: {}", esc(k), esc(v))?;
        }
    }
    let body = match &msg.body {
        Body::Text(t) => t.clone(),
        Body::Json(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
    };
    writeln!(out, "  {}", p.dim("body"))?;
    for line in body.lines() {
        writeln!(out, "    {} {}", p.dim("│"), esc(line))?;
    }
    row(out, "signature", signature)
}

/// The signature state of a message, checked against the keystore's own and
/// pinned keys (nothing is pinned by looking).
fn signature_state(p: &Painter, found: &Found, trust: Option<&Trust>) -> String {
    let Some(trust) = trust else {
        return p.dim("not checked (no keystore)");
    };
    match crate::sign::message::verify_found(found, trust) {
        Ok(v) => format!(
            "{} by {}{} ({} {})",
            p.good("verified"),
            esc(&v.key_id),
            v.sender
                .as_deref()
                .map_or_else(String::new, |s| format!(" for sender {}", esc(s))),
            v.algorithm,
            v.fingerprint
        ),
        Err(VerifyError::Claim(ClaimError::Unsigned)) => p.dim("none (unsigned)"),
        Err(e) => p.error(&format!("not verified: {}", esc(&e.to_string()))),
    }
}
