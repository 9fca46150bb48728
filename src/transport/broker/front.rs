//! The built-in broker's front door: every client connects here, not to
//! rumqttd. It reads the CONNECT (refusing MQTT 5 and 3.1 clients with the
//! CONNACK their version understands, and a wrong account with "not
//! authorised"), then passes packets both ways, judging each SUBSCRIBE and
//! PUBLISH by the ACL. Each refusal is said on stderr.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::BytesMut;
use rumqttc::mqttbytes::QoS;
use rumqttc::mqttbytes::v4::{Login, Packet, SubAck, Subscribe, SubscribeReasonCode};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use super::acl::Acl;
use super::budget::{Budget, publish_parts};
use super::passwd::Passwords;
use super::redeliver::{Outstanding, publish_again};
use crate::transport::admission::Ticket;

/// What every connection is judged by, and where rumqttd listens.
pub struct Policy {
    pub passwords: Option<Passwords>,
    pub acl: Option<Acl>,
    /// rumqttd's loopback port, and the account only this front knows.
    pub upstream: SocketAddr,
    pub internal: (String, String),
    /// The largest packet a client may send.
    pub max_packet: usize,
    /// What a PUBLISH the ACL refuses, or --max-memory cannot take, gets.
    pub denied_publish: DeniedPublish,
    /// What the core holds for subscribers, across all filters.
    pub budget: Mutex<Budget>,
    pub quiet: bool,
}

/// What the broker does with a PUBLISH its ACL does not allow. MQTT 3.1.1
/// gives a server two ways (§3.3.5): acknowledge it as usual and drop it,
/// or close the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeniedPublish {
    /// Close the client's connection: the publisher learns that its
    /// message went nowhere (aiproto's clients say so and stop). HiveMQ's
    /// way, and EMQX's `disconnect`.
    Disconnect,
    /// Acknowledge and drop: the publisher believes it delivered.
    /// Mosquitto's way.
    Ignore,
}

impl Policy {
    fn say(&self, what: std::fmt::Arguments<'_>) {
        if !self.quiet {
            eprintln!("aiproto broker: {what}");
        }
    }
}

/// CONNACK return codes of MQTT 3.1.1 (and, for a 5 client, its reason code).
const UNACCEPTABLE_VERSION: [u8; 4] = [0x20, 0x02, 0x00, 0x01];
const UNSUPPORTED_VERSION_V5: [u8; 5] = [0x20, 0x03, 0x00, 0x84, 0x00];
const BAD_CREDENTIALS: [u8; 4] = [0x20, 0x02, 0x00, 0x04];
const NOT_AUTHORISED: [u8; 4] = [0x20, 0x02, 0x00, 0x05];
const SERVER_UNAVAILABLE: [u8; 4] = [0x20, 0x02, 0x00, 0x03];

/// How long a client has, from its TCP connection, to log in.
pub const CONNECT_WITHIN: Duration = Duration::from_secs(10);

/// The largest CONNECT MQTT 3.1.1 allows: a 10-byte variable header and
/// five fields of at most 65,535 bytes (client id, will topic, will
/// message, account, password), each after its 2-byte length.
const MAX_CONNECT: usize = 5 + 10 + 5 * (2 + 65_535);

