//! `aiproto convert`: read → shared model → write, with a report of what the target could not hold.

use std::io::Write;

use serde::Serialize;

use super::args::{ConvertArgs, GlobalArgs};
use super::common;
use crate::convert::{self, WriteOptions};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::model::Loss;
use crate::output::{self, Format, Painter, Stream};
use crate::protocols::{Found, Protocol, ProtocolSpec, ReadOptions};

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
    let options = WriteOptions {
        csdl_expanded: args.expand,
    };
    let mut input = args.input.clone();
    input.protocol = input.protocol.or(args.from);
    let mut converted = Vec::new();
    let mut status = ExitStatus::Ok;
    let mut any_loss = false;
    let err_painter = Painter::new(g.color, Stream::Stderr);
    let read_options = ReadOptions {
        lenient: args.lenient,
        ..ReadOptions::default()
    };
    let (docs, read_status) = common::read_all_with(&input, &read_options)?;
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
            let Some(out) = convert::convert(found, target_of(args, found), options) else {
                continue;
            };
            if !out.losses.is_empty() {
                any_loss = true;
                report_losses(g, &err_painter, &doc.source.name, found, &out.losses)?;
            }
            converted.push(out.text);
        }
    }
    if args.strict && any_loss {
        eprintln!("aiproto: error: --strict: the conversion would lose data; nothing written");
        return Ok(ExitStatus::Invalid);
    }
    let mut out = std::io::stdout().lock();
    out.write_all(crate::transport::join_messages(&converted).as_bytes())?;
    Ok(status)
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
