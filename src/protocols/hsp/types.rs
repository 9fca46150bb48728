//! Typed HSP envelopes and payloads (serde), for both versions. Every struct
//! keeps the fields it does not know in `extra`, so reading and writing a
//! message through these types loses nothing.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Fields outside the spec, kept as they are.
pub type Extra = Map<String, Value>;

/// How a message is exchanged (hsp-0.1 §4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CommunicationPattern {
    Publish,
    Request,
    Response,
    Stream,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct QosParameters {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_ack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_live_sec: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SecurityParameters {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature_algorithm: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The envelope of every HSP message (hsp-0.1 §4.2, hsp-1.0 §2.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    pub hsp_envelope_version: String,
    pub message_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    pub sender_ai_id: String,
    pub recipient_ai_id: String,
    pub timestamp_sent: String,
    pub message_type: String,
    pub protocol_version: String,
    pub communication_pattern: CommunicationPattern,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_parameters: Option<SecurityParameters>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qos_parameters: Option<QosParameters>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing_info: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_schema_uri: Option<String>,
    pub payload: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A statement believed true (Fact), held (Belief) or argued (Opinion).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Statement {
    pub id: String,
    pub statement_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement_nl: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement_structured: Option<Value>,
    pub source_ai_id: String,
    pub timestamp_created: String,
    pub confidence_score: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Every other field: timestamps, context, and the Belief (`belief_holder_ai_id`,
    /// `justification…`) and Opinion (`reasoning_chain`) additions.
    #[serde(flatten)]
    pub extra: Extra,
}

/// CapabilityAdvertisement: 0.1 describes its input and output by schema URI
/// and examples; 1.0 carries `parameters` and `returns` schemas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapabilityAdvertisement {
    pub capability_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai_id: Option<String>,
    pub name: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returns: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRequest {
    pub request_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requester_ai_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ai_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability_id_filter: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability_name_filter: Option<String>,
    pub parameters: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_timestamp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callback_address: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorDetails {
    pub error_code: String,
    pub error_message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_context: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskResult {
    pub result_id: String,
    pub request_id: String,
    pub executing_ai_id: String,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_details: Option<ErrorDetails>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp_completed: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// EnvironmentalState, also called ContextUpdate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvironmentalState {
    pub update_id: String,
    pub source_ai_id: String,
    pub phenomenon_type: String,
    pub parameters: Map<String, Value>,
    pub timestamp_observed: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One chunk of an AI state transfer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AiStateSynchronization {
    pub sync_id: String,
    pub source_ai_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ai_id: Option<String>,
    pub model_component_name: String,
    pub state_data_format: String,
    pub state_data_chunk: String,
    pub sequence_number: u64,
    pub is_last_chunk: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_type: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// An ACK (`status: received`) of hsp-0.1 §4.3.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Acknowledgement {
    pub status: String,
    pub ack_timestamp: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_message_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A NACK (`status: error`) of hsp-0.1 §4.3.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NegativeAcknowledgement {
    pub status: String,
    pub error_code: String,
    pub error_message: String,
    pub nack_timestamp: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_message_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CapabilityDiscoveryQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability_tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_trust_score: Option<f64>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapabilityDiscoveryResponse {
    pub capabilities: Vec<CapabilityAdvertisement>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A payload, typed by the `message_type` that names it.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    Fact(Statement),
    Belief(Statement),
    Opinion(Statement),
    CapabilityAdvertisement(CapabilityAdvertisement),
    TaskRequest(TaskRequest),
    TaskResult(TaskResult),
    EnvironmentalState(EnvironmentalState),
    AiStateSynchronization(AiStateSynchronization),
    Acknowledgement(Acknowledgement),
    NegativeAcknowledgement(NegativeAcknowledgement),
    CapabilityDiscoveryQuery(CapabilityDiscoveryQuery),
    CapabilityDiscoveryResponse(CapabilityDiscoveryResponse),
}

impl Payload {
    /// Reads a payload of the named type; `None` for a type aiproto does not know.
    pub fn from_value(type_name: &str, value: Value) -> Option<Result<Payload, serde_json::Error>> {
        use serde_json::from_value as from;
        Some(match type_name {
            "Fact" => from(value).map(Payload::Fact),
            "Belief" => from(value).map(Payload::Belief),
            "Opinion" => from(value).map(Payload::Opinion),
            "CapabilityAdvertisement" => from(value).map(Payload::CapabilityAdvertisement),
            "TaskRequest" => from(value).map(Payload::TaskRequest),
            "TaskResult" => from(value).map(Payload::TaskResult),
            "EnvironmentalState" | "ContextUpdate" => from(value).map(Payload::EnvironmentalState),
            "AIStateSynchronization" => from(value).map(Payload::AiStateSynchronization),
            "Acknowledgement" => from(value).map(Payload::Acknowledgement),
            "NegativeAcknowledgement" => from(value).map(Payload::NegativeAcknowledgement),
            "CapabilityDiscoveryQuery" => from(value).map(Payload::CapabilityDiscoveryQuery),
            "CapabilityDiscoveryResponse" => from(value).map(Payload::CapabilityDiscoveryResponse),
            _ => return None,
        })
    }

    /// The payload as JSON.
    pub fn to_value(&self) -> Value {
        let v = match self {
            Payload::Fact(p) | Payload::Belief(p) | Payload::Opinion(p) => serde_json::to_value(p),
            Payload::CapabilityAdvertisement(p) => serde_json::to_value(p),
            Payload::TaskRequest(p) => serde_json::to_value(p),
            Payload::TaskResult(p) => serde_json::to_value(p),
            Payload::EnvironmentalState(p) => serde_json::to_value(p),
            Payload::AiStateSynchronization(p) => serde_json::to_value(p),
            Payload::Acknowledgement(p) => serde_json::to_value(p),
            Payload::NegativeAcknowledgement(p) => serde_json::to_value(p),
            Payload::CapabilityDiscoveryQuery(p) => serde_json::to_value(p),
            Payload::CapabilityDiscoveryResponse(p) => serde_json::to_value(p),
        };
        v.unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::hsp::message_type::MessageType;

    /// Every valid example goes through the types and comes back equal.
    #[test]
    fn examples_round_trip_through_the_types() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hsp/valid");
        let mut seen = std::collections::BTreeSet::new();
        for version in ["0.1", "1.0"] {
            for entry in std::fs::read_dir(root.join(version)).unwrap() {
                let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
                let values: Vec<Value> = match serde_json::from_str::<Value>(&text) {
                    Ok(Value::Array(items)) => items,
                    Ok(v) => vec![v],
                    Err(_) => text
                        .lines()
                        .map(|l| serde_json::from_str(l).unwrap())
                        .collect(),
                };
                for original in values {
                    let envelope: Envelope = serde_json::from_value(original.clone()).unwrap();
                    let name = MessageType::parse(&envelope.message_type)
                        .unwrap()
                        .name
                        .to_string();
                    if let Some(payload) = Payload::from_value(&name, envelope.payload.clone()) {
                        assert_eq!(payload.unwrap().to_value(), envelope.payload, "{name}");
                        seen.insert(name);
                    }
                    let mut back = serde_json::to_value(&envelope).unwrap();
                    // `correlation_id: null` is written as absent.
                    if original.get("correlation_id") == Some(&Value::Null) {
                        back.as_object_mut()
                            .unwrap()
                            .insert("correlation_id".into(), Value::Null);
                    }
                    assert_eq!(back, original);
                }
            }
        }
        assert_eq!(
            seen.len(),
            13,
            "every payload type has a valid example: {seen:?}"
        );
    }
}
