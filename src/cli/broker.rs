//! `aiproto broker` and `aiproto broker passwd`: the built-in MQTT broker
//! ([`crate::transport::broker`]) and its password file.

use std::io::{BufRead, Write};

use super::args::{BrokerAction, BrokerArgs, DeniedPublish, GlobalArgs};
use super::endpoints::stop_on_signals;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::transport::broker::{self, BrokerError, Options, passwd};

pub fn broker(args: &BrokerArgs, g: &GlobalArgs) -> CmdResult {
    if let Some(BrokerAction::Passwd { file, user }) = &args.action {
        return set_password(file, user, g);
    }
    if !args.listen.ip().is_loopback() && args.passwords.is_none() && !args.allow_anonymous {
        return Err(CliError::usage(format!(
            "--listen {}: beyond loopback without accounts, anyone who reaches the port reads and writes every agent's messages",
            args.listen
        ))
        .with_hint(
            "give accounts (--passwords FILE, written by `aiproto broker passwd`) and topic rules (--acl FILE), or --allow-anonymous to do it anyway",
        ));
    }
    let options = Options {
        listen: args.listen,
        passwords: args.passwords.clone(),
        acl: args.acl.clone(),
        tls: args.tls_cert.clone().zip(args.tls_key.clone()),
        max_packet: args.max_packet,
        max_inflight: args.max_inflight.max(1),
        max_queued_bytes: args.max_queued_bytes,
        max_memory: args.max_memory,
        denied_publish: match args.denied_publish {
            DeniedPublish::Disconnect => broker::DeniedPublish::Disconnect,
            DeniedPublish::Ignore => broker::DeniedPublish::Ignore,
        },
        max_connections: args.max_connections.max(1),
        max_per_client: args.max_per_client.max(1),
        quiet: g.quiet,
    };
    let stop = stop_on_signals()?;
    let quiet = g.quiet;
    broker::run(&options, stop, |started| {
        if quiet {
            return;
        }
        let scheme = if started.tls { "mqtts" } else { "mqtt" };
        let accounts = match started.accounts {
            Some(n) => format!("{n} account(s)"),
            None => "no accounts".into(),
        };
        let acl = if options.acl.is_some() { "topic rules" } else { "no topic rules" };
        eprintln!(
            "aiproto: MQTT 3.1.1 broker listening on {scheme}://{} ({accounts}, {acl}); it keeps no message across restarts (Mosquitto with persistence does)",
            started.listen
        );
    })
    .map_err(|e| match e {
        BrokerError::Listen(addr, io) if io.kind() == std::io::ErrorKind::AddrInUse => CliError::new(
            ExitStatus::Transport,
            anyhow::anyhow!("cannot listen on {addr}: the port is in use (another broker, such as Mosquitto, may be running there)"),
        )
        .with_hint("stop it, or give --listen another port"),
        BrokerError::Listen(..) => CliError::new(ExitStatus::Transport, e),
        BrokerError::Setup(_) => CliError::usage(e),
    })?;
    if !g.quiet {
        eprintln!("aiproto: broker stopped");
    }
    Ok(ExitStatus::Ok)
}

/// Adds or replaces `user` in the password file, its password read from
/// stdin; the file is written whole into a temporary file and renamed.
fn set_password(file: &std::path::Path, user: &str, g: &GlobalArgs) -> CmdResult {
    let mut password = String::new();
    std::io::stdin().lock().read_line(&mut password)?;
    let password = password.trim_end_matches(['\n', '\r']);
    if password.is_empty() {
        return Err(CliError::usage("no password on stdin")
            .with_hint("printf '%s\\n' \"$PASSWORD\" | aiproto broker passwd FILE USER"));
    }
    let line = passwd::entry(user, password).map_err(CliError::usage)?;
    let old = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(CliError::usage(format!("{}: {e}", file.display()))),
    };
    passwd::Passwords::parse(&old)
        .map_err(|e| CliError::usage(format!("{}: {e}", file.display())))?;
    let text = passwd::with_entry(&old, &line);
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(text.as_bytes())?;
    // NamedTempFile is created 0600: only the broker's user reads the hashes.
    temp.persist(file)
        .map_err(|e| CliError::usage(format!("{}: {e}", file.display())))?;
    if !g.quiet {
        eprintln!("aiproto: account `{user}` set in {}", file.display());
    }
    Ok(ExitStatus::Ok)
}
