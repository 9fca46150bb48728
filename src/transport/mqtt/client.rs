//! One MQTT connection, 3.1.1 or 5 (rumqttc's two clients), seen through
//! the few events aiproto acts on, with MQTT 5's properties in and out.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use rumqttc::v5;
use rumqttc::v5::mqttbytes::v5 as p5;

use super::polling::Polling;
use crate::transport::{Properties, Publication};

/// The MQTT version spoken to the broker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Version {
    /// MQTT 3.1.1: what every broker speaks, the built-in one included.
    #[default]
    V3_1_1,
    /// MQTT 5: properties (response topic, correlation data, message
    /// expiry, content type) and reason codes on every acknowledgement.
    V5,
}

impl std::str::FromStr for Version {
    type Err = String;

    fn from_str(s: &str) -> Result<Version, String> {
        match s {
            "3.1.1" | "311" | "4" => Ok(Version::V3_1_1),
            "5" | "5.0" => Ok(Version::V5),
            _ => Err(format!(
                "`{s}` is no MQTT version aiproto speaks: 3.1.1 or 5"
            )),
        }
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Version::V3_1_1 => "3.1.1",
            Version::V5 => "5",
        })
    }
}

/// How to connect, whatever the version.
pub struct Options {
    pub client_id: String,
    pub host: String,
    pub port: u16,
    /// A session the broker keeps across connections (and, for MQTT 5,
    /// with no expiry).
    pub persistent: bool,
    /// At most this many QoS 1/2 messages unacknowledged at once.
    pub inflight: Option<u16>,
    pub credentials: Option<(String, String)>,
    pub tls: Option<Arc<rustls::ClientConfig>>,
    /// Each message received is acknowledged by [`Client::try_ack`], not
    /// as it arrives; with MQTT 5, the broker is also asked to send one
    /// message at a time (Receive Maximum 1), so that a worker holds no
    /// more than the one in hand.
    pub manual_acks: bool,
    /// How long the connection may be silent: the broker gives up on it
    /// after one and a half times this.
    pub keep_alive: Duration,
}

/// The keep-alive of a connection whose loop is never held up for long.
pub const KEEP_ALIVE: Duration = Duration::from_secs(30);

/// How long a connection may take to be made (TCP, TLS, CONNECT and its
/// CONNACK together) before the address is said not to answer MQTT.
pub const CONNACK_WAIT: Duration = Duration::from_secs(10);

/// The largest packet sent or taken.
const MAX_PACKET: usize = 16 * 1024 * 1024;

/// The handle that queues requests (publish, subscribe, disconnect).
pub enum Client {
    V3(rumqttc::Client),
    V5(v5::Client),
}

/// The connection that carries them and hands out what happens.
pub enum Connection {
    V3(Box<Polling<rumqttc::EventLoop, Result<rumqttc::Event, rumqttc::ConnectionError>>>),
    V5(Box<Polling<v5::EventLoop, Result<v5::Event, v5::ConnectionError>>>),
}

/// What happened on the connection, as far as aiproto cares.
#[derive(Debug)]
pub enum Event {
    /// The broker took the connection.
    Connected {
        session_present: bool,
    },
    /// The broker refused the connection: why.
    Refused(String),
    /// A SUBSCRIBE went out under this packet id.
    SubscribeSent(u16),
    /// The broker answered a SUBSCRIBE: the reason of each refused filter.
    SubAck {
        pkid: u16,
        refused: Option<String>,
    },
    /// A PUBLISH went out under this packet id (0 at QoS 0).
    PublishSent(u16),
    /// A QoS 1 publish acknowledged.
    PubAck(u16),
    /// A QoS 2 publish completed.
    PubComp(u16),
    /// MQTT 5: the broker refused a publish (PUBACK or PUBREC with a
    /// failure reason): it will not be delivered.
    PublishRefused {
        pkid: u16,
        why: String,
    },
    /// A message arrived, with what acknowledges it.
    Message(Publication, Delivery),
    /// The DISCONNECT asked for went out.
    Disconnecting,
    Other,
}

/// What identifies a message received, to acknowledge it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    /// Its QoS: 0 needs no acknowledgement.
    pub level: u8,
    pub pkid: u16,
    /// The broker sent it before without getting its acknowledgement.
    pub redelivered: bool,
}

/// Why the connection failed (rumqttc's error, in words).
pub type Failure = String;

/// What handing a publish to the client gave.
pub enum Handed {
    Queued,
    /// The client's request channel is full: try again after the next event.
    Full,
    Failed(String),
}

