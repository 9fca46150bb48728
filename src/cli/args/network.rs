//! The arguments of the commands that move messages: send, recv (and what every receiving command shares), directory, relay, request, broker, serve.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::Args;

use crate::operations::ProtocolSpec;

#[derive(Debug, Args)]
pub struct SendArgs {
    /// The message files to send (`-` or nothing for stdin, `clipboard:` for the clipboard).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Destination: file:PATH (appends), http(s)://HOST/PATH (POST),
    /// mqtt(s)://HOST[/TOPIC], clipboard (all messages, ready to paste),
    /// email:ADDRESS (with --out or --smtp), a2a+http(s)://AGENT (an A2A
    /// 1.0 agent: its card is read, each message sent as SendMessage, the
    /// agent's answer printed as one JSON line), or - for stdout.
    #[arg(long, value_name = "URI")]
    pub via: String,

    /// a2a+http(s): send each message as SendStreamingMessage and print
    /// each event (the task, status and artifact updates) as one JSON line
    /// as it comes; a stream cut before the task ends is followed again
    /// with SubscribeToTask (three times at most).
    #[arg(long, conflicts_with = "no_wait")]
    pub stream: bool,

    /// a2a+http(s): ask the agent to answer at once (returnImmediately),
    /// with the task as it is, instead of when it ends.
    #[arg(long)]
    pub no_wait: bool,

    /// a2a+http(s): send `Authorization: Bearer TOKEN` with the token in
    /// FILE's first line (else AIPROTO_A2A_TOKEN, if set), to the host
    /// named only: never to another host the agent's card points to.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,

    /// a2a+http(s): send nothing unless the agent's card carries a
    /// signature that verifies with a keystore key trusted for the card's
    /// name (`aiproto keys trust KID KEY --signs-for NAME`); a key the card
    /// itself points to (`jku`) is never taken.
    #[arg(long)]
    pub require_signed_card: bool,

    /// Send even if a message has errors; never one that cannot be read
    /// (JSON that does not parse, an envelope cut off before [[END]]).
    #[arg(long)]
    pub force: bool,

    /// Check and send each message in turn instead of checking them all
    /// first: the first goes out as soon as it is read (stdin from a pipe
    /// is read a message at a time: an HSP JSON line once it ends, a
    /// Crosstalk envelope once the line after its [[END]] comes, or the
    /// input ends; a file, or stdin redirected from one, in pieces),
    /// the reading and checking of the next overlap the sending, and every
    /// message is read once instead of twice. The first message that may
    /// not be sent stops it, with its findings and how many were sent
    /// before it (exit 1): those stay sent. For mqtt(s)://, http(s)://,
    /// a2a+http(s)://, email: over SMTP and -.
    #[arg(long)]
    pub each: bool,

    /// MQTT quality of service: 0, 1 or 2.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub qos: u8,

    /// MQTT: ask the broker to retain the message for later subscribers.
    #[arg(long)]
    pub retain: bool,

    #[command(flatten)]
    pub mqtt: MqttVersionArg,

    /// mqtts://: trust the CA certificates in this PEM file too (a private
    /// CA, a self-signed broker); the Mozilla roots are always trusted.
    #[arg(long = "cafile", value_name = "PEM")]
    pub ca_file: Option<PathBuf>,

    /// email: write the mail (RFC 5322) to this file instead of sending it.
    #[arg(long, value_name = "FILE.eml", conflicts_with = "smtp")]
    pub out: Option<PathBuf>,

    /// email: send over SMTP, e.g. smtps://user:pass@mail.example.com or smtp://127.0.0.1:2525.
    #[arg(long, value_name = "URL")]
    pub smtp: Option<String>,

    /// email: the From address (default: the sender when it is an email:
    /// address, else aiproto@localhost).
    #[arg(long, value_name = "ADDRESS")]
    pub mail_from: Option<String>,
}

// The MQTT version, for every command that speaks to a broker.
#[derive(Debug, Args)]
pub struct MqttVersionArg {
    /// MQTT: the protocol version spoken to the broker, 3.1.1 or 5. MQTT 5
    /// carries each message's content type, expiry (an HSP `valid_until` or
    /// `deadline_timestamp`), response topic (a TaskRequest's callback) and
    /// correlation data (the id a request and its answers share), and the
    /// broker says when it refuses a message. The built-in broker speaks 3.1.1.
    #[arg(
        long,
        value_name = "VERSION",
        default_value = "3.1.1",
        env = "AIPROTO_MQTT_VERSION"
    )]
    pub mqtt_version: crate::transport::mqtt::Version,
}

