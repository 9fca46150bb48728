//! Publishing a batch of messages over one kept connection: a window of
//! messages on their way, each acknowledged (QoS 1 and 2) or written (QoS
//! 0), resent when the broker comes back without the session.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use super::client::{self, Event, Handed};
use super::link::Link;
use super::{MqttTransport, failure, refusal};
use crate::transport::{Publication, TransportError};

/// How many messages may be on their way (sent or queued, not acknowledged).
const WINDOW: usize = 1024;
/// How long a publisher waits for an acknowledgement over a standing
/// connection before it publishes the unacknowledged messages again.
const STALLED: Duration = Duration::from_secs(5);

/// A connection that publishes.
pub struct Publisher {
    client: client::Client,
    connection: client::Connection,
    link: Link,
}

impl Publisher {
    /// Disconnects cleanly, once what is queued has gone out.
    pub fn close(mut self) {
        self.client.disconnect();
        self.connection.drain_until_disconnect();
    }
}

/// Publishes each message and returns once the broker has acknowledged
/// every one (QoS 1 and 2) or it is written (QoS 0).
///
/// A lost connection is reconnected with backoff until `timeout`. Whatever
/// was not acknowledged is published again when the broker comes back
/// without the session (rumqttc drops its own copies then), so QoS 1 and 2
/// lose nothing across a broker restart (duplicates are possible: at least once).
/// Over MQTT 5, a message the broker refuses (a PUBACK or PUBREC with a
/// failure reason, such as "not authorized") is the error: it would never
/// be delivered. MQTT 3.1.1 has no way to say so.
///
/// The connection stays open for the next call; [`crate::transport::Transport::finish`]
/// closes it.
pub fn publish(
    transport: &mut MqttTransport,
    items: Vec<Publication>,
    timeout: Duration,
) -> Result<(), TransportError> {
    let (level, retain) = (transport.settings.qos, transport.settings.retain);
    let version = transport.settings.mqtt_version;
    if transport.publisher.is_none() {
        let (client, connection) = transport.open("pub", WINDOW)?;
        transport.publisher = Some(Publisher {
            client,
            connection,
            link: Link::default(),
        });
    }
    let uri = &transport.uri;
    let Some(Publisher {
        client,
        connection,
        link,
    }) = transport.publisher.as_mut()
    else {
        return Ok(());
    };
    let total = items.len();
    let deadline = Instant::now() + timeout;
    let mut window = Window::new(total);
    // When the broker acknowledges nothing for a while though messages
    // are on their way over a standing connection, they are published
    // again: after a reconnect without the session, a message the client
    // had queued when the link broke can be lost between the two (seen
    // once in 30,000 across a broker restart). At least once, as always.
    let mut progress = (window.done, Instant::now());
    while window.done < total {
        if window.done != progress.0 {
            progress = (window.done, Instant::now());
        } else if level > 0 && progress.1.elapsed() >= STALLED && !link.is_down() {
            window.resend_unacknowledged();
            progress.1 = Instant::now();
        }
        let mut handed = Ok(());
        window.fill(
            |i| match client.try_publish(items[i].clone(), level, retain) {
                Handed::Queued => true,
                Handed::Full(_) => false,
                Handed::Failed(why) => {
                    handed = Err(failure(uri, why));
                    false
                }
            },
        );
        handed?;
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(failure(
                uri,
                format!(
                    "timed out with {} of {total} messages acknowledged",
                    window.done
                ),
            ));
        }
        match connection.next(left.min(Duration::from_millis(200))) {
            Some(Ok(Event::Refused(why))) => return Err(refusal(uri, version, &why)),
            Some(Ok(Event::Connected { session_present })) => {
                if link.reconnected() && !session_present {
                    window.resend_unacknowledged();
                }
            }
            Some(Ok(Event::PublishSent(pkid))) => window.sent(pkid, level),
            Some(Ok(Event::PubAck(pkid))) if level == 1 => window.acked(pkid),
            Some(Ok(Event::PubComp(pkid))) if level >= 2 => window.acked(pkid),
            Some(Ok(Event::PublishRefused { pkid, why })) => {
                let which = window.in_flight.get(&pkid).copied();
                let named = which.map_or_else(String::new, |i| {
                    format!(" message {} of {total} (to `{}`)", i + 1, items[i].topic)
                });
                return Err(failure(
                    uri,
                    format!(
                        "the broker refused{named}: {why}; it will not be delivered ({} of {total} acknowledged before)",
                        window.done
                    ),
                ));
            }
            Some(Ok(_)) | None => {}
            Some(Err(e)) => link.lost(uri, e)?,
        }
    }
    Ok(())
}

/// The messages of one `publish`: which are queued, sent (by packet id) or done.
struct Window {
    total: usize,
    /// The next message never handed to the client.
    next: usize,
    /// Messages to hand to the client again, before `next`.
    again: VecDeque<usize>,
    /// Handed to the client, not yet seen going out (in order).
    queued: VecDeque<usize>,
    /// Gone out at QoS 1/2, waiting for the acknowledgement, by packet id.
    in_flight: HashMap<u16, usize>,
    done: usize,
}

impl Window {
    fn new(total: usize) -> Window {
        Window {
            total,
            next: 0,
            again: VecDeque::new(),
            queued: VecDeque::new(),
            in_flight: HashMap::new(),
            done: 0,
        }
    }

    /// Hands messages to the client (`try_send` says whether it took one)
    /// while fewer than [`WINDOW`] are on their way.
    fn fill(&mut self, mut try_send: impl FnMut(usize) -> bool) {
        while self.queued.len() + self.in_flight.len() < WINDOW {
            let Some(i) = self
                .again
                .pop_front()
                .or_else(|| (self.next < self.total).then_some(self.next))
            else {
                return;
            };
            if !try_send(i) {
                if i == self.next {
                    return;
                }
                self.again.push_front(i);
                return;
            }
            if i == self.next {
                self.next += 1;
            }
            self.queued.push_back(i);
        }
    }

    /// A PUBLISH went out. A packet id already in flight is a resend of the
    /// resumed session; otherwise it is the oldest queued message.
    fn sent(&mut self, pkid: u16, level: u8) {
        if level > 0 && self.in_flight.contains_key(&pkid) {
            return;
        }
        let Some(i) = self.queued.pop_front() else {
            return;
        };
        if level == 0 {
            self.done += 1;
        } else {
            self.in_flight.insert(pkid, i);
        }
    }

    fn acked(&mut self, pkid: u16) {
        if self.in_flight.remove(&pkid).is_some() {
            self.done += 1;
        }
    }

    /// The broker came back without the session: everything not yet
    /// acknowledged (in flight or still queued in the client) goes again, in order.
    fn resend_unacknowledged(&mut self) {
        let mut lost: Vec<usize> = self.in_flight.drain().map(|(_, i)| i).collect();
        lost.extend(self.queued.drain(..));
        lost.sort_unstable();
        for i in lost.into_iter().rev() {
            self.again.push_front(i);
        }
    }
}