/// A client and its connection, `cap` requests queued at most.
pub fn open(options: Options, version: Version, cap: usize) -> (Client, Connection) {
    let transport = options.tls.map(|config| {
        rumqttc::Transport::tls_with_config(rumqttc::TlsConfiguration::Rustls(config))
    });
    match version {
        Version::V3_1_1 => {
            let mut o = rumqttc::MqttOptions::new(options.client_id, options.host, options.port);
            o.set_clean_session(!options.persistent);
            o.set_keep_alive(options.keep_alive);
            o.set_manual_acks(options.manual_acks);
            o.set_max_packet_size(MAX_PACKET, MAX_PACKET);
            if let Some(n) = options.inflight {
                o.set_inflight(n);
            }
            if let Some((user, pass)) = options.credentials {
                o.set_credentials(user, pass);
            }
            if let Some(t) = transport {
                o.set_transport(t);
            }
            let (client, mut connection) = rumqttc::Client::new(o, cap);
            let mut network = connection.eventloop.network_options();
            network.set_connection_timeout(CONNACK_WAIT.as_secs());
            connection.eventloop.set_network_options(network);
            let polling = Polling::new(connection.eventloop, |mut event_loop| {
                Box::pin(async move {
                    let event = event_loop.poll().await;
                    (event_loop, event)
                })
            });
            (Client::V3(client), Connection::V3(Box::new(polling)))
        }
        Version::V5 => {
            let mut o = v5::MqttOptions::new(options.client_id, options.host, options.port);
            o.set_clean_start(!options.persistent);
            if options.persistent {
                // 0xFFFFFFFF: the session never expires (MQTT 5 §3.1.2.11.2),
                // as a 3.1.1 session that is not clean.
                o.set_session_expiry_interval(Some(u32::MAX));
            }
            o.set_keep_alive(options.keep_alive);
            o.set_manual_acks(options.manual_acks);
            if options.manual_acks {
                o.set_receive_maximum(Some(1));
            }
            o.set_max_packet_size(Some(MAX_PACKET as u32));
            o.set_connection_timeout(CONNACK_WAIT.as_secs());
            if let Some(n) = options.inflight {
                o.set_outgoing_inflight_upper_limit(n);
            }
            if let Some((user, pass)) = options.credentials {
                o.set_credentials(user, pass);
            }
            if let Some(t) = transport {
                o.set_transport(t);
            }
            let (client, connection) = v5::Client::new(o, cap);
            let polling = Polling::new(connection.eventloop, |mut event_loop| {
                Box::pin(async move {
                    let event = event_loop.poll().await;
                    (event_loop, event)
                })
            });
            (Client::V5(client), Connection::V5(Box::new(polling)))
        }
    }
}

fn qos5(level: u8) -> v5::mqttbytes::QoS {
    match level {
        0 => v5::mqttbytes::QoS::AtMostOnce,
        1 => v5::mqttbytes::QoS::AtLeastOnce,
        _ => v5::mqttbytes::QoS::ExactlyOnce,
    }
}

fn qos3(level: u8) -> rumqttc::QoS {
    match level {
        0 => rumqttc::QoS::AtMostOnce,
        1 => rumqttc::QoS::AtLeastOnce,
        _ => rumqttc::QoS::ExactlyOnce,
    }
}

impl Client {
    /// Queues a publish without waiting for room (the payload is shared,
    /// not copied). Over MQTT 3.1.1 the properties are left behind (it has none).
    pub fn try_publish(
        &self,
        topic: &str,
        payload: Bytes,
        properties: &Properties,
        level: u8,
        retain: bool,
    ) -> Handed {
        let sent = match self {
            Client::V3(c) => match c.try_publish(topic, qos3(level), retain, payload) {
                Ok(()) => Ok(()),
                Err(rumqttc::ClientError::TryRequest(_)) => return Handed::Full,
                Err(e) => Err(e.to_string()),
            },
            Client::V5(c) => {
                let sent = match properties_out(properties) {
                    Some(props) => {
                        c.try_publish_with_properties(topic, qos5(level), retain, payload, props)
                    }
                    None => c.try_publish(topic, qos5(level), retain, payload),
                };
                match sent {
                    Ok(()) => Ok(()),
                    Err(v5::ClientError::TryRequest(_)) => return Handed::Full,
                    Err(e) => Err(e.to_string()),
                }
            }
        };
        match sent {
            Ok(()) => Handed::Queued,
            Err(why) => Handed::Failed(why),
        }
    }

