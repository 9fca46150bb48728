//! Subscribing: topic filters held across reconnects, each arrival handed
//! to the receiver, and what it answers published without ever blocking
//! the loop that reads.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use super::client::{self, Event, Handed};
use super::link::Link;
use super::{MqttTransport, failure, refusal};
use crate::transport::{Arrival, Ended, Listen, OnArrival, Publication, TransportError};

/// How often a subscriber looks at [`Listen::stop`] while nothing arrives.
const STOP_POLL: Duration = Duration::from_millis(200);
/// The most answers handed to the client and not yet acknowledged by the
/// broker: below every window the client is given (20 at QoS 2, rumqttc's
/// 100 otherwise), so the client never stops taking requests while answers
/// wait for the broker, and a message's acknowledgement queued behind them
/// goes at once. (A full window held the acknowledgements back, and a
/// broker that waits for them before it completes answers waited for ever:
/// the built-in broker at QoS 2. At 20, equal to the QoS 2 window rather
/// than below it, a persistent session still stalled at 695 of 1,000 in one
/// run of ten.)
const ANSWERS_IN_FLIGHT: usize = 10;
/// How long a stopping subscriber waits for the broker to take its answers
/// when it takes none.
const STALLED_ANSWERS: Duration = Duration::from_secs(5);

