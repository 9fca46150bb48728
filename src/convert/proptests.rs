//! Property tests: generated messages of every protocol go to every other
//! protocol and back with `round_trip_tests::check_message`'s promises kept.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::promise::check_message;
use crate::model::{Intent, MetaBlock};
use crate::protocols::crosstalk::{self, envelope::Envelope};
use crate::protocols::{Protocol, ReadOptions, csdl, msp};

fn ulid() -> impl Strategy<Value = String> {
    any::<u128>().prop_map(|n| ulid::Ulid::from(n >> 2).to_string())
}

fn uuid7() -> impl Strategy<Value = String> {
    any::<u128>().prop_map(|n| {
        let bits = (n & !(0xF << 76) & !(0x3 << 62)) | (0x7 << 76) | (0x2 << 62);
        uuid::Uuid::from_u128(bits).hyphenated().to_string()
    })
}

fn words() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z0-9][A-Za-z0-9 ,.?!'()-]{0,40}".prop_map(|s| s.trim().to_string()),
        "\\PC{0,30}"
    ]
}

fn address() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Z][A-Z0-9_-]{0,10}",
        "(claude|chatgpt|human)://[a-z]{1,6}/[a-z0-9]{1,8}",
        "did:[a-z]{2,5}:[A-Za-z0-9_]{1,10}",
        // Someone's own address in aiproto's DID method, which it must not decode.
        "did:aiproto:[a-z]{1,5}/[a-z]{1,5}",
    ]
}

fn text_body() -> impl Strategy<Value = String> {
    prop::collection::vec(words(), 1..4).prop_map(|lines| lines.join("\n").trim().to_string())
}

fn meta_block() -> impl Strategy<Value = MetaBlock> {
    let key = prop_oneof!["[A-Z][a-z0-9]{0,8}(-[A-Z][a-z]{0,4})?", "X-[A-Za-z]{1,6}"];
    (
        prop_oneof![
            Just("routing".to_string()),
            Just("audit".to_string()),
            "custom-[a-z]{1,6}"
        ],
        prop::collection::vec(
            (key, words().prop_filter("a value", |v| !v.is_empty())),
            1..4,
        ),
    )
        .prop_map(|(namespace, entries)| MetaBlock { namespace, entries })
}

/// Valid Crosstalk 1.1 envelopes.
fn crosstalk_1_1() -> impl Strategy<Value = String> {
    (
        (
            address(),
            address(),
            prop::option::of(words()),
            prop::option::of(words()),
        ),
        (
            prop_oneof![ulid(), uuid7()],
            prop::option::of(ulid()),
            prop::option::of(ulid()),
        ),
        // Every registry intent but ERROR, which needs a `meta: error` block.
        prop::sample::select(
            Intent::REGISTRY
                .iter()
                .filter(|i| **i != Intent::Error)
                .map(|i| i.as_str().to_string())
                .collect::<Vec<_>>(),
        ),
        prop::collection::vec(meta_block(), 0..3),
        // An empty body too: an ACK or NACK often says nothing more.
        prop_oneof![4 => text_body(), 1 => Just(String::new())],
    )
        .prop_map(
            |((sender, receiver, user, context), (message, thread, parent), intent, meta, body)| {
                let env = Envelope {
                    sender,
                    receiver,
                    version_token: "v1".into(),
                    user: user.filter(|u| !u.is_empty()),
                    context: context.filter(|c| !c.is_empty()),
                    message: Some(message),
                    thread,
                    parent,
                    intent: Some(intent.to_string()),
                    meta,
                    body: Some(body),
                    sig: Some("none".into()),
                    ..Envelope::default()
                };
                crosstalk::render(&env)
            },
        )
}

