//! `aiproto relay`: moves each message from one transport to another,
//! optionally converting it, and adds a `meta: audit` hop to Crosstalk
//! envelopes so the route can be audited.

use chrono::Utc;

use super::args::{GlobalArgs, RelayArgs};
use super::endpoints::{endpoint, failure};
use crate::convert::{self, WriteOptions};
use crate::delivery::inbox::{Inbox, Received};
use crate::delivery::routing;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::input::Source;
use crate::protocols::ReadOptions;
use crate::protocols::crosstalk::{self, audit};
use crate::reader::Document;
use crate::transport::{self, Endpoint, Transport};

/// What every forwarded message needs.
struct Relay<'a> {
    args: &'a RelayArgs,
    destination: Box<dyn Transport>,
    /// Where it goes (for each message's routing).
    to: Endpoint,
    quiet: bool,
    forwarded: usize,
    skipped: usize,
}

impl Relay<'_> {
    /// Converts (when asked), adds the hop and delivers one message.
    fn forward(&mut self, r: &Received<'_>) -> Result<(), CliError> {
        let (source, received) = (r.origin, r.text);
        let Some(found) = r.found else {
            eprintln!("aiproto: warning: {source}: not a message of a known protocol, not relayed");
            self.skipped += 1;
            return Ok(());
        };
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
                self.not_relayed(source, found.line, "it cannot be converted");
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
        // The destination routes by the message it gets (an MQTT topic, a mail's Subject).
        let doc = Document::from_source(
            Source {
                name: source.to_string(),
                text: text.clone(),
            },
            None,
            &ReadOptions::default(),
        );
        let Some(found) = doc.messages.first() else {
            self.not_relayed(source, 1, "its new form cannot be read back");
            return Ok(());
        };
        let outgoing = routing::with_text(found, text, &self.to);
        self.destination
            .send(&[outgoing], &mut super::send::print_reply)
            .map_err(failure)?;
        self.forwarded += 1;
        Ok(())
    }

    /// Says why a message is not relayed, and counts it.
    fn not_relayed(&mut self, source: &str, line: usize, why: &str) {
        eprintln!("aiproto: warning: {source}:{line}: message not relayed: {why}");
        self.skipped += 1;
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
    let from = endpoint(&args.from)?;
    let to = endpoint(&args.to)?;
    let settings = args.listen.settings();
    // A clipboard is watched and a file followed: a relay keeps going
    // (stdin is read once).
    let keep_reading = from != Endpoint::Stdio;
    let listen = args.listen.listen(&from, keep_reading, g.quiet)?;
    let mut source = transport::open(from, settings.clone());
    let mut relay = Relay {
        args,
        destination: transport::open(to.clone(), settings),
        to,
        quiet: g.quiet,
        forwarded: 0,
        skipped: 0,
    };
    let mut inbox = Inbox::new(args.listen.count);
    if let Some(state) = &args.state {
        inbox = inbox.remembering(state).map_err(|e| {
            CliError::usage(format!(
                "cannot use the state file {}: {e}",
                state.display()
            ))
        })?;
    }
    let forward = |r: Received<'_>| {
        relay.forward(&r)?;
        Ok(Vec::new())
    };
    // Stdin is read once, piece by piece: bounded memory whatever its size.
    let ended = if keep_reading {
        inbox.receive(&mut *source, &listen, forward)
    } else {
        inbox.receive_input(&crate::input::Input::Stdin, &listen, forward)
    }
    .map_err(failure)?;
    relay.destination.finish().map_err(failure)?;
    if !g.quiet {
        eprintln!(
            "aiproto: relayed {} message(s) from {} to {}{}",
            relay.forwarded,
            args.from,
            args.to,
            if relay.skipped > 0 {
                format!(" ({} not relayed)", relay.skipped)
            } else {
                String::new()
            }
        );
    }
    if let Some(early) = args.listen.ended(ended) {
        return Ok(early);
    }
    Ok(if relay.skipped > 0 {
        ExitStatus::Invalid
    } else {
        ExitStatus::Ok
    })
}
