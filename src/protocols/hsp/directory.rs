//! A capability directory (hsp-0.1 §5.1): it keeps the CapabilityAdvertisements
//! it sees — the newest per provider and `capability_id`, with its
//! `availability_status` — and answers CapabilityDiscoveryQuery messages with
//! a CapabilityDiscoveryResponse listing every live provider.
//!
//! A capability is bound to the agent that advertised it: an advertisement
//! is kept under its sender, and one whose `ai_id` names another agent is
//! refused, so no agent can replace, or speak for, another's. An
//! advertisement expires at its own `valid_until`, else a time to live
//! after it was seen.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
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
    /// An advertisement was stored (or replaced the same provider's older one).
    Stored(String),
    /// An advertisement was not stored: why.
    Refused(String),
    /// A query was answered: the reply, to publish to `hsp/agents/<sender>`.
    Answered(Box<Envelope>),
    Ignored,
}

/// One advertisement kept: its version, payload, when it was sent, and
/// until when it counts.
#[derive(Debug)]
struct Kept {
    version: Version,
    ad: Map<String, Value>,
    sent: Option<DateTime<Utc>>,
    expires: DateTime<Utc>,
}

/// The advertisements known, by provider and capability id.
#[derive(Debug)]
pub struct Directory {
    /// The directory's own AI id (the sender of its answers).
    pub id: String,
    /// How long an advertisement without `valid_until` counts.
    pub ttl: Duration,
    ads: BTreeMap<(String, String), Kept>,
    /// When an advertisement was last stored.
    changed: Option<DateTime<Utc>>,
}

impl Directory {
    pub fn new(id: impl Into<String>) -> Self {
        Directory {
            id: id.into(),
            ttl: Duration::hours(24),
            ads: BTreeMap::new(),
            changed: None,
        }
    }

    pub fn len(&self) -> usize {
        self.ads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ads.is_empty()
    }

    /// When an advertisement was last stored (none yet: `None`).
    pub fn changed(&self) -> Option<DateTime<Utc>> {
        self.changed
    }

    /// Takes in one HSP message (an envelope as JSON), at the time now.
    pub fn see(&mut self, message: &Value) -> Seen {
        self.see_at(message, Utc::now())
    }

    /// Takes in one HSP message as if it arrived at `now`.
    pub fn see_at(&mut self, message: &Value, now: DateTime<Utc>) -> Seen {
        let kind = message
            .get("message_type")
            .and_then(Value::as_str)
            .and_then(MessageType::parse)
            .and_then(|t| Some((t.name.to_string(), Version::parse(t.version)?)));
        let payload = message.get("payload").and_then(Value::as_object);
        match (kind, payload) {
            (Some((name, version)), Some(ad)) if name == "CapabilityAdvertisement" => {
                self.store(message, version, ad, now)
            }
            (Some((name, version)), Some(query)) if name == "CapabilityDiscoveryQuery" => self
                .answer(message, version, query, now)
                .map_or(Seen::Ignored, |reply| Seen::Answered(Box::new(reply))),
            _ => Seen::Ignored,
        }
    }

    fn store(
        &mut self,
        message: &Value,
        version: Version,
        ad: &Map<String, Value>,
        now: DateTime<Utc>,
    ) -> Seen {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let Some(id) = text(ad.get("capability_id")) else {
            return Seen::Ignored;
        };
        let Some(provider) = text(message.get("sender_ai_id")) else {
            return Seen::Refused(format!("`{id}`: the advertisement names no sender"));
        };
        if let Some(claimed) = text(ad.get("ai_id"))
            && claimed != provider
        {
            return Seen::Refused(format!(
                "`{id}`: sent by `{provider}` for `{claimed}`: an agent advertises only itself"
            ));
        }
        let date = |v: Option<&Value>| {
            text(v)
                .and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
                .map(|t| t.with_timezone(&Utc))
        };
        let sent = date(message.get("timestamp_sent"));
        let key = (provider.clone(), id.clone());
        if let (Some(kept), Some(sent)) = (self.ads.get(&key), sent)
            && kept.sent.is_some_and(|k| k > sent)
        {
            return Seen::Refused(format!(
                "`{id}` of `{provider}`: older than the advertisement kept"
            ));
        }
        let expires = date(ad.get("valid_until")).unwrap_or(now + self.ttl);
        self.changed = Some(now);
        self.ads.insert(
            key,
            Kept {
                version,
                ad: ad.clone(),
                sent,
                expires,
            },
        );
        Seen::Stored(id)
    }