/// Valid Crosstalk 1.0 envelopes (no ids, no meta, the old intents too).
fn crosstalk_1_0() -> impl Strategy<Value = String> {
    (
        address(),
        address(),
        prop::sample::select(vec![
            "QUESTION", "ANSWER", "STATUS", "PATCH", "NOTE", "REQUEST", "RESPOND", "ACK", "POLL",
        ]),
        text_body(),
    )
        .prop_map(|(sender, receiver, intent, body)| {
            let env = Envelope {
                sender,
                receiver,
                version_token: "v1".into(),
                intent: Some(intent.to_string()),
                // Upstream's 1.0 examples often have no `sig:` line.
                sig: (body.len() % 2 == 0).then(|| "none".into()),
                body: Some(body),
                ..Envelope::default()
            };
            crosstalk::render(&env)
        })
}

fn did() -> impl Strategy<Value = String> {
    "did:hsp:[a-z_]{1,10}"
}

/// Valid HSP envelopes of both versions: facts, task requests and results, ACKs.
fn hsp() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["0.1", "1.0"]),
        uuid7(),
        (did(), prop_oneof![did(), Just("hsp/knowledge/facts/general".to_string())]),
        0u8..4,
        (words(), 0.0f64..=1.0, prop::option::of(uuid7())),
        prop::option::of(prop::sample::select(vec!["low", "medium", "high"])),
        prop::option::of(words()),
    )
        .prop_map(|(v, id, (sender, recipient), kind, (text, score, parent), priority, extra)| {
            let ts = "2025-01-02T03:04:05Z";
            let (pattern, type_name, payload, parent) = match kind {
                0 => ("publish", "Fact", json!({"id": format!("fact_{id}"), "statement_type": "natural_language", "statement_nl": text, "source_ai_id": sender, "timestamp_created": ts, "confidence_score": score}), parent),
                1 => ("request", "TaskRequest", json!({"request_id": id, "requester_ai_id": sender, "capability_id_filter": "cap_x", "parameters": {"q": text}, "callback_address": "hsp/results/x"}), parent),
                2 => ("response", "TaskResult", json!({"result_id": id, "request_id": "r1", "executing_ai_id": sender, "status": "success", "payload": {"answer": text}}), Some(parent.unwrap_or_else(|| "r1".into()))),
                _ => ("response", "Acknowledgement", json!({"status": "received", "ack_timestamp": ts, "target_message_id": "m1"}), Some(parent.unwrap_or_else(|| "m1".into()))),
            };
            let mut env = json!({
                "hsp_envelope_version": v, "message_id": id, "sender_ai_id": sender,
                "recipient_ai_id": recipient, "timestamp_sent": ts,
                "message_type": format!("HSP::{type_name}_v{v}"), "protocol_version": v,
                "communication_pattern": pattern, "payload": payload,
            });
            if let Some(p) = parent {
                env["correlation_id"] = json!(p);
            }
            if let Some(p) = priority {
                env["qos_parameters"] = json!({"priority": p, "requires_ack": false});
            }
            if let Some(e) = extra {
                env["trace_note"] = json!(e);
            }
            env.to_string()
        })
}

/// Valid CSDL: messages with every intent and `m` metadata, and other elements.
fn csdl() -> impl Strategy<Value = String> {
    let message = (
        "[a-z_]{1,8}",
        "[a-z_]{1,8}",
        prop::sample::select(csdl::checks::INTENTS.to_vec()),
        prop_oneof![
            words().prop_map(Value::from),
            Just(json!({"action": "x", "data": {"n": 1}}))
        ],
        prop::option::of(0.0f64..=1.0),
        prop::option::of(("[a-z]{1,6}", words())),
    )
        .prop_map(|(from, to, intent, v, cx, m)| {
            let mut msg = json!({"t": "message", "from": from, "to": to, "intent": intent, "v": v});
            if let Some(cx) = cx {
                msg["cx"] = json!(cx);
            }
            if let Some((k, val)) = m {
                msg["m"] = json!({ k: val });
            }
            msg
        });
    prop_oneof![message, csdl::proptests::element()].prop_map(|v| v.to_string())
}

