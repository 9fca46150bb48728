//! `aiproto primer`: instructions that teach a chat assistant the envelope
//! format, filled with the ids its reply must carry, on stdout or the clipboard.

use std::io::Write;

use super::args::{GlobalArgs, PrimerArgs};
use super::common;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::operations::composing::{ReplyError, ReplyPrimerError, parse_all, primer};
use crate::operations::read;
use crate::transport::{Endpoint, clipboard};

pub fn run(args: &PrimerArgs, g: &GlobalArgs) -> CmdResult {
    let destination: Endpoint = args.via.parse().map_err(CliError::usage)?;
    let text = match &args.reply_to {
        Some(path) => {
            let source = read::read_text(&common::input_of(Some(path))?)?;
            let envelopes = parse_all(&source.text);
            let person = crate::operations::person_names();
            let primed = primer::for_reply(
                &envelopes,
                args.pick.as_deref(),
                args.from.as_deref(),
                &person,
            )
            .map_err(|e| refused(&source.name, e))?;
            if !g.quiet {
                common::say_answered(&source.name, &envelopes, primed.index);
            }
            primed.text
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

/// Why no primer was written for `name`, with the way on: an input that
/// holds no envelope to answer (or not the one picked), or one cut off, is
/// invalid (exit 1); a reply whose sender is unclear asks for `--from` or
/// `--pick` (exit 2).
fn refused(name: &str, e: ReplyPrimerError) -> CliError {
    match e {
        ReplyPrimerError::Reply(ReplyError::WhichReceiver(_) | ReplyError::NotAReceiver { .. }) => {
            CliError::usage(format!("{name}: {e}"))
                .with_hint("add --from NAME: the receiver that answers")
        }
        ReplyPrimerError::ToThePerson { .. } => CliError::usage(format!("{name}: {e}")).with_hint(
            "add --pick N for the envelope the other chat answers, or --from NAME for who answers",
        ),
        ReplyPrimerError::Reply(_)
        | ReplyPrimerError::CutOff(_)
        | ReplyPrimerError::Invalid { .. } => {
            CliError::new(ExitStatus::Invalid, anyhow::anyhow!("{name}: {e}"))
        }
    }
}
