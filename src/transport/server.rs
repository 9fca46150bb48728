//! The receiving side of the HTTP binding: `POST /crosstalk/receive` (and
//! `/hsp`) are validated, stored atomically in an inbox, handed to the
//! receiver, and answered with an ACK, the reply of an `--exec` handler, or
//! an ERROR with its status. `aiproto serve`, and `recv`/`relay` from an
//! `http://` URI (see [`super::http`]), run it.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::input::Source;
use crate::protocols::crosstalk::{self, Envelope};
use crate::protocols::hsp;
use crate::protocols::{Found, Protocol, ProtocolSpec, ReadOptions, Value};
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
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            inbox: None,
            exec: None,
            max_bytes: MAX_BYTES,
            rate: None,
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

/// What the server answered, for the log line.
struct Answer {
    status: u16,
    content_type: &'static str,
    body: String,
}

/// Serves until `until` says stop, one request at a time, so that nothing
/// is half-written when it stops. `ready` is told the bound address; `log`
/// prints a line per request on stderr. A receiver that fails gets its
/// request answered 502 and ends the server with its error.
pub fn serve(
    listen: &str,
    options: &ServeOptions,
    until: &Until,
    log: bool,
    ready: impl FnOnce(SocketAddr),
    on_message: &mut OnMessage<'_>,
) -> anyhow::Result<Served> {
    let server = tiny_http::Server::http(listen)
        .map_err(|e| std::io::Error::other(format!("cannot listen on {listen}: {e}")))?;
    let addr = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| std::io::Error::other("not an IP listener"))?;
    ready(addr);
    let mut bucket = options.rate.map(|r| (f64::from(r), Instant::now()));
    let mut receiver = Receiver {
        on_message,
        stop: false,
        failed: None,
    };
    while !until.stop.load(Ordering::SeqCst) && !receiver.stop {
        if until.deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(Served::Timeout);
        }
        let Some(mut request) = server.recv_timeout(Duration::from_millis(100))? else {
            continue;
        };
        let answer = handle(&mut request, options, &mut bucket, &mut receiver);
        if log {
            eprintln!("{} {} → {}", request.method(), request.url(), answer.status);
        }
        let header =
            tiny_http::Header::from_bytes(&b"Content-Type"[..], answer.content_type.as_bytes())
                .map_err(|()| std::io::Error::other("bad header"))?;
        let response = tiny_http::Response::from_string(answer.body)
            .with_status_code(answer.status)
            .with_header(header);
        // A client that went away is its own problem, not the server's.
        let _ = request.respond(response);
        if let Some(e) = receiver.failed.take() {
            return Err(e);
        }
    }
    Ok(Served::Stopped)
}

/// The receiver and what it said.
struct Receiver<'r, 'h> {
    on_message: &'r mut OnMessage<'h>,
    stop: bool,
    failed: Option<anyhow::Error>,
}

fn handle(
    request: &mut tiny_http::Request,
    options: &ServeOptions,
    bucket: &mut Option<(f64, Instant)>,
    receiver: &mut Receiver<'_, '_>,
) -> Answer {
    let path = request.url().split('?').next().unwrap_or("").to_string();
    let protocol = match path.as_str() {
        "/crosstalk/receive" | "/crosstalk" => Protocol::Crosstalk,
        "/hsp" => Protocol::Hsp,
        _ => {
            return error(
                Protocol::Crosstalk,
                404,
                "E-ROUTE",
                &format!("nothing at {path}: POST to /crosstalk/receive or /hsp"),
                None,
            );
        }
    };
    if *request.method() != tiny_http::Method::Post {
        return error(
            protocol,
            405,
            "E-UNSUPPORTED",
            "only POST is accepted",
            None,
        );
    }
    if let (Some(rate), Some((tokens, last))) = (options.rate, bucket.as_mut()) {
        let now = Instant::now();
        *tokens = (*tokens + now.duration_since(*last).as_secs_f64() * f64::from(rate))
            .min(f64::from(rate));
        *last = now;
        if *tokens < 1.0 {
            return error(
                protocol,
                429,
                "E-RATE",
                &format!("more than {rate} requests per second"),
                None,
            );
        }
        *tokens -= 1.0;
    }
    let mut body = Vec::new();
    let limit = options.max_bytes as u64 + 1;
    if let Err(e) = request.as_reader().take(limit).read_to_end(&mut body) {
        return error(
            protocol,
            400,
            "E-FORMAT",
            &format!("cannot read the request: {e}"),
            None,
        );
    }
    if body.len() > options.max_bytes {
        return error(
            protocol,
            413,
            "E-TOO-LARGE",
            &format!("the message is over {} bytes", options.max_bytes),
            None,
        );
    }
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
        (None, _) => return error(protocol, 400, "E-FORMAT", "no message in the request", None),
        (_, Some(bad)) => {
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
    for found in &doc.messages {
        let Some(rendered) = found.render() else {
            continue;
        };
        if let Some(dir) = &options.inbox
            && let Err(e) = store(dir, found, &rendered)
        {
            return error(
                protocol,
                500,
                "E-ROUTE",
                &format!("cannot store the message: {e}"),
                Some(found),
            );
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
                        Some(found),
                    );
                }
            },
            None => replies.push(ack(found)),
        }
        match (receiver.on_message)(found, &rendered) {
            Ok(stop) => receiver.stop |= stop,
            Err(e) => {
                let answer = error(
                    protocol,
                    502,
                    "E-ROUTE",
                    &format!("the receiver failed: {e:#}"),
                    Some(found),
                );
                receiver.failed = Some(e);
                return answer;
            }
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

/// Writes a message into the inbox under a name made of its id's safe
/// characters only, via a temporary file and a rename: never half a file,
/// never outside the inbox, never over another message.
fn store(dir: &Path, found: &Found, text: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let ext = if found.protocol == Protocol::Crosstalk {
        "crosstalk"
    } else {
        "json"
    };
    let id: String = found
        .id()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(80)
        .collect();
    let stem = if id.is_empty() {
        crate::ids::new_ulid()
    } else {
        id
    };
    let tmp = dir.join(format!(".{stem}.{}.tmp", std::process::id()));
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    for n in 0.. {
        let name = if n == 0 {
            format!("{stem}.{ext}")
        } else {
            format!("{stem}-{n}.{ext}")
        };
        let target = dir.join(name);
        // hard_link fails when the target exists: no message is ever replaced.
        match std::fs::hard_link(&tmp, &target) {
            Ok(()) => {
                std::fs::remove_file(&tmp)?;
                return Ok(target);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                return Err(e);
            }
        }
    }
    unreachable!("the loop returns")
}

fn run_handler(cmd: &str, message: &str) -> Result<String, String> {
    let mut child = std::process::Command::new("sh")
        .args(["-c", cmd])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `{cmd}`: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(message.as_bytes());
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("`{cmd}` exited with {}", out.status));
    }
    String::from_utf8(out.stdout).map_err(|_| "the handler's reply is not UTF-8".into())
}

