//! `aiproto compose hsp`: every kind, replies, and refusals; output always validates.

use predicates::prelude::*;

use super::{aiproto, home, json_lines};

fn compose(h: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let out = aiproto(h)
        .args(["compose", "hsp"])
        .args(args)
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    aiproto(h)
        .args(["validate", "--strict"])
        .write_stdin(text.clone())
        .assert()
        .code(0);
    serde_json::from_str(&text).expect("compose prints one JSON message")
}

#[test]
fn every_kind_composes_into_a_valid_message_in_both_versions() {
    let h = home();
    let cap = h.path().join("cap.json");
    std::fs::write(&cap, r#"{"capability_id": "c1", "ai_id": "did:hsp:g", "name": "T", "description": "d", "version": "1.0.0", "availability_status": "online", "parameters": {}, "returns": {}}"#).unwrap();
    let cap = cap.to_str().unwrap().to_string();
    for version in ["0.1", "1.0"] {
        let hsp = ["--version", version, "--from", "did:hsp:me"];
        let cases: Vec<(&str, Vec<&str>)> = vec![
            (
                "fact",
                vec!["--statement", "The sky is blue.", "--confidence", "0.9"],
            ),
            (
                "belief",
                vec![
                    "--triple",
                    "hsp:entity:Sky,hsp:property:hasColor,blue",
                    "--confidence",
                    "0.6",
                    "--set",
                    "justification=looked up",
                ],
            ),
            (
                "opinion",
                vec![
                    "--statement",
                    "Cursors win.",
                    "--confidence",
                    "0.7",
                    "--set",
                    "reasoning_chain=[\"f1\"]",
                ],
            ),
            (
                "capability",
                vec![
                    "--capability-id",
                    "c1",
                    "--name",
                    "Translate",
                    "--description",
                    "en→fr",
                    "--availability",
                    "online",
                    "--set",
                    "version=1.2.0",
                    "--set",
                    "parameters={}",
                    "--set",
                    "returns={}",
                ],
            ),
            (
                "task-request",
                vec![
                    "--to",
                    "did:hsp:worker",
                    "--capability-id",
                    "c1",
                    "--param",
                    "text=Hello",
                    "--callback",
                    "hsp/results/me",
                ],
            ),
            (
                "task-result",
                vec![
                    "--to",
                    "did:hsp:boss",
                    "--correlation-id",
                    "m1",
                    "--request-id",
                    "r1",
                    "--status",
                    "failure",
                    "--error-code",
                    "TIMEOUT",
                    "--reason",
                    "took too long",
                ],
            ),
            (
                "context-update",
                vec![
                    "--phenomenon",
                    "hsp:event:UserMoodShift",
                    "--param",
                    "mood=happy",
                ],
            ),
            (
                "state-sync",
                vec![
                    "--to",
                    "did:hsp:peer",
                    "--component",
                    "memory",
                    "--chunk",
                    "e30=",
                    "--data-format",
                    "application/json",
                ],
            ),
            (
                "ack",
                vec!["--to", "did:hsp:boss", "--correlation-id", "m1"],
            ),
            (
                "nack",
                vec![
                    "--to",
                    "did:hsp:boss",
                    "--correlation-id",
                    "m1",
                    "--error-code",
                    "BAD",
                    "--reason",
                    "no payload",
                ],
            ),
            (
                "discovery-query",
                vec!["--tags", "nlp,translation", "--min-trust", "0.7"],
            ),
            (
                "discovery-response",
                vec![
                    "--to",
                    "did:hsp:asker",
                    "--correlation-id",
                    "q1",
                    "--capability-file",
                    &cap,
                ],
            ),
        ];
        for (kind, extra) in cases {
            let mut args = vec![kind];
            args.extend(hsp);
            args.extend(extra.iter().copied());
            let m = compose(h.path(), &args);
            assert_eq!(m["hsp_envelope_version"], version, "{kind}");
            assert!(
                m["message_type"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("_v{version}")),
                "{kind}"
            );
        }
    }
}

#[test]
fn fills_ids_timestamps_pattern_and_topic() {
    let h = home();
    let m = compose(
        h.path(),
        &[
            "fact",
            "--from",
            "did:hsp:me",
            "--statement",
            "x",
            "--confidence",
            "1",
        ],
    );
    assert_eq!(m["recipient_ai_id"], "hsp/knowledge/facts/general");
    assert_eq!(m["communication_pattern"], "publish");
    assert_eq!(m["payload"]["source_ai_id"], "did:hsp:me");
    assert_eq!(m["message_id"].as_str().unwrap().len(), 36);
    assert!(m["timestamp_sent"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn reply_to_a_task_request_builds_its_result() {
    let h = home();
    let req = compose(
        h.path(),
        &[
            "task-request",
            "--version",
            "0.1",
            "--from",
            "did:hsp:boss",
            "--to",
            "did:hsp:worker",
            "--capability-id",
            "c1",
            "--callback",
            // A DID in a topic segment, as in the topics aiproto publishes to.
            "hsp/results/did:hsp:boss",
        ],
    );
    let path = h.path().join("req.json");
    std::fs::write(&path, req.to_string()).unwrap();
    let res = compose(
        h.path(),
        &[
            "--reply-to",
            path.to_str().unwrap(),
            "--status",
            "success",
            "--result",
            "{\"ok\": true}",
        ],
    );
    assert_eq!(res["message_type"], "HSP::TaskResult_v0.1");
    assert_eq!(res["correlation_id"], req["message_id"]);
    assert_eq!(res["recipient_ai_id"], "hsp/results/did:hsp:boss");
    assert_eq!(res["sender_ai_id"], "did:hsp:worker");
    assert_eq!(res["payload"]["request_id"], req["payload"]["request_id"]);
    assert_eq!(res["payload"]["payload"]["ok"], true);
    let ack = compose(h.path(), &["ack", "--reply-to", path.to_str().unwrap()]);
    assert_eq!(ack["recipient_ai_id"], "did:hsp:boss");
    assert_eq!(ack["payload"]["target_message_id"], req["message_id"]);
    // Thread: the result hangs under its request.
    let res_path = h.path().join("res.json");
    std::fs::write(&res_path, res.to_string()).unwrap();
    let out = aiproto(h.path())
        .args(["thread", "--format", "json"])
        .arg(&path)
        .arg(&res_path)
        .assert()
        .code(0);
    assert_eq!(
        json_lines(&out.get_output().stdout)[0]["root"]["children"][0]["intent"],
        "RESPOND"
    );
}

#[test]
fn payload_file_and_overrides() {
    let h = home();
    let file = h.path().join("p.json");
    std::fs::write(
        &file,
        r#"{"statement_nl": "from file", "confidence_score": 0.3, "tags": ["a"]}"#,
    )
    .unwrap();
    let m = compose(
        h.path(),
        &[
            "fact",
            "--from",
            "did:hsp:me",
            "--payload-file",
            file.to_str().unwrap(),
            "--confidence",
            "0.8",
        ],
    );
    assert_eq!(m["payload"]["statement_nl"], "from file");
    assert_eq!(m["payload"]["confidence_score"], 0.8);
}

#[test]
fn invalid_compositions_write_nothing() {
    let h = home();
    aiproto(h.path())
        .args([
            "compose",
            "hsp",
            "fact",
            "--from",
            "did:hsp:me",
            "--statement",
            "x",
            "--confidence",
            "1.5",
        ])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("HSP-SCORE-RANGE"));
    aiproto(h.path())
        .args([
            "compose",
            "hsp",
            "fact",
            "--from",
            "did:hsp:me",
            "--statement",
            "x",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("confidence_score"));
    aiproto(h.path())
        .args([
            "compose",
            "hsp",
            "ack",
            "--from",
            "did:hsp:me",
            "--to",
            "did:hsp:x",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--correlation-id"));
    aiproto(h.path())
        .args(["compose", "hsp", "--from", "did:hsp:me"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("KIND"));
    aiproto(h.path())
        .args(["compose", "hsp", "fact", "--statement", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--from"));
    aiproto(h.path())
        .args([
            "compose",
            "hsp",
            "fact",
            "--from",
            "did:hsp:me",
            "--intent",
            "REQUEST",
        ])
        .assert()
        .code(2);
    aiproto(h.path())
        .args([
            "compose",
            "crosstalk",
            "--from",
            "A",
            "--to",
            "B",
            "--intent",
            "REQUEST",
            "--body",
            "x",
            "--confidence",
            "1",
        ])
        .assert()
        .code(2);
    aiproto(h.path())
        .args([
            "compose",
            "hsp",
            "fact",
            "--version",
            "2.0",
            "--from",
            "did:hsp:me",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no version"));
}

#[test]
fn a_1_0_capability_asks_for_its_schemas_and_string_fields_stay_text() {
    let h = home();
    let base = [
        "capability",
        "--from",
        "did:hsp:me",
        "--capability-id",
        "c1",
        "--name",
        "N",
        "--description",
        "D",
        "--set",
        "version=0.9",
    ];
    aiproto(h.path())
        .args(["compose", "hsp"])
        .args(base)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "--parameters-schema and --returns-schema",
        ));
    let mut args = base.to_vec();
    args.extend([
        "--parameters-schema",
        "{\"type\": \"object\"}",
        "--returns-schema",
        "{\"type\": \"string\"}",
    ]);
    let cap = compose(h.path(), &args);
    assert_eq!(cap["payload"]["version"], "0.9");
    assert_eq!(cap["payload"]["returns"]["type"], "string");
}

/// The upstream's Heartbeat, Discovery and Error payloads: composed with
/// their defaults and flags, validated by their schemas (a status outside
/// the three, an Error without its message refused), and converted to
/// Crosstalk and back unchanged.
#[test]
fn heartbeat_discovery_and_error_compose_validate_and_round_trip() {
    let h = home();
    let heartbeat = compose(h.path(), &["heartbeat", "--from", "did:hsp:ai_gamma"]);
    assert_eq!(heartbeat["message_type"], "HSP::Heartbeat_v1.0");
    assert_eq!(heartbeat["recipient_ai_id"], "hsp/heartbeats");
    assert_eq!(heartbeat["payload"]["status"], "healthy");
    assert_eq!(heartbeat["payload"]["sender_ai_id"], "did:hsp:ai_gamma");
    let discovery = compose(
        h.path(),
        &[
            "discovery",
            "--from",
            "did:hsp:ai_gamma",
            "--tags",
            "translate,summarize",
        ],
    );
    assert_eq!(
        discovery["payload"]["capabilities"],
        serde_json::json!(["translate", "summarize"])
    );
    let error = compose(
        h.path(),
        &[
            "error",
            "--from",
            "did:hsp:ai_gamma",
            "--to",
            "did:hsp:ai_alpha",
            "--correlation-id",
            "018f4a6e-8c1b-7d2a-9e3f-00000000a001",
            "--error-code",
            "processing_failed",
            "--reason",
            "timed out",
        ],
    );
    assert_eq!(error["communication_pattern"], "response");
    assert_eq!(error["payload"]["error_message"], "timed out");
    aiproto(h.path())
        .args([
            "compose",
            "hsp",
            "error",
            "--from",
            "did:hsp:ai_gamma",
            "--to",
            "did:hsp:ai_alpha",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--correlation-id"));
    for bad in [
        ("status", serde_json::json!("asleep")),
        ("status", serde_json::json!(null)),
    ] {
        let mut broken = heartbeat.clone();
        broken["payload"][bad.0] = bad.1;
        aiproto(h.path())
            .args(["validate", "-"])
            .write_stdin(broken.to_string())
            .assert()
            .code(1);
    }
    let mut broken = error.clone();
    broken["payload"]
        .as_object_mut()
        .unwrap()
        .remove("error_message");
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(broken.to_string())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("error_message"));
    for message in [heartbeat, discovery, error] {
        let crosstalk = aiproto(h.path())
            .args(["convert", "--to", "crosstalk"])
            .write_stdin(message.to_string())
            .assert()
            .code(0);
        let back = aiproto(h.path())
            .args(["convert", "--to", "hsp", "--format", "json"])
            .write_stdin(crosstalk.get_output().stdout.clone())
            .assert()
            .code(0);
        assert_eq!(json_lines(&back.get_output().stdout)[0], message);
    }
}
