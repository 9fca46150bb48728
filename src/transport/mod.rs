//! One shape for every transport: a URI names an [`Endpoint`], and
//! [`open`] gives the [`Transport`] that sends messages to it and receives
//! messages from it. `send`, `recv`, `relay`, `request` and `directory` all
//! go through it, and so does `serve` (receiving from `http://ADDR`).
//!
//! | URI                         | sends                         | receives                      |
//! |-----------------------------|-------------------------------|-------------------------------|
//! | `-`                         | stdout                        | stdin, read once              |
//! | `file:PATH`                 | appends (locked)              | the file, or `--follow` it    |
//! | `http(s)://…`               | POST, prints the reply        | listens on `http://ADDR:PORT` |
//! | `mqtt(s)://…/TOPIC`         | publishes (QoS 0/1/2)         | subscribes to topic filters   |
//! | `clipboard`                 | all messages, one paste       | the clipboard, or `--watch` it|
//! | `email:ADDRESS`             | a mail per message            | —                             |
//! | `a2a+http(s)://AGENT`       | A2A SendMessage, prints result| —                             |

pub mod a2a;
pub mod admission;
pub mod bearer;
pub mod broker;
pub mod clipboard;
mod clipboard_targets;
pub mod door;
pub mod email;
pub mod file;
pub mod http;
pub mod http_conn;
pub mod mqtt;
pub mod secrets;
pub mod server;
mod stdio;
mod tls;

use std::path::PathBuf;
use std::time::Duration;

/// Where messages go or come from, parsed from a URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// `-`: stdout when sending, stdin when receiving.
    Stdio,
    File(PathBuf),
    /// An `http://` or `https://` URL the message is POSTed to.
    Http(String),
    /// An MQTT broker (and topic or topic filter), `mqtt://` or `mqtts://`.
    Mqtt(mqtt::MqttUri),
    /// The system clipboard: all messages at once, ready to paste.
    Clipboard,
    /// A mailbox (`email:ADDRESS`): see [`email`].
    Email(String),
    /// An A2A 1.0 agent (`a2a+http(s)://HOST`), by its base URL: see [`a2a`].
    A2a(String),
}

/// MQTT: how far a `send` goes before it returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SendReturns {
    /// Once the broker has acknowledged every message (QoS 1 and 2) or it
    /// is written (QoS 0): a command that waits for each.
    #[default]
    Acknowledged,
    /// Once every message is handed to the connection: a command that
    /// sends everything, then finishes (no pause between batches).
    Handed,
    /// Once every message is written to the socket, acknowledgements
    /// counted as they come: a command that sends each as it is read.
    Written,
}

/// What the command line adds to a URI.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// MQTT quality of service (publishing and subscribing).
    pub qos: u8,
    /// The MQTT version spoken to the broker.
    pub mqtt_version: mqtt::Version,
    /// MQTT: ask the broker to retain what is published.
    pub retain: bool,
    /// MQTT: a persistent session under this client id.
    pub session: Option<String>,
    /// MQTT: how far each `send` goes before it returns; `finish` waits
    /// for every acknowledgement whatever this says.
    pub send_returns: SendReturns,
    /// `mqtts://`: a PEM file of CA certificates to trust besides the system's.
    pub ca_file: Option<PathBuf>,
    /// email: how a mail leaves.
    pub mail: email::Delivery,
    /// http: how the server behaves when receiving (inbox, handler, limits).
    pub serve: server::ServeOptions,
    /// a2a+http(s): wait for each task, return at once, or stream its events.
    pub a2a: a2a::Mode,
    /// a2a+http(s): the bearer token sent to the agent named (never to
    /// another host its card points to).
    pub a2a_token: Option<String>,
    /// a2a+http(s): what the agent's card must pass before anything is sent
    /// (its signature, with `send --require-signed-card`).
    pub a2a_card_check: Option<a2a::CardCheck>,
}

