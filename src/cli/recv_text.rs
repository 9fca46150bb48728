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

    fn name(&self) -> String {
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

pub fn run(source: &TextSource, args: &RecvArgs, g: &GlobalArgs) -> CmdResult {
    let keep_reading = args.watch || args.follow;
    let deadline = args
        .timeout
        .map(|t| Instant::now() + Duration::from_secs_f64(t));
    let name = source.name();
    let mut seen = HashSet::new();
    let mut emitted = 0usize;
    let mut invalid = false;
    let mut last: Option<String> = None;
    let mut out = std::io::stdout().lock();
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
                // Each message once, however often it is read again.
                if !seen.insert(message.clone()) {
                    continue;
                }
                let valid = found.is_valid(false);
                invalid |= !valid;
                match g.format {
                    Format::Json => output::write_json_line(
                        &mut out,
                        &Found {
                            source: &name,
                            protocol: found.protocol.name(),
                            valid,
                            message: &message,
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
                if args.count.is_some_and(|n| emitted >= n) {
                    return Ok(ExitStatus::Ok);
                }
            }
            last = text;
        }
        if !keep_reading {
            break;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            if let Some(n) = args.count {
                eprintln!("aiproto: timed out before {n} message(s) arrived");
                return Ok(ExitStatus::Timeout);
            }
            break;
        }
        std::thread::sleep(POLL);
    }
    if emitted == 0 && !keep_reading {
        eprintln!("aiproto: error: {name}: no message found");
        return Ok(ExitStatus::Invalid);
    }
    Ok(if invalid {
        ExitStatus::Invalid
    } else {
        ExitStatus::Ok
    })
}
