//! A connection's life across reconnects: when it is down, and how long
//! to wait before the next attempt.

use std::time::Duration;

use super::client::Failure;
use super::{MAX_BACKOFF, MqttUri, failure};
use crate::transport::TransportError;

/// The state of the connection across reconnects.
#[derive(Default)]
pub struct Link {
    /// A connection was established once (a later failure is a lost link).
    up_once: bool,
    /// The current outage, if any: when it began and the next wait.
    outage: Option<Duration>,
}

impl Link {
    /// Whether the connection is lost and not yet back.
    pub fn is_down(&self) -> bool {
        self.outage.is_some()
    }

    /// A CONNACK arrived: true when it ends an outage.
    pub fn reconnected(&mut self) -> bool {
        let was_down = self.outage.take().is_some();
        if was_down {
            eprintln!("aiproto: reconnected");
        }
        self.up_once = true;
        was_down
    }

    /// The connection failed: before it ever stood, that is the error;
    /// afterwards wait (doubling, at most [`MAX_BACKOFF`]) and let the next
    /// poll reconnect.
    pub fn lost(&mut self, uri: &MqttUri, e: Failure) -> Result<(), TransportError> {
        if !self.up_once {
            return Err(failure(uri, e));
        }
        let wait = match self.outage {
            None => {
                eprintln!(
                    "aiproto: connection to {} lost ({e}); reconnecting",
                    uri.describe()
                );
                Duration::from_millis(100)
            }
            Some(w) => (w * 2).min(MAX_BACKOFF),
        };
        self.outage = Some(wait);
        std::thread::sleep(wait);
        Ok(())
    }
}