/// Why a transport could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error(
        "unknown transport `{0}`: this version knows file:PATH, http(s)://…, mqtt(s)://…, clipboard, email:ADDRESS and - (stdin/stdout)"
    )]
    Unsupported(String),
    #[error("{0} cannot be received from{1}")]
    CannotReceive(String, &'static str),
    #[error("{url}: {why}")]
    /// The peer or the network failed (a refused connection, a TLS error, a timeout).
    Peer { url: String, why: String },
    #[error("{url} answered HTTP {status}")]
    Status {
        url: String,
        status: u16,
        reply: String,
    },
    #[error(transparent)]
    Clipboard(#[from] clipboard::ClipboardError),
    #[error(transparent)]
    Email(#[from] email::EmailError),
    #[error(
        "no topic: give it in the URI (mqtt://host/TOPIC or a filter such as mqtt://host/hsp/#)"
    )]
    NoTopic,
    #[error("credentials: {0}")]
    Credentials(String),
    #[error("the topic `{topic}` cannot be published to: {why}; nothing was sent")]
    BadTopic { topic: String, why: String },
    #[error("email:{0}: give --out FILE.eml to write the mail, or --smtp URL to send it")]
    EmailHow(String),
    #[error("--out writes one mail; there are {0} messages (use --smtp, or split the input)")]
    EmailOneFile(usize),
    #[error("cannot write to {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Input(#[from] crate::input::InputError),
    /// The receiver's own handling of a message failed (it says why).
    #[error(transparent)]
    Handler(anyhow::Error),
}

impl TransportError {
    /// Whether the fault is the command line's (exit 2) rather than the
    /// peer's or the network's (exit 3).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            TransportError::Unsupported(_)
                | TransportError::CannotReceive(..)
                | TransportError::NoTopic
                | TransportError::BadTopic { .. }
                | TransportError::Credentials(_)
                | TransportError::Email(
                    email::EmailError::Address(_) | email::EmailError::Build(_)
                )
                | TransportError::EmailHow(_)
                | TransportError::EmailOneFile(_)
                | TransportError::Input(_)
        )
    }
}

impl std::str::FromStr for Endpoint {
    type Err = TransportError;

    fn from_str(uri: &str) -> Result<Self, Self::Err> {
        if uri == "-" || uri == "stdout:" || uri == "stdin:" {
            return Ok(Endpoint::Stdio);
        }
        if uri == "clipboard" || uri == "clipboard:" {
            return Ok(Endpoint::Clipboard);
        }
        if let Some(address) = uri.strip_prefix("email:").filter(|a| a.contains('@')) {
            return Ok(Endpoint::Email(address.to_string()));
        }
        if uri.starts_with("http://") || uri.starts_with("https://") {
            return Ok(Endpoint::Http(uri.to_string()));
        }
        if let Some(base) = uri.strip_prefix("a2a+")
            && (base.starts_with("http://") || base.starts_with("https://"))
        {
            return Ok(Endpoint::A2a(base.to_string()));
        }
        if uri.starts_with("mqtt://") || uri.starts_with("mqtts://") {
            return mqtt::MqttUri::parse(uri)
                .map(Endpoint::Mqtt)
                .map_err(|why| TransportError::Peer {
                    // Never the password, even in a URI that does not parse.
                    url: secrets::redact(uri),
                    why,
                });
        }
        match uri
            .strip_prefix("file://")
            .or_else(|| uri.strip_prefix("file:"))
        {
            Some(path) if !path.is_empty() => Ok(Endpoint::File(PathBuf::from(path))),
            _ => Err(TransportError::Unsupported(uri.to_string())),
        }
    }
}

/// A payload on its way out: the bytes, and the routing the delivery
/// layer worked out for them.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// The message's wire text.
    pub text: String,
    pub routing: Routing,
}

/// Where and how a payload goes, as far as a transport needs to know.
#[derive(Debug, Clone, Default)]
pub struct Routing {
    /// Its media type (an HTTP Content-Type); by default `application/json`.
    pub content_type: Option<&'static str>,
    /// What it is, for an error: `crosstalk`, `hsp`…
    pub kind: &'static str,
    /// The path an HTTP URL without one gets (`None`: the URL must name one).
    pub http_path: Option<&'static str>,
    /// The MQTT topic it names itself (an HSP recipient); the URI's topic
    /// comes first.
    pub topic: Option<String>,
    /// The mail that carries it (for `email:`).
    pub mail: Option<email::Mail>,
    /// Set apart by a blank line from what comes before it in a file (a
    /// Crosstalk envelope).
    pub spaced: bool,
    /// When it stops being worth delivering (an HSP fact's `valid_until`, a
    /// task's `deadline_timestamp`): over MQTT 5, its message expiry.
    pub expires_at: Option<std::time::SystemTime>,
    /// Where the answer to it goes (a TaskRequest's `callback_address`):
    /// over MQTT 5, its response topic.
    pub response_topic: Option<String>,
    /// The id that ties it to a request: a request's own message id, an
    /// answer's `correlation_id`. Over MQTT 5, its correlation data.
    pub correlation: Option<String>,
}