/// Subscribes to `filters` and hands each message to `on_arrival` until it
/// says stop or `listen.timeout` passes; publishes what it answers, and
/// `listen.first` once the broker has confirmed the subscription.
///
/// A filter the broker refuses is the error (nothing would ever arrive
/// from it), named with the broker's reason.
///
/// What it publishes waits in a queue of its own and goes to the client
/// without blocking: the client's request channel is bounded and only this
/// loop drains it, so a blocking publish under a burst of messages that
/// each ask for an answer would wait for ever on itself.
pub fn subscribe(
    transport: &MqttTransport,
    filters: &[String],
    listen: &Listen,
    on_arrival: &mut OnArrival<'_>,
) -> Result<Ended, TransportError> {
    let (uri, level) = (&transport.uri, transport.settings.qos);
    let version = transport.settings.mqtt_version;
    let mut options = transport.options("sub")?;
    // In a persistent session a message is acknowledged once it is handed
    // on, never when the client reads it: the client reads every message
    // the broker sent at once (the session's queue arrives in one burst),
    // and one read but not handed on (past `--count`) was acknowledged and
    // lost; now the broker keeps it for the session's next connection. A
    // clean session's unacknowledged messages end with it, so there the
    // client acknowledges what it reads, as before (acknowledging after
    // handing on there too stalled one MQTT 5 worker of a shared
    // subscription at Mosquitto, under load, in one run of two).
    options.manual_acks = options.persistent || listen.handled_within.is_some();
    let acks_by_hand = options.manual_acks;
    if let Some(handling) = listen.handled_within {
        // The loop stops reading while a message is handled: the broker
        // must not give up on a silent connection before the handling may
        // end.
        options.keep_alive = client::KEEP_ALIVE.max(handling + client::KEEP_ALIVE);
    }
    let (client, mut connection) = client::open(options, version, 64);
    // Filters (by index) subscribed and not yet sent, then sent, by packet id.
    let mut unsent: VecDeque<usize> = VecDeque::new();
    let mut sent: HashMap<u16, usize> = HashMap::new();
    let subscribe_all = |unsent: &mut VecDeque<usize>| -> Result<(), TransportError> {
        for filter in filters {
            client
                .subscribe(filter, level)
                .map_err(|e| failure(uri, e))?;
        }
        unsent.clear();
        unsent.extend(0..filters.len());
        Ok(())
    };
    let mut outbox = Outbox {
        acks_after_answers: listen.handled_within.is_some(),
        ..Outbox::default()
    };
    subscribe_all(&mut unsent)?;
    let deadline = listen.timeout.map(|t| Instant::now() + t);
    let mut connected = false;
    let mut acked = 0;
    let mut first = listen.first.clone();
    let mut link = Link::default();
    let stop = |connection: &mut client::Connection, outbox: &mut Outbox| {
        // What was answered goes out, and is acknowledged by the broker at
        // QoS 1 and 2, before the DISCONNECT (a broker may drop a PUBLISH
        // that a DISCONNECT follows at once): for as long as the broker
        // keeps acknowledging, and no more than 5 s without progress.
        let mut progress = (outbox.owed(), Instant::now());
        while outbox.owed() > 0 && progress.1.elapsed() < STALLED_ANSWERS {
            outbox.flush(&client, level, uri)?;
            match connection.next(Duration::from_millis(50)) {
                Some(Ok(event)) => outbox.track(&event),
                // Closed under them: they are not published again.
                Some(Err(_)) => break,
                None => {}
            }
            if outbox.owed() < progress.0 {
                progress = (outbox.owed(), Instant::now());
            }
        }
        if let Some(topic) = outbox
            .unacknowledged_topic
            .as_deref()
            .filter(|_| outbox.owed() > 0)
        {
            eprintln!(
                "aiproto: warning: an answer to `{}` was not acknowledged by the broker before the end: it may be lost (a broker closes the connection to refuse a publish its ACL does not allow)",
                topic.escape_debug()
            );
        }
        client.disconnect();
        connection.drain_until_disconnect();
        Ok::<(), TransportError>(())
    };
    loop {
        if listen.is_stopped() {
            stop(&mut connection, &mut outbox)?;
            return Ok(Ended::Interrupted);
        }
        outbox.flush(&client, level, uri)?;
        // Short waits, so that a signal is seen within a fifth of a second.
        let wait = deadline.map_or(STOP_POLL, |d| {
            d.saturating_duration_since(Instant::now()).min(STOP_POLL)
        });
        let event = connection.next(wait);
        if let Some(Ok(event)) = &event {
            outbox.track(event);
            if matches!(event, Event::PubAck(_) | Event::PubComp(_)) {
                link.acknowledged();
            }
        }
        match event {
            Some(Ok(Event::Refused(why))) => return Err(refusal(uri, version, &why)),
            Some(Ok(Event::Connected { session_present })) => {
                connected = true;
                // A broker that lost the session lost the subscriptions too,
                // and the messages and answers in flight on the old
                // connection: their packet ids mean nothing on this one.
                if link.reconnected() && !session_present {
                    subscribe_all(&mut unsent)?;
                    outbox.forget_in_flight();
                }
            }
            Some(Ok(Event::SubscribeSent(pkid))) => {
                if let Some(filter) = unsent.pop_front() {
                    sent.insert(pkid, filter);
                }
            }
            Some(Ok(Event::SubAck { pkid, refused })) => {
                let filter = sent.remove(&pkid);
                if let Some(why) = refused {
                    let filter = filter.map_or("a topic filter", |i| filters[i].as_str());
                    return Err(failure(
                        uri,
                        format!(
                            "the broker refused the subscription to `{}`: {why} (not allowed to this account, or a filter it does not take); nothing from it would arrive",
                            filter.escape_debug()
                        ),
                    ));
                }
                acked += 1;
                if acked == filters.len() {
                    if !listen.quiet {
                        eprintln!("aiproto: subscribed to {}", filters.join(", "));
                    }
                    outbox.extend(first.drain(..));
                }
            }
            Some(Ok(Event::Message(p, delivery))) => {
                if delivery.redelivered && listen.handled_within.is_some() && !listen.quiet {
                    eprintln!(
                        "aiproto: {}: a message the broker sends again (its acknowledgement did not reach it: it may have been handled before)",
                        crate::output::escape_controls(&p.topic)
                    );
                }
                let text = String::from_utf8_lossy(&p.payload);
                let answer = on_arrival(Arrival {
                    origin: &p.topic,
                    topic: Some(&p.topic),
                    text: &text,
                    snapshot: false,
                    properties: (!p.properties.is_empty()).then_some(&p.properties),
                })
                .map_err(TransportError::Handler)?;
                outbox.extend(answer.publish);
                if acks_by_hand && delivery.level > 0 {
                    // Handed on (or skipped as seen before): now the
                    // broker may forget it.
                    outbox.acks.push_back(delivery);
                }
                if answer.stop {
                    stop(&mut connection, &mut outbox)?;
                    return Ok(Ended::Stopped);
                }
            }
            Some(Ok(Event::PublishRefused { why, .. })) => {
                eprintln!("aiproto: the broker refused an answer published from here: {why}");
            }
            Some(Ok(_)) => {}
            Some(Err(_)) | None if deadline.is_some_and(|d| Instant::now() >= d) => {
                // A timeout is a quiet end only where a broker listened: one
                // that never answered CONNECT is no broker heard from.
                if !connected {
                    return Err(TransportError::Peer {
                        url: uri.describe(),
                        why: "no CONNACK before --timeout: nothing there answered MQTT \
                              (is it the broker's address and port?)"
                            .into(),
                    });
                }
                return Ok(Ended::Timeout);
            }
            Some(Err(e)) => {
                let owing = outbox.unacknowledged_topic.take();
                if let Some(topic) = &owing {
                    // The client does not publish it again on a new
                    // connection: said, never lost in silence.
                    eprintln!(
                        "aiproto: warning: an answer to `{}` was on its way, unacknowledged, when the connection closed: it may be lost (a broker closes the connection to refuse a publish its ACL does not allow)",
                        topic.escape_debug()
                    );
                }
                link.lost(uri, e, owing.as_deref())?;
            }
            None => {}
        }
    }
}

