//! HSP message types: `HSP::<Type>_v<version>`, and the payload schema each one names.

/// A payload type aiproto knows: its name in `message_type` and its schema file stem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PayloadType {
    pub name: &'static str,
    pub schema: &'static str,
}

/// Every payload type of HSP 0.1 and 1.0. `ContextUpdate` is the spec's second
/// name for `EnvironmentalState`; `Opinion`, `Heartbeat`, `Discovery` and
/// `Error` are used by the upstream implementation although the spec does
/// not define them.
pub const PAYLOAD_TYPES: [PayloadType; 16] = [
    PayloadType {
        name: "Fact",
        schema: "fact",
    },
    PayloadType {
        name: "Belief",
        schema: "belief",
    },
    PayloadType {
        name: "Opinion",
        schema: "opinion",
    },
    PayloadType {
        name: "CapabilityAdvertisement",
        schema: "capability_advertisement",
    },
    PayloadType {
        name: "TaskRequest",
        schema: "task_request",
    },
    PayloadType {
        name: "TaskResult",
        schema: "task_result",
    },
    PayloadType {
        name: "EnvironmentalState",
        schema: "environmental_state",
    },
    PayloadType {
        name: "ContextUpdate",
        schema: "environmental_state",
    },
    PayloadType {
        name: "AIStateSynchronization",
        schema: "ai_state_synchronization",
    },
    PayloadType {
        name: "Acknowledgement",
        schema: "acknowledgement",
    },
    PayloadType {
        name: "NegativeAcknowledgement",
        schema: "negative_acknowledgement",
    },
    PayloadType {
        name: "CapabilityDiscoveryQuery",
        schema: "capability_discovery_query",
    },
    PayloadType {
        name: "CapabilityDiscoveryResponse",
        schema: "capability_discovery_response",
    },
    PayloadType {
        name: "Heartbeat",
        schema: "heartbeat",
    },
    PayloadType {
        name: "Discovery",
        schema: "discovery",
    },
    PayloadType {
        name: "Error",
        schema: "error",
    },
];

/// A `message_type` string taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageType<'a> {
    /// The type name, e.g. `Fact`.
    pub name: &'a str,
    /// The version suffix, e.g. `0.1`.
    pub version: &'a str,
}

impl<'a> MessageType<'a> {
    /// Parses `HSP::<Name>_v<version>`.
    pub fn parse(s: &'a str) -> Option<MessageType<'a>> {
        let rest = s.strip_prefix("HSP::")?;
        let (name, version) = rest.rsplit_once("_v")?;
        let name_ok = name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric());
        let version_ok =
            !version.is_empty() && version.chars().all(|c| c.is_ascii_digit() || c == '.');
        (name_ok && version_ok).then_some(MessageType { name, version })
    }

    /// The known payload type with this name.
    pub fn payload_type(&self) -> Option<PayloadType> {
        PAYLOAD_TYPES.iter().copied().find(|t| t.name == self.name)
    }
}

/// The `message_type` string of a payload type in a version.
pub fn format(name: &str, version: &str) -> String {
    format!("HSP::{name}_v{version}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_finds_known_types() {
        let t = MessageType::parse("HSP::TaskRequest_v1.0").unwrap();
        assert_eq!((t.name, t.version), ("TaskRequest", "1.0"));
        assert_eq!(t.payload_type().unwrap().schema, "task_request");
        assert!(
            MessageType::parse("HSP::Custom_v2.3")
                .unwrap()
                .payload_type()
                .is_none()
        );
        assert!(MessageType::parse("Fact_v0.1").is_none());
        assert!(MessageType::parse("HSP::Fact").is_none());
        assert_eq!(format("Fact", "0.1"), "HSP::Fact_v0.1");
    }
}