/// Serves one client until it or rumqttd closes the connection. `ticket`
/// holds its place among the connections; it has until `deadline` to log in.
pub async fn serve<S>(
    stream: S,
    peer: SocketAddr,
    policy: Arc<Policy>,
    mut ticket: Ticket,
    deadline: tokio::time::Instant,
) where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let (mut from_client, mut to_client) = tokio::io::split(stream);
    // Before its login a client is a stranger: it gets until `deadline`
    // (counted from its TCP connection, the TLS handshake included) and
    // the bytes a CONNECT can hold, taken as they arrive.
    let first = tokio::time::timeout_at(
        deadline,
        read_packet(&mut from_client, policy.max_packet.min(MAX_CONNECT)),
    )
    .await;
    let connect = match first {
        Ok(Ok(Some(connect))) => connect,
        Ok(Err(e)) => {
            policy.say(format_args!("{peer}: closed before its login: {e}"));
            return;
        }
        Ok(Ok(None)) => return,
        Err(_) => {
            policy.say(format_args!(
                "{peer}: closed, no CONNECT within {} s of connecting",
                CONNECT_WITHIN.as_secs()
            ));
            return;
        }
    };
    let session = match admit(&connect, peer, &policy) {
        Ok(session) => session,
        Err(refusal) => {
            let _ = to_client.write_all(&refusal).await;
            let _ = to_client.shutdown().await;
            return;
        }
    };
    // Logged in: one of the --max-connections places, or "server unavailable".
    if !ticket.start() {
        policy.say(format_args!(
            "{}: refused, the broker holds --max-connections clients already",
            session.who
        ));
        let _ = to_client.write_all(&SERVER_UNAVAILABLE).await;
        let _ = to_client.shutdown().await;
        return;
    }
    let Ok(upstream) = TcpStream::connect(policy.upstream).await else {
        policy.say(format_args!("{peer}: the broker's core is not reachable"));
        return;
    };
    let _ = upstream.set_nodelay(true);
    let (mut from_core, mut to_core) = upstream.into_split();
    if to_core.write_all(&session.connect).await.is_err() {
        return;
    }
    // Packets for the client; an empty one closes its connection (the
    // broker's core closed its side: a session taken over, a protocol error).
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(256);
    let writer = tokio::spawn(async move {
        while let Some(packet) = rx.recv().await {
            if packet.is_empty() || to_client.write_all(&packet).await.is_err() {
                break;
            }
        }
        let _ = to_client.shutdown().await;
    });
    // SUBSCRIBEs passed on in part: their SUBACK gets back the refusals.
    let partial: Arc<Mutex<HashMap<u16, Vec<bool>>>> = Arc::default();
    // What the client has not acknowledged, for its share groups if it goes.
    let outstanding: Arc<Mutex<Outstanding>> = Arc::default();
    let down = {
        let tx = tx.clone();
        let partial = partial.clone();
        let outstanding = outstanding.clone();
        let max = usize::MAX;
        tokio::spawn(async move {
            while let Ok(Some(packet)) = read_packet(&mut from_core, max).await {
                if let Ok(mut outstanding) = outstanding.lock() {
                    outstanding.sent(&packet);
                }
                let packet = merge_suback(packet, &partial);
                if tx.send(packet).await.is_err() {
                    return;
                }
            }
            let _ = tx.send(Vec::new()).await;
        })
    };
    let mut judge = Judge {
        policy: &policy,
        session: &session,
        refused_qos2: HashSet::new(),
        said: HashSet::new(),
    };
    loop {
        let packet = match read_packet(&mut from_client, policy.max_packet).await {
            Ok(Some(packet)) => packet,
            Ok(None) => break,
            Err(e) => {
                policy.say(format_args!("{}: {e}; disconnected", session.who));
                break;
            }
        };
        if let Ok(mut outstanding) = outstanding.lock() {
            outstanding.received(&packet);
        }
        let (forward, reply) = judge.packet(packet, &partial);
        if let Some(reply) = reply {
            // An empty reply closes the client's connection.
            let close = reply.is_empty();
            if tx.send(reply).await.is_err() || close {
                break;
            }
        }
        if let Some(packet) = forward
            && to_core.write_all(&packet).await.is_err()
        {
            break;
        }
    }
    let _ = to_core.shutdown().await;
    down.abort();
    drop(tx);
    let _ = writer.await;
    let again = std::mem::take(&mut *outstanding.lock().unwrap_or_else(|e| e.into_inner()))
        .for_the_groups();
    if !again.is_empty() {
        let count = again.len();
        match publish_again(policy.upstream, &policy.internal, again).await {
            Ok(n) => policy.say(format_args!(
                "{}: gone with {count} message(s) of its share group(s) unacknowledged: {n} given back to the group(s)",
                session.who
            )),
            Err(e) => policy.say(format_args!(
                "{}: gone with {count} message(s) of its share group(s) unacknowledged, not given back: {e}",
                session.who
            )),
        }
    }
}

