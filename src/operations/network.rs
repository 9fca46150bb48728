//! `send` and `recv`: the tools that reach outside the machine's files.
//! They exist only when the server was started with `--allow-network`:
//! an assistant must not publish because a pasted text told it to.

use std::time::Duration;

use serde_json::json;

use super::Context;
use super::archive;
use super::params;
use super::receive::{self, Inbox};
use super::{OpError, OpResult};
use crate::delivery::routing;
use crate::diag;
use crate::input::Source;
use crate::protocols::ReadOptions;
use crate::reader::Document;
use crate::records::validate::ValidateRecord;
use crate::transport::{self, Answer, Arrival, Ended, Endpoint, Listen, Outgoing, Settings};

/// The longest a `recv` waits.
const MAX_WAIT_SECONDS: u64 = 300;

fn endpoint(via: &str) -> Result<Endpoint, OpError> {
    via.parse::<Endpoint>()
        .map_err(|e| OpError::new(e.to_string()))
}

pub fn send(ctx: &Context, p: params::Send) -> OpResult {
    let destination = endpoint(&p.via)?;
    if p.text.len() > ctx.max_bytes {
        return Err(OpError::new(format!(
            "{} bytes, over this server's limit of {} (--max-bytes)",
            p.text.len(),
            ctx.max_bytes
        )));
    }
    let source = Source {
        name: "<text>".into(),
        text: p.text,
    };
    let doc = Document::from_source(source, None, &ReadOptions::default());
    archive::refuse_unsendable(&doc)?;
    let count = doc.messages.len();
    match destination {
        Endpoint::File(path) => {
            let target = archive_target(ctx, &path)?;
            let mut appended = archive::append_checked(target.path(), doc)?;
            appended["archive"] = json!(target.resolved().display().to_string());
            appended["via"] = json!(p.via);
            Ok(appended)
        }
        Endpoint::Http(_) | Endpoint::Mqtt(_) | Endpoint::A2a(_) => {
            let qos = p.qos.unwrap_or(1);
            if qos > 2 {
                return Err(OpError::new(format!(
                    "qos {qos}: MQTT's quality of service is 0, 1 or 2"
                )));
            }
            let settings = Settings {
                qos,
                ..Settings::default()
            };
            let outgoing: Vec<Outgoing> = doc
                .messages
                .iter()
                .filter_map(|found| routing::outgoing(found, &doc.source.text, &destination))
                .collect();
            let mut replies = Vec::new();
            let mut peer = transport::open(destination, settings);
            let sent = peer
                .send(&outgoing, &mut |reply| {
                    replies.push(reply.to_string());
                    Ok(())
                })
                .and_then(|()| peer.finish());
            sent.map_err(|e| OpError::new(e.to_string()))?;
            Ok(json!({ "via": p.via, "messages": count, "replies": replies }))
        }
        Endpoint::Stdio => Err(OpError::new(
            "`-` is this server's own channel to the host: send to file:, http(s)://, mqtt(s):// or a2a+http(s)://",
        )),
        Endpoint::Clipboard | Endpoint::Email(_) => Err(OpError::new(
            "this server sends to file:PATH, http(s):// and mqtt(s):// (the clipboard and mail are for the command line)",
        )),
    }
}

pub fn recv(ctx: &Context, p: params::Recv) -> OpResult {
    let source = endpoint(&p.via)?;
    // The file stays open while it is read: its path names it, not a name
    // that could be swapped meanwhile.
    let mut held = None;
    let source = match source {
        Endpoint::Mqtt(_) => source,
        Endpoint::File(path) => {
            let opened = ctx
                .sandbox
                .existing_file(&path.to_string_lossy())
                .map_err(|e| OpError::new(e.to_string()))?;
            let source = Endpoint::File(opened.path().to_path_buf());
            held = Some(opened);
            source
        }
        _ => {
            return Err(OpError::new(
                "this server receives from mqtt(s):// and file:PATH",
            ));
        }
    };
    let wanted = p.count.unwrap_or(1).max(1);
    let listen = Listen {
        timeout: Some(Duration::from_secs(
            p.timeout_seconds.unwrap_or(10).clamp(1, MAX_WAIT_SECONDS),
        )),
        quiet: true,
        ..Listen::default()
    };
    let mut received = Vec::new();
    let max_bytes = ctx.max_bytes;
    // A file is named where it is, not by the open file's path.
    let shown: Option<String> = held
        .as_ref()
        .map(|o: &crate::operations::sandbox::Opened| o.resolved().display().to_string());
    // The inbox every face receives through: each message once (an MQTT
    // redelivery skipped), other content under a seen id flagged.
    let mut inbox = Inbox::new(Some(wanted));
    let mut peer = transport::open(source, Settings::default());
    let ended = peer
        .receive(&listen, &mut |arrival| {
            let origin = shown.as_deref().unwrap_or(arrival.origin);
            if arrival.text.len() > max_bytes {
                received.push(json!({
                    "origin": origin,
                    "topic": arrival.topic,
                    "error": format!("{} bytes, over this server's limit of {max_bytes}; left out", arrival.text.len()),
                }));
                return Ok(Answer::default());
            }
            let arrival = Arrival { origin, ..arrival };
            inbox.arrival(&arrival, |r| {
                let mut record = json!({
                    "origin": r.origin,
                    "topic": r.topic,
                    "text": r.text,
                });
                if let Some(found) = r.found {
                    let (errors, warnings) = diag::partition(&found.diagnostics, false);
                    record["verdict"] = json!(ValidateRecord::message(
                        r.origin, found, errors, warnings, None
                    ));
                }
                if let Some(warning) = receive::other_content_warning(&r) {
                    record["warning"] = json!(warning);
                }
                received.push(record);
                Ok(Vec::new())
            })
        })
        .map_err(|e| OpError::new(e.to_string()))?;
    let ended = match ended {
        Ended::Stopped => "count",
        Ended::Exhausted => "exhausted",
        Ended::Timeout => "timeout",
        Ended::Interrupted => "interrupted",
    };
    // Read to the end: the file may close now.
    drop(held);
    Ok(json!({ "via": p.via, "ended": ended, "messages": received }))
}