fn msp() -> impl Strategy<Value = String> {
    msp::proptests::signal().prop_map(|s| s.to_compact_string())
}

/// Valid A2A 1.0 objects: user and agent messages (one or several parts),
/// tasks in every state with artifacts, status updates; bare, in a stream
/// response, or as the result of a JSON-RPC response.
fn a2a() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        words().prop_map(|t| json!({"text": t})),
        words().prop_map(|t| json!({"data": {"q": t, "n": 1}})),
        "[a-z]{1,8}".prop_map(|f| json!({"url": format!("https://example.com/{f}.pdf"), "mediaType": "application/pdf", "filename": format!("{f}.pdf")})),
    ];
    let state = prop::sample::select(vec![
        "TASK_STATE_SUBMITTED",
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_FAILED",
        "TASK_STATE_CANCELED",
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_REJECTED",
        "TASK_STATE_AUTH_REQUIRED",
    ]);
    (
        0u8..3,
        (uuid7(), prop::option::of(uuid7()), prop::option::of(uuid7())),
        prop::bool::ANY,
        prop::collection::vec(part, 1..3),
        state,
        prop::option::of(prop_oneof![Just("2025-10-28T10:30:00.000Z"), Just("2026-01-02T03:04:05Z")]),
        (prop::option::of(("[a-z]{1,6}", words())), 0u8..3),
    )
        .prop_map(|(kind, (id, context, task), user, parts, state, time, (metadata, wrap))| {
            let mut status = json!({"state": state});
            if let Some(t) = time {
                status["timestamp"] = json!(t);
            }
            let mut doc = match kind {
                0 => {
                    let role = if user { "ROLE_USER" } else { "ROLE_AGENT" };
                    let mut m = json!({"messageId": id, "role": role, "parts": parts});
                    if let Some(c) = context {
                        m["contextId"] = json!(c);
                    }
                    if let Some(t) = task {
                        m["taskId"] = json!(t);
                    }
                    m
                }
                1 => json!({"id": id, "contextId": context.unwrap_or_else(|| "ctx".into()), "status": status,
                    "artifacts": [{"artifactId": "a1", "name": "result", "parts": parts}]}),
                _ => json!({"taskId": id, "contextId": context.unwrap_or_else(|| "ctx".into()), "status": status}),
            };
            if let Some((k, v)) = metadata {
                doc["metadata"] = json!({ k: v });
            }
            let member = ["message", "task", "statusUpdate"][usize::from(kind)];
            match wrap {
                0 => doc,
                1 => json!({ member: doc }),
                _ => json!({"jsonrpc": "2.0", "id": 7, "result": { member: doc }}),
            }
            .to_string()
        })
}

/// Reads a generated text; generators write valid messages, a few may not be.
fn check(text: &str, protocol: Protocol) -> Result<(), TestCaseError> {
    let found = protocol.read(text, &ReadOptions::default());
    let Some(found) = found.first().filter(|f| f.is_valid(false)) else {
        return Err(TestCaseError::reject("generated message is not valid"));
    };
    check_message(found).map_err(TestCaseError::fail)
}

proptest! {
    #![proptest_config(crate::proptest_config::config(128))]

    #[test]
    fn crosstalk_1_1_round_trips(text in crosstalk_1_1()) {
        check(&text, Protocol::Crosstalk)?;
    }

    #[test]
    fn crosstalk_1_0_round_trips(text in crosstalk_1_0()) {
        check(&text, Protocol::Crosstalk)?;
    }

    #[test]
    fn hsp_round_trips(text in hsp()) {
        check(&text, Protocol::Hsp)?;
    }

    #[test]
    fn csdl_round_trips(text in csdl()) {
        check(&text, Protocol::Csdl)?;
    }

    #[test]
    fn msp_round_trips(text in msp()) {
        check(&text, Protocol::Msp)?;
    }

    #[test]
    fn a2a_round_trips(text in a2a()) {
        check(&text, Protocol::A2a)?;
    }
}

