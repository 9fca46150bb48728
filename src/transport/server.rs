//! The receiving side of HTTP: listening, one worker per request, the
//! limits (size, deadline, connections, rate) and their refusals. What a
//! request's body means, and what to answer it, is the [`Exchange`]'s: the
//! layer above gives one (the HTTP binding of the protocols is
//! `delivery::binding`). `aiproto serve`, and `recv`/`relay` from an
//! `http://` URI (see [`super::http`]), run it.

use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::admission::{AcceptBackoff, Admission, Limits, Ticket};
use super::http_conn::{self, BodyDeadline, MIN_BODY_RATE, ReadError, Request};

/// The largest request body accepted by default.
pub const MAX_BYTES: usize = 1024 * 1024;

/// An answer: its status, media type and body.
pub struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

/// What the server leaves to the layer above: which paths it serves, what
/// a body POSTed there means, and how a refusal is worded. Called from the
/// worker threads, one request each.
pub trait Exchange: std::fmt::Debug + Send + Sync {
    /// The paths it names (for the listening line and a 404); none: any path.
    fn routes(&self) -> &'static [&'static str];

    /// Whether requests to `path` are served (others are refused with 404).
    fn serves(&self, path: &str) -> bool {
        self.routes().is_empty() || self.routes().contains(&path)
    }

    /// The answer refusing a request to `path` (empty when the request
    /// could not be read) with `status`, a short `code` and why.
    fn refuse(&self, path: &str, status: u16, code: &str, why: &str) -> Answer;

    /// The answer to `GET /health` (a liveness probe); `None`: 404.
    fn health(&self) -> Option<Answer> {
        None
    }

    /// The answer to `body`, POSTed to a served `path`. Each message in it
    /// that the receiver should get goes to `deliver`, which waits for the
    /// receiver and says whether it failed (then the request is answered
    /// with that).
    fn handle(&self, path: &str, body: String, deliver: &mut Deliver<'_>) -> Answer;
}

/// Hands one message's text to the receiver on the serving thread:
/// `Err(why)` when the receiver failed or the server stopped.
pub type Deliver<'d> = dyn FnMut(String) -> Result<(), String> + 'd;

/// The exchange of a server given none: every POST on any path is handed
/// on as it came and answered 204.
#[derive(Debug)]
pub struct PassThrough;

impl Exchange for PassThrough {
    fn routes(&self) -> &'static [&'static str] {
        &[]
    }

    fn refuse(&self, _path: &str, status: u16, code: &str, why: &str) -> Answer {
        Answer {
            status,
            content_type: "text/plain; charset=utf-8",
            body: format!("{code}: {why}\n"),
        }
    }

    fn handle(&self, _path: &str, body: String, deliver: &mut Deliver<'_>) -> Answer {
        match deliver(body) {
            Ok(()) => Answer {
                status: 204,
                content_type: "text/plain; charset=utf-8",
                body: String::new(),
            },
            Err(why) => self.refuse("", 502, "E-ROUTE", &format!("the receiver failed: {why}")),
        }
    }
}

/// How the server behaves.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// What requests mean and what they are answered.
    pub exchange: Arc<dyn Exchange>,
    /// Bodies larger than this are refused with 413.
    pub max_bytes: usize,
    /// Requests per second allowed from one client address (a token
    /// bucket of this size); None: no limit.
    pub rate: Option<u32>,
    /// Requests handled at once (their head arrived); more get 503.
    pub max_connections: usize,
    /// Connections one client address may hold open; more are closed.
    pub max_per_client: usize,
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
            exchange: Arc::new(PassThrough),
            max_bytes: MAX_BYTES,
            rate: None,
            max_connections: MAX_CONNECTIONS,
            max_per_client: super::admission::MAX_PER_CLIENT,
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

/// The receiver of each message the exchange delivers; `Ok(true)` stops
/// the server once this request is answered.
pub type OnMessage<'h> = dyn FnMut(&str) -> anyhow::Result<bool> + 'h;

/// A message delivered by a worker, for the receiver on the serving thread.
struct Job {
    text: String,
    /// The receiver's answer: `Ok(stop)`, or why it failed.
    done: mpsc::Sender<Result<bool, String>>,
}

