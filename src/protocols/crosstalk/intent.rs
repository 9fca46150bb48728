//! The Crosstalk intent vocabulary: the v1.1 registry and the deprecated 1.0 intents.

use crate::model::Intent;

/// How an intent string relates to the v1.1 registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntentClass {
    /// One of the eleven v1.1 intents.
    Registered(Intent),
    /// A 1.0 intent, still read, with the v1.1 intent that replaces it and the advice to give.
    Legacy {
        replacement: Intent,
        advice: &'static str,
    },
    Unknown,
}

/// The 1.0 intents: (name, v1.1 replacement on migration, advice).
/// crosstalk-1.1 "Legacy Intents": STATUS is BROADCAST or REQUEST depending on
/// context; a migration cannot know the context and picks BROADCAST.
pub const LEGACY: [(&str, Intent, &str); 5] = [
    ("QUESTION", Intent::Request, "use REQUEST"),
    ("ANSWER", Intent::Respond, "use RESPOND"),
    (
        "STATUS",
        Intent::Broadcast,
        "use BROADCAST, or REQUEST when an answer is expected",
    ),
    (
        "PATCH",
        Intent::Request,
        "use REQUEST with a meta block describing the patch",
    ),
    ("NOTE", Intent::Broadcast, "use BROADCAST"),
];

pub fn classify(intent: &str) -> IntentClass {
    if let Some(i) = Intent::REGISTRY.iter().find(|i| i.as_str() == intent) {
        return IntentClass::Registered(i.clone());
    }
    LEGACY
        .iter()
        .find(|(name, _, _)| *name == intent)
        .map(|(_, replacement, advice)| IntentClass::Legacy {
            replacement: replacement.clone(),
            advice,
        })
        .unwrap_or(IntentClass::Unknown)
}

/// The 1.0 intent a v1.1 intent goes back to, when 1.0 has one.
pub fn downgrade(intent: &str) -> Option<&'static str> {
    match intent {
        "REQUEST" => Some("QUESTION"),
        "RESPOND" => Some("ANSWER"),
        "BROADCAST" => Some("NOTE"),
        _ => None,
    }
}

/// The five intents of Crosstalk 1.0.
pub const V1_0_NAMES: [&str; 5] = ["QUESTION", "ANSWER", "STATUS", "PATCH", "NOTE"];

/// The 1.0 intent an intent is written as in a 1.0 envelope, and whether
/// that is exact. A 1.1 intent with a 1.0 counterpart goes back to it; one
/// with none is written by what it asks of the receiver: an answer
/// (ESCALATE, HANDOFF, POLL → QUESTION), a reply to a message (ACK, NACK,
/// ERROR → ANSWER), or nothing (REVOKE, CLOSE and unknown intents → NOTE).
pub fn as_v1_0(intent: &str) -> (&str, bool) {
    if let Some(name) = V1_0_NAMES.iter().find(|n| **n == intent) {
        return (name, true);
    }
    if let Some(name) = downgrade(intent) {
        return (name, true);
    }
    let nearest = match intent {
        "ESCALATE" | "HANDOFF" | "POLL" => "QUESTION",
        "ACK" | "NACK" | "ERROR" => "ANSWER",
        _ => "NOTE",
    };
    (nearest, false)
}

/// Every intent name aiproto reads, registry first.
pub fn all_names() -> Vec<&'static str> {
    let registry = [
        "REQUEST",
        "RESPOND",
        "ESCALATE",
        "HANDOFF",
        "POLL",
        "ACK",
        "NACK",
        "ERROR",
        "BROADCAST",
        "REVOKE",
        "CLOSE",
    ];
    registry
        .into_iter()
        .chain(LEGACY.iter().map(|(n, _, _)| *n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_intents_name_their_replacement() {
        assert!(matches!(
            classify("QUESTION"),
            IntentClass::Legacy {
                replacement: Intent::Request,
                ..
            }
        ));
        assert_eq!(classify("POLL"), IntentClass::Registered(Intent::Poll));
        assert_eq!(classify("request"), IntentClass::Unknown);
    }

    #[test]
    fn every_intent_has_a_1_0_name() {
        for name in all_names() {
            let (written, exact) = as_v1_0(name);
            assert!(V1_0_NAMES.contains(&written), "{name} → {written}");
            assert_eq!(
                exact,
                name == written || downgrade(name).is_some(),
                "{name}"
            );
        }
        assert_eq!(as_v1_0("ACK"), ("ANSWER", false));
        assert_eq!(as_v1_0("custom"), ("NOTE", false));
    }

    #[test]
    fn migration_round_trips_the_unambiguous_intents() {
        for (name, replacement, _) in LEGACY {
            if name != "STATUS" && name != "PATCH" {
                assert_eq!(downgrade(replacement.as_str()), Some(name));
            }
        }
    }
}
