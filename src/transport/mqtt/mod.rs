//! MQTT: publishing messages and subscribing to topic filters with
//! rumqttc, over MQTT 3.1.1 or 5; the embedded broker is [`super::broker`].

mod client;
mod link;
mod polling;
mod publish;
mod subscribe;

use std::time::{Duration, SystemTime};

pub use client::Version;

use super::TransportError;
use super::{Ended, Listen, OnArrival, Outgoing, Properties, Publication, Routing, Transport};

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
    publisher: Option<publish::Publisher>,
}

impl MqttTransport {
    pub fn new(uri: MqttUri, settings: super::Settings) -> MqttTransport {
        MqttTransport {
            uri,
            settings,
            publisher: None,
        }
    }

    /// How to connect; `session` (a client id) asks for a persistent
    /// session: the broker keeps the subscriptions and queues QoS 1/2
    /// messages while the client is away.
    fn options(&self, role: &str) -> Result<client::Options, TransportError> {
        let session = &self.settings.session;
        let uri = &self.uri;
        let credentials = match &uri.credentials {
            Some(c) => Some(c.clone()),
            None => super::secrets::for_host(&uri.host)
                .map_err(TransportError::Credentials)?
                .map(|c| (c.user, c.password)),
        };
        let tls = if uri.tls {
            let config = super::tls::client_config(self.settings.ca_file.as_deref())
                .map_err(|why| failure(uri, why))?;
            Some(std::sync::Arc::new(config))
        } else {
            None
        };
        Ok(client::Options {
            client_id: session
                .clone()
                .unwrap_or_else(|| format!("aiproto-{role}-{}", &crate::ids::new_ulid()[16..])),
            host: uri.host.clone(),
            port: uri.port,
            persistent: session.is_some(),
            // Mosquitto 2.0 takes 20 QoS 2 messages in flight from a client
            // (its max_inflight_messages) and silently drops the ones past
            // them while still completing their handshake: 478 of 1,000
            // were lost with rumqttc's default of 100. Its own clients send 20.
            inflight: (self.settings.qos == 2).then_some(INFLIGHT_QOS_2),
            credentials,
            tls,
            manual_acks: false,
            keep_alive: client::KEEP_ALIVE,
        })
    }

    /// The client and connection of one role (`pub`, `sub`).
    fn open(
        &self,
        role: &str,
        cap: usize,
    ) -> Result<(client::Client, client::Connection), TransportError> {
        Ok(client::open(
            self.options(role)?,
            self.settings.mqtt_version,
            cap,
        ))
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

    /// A message as published: its topic, its text, and what MQTT 5
    /// carries beside it (the expiry counted from now).
    pub fn publication(&self, message: &Outgoing) -> Result<Publication, TransportError> {
        // The message as it is, without the line end that ends it on a
        // terminal (subscribers would print a blank line).
        let text = message.text.strip_suffix('\n').unwrap_or(&message.text);
        let routing = &message.routing;
        Ok(Publication {
            topic: self.topic_for(routing)?,
            payload: text.as_bytes().to_vec(),
            properties: Properties {
                content_type: Some(message.content_type().to_string()),
                expiry_seconds: routing.expires_at.map(expiry_seconds),
                response_topic: routing.response_topic.clone(),
                correlation_data: routing.correlation.as_ref().map(|c| c.as_bytes().to_vec()),
            },
        })
    }
}

/// The seconds left until `at`, at least 1 (a message already past its
/// time is still published, and the broker drops it for anyone not
/// subscribed at once), at most MQTT's four bytes.
fn expiry_seconds(at: SystemTime) -> u32 {
    let left = at
        .duration_since(SystemTime::now())
        .unwrap_or_default()
        .as_secs();
    left.clamp(1, u64::from(u32::MAX)) as u32
}

impl Transport for MqttTransport {
    /// Publishes every message over one connection, and returns once the
    /// broker has acknowledged each (QoS 1 and 2) or it is written (QoS 0).
    fn send(
        &mut self,
        messages: &[Outgoing],
        _on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError> {
        let items = messages
            .iter()
            .map(|m| self.publication(m))
            .collect::<Result<Vec<_>, _>>()?;
        publish::publish(self, items, Duration::from_secs(60))
    }

    /// Waits for the broker to acknowledge what is still on its way, then
    /// disconnects the publishing connection cleanly, if there is one.
    fn finish(&mut self) -> Result<(), TransportError> {
        publish::finish_publishing(self, Duration::from_secs(60))?;
        if let Some(p) = self.publisher.take() {
            p.close();
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
        subscribe::subscribe(self, &filters, listen, on_arrival)
    }
}

/// The refusal of a connection, with what the user can do about it.
fn refusal(uri: &MqttUri, version: Version, why: &str) -> TransportError {
    let hint = match (version, why) {
        (Version::V5, "UnsupportedProtocolVersion") => {
            " (this broker does not speak MQTT 5, as aiproto's built-in broker does not: connect with --mqtt-version 3.1.1)"
        }
        (Version::V3_1_1, "RefusedProtocolVersion") => {
            " (this broker does not take MQTT 3.1.1: try --mqtt-version 5)"
        }
        _ => "",
    };
    failure(
        uri,
        format!("the broker refused the connection: {why}{hint}"),
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

/// QoS 2 messages in flight at once, as Mosquitto's clients send them.
const INFLIGHT_QOS_2: u16 = 20;
/// The longest wait between two reconnection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

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

    #[test]
    fn an_expiry_is_the_seconds_left_and_never_zero() {
        let now = SystemTime::now();
        assert_eq!(expiry_seconds(now - Duration::from_secs(60)), 1);
        let left = expiry_seconds(now + Duration::from_secs(3600));
        assert!((3598..=3600).contains(&left), "{left}");
        let far = now + Duration::from_secs(u64::from(u32::MAX) * 2);
        assert_eq!(expiry_seconds(far), u32::MAX);
    }
}