#[derive(Debug, Args)]
pub struct RecvArgs {
    /// Source: mqtt(s)://[user:pass@]host[:port]/FILTER (`+` and `#` wildcards
    /// allowed), http://ADDR:PORT (listen), clipboard, file:PATH, or - (stdin).
    #[arg(long, value_name = "URI")]
    pub via: String,

    /// clipboard: keep reading and print each new message once.
    #[arg(long)]
    pub watch: bool,

    /// file:PATH: keep reading as the file grows.
    #[arg(long)]
    pub follow: bool,

    /// More topic filters on the same broker.
    #[arg(long = "filter", value_name = "FILTER")]
    pub filters: Vec<String>,

    /// MQTT: one of a pool of workers sharing the messages: every filter
    /// is subscribed as `$share/GROUP/FILTER`, so the broker gives each
    /// message to one receiver of the GROUP (Mosquitto, EMQX, HiveMQ and
    /// the built-in broker do).
    #[arg(long, value_name = "GROUP")]
    pub share: Option<String>,

    #[command(flatten)]
    pub listen: ListenArgs,

    /// Remember the ids of the messages taken in FILE, across runs: a
    /// message whose id is there (a replay, a redelivery after a restart)
    /// is not taken again. Messages without an id are always taken. With
    /// --require-signed it is on by default, in AIPROTO_HOME/state/.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,

    /// Take only messages that verify with a key of the keystore trusted
    /// for their sender, dated within --max-age; the others are named on
    /// stderr, not printed nor acknowledged, and make the exit status 1.
    /// Replays are kept out across restarts (see --state).
    #[arg(long)]
    pub require_signed: bool,

    /// With --require-signed: refuse messages dated longer ago than this
    /// (30s, 10m, 12h, 7d, …), or carrying no date.
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = super::keys::parse_duration, requires = "require_signed")]
    pub max_age: chrono::Duration,

    /// Do not answer HSP messages that ask for one (`qos_parameters.requires_ack`)
    /// with an ACK to `hsp/agents/<sender>`.
    #[arg(long)]
    pub no_ack: bool,

    /// The receiving agent's id (a DID), the sender of the ACKs and NACKs
    /// recv publishes. Without it, a message addressed to an agent's DID is
    /// acknowledged as that agent, and one addressed to a topic is not
    /// acknowledged (said on stderr).
    #[arg(long = "as", value_name = "DID", env = "AIPROTO_AGENT_ID")]
    pub agent: Option<String>,

    /// A worker: hand each valid message to CMD (run by `sh -c`, the
    /// message on its stdin, its stdout printed in place of the message,
    /// or published on the message's MQTT 5 response topic when it has
    /// one; a TaskResult answering an HSP TaskRequest goes to the
    /// request's callback_address) and, over
    /// MQTT, acknowledge it to the broker only once CMD exits 0.
    /// A CMD that fails or runs past --exec-timeout stops recv (exit 3)
    /// with its message unacknowledged: the broker sends it again (to
    /// this --session when it comes back, or, with --share, to another
    /// worker of the group: Mosquitto and the built-in broker do, see
    /// docs/transports.md). With --state, a message handled before is not
    /// handed again.
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,

    /// Seconds the --exec handler may take with one message (beyond: it is
    /// stopped, with what it started, and recv stops as on a failure).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::operations::serving::TIMEOUT_SECS, requires = "exec")]
    pub exec_timeout: u64,
}

// When a receiving command stops, and how it subscribes.
#[derive(Debug, Args)]
pub struct ListenArgs {
    /// Stop after N messages.
    #[arg(long, value_name = "N")]
    pub count: Option<usize>,

    /// Stop after this many seconds; with --count, not reaching it by then exits 4.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// MQTT quality of service for the subscription.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub qos: u8,

    /// MQTT: a persistent session under this client id: the broker keeps the
    /// subscription and queues QoS 1/2 messages while aiproto is away (a
    /// lost connection, a broker restart, or the next run with the same NAME).
    #[arg(long, value_name = "NAME")]
    pub session: Option<String>,

    #[command(flatten)]
    pub mqtt: MqttVersionArg,

    /// mqtts://: trust the CA certificates in this PEM file too (a private
    /// CA, a self-signed broker); the Mozilla roots are always trusted.
    #[arg(long = "cafile", value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DirectoryArgs {
    /// The broker: mqtt(s)://[user:pass@]host[:port].
    #[arg(long, value_name = "URI")]
    pub via: String,

