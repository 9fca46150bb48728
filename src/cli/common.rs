//! Helpers shared by the subcommands that work on many messages at once.

use std::io::Write;

use super::args::{GlobalArgs, InputArgs};
use crate::diag::Diagnostic;
use crate::exit::{CliError, ExitStatus};
use std::path::Path;

use crate::input::{self, Input, Source};
use crate::model::Message;
use crate::output::{self, Painter, SourceLines, Stream};
use crate::protocols::{Found, ReadOptions};
use crate::reader::{self, Document};
use crate::transport::clipboard;

/// Reads every input whole (for the commands that need all messages at
/// once; [`each_message`] streams). Inputs without any message, and
/// messages that cannot be read at all (JSON syntax errors), are reported
/// on stderr and raise the status to 1.
pub fn read_all(args: &InputArgs) -> Result<(Vec<Document>, ExitStatus), CliError> {
    let options = ReadOptions::default();
    let mut docs = Vec::new();
    let mut status = ExitStatus::Ok;
    for input in inputs(args)? {
        let Ok(doc) = reader::read_or_skip(&input, input.read()?, args.protocol, &options) else {
            // A walk meets files that are no messages (a README): skipped.
            continue;
        };
        if doc.messages.is_empty() {
            let why = reader::no_message_reason(&doc.source.text);
            eprintln!("aiproto: error: {}: {why}", doc.source.name);
            status = ExitStatus::Invalid;
        }
        for found in &doc.messages {
            status = status.max(note_unreadable(&doc.source.name, found));
        }
        docs.push(doc);
    }
    Ok((docs, status))
}

/// Reads every input piece by piece (`reader::pieces`: bounded memory
/// whatever the size) and hands each message to `each` with its input's
/// name, in order. What [`read_all`] reports, this reports the same way:
/// inputs without a message (also handed to `no_message`), messages that
/// cannot be read at all; the status it returns says so.
pub fn each_message(
    args: &InputArgs,
    options: &ReadOptions,
    no_message: &mut dyn FnMut(&str, &str),
    each: &mut dyn FnMut(&str, &Found) -> Result<(), CliError>,
) -> Result<ExitStatus, CliError> {
    let mut status = ExitStatus::Ok;
    for input in inputs(args)? {
        let mut pieces =
            reader::pieces::pieces(&input, args.protocol, options, reader::pieces::PIECE_BYTES)?;
        let mut any = false;
        for item in &mut pieces {
            let reader::pieces::Item::Piece(piece) = item? else {
                any = true; // a walk met a file without a message: passed over
                break;
            };
            for found in &piece.messages {
                any = true;
                status = status.max(note_unreadable(&piece.source.name, found));
                each(&piece.source.name, found)?;
            }
        }
        if !any {
            let why = pieces.why_no_message().to_string();
            eprintln!("aiproto: error: {}: {why}", input.name());
            no_message(&input.name(), &why);
            status = ExitStatus::Invalid;
        }
    }
    Ok(status)
}

/// Says on stderr that a message cannot be read at all (status 1), if so.
fn note_unreadable(name: &str, found: &Found) -> ExitStatus {
    if !found.value.is_unreadable() {
        return ExitStatus::Ok;
    }
    let why = found
        .diagnostics
        .first()
        .map_or("unreadable", |d| d.message.as_str());
    eprintln!(
        "aiproto: error: {name}:{}: not a readable message: {why}",
        found.line
    );
    ExitStatus::Invalid
}

/// The inputs named on the command line: files and directories (walked),
/// `-` or nothing for stdin, and [`input::CLIPBOARD`] for the system clipboard.
pub fn inputs(args: &InputArgs) -> Result<Vec<Input>, CliError> {
    let walk = args.walk_options();
    let mut inputs = Vec::new();
    let mut files = Vec::new();
    for path in &args.paths {
        if path.as_os_str() == input::CLIPBOARD {
            if !files.is_empty() {
                inputs.extend(input::expand(&std::mem::take(&mut files), &walk)?);
            }
            inputs.push(clipboard()?);
        } else {
            files.push(path.clone());
        }
    }
    if !files.is_empty() || inputs.is_empty() {
        inputs.extend(input::expand(&files, &walk)?);
    }
    if args.skip_non_messages {
        for input in &mut inputs {
            if let Input::File(path) = input {
                *input = Input::Walked(std::mem::take(path));
            }
        }
    }
    Ok(inputs)
}

/// The one input a command works on: a file, `-` or nothing for stdin, or
/// [`input::CLIPBOARD`].
pub fn input_of(path: Option<&Path>) -> Result<Input, CliError> {
    Ok(match path {
        Some(p) if p.as_os_str() == input::CLIPBOARD => clipboard()?,
        Some(p) if p.as_os_str() != "-" => Input::File(p.to_path_buf()),
        _ => Input::Stdin,
    })
}

/// What is on the clipboard, as an input named `<clipboard>`.
fn clipboard() -> Result<Input, CliError> {
    // The same statuses as `recv --via clipboard`: nothing to read is 1.
    let text = clipboard::paste().map_err(|e| super::endpoints::failure(e.into()))?;
    Ok(Input::Text(Source {
        name: "<clipboard>".into(),
        text,
    }))
}

/// Reads the one input a command works on ([`input_of`]); an input
/// without any message is an error (exit 1).
pub fn read_one(path: Option<&Path>) -> Result<Document, CliError> {
    let input = input_of(path)?;
    let doc = reader::read(&input, None, &ReadOptions::default())?;
    if doc.messages.is_empty() {
        let why = reader::no_message_reason(&doc.source.text);
        return Err(CliError::new(
            ExitStatus::Invalid,
            anyhow::anyhow!("{}: {why}", doc.source.name),
        ));
    }
    Ok(doc)
}

/// Every readable message of every document, with its source name and its
/// shared-model form (the unreadable ones were reported by [`read_all`]).
pub fn messages(docs: &[Document]) -> impl Iterator<Item = (&str, &Found, Message)> {
    docs.iter().flat_map(|d| {
        d.messages
            .iter()
            .filter_map(move |f| f.to_message().map(|m| (d.source.name.as_str(), f, m)))
    })
}

/// The first non-empty line of a text, cut to `max` characters.
pub fn summary(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_string()
    }
}

/// Prints a message's findings on stderr as `validate` does
/// (`path:line:col: error[code]: …` with the source line and a caret),
/// those that `which` picks.
pub fn print_findings(
    g: &GlobalArgs,
    name: &str,
    source_text: &str,
    found: &Found,
    which: impl Fn(&Diagnostic) -> bool,
) {
    let chosen: Vec<&Diagnostic> = found.diagnostics.iter().filter(|d| which(d)).collect();
    if chosen.is_empty() {
        return;
    }
    let painter = Painter::new(g.color, Stream::Stderr);
    let lines = SourceLines::new(source_text);
    let mut err = std::io::stderr().lock();
    for d in chosen {
        let _ = write!(
            err,
            "{}",
            output::format_diagnostic(&painter, name, lines.get(d.line), d, false)
        );
    }
}
