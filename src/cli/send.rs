//! `aiproto send`: deliver each message of a file to a destination.

use std::collections::HashMap;
use std::io::Write;

use super::args::{GlobalArgs, SendArgs};
use super::endpoints::{endpoint, failure};
use crate::diag::Diagnostic;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::input::Input;
use crate::protocols::{Found, ReadOptions};
use crate::reader::Document;
use crate::transport::{self, Endpoint, Outgoing};

pub fn run(args: &SendArgs, g: &GlobalArgs) -> CmdResult {
    let destination = endpoint(&args.via)?;
    let doc = super::common::read_one(args.path.as_deref())?;
    if let Some(cut) = doc.messages.iter().find(|f| !f.is_complete()) {
        super::common::print_findings(
            g,
            &doc.source.name,
            &doc.source.text,
            cut,
            Diagnostic::is_error,
        );
        eprintln!(
            "aiproto: error: {}:{}: the envelope was cut off before its [[END]] line, nothing sent",
            doc.source.name, cut.line
        );
        return Ok(ExitStatus::Invalid);
    }
    if !args.force && refuse_invalid(&doc, g) {
        eprintln!(
            "aiproto: error: {}: invalid message(s), nothing sent (use --force to send anyway)",
            doc.source.name
        );
        return Ok(ExitStatus::Invalid);
    }
    // Sent as written: same protocol and version, ids and signature kept,
    // in canonical form (LF, no quote prefix or fence).
    let mut messages: Vec<Outgoing<'_>> = doc
        .messages
        .iter()
        .filter_map(|found| found.render().map(|text| Outgoing { text, found }))
        .collect();
    if let Endpoint::File(path) = &destination {
        let archived = archived_copies(path, &messages)?;
        if let Some(conflict) = archived.iter().find(|a| !a.same) {
            eprintln!(
                "aiproto: error: {}: message {} is already in {} with different content (line {}); nothing written",
                doc.source.name,
                conflict.id,
                path.display(),
                conflict.line
            );
            return Ok(ExitStatus::Invalid);
        }
        for copy in &archived {
            if !g.quiet {
                eprintln!(
                    "aiproto: message {} is already in the archive {} (line {}), not appended again",
                    copy.id,
                    path.display(),
                    copy.line
                );
            }
        }
        messages.retain(|m| !archived.iter().any(|a| Some(a.id.as_str()) == m.found.id()));
    }
    let mut transport = transport::open(destination.clone(), args.settings());
    transport
        .send(&messages, &mut print_reply)
        .map_err(failure)?;
    if !g.quiet {
        let n = messages.len();
        match &destination {
            Endpoint::Mqtt(_) => eprintln!(
                "aiproto: published {n} message(s) to {} at QoS {}",
                args.via, args.qos
            ),
            Endpoint::Clipboard => eprintln!("aiproto: copied {n} message(s) to the clipboard"),
            Endpoint::Email(address) => {
                let how = args.out.as_ref().map_or_else(
                    || "sent over SMTP".to_string(),
                    |p| format!("written to {}", p.display()),
                );
                eprintln!("aiproto: {n} mail(s) to {address} {how}");
            }
            _ => eprintln!("aiproto: sent {n} message(s) to {}", args.via),
        }
    }
    // The process ends next: freeing a large input piece by piece would
    // only cost time (a tenth of a 100,000-message run).
    std::mem::forget(messages);
    std::mem::forget(doc);
    Ok(ExitStatus::Ok)
}

/// Prints the errors of invalid messages; true when there was any.
fn refuse_invalid(doc: &Document, g: &GlobalArgs) -> bool {
    let mut any = false;
    for found in doc.messages.iter().filter(|f| !f.is_valid(false)) {
        any = true;
        super::common::print_findings(
            g,
            &doc.source.name,
            &doc.source.text,
            found,
            Diagnostic::is_error,
        );
    }
    any
}

/// A peer's reply, on stdout, ending with a line end.
pub fn print_reply(reply: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(reply.as_bytes())?;
    if !reply.is_empty() && !reply.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// A message about to be appended to an archive that already holds its id.
struct Archived {
    id: String,
    /// The archived copy's line.
    line: usize,
    /// Whether the archived copy is the same message (canonical text).
    same: bool,
}

/// The messages whose id is already in the archive file at `path`: an
/// archive holds each message once, so a repeated `send --via file:` of
/// the same reply adds nothing, and the same id on other content is refused.
fn archived_copies(
    path: &std::path::Path,
    messages: &[Outgoing<'_>],
) -> Result<Vec<Archived>, CliError> {
    if !path.exists() || messages.iter().all(|m| m.found.id().is_none()) {
        return Ok(Vec::new());
    }
    let source = Input::File(path.to_path_buf()).read()?;
    let archive = Document::from_source(source, None, &ReadOptions::default());
    let by_id: HashMap<&str, &Found> = archive
        .messages
        .iter()
        .filter_map(|f| f.id().map(|id| (id, f)))
        .collect();
    Ok(messages
        .iter()
        .filter_map(|m| {
            let id = m.found.id()?;
            let copy = by_id.get(id)?;
            Some(Archived {
                id: id.to_string(),
                line: copy.line,
                same: copy.protocol == m.found.protocol
                    && copy.render().as_deref() == Some(m.text.as_str()),
            })
        })
        .collect())
}
