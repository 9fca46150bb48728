//! The arguments of the other faces the command line starts: mcp and desk.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
pub struct McpArgs {
    /// A directory whose files the tools may read (and `send` may append
    /// to, message files only); repeatable. Default: the working directory,
    /// unless it is `/` or the home directory itself (refused: name one).
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

    /// Seconds a client may take to send a request (408 beyond), as `serve`.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::transport::server::READ_TIMEOUT_SECS)]
    pub read_timeout: u64,

    /// Requests handled at once (503 beyond), as `serve`.
    #[arg(long, value_name = "N", default_value_t = crate::transport::server::MAX_CONNECTIONS)]
    pub max_connections: usize,

    /// Connections one client address may hold open (closed beyond), as `serve`.
    #[arg(long, value_name = "N", default_value_t = crate::transport::admission::MAX_PER_CLIENT)]
    pub max_per_client: usize,
}