    /// The directory's own AI id: the sender of its answers.
    #[arg(long, value_name = "DID", default_value = "did:hsp:directory")]
    pub id: String,

    /// Seconds an advertisement counts after it was seen, unless it says
    /// until when itself (`valid_until`).
    #[arg(long, value_name = "SECONDS", default_value_t = 86_400)]
    pub ttl: u64,

    /// Keep only advertisements that verify with a key of the keystore
    /// trusted for their sender.
    #[arg(long)]
    pub require_signed: bool,

    #[command(flatten)]
    pub listen: ListenArgs,
}

#[derive(Debug, Args)]
pub struct RelayArgs {
    /// Source: clipboard, file:PATH, mqtt(s)://HOST[:PORT]/FILTER,
    /// http://ADDR:PORT (listen), or - (stdin).
    #[arg(long, value_name = "URI")]
    pub from: String,

    /// Destination: file:PATH, http(s)://…, mqtt(s)://HOST/TOPIC, clipboard, or - (stdout).
    #[arg(long, value_name = "URI")]
    pub to: String,

    /// Convert each message on the way, NAME[@VERSION] (losses on stderr).
    #[arg(long, value_name = "NAME[@VERSION]")]
    pub convert_to: Option<ProtocolSpec>,

    /// The name this relay writes in `meta: audit` hops.
    #[arg(long, value_name = "NAME", default_value = "aiproto-relay")]
    pub relay_id: String,

    #[command(flatten)]
    pub listen: ListenArgs,

    /// Remember the ids of the messages forwarded in FILE, across runs: a
    /// message whose id is there is not forwarded again.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RequestArgs {
    /// The TaskRequest file (`-` or nothing for stdin).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// Where the request goes: the broker, mqtt(s)://[user:pass@]host[:port][/topic],
    /// or an A2A agent, a2a+http(s)://HOST (its task comes back as the TaskResult).
    #[arg(long, value_name = "URI")]
    pub via: String,

    /// Seconds to wait for the TaskResult.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,

    /// Accept only a TaskResult that verifies with a key of the keystore
    /// trusted for its sender; to an A2A agent, whose answers carry no
    /// signature, send only if its Agent Card verifies with a key trusted
    /// for the card's name.
    #[arg(long)]
    pub require_signed: bool,

    /// a2a+http(s): send `Authorization: Bearer TOKEN` with the token in
    /// FILE's first line (else AIPROTO_A2A_TOKEN, if set), to the host
    /// named only.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,

    /// MQTT quality of service.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub qos: u8,

    #[command(flatten)]
    pub mqtt: MqttVersionArg,

    /// mqtts://: trust the CA certificates in this PEM file too (a private
    /// CA, a self-signed broker); the Mozilla roots are always trusted.
    #[arg(long = "cafile", value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BrokerArgs {
    #[command(subcommand)]
    pub action: Option<BrokerAction>,

    /// Address and port of the MQTT (3.1.1) listener. An address beyond
    /// loopback needs --passwords (or --allow-anonymous).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:1883")]
    pub listen: std::net::SocketAddr,

    /// Accounts: a Mosquitto password file (`name:$7$…` lines, written by
    /// `aiproto broker passwd` or mosquitto_passwd). A client without a
    /// valid account is refused.
    #[arg(long, value_name = "FILE")]
    pub passwords: Option<PathBuf>,

    /// Topic rules: a Mosquitto ACL file (`user NAME`, `topic [read|write|
    /// readwrite|deny] TOPIC`, `pattern read hsp/agents/%u/#`). Without
    /// it, every client may read and write every topic.
    #[arg(long, value_name = "FILE")]
    pub acl: Option<PathBuf>,

    /// Speak TLS on the listener with this certificate chain (PEM).
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Listen beyond loopback without accounts: anyone who reaches the
    /// port reads and writes every topic.
    #[arg(long)]
    pub allow_anonymous: bool,

    /// The largest packet (message and topic) a client may send, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 16 * 1024 * 1024)]
    pub max_packet: usize,

    /// Messages sent to one client and not yet acknowledged; beyond, the
    /// client waits for its acknowledgements.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_inflight: usize,

    /// Bytes kept for the subscribers of one topic filter, offline ones
    /// included; beyond, the oldest messages are dropped.
    #[arg(long, value_name = "BYTES", default_value_t = 256 * 1024 * 1024)]
    pub max_queued_bytes: usize,

