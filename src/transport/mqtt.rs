//! MQTT: publishing messages and subscribing to topic filters with rumqttc,
//! and an embedded broker (rumqttd) so that nothing else has to be installed.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use rumqttc::{Client, Event, MqttOptions, Outgoing, Packet, QoS};

use super::TransportError;

/// `mqtt://[user:pass@]host[:port][/topic]`. The topic keeps `+` and `#`
/// (so it is not parsed as a URL fragment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MqttUri {
    pub host: String,
    pub port: u16,
    pub credentials: Option<(String, String)>,
    pub topic: Option<String>,
}

impl MqttUri {
    pub fn parse(uri: &str) -> Result<MqttUri, String> {
        let rest = uri
            .strip_prefix("mqtt://")
            .ok_or_else(|| format!("`{uri}` is not mqtt://…"))?;
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
            None => (hostport, 1883),
        };
        if host.is_empty() {
            return Err(format!("`{uri}` has no host"));
        }
        Ok(MqttUri {
            host: host.to_string(),
            port,
            credentials,
            topic,
        })
    }

    fn options(&self, role: &str) -> MqttOptions {
        let id = format!("aiproto-{role}-{}", &crate::ids::new_ulid()[16..]);
        let mut options = MqttOptions::new(id, self.host.clone(), self.port);
        options.set_keep_alive(Duration::from_secs(30));
        options.set_max_packet_size(16 * 1024 * 1024, 16 * 1024 * 1024);
        if let Some((user, pass)) = &self.credentials {
            options.set_credentials(user.clone(), pass.clone());
        }
        options
    }

    fn describe(&self) -> String {
        format!("mqtt://{}:{}", self.host, self.port)
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
    TransportError::Http {
        url: uri.describe(),
        why: why.to_string(),
    }
}

/// Publishes each (topic, payload) and returns once the broker has
/// acknowledged every one (QoS 1 and 2) or it is written (QoS 0).
pub fn publish(
    uri: &MqttUri,
    items: Vec<(String, Vec<u8>)>,
    level: u8,
    retain: bool,
    timeout: Duration,
) -> Result<(), TransportError> {
    let total = items.len();
    let (client, mut connection) = Client::new(uri.options("pub"), 64);
    let publisher = std::thread::spawn(move || {
        for (topic, payload) in items {
            client.publish(topic, qos(level), retain, payload)?;
        }
        Ok::<Client, rumqttc::ClientError>(client)
    });
    let mut done = 0;
    let deadline = Instant::now() + timeout;
    while done < total {
        let left = deadline.saturating_duration_since(Instant::now());
        match connection.recv_timeout(left) {
            Ok(Ok(Event::Incoming(Packet::ConnAck(ack)))) if refused(&ack) => {
                return Err(refusal(uri, &ack));
            }
            Ok(Ok(Event::Incoming(Packet::PubAck(_)))) if level == 1 => done += 1,
            Ok(Ok(Event::Incoming(Packet::PubComp(_)))) if level >= 2 => done += 1,
            Ok(Ok(Event::Outgoing(Outgoing::Publish(_)))) if level == 0 => done += 1,
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(failure(uri, e)),
            Err(_) => {
                return Err(failure(
                    uri,
                    format!("timed out with {done} of {total} messages acknowledged"),
                ));
            }
        }
    }
    let client = publisher
        .join()
        .map_err(|_| failure(uri, "the publisher stopped"))?
        .map_err(|e| failure(uri, e))?;
    let _ = client.disconnect();
    drain_until_disconnect(&mut connection);
    Ok(())
}

/// Drives the connection until the DISCONNECT asked for has gone out, so
/// that everything queued before it (publishes, ACKs) is written first.
fn drain_until_disconnect(connection: &mut rumqttc::Connection) {
    for _ in 0..16 {
        match connection.recv_timeout(Duration::from_millis(500)) {
            Ok(Ok(Event::Outgoing(Outgoing::Disconnect))) | Ok(Err(_)) | Err(_) => break,
            Ok(Ok(_)) => {}
        }
    }
}

/// How a subscription ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    /// `count` messages arrived.
    Count,
    /// The timeout passed first.
    Timeout,
}

