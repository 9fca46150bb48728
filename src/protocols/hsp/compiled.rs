//! The HSP envelope schemas compiled into code when aiproto is built
//! (jsonschema's `validator` macro): the yes/no check every message gets,
//! with no schema compiled at run time. Only a message this check refuses
//! goes to the run-time validator of `schemas`, which names each finding;
//! both read the same files in `schemas/hsp/`, and a test holds them to the
//! same verdicts.

use serde_json::Value;

use super::Version;

/// Whether a message is valid against the envelope schema of its version.
pub fn is_valid(version: Version, value: &Value) -> bool {
    match version {
        Version::V0_1 => EnvelopeV0_1::is_valid(value),
        Version::V1_0 => EnvelopeV1_0::is_valid(value),
    }
}

// Each schema pattern is compiled when first used, by fancy-regex over
// the regex crate. That crate builds a full DFA for a small pattern when
// it is built with `dfa-build` (here tracing-subscriber's `matchers` and
// fancy-regex's `variable-lookbehinds` ask for it):
// for one message, the five patterns it meets took a tenth of `validate`'s
// whole run, start-up included, to build DFAs used once. A size limit of 0
// skips the full DFA; the lazy DFA matches these short anchored values as
// fast (`cargo bench --bench hsp_representations`). The verdicts do not
// change: a size limit picks the engine, never the answer.

