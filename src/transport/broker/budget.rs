//! The built-in broker's memory cap across all topic filters
//! (`--max-memory`): what its core holds for subscribers, counted from the
//! packets the front passes on, so that a publish the total cannot take is
//! refused before the core keeps it.
//!
//! The core (rumqttd) keeps one log per topic filter ever subscribed (it
//! never forgets a filter) and appends every matching PUBLISH to it until
//! the log's own cap (`--max-queued-bytes`), read or not; a retained
//! message is kept per topic until replaced or cleared. So what it holds is
//! at most, over the filters, the smaller of what was appended and the
//! log's cap, plus the retained messages: that sum is what is counted here.

use std::collections::HashMap;

use super::acl::{covers, shared_filter};

/// What a new filter costs the core beyond its messages (its log, its
/// index entries), counted so that a million empty filters are not free.
const FILTER_COST: u64 = 1024;

/// Why a packet does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full {
    /// What the broker holds, and its cap, in bytes.
    pub held: u64,
    pub limit: u64,
}

/// What the core holds, as counted; one for the whole broker.
#[derive(Debug)]
pub struct Budget {
    limit: u64,
    /// The most one filter's log holds.
    per_filter: u64,
    /// Each filter ever subscribed: what its log holds.
    filters: HashMap<String, u64>,
    /// Each topic with a retained message: its size.
    retained: HashMap<String, u64>,
    held: u64,
}

impl Budget {
    pub fn new(limit: u64, per_filter: u64) -> Self {
        Budget {
            limit,
            per_filter,
            filters: HashMap::new(),
            retained: HashMap::new(),
            held: 0,
        }
    }

    /// Takes a subscription to `filter` (for `$share/GROUP/F`, the core's
    /// log is F's): a filter the core holds already costs nothing more.
    pub fn subscribe(&mut self, filter: &str) -> Result<(), Full> {
        let filter = shared_filter(filter);
        if self.filters.contains_key(filter) {
            return Ok(());
        }
        let cost = FILTER_COST + filter.len() as u64;
        self.fits(cost)?;
        self.held += cost;
        self.filters.insert(filter.to_owned(), 0);
        Ok(())
    }

    /// Takes a PUBLISH of `size` bytes (topic and payload) to `topic`, to
    /// be kept by every filter that matches it and, when `retain`, as the
    /// topic's retained message (an empty payload clears it). Nothing is
    /// counted when it does not fit.
    pub fn publish(&mut self, topic: &str, size: u64, retain: Option<bool>) -> Result<(), Full> {
        let per_filter = self.per_filter;
        let grows = |held: u64| size.min(per_filter.saturating_sub(held));
        let logs: u64 = self
            .filters
            .iter()
            .filter(|(filter, _)| covers(filter, topic))
            .map(|(_, held)| grows(*held))
            .sum();
        let before = self.retained.get(topic).copied().unwrap_or(0);
        let after = match retain {
            Some(true) => size,
            Some(false) => 0,
            None => before,
        };
        let added = logs + after.saturating_sub(before);
        if added > 0 {
            self.fits(added)?;
        }
        for (filter, held) in &mut self.filters {
            if covers(filter, topic) {
                *held += grows(*held);
            }
        }
        self.held = self.held + logs + after - before;
        match after {
            0 => self.retained.remove(topic),
            _ => self.retained.insert(topic.to_owned(), after),
        };
        Ok(())
    }

    fn fits(&self, more: u64) -> Result<(), Full> {
        if self.held.saturating_add(more) > self.limit {
            return Err(Full {
                held: self.held,
                limit: self.limit,
            });
        }
        Ok(())
    }
}

