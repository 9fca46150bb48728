//! `aiproto a2a serve`: starts the A2A bridge (see [`crate::bridge`]) once
//! its broker, address and token are checked.

use std::io::Write;
use std::time::Duration;

use super::args::A2aServeArgs;
use super::endpoints::endpoint;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::transport::admission::Limits;
use crate::transport::door::{self, Listen};
use crate::transport::{Endpoint, Settings};

/// The environment variable a bearer token may come in.
const TOKEN_ENV: &str = "AIPROTO_A2A_TOKEN";

pub fn serve(args: &A2aServeArgs) -> CmdResult {
    let Endpoint::Mqtt(broker) = endpoint(&args.via)? else {
        return Err(CliError::usage(
            "the HSP network is reached over MQTT: --via mqtt://HOST[:PORT] (or mqtts://)",
        ));
    };
    let loopback = args.listen.ip().is_loopback();
    if !loopback && !args.allow_remote {
        return Err(CliError::usage(format!(
            "--listen {}: beyond loopback, the bearer token and every message would cross the \
             network in plain HTTP; add --allow-remote (behind a TLS proxy, or on a network you \
             trust), or listen on 127.0.0.1",
            args.listen
        )));
    }
    if args.task_timeout == 0 {
        return Err(CliError::usage("--task-timeout must be at least 1 second"));
    }
    if args.no_token && !loopback {
        return Err(CliError::usage(
            "--no-token is for graders on this machine: listen on 127.0.0.1",
        ));
    }
    let (token, made) = if args.no_token {
        (String::new(), false)
    } else {
        super::common::bearer_token(args.token_file.as_deref(), TOKEN_ENV)?
    };
    let card_signer = args
        .sign_card
        .as_deref()
        .map(|id| card_signer(id, &args.name).map(std::sync::Arc::new))
        .transpose()?;
    let config = crate::bridge::Config {
        broker,
        settings: Settings {
            mqtt_version: args.mqtt.mqtt_version,
            ca_file: args.ca_file.clone(),
            ..Settings::default()
        },
        id: args.agent.clone(),
        name: args.name.clone(),
        capability: args.capability.clone(),
        task_timeout: Duration::from_secs(args.task_timeout),
        max_tasks: args.max_tasks,
        tokenless: args.no_token,
        trust: super::common::required_signatures(args.require_signed)?.map(std::sync::Arc::new),
        card_signer,
    };
    let listen = Listen {
        address: args.listen,
        token: token.clone(),
        hosts: args.allowed_hosts.clone(),
        origins: args.allowed_origins.clone(),
        limits: Limits {
            max_connections: args.max_connections.max(1),
            max_per_client: args.max_per_client.max(1),
            rate: args.rate,
        },
        read_timeout: Duration::from_secs(args.read_timeout.max(1)),
        max_body: args.max_bytes,
    };
    crate::bridge::serve(config, listen, |bound| {
        let mut out = std::io::stdout().lock();
        let at = door::reachable(bound);
        let _ = writeln!(out, "http://{at}{}", crate::bridge::WELL_KNOWN).and_then(|()| out.flush());
        if made {
            eprintln!(
                "aiproto: A2A bridge; its card at the URL above, JSON-RPC at http://{at}{}, \
                 HTTP+JSON under http://{at}{}; each request needs the header\n  \
                 Authorization: Bearer {token}\n(a new token each start: give one with \
                 --token-file or {TOKEN_ENV} to keep it)",
                crate::bridge::JSONRPC,
                crate::bridge::REST
            );
        }
        if args.no_token {
            eprintln!(
                "aiproto: warning: --no-token: any process on this machine may call the bridge"
            );
        }
        if !loopback {
            eprintln!(
                "aiproto: warning: listening on {bound}, not loopback: plain HTTP, readable on the way"
            );
        }
    })
    .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    Ok(ExitStatus::Ok)
}

/// The keystore key `--sign-card` names, refused unless it is bound to the
/// card's name (a verifier would refuse the card with SIG-SENDER).
fn card_signer(id: &str, name: &str) -> Result<crate::operations::bridging::CardSigner, CliError> {
    let store =
        crate::sign::keystore::Keystore::open().map_err(|e| CliError::new(ExitStatus::Usage, e))?;
    let (key, entry) = store.own_signer(id).map_err(CliError::usage)?;
    if !entry.may_sign_for(name) {
        return Err(CliError::usage(format!(
            "--sign-card {id}: the key signs for {} only, and the card is named `{name}`; verifiers would refuse it (bind a key with `aiproto keygen --id ID --signs-for '{name}'`, or give --name)",
            entry.allowed()
        )));
    }
    Ok(crate::operations::bridging::CardSigner {
        key,
        key_id: id.to_string(),
    })
}
