//! `aiproto compose`: write a new message, or a reply to one, in the protocol asked for.

mod crosstalk;
mod hsp;

use std::io::Write;

use super::args::{ComposeArgs, GlobalArgs};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::operations::composing::check_written;
use crate::operations::{Protocol, ProtocolSpec};
use crate::output::{self, Painter, SourceLines, Stream};

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
        Protocol::A2a => Err(CliError::usage("compose writes HSP and Crosstalk messages")
            .with_hint("`aiproto convert --to a2a FILE` writes a composed HSP or Crosstalk message as an A2A 1.0 Message or Task")),
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
    let (doc, passes) = check_written("<composed>", text, protocol);
    let painter = Painter::new(g.color, Stream::Stderr);
    let lines = SourceLines::new(text);
    for d in doc.messages.iter().flat_map(|f| f.diagnostics.iter()) {
        eprint!(
            "{}",
            output::format_diagnostic(&painter, "<composed>", lines.get(d.line), d, false)
        );
    }
    if !passes {
        eprintln!("aiproto: error: the composed message is invalid; nothing written");
        return Ok(ExitStatus::Invalid);
    }
    std::io::stdout().lock().write_all(text.as_bytes())?;
    // What the person composes is theirs: `sign --only-mine` signs it.
    crate::operations::composing::remember(text);
    Ok(ExitStatus::Ok)
}
