//! `aiproto desk`: the relay desk, a single page served on loopback for the
//! person who copies envelopes between chat assistants. Paste a reply, see
//! each message checked with its findings at their lines, answer, copy for
//! the other chat, keep the archive. A face beside the command line and the
//! MCP server: the page's API calls [`crate::operations`], never a command.

mod api;
mod assets;
mod guard;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::operations::Context;
use crate::transport::admission::{AcceptBackoff, Admission, Limits, Ticket};
use crate::transport::http_conn::{self, BodyDeadline, MIN_BODY_RATE, ReadError, Request};
pub use guard::Guard;

/// How the desk serves.
#[derive(Debug, Clone)]
pub struct Options {
    /// `ADDR:PORT` to listen on; port 0 picks a free one.
    pub listen: String,
    /// The conversation archive the page adds to and draws the tree of.
    pub archive: PathBuf,
    /// The largest request body (413 past it), as `serve`.
    pub max_bytes: usize,
    /// How long a client may take to send its request (408 past it).
    pub read_timeout: Duration,
    /// Requests handled at once (their head arrived); more get 503.
    pub max_connections: usize,
    /// Connections one client address may hold open; more are closed.
    pub max_per_client: usize,
    /// A line per request on stderr.
    pub log: bool,
}

/// What every connection's worker shares.
struct Desk {
    ctx: Context,
    guard: Guard,
    options: Options,
}

/// Serves the page and its API until `stop` is set. `ready` is told the
/// bound address and the page's URL (with its token).
pub fn serve(
    options: Options,
    stop: &AtomicBool,
    ready: impl FnOnce(SocketAddr, &str),
) -> anyhow::Result<()> {
    let listener = TcpListener::bind(&options.listen)
        .map_err(|e| std::io::Error::other(format!("cannot listen on {}: {e}", options.listen)))?;
    let address = listener.local_addr()?;
    let guard = Guard::new(address.port())?;
    ready(address, &guard.url(address));
    let desk = Arc::new(Desk {
        ctx: Context {
            // The page hands over texts, never paths: no file is readable by name.
            sandbox: crate::operations::Sandbox::new(&[]).map_err(anyhow::Error::msg)?,
            archive: Some(options.archive.clone()),
            allow_network: false,
            // The person's own page: they sign with a click.
            allow_signing: true,
            person_composes: true,
            max_bytes: options.max_bytes,
        },
        guard,
        options,
    });
    let admission = Admission::new(Limits {
        max_connections: desk.options.max_connections,
        max_per_client: desk.options.max_per_client,
        rate: None,
    });
    // `accept` blocks (no polling delay on a request); once `stop` is set,
    // a connection of our own wakes it.
    // (The waker also ends when accepting failed.)
    let ended = AtomicBool::new(false);
    std::thread::scope(|scope| -> anyhow::Result<()> {
        scope.spawn(|| {
            while !stop.load(Ordering::SeqCst) && !ended.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(50));
            }
            if !ended.load(Ordering::SeqCst) {
                let _ = TcpStream::connect(wake_address(address));
            }
        });
        let accepted = accept_until(&listener, stop, &desk, &admission);
        ended.store(true, Ordering::SeqCst);
        accepted
    })?;
    // Let the requests in hand finish (their reads have deadlines).
    let deadline = Instant::now() + Duration::from_secs(5);
    while admission.open() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