/// The HSP 0.1 envelope schema, compiled into code when aiproto is built.
#[jsonschema::validator(
    path = "schemas/hsp/0.1/envelope.schema.json",
    validate_formats = true,
    methods = { is_valid = true, validate = false, iter_errors = false },
    // No full DFA per pattern (above).
    pattern_options = { dfa_size_limit = 0 },
    resources = {
        "https://aiproto.dev/schemas/hsp/0.1/common.schema.json" => { path = "schemas/hsp/0.1/common.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/fact.schema.json" => { path = "schemas/hsp/0.1/fact.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/belief.schema.json" => { path = "schemas/hsp/0.1/belief.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/opinion.schema.json" => { path = "schemas/hsp/0.1/opinion.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/capability_advertisement.schema.json" => { path = "schemas/hsp/0.1/capability_advertisement.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/task_request.schema.json" => { path = "schemas/hsp/0.1/task_request.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/task_result.schema.json" => { path = "schemas/hsp/0.1/task_result.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/environmental_state.schema.json" => { path = "schemas/hsp/0.1/environmental_state.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/ai_state_synchronization.schema.json" => { path = "schemas/hsp/0.1/ai_state_synchronization.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/acknowledgement.schema.json" => { path = "schemas/hsp/0.1/acknowledgement.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/negative_acknowledgement.schema.json" => { path = "schemas/hsp/0.1/negative_acknowledgement.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/capability_discovery_query.schema.json" => { path = "schemas/hsp/0.1/capability_discovery_query.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/capability_discovery_response.schema.json" => { path = "schemas/hsp/0.1/capability_discovery_response.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/heartbeat.schema.json" => { path = "schemas/hsp/0.1/heartbeat.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/discovery.schema.json" => { path = "schemas/hsp/0.1/discovery.schema.json" },
        "https://aiproto.dev/schemas/hsp/0.1/error.schema.json" => { path = "schemas/hsp/0.1/error.schema.json" }
    }
)]
pub struct EnvelopeV0_1;

/// The HSP 1.0 envelope schema, compiled into code when aiproto is built.
#[jsonschema::validator(
    path = "schemas/hsp/1.0/envelope.schema.json",
    validate_formats = true,
    methods = { is_valid = true, validate = false, iter_errors = false },
    // No full DFA per pattern (above).
    pattern_options = { dfa_size_limit = 0 },
    resources = {
        "https://aiproto.dev/schemas/hsp/1.0/common.schema.json" => { path = "schemas/hsp/1.0/common.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/fact.schema.json" => { path = "schemas/hsp/1.0/fact.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/belief.schema.json" => { path = "schemas/hsp/1.0/belief.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/opinion.schema.json" => { path = "schemas/hsp/1.0/opinion.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/capability_advertisement.schema.json" => { path = "schemas/hsp/1.0/capability_advertisement.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/task_request.schema.json" => { path = "schemas/hsp/1.0/task_request.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/task_result.schema.json" => { path = "schemas/hsp/1.0/task_result.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/environmental_state.schema.json" => { path = "schemas/hsp/1.0/environmental_state.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/ai_state_synchronization.schema.json" => { path = "schemas/hsp/1.0/ai_state_synchronization.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/acknowledgement.schema.json" => { path = "schemas/hsp/1.0/acknowledgement.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/negative_acknowledgement.schema.json" => { path = "schemas/hsp/1.0/negative_acknowledgement.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/capability_discovery_query.schema.json" => { path = "schemas/hsp/1.0/capability_discovery_query.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/capability_discovery_response.schema.json" => { path = "schemas/hsp/1.0/capability_discovery_response.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/heartbeat.schema.json" => { path = "schemas/hsp/1.0/heartbeat.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/discovery.schema.json" => { path = "schemas/hsp/1.0/discovery.schema.json" },
        "https://aiproto.dev/schemas/hsp/1.0/error.schema.json" => { path = "schemas/hsp/1.0/error.schema.json" }
    }
)]
pub struct EnvelopeV1_0;

#[cfg(test)]
mod tests {
    //! The compiled check and the run-time validator must give the same
    //! verdict on every message: the shipped examples, valid and invalid,
    //! and each of them damaged at a generated place in a generated way.

    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::super::{Version, schemas};

    /// Every example message under `examples/hsp/` that is JSON, read
    /// once for all the cases.
    fn examples() -> &'static [Value] {
        static EXAMPLES: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
        EXAMPLES.get_or_init(read_examples)
    }

    fn read_examples() -> Vec<Value> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hsp");
        let mut out = Vec::new();
        for verdict in ["valid", "invalid"] {
            let mut dirs = vec![root.join(verdict)];
            while let Some(dir) = dirs.pop() {
                for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                    let path = entry.path();
                    if path.is_dir() {
                        dirs.push(path);
                    } else if let Ok(text) = std::fs::read_to_string(&path)
                        && let Ok(value) = serde_json::from_str::<Value>(&text)
                    {
                        out.push(value);
                    }
                }
            }
        }
        assert!(out.len() > 40, "examples/hsp holds {} messages", out.len());
        out
    }

    fn agree(value: &Value) -> Result<(), TestCaseError> {
        for version in [Version::V0_1, Version::V1_0] {
            let runtime = schemas::envelope_validator(version).is_valid(value);
            prop_assert_eq!(
                super::is_valid(version, value),
                runtime,
                "HSP {} verdicts differ on {}",
                version.as_str(),
                value
            );
        }
        Ok(())
    }

    #[test]
    fn every_example_gets_the_same_verdict() {
        let examples = examples();
        let valid = examples
            .iter()
            .filter(|m| super::is_valid(Version::V0_1, m) || super::is_valid(Version::V1_0, m))
            .count();
        assert!(valid > 20 && valid < examples.len(), "{valid} valid");
        for m in examples {
            agree(m).unwrap();
        }
    }

    /// Values that sit on the edges of the schemas' rules.
    fn replacement() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            Just(json!(0)),
            Just(json!(-1)),
            Just(json!(1.5)),
            Just(json!(0.5)),
            Just(json!(1e300)),
            Just(json!("")),
            Just(json!([])),
            Just(json!({})),
            Just(json!(["x"])),
            Just(json!("2025-10-09T16:00:00Z")),
            Just(json!("2025-10-09T16:00:00.5+00:00")),
            Just(json!("2025-10-09T16:00:00+02:00")),
            Just(json!("2025-13-09T16:00:00Z")),
            Just(json!("2025-10-09 16:00:00")),
            Just(json!("did:hsp:agent")),
            Just(json!("did:HSP:x")),
            Just(json!("hsp/knowledge/facts")),
            Just(json!("hsp/a/+/b")),
            Just(json!("0.1")),
            Just(json!("1.0.3")),
            Just(json!("HSP::Fact_v0.1")),
            Just(json!("HSP::TaskRequest_v1.0")),
            Just(json!("HSP::Nothing_v1.0")),
            Just(json!("request")),
            Just(json!("publish")),
            Just(json!("received")),
            Just(json!("natural_language")),
            Just(json!("semantic_triple")),
            "[ -~]{0,12}".prop_map(Value::String),
        ]
    }

    /// The value at the `choice`-th place of a depth-first walk.
    fn place(value: &mut Value, choice: usize) -> &mut Value {
        fn count(v: &Value) -> usize {
            1 + match v {
                Value::Object(m) => m.values().map(count).sum(),
                Value::Array(a) => a.iter().map(count).sum(),
                _ => 0,
            }
        }
        let mut left = choice % count(value);
        let mut at = value;
        while left > 0 {
            left -= 1;
            let children: Vec<&mut Value> = match at {
                Value::Object(m) => m.values_mut().collect(),
                Value::Array(a) => a.iter_mut().collect(),
                _ => unreachable!("a leaf has no places under it"),
            };
            let mut next = None;
            for child in children {
                let size = count(child);
                if left < size {
                    next = Some(child);
                    break;
                }
                left -= size;
            }
            at = next.expect("the place is under one of the children");
        }
        at
    }

    proptest! {
        #![proptest_config(crate::proptest_config::config(2048))]

        #[test]
        fn damaged_examples_get_the_same_verdict(
            pick in any::<prop::sample::Index>(),
            places in prop::collection::vec((any::<usize>(), replacement(), any::<bool>()), 1..4),
        ) {
            let mut message = pick.get(examples()).clone();
            for (choice, with, remove) in places {
                let at = place(&mut message, choice);
                match at {
                    // Removing a member, or replacing the object's value.
                    Value::Object(m) if remove && !m.is_empty() => {
                        let key = m.keys().nth(choice % m.len()).cloned().unwrap_or_default();
                        m.remove(&key);
                    }
                    _ => *at = with,
                }
            }
            agree(&message)?;
        }
    }
}