/// Serves until `until` says stop. Each connection is read, checked and
/// stored on a worker thread of its own, so a slow client holds up nobody
/// else: its head is read under a deadline (408 past it), then it takes
/// one of `max_connections` places (503 when none is free); connections
/// open at once, and per client address, are bounded ([`super::admission`]),
/// and running out of descriptors is waited out. The receiver gets each message on this thread, in the
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
    let admission = Admission::new(Limits {
        max_connections: options.max_connections,
        max_per_client: options.max_per_client,
        rate: options.rate,
    });
    let shared = Arc::new(Shared {
        options: options.clone(),
        log,
    });
    let (jobs, job_queue) = mpsc::channel::<Job>();
    let mut stop = false;
    let mut failed: Option<anyhow::Error> = None;
    let mut ended = Served::Stopped;
    let mut backoff = AcceptBackoff::default();
    loop {
        // The receiver, for every message the workers have finished.
        while let Ok(job) = job_queue.try_recv() {
            let answer = match on_message(&job.text) {
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
            let _ = job.done.send(answer);
        }
        if stop || until.stop.load(Ordering::SeqCst) {
            stop = true;
        } else if until.deadline.is_some_and(|d| Instant::now() >= d) {
            stop = true;
            ended = Served::Timeout;
        }
        if stop {
            if admission.open() == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        let accepted = listener.accept();
        if matches!(&accepted, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock) {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        // An error that passes (no descriptor left) is waited out; a
        // connection over the bounds is closed at once.
        let Some((stream, ticket)) = admission.take(accepted, &mut backoff)? else {
            continue;
        };
        let (shared, jobs) = (Arc::clone(&shared), jobs.clone());
        std::thread::spawn(move || serve_connection(stream, ticket, &shared, &jobs));
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(ended),
    }
}

/// What the workers share.
struct Shared {
    options: ServeOptions,
    log: bool,
}

/// One connection: its request head read under the deadline (the whole
/// head: a byte a second does not extend it), a place among the requests
/// in hand taken (503 when there is none), handled, answered.
fn serve_connection(
    stream: TcpStream,
    mut ticket: Ticket,
    shared: &Shared,
    jobs: &mpsc::Sender<Job>,
) {
    let deadline = Instant::now() + shared.options.read_timeout;
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let mut request = match Request::read_head(reader, deadline) {
        Ok(request) => request,
        Err(e) => return refuse_unread(stream, e, shared),
    };
    let answer = if !ticket.start() {
        busy(&mut request, shared)
    } else if ticket.over_rate() {
        let rate = shared.options.rate.unwrap_or_default();
        shared.options.exchange.refuse(
            &request.path,
            429,
            "E-RATE",
            &format!("more than {rate} requests per second from this client"),
        )
    } else {
        handle(&mut request, shared, jobs)
    };
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
    let answer = shared.options.exchange.refuse("", status, code, &why);
    http_conn::respond_raw(stream, answer.status, answer.content_type, &answer.body);
}

/// How long a refused request's body is read before the answer.
const REFUSAL_PATIENCE: Duration = Duration::from_millis(250);

/// The 503 of a request that arrived while `max_connections` were in hand.
/// Its body is read for a moment first (a connection closed with unread
/// data is reset, and the client would never see the answer).
fn busy(request: &mut Request, shared: &Shared) -> Answer {
    let patience = shared.options.read_timeout.min(REFUSAL_PATIENCE);
    let _ = request.read_body(
        shared.options.max_bytes,
        BodyDeadline::new(Instant::now(), patience),
    );
    let max = shared.options.max_connections;
    shared.options.exchange.refuse(
        &request.path,
        503,
        "E-RATE",
        &format!("busy: {max} requests in hand"),
    )
}

/// A request whose head was read: refused for its path, method, rate,
/// size or deadline, else its body handed to the exchange, each message
/// it delivers going to the receiver on the serving thread.
fn handle(request: &mut Request, shared: &Shared, jobs: &mpsc::Sender<Job>) -> Answer {
    let options = &shared.options;
    let exchange = &*options.exchange;
    let path = request.path.clone();
    if path == "/health"
        && matches!(request.method.as_str(), "GET" | "HEAD")
        && let Some(answer) = exchange.health()
    {
        return answer;
    }
    if !exchange.serves(&path) {
        let why = format!(
            "nothing at {path}: POST to {}",
            exchange.routes().join(" or ")
        );
        return exchange.refuse(&path, 404, "E-ROUTE", &why);
    }
    if request.method != "POST" {
        return exchange.refuse(&path, 405, "E-UNSUPPORTED", "only POST is accepted");
    }
    let deadline = BodyDeadline::new(Instant::now(), options.read_timeout);
    let body = match request.read_body(options.max_bytes, deadline) {
        Ok(Some(body)) => body,
        Ok(None) => {
            let why = format!("the message is over {} bytes", options.max_bytes);
            return exchange.refuse(&path, 413, "E-TOO-LARGE", &why);
        }
        Err(ReadError::Timeout) => {
            let why = format!(
                "the request body came slower than {MIN_BODY_RATE} bytes a second after its first {} s",
                options.read_timeout.as_secs_f64()
            );
            return exchange.refuse(&path, 408, "E-TIMEOUT", &why);
        }
        Err(e) => {
            let why = format!("cannot read the request: {e}");
            return exchange.refuse(&path, 400, "E-FORMAT", &why);
        }
    };
    let Ok(text) = String::from_utf8(body) else {
        return exchange.refuse(&path, 400, "E-FORMAT", "the message is not UTF-8 text");
    };
    // The receiver runs on the serving thread; each delivery waits for its word.
    let mut deliver = |text: String| {
        let (done, answer) = mpsc::channel();
        jobs.send(Job { text, done })
            .map_err(|_| "the server stopped".to_string())?;
        answer
            .recv()
            .map_err(|_| "the server stopped".to_string())?
            .map(|_stop| ())
    };
    exchange.handle(&path, text, &mut deliver)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serves with `options` on a loopback port until the receiver has
    /// taken one message; `client` gets the server's address.
    fn serve_one(options: ServeOptions, client: impl FnOnce(SocketAddr)) -> (Served, Vec<String>) {
        let (ready, address) = mpsc::channel();
        let until = Until {
            stop: Arc::default(),
            deadline: Some(Instant::now() + Duration::from_secs(20)),
        };
        let server = std::thread::spawn(move || {
            let mut got = Vec::new();
            let served = serve(
                "127.0.0.1:0",
                &options,
                &until,
                false,
                |addr| ready.send(addr).unwrap(),
                &mut |text| {
                    got.push(text.to_string());
                    Ok(true)
                },
            );
            (served.unwrap(), got)
        });
        client(address.recv().unwrap());
        server.join().unwrap()
    }

    #[test]
    fn a_server_given_no_exchange_hands_on_each_body_as_it_came() {
        let (served, got) = serve_one(ServeOptions::default(), |addr| {
            let url = format!("http://{addr}/any/path");
            let (status, reply) = super::super::http::post(&url, "hello\n", "text/plain").unwrap();
            assert_eq!((status, reply.as_str()), (204, ""));
        });
        assert_eq!(served, Served::Stopped);
        assert_eq!(got, ["hello\n"]);
    }

    #[test]
    fn the_exchange_words_the_refusals_of_the_server() {
        let (_, got) = serve_one(ServeOptions::default(), |addr| {
            let get = |path: &str| {
                let mut stream = TcpStream::connect(addr).unwrap();
                std::io::Write::write_all(
                    &mut stream,
                    format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        .as_bytes(),
                )
                .unwrap();
                let mut answer = String::new();
                std::io::Read::read_to_string(&mut stream, &mut answer).unwrap();
                answer
            };
            let answer = get("/x");
            assert!(answer.starts_with("HTTP/1.1 405"), "{answer}");
            assert!(
                answer.ends_with("E-UNSUPPORTED: only POST is accepted\n"),
                "{answer}"
            );
            let url = format!("http://{addr}/");
            assert_eq!(
                super::super::http::post(&url, "last", "text/plain")
                    .unwrap()
                    .0,
                204
            );
        });
        assert_eq!(got, ["last"]);
    }
}
