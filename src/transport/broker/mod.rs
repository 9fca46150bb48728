//! `aiproto broker`: an MQTT 3.1.1 broker in this process, for agents on
//! one machine or a trusted network. rumqttd routes the messages on a
//! loopback port only the front (`front.rs`) can log in to; the front takes
//! the clients: accounts from a Mosquitto password file ([`passwd`]), topic
//! rules from a Mosquitto ACL file ([`acl`]), TLS, and a refusal said for
//! every client turned away. It keeps nothing across restarts.

pub mod acl;
mod budget;
mod front;
pub mod passwd;
mod redeliver;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rumqttc::tokio_rustls::TlsAcceptor;

pub use front::{DeniedPublish, Policy};

use crate::transport::admission::{AcceptBackoff, Admission, Limits};

/// How the broker runs.
#[derive(Debug, Clone)]
pub struct Options {
    pub listen: SocketAddr,
    pub passwords: Option<PathBuf>,
    pub acl: Option<PathBuf>,
    /// A certificate chain and its key (PEM): the listener speaks TLS.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// The largest packet a client may send, in bytes.
    pub max_packet: usize,
    /// What a PUBLISH the ACL refuses gets.
    pub denied_publish: DeniedPublish,
    /// Clients logged in at once; beyond, CONNACK "server unavailable".
    pub max_connections: usize,
    /// Connections one address may hold, logged in or not; beyond, closed.
    pub max_per_client: usize,
    /// Messages sent to one client and not yet acknowledged.
    pub max_inflight: usize,
    /// Bytes kept for each topic filter's subscribers (offline ones
    /// included); beyond, the oldest are dropped.
    pub max_queued_bytes: usize,
    /// Bytes the core may hold for subscribers across all filters and
    /// retained messages; beyond, publishes and new filters are refused.
    pub max_memory: usize,
    pub quiet: bool,
}

/// Why the broker could not run (the caller's exit status 3).
#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    #[error("cannot listen on {0}: {1}")]
    Listen(SocketAddr, std::io::Error),
    #[error("{0}")]
    Setup(String),
}

/// What the broker holds, said once it listens.
pub struct Started {
    pub listen: SocketAddr,
    pub accounts: Option<usize>,
    pub tls: bool,
}

/// Runs the broker until `stop` is set; `started` is called once the
/// listener is bound.
pub fn run(
    options: &Options,
    stop: Arc<AtomicBool>,
    started: impl FnOnce(&Started),
) -> Result<(), BrokerError> {
    let passwords = read(&options.passwords, passwd::Passwords::parse)?;
    let acl = read(&options.acl, acl::Acl::parse)?;
    let tls = options
        .tls
        .as_ref()
        .map(|(cert, key)| tls(cert, key))
        .transpose()?;
    raise_descriptor_limit();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| BrokerError::Setup(e.to_string()))?;
    runtime.block_on(async {
        // Bound first: a port in use is an error, not a broker that
        // seems to run while clients reach another server.
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .map_err(|e| BrokerError::Listen(options.listen, e))?;
        let listen = listener
            .local_addr()
            .map_err(|e| BrokerError::Listen(options.listen, e))?;
        let (upstream, internal) = start_core(options)?;
        started(&Started {
            listen,
            accounts: passwords.as_ref().map(passwd::Passwords::len),
            tls: tls.is_some(),
        });
        let policy = Arc::new(Policy {
            passwords,
            acl,
            upstream,
            internal,
            max_packet: options.max_packet,
            denied_publish: options.denied_publish,
            budget: std::sync::Mutex::new(budget::Budget::new(
                options.max_memory as u64,
                per_filter(options),
            )),
            quiet: options.quiet,
        });
        let admission = Admission::new(Limits {
            max_connections: options.max_connections,
            max_per_client: options.max_per_client,
            rate: None,
        });
        let mut backoff = AcceptBackoff::default();
        let mut turned_away = TurnedAway::default();
        while !stop.load(Ordering::SeqCst) {
            let accepted =
                tokio::time::timeout(Duration::from_millis(100), listener.accept()).await;
            let Ok(accepted) = accepted else { continue };
            let (stream, peer) = match accepted {
                Ok(pair) => {
                    backoff.succeeded();
                    pair
                }
                // Out of descriptors and the like: waited out, said.
                Err(e) => match backoff.failed(e) {
                    Ok(()) => continue,
                    Err(e) => {
                        if !options.quiet {
                            eprintln!("aiproto broker: accept failed: {e}");
                        }
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                },
            };
            let deadline = tokio::time::Instant::now() + front::CONNECT_WITHIN;
            let Some(ticket) = admission.connect(peer.ip()) else {
                // Closed at once: one address (or everyone) holds too many.
                turned_away.say(peer, &admission, options.quiet);
                continue;
            };
            let _ = stream.set_nodelay(true);
            let policy = policy.clone();
            match &tls {
                None => {
                    tokio::spawn(front::serve(stream, peer, policy, ticket, deadline));
                }
                Some(acceptor) => {
                    let acceptor = acceptor.clone();
                    tokio::spawn(async move {
                        // The handshake counts in the time to log in.
                        match tokio::time::timeout_at(deadline, acceptor.accept(stream)).await {
                            Ok(Ok(stream)) => {
                                front::serve(stream, peer, policy, ticket, deadline).await;
                            }
                            Ok(Err(e)) if !policy.quiet => {
                                eprintln!("aiproto broker: {peer}: TLS handshake failed: {e}");
                            }
                            Err(_) if !policy.quiet => {
                                eprintln!(
                                    "aiproto broker: {peer}: closed, no TLS handshake within {} s",
                                    front::CONNECT_WITHIN.as_secs()
                                );
                            }
                            _ => {}
                        }
                    });
                }
            }
        }
        Ok(())
    })
}