/// A PUBLISH's topic, whether it is retained (`Some(true)` with a payload,
/// `Some(false)` clearing the topic's retained message, `None` not
/// retained), and its size as the core keeps it: read from the packet's
/// bytes without copying them.
pub fn publish_parts(packet: &[u8]) -> Option<(&str, Option<bool>, u64)> {
    let flags = *packet.first()?;
    let header = 1 + packet.get(1..)?.iter().position(|b| b & 0x80 == 0)? + 1;
    let topic_len = u16::from_be_bytes([*packet.get(header)?, *packet.get(header + 1)?]) as usize;
    let topic = std::str::from_utf8(packet.get(header + 2..header + 2 + topic_len)?).ok()?;
    let qos = (flags >> 1) & 0b11;
    let payload_at = header + 2 + topic_len + if qos > 0 { 2 } else { 0 };
    let payload = packet.len().checked_sub(payload_at)? as u64;
    let retain = (flags & 1 == 1).then_some(payload > 0);
    Some((topic, retain, topic_len as u64 + payload))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::{Bytes, BytesMut};
    use rumqttc::mqttbytes::QoS;
    use rumqttc::mqttbytes::v4::{Packet, Publish};

    fn packet(topic: &str, payload: &[u8], qos: QoS, retain: bool) -> Vec<u8> {
        let mut publish = Publish::from_bytes(topic, qos, Bytes::copy_from_slice(payload));
        publish.retain = retain;
        publish.pkid = if qos == QoS::AtMostOnce { 0 } else { 7 };
        let mut out = BytesMut::new();
        Packet::Publish(publish)
            .write(&mut out, usize::MAX)
            .unwrap();
        out.to_vec()
    }

    #[test]
    fn a_publish_is_read_without_copying_at_every_qos() {
        for qos in [QoS::AtMostOnce, QoS::AtLeastOnce, QoS::ExactlyOnce] {
            let bytes = packet("a/b", &[1; 300], qos, false);
            assert_eq!(publish_parts(&bytes), Some(("a/b", None, 303)));
        }
        let retained = packet("a", b"x", QoS::AtLeastOnce, true);
        assert_eq!(publish_parts(&retained), Some(("a", Some(true), 2)));
        let cleared = packet("a", b"", QoS::AtMostOnce, true);
        assert_eq!(publish_parts(&cleared), Some(("a", Some(false), 1)));
        assert_eq!(publish_parts(&[0x30]), None);
        assert_eq!(publish_parts(&[0x30, 0x05, 0x00, 0x09, b'a']), None);
    }

    #[test]
    fn the_total_across_filters_is_capped_and_a_full_log_costs_nothing_more() {
        let mut budget = Budget::new(10_000, 3_000);
        budget.subscribe("a/#").unwrap();
        budget.subscribe("b/#").unwrap();
        budget.subscribe("$share/pool/b/#").unwrap();
        assert_eq!(
            budget.held,
            2 * FILTER_COST + 6,
            "a share group uses the filter's log"
        );
        // Each log fills to its own cap and then costs nothing more.
        for _ in 0..10 {
            budget.publish("a/x", 1_000, None).unwrap();
        }
        assert_eq!(budget.held, 2 * FILTER_COST + 6 + 3_000);
        // Matching two filters counts twice; nothing matching costs nothing.
        budget.subscribe("+/x").unwrap();
        budget.publish("b/x", 1_000, None).unwrap();
        assert_eq!(budget.held, 3 * FILTER_COST + 6 + 3 + 3_000 + 2_000);
        for _ in 0..100 {
            budget.publish("nobody/listens", 1_000, None).unwrap();
        }
        // Beyond the total: refused, and nothing counted.
        budget.publish("b/y", 1_000, None).unwrap();
        assert_eq!(budget.held, 9_081);
        let full = budget.publish("b/z", 1_000, None).unwrap_err();
        assert_eq!(
            full,
            Full {
                held: 9_081,
                limit: 10_000
            }
        );
        assert_eq!(budget.held, 9_081);
        // A new filter is refused too; one held already is not.
        assert!(budget.subscribe("c/#").is_err());
        assert!(budget.subscribe("b/#").is_ok());
    }

    #[test]
    fn retained_messages_count_until_replaced_or_cleared() {
        let mut budget = Budget::new(5_000, 1_000);
        for n in 0..4 {
            budget
                .publish(&format!("cards/{n}"), 1_000, Some(true))
                .unwrap();
        }
        assert!(budget.publish("cards/9", 1_001, Some(true)).is_err());
        budget.publish("cards/0", 400, Some(true)).unwrap();
        assert_eq!(budget.held, 3_400);
        budget.publish("cards/1", 7, Some(false)).unwrap();
        assert_eq!(budget.held, 2_400);
        budget.publish("cards/9", 2_600, Some(true)).unwrap();
        assert_eq!(budget.held, 5_000);
    }
}
