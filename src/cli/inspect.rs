//! `aiproto inspect`: a readable view of each message.

use std::io::{BufWriter, Write};

use super::args::{GlobalArgs, InspectArgs};
use super::common;
use crate::exit::CmdResult;
use crate::ids;
use crate::model::{Body, Message};
use crate::operations::{Found, Protocol};
use crate::output::escape_controls as esc;
use crate::output::{self, Format, Painter, Stream};
use crate::records::inspect::ENVELOPE_NAMESPACE;
use crate::records::inspect::{self as records, View};
use crate::sign::claim::ClaimError;
use crate::sign::keystore::Keystore;
use crate::sign::trust::{Trust, VerifyError};

/// A CSDL document in full names, or an MSP signal with its fields and the
/// prose the offline decoder writes from it.
fn inspect_json_document(
    out: &mut impl Write,
    p: &Painter,
    source: &str,
    found: &Found,
    document: &serde_json::Value,
    valid: bool,
    signature: &str,
) -> std::io::Result<()> {
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
    if found.protocol == Protocol::Csdl {
        if let Some(shape) = records::shape_of(found) {
            writeln!(
                out,
                "  shape: {shape} (E3's), shown as the CSDL 1.0 message it maps to"
            )?;
        }
        writeln!(out, "  signature: {signature}")?;
    }
    if found.protocol == Protocol::Msp {
        let prose = crate::prose::offline::decode(document, "professional");
        writeln!(out, "  {}", p.dim(&esc(&prose)))?;
    }
    let pretty = serde_json::to_string_pretty(document).unwrap_or_default();
    // JSON escapes control characters itself: the pretty text is safe.
    for line in pretty.lines() {
        writeln!(out, "  {line}")?;
    }
    writeln!(out)
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
        &mut |_, _, _| {},
        &mut |name, found| {
            let valid = found.is_valid(false);
            if g.format == Format::Json {
                if let Some(record) = records::record(name, found) {
                    output::write_json_line(&mut out, &record)?;
                }
                return Ok(());
            }
            let msg = match records::view(found) {
                View::Model(msg) => msg,
                View::Document(document) => {
                    let signature = signature_state(&p, found, trust.as_ref());
                    inspect_json_document(&mut out, &p, name, found, &document, valid, &signature)?;
                    return Ok(());
                }
                View::Nothing => return Ok(()),
            };
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
        let value = id
            .as_deref()
            .map_or(none.clone(), |id| match ids::created_at(id) {
                Some(t) => format!(
                    "{}  {}",
                    esc(id),
                    p.dim(&format!("({})", t.format("%Y-%m-%d %H:%M:%S UTC")))
                ),
                None => esc(id).into_owned(),
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