/// The extensions of the files `send file:` may append to inside the
/// roots: message archives, which grow by appending. Not `.json`: a JSON
/// file is one document (appending corrupts a `package.json`), and many are
/// a tool's configuration (`.vscode/tasks.json` runs its tasks).
const MESSAGE_FILES: [&str; 4] = ["crosstalk", "aict", "jsonl", "ndjson"];

/// The hidden folder `path` lies in below its root (`.vscode`, `.git`,
/// `.github`: tools' configuration, never an archive), if any. A relative
/// path is read from its root; an absolute one below the root it is in.
fn hidden_folder(path: &std::path::Path, roots: &[std::path::PathBuf]) -> Option<String> {
    let inside = if path.is_absolute() {
        roots.iter().find_map(|root| {
            let canonical = root.canonicalize().unwrap_or_else(|_| root.clone());
            path.strip_prefix(&canonical)
                .or_else(|_| path.strip_prefix(root))
                .ok()
                .map(std::path::Path::to_path_buf)
        })?
    } else {
        path.to_path_buf()
    };
    inside.parent()?.components().find_map(|c| match c {
        std::path::Component::Normal(name) => {
            let name = name.to_string_lossy();
            name.starts_with('.').then(|| name.into_owned())
        }
        _ => None,
    })
}

/// Where `send file:PATH` may append: the server's own `--archive`, or a
/// message archive inside the roots and outside hidden folders — never any
/// other file (a shell's startup file would run the envelope's lines, an
/// editor's task file would run a command).
fn archive_target(ctx: &Context, path: &std::path::Path) -> Result<Target, OpError> {
    let is_message_file = |p: &std::path::Path| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| MESSAGE_FILES.contains(&e.to_ascii_lowercase().as_str()))
    };
    if let Some(archive) = &ctx.archive {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        if &absolute == archive {
            return Ok(Target::Archive(archive.clone()));
        }
    }
    if !is_message_file(path) {
        return Err(OpError::new(format!(
            "{}: send appends only to the server's --archive or to a message file (.{}) inside the roots",
            path.display(),
            MESSAGE_FILES.join(", .")
        )));
    }
    let roots = ctx.sandbox.roots();
    let in_hidden = |folder: String| {
        OpError::new(format!(
            "{}: it lies in the hidden folder {folder}, where tools keep their configuration; \
             send appends to message archives elsewhere in the roots",
            path.display()
        ))
    };
    // Before anything is opened (or created) there.
    if let Some(folder) = hidden_folder(path, &roots) {
        return Err(in_hidden(folder));
    }
    let opened = ctx
        .sandbox
        .writable_file(&path.to_string_lossy())
        .map_err(|e| OpError::new(e.to_string()))?;
    // A symlink inside the roots to another kind of file is refused too.
    if !is_message_file(opened.resolved()) {
        return Err(OpError::new(format!(
            "{}: it leads to {}, which is not a message file",
            path.display(),
            opened.resolved().display()
        )));
    }
    // And where a symlink led.
    if let Some(folder) = hidden_folder(opened.resolved(), &roots) {
        return Err(in_hidden(folder));
    }
    Ok(Target::Opened(opened))
}

/// Where `send file:` appends: the archive the person named, or a file
/// opened inside the roots.
enum Target {
    Archive(std::path::PathBuf),
    Opened(crate::operations::sandbox::Opened),
}

impl Target {
    fn path(&self) -> &std::path::Path {
        match self {
            Target::Archive(path) => path,
            Target::Opened(opened) => opened.path(),
        }
    }

    fn resolved(&self) -> &std::path::Path {
        match self {
            Target::Archive(path) => path,
            Target::Opened(opened) => opened.resolved(),
        }
    }
}
