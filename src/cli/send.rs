//! `aiproto send`: deliver each message of a file to a destination.

use std::io::Write;

use super::args::{GlobalArgs, SendArgs};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::output::{self, Painter, Stream};
use crate::reader::Document;
use crate::transport::{Destination, TransportError};

pub fn run(args: &SendArgs, g: &GlobalArgs) -> CmdResult {
    let destination: Destination = args.via.parse().map_err(CliError::usage)?;
    let doc = super::common::read_one(args.path.as_deref())?;
    if !args.force && refuse_invalid(&doc, g) {
        eprintln!(
            "aiproto: error: {}: invalid message(s), nothing sent (use --force to send anyway)",
            doc.source.name
        );
        return Ok(ExitStatus::Invalid);
    }
    for found in &doc.messages {
        // Sent as written: same protocol and version, ids and signature kept,
        // in canonical form (LF, no quote prefix or fence).
        let Some(text) = found.render() else { continue };
        let text_envelope = found.protocol == crate::protocols::Protocol::Crosstalk;
        match destination.send(&text, text_envelope) {
            Ok(Some(reply)) => print_reply(&reply)?,
            Ok(None) => {}
            Err(TransportError::Status { url, status, reply }) => {
                // The peer's ERROR envelope says why; show it, then fail.
                print_reply(&reply)?;
                return Err(CliError::new(
                    ExitStatus::Transport,
                    anyhow::anyhow!("{url} answered HTTP {status}"),
                ));
            }
            Err(e) => return Err(CliError::new(ExitStatus::Transport, e)),
        }
    }
    if !g.quiet {
        eprintln!(
            "aiproto: sent {} message(s) to {}",
            doc.messages.len(),
            args.via
        );
    }
    Ok(ExitStatus::Ok)
}

/// Prints the errors of invalid messages; true when there was any.
fn refuse_invalid(doc: &Document, g: &GlobalArgs) -> bool {
    let p = Painter::new(g.color, Stream::Stderr);
    let mut any = false;
    let lines = output::SourceLines::new(&doc.source.text);
    for found in doc.messages.iter().filter(|f| !f.is_valid(false)) {
        any = true;
        for d in found.diagnostics.iter().filter(|d| d.is_error()) {
            eprint!(
                "{}",
                output::format_diagnostic(&p, &doc.source.name, lines.get(d.line), d, false)
            );
        }
    }
    any
}

/// A peer's reply, on stdout, ending with a line end.
fn print_reply(reply: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(reply.as_bytes())?;
    if !reply.is_empty() && !reply.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    Ok(())
}
