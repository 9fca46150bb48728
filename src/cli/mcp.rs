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
    // outside the roots. Its folder must exist.
    let archive = match &args.archive {
        Some(path) => {
            let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
            let folder = folder.map_or_else(std::env::current_dir, |f| f.canonicalize());
            let folder = folder.map_err(|e| {
                CliError::usage(format!("--archive {}: its folder: {e}", path.display()))
            })?;
            Some(folder.join(path.file_name().unwrap_or_default()))
        }
        None => None,
    };
    let ctx = Context {
        sandbox,
        archive,
        allow_network: args.allow_network,
        max_bytes: args.max_bytes,
    };
    crate::mcp::serve(ctx).map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    Ok(ExitStatus::Ok)
}
