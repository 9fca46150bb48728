//! `aiproto mcp`: the library as a Model Context Protocol server over
//! stdio, so that assistants validate, compose, sign, convert and relay
//! messages themselves. A face beside the command line: it calls the same
//! library functions, never a command.

mod network;
mod params;
mod resources;
pub mod sandbox;
mod server;
mod tools;

use std::path::PathBuf;

use rmcp::ServiceExt;

pub use sandbox::Sandbox;

/// How the server was started.
pub struct Context {
    /// The directories whose files the tools may read and write.
    pub sandbox: Sandbox,
    /// The archive offered as a resource and read by `thread` and
    /// `poll_collate` by default.
    pub archive: Option<PathBuf>,
    /// Offer `send` and `recv`.
    pub allow_network: bool,
    /// The largest text or file a tool takes.
    pub max_bytes: usize,
}

/// Serves MCP on stdin/stdout until the host closes the connection.
pub fn serve(ctx: Context) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let running = server::Server::new(ctx)
            .serve(rmcp::transport::stdio())
            .await?;
        running.waiting().await?;
        Ok(())
    })
}