impl Outgoing {
    /// The payload's media type.
    pub fn content_type(&self) -> &'static str {
        self.routing.content_type.unwrap_or("application/json")
    }
}

/// How a receiving transport listens.
#[derive(Debug, Clone, Default)]
pub struct Listen {
    /// Keep going after the current content: a watched clipboard, a
    /// followed file. A subscription always keeps going.
    pub keep_reading: bool,
    /// Stop after this long.
    pub timeout: Option<Duration>,
    /// MQTT: more topic filters besides the URI's.
    pub filters: Vec<String>,
    /// Published once the subscription stands (`request`).
    pub first: Vec<Publication>,
    /// No "subscribed" or "listening" line on stderr.
    pub quiet: bool,
    /// MQTT: acknowledge each message to the broker only once the receiver
    /// has handled it (returned without error), handling taking up to this
    /// long; `None`: each is acknowledged as it arrives. A message whose
    /// handling failed, or was cut short by the end of the process, stays
    /// with the broker, which sends it again.
    pub handled_within: Option<Duration>,
    /// Set (by a signal handler) to stop listening: between requests, MQTT
    /// packets or polls, within a fifth of a second. Receiving then ends
    /// with [`Ended::Interrupted`].
    pub stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// Something that came in.
pub struct Arrival<'a> {
    /// Where it came from: a topic, a path, `<clipboard>`, `<stdin>`.
    pub origin: &'a str,
    /// The MQTT topic it was published on.
    pub topic: Option<&'a str>,
    pub text: &'a str,
    /// The whole current content of a source read again and again (a
    /// clipboard, a file): what was in it before comes again.
    pub snapshot: bool,
    /// What an MQTT 5 publisher said beside the payload.
    pub properties: Option<&'a Properties>,
}

/// A payload an MQTT client publishes, with its topic and what MQTT 5
/// carries beside it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Publication {
    pub topic: String,
    pub payload: Vec<u8>,
    pub properties: Properties,
}

impl Publication {
    /// `payload` to `topic`, with no property.
    pub fn new(topic: String, payload: Vec<u8>) -> Publication {
        Publication {
            topic,
            payload,
            properties: Properties::default(),
        }
    }

    /// A JSON payload (an HSP ACK, NACK or directory answer) to `topic`.
    pub fn json(topic: String, payload: Vec<u8>) -> Publication {
        Publication {
            topic,
            payload,
            properties: Properties {
                content_type: Some("application/json".into()),
                ..Properties::default()
            },
        }
    }

    /// The same, tied by its MQTT 5 correlation data to the message whose id is `id`.
    pub fn correlated(mut self, id: Option<&str>) -> Publication {
        self.properties.correlation_data = id.map(|id| id.as_bytes().to_vec());
        self
    }
}

/// The MQTT 5 properties of a PUBLISH that aiproto sets and reads; MQTT
/// 3.1.1 carries none of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Properties {
    /// The payload's media type.
    pub content_type: Option<String>,
    /// How many seconds the broker may keep it for a subscriber (counted
    /// from when it was published; the broker lowers it as time passes).
    pub expiry_seconds: Option<u32>,
    /// Where the answer goes.
    pub response_topic: Option<String>,
    /// What the answer carries back to name its request.
    pub correlation_data: Option<Vec<u8>>,
}

impl Properties {
    /// Whether it holds none of them.
    pub fn is_empty(&self) -> bool {
        *self == Properties::default()
    }
}

impl Listen {
    /// Whether a signal asked to stop.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// What the receiver does after an arrival.
#[derive(Debug, Default)]
pub struct Answer {
    /// What to publish in answer (an ACK, a directory's response).
    pub publish: Vec<Publication>,
    /// Stop receiving.
    pub stop: bool,
}

/// How receiving ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The receiver said stop.
    Stopped,
    /// The source was read through (a file or stdin read once).
    Exhausted,
    /// The timeout passed first.
    Timeout,
    /// `Listen::stop` was set (by SIGINT or SIGTERM): a deadline the user chose.
    Interrupted,
}

/// The receiver's handling of one arrival.
pub type OnArrival<'h> = dyn FnMut(Arrival<'_>) -> anyhow::Result<Answer> + 'h;

