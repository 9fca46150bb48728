//! MQTT: publishing messages and subscribing to topic filters with rumqttc,
//! and an embedded broker (rumqttd) so that nothing else has to be installed.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rumqttc::{Client, Event, MqttOptions, Packet, QoS};

use super::{Arrival, Ended, Listen, OnArrival, Outgoing, Routing, Transport, TransportError};

/// `mqtt://[user:pass@]host[:port][/topic]`, or `mqtts://…` (TLS, port
/// 8883 by default). The topic keeps `+` and `#` (so it is not parsed as a
/// URL fragment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MqttUri {
    pub host: String,
    pub port: u16,
    pub tls: bool,
    pub credentials: Option<(String, String)>,
    pub topic: Option<String>,
}

impl MqttUri {
    pub fn parse(uri: &str) -> Result<MqttUri, String> {
        let (rest, tls) = match (uri.strip_prefix("mqtt://"), uri.strip_prefix("mqtts://")) {
            (Some(rest), _) => (rest, false),
            (_, Some(rest)) => (rest, true),
            _ => return Err(format!("`{uri}` is not mqtt://… or mqtts://…")),
        };
        let (authority, topic) = match rest.split_once('/') {
            Some((a, t)) => (a, (!t.is_empty()).then(|| t.to_string())),
            None => (rest, None),
        };
        let (credentials, hostport) = match authority.rsplit_once('@') {
            Some((cred, hp)) => {
                let (u, p) = cred.split_once(':').unwrap_or((cred, ""));
                (Some((u.to_string(), p.to_string())), hp)
            }
            None => (None, authority),
        };
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) => (
                h,
                p.parse::<u16>()
                    .map_err(|_| format!("`{p}` is not a port"))?,
            ),
            None => (hostport, if tls { 8883 } else { 1883 }),
        };
        if host.is_empty() {
            return Err(format!("`{uri}` has no host"));
        }
        Ok(MqttUri {
            host: host.to_string(),
            port,
            tls,
            credentials,
            topic,
        })
    }

    fn describe(&self) -> String {
        let scheme = if self.tls { "mqtts" } else { "mqtt" };
        format!("{scheme}://{}:{}", self.host, self.port)
    }
}

/// `mqtt://…` and `mqtts://…`.
pub struct MqttTransport {
    pub uri: MqttUri,
    pub settings: super::Settings,
    /// The publishing connection, kept from one `send` to the next until
    /// `finish` (a long input is published in batches over one connection).
    publisher: Option<Publisher>,
}

/// A connection that publishes.
struct Publisher {
    client: Client,
    connection: rumqttc::Connection,
    link: Link,
}

impl MqttTransport {
    pub fn new(uri: MqttUri, settings: super::Settings) -> MqttTransport {
        MqttTransport {
            uri,
            settings,
            publisher: None,
        }
    }

    /// Client options; `session` (a client id) asks for a persistent
    /// session: the broker keeps the subscriptions and queues QoS 1/2
    /// messages while the client is away.
    fn options(&self, role: &str) -> Result<MqttOptions, TransportError> {
        let session = &self.settings.session;
        let id = session
            .clone()
            .unwrap_or_else(|| format!("aiproto-{role}-{}", &crate::ids::new_ulid()[16..]));
        let uri = &self.uri;
        let mut options = MqttOptions::new(id, uri.host.clone(), uri.port);
        options.set_clean_session(session.is_none());
        options.set_keep_alive(Duration::from_secs(30));
        if self.settings.qos == 2 {
            // Mosquitto 2.0 takes 20 QoS 2 messages in flight from a client
            // (its max_inflight_messages) and silently drops the ones past
            // them while still completing their handshake: 478 of 1,000
            // were lost with rumqttc's default of 100. Its own clients send 20.
            options.set_inflight(INFLIGHT_QOS_2);
        }
        options.set_max_packet_size(16 * 1024 * 1024, 16 * 1024 * 1024);
        match &uri.credentials {
            Some((user, pass)) => {
                options.set_credentials(user.clone(), pass.clone());
            }
            None => {
                if let Some(c) =
                    super::secrets::for_host(&uri.host).map_err(TransportError::Credentials)?
                {
                    options.set_credentials(c.user, c.password);
                }
            }
        }
        if uri.tls {
            let config = super::tls::client_config(self.settings.ca_file.as_deref())
                .map_err(|why| failure(uri, why))?;
            options.set_transport(rumqttc::Transport::tls_with_config(
                rumqttc::TlsConfiguration::Rustls(std::sync::Arc::new(config)),
            ));
        }
        Ok(options)
    }

