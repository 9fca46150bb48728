//! The arguments of the other faces the command line starts: mcp, desk and the A2A bridge.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
pub struct McpArgs {
    /// A directory whose files the tools may read (and `send` may append
    /// to, message files only); repeatable. Default: the working directory,
    /// unless it is `/`, the home directory or a folder holding it (refused: name one).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,

    /// A conversation archive: offered as a resource, and what `thread`
    /// and `poll_collate` read when given nothing else.
    #[arg(long, value_name = "FILE")]
    pub archive: Option<PathBuf>,

    /// Offer the `send` and `recv` tools (file archive, HTTP, MQTT).
    #[arg(long)]
    pub allow_network: bool,

    /// Offer the `sign` tool: the assistant may then sign text with your
    /// key, speaking as you (without it, it is not listed and refused).
    #[arg(long)]
    pub allow_signing: bool,

    /// The largest text or file a tool takes, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = crate::transport::server::MAX_BYTES)]
    pub max_bytes: usize,

    /// Serve over Streamable HTTP on ADDR:PORT (path /mcp) instead of
    /// stdio (port 0: a free port). Every request needs the bearer token,
    /// printed at start unless given by --token-file or AIPROTO_MCP_TOKEN.
    #[arg(long, value_name = "ADDR:PORT", help_heading = "Over HTTP")]
    pub listen: Option<std::net::SocketAddr>,

    /// Read the bearer token from FILE's first line (at least 16
    /// characters) instead of making one.
    #[arg(
        long,
        value_name = "FILE",
        requires = "listen",
        help_heading = "Over HTTP"
    )]
    pub token_file: Option<PathBuf>,

    /// A name clients reach the server by (the Host header), besides
    /// localhost and the bound address; repeatable. Other names get 403
    /// (DNS rebinding).
    #[arg(
        long = "allowed-host",
        value_name = "NAME",
        requires = "listen",
        help_heading = "Over HTTP"
    )]
    pub allowed_hosts: Vec<String>,

    /// A browser origin allowed to call (scheme://host:port), besides the
    /// server's own; repeatable. Requests with another Origin get 403.
    #[arg(
        long = "allow-origin",
        value_name = "ORIGIN",
        requires = "listen",
        help_heading = "Over HTTP"
    )]
    pub allowed_origins: Vec<String>,

    /// Listen beyond loopback although aiproto speaks plain HTTP: the
    /// token and every message cross the network readable. Put a TLS
    /// proxy in front, or keep to a network you trust.
    #[arg(long, requires = "listen", help_heading = "Over HTTP")]
    pub allow_remote: bool,

    /// Seconds a client may take to send a request's headers, and to start
    /// its body; a body that keeps coming at 1,000 bytes a second or more
    /// earns a second for each 1,000 bytes, up to ten times this (408
    /// beyond).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::transport::server::READ_TIMEOUT_SECS, help_heading = "Over HTTP")]
    pub read_timeout: u64,

    /// Requests handled at once (503 beyond).
    #[arg(long, value_name = "N", default_value_t = crate::transport::server::MAX_CONNECTIONS, help_heading = "Over HTTP")]
    pub max_connections: usize,

    /// Connections one client address may hold open (closed beyond).
    #[arg(long, value_name = "N", default_value_t = crate::transport::admission::MAX_PER_CLIENT, help_heading = "Over HTTP")]
    pub max_per_client: usize,

    /// Requests per second one client address may make (429 beyond).
    #[arg(long, value_name = "N", help_heading = "Over HTTP")]
    pub rate: Option<u32>,

    /// Test mode for the MCP conformance suite: also serve the suite's
    /// fixture tools, resources and prompts (test_simple_text, …) beside
    /// aiproto's own. Loopback only; never for real use.
    #[arg(long, requires = "listen", help_heading = "Over HTTP")]
    pub conformance_fixtures: bool,
}

#[derive(Debug, Args)]
pub struct DeskArgs {
    /// Address and port to listen on (port 0: a free port). An address
    /// other than loopback lets other machines reach the page (with the
    /// token): a warning is printed.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:0")]
    pub listen: String,

    /// The conversation archive the page adds to and shows as a tree
    /// (created on the first archived message).
    #[arg(long, value_name = "FILE", default_value = "desk.crosstalk")]
    pub archive: PathBuf,

    /// Open the page in the default browser (xdg-open, open or start).
    #[arg(long)]
    pub open: bool,

    /// The largest request accepted, in bytes (413 beyond), as `serve`.
    #[arg(long, value_name = "BYTES", default_value_t = crate::transport::server::MAX_BYTES)]
    pub max_bytes: usize,

    /// Seconds a client may take to send a request's headers, and to start
    /// its body (a body that keeps coming at 1,000 bytes a second earns
    /// more, up to ten times this; 408 beyond), as `serve`.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::transport::server::READ_TIMEOUT_SECS)]
    pub read_timeout: u64,

