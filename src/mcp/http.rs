//! `aiproto mcp --listen`: the same MCP server over Streamable HTTP, on
//! one endpoint (`/mcp`). rmcp's own service speaks the transport
//! (stateless for revision 2026-07-28, sessions for older clients, `Host`
//! and `Origin` checked against DNS rebinding); the door every listening
//! face shares ([`crate::transport::door`]) keeps the rest: a bearer token
//! on every request, and the bounds (connections per client, requests in
//! hand, a request rate, a deadline and a size for the body).

use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::server::Server;
use crate::operations::Context;
use crate::transport::admission::{Admission, Ticket};
use crate::transport::door::{self, Body};
use crate::transport::http_conn::BodyDeadline;

pub use crate::transport::door::Listen;

/// The one path the server answers on.
pub const ENDPOINT: &str = "/mcp";

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
        door::accept(
            listener,
            admission,
            listen.read_timeout,
            move |request, ticket| {
                let door = Arc::clone(&door);
                async move { door.answer(request, &ticket).await }
            },
        )
        .await;
        Ok(())
    })
}

/// What every request passes before rmcp's service sees it.
struct Door {
    service: StreamableHttpService<Server, LocalSessionManager>,
    listen: Listen,
    in_hand: tokio::sync::Semaphore,
}

impl Door {
    fn new(server: Server, listen: &Listen, bound: SocketAddr) -> Door {
        let config = transport_config(listen, bound);
        Door {
            service: StreamableHttpService::new(move || Ok(server.clone()), Arc::default(), config),
            listen: listen.clone(),
            in_hand: tokio::sync::Semaphore::new(listen.limits.max_connections.max(1)),
        }
    }

    async fn answer(&self, request: Request<Incoming>, ticket: &Ticket) -> Response<Body> {
        let path = request.uri().path();
        if path != ENDPOINT && path != "/mcp/" {
            return door::plain(
                StatusCode::NOT_FOUND,
                &format!("aiproto mcp answers on {ENDPOINT} only"),
            );
        }
        if let Some(refused) = door::refuse_rate(ticket) {
            return refused;
        }
        if let Some(refused) = door::refuse_token(
            &request,
            &self.listen.token,
            "aiproto mcp",
            "the token `aiproto mcp --listen` printed (or was given by --token-file)",
        ) {
            return refused;
        }
        let Ok(_place) = self.in_hand.try_acquire() else {
            return door::plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server has as many requests in hand as it takes; try again",
            );
        };
        let (parts, body) = request.into_parts();
        let (read_timeout, max_body) = (self.listen.read_timeout, self.listen.max_body);
        let deadline = BodyDeadline::new(std::time::Instant::now(), read_timeout);
        let body = match door::read_body(body, max_body, deadline).await {
            Ok(body) => body,
            Err(refused) => return refused.answer(read_timeout, max_body),
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
}

/// rmcp's transport settings: sessions only for clients older than
/// 2026-07-28, `Host` one of the server's names, `Origin` (sent by
/// browsers) one of its own origins or those named.
fn transport_config(listen: &Listen, bound: SocketAddr) -> StreamableHttpServerConfig {
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(door::allowed_hosts(listen, bound))
        .with_allowed_origins(door::allowed_origins(listen, bound))
        .enforce_origin_validation()
        .with_max_request_body_bytes(listen.max_body)
}
