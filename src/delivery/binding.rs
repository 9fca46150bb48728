//! The HTTP binding of the protocols, on the receiving side: `POST
//! /crosstalk/receive` (or `/crosstalk`) takes Crosstalk envelopes and
//! `POST /hsp` (or the upstream connector's `/message`) HSP messages;
//! `GET /health` answers 200. Each request is validated as its route's
//! protocol; each message new to the server is handed to the `--exec`
//! handler, then stored (in an inbox directory, or remembered) and handed
//! to the receiver, and answered with its ACK, the handler's reply, or an
//! ERROR (NACK for HSP) with its status.
//!
//! The guarantee: a message is stored only once its handler succeeded, so
//! a client's retry after a failure runs the handler again, and a retry
//! after success is acknowledged without running it a second time
//! (at-least-once to the handler: two copies arriving at the same moment
//! may both run it; exactly-once acknowledgement).

use std::path::PathBuf;

use super::handler::Handler;
use super::replies::{ack, error};
use super::routing::http_path;
use super::stored::{self, Kept, Quota, Seen, StoreError};
use crate::input::Source;
use crate::protocols::{Found, Protocol, ProtocolSpec, ReadOptions};
use crate::reader::Document;
use crate::transport::server::{Answer, Deliver, Exchange};

/// The paths served, the first of each protocol its own; `/message` is
/// where the upstream HSP connector (Unified-AI-Project's
/// `ExternalConnector`) POSTs an HSP envelope.
const ROUTES: &[&str] = &["/crosstalk/receive", "/hsp", "/message"];

/// What the binding does with the messages it takes.
#[derive(Debug, Default)]
pub struct Binding {
    /// Stores each message as `<id>.crosstalk` / `<id>.json` here, within
    /// its quota.
    pub inbox: Option<(PathBuf, Quota)>,
    /// A shell command given each message on stdin; its stdout is the reply.
    pub exec: Option<Handler>,
    /// Ids already received, for a binding without an inbox directory.
    seen: Seen,
}

impl Binding {
    pub fn new(inbox: Option<(PathBuf, Quota)>, exec: Option<Handler>) -> Binding {
        Binding {
            inbox,
            exec,
            seen: Seen::default(),
        }
    }

    /// Whether a message came before (a client's retry), without keeping it.
    fn came_before(&self, protocol: Protocol, found: &Found, text: &str) -> Result<bool, Answer> {
        let known = match &self.inbox {
            Some((dir, _)) => stored::stored_before(dir, found, text),
            None => self.seen.known(found, text),
        };
        known.map_err(|e| self.refusal(protocol, found, e))
    }

    /// Stores a message (within the inbox's quota: 507 past it), or the
    /// refusal for a failed write.
    fn store(&self, protocol: Protocol, found: &Found, text: &str) -> Result<Kept, Answer> {
        let first_time = match &self.inbox {
            Some((dir, quota)) => {
                let bytes = text.len() as u64;
                quota
                    .take(bytes)
                    .map_err(|why| error(protocol, 507, "E-ROUTE", &why, Some(found)))?;
                let stored = stored::store(dir, found, text);
                if !matches!(stored, Ok(Kept::New | Kept::OtherContent)) {
                    quota.give_back(bytes);
                }
                stored
            }
            None => self.seen.first_time(found, text),
        };
        first_time.map_err(|e| self.refusal(protocol, found, e))
    }

    /// The answer to a message that could not be stored.
    fn refusal(&self, protocol: Protocol, found: &Found, e: StoreError) -> Answer {
        match e {
            StoreError::Io(e) => {
                let (status, why) = if e.kind() == std::io::ErrorKind::StorageFull {
                    (507, "the inbox's disk is full".to_string())
                } else {
                    (500, format!("cannot store the message: {e}"))
                };
                error(protocol, status, "E-ROUTE", &why, Some(found))
            }
        }
    }
}

/// The protocol a request's path names, if any.
fn route(path: &str) -> Option<Protocol> {
    match path {
        "/crosstalk/receive" | "/crosstalk" => Some(Protocol::Crosstalk),
        "/hsp" | "/message" => Some(Protocol::Hsp),
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

    /// `GET /health`: 200 while the server takes messages (the upstream
    /// connector's `connect()` probes it).
    fn health(&self) -> Option<Answer> {
        Some(Answer {
            status: 200,
            content_type: "application/json",
            body: "{\"status\":\"ok\"}\n".into(),
        })
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
            // Handled, stored and handed on as the client wrote it.
            let Some(rendered) = found.written(&doc.source.text) else {
                continue;
            };
            // Delivered before (a client's retry): acknowledged again, not
            // handled, stored or handed on again.
            match self.came_before(protocol, found, &rendered) {
                Ok(true) => {
                    replies.push(ack(found));
                    continue;
                }
                Ok(false) => {}
                Err(refused) => return refused,
            }
            // The handler first: a message is kept only once it was handled.
            let reply = match &self.exec {
                Some(handler) => match handler.run(&rendered) {
                    Ok(reply) => reply,
                    Err(why) => {
                        let why = format!("the handler failed: {why}");
                        return error(protocol, 502, "E-ROUTE", &why, Some(found));
                    }
                },
                None => ack(found),
            };
            match self.store(protocol, found, &rendered) {
                // A copy sent at the same moment was kept first: handed on once.
                Ok(Kept::Before) => {
                    replies.push(reply);
                    continue;
                }
                Ok(Kept::New) => {}
                // Another message under a seen id: never dropped for the
                // first to come (it may be the real one), and said.
                Ok(Kept::OtherContent) => eprintln!(
                    "aiproto: warning: message {} came before with other content; this one is kept and handed on too (another sender's, or an edited copy: verify its signature)",
                    crate::output::escape_controls(found.id().unwrap_or_default())
                ),
                Err(refused) => return refused,
            }
            if let Err(why) = deliver(rendered) {
                let why = format!("the receiver failed: {why}");
                return error(protocol, 502, "E-ROUTE", &why, Some(found));
            }
            replies.push(reply);
        }
        // Several HSP messages in one request (an array, JSON Lines) get
        // their ACKs as JSON Lines: one JSON object per line.
        let (content_type, between) = match protocol {
            Protocol::Crosstalk => ("text/plain; charset=utf-8", "\n"),
            _ if replies.len() > 1 => ("application/x-ndjson", "\n"),
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