/// Where to connect to reach a listener (an unspecified address is reached on loopback).
fn wake_address(address: SocketAddr) -> SocketAddr {
    let mut to = address;
    if to.ip().is_unspecified() {
        to.set_ip(match to.ip() {
            std::net::IpAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            std::net::IpAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    to
}

/// Accepts connections, each served on a thread of its own, until `stop`:
/// as many as the admission allows, running out of descriptors waited out.
fn accept_until(
    listener: &TcpListener,
    stop: &AtomicBool,
    desk: &Arc<Desk>,
    admission: &Arc<Admission>,
) -> anyhow::Result<()> {
    let mut backoff = AcceptBackoff::default();
    loop {
        let accepted = listener.accept();
        if stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        let Some((stream, ticket)) = admission.take(accepted, &mut backoff)? else {
            continue;
        };
        let desk = Arc::clone(desk);
        std::thread::spawn(move || serve_connection(stream, &desk, ticket));
    }
}

/// The headers of every answer: nothing but this origin's own files may
/// load, run or be framed, and nothing is cached.
const SECURITY_HEADERS: [(&str, &str); 7] = [
    (
        "Content-Security-Policy",
        "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
    ("Cache-Control", "no-store"),
];

/// An answer: status, content type, body, and a cookie to set.
struct Answer {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    set_cookie: Option<String>,
}

impl Answer {
    fn json(status: u16, value: &serde_json::Value) -> Answer {
        Answer {
            status,
            content_type: "application/json",
            body: value.to_string().into_bytes(),
            set_cookie: None,
        }
    }

    fn error(status: u16, message: impl Into<String>) -> Answer {
        Answer::json(status, &json!({ "error": message.into() }))
    }

    fn send(self, request: Request) {
        let mut headers = SECURITY_HEADERS.to_vec();
        if let Some(cookie) = &self.set_cookie {
            headers.push(("Set-Cookie", cookie));
        }
        request.respond_with(self.status, self.content_type, &headers, &self.body);
    }
}

/// One connection: its head read under the deadline, a place among the
/// requests in hand taken (503 when there is none), handled, answered.
fn serve_connection(stream: TcpStream, desk: &Desk, mut ticket: Ticket) {
    let started = Instant::now();
    let deadline = started + desk.options.read_timeout;
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let mut request = match Request::read_head(reader, deadline) {
        Ok(request) => request,
        Err(e) => return refuse_unread(stream, &e, desk),
    };
    let answer = if ticket.start() {
        handle(
            &mut request,
            desk,
            BodyDeadline::new(started, desk.options.read_timeout),
        )
    } else {
        // Its body read for a moment first: a connection closed with
        // unread data is reset, and the page would never see the answer.
        let patience = desk.options.read_timeout.min(Duration::from_millis(250));
        let _ = request.read_body(
            desk.options.max_bytes,
            BodyDeadline::new(Instant::now(), patience),
        );
        Answer::error(
            503,
            format!("busy: {} requests in hand", desk.options.max_connections),
        )
    };
    if desk.options.log {
        eprintln!("{} {} → {}", request.method, request.path, answer.status);
    }
    answer.send(request);
}

fn refuse_unread(stream: TcpStream, e: &ReadError, desk: &Desk) {
    let (status, why) = match e {
        ReadError::Timeout => (
            408,
            format!(
                "the request did not arrive within {} s",
                desk.options.read_timeout.as_secs_f64()
            ),
        ),
        ReadError::Malformed(status, why) => (*status, why.clone()),
        ReadError::Io(_) => return,
    };
    let body = json!({ "error": why }).to_string();
    http_conn::respond_raw(stream, status, "application/json", &body);
}

fn handle(request: &mut Request, desk: &Desk, deadline: BodyDeadline) -> Answer {
    if let Err(why) = desk.guard.check_host(request) {
        return Answer::error(403, why);
    }
    if let Some(asset) = assets::find(&request.path) {
        if request.method != "GET" && request.method != "HEAD" {
            return Answer::error(405, format!("{} is read with GET", request.path));
        }
        return Answer {
            status: 200,
            content_type: asset.content_type,
            body: asset.body.to_vec(),
            set_cookie: None,
        };
    }
    let Some(operation) = request.path.strip_prefix("/api/").map(str::to_string) else {
        return Answer::error(404, format!("nothing at {}", request.path));
    };
    if operation == "login" {
        if request.method != "POST" {
            return Answer::error(405, "login takes POST");
        }
        return match desk.guard.login(request) {
            Ok(cookie) => Answer {
                set_cookie: Some(cookie),
                ..Answer::json(200, &json!({ "session": "open" }))
            },
            Err(why) => Answer::error(403, why),
        };
    }
    if let Err(why) = desk.guard.check_api(request) {
        return Answer::error(403, why);
    }
    if request.method != "POST" {
        return Answer::error(405, "the API takes POST with a JSON body");
    }
    let body = match request.read_body(desk.options.max_bytes, deadline) {
        Ok(Some(body)) => body,
        Ok(None) => {
            return Answer::error(
                413,
                format!(
                    "the paste is over this desk's limit of {} bytes: restart it with `aiproto desk --max-bytes N` to take more",
                    desk.options.max_bytes
                ),
            );
        }
        Err(ReadError::Timeout) => {
            return Answer::error(
                408,
                format!(
                    "the body came slower than {MIN_BODY_RATE} bytes a second after its first {} s",
                    desk.options.read_timeout.as_secs_f64()
                ),
            );
        }
        Err(e) => return Answer::error(400, e.to_string()),
    };
    let (status, value) = api::call(&desk.ctx, &operation, &body);
    Answer::json(status, &value)
}