/// An admitted client: its account, client id, and the CONNECT to pass on.
struct Session {
    user: Option<String>,
    client: String,
    /// For messages: `client X (account Y) from PEER`.
    who: String,
    connect: Vec<u8>,
}

/// Reads a CONNECT: the client admitted, or the CONNACK refusing it.
fn admit(packet: &[u8], peer: SocketAddr, policy: &Policy) -> Result<Session, Vec<u8>> {
    let level = protocol_level(packet);
    if level != Some(4) {
        let (name, refusal) = match level {
            Some(5) => ("MQTT 5", UNSUPPORTED_VERSION_V5.to_vec()),
            Some(3) => ("MQTT 3.1", UNACCEPTABLE_VERSION.to_vec()),
            _ => ("not an MQTT CONNECT", UNACCEPTABLE_VERSION.to_vec()),
        };
        policy.say(format_args!(
            "{peer}: refused, {name}: this broker speaks MQTT 3.1.1 (for MQTT 5, run Mosquitto)"
        ));
        return Err(refusal);
    }
    let Ok(Packet::Connect(mut connect)) = Packet::read(&mut BytesMut::from(packet), usize::MAX)
    else {
        policy.say(format_args!(
            "{peer}: refused, a CONNECT that cannot be read"
        ));
        return Err(UNACCEPTABLE_VERSION.to_vec());
    };
    let client = connect.client_id.clone();
    let user = match (&policy.passwords, &connect.login) {
        (Some(accounts), Some(login)) if accounts.verify(&login.username, &login.password) => {
            Some(login.username.clone())
        }
        (Some(_), Some(login)) => {
            policy.say(format_args!(
                "{peer}: refused client `{client}`: wrong password or unknown account `{}`",
                login.username
            ));
            return Err(BAD_CREDENTIALS.to_vec());
        }
        (Some(_), None) => {
            policy.say(format_args!(
                "{peer}: refused client `{client}`: no account given, and this broker has accounts"
            ));
            return Err(NOT_AUTHORISED.to_vec());
        }
        (None, _) => None,
    };
    let who = match &user {
        Some(user) => format!("client `{client}` (account `{user}`) from {peer}"),
        None => format!("client `{client}` from {peer}"),
    };
    if let (Some(acl), Some(will)) = (&policy.acl, &connect.last_will)
        && !acl.may_publish(user.as_deref(), &client, &will.topic)
    {
        policy.say(format_args!(
            "{who}: refused, its will's topic `{}` is not one it may publish to",
            will.topic
        ));
        return Err(NOT_AUTHORISED.to_vec());
    }
    // Sessions are per account: another account's client with the same
    // id cannot take this one's session (and its queued messages) over.
    // (An empty id is the broker's to choose: each such client is new.)
    if let Some(user) = user.as_ref().filter(|_| !client.is_empty()) {
        connect.client_id = format!("{user}:{client}");
    }
    connect.login = Some(Login::new(&policy.internal.0, &policy.internal.1));
    let mut out = BytesMut::new();
    Packet::Connect(connect)
        .write(&mut out, usize::MAX)
        .map_err(|_| UNACCEPTABLE_VERSION.to_vec())?;
    Ok(Session {
        user,
        client,
        who,
        connect: out.to_vec(),
    })
}

/// The protocol level byte of a CONNECT packet (4: 3.1.1, 5: MQTT 5, 3: 3.1).
fn protocol_level(packet: &[u8]) -> Option<u8> {
    if packet.first()? >> 4 != 1 {
        return None;
    }
    let header = 1 + packet[1..].iter().position(|b| b & 0x80 == 0)? + 1;
    let name_len = u16::from_be_bytes([*packet.get(header)?, *packet.get(header + 1)?]) as usize;
    packet.get(header + 2 + name_len).copied()
}

/// Judges the packets one client sends.
struct Judge<'a> {
    policy: &'a Policy,
    session: &'a Session,
    /// QoS 2 PUBLISHes refused (answered PUBREC here): their PUBREL is
    /// answered here too.
    refused_qos2: HashSet<u16>,
    /// Refusals said already (a publisher refused in a loop is said once).
    said: HashSet<String>,
}

