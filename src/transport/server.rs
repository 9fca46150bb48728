//! The receiving side of the HTTP binding: `POST /crosstalk/receive` (and
//! `/hsp`) are validated, stored atomically in an inbox, handed to the
//! receiver, and answered with an ACK, the reply of an `--exec` handler, or
//! an ERROR with its status. `aiproto serve`, and `recv`/`relay` from an
//! `http://` URI (see [`super::http`]), run it.

use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use super::http_conn::{self, ReadError, Request};
use super::server_inbox as inbox;
use super::server_replies::{Answer, ack, error, run_handler};
use crate::input::Source;
use crate::protocols::{Found, Protocol, ProtocolSpec, ReadOptions};
use crate::reader::Document;

/// The largest request body accepted by default.
pub const MAX_BYTES: usize = 1024 * 1024;

/// How the server behaves.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub inbox: Option<PathBuf>,
    /// A shell command given each message on stdin; its stdout is the reply.
    pub exec: Option<String>,
    /// Bodies larger than this are refused with 413.
    pub max_bytes: usize,
    /// Requests per second allowed (a token bucket of this size); None: no limit.
    pub rate: Option<u32>,
    /// Requests handled at once; more get 503 at once.
    pub max_connections: usize,
    /// How long a client may take to send its request headers, and its
    /// body: past it, 408 and the connection is closed.
    pub read_timeout: Duration,
}

/// The default `--max-connections`.
pub const MAX_CONNECTIONS: usize = 64;
/// The default `--read-timeout`, in seconds.
pub const READ_TIMEOUT_SECS: u64 = 10;

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            inbox: None,
            exec: None,
            max_bytes: MAX_BYTES,
            rate: None,
            max_connections: MAX_CONNECTIONS,
            read_timeout: Duration::from_secs(READ_TIMEOUT_SECS),
        }
    }
}

/// Until when the server runs: `stop` set (a signal, the receiver), or the deadline.
pub struct Until {
    pub stop: Arc<AtomicBool>,
    pub deadline: Option<Instant>,
}

/// How serving ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Served {
    Stopped,
    Timeout,
}

/// The receiver of each valid message (after the inbox and the handler);
/// `Ok(true)` stops the server once this request is answered.
pub type OnMessage<'h> = dyn FnMut(&Found, &str) -> anyhow::Result<bool> + 'h;

/// A valid message read by a worker, for the receiver on the serving thread.
struct Job {
    found: Found,
    rendered: String,
    /// The message back, with the receiver's answer: `Ok(stop)`, or why it failed.
    done: mpsc::Sender<(Found, Result<bool, String>)>,
}

