//! `aiproto mcp --listen`: the same MCP server over Streamable HTTP, on
//! one endpoint (`/mcp`). rmcp's own service speaks the transport
//! (stateless for revision 2026-07-28, sessions for older clients, `Host`
//! and `Origin` checked against DNS rebinding); this file keeps the door:
//! a bearer token on every request, and the bounds a listening face needs
//! (connections per client, requests in hand, a request rate, a deadline
//! and a size for the body).

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode, header};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::server::Server;
use crate::operations::Context;
use crate::transport::admission::{Admission, Limits, Ticket};
use crate::transport::bearer::{bearer_of, same_bytes};
use crate::transport::http_conn::{BodyDeadline, MIN_BODY_RATE};

/// The one path the server answers on.
pub const ENDPOINT: &str = "/mcp";

/// How the HTTP face listens and whom it lets in.
#[derive(Debug, Clone)]
pub struct Listen {
    /// The address to bind (port 0: a free port).
    pub address: SocketAddr,
    /// The bearer token every request must carry.
    pub token: String,
    /// Host names the server is reached by besides loopback's (`Host`).
    pub hosts: Vec<String>,
    /// Browser origins allowed besides the server's own (`Origin`).
    pub origins: Vec<String>,
    /// Connections at once, per client, and a request rate.
    pub limits: Limits,
    /// How long a client may take to send a request's headers, and its body.
    pub read_timeout: Duration,
    /// The largest request body, in bytes.
    pub max_body: usize,
}

type Body = BoxBody<Bytes, Infallible>;