    /// Bytes kept for subscribers across all topic filters and retained
    /// messages. Each filter ever subscribed keeps what was published to
    /// it, up to --max-queued-bytes; beyond this total, a publish that
    /// would add to it is refused as --denied-publish says, and a new
    /// filter gets a SUBACK failure. Both are said on stderr.
    #[arg(long, value_name = "BYTES", default_value_t = 1024 * 1024 * 1024)]
    pub max_memory: usize,

    /// What a client publishing where --acl does not allow gets. MQTT
    /// 3.1.1 cannot say "refused": disconnect closes its connection, so
    /// it learns its message went nowhere (aiproto's `send` then stops
    /// with exit 3 and says why); ignore acknowledges and drops it, as
    /// Mosquitto does (the publisher believes it delivered).
    #[arg(long, value_enum, value_name = "WHAT", default_value_t = DeniedPublish::Disconnect)]
    pub denied_publish: DeniedPublish,

    /// Clients logged in at once; beyond, a client gets CONNACK "server
    /// unavailable". Connections not yet logged in (each has 10 s, TLS
    /// handshake included) are bounded apart: 16 times this, at least 1,024.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max_connections: usize,

    /// Connections one client address may hold, logged in or not; beyond,
    /// they are closed at once (said on stderr).
    #[arg(long, value_name = "N", default_value_t = crate::transport::admission::MAX_PER_CLIENT)]
    pub max_per_client: usize,
}

/// `broker --denied-publish`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DeniedPublish {
    /// Close the publisher's connection.
    Disconnect,
    /// Acknowledge the publish and drop it.
    Ignore,
}

#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
pub enum BrokerAction {
    /// Add an account to a password file, or change its password (read
    /// from stdin, one line), as mosquitto_passwd does.
    ///
    /// Example: printf '%s\n' "$PASSWORD" | aiproto broker passwd broker.passwd alice
    Passwd {
        /// The password file (created, mode 0600, if missing).
        file: PathBuf,
        /// The account's name.
        user: String,
    },
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address and port to listen on (port 0: any free port, printed on stderr).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    pub listen: String,

    /// Directory where each received message is stored (as ID.crosstalk or
    /// ID.json; a message without an id under the digest of its text).
    #[arg(long, value_name = "DIR")]
    pub inbox: Option<PathBuf>,

    /// The most bytes the --inbox may hold, what is there already counted
    /// (beyond: 507, nothing stored).
    #[arg(long, value_name = "BYTES", default_value_t = crate::operations::serving::MAX_INBOX_BYTES)]
    pub max_inbox_bytes: u64,

    /// The most messages the --inbox may hold (beyond: 507).
    #[arg(long, value_name = "N", default_value_t = crate::operations::serving::MAX_INBOX_FILES)]
    pub max_inbox_files: u64,

    /// A shell command given each message on stdin; its stdout is the
    /// reply. A message is stored only once its handler exited 0, so a
    /// retry after a failure runs it again.
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,

    /// Seconds the --exec handler may take (beyond: it is stopped, with
    /// what it started, and the request answered 502).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::operations::serving::TIMEOUT_SECS)]
    pub exec_timeout: u64,

    /// The largest request body accepted.
    #[arg(long, value_name = "BYTES", default_value_t = crate::transport::server::MAX_BYTES)]
    pub max_bytes: usize,

    /// Requests per second allowed from one client address (beyond: 429 E-RATE).
    #[arg(long, value_name = "N")]
    pub rate: Option<u32>,

    /// Requests handled at once, counted once their headers arrived
    /// (beyond: 503); a slow client holds up only its own connection, and
    /// one client address takes at most half the places.
    #[arg(long, value_name = "N", default_value_t = crate::transport::server::MAX_CONNECTIONS)]
    pub max_connections: usize,

    /// Connections one client address may hold open at once (beyond:
    /// closed at once). All connections open: 16 × --max-connections, at
    /// least 1024.
    #[arg(long, value_name = "N", default_value_t = crate::transport::admission::MAX_PER_CLIENT)]
    pub max_per_client: usize,

    /// Seconds a client may take to send its headers, and to start its
    /// body: a body that keeps coming at 1,000 bytes a second or more
    /// earns a second for each 1,000 bytes, up to ten times this (beyond:
    /// 408); a trickle is refused soon after it.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::transport::server::READ_TIMEOUT_SECS)]
    pub read_timeout: u64,
}