/// The ACK of a received message, in its own protocol.
fn ack(found: &Found) -> String {
    match &found.value {
        Value::Crosstalk(p) => {
            crosstalk::render(&reply_envelope(Some(&p.envelope), "ACK", "Received."))
        }
        Value::Hsp(m) => {
            let json = m.as_ref().map(|m| &m.json);
            hsp_reply(json, hsp::compose::Kind::Ack, serde_json::Map::new())
        }
        // No route takes CSDL or MSP yet; a plain JSON receipt if one does.
        Value::Csdl(_) | Value::Msp(_) => json!({"status": "received"}).to_string(),
    }
}

/// A Crosstalk reply from this server: receiver and sender swapped, same thread.
fn reply_envelope(original: Option<&Envelope>, intent: &str, body: &str) -> Envelope {
    let o = original.cloned().unwrap_or_default();
    Envelope {
        sender: if o.receiver.is_empty() {
            "SYSTEM".into()
        } else {
            o.receiver.clone()
        },
        receiver: if o.sender.is_empty() {
            "UNKNOWN".into()
        } else {
            o.sender.clone()
        },
        version_token: "v1".into(),
        user: Some("system".into()),
        session: o.session.clone(),
        thread: o.thread.clone().or(o.message.clone()),
        parent: o.message.clone(),
        message: Some(crate::ids::new_ulid()),
        context: o.context.clone(),
        intent: Some(intent.into()),
        body: Some(body.into()),
        sig: Some("none".into()),
        ..Envelope::default()
    }
}

/// An HSP ACK or NACK answering `original` (when it could be read), as one JSON line.
fn hsp_reply(
    original: Option<&serde_json::Value>,
    kind: hsp::compose::Kind,
    payload: serde_json::Map<String, serde_json::Value>,
) -> String {
    let envelope = hsp::compose::acknowledge(original, kind, payload, "did:aiproto:server");
    envelope.map_or_else(
        |e| json!({"error": e.to_string()}).to_string(),
        |env| serde_json::to_string(&env).unwrap_or_default(),
    )
}

/// An ERROR envelope (Crosstalk) or a NACK (HSP) with an HTTP status.
fn error(
    protocol: Protocol,
    status: u16,
    code: &str,
    reason: &str,
    found: Option<&Found>,
) -> Answer {
    match protocol {
        Protocol::Crosstalk => {
            let original = found.and_then(|f| match &f.value {
                Value::Crosstalk(p) => Some(&p.envelope),
                _ => None,
            });
            let mut env = reply_envelope(original, "ERROR", reason);
            env.set_error(
                code,
                Some(reason),
                original.and_then(|o| o.intent.as_deref()),
            );
            Answer {
                status,
                content_type: "text/plain; charset=utf-8",
                body: crosstalk::render(&env),
            }
        }
        Protocol::Hsp | Protocol::Csdl | Protocol::Msp => {
            let json = found.and_then(|f| match &f.value {
                Value::Hsp(Some(m)) => Some(&m.json),
                _ => None,
            });
            let mut payload = serde_json::Map::new();
            payload.insert("error_code".into(), code.into());
            payload.insert("error_message".into(), reason.into());
            Answer {
                status,
                content_type: "application/json",
                body: hsp_reply(json, hsp::compose::Kind::Nack, payload),
            }
        }
    }
}