    /// Queues the acknowledgement of a message received (PUBACK at QoS 1,
    /// PUBREC at QoS 2) without waiting for room; nothing at QoS 0.
    pub fn try_ack(&self, delivery: &Delivery) -> Handed {
        let acked = match self {
            Client::V3(c) => {
                let mut publish = rumqttc::Publish::new("", qos3(delivery.level), Vec::new());
                publish.pkid = delivery.pkid;
                match c.try_ack(&publish) {
                    Err(rumqttc::ClientError::TryRequest(_)) => return Handed::Full,
                    done => done.map_err(|e| e.to_string()),
                }
            }
            Client::V5(c) => {
                let mut publish = p5::Publish::new("", qos5(delivery.level), Vec::new(), None);
                publish.pkid = delivery.pkid;
                match c.try_ack(&publish) {
                    Err(v5::ClientError::TryRequest(_)) => return Handed::Full,
                    done => done.map_err(|e| e.to_string()),
                }
            }
        };
        match acked {
            Ok(()) => Handed::Queued,
            Err(why) => Handed::Failed(why),
        }
    }

    /// Queues a subscription (waiting for room).
    pub fn subscribe(&self, filter: &str, level: u8) -> Result<(), String> {
        match self {
            Client::V3(c) => c.subscribe(filter, qos3(level)).map_err(|e| e.to_string()),
            Client::V5(c) => c.subscribe(filter, qos5(level)).map_err(|e| e.to_string()),
        }
    }

    /// Asks for a DISCONNECT after what is queued.
    pub fn disconnect(&self) {
        // A client whose connection is already gone has nothing to close.
        match self {
            Client::V3(c) => drop(c.disconnect()),
            Client::V5(c) => drop(c.disconnect()),
        }
    }
}

impl Connection {
    /// The next event within `wait`: `None` when nothing happened, or when
    /// the client is gone. A connection being made when `wait` ends goes
    /// on at the next call (see [`Polling`]).
    pub fn next(&mut self, wait: Duration) -> Option<Result<Event, Failure>> {
        let mut events = Vec::with_capacity(1);
        self.next_batch(wait, 1, &mut events);
        events.pop()
    }

    /// Up to `most` events into `events` ([`Polling::next_batch`]): the first
    /// within `wait`, then those ready at once; a failure ends the batch.
    pub fn next_batch(
        &mut self,
        wait: Duration,
        most: usize,
        events: &mut Vec<Result<Event, Failure>>,
    ) {
        match self {
            Connection::V3(c) => {
                let mut got = Vec::new();
                c.next_batch(wait, most, Result::is_ok, &mut got);
                events.extend(got.into_iter().filter_map(|e| match e {
                    Ok(event) => Some(Ok(event3(event))),
                    Err(rumqttc::ConnectionError::ConnectionRefused(code)) => {
                        Some(Ok(Event::Refused(format!("{code:?}"))))
                    }
                    Err(rumqttc::ConnectionError::RequestsDone) => None,
                    Err(rumqttc::ConnectionError::NetworkTimeout) => Some(Err(no_connack())),
                    Err(e) => Some(Err(e.to_string())),
                }));
            }
            Connection::V5(c) => {
                let mut got = Vec::new();
                c.next_batch(wait, most, Result::is_ok, &mut got);
                events.extend(got.into_iter().filter_map(|e| match e {
                    Ok(event) => Some(Ok(event5(event))),
                    Err(v5::ConnectionError::ConnectionRefused(code)) => {
                        Some(Ok(Event::Refused(format!("{code:?}"))))
                    }
                    Err(v5::ConnectionError::RequestsDone) => None,
                    Err(v5::ConnectionError::Timeout(_)) => Some(Err(no_connack())),
                    Err(e) => Some(Err(e.to_string())),
                }));
            }
        }
    }

    /// Drives the connection until the DISCONNECT asked for has gone out, so
    /// that everything queued before it (publishes, ACKs) is written first.
    pub fn drain_until_disconnect(&mut self) {
        for _ in 0..16 {
            match self.next(Duration::from_millis(500)) {
                Some(Ok(Event::Disconnecting)) | Some(Err(_)) | None => break,
                Some(Ok(_)) => {}
            }
        }
    }
}

/// Why a connection not made within [`CONNACK_WAIT`] failed.
fn no_connack() -> Failure {
    format!(
        "no CONNACK within {} s: nothing there answers MQTT (is it the broker's address and port?)",
        CONNACK_WAIT.as_secs()
    )
}

fn outgoing(o: rumqttc::Outgoing) -> Event {
    match o {
        rumqttc::Outgoing::Publish(pkid) => Event::PublishSent(pkid),
        rumqttc::Outgoing::Subscribe(pkid) => Event::SubscribeSent(pkid),
        rumqttc::Outgoing::Disconnect => Event::Disconnecting,
        _ => Event::Other,
    }
}

