//! `aiproto mcp`: starts the MCP face on stdio, or over HTTP with
//! `--listen` (see [`crate::mcp`]).

use super::args::McpArgs;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::mcp::http::Listen;
use crate::mcp::{Context, Sandbox};
use crate::transport::admission::Limits;
use std::io::Write;

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
    match args.listen {
        None => crate::mcp::serve(ctx).map_err(|e| CliError::new(ExitStatus::Transport, e))?,
        Some(address) => serve_http(ctx, args, address)?,
    }
    Ok(ExitStatus::Ok)
}

/// The environment variable a bearer token may come in.
const TOKEN_ENV: &str = "AIPROTO_MCP_TOKEN";

/// `--listen`: the address, the token and the bounds checked, then the
/// URL on stdout (for scripts) and, when aiproto made the token, the token
/// on stderr (the only time it is ever shown).
fn serve_http(ctx: Context, args: &McpArgs, address: std::net::SocketAddr) -> Result<(), CliError> {
    let loopback = address.ip().is_loopback();
    if !loopback && !args.allow_remote {
        return Err(CliError::usage(format!(
            "--listen {address}: beyond loopback, the bearer token and every message would cross \
             the network in plain HTTP; add --allow-remote (behind a TLS proxy, or on a network you \
             trust), or listen on 127.0.0.1"
        )));
    }
    if args.conformance_fixtures && !loopback {
        return Err(CliError::usage(
            "--conformance-fixtures serves test tools for the conformance suite: loopback only",
        ));
    }
    let (token, made) = super::common::bearer_token(args.token_file.as_deref(), TOKEN_ENV)?;
    let listen = Listen {
        address,
        token: token.clone(),
        hosts: args.allowed_hosts.clone(),
        origins: args.allowed_origins.clone(),
        limits: Limits {
            max_connections: args.max_connections.max(1),
            max_per_client: args.max_per_client.max(1),
            rate: args.rate,
        },
        read_timeout: std::time::Duration::from_secs(args.read_timeout.max(1)),
        max_body: args.max_bytes.saturating_add(64 * 1024),
    };
    crate::mcp::http::serve(ctx, args.conformance_fixtures, listen, |bound| {
        let host = match bound.ip() {
            ip if ip.is_unspecified() => "127.0.0.1".to_string(),
            std::net::IpAddr::V6(ip) => format!("[{ip}]"),
            std::net::IpAddr::V4(ip) => ip.to_string(),
        };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "http://{host}:{}{}", bound.port(), crate::mcp::http::ENDPOINT)
            .and_then(|()| out.flush());
        if made {
            eprintln!(
                "aiproto: MCP over HTTP at the URL above; each request needs the header\n  \
                 Authorization: Bearer {token}\n(a new token each start: give one with --token-file \
                 or {TOKEN_ENV} to keep it)"
            );
        }
        if !loopback {
            eprintln!(
                "aiproto: warning: listening on {bound}, not loopback: plain HTTP, readable on the way"
            );
        }
    })
    .map_err(|e| CliError::new(ExitStatus::Transport, e))
}

/// The root when none is named: the working directory, unless that is `/`,
/// the home directory, or a folder holding it (`/home`): a host that starts
/// the server there would open every file of the machine, or of the
/// person, to the assistant.
fn default_root() -> Result<std::path::PathBuf, CliError> {
    let cwd = std::env::current_dir()?;
    let resolved = cwd.canonicalize().unwrap_or_else(|_| cwd.clone());
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .and_then(|h| h.canonicalize().ok());
    let holds_home = home.as_ref().is_some_and(|h| h.starts_with(&resolved));
    if resolved.parent().is_none() || holds_home {
        return Err(CliError::usage(format!(
            "the working directory is {}: too wide a root for the assistant's files; name the folder \
             it may use with --root DIR (for example --root ~/chats)",
            resolved.display()
        )));
    }
    Ok(cwd)
}