/// Connections closed at once for the limits, said on stderr: the first
/// from each address, then one line in a hundred (a flood is not a flood
/// of lines).
#[derive(Default)]
struct TurnedAway {
    count: u64,
    addresses: std::collections::HashSet<std::net::IpAddr>,
}

impl TurnedAway {
    fn say(&mut self, peer: SocketAddr, admission: &Admission, quiet: bool) {
        self.count += 1;
        let new = self.addresses.len() < 4096 && self.addresses.insert(peer.ip());
        if quiet || !(new || self.count.is_multiple_of(100)) {
            return;
        }
        eprintln!(
            "aiproto broker: {peer}: closed at once, {} connection(s) turned away so far: an address may hold {} (--max-per-client), the broker {} before their login",
            self.count,
            admission.limits.max_per_client,
            admission.max_open()
        );
    }
}

/// Raises this process's descriptor limit to what the system allows it
/// (each client takes three: its socket, and both ends of the line to the
/// broker's core), so that the broker's own limits, not an accidental
/// 256 or 1,024, decide who gets in.
fn raise_descriptor_limit() {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let limit = getrlimit(Resource::Nofile);
        let Some(current) = limit.current else { return };
        // macOS refuses more than 10,240 without saying so in the maximum.
        for wanted in [limit.maximum.unwrap_or(1 << 20).min(1 << 20), 10_240] {
            if wanted <= current {
                return;
            }
            let raised = Rlimit {
                current: Some(wanted),
                maximum: limit.maximum,
            };
            if setrlimit(Resource::Nofile, raised).is_ok() {
                return;
            }
        }
    }
}

fn read<T>(
    path: &Option<PathBuf>,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<T>, BrokerError> {
    let Some(path) = path else { return Ok(None) };
    let text = std::fs::read_to_string(path)
        .map_err(|e| BrokerError::Setup(format!("{}: {e}", path.display())))?;
    parse(&text)
        .map(Some)
        .map_err(|e| BrokerError::Setup(format!("{}: {e}", path.display())))
}

fn tls(cert: &PathBuf, key: &PathBuf) -> Result<TlsAcceptor, BrokerError> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let setup = |path: &PathBuf, e: &dyn std::fmt::Display| {
        BrokerError::Setup(format!("{}: {e}", path.display()))
    };
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect())
        .map_err(|e| setup(cert, &e))?;
    if chain.is_empty() {
        return Err(setup(cert, &"no PEM certificate in it"));
    }
    let key_der = PrivateKeyDer::from_pem_file(key).map_err(|e| setup(key, &e))?;
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| BrokerError::Setup(e.to_string()))?
    .with_no_client_auth()
    .with_single_cert(chain, key_der)
    .map_err(|e| setup(cert, &e))?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// Each filter's log in the core: this many segments of [`segment_size`].
const SEGMENTS: usize = 10;

/// One segment of a filter's log: a tenth of --max-queued-bytes, and at
/// least the largest packet.
fn segment_size(options: &Options) -> usize {
    (options.max_queued_bytes / SEGMENTS).max(options.max_packet)
}

/// The most one filter's log holds: the core starts a new segment once one
/// is full, so each may exceed its size by one packet.
fn per_filter(options: &Options) -> u64 {
    (SEGMENTS * (segment_size(options) + options.max_packet)) as u64
}

/// Starts rumqttd on a free loopback port with an account made up for this
/// run: the address, and the account the front logs clients in with.
fn start_core(options: &Options) -> Result<(SocketAddr, (String, String)), BrokerError> {
    use rumqttd::{Broker, Config, ConnectionSettings, RouterConfig, ServerSettings};
    let setup = |e: &dyn std::fmt::Display| BrokerError::Setup(format!("the broker's core: {e}"));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| setup(&e))?;
    let mut secret = [0u8; 24];
    getrandom::fill(&mut secret).map_err(|e| setup(&e))?;
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let internal = (format!("front-{}", hex(&secret[..8])), hex(&secret[8..]));
    let connections = ConnectionSettings {
        connection_timeout_ms: 60_000,
        max_payload_size: options.max_packet,
        max_inflight_count: options.max_inflight,
        auth: Some(HashMap::from([internal.clone()])),
        external_auth: None,
        dynamic_filters: true,
    };
    let server = ServerSettings {
        name: "v4".into(),
        listen: port,
        tls: None,
        next_connection_delay_ms: 1,
        connections,
    };
    let router = RouterConfig {
        // rumqttd's default of 0 connections refuses everyone.
        max_connections: 10_000,
        max_outgoing_packet_count: options.max_inflight as u64,
        max_segment_size: segment_size(options),
        max_segment_count: SEGMENTS,
        ..RouterConfig::default()
    };
    let config = Config {
        id: 0,
        router,
        v4: Some(HashMap::from([("v4".to_string(), server)])),
        ..Config::default()
    };
    // rumqttd's `start` blocks for ever: it gets its own thread, and ends with the process.
    let core = std::thread::spawn(move || Broker::new(config).start().map_err(|e| e.to_string()));
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect_timeout(&port, Duration::from_millis(100)).is_err() {
        if core.is_finished() || started.elapsed() > Duration::from_secs(10) {
            let why = match core.join() {
                Ok(Err(e)) => e,
                _ => "it did not start listening".into(),
            };
            return Err(setup(&why));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok((port, internal))
}
