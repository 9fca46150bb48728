//! `aiproto send`: deliver each message of a file to a destination.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::args::{GlobalArgs, SendArgs};
use super::endpoints::{endpoint, failure};
use crate::diag::Diagnostic;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::input::Source;
use crate::protocols::{Found, ReadOptions};
use crate::reader::Document;
use crate::transport::{self, Endpoint, Outgoing, file};

pub fn run(args: &SendArgs, g: &GlobalArgs) -> CmdResult {
    let destination = endpoint(&args.via)?;
    let docs = read_inputs(&args.paths)?;
    if refuse_cut(&docs, g) {
        return Ok(ExitStatus::Invalid);
    }
    if !args.force && refuse_invalid(&docs, g) {
        return Ok(ExitStatus::Invalid);
    }
    // Sent as written: same protocol and version, ids and signature kept,
    // in canonical form (LF, no quote prefix or fence).
    let (messages, sources): (Vec<Outgoing<'_>>, Vec<&str>) = docs
        .iter()
        .flat_map(|doc| doc.messages.iter().map(move |found| (doc, found)))
        .filter_map(|(doc, found)| {
            let text = found.render()?;
            Some((Outgoing { text, found }, doc.source.name.as_str()))
        })
        .unzip();
    if let Endpoint::File(path) = &destination {
        return archive(path, &messages, &sources, g);
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
    std::mem::forget(docs);
    Ok(ExitStatus::Ok)
}

/// Every input, read before anything is sent (stdin when there is none).
fn read_inputs(paths: &[PathBuf]) -> Result<Vec<Document>, CliError> {
    if paths.is_empty() {
        return Ok(vec![super::common::read_one(None)?]);
    }
    paths
        .iter()
        .map(|path| super::common::read_one(Some(path)))
        .collect()
}

/// Reports each envelope cut off before its `[[END]]` line; true when there was any.
fn refuse_cut(docs: &[Document], g: &GlobalArgs) -> bool {
    let mut any = false;
    for doc in docs {
        for cut in doc.messages.iter().filter(|f| !f.is_complete()) {
            any = true;
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
        }
    }
    any
}

/// Prints the errors of invalid messages; true when there was any.
fn refuse_invalid(docs: &[Document], g: &GlobalArgs) -> bool {
    let mut any = false;
    for doc in docs {
        let mut invalid = doc
            .messages
            .iter()
            .filter(|f| !f.is_valid(false))
            .peekable();
        if invalid.peek().is_none() {
            continue;
        }
        any = true;
        for found in invalid {
            super::common::print_findings(
                g,
                &doc.source.name,
                &doc.source.text,
                found,
                Diagnostic::is_error,
            );
        }
        eprintln!(
            "aiproto: error: {}: invalid message(s), nothing sent (use --force to send anyway)",
            doc.source.name
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

/// `send --via file:`: appends the messages that the archive does not hold
/// yet. A message whose id is already there with the same content is not
/// appended again (a repeated send of the same reply adds nothing); the
/// same id on other content is refused, and then nothing is written.
/// `sources` names the input of each message.
fn archive(path: &Path, messages: &[Outgoing<'_>], sources: &[&str], g: &GlobalArgs) -> CmdResult {
    let texts: Vec<(String, bool)> = messages
        .iter()
        .map(|m| (m.text.clone(), m.is_envelope()))
        .collect();
    let mut repeats = Vec::new();
    let written = file::append_chosen(path, &texts, |existing| {
        let archived = Document::from_source(
            Source {
                name: path.display().to_string(),
                text: existing.to_string(),
            },
            None,
            &ReadOptions::default(),
        );
        let mut by_id: HashMap<&str, &Found> = archived
            .messages
            .iter()
            .filter_map(|f| f.id().map(|id| (id, f)))
            .collect();
        let mut chosen = Vec::with_capacity(messages.len());
        for (m, source) in messages.iter().zip(sources) {
            let Some(id) = m.found.id() else {
                chosen.push(true);
                continue;
            };
            match by_id.get(id) {
                Some(copy) if copy.render().as_deref() == Some(m.text.as_str()) => {
                    repeats.push((id.to_string(), copy.line));
                    chosen.push(false);
                }
                Some(copy) => return Err((*source, id.to_string(), copy.line)),
                None => {
                    by_id.insert(id, m.found);
                    chosen.push(true);
                }
            }
        }
        Ok(chosen)
    })
    .map_err(|source| {
        CliError::new(
            ExitStatus::Transport,
            anyhow::anyhow!("cannot write {}: {source}", path.display()),
        )
    })?;
    let written = match written {
        Ok(n) => n,
        Err((source, id, line)) => {
            eprintln!(
                "aiproto: error: {}: message {id} is already in {} (line {line}) with different content; nothing written",
                source,
                path.display()
            );
            return Ok(ExitStatus::Invalid);
        }
    };
    if !g.quiet {
        for (id, line) in &repeats {
            eprintln!(
                "aiproto: message {id} is already in the archive {} (line {line}), not appended again",
                path.display()
            );
        }
        eprintln!(
            "aiproto: appended {written} message(s) to {}",
            path.display()
        );
    }
    Ok(ExitStatus::Ok)
}