/// Subscribes to `filters` and hands each message to `on_message` until
/// `count` messages arrived or `timeout` passed. `on_subscribed` runs once
/// the broker has confirmed the subscription. A (topic, payload) that
/// `on_message` returns is published in answer (an ACK).
pub fn subscribe(
    uri: &MqttUri,
    filters: &[String],
    level: u8,
    count: Option<usize>,
    timeout: Option<Duration>,
    mut on_subscribed: impl FnMut(),
    mut on_message: impl FnMut(&str, &[u8]) -> std::io::Result<Option<(String, Vec<u8>)>>,
) -> Result<Ended, TransportError> {
    let (client, mut connection) = Client::new(uri.options("sub"), 64);
    for filter in filters {
        client
            .subscribe(filter.clone(), qos(level))
            .map_err(|e| failure(uri, e))?;
    }
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut received = 0;
    let mut acked = 0;
    loop {
        let wait = deadline.map_or(Duration::from_secs(3600), |d| {
            d.saturating_duration_since(Instant::now())
        });
        match connection.recv_timeout(wait) {
            Ok(Ok(Event::Incoming(Packet::ConnAck(ack)))) if refused(&ack) => {
                return Err(refusal(uri, &ack));
            }
            Ok(Ok(Event::Incoming(Packet::SubAck(_)))) => {
                acked += 1;
                if acked == filters.len() {
                    on_subscribed();
                }
            }
            Ok(Ok(Event::Incoming(Packet::Publish(p)))) => {
                let answer = on_message(&p.topic, &p.payload).map_err(|e| TransportError::Io {
                    path: "<stdout>".into(),
                    source: e,
                })?;
                if let Some((topic, payload)) = answer {
                    client
                        .publish(topic, qos(level), false, payload)
                        .map_err(|e| failure(uri, e))?;
                }
                received += 1;
                if count.is_some_and(|c| received >= c) {
                    let _ = client.disconnect();
                    drain_until_disconnect(&mut connection);
                    return Ok(Ended::Count);
                }
            }
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(failure(uri, e)),
            Err(_) if deadline.is_some_and(|d| Instant::now() >= d) => return Ok(Ended::Timeout),
            Err(_) => {}
        }
    }
}

/// Request/response: subscribes to `reply_filter`, publishes `payload` on
/// `topic` once the subscription stands, and returns the first reply that
/// `is_reply` accepts; `None` when `timeout` passes first.
pub fn request(
    uri: &MqttUri,
    topic: &str,
    payload: Vec<u8>,
    reply_filter: &str,
    level: u8,
    timeout: Duration,
    is_reply: impl Fn(&[u8]) -> bool,
) -> Result<Option<(String, Vec<u8>)>, TransportError> {
    let (client, mut connection) = Client::new(uri.options("req"), 64);
    client
        .subscribe(reply_filter.to_string(), qos(level))
        .map_err(|e| failure(uri, e))?;
    let deadline = Instant::now() + timeout;
    let mut payload = Some(payload);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match connection.recv_timeout(left) {
            Ok(Ok(Event::Incoming(Packet::ConnAck(ack)))) if refused(&ack) => {
                return Err(refusal(uri, &ack));
            }
            Ok(Ok(Event::Incoming(Packet::SubAck(_)))) => {
                if let Some(p) = payload.take() {
                    client
                        .publish(topic.to_string(), qos(level), false, p)
                        .map_err(|e| failure(uri, e))?;
                }
            }
            Ok(Ok(Event::Incoming(Packet::Publish(p)))) if is_reply(&p.payload) => {
                let _ = client.disconnect();
                return Ok(Some((p.topic.clone(), p.payload.to_vec())));
            }
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(failure(uri, e)),
            Err(_) => return Ok(None),
        }
    }
}

/// Runs an MQTT 3.1.1 broker on `listen` in this process; blocks.
pub fn run_broker(listen: SocketAddr) -> Result<(), String> {
    use rumqttd::{Broker, Config, ConnectionSettings, RouterConfig, ServerSettings};
    let connections = ConnectionSettings {
        connection_timeout_ms: 60_000,
        max_payload_size: 16 * 1024 * 1024,
        max_inflight_count: 1000,
        auth: None,
        external_auth: None,
        dynamic_filters: true,
    };
    let server = ServerSettings {
        name: "v4".into(),
        listen,
        tls: None,
        next_connection_delay_ms: 1,
        connections,
    };
    let router = RouterConfig {
        // rumqttd's default of 0 connections refuses everyone.
        max_connections: 10_000,
        max_outgoing_packet_count: 1000,
        max_segment_size: 100 * 1024 * 1024,
        max_segment_count: 10,
        ..RouterConfig::default()
    };
    let config = Config {
        id: 0,
        router,
        v4: Some(HashMap::from([("v4".to_string(), server)])),
        ..Config::default()
    };
    Broker::new(config).start().map_err(|e| e.to_string())
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
