//! From the command line to transports: URIs as endpoints, flags as
//! settings, and a transport's errors as exit statuses (2 for a bad URI or
//! flag, 3 for the peer or the network).

use super::args::{ListenArgs, SendArgs};
use crate::exit::{CliError, ExitStatus};
use crate::transport::{Endpoint, Listen, Settings, TransportError, email};

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
            retain: self.retain,
            session: None,
            ca_file: self.ca_file.clone(),
            mail: email::Delivery {
                out: self.out.clone(),
                smtp: self.smtp.clone(),
                from: self.mail_from.clone(),
            },
            ..Settings::default()
        }
    }
}

impl ListenArgs {
    pub fn settings(&self) -> Settings {
        Settings {
            qos: self.qos,
            session: self.session.clone(),
            ca_file: self.ca_file.clone(),
            ..Settings::default()
        }
    }

    /// How to listen: `keep_reading` watches a clipboard or follows a file.
    pub fn listen(&self, keep_reading: bool, quiet: bool) -> Listen {
        Listen {
            keep_reading,
            timeout: self.timeout.map(std::time::Duration::from_secs_f64),
            quiet,
            ..Listen::default()
        }
    }
}
