//! `aiproto a2a serve`: the HSP agents of an MQTT network as one A2A 1.0
//! agent. Its card lists a skill per live CapabilityAdvertisement; a
//! message becomes an HSP TaskRequest to the skill's agent, and the
//! TaskResult the task's state and artifact. JSON-RPC and HTTP+JSON, with
//! streams as server-sent events, behind the door every listening face
//! shares (token, Host and Origin, limits).
//!
//! A face beside the command line and MCP: the mapping and the HSP
//! exchange are operations (`operations::bridging`, `operations::delegate`);
//! here are the HTTP bindings and the tasks held in memory.

mod bindings;
mod calls;
mod card;
mod errors;
mod tasks;

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode, header};

pub use calls::Config;
pub use card::{JSONRPC, REST, WELL_KNOWN};

use crate::operations::bridging;
use crate::transport::admission::{Admission, Ticket};
use crate::transport::door::{self, Body, Listen};
use crate::transport::http_conn::BodyDeadline;

/// Serves the bridge until the process is stopped; `ready` is told the
/// bound address once the socket listens. The directory is watched on a
/// thread of its own; losing the broker there ends the bridge (an error).
pub fn serve(config: Config, listen: Listen, ready: impl FnOnce(SocketAddr)) -> anyhow::Result<()> {
    let directory: bridging::SharedDirectory = Arc::new(Mutex::new(
        crate::operations::serving::Directory::new(config.id.clone()),
    ));
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (broker, settings) = (config.broker.clone(), config.settings.clone());
        let (directory, stop) = (Arc::clone(&directory), Arc::clone(&stop));
        let trust = config.trust.clone();
        std::thread::spawn(move || bridging::watch(broker, settings, directory, trust, stop))
    };
    let bridge = Arc::new(calls::Bridge {
        tasks: tasks::Tasks::new(config.max_tasks),
        config,
        directory,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen.address).await?;
        let bound = listener.local_addr()?;
        let front = Arc::new(Front {
            hosts: door::allowed_hosts(&listen, bound),
            origins: door::allowed_origins(&listen, bound),
            in_hand: tokio::sync::Semaphore::new(listen.limits.max_connections.max(1)),
            listen: listen.clone(),
            bridge,
        });
        ready(bound);
        let accepting = door::accept(
            listener,
            Admission::new(listen.limits),
            listen.read_timeout,
            move |request, ticket| {
                let front = Arc::clone(&front);
                async move { front.answer(request, &ticket).await }
            },
        );
        // The bridge lives as long as its view of the network.
        let watching = async {
            loop {
                if watcher.is_finished() {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
        };
        tokio::select! {
            () = accepting => Ok(None),
            () = watching => Ok(Some(watcher)),
        }
    });
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    // The watcher ended: say why (an unreachable broker, a lost one).
    match served {
        Ok(Some(watcher)) => match watcher.join() {
            Ok(Err(e)) => Err(anyhow::anyhow!("the HSP network's broker: {e}")),
            _ => Err(anyhow::anyhow!("the HSP network's broker was lost")),
        },
        Ok(None) => Ok(()),
        Err(e) => Err(e),
    }
}

/// What every request passes, and where it goes.
struct Front {
    listen: Listen,
    hosts: Vec<String>,
    origins: Vec<String>,
    in_hand: tokio::sync::Semaphore,
    bridge: Arc<calls::Bridge>,
}

impl Front {
    async fn answer(&self, request: Request<Incoming>, ticket: &Ticket) -> Response<Body> {
        if let Some(refused) = door::refuse_rate(ticket)
            .or_else(|| door::refuse_host_origin(&request, &self.hosts, &self.origins))
            .or_else(|| {
                if self.bridge.config.tokenless {
                    return None;
                }
                door::refuse_token(
                    &request,
                    &self.listen.token,
                    "aiproto a2a",
                    "the token `aiproto a2a serve` printed (or was given by --token-file)",
                )
            })
        {
            return refused;
        }
        let Ok(_place) = self.in_hand.try_acquire() else {
            return door::plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "the bridge has as many requests in hand as it takes; try again",
            );
        };
        let (parts, body) = request.into_parts();
        let path = parts.uri.path().to_string();
        let query = parts.uri.query().map(str::to_string);
        if parts.method == Method::GET && path == WELL_KNOWN {
            return self.card(&parts.headers);
        }
        let jsonrpc = path == JSONRPC || path == "/jsonrpc/";
        let rest = path == REST || path.starts_with(&format!("{REST}/"));
        if !jsonrpc && !rest {
            return door::plain(
                StatusCode::NOT_FOUND,
                &format!(
                    "aiproto a2a serves {WELL_KNOWN}, JSON-RPC at {JSONRPC} and HTTP+JSON under {REST}"
                ),
            );
        }
        if jsonrpc && parts.method != Method::POST {
            return door::plain(StatusCode::METHOD_NOT_ALLOWED, "JSON-RPC takes POST");
        }
        let (read_timeout, max_body) = (self.listen.read_timeout, self.listen.max_body);
        let deadline = BodyDeadline::new(std::time::Instant::now(), read_timeout);
        let body = match door::read_body(body, max_body, deadline).await {
            Ok(body) => body,
            Err(refused) => return refused.answer(read_timeout, max_body),
        };
        let json_body = bindings::is_json(
            parts
                .headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok()),
        );
        let version = bindings::version_refused(&parts.headers, query.as_deref());
        if jsonrpc {
            return bindings::json_rpc(&self.bridge, &body, json_body, version).await;
        }
        if let Some(refused) = version {
            return bindings::rest_error(&refused);
        }
        bindings::rest(
            &self.bridge,
            &parts.method,
            &path,
            query.as_deref(),
            &body,
            json_body,
        )
        .await
    }

    /// The card, its interfaces at the address the client used (a `Host`
    /// the door let in); 503 while no HSP agent advertises.
    fn card(&self, headers: &hyper::HeaderMap) -> Response<Body> {
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("127.0.0.1");
        match card::card(&self.bridge, &format!("http://{host}")) {
            Some(card) => {
                // The card changes as agents advertise: cached briefly,
                // and named by its digest for a conditional GET.
                let body = card.to_string();
                let tag = card::etag(&body);
                let unchanged = headers
                    .get(header::IF_NONE_MATCH)
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|asked| asked.split(',').any(|t| t.trim() == tag));
                let mut response = if unchanged {
                    let mut empty =
                        door::whole(StatusCode::NOT_MODIFIED, "application/json", Bytes::new());
                    empty.headers_mut().remove(header::CONTENT_TYPE);
                    empty
                } else {
                    door::whole(StatusCode::OK, "application/json", Bytes::from(body))
                };
                let headers = response.headers_mut();
                headers.insert(
                    header::CACHE_CONTROL,
                    header::HeaderValue::from_static(card::CACHE_CONTROL),
                );
                if let Ok(value) = header::HeaderValue::from_str(&tag) {
                    headers.insert(header::ETAG, value);
                }
                // The card changes when the directory does.
                if let Some(changed) = bridging::changed(&self.bridge.directory)
                    && let Ok(value) = header::HeaderValue::from_str(
                        &changed.format("%a, %d %b %Y %H:%M:%S GMT").to_string(),
                    )
                {
                    headers.insert(header::LAST_MODIFIED, value);
                }
                response
            }
            None => {
                let mut waiting = door::plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "no HSP agent has advertised a capability on the broker yet: the card has no skill to list",
                );
                waiting
                    .headers_mut()
                    .insert(header::RETRY_AFTER, header::HeaderValue::from_static("2"));
                waiting
            }
        }
    }
}