/// An HSP message id of any form an agent uses: a UUID of any version, a
/// ULID, or any string.
fn any_hsp_id() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u128>().prop_map(|n| uuid::Uuid::from_u128(n).hyphenated().to_string()),
        uuid7(),
        ulid(),
        "[A-Za-z0-9_.:-]{1,30}",
    ]
}

proptest! {
    #![proptest_config(crate::proptest_config::config(128))]

    /// Any TaskRequest, whatever its id's form, converted to Crosstalk,
    /// answered with a reply and converted back with the request known:
    /// the TaskResult takes the request's `request_id`, goes to its
    /// `callback_address` and correlates to the `message_id` it was sent.
    #[test]
    fn an_answer_finds_its_request_whatever_its_id(
        id in any_hsp_id(),
        request_id in "[A-Za-z0-9_-]{1,20}",
        callback in "hsp/results/[a-z0-9_]{1,12}",
        answer in "[A-Za-z][A-Za-z0-9 ]{0,30}",
    ) {
        use crate::protocols::ProtocolSpec;
        let request = json!({
            "hsp_envelope_version": "0.1",
            "message_id": id,
            "correlation_id": null,
            "sender_ai_id": "did:hsp:ai_alpha",
            "recipient_ai_id": "did:hsp:ai_gamma",
            "timestamp_sent": "2024-07-05T14:00:00Z",
            "message_type": "HSP::TaskRequest_v0.1",
            "protocol_version": "0.1",
            "communication_pattern": "request",
            "payload": {
                "request_id": request_id,
                "requester_ai_id": "did:hsp:ai_alpha",
                "target_ai_id": "did:hsp:ai_gamma",
                "capability_id_filter": "translate",
                "parameters": {"text": "Hello"},
                "callback_address": callback,
            }
        });
        let read = Protocol::Hsp.read(&request.to_string(), &ReadOptions::default());
        prop_assert!(read[0].is_valid(false), "{:?}", read[0].diagnostics);
        let to = |protocol| ProtocolSpec { protocol, version: None };
        let envelope = super::convert(&read[0], to(Protocol::Crosstalk), super::WriteOptions::default())
            .expect("a TaskRequest converts to Crosstalk");
        let original = crosstalk::parse_all(&envelope.text).remove(0).envelope;
        let mut reply = crosstalk::reply::skeleton(&original, None).expect("one receiver");
        reply.body = Some(answer.clone());
        reply.message = Some(crate::ids::new_ulid());
        let reply_text = crosstalk::render(&reply);
        let reply_read = Protocol::Crosstalk.read(&reply_text, &ReadOptions::default());
        let converted = super::convert(&reply_read[0], to(Protocol::Hsp), super::WriteOptions::default())
            .expect("a reply converts to HSP");
        let mut result: Value = serde_json::from_str(&converted.text).unwrap();
        // The request as given (HSP), and as the Crosstalk envelope it became.
        for known in [request.clone(), serde_json::from_str(&super::convert(
            &Protocol::Crosstalk.read(&envelope.text, &ReadOptions::default())[0],
            to(Protocol::Hsp),
            super::WriteOptions::default(),
        ).unwrap().text).unwrap()] {
            let mut requests = super::answers::Requests::new();
            requests.remember(&known);
            let mut pointed = result.clone();
            prop_assert_eq!(requests.point_at(&mut pointed), super::answers::Pointed::Pointed, "{}", envelope.text);
            prop_assert_eq!(&pointed["payload"]["request_id"], &json!(request_id));
            prop_assert_eq!(&pointed["recipient_ai_id"], &json!(callback));
            prop_assert_eq!(&pointed["correlation_id"], &json!(id));
        }
        result["correlation_id"] = json!("someone-else");
        prop_assert_eq!(super::answers::Requests::new().point_at(&mut result), super::answers::Pointed::Unknown);
    }
}
