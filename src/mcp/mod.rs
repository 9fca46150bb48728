//! `aiproto mcp`: the library as a Model Context Protocol server over
//! stdio or Streamable HTTP, so that assistants validate, compose, sign, convert and relay
//! messages themselves. A face beside the command line: it calls the same
//! library functions, never a command.

mod fixtures;
pub mod http;
mod outputs;
mod resources;
mod server;

use rmcp::ServiceExt;

pub use crate::operations::{Context, Sandbox};

/// Serves MCP on stdin/stdout until the host closes the connection.
pub fn serve(ctx: Context) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let running = server::Server::new(ctx, false)?
            .serve(rmcp::transport::stdio())
            .await?;
        running.waiting().await?;
        Ok(())
    })
}