    /// Every live advertisement (not expired, not `offline`) with its
    /// provider and version, by provider and capability id.
    pub fn live(&self, now: DateTime<Utc>) -> Vec<(&str, Version, &Map<String, Value>)> {
        self.ads
            .iter()
            .filter(|(_, k)| k.expires > now)
            .filter(|(_, k)| {
                k.ad.get("availability_status").and_then(Value::as_str) != Some("offline")
            })
            .map(|((provider, _), k)| (provider.as_str(), k.version, &k.ad))
            .collect()
    }

    /// The advertisements of a version a query matches: every tag asked for
    /// (`capability_tags`), the name or id containing `capability_name` /
    /// `capability_name_filter` (case-insensitive), and not `offline`.
    /// Expired advertisements are left out.
    pub fn matching(
        &self,
        version: Version,
        query: &Map<String, Value>,
        now: DateTime<Utc>,
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
            .filter(|k| k.version == version && k.expires > now)
            .map(|k| &k.ad)
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
        now: DateTime<Utc>,
    ) -> Option<Envelope> {
        let asker = message.get("sender_ai_id").and_then(Value::as_str)?;
        let id = message.get("message_id").and_then(Value::as_str)?;
        let capabilities: Vec<Value> = self
            .matching(version, query, now)
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
        ad_by("did:hsp:gamma", "2025-01-01T00:00:00Z", id, tags, status)
    }

    fn ad_by(provider: &str, sent: &str, id: &str, tags: &[&str], status: &str) -> Value {
        json!({
            "hsp_envelope_version": "0.1", "message_id": format!("m-{id}"),
            "sender_ai_id": provider, "recipient_ai_id": "hsp/capabilities/advertisements/all",
            "timestamp_sent": sent, "message_type": "HSP::CapabilityAdvertisement_v0.1",
            "protocol_version": "0.1", "communication_pattern": "publish",
            "payload": {"capability_id": id, "ai_id": provider, "name": format!("Service {id}"),
                        "description": "d", "version": "1.0", "availability_status": status, "tags": tags},
        })
    }

    fn providers(d: &mut Directory, now: DateTime<Utc>) -> Vec<String> {
        let Seen::Answered(reply) = d.see_at(&query(&["nlp"]), now) else {
            panic!("no answer");
        };
        reply.payload["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["ai_id"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn no_agent_replaces_or_speaks_for_another_and_stale_ones_expire() {
        let mut d = Directory::new("did:hsp:directory");
        let now = Utc::now();
        d.see_at(
            &ad_by(
                "did:hsp:real",
                "2025-06-01T00:00:00Z",
                "translate",
                &["nlp"],
                "online",
            ),
            now,
        );
        // An impostor's older advertisement of the same capability is its own.
        d.see_at(
            &ad_by(
                "did:hsp:impostor",
                "2025-01-01T00:00:00Z",
                "translate",
                &["nlp"],
                "online",
            ),
            now,
        );
        assert_eq!(
            providers(&mut d, now),
            vec!["did:hsp:impostor", "did:hsp:real"]
        );
        // Speaking for the real provider is refused.
        let mut forged = ad_by(
            "did:hsp:impostor",
            "2025-07-01T00:00:00Z",
            "translate",
            &["nlp"],
            "offline",
        );
        forged["payload"]["ai_id"] = json!("did:hsp:real");
        assert!(
            matches!(d.see_at(&forged, now), Seen::Refused(why) if why.contains("advertises only itself"))
        );
        // The provider's own older advertisement does not replace its newer one.
        let old = ad_by(
            "did:hsp:real",
            "2025-02-01T00:00:00Z",
            "translate",
            &["nlp"],
            "offline",
        );
        assert!(matches!(d.see_at(&old, now), Seen::Refused(_)));
        assert_eq!(
            providers(&mut d, now),
            vec!["did:hsp:impostor", "did:hsp:real"]
        );
        // A day later, without a new advertisement, both are gone.
        assert!(providers(&mut d, now + Duration::hours(25)).is_empty());
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
