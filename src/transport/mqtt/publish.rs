//! Publishing over one kept connection: a window of messages on their way,
//! each acknowledged (QoS 1 and 2) or written (QoS 0), resent when the
//! broker comes back without the session.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use bytes::Bytes;

use super::client::{self, Event, Handed, Version};
use super::link::Link;
use super::{MqttTransport, MqttUri, failure, refusal};
use crate::transport::{Properties, Publication, SendReturns, TransportError};

/// How many messages may be on their way (sent or queued, not acknowledged).
const WINDOW: usize = 1024;
/// How long a publisher waits for an acknowledgement over a standing
/// connection before it publishes the unacknowledged messages again.
const STALLED: Duration = Duration::from_secs(5);
/// Events taken from the connection in one turn: a message written, an
/// acknowledgement; the window is filled again after each turn.
const BATCH: usize = 64;

/// A connection that publishes, and the messages it has not finished with.
pub struct Publisher {
    client: client::Client,
    connection: client::Connection,
    link: Link,
    window: Window,
}

/// How far [`Publisher::drive`] goes before it returns.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Until {
    /// Every message handed to the client (the window keeps the rest).
    Handed,
    /// Every message written to the connection (acknowledged or not).
    Written,
    /// Every message acknowledged by the broker (QoS 1 and 2) or written (QoS 0).
    Acknowledged,
}

impl Publisher {
    /// Disconnects cleanly, once what is queued has gone out.
    pub fn close(mut self) {
        self.client.disconnect();
        self.connection.drain_until_disconnect();
    }
}

/// What a publish run needs to know of its transport.
struct Run<'a> {
    uri: &'a MqttUri,
    version: Version,
    level: u8,
    retain: bool,
}

/// Publishes each message. With [`SendReturns::Handed`] (the `send` command) it
/// returns once every message is handed to the connection, and
/// [`finish_publishing`] waits for the acknowledgements: a long input goes
/// out in batches without a pause at the end of each (where a broker that
/// delays its small writes, as Mosquitto does by default, holds the last
/// acknowledgements back for tens of milliseconds). With
/// [`SendReturns::Written`] (`send --each`) it returns once every message
/// is written to the connection: what was handed over goes out before
/// the next is waited for. Otherwise it returns once the broker has
/// acknowledged every one (QoS 1 and 2) or it is written (QoS 0).
///
/// A lost connection is reconnected with backoff until `timeout`. Whatever
/// was not acknowledged is published again when the broker comes back
/// without the session (rumqttc drops its own copies then), so QoS 1 and 2
/// lose nothing across a broker restart (duplicates are possible: at least once).
/// Over MQTT 5, a message the broker refuses (a PUBACK or PUBREC with a
/// failure reason, such as "not authorized") is the error: it would never
/// be delivered. MQTT 3.1.1 has no way to say so.
///
/// The connection stays open for the next call;
/// [`crate::transport::Transport::finish`] closes it.
pub fn publish(
    transport: &mut MqttTransport,
    items: Vec<Publication>,
    timeout: Duration,
) -> Result<(), TransportError> {
    if transport.publisher.is_none() {
        let (client, connection) = transport.open("pub", WINDOW)?;
        transport.publisher = Some(Publisher {
            client,
            connection,
            link: Link::default(),
            window: Window::default(),
        });
    }
    let until = match transport.settings.send_returns {
        SendReturns::Handed => Until::Handed,
        SendReturns::Written => Until::Written,
        SendReturns::Acknowledged => Until::Acknowledged,
    };
    let run = Run::of(&transport.uri, &transport.settings);
    let Some(publisher) = transport.publisher.as_mut() else {
        return Ok(());
    };
    publisher.window.extend(items);
    publisher.drive(&run, until, timeout)
}

/// Waits until every message published is acknowledged (or written, at QoS 0).
pub fn finish_publishing(
    transport: &mut MqttTransport,
    timeout: Duration,
) -> Result<(), TransportError> {
    let run = Run::of(&transport.uri, &transport.settings);
    match transport.publisher.as_mut() {
        Some(publisher) => publisher.drive(&run, Until::Acknowledged, timeout),
        None => Ok(()),
    }
}

