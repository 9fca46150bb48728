//! `aiproto convert`: read → shared model → write, with a report of what the target could not hold.

use std::io::Write;

use serde::Serialize;

use super::args::{ConvertArgs, GlobalArgs};
use super::common;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::model::{Loss, Message, Signature};
use crate::output::{self, Format, Painter, Stream};
use crate::protocols::csdl::codes::{self, Form};
use crate::protocols::msp;
use crate::protocols::{self, Found, Protocol, ProtocolSpec, Unsupported, Value};

/// The `--format json` loss report of one message (written to stderr).
#[derive(Debug, Serialize)]
struct LossReport<'a> {
    source: &'a str,
    index: usize,
    line: usize,
    dropped: &'a [Loss],
}

pub fn run(args: &ConvertArgs, g: &GlobalArgs) -> CmdResult {
    if (args.expand || args.compact) && args.to.is_some_and(|t| t.protocol != Protocol::Csdl) {
        return Err(CliError::usage("--expand and --compact are for --to csdl"));
    }
    let mut converted = Vec::new();
    let mut status = ExitStatus::Ok;
    let mut any_loss = false;
    let err_painter = Painter::new(g.color, Stream::Stderr);
    let (docs, read_status) = common::read_all(&args.input)?;
    status = status.max(read_status);
    for doc in &docs {
        for found in &doc.messages {
            if !found.is_valid(false) {
                eprintln!(
                    "aiproto: error: {}:{}: message is invalid, not converted (see `aiproto validate {}`)",
                    doc.source.name, found.line, doc.source.name
                );
                status = status.max(ExitStatus::Invalid);
                continue;
            }
            if let Some(text) = rewrite_json(found, args).map_err(CliError::usage)? {
                converted.push(text);
                continue;
            }
            let Some(msg) = found.to_message() else {
                continue;
            };
            let (text, losses) =
                convert_one(found, msg, target_of(args, found)).map_err(CliError::usage)?;
            if !losses.is_empty() {
                any_loss = true;
                report_losses(g, &err_painter, &doc.source.name, found, &losses)?;
            }
            converted.push(text);
        }
    }
    if args.strict && any_loss {
        eprintln!("aiproto: error: --strict: the conversion would lose data; nothing written");
        return Ok(ExitStatus::Invalid);
    }
    let mut out = std::io::stdout().lock();
    // Crosstalk envelopes are separated by a blank line; JSON messages are JSON Lines.
    for (i, text) in converted.iter().enumerate() {
        if i > 0 && text.starts_with("[[") {
            out.write_all(b"\n")?;
        }
        out.write_all(text.as_bytes())?;
    }
    Ok(status)
}

/// CSDL and MSP, which have no shared-model mapping yet: rewritten within
/// their own protocol (`None` for the other protocols).
fn rewrite_json(found: &Found, args: &ConvertArgs) -> Result<Option<String>, Unsupported> {
    let target = target_of(args, found);
    let unsupported = Unsupported {
        from: found.protocol,
        to: target.protocol,
    };
    match &found.value {
        Value::Csdl(Some(doc)) if target.protocol == Protocol::Csdl => {
            let form = if args.expand {
                Form::Expanded
            } else {
                Form::Compact
            };
            Ok(Some(format!("{}\n", codes::to_form(&doc.json, form))))
        }
        Value::Msp(Some(doc)) if target.protocol == Protocol::Msp => {
            if target.version_or_default() != doc.version.as_str()
                && args.to.is_some_and(|t| t.version.is_some())
            {
                return Err(unsupported);
            }
            // 1.0 is written with every field; 2.0 as it came.
            let json = match doc.version {
                msp::Version::V1_0 => msp::MinimalSignal::from_json(&doc.json)
                    .map(|s| s.to_json())
                    .unwrap_or_else(|_| doc.json.clone()),
                msp::Version::V2_0 => doc.json.clone(),
            };
            Ok(Some(format!("{json}\n")))
        }
        Value::Csdl(_) | Value::Msp(_) => Err(unsupported),
        _ if matches!(target.protocol, Protocol::Csdl | Protocol::Msp) => Err(unsupported),
        _ => Ok(None),
    }
}

/// `--to` as given (its version defaulting to the protocol's newest), or
/// with `--canonical` alone the message's own protocol and version.
fn target_of(args: &ConvertArgs, found: &Found) -> ProtocolSpec {
    match args.to {
        Some(spec) => spec,
        None => ProtocolSpec {
            protocol: found.protocol,
            version: found
                .protocol
                .versions()
                .iter()
                .copied()
                .find(|v| *v == found.version),
        },
    }
}

/// Converts one message. A signature covers the source form, so it is
/// dropped (and reported) whenever the version or protocol changes.
pub fn convert_one(
    found: &Found,
    mut msg: Message,
    target: ProtocolSpec,
) -> Result<(String, Vec<Loss>), Unsupported> {
    let moves = target.protocol != found.protocol || target.version_or_default() != found.version;
    if !moves && let Some(text) = found.render() {
        // Same protocol and version: a rewrite in canonical form, nothing to map.
        return Ok((text, Vec::new()));
    }
    let mut dropped = Vec::new();
    if let Some(sig) = msg.signature.take_if(|s| s.raw != "none") {
        dropped.push(Loss {
            field: "sig".into(),
            value: sig.raw,
            reason: "the signature covers the source form and would not verify".into(),
        });
        msg.signature = Some(Signature { raw: "none".into() });
    }
    let (text, mut losses) = protocols::write(&msg, target)?;
    dropped.append(&mut losses);
    Ok((text, dropped))
}

fn report_losses(
    g: &GlobalArgs,
    p: &Painter,
    source: &str,
    found: &Found,
    losses: &[Loss],
) -> Result<(), CliError> {
    let mut err = std::io::stderr().lock();
    match g.format {
        Format::Json => output::write_json_line(
            &mut err,
            &LossReport {
                source,
                index: found.index,
                line: found.line,
                dropped: losses,
            },
        )?,
        Format::Human => {
            for loss in losses {
                writeln!(
                    err,
                    "{}: {} {} = {} ({})",
                    p.bold(&format!("{source}:{}", found.line)),
                    p.warning("dropped"),
                    loss.field,
                    loss.value,
                    loss.reason
                )?;
            }
        }
    }
    Ok(())
}
