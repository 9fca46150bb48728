//! Helpers shared by the subcommands that work on many messages at once.

use chrono::Utc;

use super::args::InputArgs;
use crate::exit::{CliError, ExitStatus};
use crate::input;
use crate::protocols::Found;
use crate::reader::{self, Document};

/// Reads every input; inputs without any message are reported on stderr and
/// raise the status to 1.
pub fn read_all(args: &InputArgs) -> Result<(Vec<Document>, ExitStatus), CliError> {
    let now = Utc::now();
    let mut docs = Vec::new();
    let mut status = ExitStatus::Ok;
    for input in input::expand(&args.paths)? {
        let doc = reader::read(&input, args.protocol, now)?;
        if doc.messages.is_empty() {
            eprintln!(
                "aiproto: error: {}: {}",
                doc.source.name,
                reader::no_message_reason(&doc.source.text)
            );
            status = ExitStatus::Invalid;
        }
        docs.push(doc);
    }
    Ok((docs, status))
}

/// Every message of every document, with its source name.
pub fn messages(docs: &[Document]) -> impl Iterator<Item = (&str, &Found)> {
    docs.iter()
        .flat_map(|d| d.messages.iter().map(move |m| (d.source.name.as_str(), m)))
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
