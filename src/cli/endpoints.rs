//! From the command line to transports: URIs as endpoints, flags as
//! settings, and a transport's errors as exit statuses (2 for a bad URI or
//! flag, 3 for the peer or the network).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::args::{ListenArgs, SendArgs};
use crate::exit::{CliError, ExitStatus};
use crate::operations::serving::Binding;
use crate::transport::server::ServeOptions;
use crate::transport::{Ended, Endpoint, Listen, Settings, TransportError, email};

/// A flag that SIGINT and SIGTERM set: the command stops cleanly at its
/// next step (see [`ListenArgs::ended`] for the exit status that follows).
/// A second signal, when the first has not stopped it yet (a peer that
/// does not answer), ends the process at once with 130.
pub fn stop_on_signals() -> Result<Arc<AtomicBool>, CliError> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // Registered first, so it sees the flag as the previous signal left it.
        signal_hook::flag::register_conditional_shutdown(signal, 130, Arc::clone(&stop))
            .and_then(|_| signal_hook::flag::register(signal, Arc::clone(&stop)))
            .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    }
    Ok(stop)
}

/// The endpoint a URI names; an unknown one is a usage error.
pub fn endpoint(uri: &str) -> Result<Endpoint, CliError> {
    uri.parse().map_err(CliError::usage)
}

/// A transport's error with its exit status; a command's own error that
/// went through a transport's callback keeps the status it had.
pub fn failure(e: TransportError) -> CliError {
    match e {
        TransportError::Handler(err) => match err.downcast::<CliError>() {
            Ok(own) => own,
            Err(err) => CliError::new(ExitStatus::Transport, err),
        },
        e if e.is_usage() => CliError::new(ExitStatus::Usage, e),
        // Nothing to read is what an empty file is: no message (exit 1).
        TransportError::Clipboard(c) if c.is_no_text() => CliError::new(ExitStatus::Invalid, c),
        e => CliError::new(ExitStatus::Transport, e),
    }
}

impl SendArgs {
    pub fn settings(&self) -> Settings {
        Settings {
            qos: self.qos,
            mqtt_version: self.mqtt.mqtt_version,
            retain: self.retain,
            // `send` finishes the transport before it says anything was sent.
            send_returns: crate::transport::SendReturns::Handed,
            session: None,
            ca_file: self.ca_file.clone(),
            mail: email::Delivery {
                out: self.out.clone(),
                smtp: self.smtp.clone(),
                from: self.mail_from.clone(),
            },
            a2a: match (self.stream, self.no_wait) {
                (true, _) => crate::transport::a2a::Mode::Stream,
                (_, true) => crate::transport::a2a::Mode::NoWait,
                _ => crate::transport::a2a::Mode::Wait,
            },
            ..Settings::default()
        }
    }
}

impl ListenArgs {
    /// Listening from `http://ADDR` is serving the HTTP binding (every
    /// message validated and acknowledged), without an inbox directory.
    pub fn settings(&self) -> Settings {
        Settings {
            qos: self.qos,
            mqtt_version: self.mqtt.mqtt_version,
            session: self.session.clone(),
            ca_file: self.ca_file.clone(),
            serve: ServeOptions {
                exchange: Arc::new(Binding::default()),
                ..ServeOptions::default()
            },
            ..Settings::default()
        }
    }

    /// How to listen to `source`: `keep_reading` watches a clipboard or
    /// follows a file; SIGINT and SIGTERM stop it. Stdin is read once, in a
    /// blocking read no flag can stop: there a signal keeps its default
    /// action (the process ends at once).
    pub fn listen(
        &self,
        source: &Endpoint,
        keep_reading: bool,
        quiet: bool,
    ) -> Result<Listen, CliError> {
        let stop = match source {
            Endpoint::Stdio => Arc::default(),
            _ => stop_on_signals()?,
        };
        Ok(Listen {
            keep_reading,
            timeout: self.timeout.map(std::time::Duration::from_secs_f64),
            quiet,
            stop,
            ..Listen::default()
        })
    }

    /// The exit status of a receiving command that ended early, or `None`.
    ///
    /// One convention for every command that waits: a signal is a deadline
    /// the user chose, so it ends the command as `--timeout` would have at
    /// that moment. With `--count N` not reached, that is exit 4; with
    /// nothing to wait for (no count), stopping is how it ends: exit 0.
    pub fn ended(&self, ended: Ended) -> Option<ExitStatus> {
        let count = self.count?;
        let why = match ended {
            Ended::Timeout => "timed out",
            Ended::Interrupted => "stopped by a signal",
            Ended::Stopped | Ended::Exhausted => return None,
        };
        eprintln!("aiproto: {why} before {count} message(s) arrived");
        Some(ExitStatus::Timeout)
    }
}