impl Judge<'_> {
    /// What to pass on to rumqttd, and what to answer the client.
    fn packet(
        &mut self,
        packet: Vec<u8>,
        partial: &Mutex<HashMap<u16, Vec<bool>>>,
    ) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        let user = self.session.user.as_deref();
        let client = self.session.client.as_str();
        let acl = self.policy.acl.as_ref();
        match packet[0] >> 4 {
            3 => {
                // Read in place: a publish passed on is never copied here.
                let Some((topic, retain, size)) = publish_parts(&packet) else {
                    return (Some(packet), None);
                };
                if acl.is_some_and(|acl| !acl.may_publish(user, client, topic)) {
                    self.refused(format!("publish to `{topic}`"));
                } else {
                    let kept = self
                        .policy
                        .budget
                        .lock()
                        .map(|mut b| b.publish(topic, size, retain));
                    let Ok(Err(full)) = kept else {
                        return (Some(packet), None);
                    };
                    self.said_once(format!(
                        "refused a publish to `{topic}`: the broker holds {} of its --max-memory {} bytes for subscribers",
                        full.held, full.limit
                    ));
                }
                let Ok(Packet::Publish(publish)) =
                    Packet::read(&mut BytesMut::from(&packet[..]), usize::MAX)
                else {
                    return (None, None);
                };
                if self.policy.denied_publish == DeniedPublish::Disconnect {
                    self.policy.say(format_args!(
                        "{}: connection closed (--denied-publish disconnect): MQTT 3.1.1's way to refuse a publish",
                        self.session.who
                    ));
                    return (None, Some(Vec::new()));
                }
                let [hi, lo] = publish.pkid.to_be_bytes();
                match publish.qos {
                    QoS::AtMostOnce => (None, None),
                    QoS::AtLeastOnce => (None, Some(vec![0x40, 0x02, hi, lo])),
                    QoS::ExactlyOnce => {
                        self.refused_qos2.insert(publish.pkid);
                        (None, Some(vec![0x50, 0x02, hi, lo]))
                    }
                }
            }
            6 if packet.len() >= 4 => {
                let pkid = u16::from_be_bytes([packet[2], packet[3]]);
                if self.refused_qos2.remove(&pkid) {
                    let [hi, lo] = pkid.to_be_bytes();
                    (None, Some(vec![0x70, 0x02, hi, lo]))
                } else {
                    (Some(packet), None)
                }
            }
            8 => {
                let Ok(Packet::Subscribe(subscribe)) =
                    Packet::read(&mut BytesMut::from(&packet[..]), usize::MAX)
                else {
                    return (Some(packet), None);
                };
                let refused: Vec<bool> = subscribe
                    .filters
                    .iter()
                    .map(|f| {
                        if acl.is_some_and(|acl| !acl.may_subscribe(user, client, &f.path)) {
                            self.refused(format!("subscription to `{}`", f.path));
                            return true;
                        }
                        let full = self.policy.budget.lock().map(|mut b| b.subscribe(&f.path));
                        if let Ok(Err(full)) = full {
                            self.said_once(format!(
                                "refused a subscription to `{}`: the broker holds {} of its --max-memory {} bytes for subscribers",
                                f.path, full.held, full.limit
                            ));
                            return true;
                        }
                        false
                    })
                    .collect();
                if !refused.contains(&true) {
                    return (Some(packet), None);
                }
                if !refused.contains(&false) {
                    let codes = vec![SubscribeReasonCode::Failure; refused.len()];
                    return (
                        None,
                        Some(write(Packet::SubAck(SubAck::new(subscribe.pkid, codes)))),
                    );
                }
                let allowed = subscribe
                    .filters
                    .iter()
                    .zip(&refused)
                    .filter(|(_, r)| !**r)
                    .map(|(f, _)| f.clone())
                    .collect();
                if let Ok(mut partial) = partial.lock() {
                    partial.insert(subscribe.pkid, refused);
                }
                let part = Subscribe {
                    pkid: subscribe.pkid,
                    filters: allowed,
                };
                (Some(write(Packet::Subscribe(part))), None)
            }
            _ => (Some(packet), None),
        }
    }

    fn refused(&mut self, what: String) {
        self.said_once(format!("refused {what}: the ACL does not allow it"));
    }

    /// Says `what` of this client, once.
    fn said_once(&mut self, what: String) {
        if self.said.insert(what.clone()) {
            self.policy
                .say(format_args!("{}: {what}", self.session.who));
        }
    }
}

