//! The HTTP binding of the protocols, on the receiving side: `POST
//! /crosstalk/receive` (or `/crosstalk`) takes Crosstalk envelopes and
//! `POST /hsp` HSP messages. Each request is validated as its route's
//! protocol, each message stored once (in an inbox directory, or
//! remembered), handed to the receiver, and answered with its ACK, the
//! reply of an `--exec` handler, or an ERROR (NACK for HSP) with its status.

use std::path::PathBuf;

use super::replies::{ack, error, run_handler};
use super::routing::http_path;
use super::stored::{self, Seen, StoreError};
use crate::input::Source;
use crate::protocols::{Found, Protocol, ProtocolSpec, ReadOptions};
use crate::reader::Document;
use crate::transport::server::{Answer, Deliver, Exchange};

/// The paths served, the first of each protocol its own.
const ROUTES: &[&str] = &["/crosstalk/receive", "/hsp"];

/// What the binding does with the messages it takes.
#[derive(Debug, Default)]
pub struct Binding {
    /// Stores each message as `<id>.crosstalk` / `<id>.json` here.
    pub inbox: Option<PathBuf>,
    /// A shell command given each message on stdin; its stdout is the reply.
    pub exec: Option<String>,
    /// Ids already received, for a binding without an inbox directory.
    seen: Seen,
}

impl Binding {
    pub fn new(inbox: Option<PathBuf>, exec: Option<String>) -> Binding {
        Binding {
            inbox,
            exec,
            seen: Seen::default(),
        }
    }

    /// Stores a message unless it came before: `Ok(false)` for a repeat,
    /// the refusal for the same id on other content or a failed write.
    fn store(&self, protocol: Protocol, found: &Found, text: &str) -> Result<bool, Answer> {
        let first_time = match &self.inbox {
            Some(dir) => stored::store(dir, found, text),
            None => self.seen.first_time(found, text),
        };
        first_time.map_err(|e| match e {
            StoreError::Conflict(id) => error(
                protocol,
                409,
                "E-FORMAT",
                &format!("message {id} was received before with different content"),
                Some(found),
            ),
            StoreError::Io(e) => {
                let (status, why) = if e.kind() == std::io::ErrorKind::StorageFull {
                    (507, "the inbox's disk is full".to_string())
                } else {
                    (500, format!("cannot store the message: {e}"))
                };
                error(protocol, status, "E-ROUTE", &why, Some(found))
            }
        })
    }
}

/// The protocol a request's path names, if any.
fn route(path: &str) -> Option<Protocol> {
    match path {
        "/crosstalk/receive" | "/crosstalk" => Some(Protocol::Crosstalk),
        "/hsp" => Some(Protocol::Hsp),
        _ => None,
    }
}

impl Exchange for Binding {
    fn routes(&self) -> &'static [&'static str] {
        ROUTES
    }

    fn serves(&self, path: &str) -> bool {
        route(path).is_some()
    }

    /// An ERROR envelope, or a NACK on `/hsp`.
    fn refuse(&self, path: &str, status: u16, code: &str, why: &str) -> Answer {
        let protocol = route(path).unwrap_or(Protocol::Crosstalk);
        error(protocol, status, code, why, None)
    }

    fn handle(&self, path: &str, body: String, deliver: &mut Deliver<'_>) -> Answer {
        let Some(protocol) = route(path) else {
            return self.refuse(path, 404, "E-ROUTE", &format!("nothing at {path}"));
        };
        let spec = ProtocolSpec {
            protocol,
            version: None,
        };
        let source = Source {
            name: "<http>".into(),
            text: body,
        };
        let doc = Document::from_source(source, Some(spec), &ReadOptions::default());
        if let Some(refusal) = refusal(&doc, protocol) {
            return refusal;
        }
        let mut replies = Vec::new();
        for found in &doc.messages {
            let Some(rendered) = found.render() else {
                continue;
            };
            // Delivered before (a client's retry): acknowledged again, not
            // stored or handed on again. The same id on other content is refused.
            match self.store(protocol, found, &rendered) {
                Ok(true) => {}
                Ok(false) => {
                    replies.push(ack(found));
                    continue;
                }
                Err(refused) => return refused,
            }
            match &self.exec {
                Some(cmd) => match run_handler(cmd, &rendered) {
                    Ok(reply) => replies.push(reply),
                    Err(why) => {
                        let why = format!("the handler failed: {why}");
                        return error(protocol, 502, "E-ROUTE", &why, Some(found));
                    }
                },
                None => replies.push(ack(found)),
            }
            if let Err(why) = deliver(rendered) {
                let why = format!("the receiver failed: {why}");
                return error(protocol, 502, "E-ROUTE", &why, Some(found));
            }
        }
        let (content_type, between) = match protocol {
            Protocol::Crosstalk => ("text/plain; charset=utf-8", "\n"),
            _ => ("application/json", ""),
        };
        Answer {
            status: 200,
            content_type,
            body: replies.join(between),
        }
    }
}

/// The 400 for a request without a message of its route's protocol, or
/// with an invalid one; `None` when every message may be taken.
fn refusal(doc: &Document, protocol: Protocol) -> Option<Answer> {
    let refuse = |why: &str, found| Some(error(protocol, 400, "E-FORMAT", why, found));
    let Some(_) = doc.messages.first() else {
        let why = misrouted(&doc.source.text, protocol)
            .unwrap_or_else(|| format!("no {protocol} message in the request"));
        return refuse(&why, None);
    };
    let bad = doc.messages.iter().find(|f| !f.is_valid(false))?;
    if let Some(why) = misrouted(&doc.source.text, protocol) {
        return refuse(&why, None);
    }
    let why = bad
        .diagnostics
        .iter()
        .find(|d| d.is_error())
        .map_or_else(String::new, |d| {
            format!("line {}: [{}] {}", d.line, d.code, d.message)
        });
    refuse(&format!("invalid message: {why}"), Some(bad))
}

/// When `text` holds a message of another protocol than the route's: what
/// to do instead (the route it belongs to, or that it has none here).
fn misrouted(text: &str, route: Protocol) -> Option<String> {
    let source = Source {
        name: "<http>".into(),
        text: text.to_string(),
    };
    let doc = Document::from_source(source, None, &ReadOptions::default());
    let found = doc.messages.first().filter(|f| f.protocol != route)?;
    let what = found.protocol;
    Some(match http_path(found.protocol) {
        Some(path) => {
            format!("this is a message of protocol {what}, not {route}: POST it to {path}")
        }
        None => format!(
            "this is a message of protocol {what}: the HTTP binding takes crosstalk (POST /crosstalk/receive) \
             and hsp (POST /hsp); convert it to one of them first"
        ),
    })
}
