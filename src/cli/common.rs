//! Helpers shared by the subcommands that work on many messages at once.

use super::args::InputArgs;
use crate::exit::{CliError, ExitStatus};
use crate::input;
use crate::model::Message;
use crate::protocols::{Found, ReadOptions};
use crate::reader::{self, Document};

/// Reads every input. Inputs without any message, and messages that cannot
/// be read at all (JSON syntax errors), are reported on stderr and raise the
/// status to 1.
pub fn read_all(args: &InputArgs) -> Result<(Vec<Document>, ExitStatus), CliError> {
    read_all_with(args, &ReadOptions::default())
}

/// [`read_all`] with the given read options (e.g. lenient HSP).
pub fn read_all_with(
    args: &InputArgs,
    options: &ReadOptions,
) -> Result<(Vec<Document>, ExitStatus), CliError> {
    let mut docs = Vec::new();
    let mut status = ExitStatus::Ok;
    for input in input::expand(&args.paths)? {
        let doc = reader::read(&input, args.protocol, options)?;
        if doc.messages.is_empty() {
            eprintln!(
                "aiproto: error: {}: {}",
                doc.source.name,
                reader::no_message_reason(&doc.source.text)
            );
            status = ExitStatus::Invalid;
        }
        for found in doc.messages.iter().filter(|f| f.value.is_unreadable()) {
            let why = found
                .diagnostics
                .first()
                .map_or("unreadable", |d| d.message.as_str());
            eprintln!(
                "aiproto: error: {}:{}: not a readable message: {why}",
                doc.source.name, found.line
            );
            status = ExitStatus::Invalid;
        }
        docs.push(doc);
    }
    Ok((docs, status))
}

/// Reads the one input a command works on (`-` or nothing: stdin); an input
/// without any message is an error (exit 1).
pub fn read_one(path: Option<&std::path::Path>) -> Result<Document, CliError> {
    let input = match path {
        Some(p) if p.as_os_str() != "-" => input::Input::File(p.to_path_buf()),
        _ => input::Input::Stdin,
    };
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
