//! compact(expand(x)) == x for compact documents and expand(compact(y)) == y
//! for expanded ones, over generated elements of every kind, with user
//! names that collide with the codes (a parameter called `t` or `p`).

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::codes::{self, Spelling};

/// A user-chosen name; often one of the codes, to catch renaming of user data.
fn user_name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{1,8}",
        prop::sample::select(vec![
            "t", "n", "d", "p", "r", "a", "v", "cx", "m", "s", "c", "type", "name"
        ])
        .prop_map(str::to_string),
    ]
}

fn data() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        "[a-z ]{0,8}".prop_map(Value::String),
        any::<i16>().prop_map(|n| json!(n)),
        any::<bool>().prop_map(Value::Bool),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop::collection::btree_map(user_name(), inner, 0..3)
            .prop_map(|m| Value::Object(m.into_iter().collect()))
    })
}

fn type_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "string", "integer", "float", "boolean", "array", "object", "any",
    ])
    .prop_map(str::to_string)
}

/// A parameter or field type, in compact form.
fn type_spec() -> impl Strategy<Value = Value> {
    let leaf = (
        type_name(),
        prop::option::of("[a-z ]{0,10}"),
        prop::option::of(any::<bool>()),
        prop::option::of(data()),
    )
        .prop_map(|(t, d, r, default)| {
            let mut m = Map::new();
            m.insert("t".into(), json!(t));
            if let Some(d) = d {
                m.insert("d".into(), json!(d));
            }
            if let Some(r) = r {
                m.insert("r".into(), json!(r));
            }
            if let Some(v) = default {
                m.insert("default".into(), v);
            }
            Value::Object(m)
        });
    leaf.prop_recursive(2, 8, 3, |inner| {
        (
            inner.clone(),
            prop::collection::btree_map(user_name(), inner, 0..3),
        )
            .prop_map(|(mut spec, fields)| {
                spec["p"] = Value::Object(fields.into_iter().collect());
                spec
            })
    })
}

fn params() -> impl Strategy<Value = Value> {
    prop::collection::btree_map(user_name(), type_spec(), 0..4)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

fn function() -> impl Strategy<Value = Value> {
    (
        "[a-z_]{1,10}",
        params(),
        type_spec(),
        prop::option::of(0.0f64..=1.0),
        prop::option::of(data()),
    )
        .prop_map(|(n, p, r, cx, m)| {
            let mut f = json!({"t": "function", "n": n, "p": p, "r": r});
            if let Some(cx) = cx {
                f["cx"] = json!(cx);
            }
            if let Some(m) = m {
                f["m"] = m;
            }
            f
        })
}

fn step() -> impl Strategy<Value = Value> {
    let leaf = (
        "[a-z]{1,6}",
        "[a-z_]{1,8}",
        data(),
        prop::option::of("[a-z]{1,6}"),
    )
        .prop_map(|(id, action, a, next)| {
            let mut s = json!({"id": id, "action": action, "a": a});
            if let Some(n) = next {
                s["next"] = json!(n);
            }
            s
        });
    leaf.prop_recursive(2, 6, 2, |inner| {
        (inner.clone(), prop::collection::vec(inner, 1..3)).prop_map(|(mut s, nested)| {
            s["s"] = Value::Array(nested);
            s
        })
    })
}

pub(crate) fn element() -> impl Strategy<Value = Value> {
    prop_oneof![
        function(),
        ("[A-Z][a-z]{1,8}", params(), prop::collection::vec(function(), 0..3))
            .prop_map(|(n, p, methods)| json!({"t": "class", "n": n, "p": p, "methods": methods})),
        ("[a-z_]{1,10}", prop::collection::vec(step(), 1..4))
            .prop_map(|(n, s)| json!({"t": "workflow", "n": n, "s": s})),
        ("[a-z]{1,6}", "[a-z]{1,6}", data(), 0.0f64..=1.0)
            .prop_map(|(from, to, v, cx)| json!({"t": "message", "from": from, "to": to, "intent": "notify", "v": v, "cx": cx})),
        ("[a-z_]{1,8}", data(), data())
            .prop_map(|(key, v, m)| json!({"t": "memory", "op": "store", "key": key, "v": v, "m": m})),
    ]
}

fn with_children() -> impl Strategy<Value = Value> {
    (element(), prop::collection::vec(element(), 0..3)).prop_map(|(mut e, c)| {
        if !c.is_empty() {
            e["c"] = Value::Array(c);
        }
        e
    })
}

proptest! {
    #![proptest_config(crate::proptest_config::config(256))]

    #[test]
    fn compact_of_expand_is_the_identity(x in with_children()) {
        let expanded = codes::expand(&x);
        prop_assert_eq!(codes::compact(&expanded), x.clone());
        prop_assert_eq!(codes::spelling(&x), Spelling::Compact);
    }

    #[test]
    fn expand_of_compact_is_the_identity(x in with_children()) {
        let y = codes::expand(&x);
        prop_assert_eq!(codes::expand(&codes::compact(&y)), y.clone());
        prop_assert_eq!(codes::spelling(&y), Spelling::Expanded);
    }

    #[test]
    fn checking_never_panics_and_both_spellings_agree(x in with_children()) {
        let compact: Vec<_> = super::check(&x).into_iter().map(|f| (f.diagnostic.code, f.pointer)).collect();
        let expanded: Vec<_> = super::check(&codes::expand(&x)).into_iter().map(|f| (f.diagnostic.code, f.pointer)).collect();
        prop_assert_eq!(compact, expanded);
    }
}
