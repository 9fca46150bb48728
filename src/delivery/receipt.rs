//! What a receiving agent answers over MQTT to an HSP message that asks
//! for it (`qos_parameters.requires_ack`, hsp-0.1 §4.3): an ACK of a valid
//! message, a NACK naming the first error of an invalid one, from the
//! receiving agent's own id, to the sender's own inbox
//! (`hsp/agents/<sender DID>`) — or nothing, said why, when either id is
//! missing: a receipt never goes to a made-up address.

use serde_json::{Map, Value as Json};

use crate::protocols::hsp::compose::{self, Kind};
use crate::protocols::{Found, Value};
use crate::transport::Publication;

/// The receipt of one message.
#[derive(Debug, PartialEq)]
pub enum Receipt {
    /// The message asks for none (or is not HSP).
    NotAsked,
    /// The ACK or NACK, and the topic it goes to.
    Publish(Publication),
    /// Asked for, but cannot be sent: why.
    Unaddressed(String),
}

/// The receipt `agent` (the receiving agent's DID, when it was given)
/// owes for `found`.
pub fn receipt(found: &Found, agent: Option<&str>) -> Receipt {
    let Value::Hsp(Some(message)) = &found.value else {
        return Receipt::NotAsked;
    };
    let json = &message.json;
    if !compose::requires_ack(json) {
        return Receipt::NotAsked;
    }
    let text = |k: &str| json.get(k).and_then(Json::as_str);
    let Some(sender) = text("sender_ai_id").filter(|s| is_agent_id(s)) else {
        return Receipt::Unaddressed(format!(
            "its sender `{}` is not a DID that can name an MQTT topic: no inbox to acknowledge to",
            text("sender_ai_id").unwrap_or_default()
        ));
    };
    let Some(me) = agent.or(text("recipient_ai_id").filter(|r| is_agent_id(r))) else {
        return Receipt::Unaddressed(format!(
            "it is addressed to `{}`, not to an agent: give the receiving agent's id with --as did:hsp:… to acknowledge it",
            text("recipient_ai_id").unwrap_or_default()
        ));
    };
    let (kind, payload) = match found.diagnostics.iter().find(|d| d.is_error()) {
        None => (Kind::Ack, Map::new()),
        Some(d) => {
            let mut payload = Map::new();
            payload.insert("error_code".into(), d.code.into());
            payload.insert("error_message".into(), d.message.clone().into());
            (Kind::Nack, payload)
        }
    };
    match compose::acknowledge(Some(json), kind, payload, me) {
        Ok(mut envelope) => {
            envelope.sender_ai_id = me.to_string();
            let topic = format!("hsp/agents/{sender}");
            let bytes = serde_json::to_vec(&envelope).unwrap_or_default();
            Receipt::Publish(Publication::json(topic, bytes).correlated(text("message_id")))
        }
        Err(e) => Receipt::Unaddressed(format!("its receipt cannot be written: {e}")),
    }
}

/// A DID that can stand in an MQTT topic (no wildcard, no NUL).
fn is_agent_id(id: &str) -> bool {
    id.starts_with("did:") && crate::mqtt_topic::problem(id).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::{Protocol, ReadOptions};

    fn read(text: &str) -> Found {
        Protocol::Hsp.read(text, &ReadOptions::default()).remove(0)
    }

    const ASKING: &str = r#"{"hsp_envelope_version": "0.1", "message_id": "018f4a6e-8c1b-7d2a-9e3f-000000000000", "correlation_id": null, "sender_ai_id": "did:hsp:alpha", "recipient_ai_id": "RECIPIENT", "timestamp_sent": "2024-07-05T14:00:00Z", "message_type": "HSP::Fact_v0.1", "protocol_version": "0.1", "communication_pattern": "publish", "qos_parameters": {"requires_ack": true}, "payload": PAYLOAD}"#;
    const FACT: &str = r#"{"id": "f1", "statement_type": "natural_language", "statement_nl": "The sky is blue.", "source_ai_id": "did:hsp:alpha", "timestamp_created": "2024-07-05T14:00:00Z", "confidence_score": 0.9}"#;

    fn message(recipient: &str, payload: &str) -> Found {
        read(
            &ASKING
                .replace("RECIPIENT", recipient)
                .replace("PAYLOAD", payload),
        )
    }

    fn published(r: Receipt) -> (String, Json) {
        match r {
            Receipt::Publish(p) => (p.topic, serde_json::from_slice(&p.payload).unwrap()),
            other => panic!("no receipt: {other:?}"),
        }
    }

    #[test]
    fn valid_messages_get_an_ack_from_the_receiving_agent_and_invalid_ones_a_nack() {
        let (topic, ack) = published(receipt(&message("did:hsp:beta", FACT), None));
        assert_eq!(topic, "hsp/agents/did:hsp:alpha");
        assert_eq!(ack["sender_ai_id"], "did:hsp:beta");
        assert!(
            ack["message_type"]
                .as_str()
                .unwrap()
                .contains("Acknowledgement")
        );
        let (_, ack) = published(receipt(&message("did:hsp:beta", FACT), Some("did:hsp:me")));
        assert_eq!(ack["sender_ai_id"], "did:hsp:me");
        let (_, nack) = published(receipt(&message("did:hsp:beta", "{}"), None));
        assert!(
            nack["message_type"]
                .as_str()
                .unwrap()
                .contains("NegativeAcknowledgement")
        );
        assert!(nack["payload"]["error_code"].as_str().is_some(), "{nack}");
    }

    #[test]
    fn a_receipt_carries_the_id_it_answers_as_mqtt5_correlation_data() {
        let Receipt::Publish(p) = receipt(&message("did:hsp:beta", FACT), None) else {
            panic!("no receipt");
        };
        let id = "018f4a6e-8c1b-7d2a-9e3f-000000000000";
        assert_eq!(
            p.properties.correlation_data.as_deref(),
            Some(id.as_bytes())
        );
        assert_eq!(
            p.properties.content_type.as_deref(),
            Some("application/json")
        );
        let ack: Json = serde_json::from_slice(&p.payload).unwrap();
        assert_eq!(ack["correlation_id"], id);
    }

    #[test]
    fn no_receipt_goes_to_a_made_up_address() {
        let topic_addressed = message("hsp/knowledge/facts/general", FACT);
        assert!(
            matches!(receipt(&topic_addressed, None), Receipt::Unaddressed(why) if why.contains("--as"))
        );
        assert!(matches!(
            receipt(&topic_addressed, Some("did:hsp:me")),
            Receipt::Publish(..)
        ));
        let stranger = read(
            &ASKING
                .replace("did:hsp:alpha\", \"recipient", "alpha\", \"recipient")
                .replace("RECIPIENT", "did:hsp:beta")
                .replace("PAYLOAD", FACT),
        );
        assert!(
            matches!(receipt(&stranger, None), Receipt::Unaddressed(why) if why.contains("not a DID"))
        );
    }
}
