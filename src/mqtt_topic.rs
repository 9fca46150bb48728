//! The MQTT rule for a topic name a message is published to (MQTT 3.1.1
//! §4.7.1 and §1.5.3): not empty, no `+` or `#` wildcard (those belong to
//! subscriptions), no NUL, at most 65,535 bytes. HSP addresses become
//! topics, so the HSP reader checks its address fields by it, and the MQTT
//! transport refuses such a topic before it reaches a broker.

/// The longest topic name MQTT can carry, in bytes.
pub const MAX_BYTES: usize = 65_535;

/// Why `topic` cannot be published to, if it cannot.
pub fn problem(topic: &str) -> Option<String> {
    if topic.is_empty() {
        return Some("an empty topic".into());
    }
    if let Some(c) = topic.chars().find(|c| matches!(c, '+' | '#')) {
        return Some(format!(
            "`{c}` is an MQTT wildcard: it may filter a subscription, never name the topic a message goes to"
        ));
    }
    if topic.contains('\0') {
        return Some("a NUL character (U+0000) is not allowed in an MQTT topic".into());
    }
    if topic.len() > MAX_BYTES {
        return Some(format!(
            "{} bytes, longer than the {MAX_BYTES} an MQTT topic may hold",
            topic.len()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_nul_and_overlong_topics_are_named() {
        assert_eq!(problem("hsp/agents/did:hsp:a"), None);
        assert!(
            problem("hsp/agents/#")
                .unwrap()
                .contains("`#` is an MQTT wildcard")
        );
        assert!(problem("hsp/+/x").unwrap().contains("`+`"));
        assert!(problem("a\0b").unwrap().contains("U+0000"));
        assert!(
            problem(&"a".repeat(MAX_BYTES + 1))
                .unwrap()
                .contains("65535")
        );
        assert!(problem("").is_some());
    }
}
