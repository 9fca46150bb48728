//! A capability directory (hsp-0.1 §5.1): it keeps the CapabilityAdvertisements
//! it sees (the newest per `capability_id`, with its `availability_status`) and
//! answers CapabilityDiscoveryQuery messages with a CapabilityDiscoveryResponse.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::Version;
use super::compose::{self, Draft, Kind};
use super::message_type::MessageType;
use super::types::Envelope;

/// Where advertisements are published (hsp-0.1 §4.4), as a topic filter.
pub const ADVERTISEMENTS: &str = "hsp/capabilities/advertisements/#";
/// Where discovery queries are sent.
pub const QUERIES: &str = "hsp/capabilities/discovery";

/// What the directory did with a message.
#[derive(Debug, PartialEq)]
pub enum Seen {
    /// An advertisement was stored (or replaced an older one).
    Stored(String),
    /// A query was answered: the reply, to publish to `hsp/agents/<sender>`.
    Answered(Box<Envelope>),
    Ignored,
}

/// The advertisements known, by capability id.
#[derive(Debug, Default)]
pub struct Directory {
    /// The directory's own AI id (the sender of its answers).
    pub id: String,
    ads: BTreeMap<String, (Version, Map<String, Value>)>,
}

impl Directory {
    pub fn new(id: impl Into<String>) -> Self {
        Directory {
            id: id.into(),
            ads: BTreeMap::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.ads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ads.is_empty()
    }

    /// Takes in one HSP message (an envelope as JSON).
    pub fn see(&mut self, message: &Value) -> Seen {
        let kind = message
            .get("message_type")
            .and_then(Value::as_str)
            .and_then(MessageType::parse)
            .and_then(|t| Some((t.name.to_string(), Version::parse(t.version)?)));
        let payload = message.get("payload").and_then(Value::as_object);
        match (kind, payload) {
            (Some((name, version)), Some(ad)) if name == "CapabilityAdvertisement" => {
                let Some(id) = ad.get("capability_id").and_then(Value::as_str) else {
                    return Seen::Ignored;
                };
                self.ads.insert(id.to_string(), (version, ad.clone()));
                Seen::Stored(id.to_string())
            }
            (Some((name, version)), Some(query)) if name == "CapabilityDiscoveryQuery" => self
                .answer(message, version, query)
                .map_or(Seen::Ignored, |reply| Seen::Answered(Box::new(reply))),
            _ => Seen::Ignored,
        }
    }

    /// The advertisements of a version a query matches: every tag asked for
    /// (`capability_tags`), the name or id containing `capability_name` /
    /// `capability_name_filter` (case-insensitive), and not `offline`.
    pub fn matching(
        &self,
        version: Version,
        query: &Map<String, Value>,
    ) -> Vec<&Map<String, Value>> {
        let tags: Vec<&str> = query
            .get("capability_tags")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let name = query
            .get("capability_name")
            .or_else(|| query.get("capability_name_filter"))
            .and_then(Value::as_str)
            .map(str::to_lowercase);
        self.ads
            .values()
            .filter(|(v, _)| *v == version)
            .map(|(_, ad)| ad)
            .filter(|ad| ad.get("availability_status").and_then(Value::as_str) != Some("offline"))
            .filter(|ad| {
                let have: Vec<&str> = ad
                    .get("tags")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                tags.iter().all(|t| have.contains(t))
            })
            .filter(|ad| {
                name.as_ref().is_none_or(|n| {
                    ["name", "capability_id"].iter().any(|k| {
                        ad.get(*k)
                            .and_then(Value::as_str)
                            .is_some_and(|v| v.to_lowercase().contains(n.as_str()))
                    })
                })
            })
            .collect()
    }

    fn answer(
        &self,
        message: &Value,
        version: Version,
        query: &Map<String, Value>,
    ) -> Option<Envelope> {
        let asker = message.get("sender_ai_id").and_then(Value::as_str)?;
        let id = message.get("message_id").and_then(Value::as_str)?;
        let capabilities: Vec<Value> = self
            .matching(version, query)
            .into_iter()
            .map(|ad| Value::Object(ad.clone()))
            .collect();
        let mut payload = Map::new();
        payload.insert("capabilities".into(), json!(capabilities));
        compose::compose(Draft {
            version,
            kind: Kind::DiscoveryResponse,
            from: self.id.clone(),
            to: Some(asker.to_string()),
            correlation_id: Some(id.to_string()),
            requires_ack: false,
            payload,
        })
        .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ad(id: &str, tags: &[&str], status: &str) -> Value {
        json!({
            "hsp_envelope_version": "0.1", "message_id": format!("m-{id}"),
            "sender_ai_id": "did:hsp:gamma", "recipient_ai_id": "hsp/capabilities/advertisements/all",
            "timestamp_sent": "2025-01-01T00:00:00Z", "message_type": "HSP::CapabilityAdvertisement_v0.1",
            "protocol_version": "0.1", "communication_pattern": "publish",
            "payload": {"capability_id": id, "ai_id": "did:hsp:gamma", "name": format!("Service {id}"),
                        "description": "d", "version": "1.0", "availability_status": status, "tags": tags},
        })
    }

    fn query(tags: &[&str]) -> Value {
        json!({
            "hsp_envelope_version": "0.1", "message_id": "q-1", "sender_ai_id": "did:hsp:alpha",
            "recipient_ai_id": "hsp/capabilities/discovery", "timestamp_sent": "2025-01-01T00:00:00Z",
            "message_type": "HSP::CapabilityDiscoveryQuery_v0.1", "protocol_version": "0.1",
            "communication_pattern": "request", "payload": {"capability_tags": tags},
        })
    }

    #[test]
    fn answers_with_the_online_advertisements_that_have_every_tag() {
        let mut d = Directory::new("did:hsp:directory");
        assert_eq!(
            d.see(&ad("translate", &["nlp", "translation"], "online")),
            Seen::Stored("translate".into())
        );
        d.see(&ad("summarize", &["nlp"], "online"));
        d.see(&ad("old", &["nlp", "translation"], "offline"));
        // A newer advertisement replaces the older one.
        d.see(&ad("summarize", &["nlp", "translation"], "degraded"));
        assert_eq!(d.len(), 3);
        let Seen::Answered(reply) = d.see(&query(&["nlp", "translation"])) else {
            panic!("no answer");
        };
        assert_eq!(reply.correlation_id.as_deref(), Some("q-1"));
        assert_eq!(reply.recipient_ai_id, "did:hsp:alpha");
        assert_eq!(reply.sender_ai_id, "did:hsp:directory");
        let ids: Vec<&str> = reply.payload["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["capability_id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, vec!["summarize", "translate"]);
        let Seen::Answered(none) = d.see(&query(&["vision"])) else {
            panic!("no answer");
        };
        assert_eq!(none.payload["capabilities"], json!([]));
    }
}