/// Serves MCP over HTTP until the process is stopped; `ready` is told
/// the bound address once the socket listens.
pub fn serve(
    ctx: Context,
    fixtures: bool,
    listen: Listen,
    ready: impl FnOnce(SocketAddr),
) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen.address).await?;
        let bound = listener.local_addr()?;
        let door = Arc::new(Door::new(Server::new(ctx, fixtures)?, &listen, bound));
        let admission = Admission::new(listen.limits);
        ready(bound);
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(accepted) => accepted,
                // No descriptor left, a connection reset before it was
                // taken: wait a little and go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let Some(ticket) = admission.connect(peer.ip()) else {
                continue;
            };
            let ticket = Arc::new(ticket);
            let door = Arc::clone(&door);
            let read_timeout = listen.read_timeout;
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let door = Arc::clone(&door);
                    let ticket = Arc::clone(&ticket);
                    async move { Ok::<_, Infallible>(door.answer(request, &ticket).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(read_timeout)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

/// Why a request's body was not taken.
enum BodyRefused {
    Slow,
    TooLarge,
    Cut,
}

/// Reads a body of at most `max` bytes, each frame before `deadline`
/// (extended as bytes arrive, as `serve` and the desk do).
async fn read_body(
    mut body: Incoming,
    max: usize,
    mut deadline: BodyDeadline,
) -> Result<Bytes, BodyRefused> {
    let mut collected = bytes::BytesMut::new();
    loop {
        let frame = tokio::time::timeout_at(deadline.at().into(), body.frame())
            .await
            .map_err(|_| BodyRefused::Slow)?;
        let Some(frame) = frame else {
            return Ok(collected.freeze());
        };
        let Ok(data) = frame.map_err(|_| BodyRefused::Cut)?.into_data() else {
            continue;
        };
        if collected.len() + data.len() > max {
            return Err(BodyRefused::TooLarge);
        }
        deadline.received(data.len());
        collected.extend_from_slice(&data);
    }
}

/// What every request passes before rmcp's service sees it.
struct Door {
    service: StreamableHttpService<Server, LocalSessionManager>,
    token: String,
    in_hand: tokio::sync::Semaphore,
    read_timeout: Duration,
    max_body: usize,
}

impl Door {
    fn new(server: Server, listen: &Listen, bound: SocketAddr) -> Door {
        let config = transport_config(listen, bound);
        Door {
            service: StreamableHttpService::new(move || Ok(server.clone()), Arc::default(), config),
            token: listen.token.clone(),
            in_hand: tokio::sync::Semaphore::new(listen.limits.max_connections.max(1)),
            read_timeout: listen.read_timeout,
            max_body: listen.max_body,
        }
    }

    async fn answer(&self, request: Request<Incoming>, ticket: &Ticket) -> Response<Body> {
        let path = request.uri().path();
        if path != ENDPOINT && path != "/mcp/" {
            return plain(
                StatusCode::NOT_FOUND,
                &format!("aiproto mcp answers on {ENDPOINT} only"),
            );
        }
        if ticket.over_rate() {
            let mut refused = plain(
                StatusCode::TOO_MANY_REQUESTS,
                "too many requests from this address",
            );
            refused
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
            return refused;
        }
        if let Some(refused) = self.refuse_token(&request) {
            return refused;
        }
        let Ok(_place) = self.in_hand.try_acquire() else {
            return plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server has as many requests in hand as it takes; try again",
            );
        };
        let (parts, body) = request.into_parts();
        let deadline = BodyDeadline::new(std::time::Instant::now(), self.read_timeout);
        let body = match read_body(body, self.max_body, deadline).await {
            Ok(body) => body,
            Err(BodyRefused::Slow) => {
                let why = format!(
                    "the body came slower than {MIN_BODY_RATE} bytes a second after its first {} s",
                    self.read_timeout.as_secs_f64()
                );
                return plain(StatusCode::REQUEST_TIMEOUT, &why);
            }
            Err(BodyRefused::TooLarge) => {
                return plain(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &format!("the body is larger than {} bytes", self.max_body),
                );
            }
            Err(BodyRefused::Cut) => return plain(StatusCode::BAD_REQUEST, "the body was cut off"),
        };
        let ends_session = parts.method == hyper::Method::DELETE;
        let mut response = self
            .service
            .handle(Request::from_parts(parts, Full::new(body)))
            .await;
        // A session ended is answered 202 by rmcp; the official Python SDK
        // takes only 200 or 204 as done and warns the person otherwise.
        if ends_session && response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        response
    }

    /// `Authorization: Bearer TOKEN`, compared in constant time: the 401
    /// for a request without the right one (saying what is missing, never
    /// what was expected), or `None`.
    fn refuse_token<B>(&self, request: &Request<B>) -> Option<Response<Body>> {
        let given = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer_of);
        let (error, message) = match given {
            Some(token) if same_bytes(token.as_bytes(), self.token.as_bytes()) => return None,
            Some(_) => ("invalid_token", "the bearer token is wrong"),
            None => (
                "invalid_request",
                "a bearer token is needed: send `Authorization: Bearer TOKEN` with the token \
                 `aiproto mcp --listen` printed (or was given by --token-file)",
            ),
        };
        let mut refused = plain(StatusCode::UNAUTHORIZED, message);
        let challenge = format!("Bearer realm=\"aiproto mcp\", error=\"{error}\"");
        if let Ok(value) = header::HeaderValue::from_str(&challenge) {
            refused
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        Some(refused)
    }
}

/// rmcp's transport settings: sessions only for clients older than
/// 2026-07-28, `Host` one of the server's names, `Origin` (sent by
/// browsers) one of its own origins or those named.
fn transport_config(listen: &Listen, bound: SocketAddr) -> StreamableHttpServerConfig {
    let hosts = allowed_hosts(listen, bound);
    let origins = hosts
        .iter()
        .map(|host| match host.parse::<IpAddr>() {
            Ok(IpAddr::V6(_)) => format!("http://[{host}]:{}", bound.port()),
            _ => format!("http://{host}:{}", bound.port()),
        })
        .chain(listen.origins.iter().cloned());
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts.clone())
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_max_request_body_bytes(listen.max_body)
}

/// The names a request may use in `Host`: loopback's, the bound address
/// (when it is not a wildcard) and those named with `--allowed-host`.
pub fn allowed_hosts(listen: &Listen, bound: SocketAddr) -> Vec<String> {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
        .into_iter()
        .map(String::from)
        .collect();
    if !bound.ip().is_unspecified() && !bound.ip().is_loopback() {
        hosts.push(bound.ip().to_string());
    }
    hosts.extend(listen.hosts.iter().cloned());
    hosts
}

fn plain(status: StatusCode, message: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{message}\n"))).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