impl Run<'_> {
    fn of<'a>(uri: &'a MqttUri, settings: &crate::transport::Settings) -> Run<'a> {
        Run {
            uri,
            version: settings.mqtt_version,
            level: settings.qos,
            retain: settings.retain,
        }
    }
}

impl Publisher {
    fn drive(
        &mut self,
        run: &Run<'_>,
        until: Until,
        timeout: Duration,
    ) -> Result<(), TransportError> {
        let Publisher {
            client,
            connection,
            link,
            window,
        } = self;
        let (uri, level) = (run.uri, run.level);
        let deadline = Instant::now() + timeout;
        // When the broker acknowledges nothing for a while though messages
        // are on their way over a standing connection, they are published
        // again: after a reconnect without the session, a message the client
        // had queued when the link broke can be lost between the two (seen
        // once in 30,000 across a broker restart). At least once, as always.
        let mut progress = (window.done, Instant::now());
        let mut events = Vec::with_capacity(BATCH);
        loop {
            let finished = match until {
                Until::Handed => window.all_handed(),
                Until::Written => window.all_written(),
                Until::Acknowledged => window.all_done(),
            };
            if finished {
                return Ok(());
            }
            if window.done != progress.0 {
                progress = (window.done, Instant::now());
            } else if level > 0 && progress.1.elapsed() >= STALLED && !link.is_down() {
                window.resend_unacknowledged();
                progress.1 = Instant::now();
            }
            let mut handed = Ok(());
            window.fill(|item| {
                match client.try_publish(
                    &item.topic,
                    item.payload.clone(),
                    &item.properties,
                    level,
                    run.retain,
                ) {
                    Handed::Queued => true,
                    Handed::Full => false,
                    Handed::Failed(why) => {
                        handed = Err(failure(uri, why));
                        false
                    }
                }
            });
            handed?;
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(failure(
                    uri,
                    format!(
                        "timed out with {} of {} messages acknowledged",
                        window.done,
                        window.total()
                    ),
                ));
            }
            connection.next_batch(left.min(Duration::from_millis(200)), BATCH, &mut events);
            for event in events.drain(..) {
                match event {
                    Ok(Event::Refused(why)) => return Err(refusal(uri, run.version, &why)),
                    Ok(Event::Connected { session_present }) => {
                        if link.reconnected() && !session_present {
                            window.resend_unacknowledged();
                        }
                    }
                    Ok(Event::PublishSent(pkid)) => window.sent(pkid, level),
                    Ok(Event::PubAck(pkid)) if level == 1 => {
                        link.acknowledged();
                        window.acked(pkid);
                    }
                    Ok(Event::PubComp(pkid)) if level >= 2 => {
                        link.acknowledged();
                        window.acked(pkid);
                    }
                    Ok(Event::PublishRefused { pkid, why }) => {
                        return Err(window.refused(uri, pkid, &why));
                    }
                    Ok(_) => {}
                    Err(e) => {
                        let owing = (level > 0)
                            .then(|| window.oldest_unacknowledged())
                            .flatten();
                        link.lost(uri, e, owing)?;
                    }
                }
            }
        }
    }
}

/// A message kept until the broker has it: the payload is shared with the
/// client's copy, not copied again.
struct Item {
    topic: String,
    payload: Bytes,
    properties: Properties,
    done: bool,
}

/// The messages of a publisher, numbered from its first: which are queued,
/// sent (by packet id) or done. Done messages at the front are let go.
#[derive(Default)]
struct Window {
    /// The number of `items[0]`.
    base: usize,
    items: VecDeque<Item>,
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
    fn extend(&mut self, items: Vec<Publication>) {
        self.items.extend(items.into_iter().map(|p| Item {
            topic: p.topic,
            payload: Bytes::from(p.payload),
            properties: p.properties,
            done: false,
        }));
    }

    /// Every message handed in so far.
    fn total(&self) -> usize {
        self.base + self.items.len()
    }

    fn item(&self, i: usize) -> &Item {
        &self.items[i - self.base]
    }

    fn all_handed(&self) -> bool {
        self.next == self.total() && self.again.is_empty()
    }

    fn all_written(&self) -> bool {
        self.all_handed() && self.queued.is_empty()
    }

    fn all_done(&self) -> bool {
        self.done == self.total()
    }

