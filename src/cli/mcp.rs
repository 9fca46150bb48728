//! `aiproto mcp`: starts the MCP face on stdio (see [`crate::mcp`]).

use super::args::McpArgs;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::mcp::{Context, Sandbox};

pub fn run(args: &McpArgs) -> CmdResult {
    let roots = if args.roots.is_empty() {
        vec![default_root()?]
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
        allow_signing: args.allow_signing,
        // What an assistant composes is never the person's own text.
        person_composes: false,
        max_bytes: args.max_bytes,
    };
    crate::mcp::serve(ctx).map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    Ok(ExitStatus::Ok)
}

/// The root when none is named: the working directory, unless that is `/`
/// or the home directory itself (a host that starts the server there would
/// open every file of the machine, or of the person, to the assistant).
fn default_root() -> Result<std::path::PathBuf, CliError> {
    let cwd = std::env::current_dir()?;
    let resolved = cwd.canonicalize().unwrap_or_else(|_| cwd.clone());
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .and_then(|h| h.canonicalize().ok());
    if resolved.parent().is_none() || home.as_ref() == Some(&resolved) {
        return Err(CliError::usage(format!(
            "the working directory is {}: too wide a root for the assistant's files; name the folder \
             it may use with --root DIR (for example --root ~/chats)",
            resolved.display()
        )));
    }
    Ok(cwd)
}
