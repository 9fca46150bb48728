//! What a worker of a share group had not acknowledged when its
//! connection ended, given back to the group.
//!
//! The broker's core drops the messages in flight to a client whose clean
//! session ends: a worker killed in the middle of its tasks lost them. The
//! front sees every QoS 1 and 2 PUBLISH going to a client and every
//! PUBACK or PUBREC coming back, so it knows which are unacknowledged; when
//! such a client goes, those whose topic one of its `$share/GROUP/FILTER`
//! subscriptions matches are published again, and the group gives each to
//! another member. MQTT 5 asks this of a server (§4.8.2: "the Server SHOULD
//! send the Application Message to another Client that is subscribed to
//! the same Shared Subscription"). A plain subscriber of the same topic
//! gets such a message twice: at least once, as QoS 1 promises.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::BytesMut;
use rumqttc::mqttbytes::QoS;
use rumqttc::mqttbytes::v4::{Connect, Login, Packet, PubAck, Publish};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::acl::{covers, shared_filter};

/// How long the core is given to forget the client that went (its share
/// groups without it) before its messages are published again.
const SETTLE: Duration = Duration::from_millis(200);

/// How long the core may take to acknowledge what is published again.
const ACKNOWLEDGED_WITHIN: Duration = Duration::from_secs(10);

/// The QoS 1 and 2 messages sent to one client and not acknowledged yet,
/// and the filters of its shared subscriptions.
#[derive(Debug, Default)]
pub struct Outstanding {
    /// By packet id: the PUBLISH as the core sent it.
    unacknowledged: BTreeMap<u16, Vec<u8>>,
    shared: Vec<String>,
}

impl Outstanding {
    /// A packet from the core to the client: a QoS 1 or 2 PUBLISH to a
    /// member of a share group is kept until the client acknowledges it
    /// (no copy for a client outside every group: nothing would go back).
    pub fn sent(&mut self, packet: &[u8]) {
        let Some(&first) = packet.first() else { return };
        if self.shared.is_empty() || first >> 4 != 3 || (first >> 1) & 3 == 0 {
            return;
        }
        if let Some(pkid) = publish_pkid(packet) {
            self.unacknowledged.insert(pkid, packet.to_vec());
        }
    }

