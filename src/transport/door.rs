//! The door of every face that listens on HTTP with hyper (MCP over HTTP,
//! the A2A bridge): how it listens and whom it lets in, the accept loop
//! with its per-client admission, a body read within a size and a
//! deadline, the bearer token, and the `Host`/`Origin` rules against DNS
//! rebinding. One copy, so a bound fixed here holds for every face.

use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode, header};
use hyper_util::rt::{TokioIo, TokioTimer};

use super::admission::{Admission, Limits, Ticket};
use super::bearer::{bearer_of, same_bytes};
use super::http_conn::{BodyDeadline, MIN_BODY_RATE};

/// How a face listens and whom it lets in.
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

/// A response body: whole, or streamed (server-sent events).
pub type Body = BoxBody<Bytes, Infallible>;

/// Accepts connections on `listener` for ever, each admitted by
/// `admission` (connections per client) and served over HTTP/1.1 by
/// `answer`, which gets the request and the connection's ticket.
pub async fn accept<F, Fut>(
    listener: tokio::net::TcpListener,
    admission: Arc<Admission>,
    read_timeout: Duration,
    answer: F,
) where
    F: Fn(Request<Incoming>, Arc<Ticket>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Response<Body>> + Send + 'static,
{
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
        let answer = answer.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let answer = answer.clone();
                let ticket = Arc::clone(&ticket);
                async move { Ok::<_, Infallible>(answer(request, ticket).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(read_timeout)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// 429 when the client is over its request rate, else `None`.
pub fn refuse_rate(ticket: &Ticket) -> Option<Response<Body>> {
    if !ticket.over_rate() {
        return None;
    }
    let mut refused = plain(
        StatusCode::TOO_MANY_REQUESTS,
        "too many requests from this address",
    );
    refused
        .headers_mut()
        .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    Some(refused)
}

/// `Authorization: Bearer TOKEN`, compared in constant time: the 401 for
/// a request without the right one (saying what is missing, never what
/// was expected; `hint` says where the token comes from), or `None`.
pub fn refuse_token<B>(
    request: &Request<B>,
    token: &str,
    realm: &str,
    hint: &str,
) -> Option<Response<Body>> {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer_of);
    let (error, message) = match given {
        Some(given) if same_bytes(given.as_bytes(), token.as_bytes()) => return None,
        Some(_) => ("invalid_token", "the bearer token is wrong".to_string()),
        None => (
            "invalid_request",
            format!("a bearer token is needed: send `Authorization: Bearer TOKEN` with {hint}"),
        ),
    };
    let mut refused = plain(StatusCode::UNAUTHORIZED, &message);
    let challenge = format!("Bearer realm=\"{realm}\", error=\"{error}\"");
    if let Ok(value) = header::HeaderValue::from_str(&challenge) {
        refused
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    Some(refused)
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

/// The origins a browser may call from: the server's own under each of
/// its host names, and those named with `--allow-origin`.
pub fn allowed_origins(listen: &Listen, bound: SocketAddr) -> Vec<String> {
    allowed_hosts(listen, bound)
        .iter()
        .map(|host| match host.parse::<IpAddr>() {
            Ok(IpAddr::V6(_)) => format!("http://[{host}]:{}", bound.port()),
            _ => format!("http://{host}:{}", bound.port()),
        })
        .chain(listen.origins.iter().cloned())
        .collect()
}

/// 403 for a request whose `Host` is not one of `hosts` (a DNS-rebinding
/// page reaching a loopback server under its own name) or whose `Origin`
/// (sent by browsers) is not one of `origins`; `None` for the others.
pub fn refuse_host_origin<B>(
    request: &Request<B>,
    hosts: &[String],
    origins: &[String],
) -> Option<Response<Body>> {
    let header = |name| {
        request
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap_or("\u{FFFD}"))
    };
    let host = header(header::HOST).unwrap_or_default();
    let name = host_name(host);
    if !hosts.iter().any(|h| h.eq_ignore_ascii_case(name)) {
        return Some(plain(
            StatusCode::FORBIDDEN,
            &format!(
                "Host `{}` is not a name of this server (DNS rebinding?); start it with --allowed-host NAME to allow it",
                crate::transport::secrets::redact(host)
            ),
        ));
    }
    if let Some(origin) = header(header::ORIGIN)
        && !origins.iter().any(|o| o.eq_ignore_ascii_case(origin))
    {
        return Some(plain(
            StatusCode::FORBIDDEN,
            &format!(
                "Origin `{origin}` may not call this server; start it with --allow-origin {origin} to allow it"
            ),
        ));
    }
    None
}

/// The name of a `Host` header: without its port, an IPv6 address without
/// its brackets.
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default();
    }
    host.rsplit_once(':')
        .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
        .map_or(host, |(name, _)| name)
}

/// Why a request's body was not taken.
#[derive(Debug, PartialEq, Eq)]
pub enum BodyRefused {
    Slow,
    TooLarge,
    Cut,
}

impl BodyRefused {
    /// The answer saying so.
    pub fn answer(&self, read_timeout: Duration, max: usize) -> Response<Body> {
        match self {
            BodyRefused::Slow => plain(
                StatusCode::REQUEST_TIMEOUT,
                &format!(
                    "the body came slower than {MIN_BODY_RATE} bytes a second after its first {} s",
                    read_timeout.as_secs_f64()
                ),
            ),
            BodyRefused::TooLarge => plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("the body is larger than {max} bytes"),
            ),
            BodyRefused::Cut => plain(StatusCode::BAD_REQUEST, "the body was cut off"),
        }
    }
}

/// Reads a body of at most `max` bytes, each frame before `deadline`
/// (extended as bytes arrive, as `serve` and the desk do).
pub async fn read_body(
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

/// A plain-text answer.
pub fn plain(status: StatusCode, message: &str) -> Response<Body> {
    whole(
        status,
        "text/plain; charset=utf-8",
        Bytes::from(format!("{message}\n")),
    )
}

/// An answer with a whole body of a media type.
pub fn whole(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Body> {
    let mut response = Response::new(Full::new(body).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    response
}

/// The address a person types to reach `bound`: a wildcard as loopback,
/// an IPv6 address in brackets.
pub fn reachable(bound: SocketAddr) -> String {
    match bound.ip() {
        ip if ip.is_unspecified() => format!("127.0.0.1:{}", bound.port()),
        IpAddr::V6(ip) => format!("[{ip}]:{}", bound.port()),
        IpAddr::V4(ip) => format!("{ip}:{}", bound.port()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_lose_their_port_and_brackets() {
        assert_eq!(host_name("localhost:8080"), "localhost");
        assert_eq!(host_name("127.0.0.1"), "127.0.0.1");
        assert_eq!(host_name("[::1]:80"), "::1");
        assert_eq!(host_name("evil.example"), "evil.example");
    }

    fn request(host: &str, origin: Option<&str>) -> Request<()> {
        let mut builder = Request::builder().header(header::HOST, host);
        if let Some(origin) = origin {
            builder = builder.header(header::ORIGIN, origin);
        }
        builder.body(()).unwrap()
    }

    #[test]
    fn a_rebinding_host_or_a_foreign_origin_is_refused() {
        let listen = Listen {
            address: "127.0.0.1:0".parse().unwrap(),
            token: "t".into(),
            hosts: vec![],
            origins: vec![],
            limits: Limits {
                max_connections: 1,
                max_per_client: 1,
                rate: None,
            },
            read_timeout: Duration::from_secs(1),
            max_body: 1,
        };
        let bound: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        let (hosts, origins) = (
            allowed_hosts(&listen, bound),
            allowed_origins(&listen, bound),
        );
        let refused = |host, origin| {
            refuse_host_origin(&request(host, origin), &hosts, &origins).map(|r| r.status())
        };
        assert_eq!(refused("127.0.0.1:4000", None), None);
        assert_eq!(
            refused("localhost:4000", Some("http://localhost:4000")),
            None
        );
        assert_eq!(
            refused("attacker.example:4000", None),
            Some(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            refused("127.0.0.1:4000", Some("https://attacker.example")),
            Some(StatusCode::FORBIDDEN)
        );
    }
}