fn event3(event: rumqttc::Event) -> Event {
    use rumqttc::Packet;
    match event {
        rumqttc::Event::Outgoing(o) => outgoing(o),
        rumqttc::Event::Incoming(packet) => match packet {
            Packet::ConnAck(ack) if ack.code == rumqttc::ConnectReturnCode::Success => {
                Event::Connected {
                    session_present: ack.session_present,
                }
            }
            Packet::ConnAck(ack) => Event::Refused(format!("{:?}", ack.code)),
            Packet::SubAck(ack) => Event::SubAck {
                pkid: ack.pkid,
                refused: ack
                    .return_codes
                    .contains(&rumqttc::SubscribeReasonCode::Failure)
                    .then(|| "Failure".to_string()),
            },
            Packet::PubAck(ack) => Event::PubAck(ack.pkid),
            Packet::PubComp(c) => Event::PubComp(c.pkid),
            Packet::Publish(p) => Event::Message(
                Publication {
                    topic: p.topic,
                    payload: p.payload.to_vec(),
                    properties: Properties::default(),
                },
                Delivery {
                    level: p.qos as u8,
                    pkid: p.pkid,
                    redelivered: p.dup,
                },
            ),
            _ => Event::Other,
        },
    }
}

fn event5(event: v5::Event) -> Event {
    use p5::Packet;
    match event {
        v5::Event::Outgoing(o) => outgoing(o),
        v5::Event::Incoming(packet) => match packet {
            Packet::ConnAck(ack) if ack.code == p5::ConnectReturnCode::Success => {
                Event::Connected {
                    session_present: ack.session_present,
                }
            }
            Packet::ConnAck(ack) => Event::Refused(format!("{:?}", ack.code)),
            Packet::SubAck(ack) => Event::SubAck {
                pkid: ack.pkid,
                refused: ack
                    .return_codes
                    .iter()
                    .find(|c| !matches!(c, p5::SubscribeReasonCode::Success(_)))
                    .map(|c| format!("{c:?}")),
            },
            Packet::PubAck(ack) => match ack.reason {
                p5::PubAckReason::Success | p5::PubAckReason::NoMatchingSubscribers => {
                    Event::PubAck(ack.pkid)
                }
                why => Event::PublishRefused {
                    pkid: ack.pkid,
                    why: format!("{why:?}"),
                },
            },
            Packet::PubRec(rec) => match rec.reason {
                p5::PubRecReason::Success | p5::PubRecReason::NoMatchingSubscribers => Event::Other,
                why => Event::PublishRefused {
                    pkid: rec.pkid,
                    why: format!("{why:?}"),
                },
            },
            Packet::PubComp(c) => Event::PubComp(c.pkid),
            Packet::Publish(p) => {
                let delivery = Delivery {
                    level: p.qos as u8,
                    pkid: p.pkid,
                    redelivered: p.dup,
                };
                Event::Message(publication_in(p), delivery)
            }
            _ => Event::Other,
        },
    }
}

/// The MQTT 5 properties of a publication, `None` when it has none.
fn properties_out(p: &Properties) -> Option<p5::PublishProperties> {
    (!p.is_empty()).then(|| p5::PublishProperties {
        content_type: p.content_type.clone(),
        message_expiry_interval: p.expiry_seconds,
        response_topic: p.response_topic.clone(),
        correlation_data: p.correlation_data.clone().map(bytes::Bytes::from),
        // The payload is UTF-8 text (HSP, Crosstalk, CSDL and MSP are).
        payload_format_indicator: Some(1),
        ..p5::PublishProperties::default()
    })
}

/// A PUBLISH as it came, with its properties.
fn publication_in(p: p5::Publish) -> Publication {
    let props = p.properties.unwrap_or_default();
    Publication {
        topic: String::from_utf8_lossy(&p.topic).into_owned(),
        payload: p.payload.to_vec(),
        properties: Properties {
            content_type: props.content_type,
            expiry_seconds: props.message_expiry_interval,
            response_topic: props.response_topic,
            correlation_data: props.correlation_data.map(|d| d.to_vec()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_and_named() {
        assert_eq!("5".parse::<Version>(), Ok(Version::V5));
        assert_eq!("3.1.1".parse::<Version>(), Ok(Version::V3_1_1));
        assert!("3.1".parse::<Version>().unwrap_err().contains("3.1.1 or 5"));
        assert_eq!(Version::V5.to_string(), "5");
    }

    #[test]
    fn properties_go_out_only_when_there_are_some() {
        assert!(properties_out(&Properties::default()).is_none());
        let out = properties_out(&Properties {
            correlation_data: Some(b"id-1".to_vec()),
            expiry_seconds: Some(60),
            ..Properties::default()
        })
        .unwrap();
        assert_eq!(out.correlation_data.as_deref(), Some(&b"id-1"[..]));
        assert_eq!(out.message_expiry_interval, Some(60));
        assert_eq!(out.payload_format_indicator, Some(1));
    }
}