/// Serves until `until` says stop. Each request is read, checked and
/// stored on a worker thread of its own (at most `max_connections` at
/// once), so a slow client holds up nobody else; every read has a deadline
/// (408 past it). The receiver gets each message on this thread, in the
/// order the workers finish. `ready` is told the bound address; `log`
/// prints a line per request on stderr. A receiver that fails gets its
/// request answered 502 and ends the server with its error. On stop, the
/// requests in hand are finished first.
pub fn serve(
    listen: &str,
    options: &ServeOptions,
    until: &Until,
    log: bool,
    ready: impl FnOnce(SocketAddr),
    on_message: &mut OnMessage<'_>,
) -> anyhow::Result<Served> {
    let listener = std::net::TcpListener::bind(listen)
        .map_err(|e| std::io::Error::other(format!("cannot listen on {listen}: {e}")))?;
    listener.set_nonblocking(true)?;
    ready(listener.local_addr()?);
    let shared = Arc::new(Shared {
        options: options.clone(),
        seen: inbox::Seen::default(),
        bucket: Mutex::new(options.rate.map(|r| (f64::from(r), Instant::now()))),
        log,
    });
    let active = Arc::new(AtomicUsize::new(0));
    let refusing = Arc::new(AtomicUsize::new(0));
    let (jobs, job_queue) = mpsc::channel::<Job>();
    let mut stop = false;
    let mut failed: Option<anyhow::Error> = None;
    let mut ended = Served::Stopped;
    loop {
        // The receiver, for every message the workers have finished.
        while let Ok(job) = job_queue.try_recv() {
            let answer = match on_message(&job.found, &job.rendered) {
                Ok(s) => {
                    stop |= s;
                    Ok(s)
                }
                Err(e) => {
                    let why = format!("{e:#}");
                    failed.get_or_insert(e);
                    stop = true;
                    Err(why)
                }
            };
            let _ = job.done.send((job.found, answer));
        }
        if stop || until.stop.load(Ordering::SeqCst) {
            stop = true;
        } else if until.deadline.is_some_and(|d| Instant::now() >= d) {
            stop = true;
            ended = Served::Timeout;
        }
        if stop {
            if active.load(Ordering::SeqCst) == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        let _ = stream.set_nonblocking(false);
        if active.load(Ordering::SeqCst) >= options.max_connections {
            refuse_busy(stream, &shared, &refusing);
            continue;
        }
        active.fetch_add(1, Ordering::SeqCst);
        let (shared, active, jobs) = (Arc::clone(&shared), Arc::clone(&active), jobs.clone());
        std::thread::spawn(move || {
            serve_connection(stream, &shared, &jobs);
            active.fetch_sub(1, Ordering::SeqCst);
        });
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(ended),
    }
}

/// What the workers share.
struct Shared {
    options: ServeOptions,
    /// Ids already received, for servers without an inbox directory.
    seen: inbox::Seen,
    /// The `--rate` token bucket: tokens left, and when it was last filled.
    bucket: Mutex<Option<(f64, Instant)>>,
    log: bool,
}

/// One connection: its request read under the deadline, handled, answered.
fn serve_connection(stream: TcpStream, shared: &Shared, jobs: &mpsc::Sender<Job>) {
    let deadline = Instant::now() + shared.options.read_timeout;
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let mut request = match Request::read_head(reader, deadline) {
        Ok(request) => request,
        Err(e) => return refuse_unread(stream, e, shared),
    };
    let answer = handle(&mut request, shared, jobs);
    if shared.log {
        eprintln!("{} {} → {}", request.method, request.path, answer.status);
    }
    request.respond(answer.status, answer.content_type, &answer.body);
}

/// Answers a connection whose request could not be read: 408 past the
/// deadline, the parser's status for what is not HTTP.
fn refuse_unread(stream: TcpStream, e: ReadError, shared: &Shared) {
    let (status, code, why) = match e {
        ReadError::Timeout => (
            408,
            "E-TIMEOUT",
            format!(
                "the request did not arrive within {} s",
                shared.options.read_timeout.as_secs_f64()
            ),
        ),
        ReadError::Malformed(status, why) => (status, "E-FORMAT", why),
        ReadError::Io(_) => return,
    };
    if shared.log {
        eprintln!("(unread request) → {status}");
    }
    let answer = error(Protocol::Crosstalk, status, code, &why, None);
    http_conn::respond_raw(stream, answer.status, answer.content_type, &answer.body);
}

/// How long a refused connection's request is read before the answer.
const REFUSAL_PATIENCE: Duration = Duration::from_millis(250);

/// Answers 503 to a connection over `max_connections`, on a short-lived
/// thread of its own that first reads the request for a moment (a
/// connection closed with unread data is reset, and the client would never
/// see the answer). Past four times `max_connections` refusals at once, the
/// connection is just closed.
fn refuse_busy(stream: TcpStream, shared: &Arc<Shared>, refusing: &Arc<AtomicUsize>) {
    if refusing.load(Ordering::SeqCst) >= 4 * shared.options.max_connections {
        return;
    }
    refusing.fetch_add(1, Ordering::SeqCst);
    let (shared, refusing) = (Arc::clone(shared), Arc::clone(refusing));
    std::thread::spawn(move || {
        let deadline = Instant::now() + shared.options.read_timeout.min(REFUSAL_PATIENCE);
        if let Ok(reader) = stream.try_clone()
            && let Ok(mut request) = Request::read_head(reader, deadline)
        {
            let protocol = route(&request.path).unwrap_or(Protocol::Crosstalk);
            let _ = request.read_body(shared.options.max_bytes, deadline);
            let max = shared.options.max_connections;
            let answer = error(
                protocol,
                503,
                "E-RATE",
                &format!("busy: {max} requests in hand"),
                None,
            );
            if shared.log {
                eprintln!("{} {} → 503", request.method, request.path);
            }
            request.respond(answer.status, answer.content_type, &answer.body);
        }
        refusing.fetch_sub(1, Ordering::SeqCst);
    });
}

/// The protocol a request's path names, if any.
fn route(path: &str) -> Option<Protocol> {
    match path {
        "/crosstalk/receive" | "/crosstalk" => Some(Protocol::Crosstalk),
        "/hsp" => Some(Protocol::Hsp),
        _ => None,
    }
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
    Some(match crate::transport::http::route_of(found.protocol) {
        Some(path) => {
            format!("this is a message of protocol {what}, not {route}: POST it to {path}")
        }
        None => format!(
            "this is a message of protocol {what}: the HTTP binding takes crosstalk (POST /crosstalk/receive) \
             and hsp (POST /hsp); convert it to one of them first"
        ),
    })
}

/// The token bucket: `Some(429)` when this request is one too many.
fn rate_limited(shared: &Shared, protocol: Protocol) -> Option<Answer> {
    let rate = shared.options.rate?;
    let mut guard = shared.bucket.lock().ok()?;
    let (tokens, last) = guard.as_mut()?;
    let now = Instant::now();
    *tokens =
        (*tokens + now.duration_since(*last).as_secs_f64() * f64::from(rate)).min(f64::from(rate));
    *last = now;
    if *tokens < 1.0 {
        return Some(error(
            protocol,
            429,
            "E-RATE",
            &format!("more than {rate} requests per second"),
            None,
        ));
    }
    *tokens -= 1.0;
    None
}

fn handle(request: &mut Request, shared: &Shared, jobs: &mpsc::Sender<Job>) -> Answer {
    let options = &shared.options;
    let Some(protocol) = route(&request.path) else {
        return error(
            Protocol::Crosstalk,
            404,
            "E-ROUTE",
            &format!(
                "nothing at {}: POST to /crosstalk/receive or /hsp",
                request.path
            ),
            None,
        );
    };
    if request.method != "POST" {
        return error(
            protocol,
            405,
            "E-UNSUPPORTED",
            "only POST is accepted",
            None,
        );
    }
    if let Some(answer) = rate_limited(shared, protocol) {
        return answer;
    }
    let deadline = Instant::now() + options.read_timeout;
    let body = match request.read_body(options.max_bytes, deadline) {
        Ok(Some(body)) => body,
        Ok(None) => {
            return error(
                protocol,
                413,
                "E-TOO-LARGE",
                &format!("the message is over {} bytes", options.max_bytes),
                None,
            );
        }
        Err(ReadError::Timeout) => {
            return error(
                protocol,
                408,
                "E-TIMEOUT",
                &format!(
                    "the request body did not arrive within {} s",
                    options.read_timeout.as_secs_f64()
                ),
                None,
            );
        }
        Err(e) => {
            return error(
                protocol,
                400,
                "E-FORMAT",
                &format!("cannot read the request: {e}"),
                None,
            );
        }
    };
    let Ok(text) = String::from_utf8(body) else {
        return error(
            protocol,
            400,
            "E-FORMAT",
            "the message is not UTF-8 text",
            None,
        );
    };
    let spec = ProtocolSpec {
        protocol,
        version: None,
    };
    let doc = Document::from_source(
        Source {
            name: "<http>".into(),
            text,
        },
        Some(spec),
        &ReadOptions::default(),
    );
    let first = doc.messages.first();
    let invalid = doc.messages.iter().find(|f| !f.is_valid(false));
    match (first, invalid) {
        (None, _) => {
            let why = misrouted(&doc.source.text, protocol)
                .unwrap_or_else(|| format!("no {protocol} message in the request"));
            return error(protocol, 400, "E-FORMAT", &why, None);
        }
        (_, Some(bad)) => {
            if let Some(why) = misrouted(&doc.source.text, protocol) {
                return error(protocol, 400, "E-FORMAT", &why, None);
            }
            let why = bad
                .diagnostics
                .iter()
                .find(|d| d.is_error())
                .map_or_else(String::new, |d| {
                    format!("line {}: [{}] {}", d.line, d.code, d.message)
                });
            return error(
                protocol,
                400,
                "E-FORMAT",
                &format!("invalid message: {why}"),
                Some(bad),
            );
        }
        _ => {}
    }
    let mut replies = Vec::new();
    for found in doc.messages {
        let Some(rendered) = found.render() else {
            continue;
        };
        // Delivered before (a client's retry): acknowledged again, not
        // stored or handed on again. The same id on other content is refused.
        let first_time = match &options.inbox {
            Some(dir) => inbox::store(dir, &found, &rendered),
            None => shared.seen.first_time(&found, &rendered),
        };
        match first_time {
            Ok(true) => {}
            Ok(false) => {
                replies.push(ack(&found));
                continue;
            }
            Err(inbox::StoreError::Conflict(id)) => {
                return error(
                    protocol,
                    409,
                    "E-FORMAT",
                    &format!("message {id} was received before with different content"),
                    Some(&found),
                );
            }
            Err(inbox::StoreError::Io(e)) => {
                let (status, why) = if e.kind() == std::io::ErrorKind::StorageFull {
                    (507, "the inbox's disk is full".to_string())
                } else {
                    (500, format!("cannot store the message: {e}"))
                };
                return error(protocol, status, "E-ROUTE", &why, Some(&found));
            }
        }
        match &options.exec {
            Some(cmd) => match run_handler(cmd, &rendered) {
                Ok(reply) => replies.push(reply),
                Err(why) => {
                    return error(
                        protocol,
                        502,
                        "E-ROUTE",
                        &format!("the handler failed: {why}"),
                        Some(&found),
                    );
                }
            },
            None => replies.push(ack(&found)),
        }
        // The receiver runs on the serving thread; wait for its word.
        let (done, answer) = mpsc::channel();
        let sent = jobs.send(Job {
            found,
            rendered,
            done,
        });
        let stopped = || (None, Err("the server stopped".to_string()));
        let (found, verdict) = match sent {
            Ok(()) => answer
                .recv()
                .map_or_else(|_| stopped(), |(found, verdict)| (Some(found), verdict)),
            Err(_) => stopped(),
        };
        if let Err(why) = verdict {
            return error(
                protocol,
                502,
                "E-ROUTE",
                &format!("the receiver failed: {why}"),
                found.as_ref(),
            );
        }
    }
    let content_type = if protocol == Protocol::Crosstalk {
        "text/plain; charset=utf-8"
    } else {
        "application/json"
    };
    Answer {
        status: 200,
        content_type,
        body: replies.join(if protocol == Protocol::Crosstalk {
            "\n"
        } else {
            ""
        }),
    }
}