    /// The topic of the first message on its way and not yet acknowledged.
    fn oldest_unacknowledged(&self) -> Option<&str> {
        self.in_flight
            .values()
            .chain(&self.queued)
            .min()
            .map(|&i| self.item(i).topic.as_str())
    }

    /// Hands messages to the client (`try_send` says whether it took one)
    /// while fewer than [`WINDOW`] are on their way.
    fn fill(&mut self, mut try_send: impl FnMut(&Item) -> bool) {
        while self.queued.len() + self.in_flight.len() < WINDOW {
            let Some(i) = self
                .again
                .pop_front()
                .or_else(|| (self.next < self.total()).then_some(self.next))
            else {
                return;
            };
            if !try_send(self.item(i)) {
                if i != self.next {
                    self.again.push_front(i);
                }
                return;
            }
            if i == self.next {
                self.next += 1;
            }
            self.queued.push_back(i);
        }
    }

    /// The error of a publish the broker refused (MQTT 5), naming the message.
    fn refused(&self, uri: &MqttUri, pkid: u16, why: &str) -> TransportError {
        let named = self.in_flight.get(&pkid).map_or_else(String::new, |&i| {
            format!(
                " message {} of {} (to `{}`)",
                i + 1,
                self.total(),
                self.item(i).topic
            )
        });
        failure(
            uri,
            format!(
                "the broker refused{named}: {why}; it will not be delivered ({} of {} acknowledged before)",
                self.done,
                self.total()
            ),
        )
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
            self.finished(i);
        } else {
            self.in_flight.insert(pkid, i);
        }
    }

    fn acked(&mut self, pkid: u16) {
        if let Some(i) = self.in_flight.remove(&pkid) {
            self.finished(i);
        }
    }

    /// Message `i` is done: counted, and let go with those before it.
    fn finished(&mut self, i: usize) {
        let item = &mut self.items[i - self.base];
        if item.done {
            return;
        }
        item.done = true;
        self.done += 1;
        while self.items.front().is_some_and(|item| item.done) {
            self.items.pop_front();
            self.base += 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn publications(numbers: std::ops::Range<usize>) -> Vec<Publication> {
        numbers
            .map(|i| Publication::new(format!("t/{i}"), vec![b'x'; 10]))
            .collect()
    }

    /// Messages handed over several calls are numbered on, acknowledged in
    /// any order, resent in order after a lost session, and let go once done.
    #[test]
    fn a_window_spans_batches_and_lets_go_of_what_is_done() {
        let mut w = Window::default();
        w.extend(publications(0..3));
        let mut handed = Vec::new();
        w.fill(|item| {
            handed.push(item.topic.clone());
            true
        });
        assert_eq!(handed, ["t/0", "t/1", "t/2"]);
        assert!(w.all_handed() && !w.all_done());
        for pkid in 1..=3 {
            w.sent(pkid, 1);
        }
        w.acked(2);
        assert_eq!(
            (w.done, w.base, w.items.len()),
            (1, 0, 3),
            "held until those before are done"
        );
        w.extend(publications(3..5));
        assert!(!w.all_handed());
        w.fill(|_| true);
        w.sent(4, 1);
        // The session is lost: every message not acknowledged goes again, in order.
        w.resend_unacknowledged();
        let mut again = Vec::new();
        w.fill(|item| {
            again.push(item.topic.clone());
            true
        });
        assert_eq!(again, ["t/0", "t/2", "t/3", "t/4"]);
        for (pkid, _) in (10..).zip(0..4) {
            w.sent(pkid, 1);
        }
        for pkid in [11, 10, 12, 13] {
            w.acked(pkid);
        }
        assert!(w.all_done());
        assert_eq!((w.base, w.items.len()), (5, 0));
    }

    #[test]
    fn a_full_client_keeps_the_message_for_the_next_turn() {
        let mut w = Window::default();
        w.extend(publications(0..2));
        w.fill(|_| false);
        assert_eq!((w.next, w.queued.len()), (0, 0));
        w.fill(|_| true);
        assert_eq!((w.next, w.queued.len()), (2, 2));
        w.sent(0, 0);
        w.sent(0, 0);
        assert!(w.all_done());
    }
}
