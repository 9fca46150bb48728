//! `aiproto relay`: moves each message from one transport to another,
//! optionally converting it, and adds a `meta: audit` hop to Crosstalk
//! envelopes so the route can be audited.

use chrono::Utc;

use super::args::{GlobalArgs, RelayArgs};
use super::endpoints::{endpoint, failure};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::operations::receive::{Inbox, Received};
use crate::operations::relay::{NotRelayed, RelayStep};
use crate::operations::{self};
use crate::transport::{self, Endpoint, Transport};

/// What every forwarded message needs.
struct Relay<'a> {
    step: RelayStep<'a>,
    destination: Box<dyn Transport>,
    quiet: bool,
    forwarded: usize,
    skipped: usize,
}

impl Relay<'_> {
    /// Delivers one message as the relay step makes it, or says why not.
    fn forward(&mut self, r: &Received<'_>) -> Result<(), CliError> {
        let source = r.origin;
        if let Some(warning) = operations::receive::other_content_warning(r) {
            eprintln!("aiproto: warning: {warning}");
        }
        let relayed = match self.step.step(r, Utc::now()) {
            Ok(relayed) => relayed,
            Err(NotRelayed { line, why }) => {
                eprintln!("aiproto: warning: {source}:{line}: message not relayed: {why}");
                self.skipped += 1;
                return Ok(());
            }
        };
        let line = r.found.map_or(1, |f| f.line);
        for loss in &relayed.losses {
            eprintln!(
                "aiproto: {source}:{line}: dropped {} = {} ({})",
                loss.field, loss.value, loss.reason
            );
        }
        if let Some(why) = relayed.no_hop.filter(|_| !self.quiet) {
            eprintln!("aiproto: note: no audit hop added: {why}");
        }
        self.destination
            .send(&[relayed.outgoing], &mut super::send::print_reply)
            .map_err(failure)?;
        self.forwarded += 1;
        Ok(())
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
        step: RelayStep {
            convert_to: args.convert_to,
            relay_id: &args.relay_id,
            to: &to,
        },
        destination: transport::open(to.clone(), settings),
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
            crate::transport::secrets::redact(&args.from),
            crate::transport::secrets::redact(&args.to),
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
