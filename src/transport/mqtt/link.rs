//! A connection's life across reconnects: when it is down, how long to
//! wait before the next attempt, and when a broker that keeps closing the
//! connection after a publish is refusing it.

use std::time::Duration;

use super::client::Failure;
use super::{MAX_BACKOFF, MqttUri, failure};
use crate::transport::TransportError;

/// How many connections in a row a broker may close after a publish it
/// never acknowledged before that is taken as a refusal.
const SILENT_CLOSES: u32 = 3;

/// The state of the connection across reconnects.
#[derive(Default)]
pub struct Link {
    /// A connection was established once (a later failure is a lost link).
    up_once: bool,
    /// The current outage, if any: when it began and the next wait.
    outage: Option<Duration>,
    /// The broker took the current connection (a CONNACK came).
    connected: bool,
    /// The broker acknowledged a publish over the current connection.
    acknowledged: bool,
    /// Connections in a row the broker took, then closed while a publish
    /// was unacknowledged, acknowledging none.
    silent_closes: u32,
}

impl Link {
    /// Whether the connection is lost and not yet back.
    pub fn is_down(&self) -> bool {
        self.outage.is_some()
    }

    /// A CONNACK arrived: true when it ends an outage.
    pub fn reconnected(&mut self) -> bool {
        self.connected = true;
        self.acknowledged = false;
        let was_down = self.outage.take().is_some();
        if was_down {
            eprintln!("aiproto: reconnected");
        }
        self.up_once = true;
        was_down
    }

    /// The broker acknowledged a publish.
    pub fn acknowledged(&mut self) {
        self.acknowledged = true;
        self.silent_closes = 0;
    }

    /// The connection failed: before it ever stood, that is the error;
    /// afterwards wait (doubling, at most [`MAX_BACKOFF`]) and let the next
    /// poll reconnect.
    ///
    /// `owing` is the topic of a publish not yet acknowledged, if any. A
    /// broker that takes the connection and closes it while a publish is
    /// on its way, acknowledging nothing, [`SILENT_CLOSES`] times in a row,
    /// is refusing that publish: MQTT 3.1.1 has no other way to say so (the
    /// built-in broker does it for a topic its ACL does not allow). That
    /// is the error: publishing again would go round for ever.
    pub fn lost(
        &mut self,
        uri: &MqttUri,
        e: Failure,
        owing: Option<&str>,
    ) -> Result<(), TransportError> {
        if !self.up_once {
            return Err(failure(uri, e));
        }
        let silent = std::mem::take(&mut self.connected) && !self.acknowledged;
        if let Some(topic) = owing.filter(|_| silent) {
            self.silent_closes += 1;
            if self.silent_closes >= SILENT_CLOSES {
                return Err(failure(
                    uri,
                    format!(
                        "the broker closed the connection {SILENT_CLOSES} times in a row while a publish to `{}` was on its way, acknowledging nothing: \
                         an MQTT 3.1.1 broker's way to refuse a publish (the built-in broker does so for a topic its ACL does not allow this account)",
                        topic.escape_debug()
                    ),
                ));
            }
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