    /// The topic a message goes to: the URI's, or the one its routing
    /// names (an HSP message's recipient).
    /// Refused at once when it is not a topic a message can be published
    /// to (a wildcard, a NUL, too long): no broker is asked.
    pub fn topic_for(&self, routing: &Routing) -> Result<String, TransportError> {
        let topic = self
            .uri
            .topic
            .clone()
            .or_else(|| routing.topic.clone())
            .ok_or(TransportError::NoTopic)?;
        match crate::mqtt_topic::problem(&topic) {
            Some(why) => Err(TransportError::BadTopic {
                topic: topic.escape_debug().to_string(),
                why,
            }),
            None => Ok(topic),
        }
    }
}

impl Transport for MqttTransport {
    /// Publishes every message over one connection, and returns once the
    /// broker has acknowledged each (QoS 1 and 2) or it is written (QoS 0).
    fn send(
        &mut self,
        messages: &[Outgoing],
        _on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError> {
        let mut items = Vec::with_capacity(messages.len());
        for message in messages {
            // The message as it is, without the line end that ends it on a
            // terminal (subscribers would print a blank line).
            let text = message.text.strip_suffix('\n').unwrap_or(&message.text);
            items.push((self.topic_for(&message.routing)?, text.as_bytes().to_vec()));
        }
        publish(self, items, Duration::from_secs(60))
    }

    /// Disconnects the publishing connection cleanly, if there is one.
    fn finish(&mut self) -> Result<(), TransportError> {
        if let Some(mut p) = self.publisher.take() {
            let _ = p.client.disconnect();
            drain_until_disconnect(&mut p.connection);
        }
        Ok(())
    }

    /// Subscribes to the URI's topic filter and `listen.filters`.
    fn receive(
        &mut self,
        listen: &Listen,
        on_arrival: &mut OnArrival<'_>,
    ) -> Result<Ended, TransportError> {
        let mut filters: Vec<String> = self.uri.topic.iter().cloned().collect();
        filters.extend(listen.filters.iter().cloned());
        if filters.is_empty() {
            return Err(TransportError::NoTopic);
        }
        subscribe(self, &filters, listen, on_arrival)
    }
}

/// A QoS level from its number.
pub fn qos(level: u8) -> QoS {
    match level {
        0 => QoS::AtMostOnce,
        1 => QoS::AtLeastOnce,
        _ => QoS::ExactlyOnce,
    }
}

/// Whether a CONNACK refuses the connection (bad credentials, server unavailable…).
fn refused(ack: &rumqttc::ConnAck) -> bool {
    ack.code != rumqttc::ConnectReturnCode::Success
}

fn refusal(uri: &MqttUri, ack: &rumqttc::ConnAck) -> TransportError {
    failure(
        uri,
        format!("the broker refused the connection: {:?}", ack.code),
    )
}

fn failure(uri: &MqttUri, why: impl std::fmt::Display) -> TransportError {
    let why = why.to_string();
    let hint = if why.contains("UnknownIssuer") {
        " (the broker's certificate is signed by a CA aiproto does not trust: give that CA with --cafile PEM)"
    } else if why.contains("CaUsedAsEndEntity") {
        " (the broker presents a CA certificate as its own, as `openssl req -x509` makes by default: give it a server certificate signed by that CA, and the CA to --cafile)"
    } else if why.contains("NotValidForName") {
        " (the broker's certificate does not name this host: connect by a name it carries)"
    } else {
        ""
    };
    TransportError::Peer {
        url: uri.describe(),
        why: format!("{why}{hint}"),
    }
}

/// How many messages may be on their way (sent or queued, not acknowledged).
const WINDOW: usize = 1024;

/// QoS 2 messages in flight at once, as Mosquitto's clients send them.
const INFLIGHT_QOS_2: u16 = 20;
/// How often a subscriber looks at [`Listen::stop`] while nothing arrives.
const STOP_POLL: Duration = Duration::from_millis(200);
/// How long a publisher waits for an acknowledgement over a standing
/// connection before it publishes the unacknowledged messages again.
const STALLED: Duration = Duration::from_secs(5);
/// The longest wait between two reconnection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Publishes each (topic, payload) and returns once the broker has
/// acknowledged every one (QoS 1 and 2) or it is written (QoS 0).
///
/// A lost connection is reconnected with backoff until `timeout`. Whatever
/// was not acknowledged is published again when the broker comes back
/// without the session (rumqttc drops its own copies then), so QoS 1 and 2
/// lose nothing across a broker restart (duplicates are possible: at least once).
///
/// The connection stays open for the next call; [`Transport::finish`]
/// closes it.
fn publish(
    transport: &mut MqttTransport,
    items: Vec<(String, Vec<u8>)>,
    timeout: Duration,
) -> Result<(), TransportError> {
    let (level, retain) = (transport.settings.qos, transport.settings.retain);
    if transport.publisher.is_none() {
        let (client, connection) = Client::new(transport.options("pub")?, WINDOW);
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
        window.fill(|i| {
            let (topic, payload) = &items[i];
            client
                .try_publish(topic.clone(), qos(level), retain, payload.clone())
                .is_ok()
        });
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
        match connection.recv_timeout(left.min(Duration::from_millis(200))) {
            Ok(Ok(Event::Incoming(Packet::ConnAck(ack)))) if refused(&ack) => {
                return Err(refusal(uri, &ack));
            }
            Ok(Ok(Event::Incoming(Packet::ConnAck(ack)))) => {
                if link.reconnected() && !ack.session_present {
                    window.resend_unacknowledged();
                }
            }
            Ok(Ok(Event::Outgoing(rumqttc::Outgoing::Publish(pkid)))) => window.sent(pkid, level),
            Ok(Ok(Event::Incoming(Packet::PubAck(ack)))) if level == 1 => window.acked(ack.pkid),
            Ok(Ok(Event::Incoming(Packet::PubComp(c)))) if level >= 2 => window.acked(c.pkid),
            Ok(Ok(_)) | Err(_) => {}
            Ok(Err(e)) => link.lost(uri, e)?,
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
    again: std::collections::VecDeque<usize>,
    /// Handed to the client, not yet seen going out (in order).
    queued: std::collections::VecDeque<usize>,
    /// Gone out at QoS 1/2, waiting for the acknowledgement, by packet id.
    in_flight: HashMap<u16, usize>,
    done: usize,
}

impl Window {
    fn new(total: usize) -> Window {
        Window {
            total,
            next: 0,
            again: std::collections::VecDeque::new(),
            queued: std::collections::VecDeque::new(),
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

/// The state of the connection across reconnects.
#[derive(Default)]
struct Link {
    /// A connection was established once (a later failure is a lost link).
    up_once: bool,
    /// The current outage, if any: when it began and the next wait.
    outage: Option<Duration>,
}

impl Link {
    /// Whether the connection is lost and not yet back.
    fn is_down(&self) -> bool {
        self.outage.is_some()
    }

    /// A CONNACK arrived: true when it ends an outage.
    fn reconnected(&mut self) -> bool {
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
    fn lost(&mut self, uri: &MqttUri, e: rumqttc::ConnectionError) -> Result<(), TransportError> {
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

/// Drives the connection until the DISCONNECT asked for has gone out, so
/// that everything queued before it (publishes, ACKs) is written first.
fn drain_until_disconnect(connection: &mut rumqttc::Connection) {
    for _ in 0..16 {
        match connection.recv_timeout(Duration::from_millis(500)) {
            Ok(Ok(Event::Outgoing(rumqttc::Outgoing::Disconnect))) | Ok(Err(_)) | Err(_) => break,
            Ok(Ok(_)) => {}
        }
    }
}

/// How long a stopping subscriber waits for the broker to take its answers
/// when it takes none.
const STALLED_ANSWERS: Duration = Duration::from_secs(5);

/// How long a subscriber waits for the broker's CONNACK on its first
/// connection before it says the address does not answer MQTT.
const CONNACK_WAIT: Duration = Duration::from_secs(10);

/// Subscribes to `filters` and hands each message to `on_arrival` until it
/// says stop or `listen.timeout` passes; publishes what it answers, and
/// `listen.first` once the broker has confirmed the subscription.
///
/// What it publishes waits in a queue of its own and goes to the client
/// without blocking: the client's request channel is bounded and only this
/// loop drains it, so a blocking publish under a burst of messages that
/// each ask for an answer would wait for ever on itself.
fn subscribe(
    transport: &MqttTransport,
    filters: &[String],
    listen: &Listen,
    on_arrival: &mut OnArrival<'_>,
) -> Result<Ended, TransportError> {
    let (uri, level) = (&transport.uri, qos(transport.settings.qos));
    let (client, mut connection) = Client::new(transport.options("sub")?, 64);
    let subscribe_all = || -> Result<(), TransportError> {
        for filter in filters {
            client
                .subscribe(filter.clone(), level)
                .map_err(|e| failure(uri, e))?;
        }
        Ok(())
    };
    let mut outbox = Outbox::default();
    subscribe_all()?;
    let deadline = listen.timeout.map(|t| Instant::now() + t);
    let connack_deadline = Instant::now() + CONNACK_WAIT;
    let mut connected = false;
    let mut acked = 0;
    let mut first = listen.first.clone();
    let mut link = Link::default();
    let stop = |connection: &mut rumqttc::Connection, outbox: &mut Outbox| {
        // What was answered goes out, and is acknowledged by the broker at
        // QoS 1 and 2, before the DISCONNECT (a broker may drop a PUBLISH
        // that a DISCONNECT follows at once): for as long as the broker
        // keeps acknowledging, and no more than 5 s without progress.
        let mut progress = (outbox.owed(), Instant::now());
        while outbox.owed() > 0 && progress.1.elapsed() < STALLED_ANSWERS {
            outbox.flush(&client, level, uri)?;
            if let Ok(Ok(event)) = connection.recv_timeout(Duration::from_millis(50)) {
                outbox.track(&event);
            }
            if outbox.owed() < progress.0 {
                progress = (outbox.owed(), Instant::now());
            }
        }
        let _ = client.disconnect();
        drain_until_disconnect(connection);
        Ok::<(), TransportError>(())
    };
    loop {
        if listen.is_stopped() {
            stop(&mut connection, &mut outbox)?;
            return Ok(Ended::Interrupted);
        }
        outbox.flush(&client, level, uri)?;
        if !connected && Instant::now() >= connack_deadline {
            return Err(TransportError::Peer {
                url: uri.describe(),
                why: format!(
                    "no CONNACK within {} s: nothing there answers MQTT (is it the broker's address and port?)",
                    CONNACK_WAIT.as_secs()
                ),
            });
        }
        // Short waits, so that a signal is seen within a fifth of a second.
        let wait = deadline.map_or(STOP_POLL, |d| {
            d.saturating_duration_since(Instant::now()).min(STOP_POLL)
        });
        let event = connection.recv_timeout(wait);
        if let Ok(Ok(event)) = &event {
            outbox.track(event);
        }
        match event {
            Ok(Ok(Event::Incoming(Packet::ConnAck(ack)))) if refused(&ack) => {
                return Err(refusal(uri, &ack));
            }
            Ok(Ok(Event::Incoming(Packet::ConnAck(ack)))) => {
                connected = true;
                // A broker that lost the session lost the subscriptions too.
                if link.reconnected() && !ack.session_present {
                    subscribe_all()?;
                }
            }
            Ok(Ok(Event::Incoming(Packet::SubAck(_)))) => {
                acked += 1;
                if acked == filters.len() {
                    if !listen.quiet {
                        eprintln!("aiproto: subscribed to {}", filters.join(", "));
                    }
                    outbox.extend(first.drain(..));
                }
            }
            Ok(Ok(Event::Incoming(Packet::Publish(p)))) => {
                let text = String::from_utf8_lossy(&p.payload);
                let answer = on_arrival(Arrival {
                    origin: &p.topic,
                    topic: Some(&p.topic),
                    text: &text,
                    snapshot: false,
                })
                .map_err(TransportError::Handler)?;
                outbox.extend(answer.publish);
                if answer.stop {
                    stop(&mut connection, &mut outbox)?;
                    return Ok(Ended::Stopped);
                }
            }
            Ok(Ok(_)) => {}
            Ok(Err(_)) | Err(_) if deadline.is_some_and(|d| Instant::now() >= d) => {
                return Ok(Ended::Timeout);
            }
            Ok(Err(e)) => link.lost(uri, e)?,
            Err(_) => {}
        }
    }
}

/// What a subscriber publishes in answer, waiting for room in the client's
/// request channel, and how many of its publishes the broker has yet to
/// acknowledge.
#[derive(Default)]
struct Outbox {
    queue: std::collections::VecDeque<(String, Vec<u8>)>,
    /// Handed to the client, not yet written.
    in_client: usize,
    /// Written at QoS 1 or 2, not yet acknowledged.
    unacknowledged: usize,
}

impl Outbox {
    fn extend(&mut self, items: impl IntoIterator<Item = (String, Vec<u8>)>) {
        self.queue.extend(items);
    }

    /// Answers not yet written, or written and not yet acknowledged.
    fn owed(&self) -> usize {
        self.queue.len() + self.in_client + self.unacknowledged
    }

    /// Counts QoS 1 and 2 publishes out and their acknowledgements in.
    fn track(&mut self, event: &Event) {
        match event {
            // QoS 0 publishes carry packet id 0 and get no acknowledgement.
            Event::Outgoing(rumqttc::Outgoing::Publish(pkid)) => {
                self.in_client = self.in_client.saturating_sub(1);
                if *pkid != 0 {
                    self.unacknowledged += 1;
                }
            }
            Event::Incoming(Packet::PubAck(_) | Packet::PubComp(_)) => {
                self.unacknowledged = self.unacknowledged.saturating_sub(1);
            }
            _ => {}
        }
    }

    /// Hands the client what it takes without waiting; the rest stays for
    /// the next turn of the loop (which drains the channel). A topic no
    /// message can be published to is refused at once.
    fn flush(&mut self, client: &Client, level: QoS, uri: &MqttUri) -> Result<(), TransportError> {
        while let Some((topic, payload)) = self.queue.pop_front() {
            if let Some(why) = crate::mqtt_topic::problem(&topic) {
                return Err(TransportError::BadTopic {
                    topic: topic.escape_debug().to_string(),
                    why,
                });
            }
            match client.try_publish(topic, level, false, payload) {
                Ok(()) => self.in_client += 1,
                Err(rumqttc::ClientError::TryRequest(rumqttc::Request::Publish(p))) => {
                    self.queue.push_front((p.topic, p.payload.to_vec()));
                    return Ok(());
                }
                Err(e) => return Err(failure(uri, e)),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_uris_with_filters_and_credentials() {
        let u = MqttUri::parse("mqtt://bob:s3cret@broker.example:1884/hsp/knowledge/#").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("broker.example", 1884));
        assert_eq!(u.credentials, Some(("bob".into(), "s3cret".into())));
        assert_eq!(u.topic.as_deref(), Some("hsp/knowledge/#"));
        let u = MqttUri::parse("mqtt://localhost").unwrap();
        assert_eq!((u.port, u.topic), (1883, None));
        assert!(MqttUri::parse("mqtt://:1883/x").is_err());
        assert!(MqttUri::parse("mqtt://h:port/x").is_err());
    }
}