/// What a subscriber publishes in answer, waiting for room in the client's
/// request channel, and how many of its publishes the broker has yet to
/// acknowledge.
#[derive(Default)]
struct Outbox {
    /// Acknowledgements of messages handed on, in the order they arrived
    /// (MQTT's order for PUBACKs).
    acks: VecDeque<client::Delivery>,
    /// Whether an acknowledgement waits until what was published in answer
    /// is acknowledged (`--exec`: a worker stopped in between leaves the
    /// message to come again, not an answer lost). Otherwise it goes at
    /// once, the message being handed on: in a burst there is seldom a
    /// moment with no answer in flight, and the broker's window of
    /// messages for this client would wait for one.
    acks_after_answers: bool,
    queue: VecDeque<Publication>,
    /// Handed to the client, not yet written.
    in_client: usize,
    /// Written at QoS 1 or 2, not yet acknowledged.
    unacknowledged: usize,
    /// The topic of an answer handed to the client and not yet
    /// acknowledged (or written, at QoS 0), while there is one.
    unacknowledged_topic: Option<String>,
}

impl Outbox {
    fn extend(&mut self, items: impl IntoIterator<Item = Publication>) {
        self.queue.extend(items);
    }

    /// Acknowledgements not yet handed to the client, answers not yet
    /// written, or written and not yet acknowledged.
    fn owed(&self) -> usize {
        self.acks.len() + self.queue.len() + self.in_client + self.unacknowledged
    }

    /// A new connection without the old session: what was written on the
    /// old one will never be acknowledged, and acknowledging what arrived
    /// on it would name another message (the broker sends again what it
    /// had not had acknowledged, where it kept it).
    /// (What is still in the client's queue goes out on the new one.)
    fn forget_in_flight(&mut self) {
        self.acks.clear();
        self.unacknowledged = 0;
        if self.in_client == 0 {
            self.unacknowledged_topic = None;
        }
    }

    /// Counts QoS 1 and 2 publishes out and their acknowledgements in.
    fn track(&mut self, event: &Event) {
        match event {
            // QoS 0 publishes carry packet id 0 and get no acknowledgement.
            Event::PublishSent(pkid) => {
                self.in_client = self.in_client.saturating_sub(1);
                if *pkid != 0 {
                    self.unacknowledged += 1;
                }
            }
            Event::PubAck(_) | Event::PubComp(_) | Event::PublishRefused { .. } => {
                self.unacknowledged = self.unacknowledged.saturating_sub(1);
            }
            _ => {}
        }
        if self.in_client + self.unacknowledged == 0 {
            self.unacknowledged_topic = None;
        }
    }

    /// Hands the client what it takes without waiting; the rest stays for
    /// the next turn of the loop (which drains the channel). A topic no
    /// message can be published to is refused at once.
    fn flush(
        &mut self,
        client: &client::Client,
        level: u8,
        uri: &super::MqttUri,
    ) -> Result<(), TransportError> {
        while self.in_client + self.unacknowledged < ANSWERS_IN_FLIGHT
            && let Some(p) = self.queue.pop_front()
        {
            if let Some(why) = crate::mqtt_topic::problem(&p.topic) {
                return Err(TransportError::BadTopic {
                    topic: p.topic.escape_debug().to_string(),
                    why,
                });
            }
            let payload = bytes::Bytes::from(p.payload);
            match client.try_publish(&p.topic, payload.clone(), &p.properties, level, false) {
                Handed::Queued => {
                    self.in_client += 1;
                    self.unacknowledged_topic.get_or_insert(p.topic);
                }
                Handed::Full => {
                    self.queue.push_front(Publication {
                        payload: payload.into(),
                        ..p
                    });
                    return Ok(());
                }
                Handed::Failed(why) => return Err(failure(uri, why)),
            }
        }
        // Under `--exec`, a message handled is acknowledged once what was
        // answered to it is with the broker (`acks_after_answers`).
        let answered = self.queue.is_empty() && self.in_client == 0 && self.unacknowledged == 0;
        if answered || !self.acks_after_answers {
            while let Some(delivery) = self.acks.pop_front() {
                match client.try_ack(&delivery) {
                    Handed::Queued => {}
                    Handed::Full => {
                        self.acks.push_front(delivery);
                        return Ok(());
                    }
                    Handed::Failed(why) => return Err(failure(uri, why)),
                }
            }
        }
        Ok(())
    }
}