/// A SUBACK for a SUBSCRIBE passed on in part, with the refused filters
/// put back in their places as failures.
fn merge_suback(packet: Vec<u8>, partial: &Mutex<HashMap<u16, Vec<bool>>>) -> Vec<u8> {
    if packet.first().map(|b| b >> 4) != Some(9) || packet.len() < 4 {
        return packet;
    }
    let pkid = u16::from_be_bytes([packet[2], packet[3]]);
    let Some(refused) = partial.lock().ok().and_then(|mut p| p.remove(&pkid)) else {
        return packet;
    };
    let Ok(Packet::SubAck(ack)) = Packet::read(&mut BytesMut::from(&packet[..]), usize::MAX) else {
        return packet;
    };
    let mut granted = ack.return_codes.into_iter();
    let codes = refused
        .iter()
        .map(|r| {
            if *r {
                SubscribeReasonCode::Failure
            } else {
                granted.next().unwrap_or(SubscribeReasonCode::Failure)
            }
        })
        .collect();
    write(Packet::SubAck(SubAck::new(pkid, codes)))
}

fn write(packet: Packet) -> Vec<u8> {
    let mut out = BytesMut::new();
    // Packets built here from packets read are always writable.
    let _ = packet.write(&mut out, usize::MAX);
    out.to_vec()
}

/// Reads one whole MQTT packet (fixed header included); `None` at a clean
/// end of the stream.
async fn read_packet<R: AsyncRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut first = [0u8; 1];
    match reader.read_exact(&mut first).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let mut packet = vec![first[0]];
    let mut length = 0usize;
    for shift in [0, 7, 14, 21] {
        let byte = reader.read_u8().await?;
        packet.push(byte);
        length |= ((byte & 0x7f) as usize) << shift;
        if byte & 0x80 == 0 {
            break;
        }
        if shift == 21 {
            return Err(std::io::Error::other("a malformed packet length"));
        }
    }
    if length > max {
        return Err(std::io::Error::other(format!(
            "a packet of {length} bytes, over the {max} taken here (--max-packet, or the most a CONNECT holds)"
        )));
    }
    // Taken as it arrives: a length alone reserves nothing (60 headers
    // announcing 16 MiB each made the broker hold 1 GB before any login).
    let start = packet.len();
    (&mut *reader)
        .take(length as u64)
        .read_to_end(&mut packet)
        .await?;
    if packet.len() - start < length {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(Some(packet))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_protocol_level_is_read_from_the_connect() {
        let mut out = BytesMut::new();
        Packet::Connect(rumqttc::mqttbytes::v4::Connect::new("c"))
            .write(&mut out, usize::MAX)
            .unwrap();
        assert_eq!(protocol_level(&out), Some(4));
        let mut v5 = out.to_vec();
        v5[2 + 2 + 4] = 5;
        assert_eq!(protocol_level(&v5), Some(5));
        assert_eq!(protocol_level(&[0x30, 0x00]), None);
        assert_eq!(protocol_level(&[0x10]), None);
    }

    #[test]
    fn a_suback_gets_back_the_refused_filters() {
        let partial = Mutex::new(HashMap::from([(7u16, vec![true, false, true])]));
        let ack = write(Packet::SubAck(SubAck::new(
            7,
            vec![SubscribeReasonCode::Success(QoS::AtLeastOnce)],
        )));
        let merged = merge_suback(ack, &partial);
        let Ok(Packet::SubAck(ack)) = Packet::read(&mut BytesMut::from(&merged[..]), 1 << 20)
        else {
            panic!("not a SUBACK");
        };
        assert_eq!(
            ack.return_codes,
            vec![
                SubscribeReasonCode::Failure,
                SubscribeReasonCode::Success(QoS::AtLeastOnce),
                SubscribeReasonCode::Failure
            ]
        );
        assert!(partial.lock().unwrap().is_empty());
    }
}