/// A transport: sends messages to its endpoint, and receives from it.
pub trait Transport {
    /// Delivers the messages in order. `on_reply` gets what an HTTP peer
    /// answers to each.
    fn send(
        &mut self,
        messages: &[Outgoing],
        on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError>;

    /// Ends what `send` may have kept open for the next call (an MQTT
    /// connection), once every message is delivered.
    fn finish(&mut self) -> Result<(), TransportError> {
        Ok(())
    }

    /// Hands each arrival to `on_arrival` until it says stop, the source is
    /// read through, or `listen.timeout` passes.
    fn receive(
        &mut self,
        listen: &Listen,
        on_arrival: &mut OnArrival<'_>,
    ) -> Result<Ended, TransportError>;
}

/// The transport of an endpoint.
pub fn open(endpoint: Endpoint, settings: Settings) -> Box<dyn Transport> {
    match endpoint {
        Endpoint::Stdio => Box::new(stdio::Stdio),
        Endpoint::File(path) => Box::new(file::FileTransport { path }),
        Endpoint::Http(url) => Box::new(http::HttpTransport {
            url,
            serve: settings.serve,
        }),
        Endpoint::Mqtt(uri) => Box::new(mqtt::MqttTransport::new(uri, settings)),
        Endpoint::Clipboard => Box::new(clipboard::ClipboardTransport),
        Endpoint::Email(address) => Box::new(email::EmailTransport {
            address,
            delivery: settings.mail,
        }),
        Endpoint::A2a(base) => Box::new(
            a2a::A2aTransport::new(base, settings.a2a, settings.a2a_token)
                .with_card_check(settings.a2a_card_check),
        ),
    }
}

/// Rendered messages as one text: Crosstalk envelopes with a blank line
/// between them, JSON messages one per line.
pub fn join_messages(texts: &[String]) -> String {
    let mut out = String::with_capacity(texts.iter().map(|t| t.len() + 1).sum());
    for (i, text) in texts.iter().enumerate() {
        if i > 0 && text.starts_with("[[") {
            out.push('\n');
        }
        out.push_str(text);
    }
    out
}

/// How often a watched clipboard or followed file is read again.
const POLL: Duration = Duration::from_millis(200);

/// The messages' texts as one, as [`join_messages`] does.
fn joined(messages: &[Outgoing]) -> String {
    let texts: Vec<String> = messages.iter().map(|m| m.text.clone()).collect();
    join_messages(&texts)
}

/// Receiving from a source read whole (a clipboard, a file): `read` gives
/// its current text (`None`: nothing yet), handed on as a snapshot each
/// time it changes; once, or with `listen.keep_reading` until the receiver
/// says stop or the timeout passes.
fn poll_snapshots(
    origin: &str,
    listen: &Listen,
    mut read: impl FnMut() -> Result<Option<String>, TransportError>,
    on_arrival: &mut OnArrival<'_>,
) -> Result<Ended, TransportError> {
    let deadline = listen.timeout.map(|t| std::time::Instant::now() + t);
    let mut last: Option<String> = None;
    loop {
        if listen.is_stopped() {
            return Ok(Ended::Interrupted);
        }
        if let Some(text) = read()?.filter(|t| last.as_ref() != Some(t)) {
            let answer = on_arrival(Arrival {
                origin,
                topic: None,
                text: &text,
                snapshot: true,
                properties: None,
            })
            .map_err(TransportError::Handler)?;
            if answer.stop {
                return Ok(Ended::Stopped);
            }
            last = Some(text);
        }
        if !listen.keep_reading {
            return Ok(Ended::Exhausted);
        }
        let now = std::time::Instant::now();
        match deadline {
            Some(d) if now >= d => return Ok(Ended::Timeout),
            Some(d) => std::thread::sleep(POLL.min(d - now)),
            None => std::thread::sleep(POLL),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_name_their_endpoints() {
        assert_eq!("-".parse::<Endpoint>().unwrap(), Endpoint::Stdio);
        assert_eq!(
            "clipboard".parse::<Endpoint>().unwrap(),
            Endpoint::Clipboard
        );
        assert_eq!(
            "file:box.crosstalk".parse::<Endpoint>().unwrap(),
            Endpoint::File("box.crosstalk".into())
        );
        assert_eq!(
            "email:bob@example.com".parse::<Endpoint>().unwrap(),
            Endpoint::Email("bob@example.com".into())
        );
        let Endpoint::Mqtt(u) = "mqtts://broker.example/hsp/#".parse().unwrap() else {
            panic!("not mqtt");
        };
        assert!(u.tls);
        assert_eq!(u.port, 8883);
        assert!(matches!(
            "gopher://x".parse::<Endpoint>(),
            Err(TransportError::Unsupported(_))
        ));
        assert!("email:nobody".parse::<Endpoint>().is_err());
    }
}
