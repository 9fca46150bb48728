//! `aiproto mcp`: starts the MCP face on stdio (see [`crate::mcp`]).

use super::args::McpArgs;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::mcp::{Context, Sandbox};

pub fn run(args: &McpArgs) -> CmdResult {
    let roots = if args.roots.is_empty() {
        vec![std::env::current_dir()?]
    } else {
        args.roots.clone()
    };
    let sandbox = Sandbox::new(&roots).map_err(CliError::usage)?;
    // The archive is named by the person starting the server: it may lie
    // outside the roots.
    let archive = args
        .archive
        .as_deref()
        .map(super::common::archive_path)
        .transpose()?;
    let ctx = Context {
        sandbox,
        archive,
        allow_network: args.allow_network,
        max_bytes: args.max_bytes,
    };
    crate::mcp::serve(ctx).map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    Ok(ExitStatus::Ok)
}