    /// Requests handled at once (503 beyond), as `serve`.
    #[arg(long, value_name = "N", default_value_t = crate::transport::server::MAX_CONNECTIONS)]
    pub max_connections: usize,

    /// Connections one client address may hold open (closed beyond), as `serve`.
    #[arg(long, value_name = "N", default_value_t = crate::transport::admission::MAX_PER_CLIENT)]
    pub max_per_client: usize,
}

#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
pub enum A2aCommand {
    /// Serve the HSP agents of an MQTT network as an A2A 1.0 agent.
    ///
    /// Prints the card's URL on stdout once listening, and the bearer
    /// token on stderr when it made one. The card lists the capabilities
    /// advertised now (503 while none is); a message goes to the one it
    /// names in message.metadata.skill, else --capability, else the only
    /// one live. Tasks are kept in memory (--max-tasks); CancelTask stops
    /// waiting for the HSP agent, which is not told (HSP has no cancel).
    ///
    /// Example: aiproto a2a serve --listen 127.0.0.1:8080 --via mqtt://127.0.0.1:1883
    Serve(A2aServeArgs),
}

#[derive(Debug, Args)]
pub struct A2aServeArgs {
    /// Address and port to listen on (port 0: a free port).
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: std::net::SocketAddr,

    /// The HSP network's broker: mqtt(s)://[user:pass@]host[:port].
    #[arg(long, value_name = "URI")]
    pub via: String,

    /// The bridge's own AI id on the HSP network: the sender of its
    /// TaskRequests, whose results come on hsp/results/<DID>.
    #[arg(long = "as", value_name = "DID", default_value = "did:hsp:a2a-bridge")]
    pub agent: String,

    /// The Agent Card's name.
    #[arg(long, value_name = "NAME", default_value = "aiproto HSP bridge")]
    pub name: String,

    /// The capability a message goes to when it names none
    /// (message.metadata.skill) and several are live.
    #[arg(long, value_name = "ID")]
    pub capability: Option<String>,

    /// Seconds an HSP agent has to answer a task (then it fails).
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub task_timeout: u64,

    /// Keep only advertisements, and take only TaskResults, that verify
    /// with a key of the keystore trusted for their sender: on a broker
    /// others can publish to, anyone may claim to be any agent.
    #[arg(long)]
    pub require_signed: bool,

    /// Sign the Agent Card with this keystore key (JWS over the card's
    /// canonical JSON, A2A 1.0 section 8.4), so that clients trusting the
    /// key can tell the card was not changed on the way. The key must be
    /// bound to the card's --name (`keygen --signs-for NAME`).
    #[arg(long, value_name = "KEY-ID")]
    pub sign_card: Option<String>,

    /// Tasks held in memory; beyond, the oldest finished one goes, and
    /// with none finished a new task is refused.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_tasks: usize,

    /// Read the bearer token from FILE's first line (at least 16
    /// characters) instead of making one (or AIPROTO_A2A_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,

    /// Serve without a bearer token, on loopback only: for graders that
    /// cannot send one (the A2A TCK). Any process on this machine may
    /// then call the bridge, and through it the HSP agents.
    #[arg(long, conflicts_with = "token_file")]
    pub no_token: bool,

    /// A name clients reach the bridge by (the Host header), besides
    /// localhost and the bound address; repeatable. Other names get 403.
    #[arg(long = "allowed-host", value_name = "NAME")]
    pub allowed_hosts: Vec<String>,

    /// A browser origin allowed to call (scheme://host:port), besides the
    /// bridge's own; repeatable. Requests with another Origin get 403.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,

    /// Listen beyond loopback although the bridge speaks plain HTTP: the
    /// token and every message cross the network readable.
    #[arg(long)]
    pub allow_remote: bool,

    /// The largest request body, in bytes (413 beyond).
    #[arg(long, value_name = "BYTES", default_value_t = crate::transport::server::MAX_BYTES)]
    pub max_bytes: usize,

    /// Seconds a client may take to send a request's headers, and to
    /// start its body (408 beyond).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::transport::server::READ_TIMEOUT_SECS)]
    pub read_timeout: u64,

    /// Requests handled at once (503 beyond).
    #[arg(long, value_name = "N", default_value_t = crate::transport::server::MAX_CONNECTIONS)]
    pub max_connections: usize,

    /// Connections one client address may hold open (closed beyond).
    #[arg(long, value_name = "N", default_value_t = crate::transport::admission::MAX_PER_CLIENT)]
    pub max_per_client: usize,

    /// Requests per second one client address may make (429 beyond).
    #[arg(long, value_name = "N")]
    pub rate: Option<u32>,

    #[command(flatten)]
    pub mqtt: super::MqttVersionArg,

    /// mqtts://: trust the CA certificates in this PEM file too.
    #[arg(long = "cafile", value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
}
