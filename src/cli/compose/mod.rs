//! `aiproto compose`: write a new message, or a reply to one, in the protocol asked for.

mod crosstalk;
mod hsp;

use std::io::Write;

use super::args::{ComposeArgs, GlobalArgs};
use crate::diag;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::input::Source;
use crate::output::{self, Painter, SourceLines, Stream};
use crate::protocols::{Protocol, ProtocolSpec, ReadOptions};
use crate::reader::Document;

pub fn run(args: &ComposeArgs, g: &GlobalArgs) -> CmdResult {
    let spec = target(args)?;
    match spec.protocol {
        Protocol::Crosstalk => {
            if args.kind.is_some() {
                return Err(CliError::usage(
                    "a message KIND is for HSP; Crosstalk uses --intent",
                ));
            }
            crosstalk::run(args, spec, g)
        }
        Protocol::Hsp => hsp::run(args, spec, g),
        Protocol::Msp => Err(CliError::usage("compose writes HSP and Crosstalk messages")
            .with_hint("`aiproto msp encode TEXT` writes an MSP signal from prose")),
        Protocol::Csdl => Err(CliError::usage("compose writes HSP and Crosstalk messages")
            .with_hint("write CSDL as JSON and check it with `aiproto validate --protocol csdl`")),
    }
}

/// PROTOCOL[@VERSION], with `--version` as the other way to say the version.
fn target(args: &ComposeArgs) -> Result<ProtocolSpec, CliError> {
    let Some(version) = &args.version else {
        return Ok(args.protocol);
    };
    let spec: ProtocolSpec = format!("{}@{version}", args.protocol.protocol.name())
        .parse()
        .map_err(CliError::usage)?;
    if args
        .protocol
        .version
        .is_some_and(|v| Some(v) != spec.version)
    {
        return Err(CliError::usage("PROTOCOL@VERSION and --version disagree"));
    }
    Ok(spec)
}

/// Checks a composed message with the same reader `validate` uses and prints
/// it only when it has no error; its findings go to stderr either way.
fn emit_checked(text: &str, protocol: Protocol, g: &GlobalArgs) -> CmdResult {
    let source = Source {
        name: "<composed>".into(),
        text: text.to_string(),
    };
    let spec = ProtocolSpec {
        protocol,
        version: None,
    };
    let doc = Document::from_source(source, Some(spec), &ReadOptions::default());
    let findings: Vec<_> = doc
        .messages
        .iter()
        .flat_map(|f| f.diagnostics.iter())
        .collect();
    let painter = Painter::new(g.color, Stream::Stderr);
    let lines = SourceLines::new(text);
    for d in &findings {
        eprint!(
            "{}",
            output::format_diagnostic(&painter, "<composed>", lines.get(d.line), d, false)
        );
    }
    let failed =
        doc.messages.is_empty() || findings.iter().any(|d| d.severity == diag::Severity::Error);
    if failed {
        eprintln!("aiproto: error: the composed message is invalid; nothing written");
        return Ok(ExitStatus::Invalid);
    }
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitStatus::Ok)
}
