//! Property tests of the MSP codec: generated signals are valid, read back
//! equal and survive JSON text both ways; [`signal`] generates them for the
//! encoder's and the converter's property tests too.

use chrono::{DateTime, TimeZone, Utc};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::{Intent, MinimalSignal, Priority};
fn intent() -> impl Strategy<Value = Intent> {
    prop::sample::select(Intent::ALL.to_vec())
}

fn priority() -> impl Strategy<Value = Priority> {
    prop::sample::select(Priority::ALL.to_vec())
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-zA-Z0-9 ,.:-]{0,20}".prop_map(Value::String),
        any::<i32>().prop_map(|n| json!(n)),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
    ]
}

fn object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("[a-z_]{1,10}", scalar(), 0..4)
        .prop_map(|m| m.into_iter().collect())
}

fn timestamp() -> impl Strategy<Value = DateTime<Utc>> {
    // Microsecond precision, as the spec's Python model keeps it.
    (0i64..4_000_000_000, 0u32..1_000_000)
        .prop_map(|(s, us)| Utc.timestamp_opt(s, us * 1000).single().unwrap_or_default())
}

pub(crate) fn signal() -> impl Strategy<Value = MinimalSignal> {
    (
        intent(),
        "[A-Za-z0-9][A-Za-z0-9 _.-]{0,30}",
        object(),
        prop::collection::vec("[a-zA-Z ]{1,30}", 0..3),
        object(),
        priority(),
        // A UUID (the default) or an id such as upstream's `trace-0001`.
        prop_oneof![
            any::<u128>().prop_map(|id| uuid::Uuid::from_u128(id).to_string()),
            "[a-z]{1,8}-[0-9]{1,6}",
        ],
        timestamp(),
        prop::option::of("[a-f0-9-]{8,36}"),
    )
        .prop_map(
            |(intent, target, params, constraints, state, priority, id, timestamp, parent_id)| {
                MinimalSignal {
                    version: "1.0".into(),
                    intent,
                    target: target.trim().to_string(),
                    params,
                    constraints,
                    state,
                    priority,
                    trace_id: id,
                    timestamp,
                    parent_id,
                }
            },
        )
        .prop_filter("a target that is not empty", |s| !s.target.is_empty())
}

proptest! {
    #![proptest_config(crate::proptest_config::config(256))]

    /// Property 1: every field is present, the JSON is valid, and it reads back equal.
    #[test]
    fn p1_schema_validity(s in signal()) {
        let json = s.to_json();
        for field in ["intent", "target", "params", "constraints", "state", "priority", "trace_id", "timestamp"] {
            prop_assert!(json.get(field).is_some(), "no {field}");
        }
        let (_, findings) = super::check(&json);
        prop_assert!(findings.is_empty(), "{findings:?}");
        prop_assert_eq!(MinimalSignal::from_json(&json).unwrap(), s);
    }

    /// Property 8: JSON text → signal → JSON text is the identity.
    #[test]
    fn p8_json_round_trip(s in signal()) {
        let text = s.to_compact_string();
        let back: MinimalSignal = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(back.to_compact_string(), text);
    }
}
