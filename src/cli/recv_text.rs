//! `aiproto recv --via clipboard|file:PATH`: every message in pasted or
//! saved text, each printed once; `--watch` / `--follow` keep reading and
//! print each new message as it appears.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::args::{GlobalArgs, RecvArgs};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::input::Source;
use crate::output::{self, Format};
use crate::protocols::ReadOptions;
use crate::reader::Document;
use crate::transport::clipboard::{self, ClipboardError};

/// How often a watched clipboard or followed file is read again.
const POLL: Duration = Duration::from_millis(200);

/// Where `recv` reads text from.
pub enum TextSource {
    Clipboard,
    File(PathBuf),
}

impl TextSource {
    /// `clipboard` or `file:PATH`; `None` for another URI.
    pub fn parse(uri: &str) -> Option<TextSource> {
        if uri == "clipboard" || uri == "clipboard:" {
            return Some(TextSource::Clipboard);
        }
        uri.strip_prefix("file://")
            .or_else(|| uri.strip_prefix("file:"))
            .filter(|p| !p.is_empty())
            .map(|p| TextSource::File(PathBuf::from(p)))
    }

    /// The name findings and warnings give the source.
    pub fn name(&self) -> String {
        match self {
            TextSource::Clipboard => "<clipboard>".into(),
            TextSource::File(p) => p.display().to_string(),
        }
    }

    /// The current text; `None` when there is none yet (an empty clipboard,
    /// a followed file not created yet).
    fn read(&self, keep_reading: bool) -> Result<Option<String>, CliError> {
        match self {
            TextSource::Clipboard => match clipboard::paste() {
                Ok(text) => Ok(Some(text)),
                Err(ClipboardError::Empty) => Ok(None),
                Err(e) => Err(CliError::new(ExitStatus::Transport, e)),
            },
            TextSource::File(path) => match std::fs::read(path) {
                Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
                Err(e) if keep_reading && e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(CliError::usage(format!(
                    "cannot read {}: {e}",
                    path.display()
                ))),
            },
        }
    }
}

/// `--format json`: one line per message found.
#[derive(Serialize)]
struct Found<'a> {
    source: &'a str,
    protocol: &'static str,
    valid: bool,
    message: &'a str,
}

/// How reading a text source ended.
pub enum Ended {
    /// Read through (or the count reached): this many messages were new.
    Done(usize),
    /// The deadline passed first.
    Timeout,
}

/// Reads a text source once, or with `keep_reading` on and on, and calls
/// `each` with every message not seen before (by its canonical text);
/// stops after `count` messages or at `timeout`.
pub fn each_new_message(
    source: &TextSource,
    keep_reading: bool,
    count: Option<usize>,
    timeout: Option<f64>,
    mut each: impl FnMut(&crate::protocols::Found, &str) -> Result<(), CliError>,
) -> Result<Ended, CliError> {
    let deadline = timeout.map(|t| Instant::now() + Duration::from_secs_f64(t));
    let name = source.name();
    let mut seen = HashSet::new();
    let mut new = 0usize;
    let mut last: Option<String> = None;
    loop {
        let text = source.read(keep_reading)?;
        if text.is_some() && text != last {
            let doc = Document::from_source(
                Source {
                    name: name.clone(),
                    text: text.clone().unwrap_or_default(),
                },
                None,
                &ReadOptions::default(),
            );
            for found in &doc.messages {
                let Some(message) = found.render() else {
                    continue;
                };
                if !seen.insert(message.clone()) {
                    continue;
                }
                each(found, &message)?;
                new += 1;
                if count.is_some_and(|n| new >= n) {
                    return Ok(Ended::Done(new));
                }
            }
            last = text;
        }
        if !keep_reading {
            return Ok(Ended::Done(new));
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(if count.is_some() {
                Ended::Timeout
            } else {
                Ended::Done(new)
            });
        }
        std::thread::sleep(POLL);
    }
}

pub fn run(source: &TextSource, args: &RecvArgs, g: &GlobalArgs) -> CmdResult {
    let keep_reading = args.watch || args.follow;
    let name = source.name();
    let mut invalid = false;
    let mut emitted = 0usize;
    let mut out = std::io::stdout().lock();
    let ended = each_new_message(
        source,
        keep_reading,
        args.listen.count,
        args.listen.timeout,
        |found, message| {
            let valid = found.is_valid(false);
            invalid |= !valid;
            match g.format {
                Format::Json => output::write_json_line(
                    &mut out,
                    &Found {
                        source: &name,
                        protocol: found.protocol.name(),
                        valid,
                        message,
                    },
                )?,
                Format::Human => {
                    if !valid {
                        eprintln!(
                            "aiproto: warning: {name}:{}: invalid message (see `aiproto validate`)",
                            found.line
                        );
                    }
                    if emitted > 0 && message.starts_with("[[") {
                        out.write_all(b"\n")?;
                    }
                    out.write_all(message.as_bytes())?;
                }
            }
            out.flush()?;
            emitted += 1;
            Ok(())
        },
    )?;
    match ended {
        Ended::Timeout => Ok(args.listen.timed_out()),
        Ended::Done(0) if !keep_reading => {
            eprintln!("aiproto: error: {name}: no message found");
            Ok(ExitStatus::Invalid)
        }
        Ended::Done(_) if invalid => Ok(ExitStatus::Invalid),
        Ended::Done(_) => Ok(ExitStatus::Ok),
    }
}
