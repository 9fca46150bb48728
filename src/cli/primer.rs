//! `aiproto primer`: instructions that teach a chat assistant the envelope
//! format, filled with the ids its reply must carry, on stdout or the clipboard.

use std::io::Write;

use super::args::{GlobalArgs, PrimerArgs};
use super::common;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::protocols::crosstalk::{self, primer, reply};
use crate::transport::{Endpoint, clipboard};

pub fn run(args: &PrimerArgs, g: &GlobalArgs) -> CmdResult {
    let destination: Endpoint = args.via.parse().map_err(CliError::usage)?;
    let text = match &args.reply_to {
        Some(path) => {
            let source = crate::reader::read_text(&common::input_of(Some(path))?)?;
            let envelopes = crosstalk::parse_all(&source.text);
            let (index, original) = reply::pick(&envelopes, args.pick.as_deref()).map_err(|e| {
                CliError::new(ExitStatus::Invalid, anyhow::anyhow!("{}: {e}", source.name))
            })?;
            if !g.quiet {
                common::say_answered(&source.name, &envelopes, index);
            }
            if !original.complete {
                return Err(CliError::new(
                    ExitStatus::Invalid,
                    anyhow::anyhow!(
                        "{}:{}: the envelope was cut off before its [[END]] line; copy it whole",
                        source.name,
                        original.start_line
                    ),
                ));
            }
            let skeleton =
                reply::skeleton(&original.envelope, args.from.as_deref()).map_err(|e| {
                    CliError::usage(format!("{}: {e}", source.name)).with_hint(format!(
                        "add --from <{}>",
                        reply::receivers(&original.envelope).join(" | ")
                    ))
                })?;
            let example = primer::example(Some(skeleton), "", "");
            primer::primer(&example, Some(&crosstalk::render(&original.envelope)))
        }
        None => {
            let from = args.from.as_deref().unwrap_or("ASSISTANT");
            let to = args.to.as_deref().unwrap_or("HUMAN");
            primer::primer(&primer::example(None, from, to), None)
        }
    };
    match destination {
        Endpoint::Stdio => std::io::stdout().lock().write_all(text.as_bytes())?,
        Endpoint::Clipboard => {
            clipboard::copy(&text).map_err(|e| CliError::new(ExitStatus::Transport, e))?;
            if !g.quiet {
                eprintln!("aiproto: the primer is on the clipboard, ready to paste into the chat");
            }
        }
        _ => {
            return Err(CliError::usage(format!(
                "--via {}: the primer goes to `-` (stdout) or `clipboard`",
                args.via
            )));
        }
    }
    Ok(ExitStatus::Ok)
}
