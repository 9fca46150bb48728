//! `aiproto compose`: write a new message, or a reply to one, in the protocol asked for.

mod crosstalk;
mod hsp;

use super::args::{ComposeArgs, GlobalArgs};
use crate::exit::{CliError, CmdResult};
use crate::protocols::{Protocol, ProtocolSpec};

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
