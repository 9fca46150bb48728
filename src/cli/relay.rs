//! `aiproto relay`: moves each message from one transport to another,
//! optionally converting it, and adds a `meta: audit` hop to Crosstalk
//! envelopes so the route can be audited.

use std::time::Duration;

use chrono::Utc;

use super::args::{GlobalArgs, RelayArgs};
use super::recv_text::{self, Ended, TextSource};
use crate::convert::{self, WriteOptions};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::input::Source;
use crate::protocols::crosstalk::{self, audit};
use crate::protocols::{Found, ReadOptions};
use crate::reader::Document;
use crate::transport::Destination;
use crate::transport::mqtt::{self, MqttUri};

/// What every forwarded message needs.
struct Relay<'a> {
    args: &'a RelayArgs,
    destination: Destination,
    quiet: bool,
    forwarded: usize,
    skipped: usize,
}

impl Relay<'_> {
    /// Converts (when asked), adds the hop and delivers one message.
    /// `source` names where the message came from (a path, `<clipboard>`, a topic).
    fn forward(&mut self, source: &str, found: &Found, received: &str) -> Result<(), CliError> {
        if !found.is_valid(false) {
            eprintln!(
                "aiproto: warning: {source}:{}: invalid {} message not relayed (see `aiproto validate`)",
                found.line, found.protocol
            );
            self.skipped += 1;
            return Ok(());
        }
        let mut text = received.to_string();
        if let Some(target) = self.args.convert_to {
            let Some(converted) = convert::convert(found, target, WriteOptions::default()) else {
                return Ok(());
            };
            for loss in &converted.losses {
                eprintln!(
                    "aiproto: {source}:{}: dropped {} = {} ({})",
                    found.line, loss.field, loss.value, loss.reason
                );
            }
            text = converted.text;
        }
        let envelope = text.starts_with("[[");
        if envelope {
            text = self.with_hop(&text, received);
        }
        match self.destination.send(&text, envelope) {
            Ok(Some(reply)) if !reply.is_empty() => println!("{}", reply.trim_end()),
            Ok(_) => {}
            Err(e) => return Err(CliError::new(ExitStatus::Transport, e)),
        }
        self.forwarded += 1;
        Ok(())
    }

    /// The envelope with this relay's hop, or as it is when it cannot take one.
    fn with_hop(&self, text: &str, received: &str) -> String {
        let Some(parsed) = crosstalk::parse_all(text).into_iter().next() else {
            return text.to_string();
        };
        let mut env = parsed.envelope;
        match audit::add_hop(
            &mut env,
            &self.args.relay_id,
            Utc::now(),
            &audit::digest(received),
        ) {
            Ok(()) => crosstalk::render(&env),
            Err(why) => {
                if !self.quiet {
                    eprintln!("aiproto: note: no audit hop added: {why}");
                }
                text.to_string()
            }
        }
    }
}

pub fn run(args: &RelayArgs, g: &GlobalArgs) -> CmdResult {
    let destination: Destination = args.to.parse().map_err(CliError::usage)?;
    let mut relay = Relay {
        args,
        destination,
        quiet: g.quiet,
        forwarded: 0,
        skipped: 0,
    };
    let timed_out = if args.from == "-" {
        let doc = super::common::read_one(None)?;
        for found in doc
            .messages
            .iter()
            .take(args.listen.count.unwrap_or(usize::MAX))
        {
            if let Some(received) = found.render() {
                relay.forward(&doc.source.name, found, &received)?;
            }
        }
        false
    } else if let Some(source) = TextSource::parse(&args.from) {
        // A clipboard is watched and a file followed: a relay keeps going.
        let name = source.name();
        let ended = recv_text::each_new_message(
            &source,
            true,
            args.listen.count,
            args.listen.timeout,
            |found, received| relay.forward(&name, found, received),
        )?;
        matches!(ended, Ended::Timeout)
    } else {
        from_mqtt(&mut relay)?
    };
    if !g.quiet {
        eprintln!(
            "aiproto: relayed {} message(s) from {} to {}{}",
            relay.forwarded,
            args.from,
            args.to,
            if relay.skipped > 0 {
                format!(" ({} invalid, not relayed)", relay.skipped)
            } else {
                String::new()
            }
        );
    }
    if timed_out {
        return Ok(args.listen.timed_out());
    }
    Ok(if relay.skipped > 0 {
        ExitStatus::Invalid
    } else {
        ExitStatus::Ok
    })
}

/// Subscribes to the `--from` broker and relays each message; true on timeout.
fn from_mqtt(relay: &mut Relay<'_>) -> Result<bool, CliError> {
    let args = relay.args;
    let mut uri = MqttUri::parse(&args.from).map_err(|why| {
        CliError::usage(format!(
            "{why} (relay reads from clipboard, file:PATH, mqtt://HOST/FILTER or -)"
        ))
    })?;
    uri.session = args.listen.session.clone();
    let filters: Vec<String> = uri.topic.iter().cloned().collect();
    if filters.is_empty() {
        return Err(CliError::usage(
            "no topic filter: give it in the URI (mqtt://host/hsp/#)",
        ));
    }
    let quiet = relay.quiet;
    let mut failure = None;
    let ended = mqtt::subscribe(
        &uri,
        &filters,
        args.listen.qos,
        args.listen.count,
        args.listen.timeout.map(Duration::from_secs_f64),
        || {
            if !quiet {
                eprintln!("aiproto: subscribed to {}", filters.join(", "));
            }
        },
        |topic, payload| {
            let doc = Document::from_source(
                Source {
                    name: topic.to_string(),
                    text: String::from_utf8_lossy(payload).into_owned(),
                },
                None,
                &ReadOptions::default(),
            );
            for found in &doc.messages {
                let Some(received) = found.render() else {
                    continue;
                };
                if let Err(e) = relay.forward(topic, found, &received) {
                    let why = "the destination failed".to_string();
                    failure = Some(e);
                    return Err(std::io::Error::other(why));
                }
            }
            Ok(None)
        },
    );
    if let Some(e) = failure {
        return Err(e);
    }
    let ended = ended.map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    Ok(matches!(ended, mqtt::Ended::Timeout) && args.listen.count.is_some())
}