    /// A packet from the client: a PUBACK (QoS 1) or PUBREC (QoS 2) ends
    /// what the front keeps of that message; a SUBSCRIBE to
    /// `$share/GROUP/FILTER` names a filter whose messages go back to the
    /// group.
    pub fn received(&mut self, packet: &[u8]) {
        match packet.first().map(|b| b >> 4) {
            Some(4 | 5) if packet.len() >= 4 => {
                self.unacknowledged
                    .remove(&u16::from_be_bytes([packet[2], packet[3]]));
            }
            Some(8) => {
                if let Ok(Packet::Subscribe(subscribe)) =
                    Packet::read(&mut BytesMut::from(packet), usize::MAX)
                {
                    for f in subscribe.filters {
                        let inner = shared_filter(&f.path);
                        if inner != f.path && !self.shared.iter().any(|s| s == inner) {
                            self.shared.push(inner.to_string());
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The unacknowledged messages a share group of the client should get
    /// again, oldest packet id first.
    pub fn for_the_groups(self) -> Vec<Publish> {
        if self.shared.is_empty() {
            return Vec::new();
        }
        self.unacknowledged
            .into_values()
            .filter_map(
                |packet| match Packet::read(&mut BytesMut::from(&packet[..]), usize::MAX) {
                    Ok(Packet::Publish(publish)) => Some(publish),
                    _ => None,
                },
            )
            .filter(|publish| self.shared.iter().any(|f| covers(f, &publish.topic)))
            .collect()
    }
}

/// A PUBLISH's packet id: after its fixed header and its topic.
fn publish_pkid(packet: &[u8]) -> Option<u16> {
    let header = 1 + packet[1..].iter().position(|b| b & 0x80 == 0)? + 1;
    let topic_len = u16::from_be_bytes([*packet.get(header)?, *packet.get(header + 1)?]) as usize;
    let at = header + 2 + topic_len;
    Some(u16::from_be_bytes([*packet.get(at)?, *packet.get(at + 1)?]))
}

/// Publishes `messages` again through the core at `upstream`, logged in
/// with the front's own account: how many the core acknowledged.
pub async fn publish_again(
    upstream: SocketAddr,
    internal: &(String, String),
    messages: Vec<Publish>,
) -> std::io::Result<usize> {
    tokio::time::sleep(SETTLE).await;
    let mut core = TcpStream::connect(upstream).await?;
    let mut connect = Connect::new(format!("front-again-{}", &crate::ids::new_ulid()[16..]));
    connect.login = Some(Login::new(&internal.0, &internal.1));
    connect.clean_session = true;
    write(&mut core, Packet::Connect(connect)).await?;
    let mut reader = BytesMut::new();
    let connack = next(&mut core, &mut reader).await?;
    if !matches!(connack, Packet::ConnAck(ref ack) if ack.code == rumqttc::mqttbytes::v4::ConnectReturnCode::Success)
    {
        return Err(std::io::Error::other("the core refused the front's login"));
    }
    let total = messages.len();
    for (n, mut publish) in messages.into_iter().enumerate() {
        publish.dup = false;
        publish.retain = false;
        // At least once: a QoS 2 message goes again at QoS 1.
        publish.qos = QoS::AtLeastOnce;
        publish.pkid = u16::try_from(n + 1).unwrap_or(u16::MAX);
        write(&mut core, Packet::Publish(publish)).await?;
    }
    let mut acknowledged = 0;
    let deadline = tokio::time::Instant::now() + ACKNOWLEDGED_WITHIN;
    while acknowledged < total {
        match tokio::time::timeout_at(deadline, next(&mut core, &mut reader)).await {
            Ok(Ok(Packet::PubAck(PubAck { .. }))) => acknowledged += 1,
            Ok(Ok(_)) => {}
            Ok(Err(_)) | Err(_) => break,
        }
    }
    let _ = core.write_all(&[0xe0, 0x00]).await;
    Ok(acknowledged)
}

async fn write(core: &mut TcpStream, packet: Packet) -> std::io::Result<()> {
    let mut out = BytesMut::new();
    packet
        .write(&mut out, usize::MAX)
        .map_err(|e| std::io::Error::other(format!("{e:?}")))?;
    core.write_all(&out).await
}

async fn next(core: &mut TcpStream, buffer: &mut BytesMut) -> std::io::Result<Packet> {
    use tokio::io::AsyncReadExt;
    loop {
        match Packet::read(buffer, usize::MAX) {
            Ok(packet) => return Ok(packet),
            Err(rumqttc::mqttbytes::Error::InsufficientBytes(_)) => {}
            Err(e) => return Err(std::io::Error::other(format!("{e:?}"))),
        }
        if core.read_buf(buffer).await? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn publish(topic: &str, pkid: u16, qos: QoS) -> Vec<u8> {
        let mut p = Publish::new(topic, qos, "task");
        p.pkid = pkid;
        let mut out = BytesMut::new();
        Packet::Publish(p).write(&mut out, usize::MAX).unwrap();
        out.to_vec()
    }

    #[test]
    fn what_a_worker_did_not_acknowledge_goes_back_to_its_group() {
        let mut o = Outstanding::default();
        let mut subscribe = BytesMut::new();
        Packet::Subscribe(rumqttc::mqttbytes::v4::Subscribe::new(
            "$share/workers/pool/+",
            QoS::AtLeastOnce,
        ))
        .write(&mut subscribe, usize::MAX)
        .unwrap();
        o.received(&subscribe);
        o.sent(&publish("pool/a", 1, QoS::AtLeastOnce));
        o.sent(&publish("pool/b", 2, QoS::AtLeastOnce));
        o.sent(&publish("elsewhere", 3, QoS::AtLeastOnce));
        o.sent(&publish("pool/c", 0, QoS::AtMostOnce));
        o.received(&[0x40, 0x02, 0x00, 0x01]);
        let again: Vec<String> = o.for_the_groups().into_iter().map(|p| p.topic).collect();
        assert_eq!(
            again,
            ["pool/b"],
            "acknowledged, QoS 0 and unshared left out"
        );
    }

    #[test]
    fn a_client_without_shared_subscriptions_gives_nothing_back_and_costs_no_copy() {
        let mut o = Outstanding::default();
        o.sent(&publish("pool/a", 1, QoS::AtLeastOnce));
        assert!(o.unacknowledged.is_empty());
        assert!(o.for_the_groups().is_empty());
    }
}
