//! HSP 0.1 and 1.0 through the binary: every payload type valid and invalid,
//! the three input shapes, syntax errors, strict and lenient.

use predicates::prelude::*;

use super::{aiproto, home, json_lines, repo};

/// Each invalid example and the one finding its name promises.
const EXPECTED: &[(&str, &str)] = &[
    ("ack-status-not-received", "HSP-ACK-SHAPE"),
    ("ack-without-correlation-id", "HSP-CORRELATION-MISSING"),
    ("belief-holder-not-a-did", "HSP-ID-FORMAT"),
    ("belief-justification-type-unknown", "HSP-SCHEMA-ENUM"),
    ("capability-1.0-without-returns", "HSP-SCHEMA-REQUIRED"),
    ("capability-availability-unknown", "HSP-SCHEMA-ENUM"),
    ("capability-missing-version", "HSP-SCHEMA-REQUIRED"),
    ("discovery-query-min-trust-above-1", "HSP-SCORE-RANGE"),
    ("discovery-query-tags-not-a-list", "HSP-SCHEMA-TYPE"),
    (
        "discovery-response-capability-without-ai-id",
        "HSP-SCHEMA-REQUIRED",
    ),
    (
        "discovery-response-without-capabilities",
        "HSP-SCHEMA-REQUIRED",
    ),
    ("envelope-json-syntax-error", "HSP-JSON"),
    ("error-without-message", "HSP-SCHEMA-REQUIRED"),
    ("envelope-recipient-neither-did-nor-topic", "HSP-ID-FORMAT"),
    ("envelope-timestamp-is-an-integer", "HSP-TIMESTAMP"),
    ("envelope-type-version-mismatch", "HSP-VERSION-MISMATCH"),
    ("envelope-without-message-id", "HSP-SCHEMA-REQUIRED"),
    ("environmental-state-observed-not-utc", "HSP-TIMESTAMP"),
    ("environmental-state-scope-unknown", "HSP-SCHEMA-ENUM"),
    ("fact-confidence-above-1", "HSP-SCORE-RANGE"),
    (
        "fact-natural-language-without-statement",
        "HSP-STATEMENT-MISMATCH",
    ),
    ("fact-triple-without-object", "HSP-TRIPLE-INCOMPLETE"),
    ("heartbeat-status-unknown", "HSP-SCHEMA-ENUM"),
    ("nack-status-received", "HSP-ACK-SHAPE"),
    ("nack-without-error-code", "HSP-SCHEMA-REQUIRED"),
    ("opinion-created-not-utc", "HSP-TIMESTAMP"),
    ("opinion-missing-confidence", "HSP-SCHEMA-REQUIRED"),
    ("state-sync-negative-sequence-number", "HSP-SCHEMA-RANGE"),
    ("state-sync-without-is-last-chunk", "HSP-SCHEMA-REQUIRED"),
    (
        "task-request-names-no-capability",
        "HSP-SCHEMA-ALTERNATIVES",
    ),
    ("task-request-priority-11", "HSP-SCHEMA-RANGE"),
    (
        "task-result-failure-without-error-details",
        "HSP-ERROR-DETAILS-MISSING",
    ),
    (
        "task-result-response-without-correlation-id",
        "HSP-CORRELATION-MISSING",
    ),
    ("task-result-status-unknown", "HSP-SCHEMA-ENUM"),
];

/// An envelope of the kind the upstream implementation sends: ids that are
/// not DIDs, no recipient, an integer timestamp.
const UPSTREAM: &str = r#"{
  "hsp_envelope_version": "0.1",
  "message_id": "msg123",
  "sender_ai_id": "test_ai",
  "timestamp_sent": 1700000000,
  "message_type": "HSP::Fact_v0.1",
  "protocol_version": "0.1",
  "communication_pattern": "publish",
  "payload": {"id": "f1", "content": "The sky is blue."}
}"#;

#[test]
fn each_invalid_example_reports_exactly_what_its_name_says() {
    let h = home();
    let dir = repo("examples/hsp/invalid");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        EXPECTED.len(),
        "every invalid example needs a row"
    );
    for (name, code) in EXPECTED {
        let out = aiproto(h.path())
            .args(["validate", "--format", "json"])
            .arg(dir.join(format!("{name}.json")))
            .assert()
            .code(1);
        let report = &json_lines(&out.get_output().stdout)[0];
        let codes: Vec<&str> = report["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["code"].as_str().unwrap())
            .collect();
        assert_eq!(codes, vec![*code], "{name}");
        assert_eq!(report["protocol"], "hsp");
    }
}

#[test]
fn every_payload_type_has_a_valid_example_in_both_versions() {
    let h = home();
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .arg(repo("examples/hsp/valid"))
        .assert()
        .code(0);
    let reports = json_lines(&out.get_output().stdout);
    let versions: std::collections::BTreeSet<&str> = reports
        .iter()
        .map(|r| r["version"].as_str().unwrap())
        .collect();
    assert_eq!(versions.into_iter().collect::<Vec<_>>(), vec!["0.1", "1.0"]);
    assert!(reports.len() >= 22);
}

#[test]
fn findings_name_line_column_and_pointer() {
    let h = home();
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .arg(repo("examples/hsp/invalid/fact-confidence-above-1.json"))
        .assert()
        .code(1);
    let e = &json_lines(&out.get_output().stdout)[0]["errors"][0];
    assert_eq!(e["pointer"], "/payload/confidence_score");
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(26), Some(25))
    );
    aiproto(h.path())
        .arg("validate")
        .arg(repo("examples/hsp/invalid/fact-confidence-above-1.json"))
        .assert()
        .stdout(predicate::str::contains("fact-confidence-above-1.json:26:25: error[HSP-SCORE-RANGE]: confidence_score 1.5 is outside [0, 1]"))
        .stdout(predicate::str::contains("26 |     \"confidence_score\": 1.5,\n   |                         ^^^\n"));
}

#[test]
fn json_syntax_errors_point_at_the_spot() {
    let h = home();
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .arg(repo("examples/hsp/invalid/envelope-json-syntax-error.json"))
        .assert()
        .code(1);
    let e = &json_lines(&out.get_output().stdout)[0]["errors"][0];
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(4), Some(26))
    );
    assert!(e["message"].as_str().unwrap().contains("trailing comma"));
}

#[test]
fn arrays_and_json_lines_report_each_message_at_its_line() {
    let h = home();
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .arg(repo("examples/hsp/valid/0.1/state-sync-chunks.json"))
        .assert()
        .code(0);
    let lines: Vec<u64> = json_lines(&out.get_output().stdout)
        .iter()
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[1] > lines[0] + 10);
    let jsonl = std::fs::read_to_string(repo("examples/hsp/valid/0.1/facts.jsonl")).unwrap();
    let broken = format!("{jsonl}{{\"hsp_envelope_version\": \"0.1\",\n{jsonl}");
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .write_stdin(broken)
        .assert()
        .code(1);
    let reports = json_lines(&out.get_output().stdout);
    assert_eq!(reports.len(), 7);
    assert_eq!(reports[3]["line"], 4);
    assert_eq!(reports[3]["errors"][0]["code"], "HSP-JSON");
    assert_eq!(reports[6]["line"], 7);
    assert_eq!(reports[6]["valid"], true);
}

#[test]
fn lenient_accepts_what_the_upstream_sends_as_warnings() {
    let h = home();
    let strict = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .write_stdin(UPSTREAM)
        .assert()
        .code(1);
    let strict = &json_lines(&strict.get_output().stdout)[0];
    let codes: Vec<&str> = strict["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap())
        .collect();
    for code in ["HSP-ID-FORMAT", "HSP-TIMESTAMP", "HSP-SCHEMA-REQUIRED"] {
        assert!(codes.contains(&code), "{codes:?}");
    }
    let lenient = aiproto(h.path())
        .args(["validate", "--lenient", "--format", "json"])
        .write_stdin(UPSTREAM)
        .assert()
        .code(0);
    let lenient = &json_lines(&lenient.get_output().stdout)[0];
    assert_eq!(lenient["errors"].as_array().unwrap().len(), 0);
    assert_eq!(
        lenient["warnings"].as_array().unwrap().len(),
        strict["errors"].as_array().unwrap().len()
    );
    // Still fatal when lenient: no payload, or not JSON.
    let no_payload = UPSTREAM.replace(
        ",\n  \"payload\": {\"id\": \"f1\", \"content\": \"The sky is blue.\"}",
        "",
    );
    aiproto(h.path())
        .args(["validate", "--lenient"])
        .write_stdin(no_payload)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "\"payload\" is a required property",
        ));
}

#[test]
fn oversized_messages_are_refused_with_a_size_error() {
    let h = home();
    let jsonl = std::fs::read_to_string(repo("examples/hsp/valid/0.1/facts.jsonl")).unwrap();
    let out = aiproto(h.path())
        .args(["validate", "--format", "json", "--max-message-bytes", "200"])
        .write_stdin(jsonl)
        .assert()
        .code(1);
    let reports = json_lines(&out.get_output().stdout);
    assert_eq!(reports.len(), 3);
    assert!(
        reports
            .iter()
            .all(|r| r["errors"][0]["code"] == "HSP-TOO-LARGE")
    );
}

#[test]
fn inspect_and_thread_read_hsp() {
    let h = home();
    aiproto(h.path())
        .arg("inspect")
        .arg(repo("examples/hsp/valid/0.1/task-request.json"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("● hsp 0.1"))
        .stdout(predicate::str::contains("intent    REQUEST"))
        .stdout(predicate::str::contains(
            "\"text_to_translate\": \"Hello world\"",
        ));
    let out = aiproto(h.path())
        .args(["thread", "--format", "json"])
        .arg(repo("examples/hsp/valid/1.0/task-request.json"))
        .arg(repo("examples/hsp/valid/1.0/task-result.json"))
        .assert()
        .code(0);
    let tree = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(tree["root"]["children"][0]["intent"], "RESPOND");
}

#[test]
fn a_huge_line_in_a_stream_is_refused_and_the_rest_still_checked() {
    let h = home();
    let jsonl = std::fs::read_to_string(repo("examples/hsp/valid/0.1/facts.jsonl")).unwrap();
    let first = jsonl.lines().next().unwrap();
    let huge = first.replace("Observation 0.", &"x".repeat(20 * 1024 * 1024));
    let mut input = format!("{first}\n{huge}\n").into_bytes();
    input.extend_from_slice(b"{\"hsp_envelope_version\": \"0.1\", \"bad\": \"\xff\"}\n");
    input.extend_from_slice(jsonl.as_bytes());
    let file = h.path().join("big.jsonl");
    std::fs::write(&file, input).unwrap();
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .arg(&file)
        .assert()
        .code(1);
    let reports = json_lines(&out.get_output().stdout);
    assert_eq!(reports.len(), 6);
    assert_eq!(reports[1]["line"], 2);
    assert_eq!(reports[1]["errors"][0]["code"], "HSP-TOO-LARGE");
    assert!(
        reports[1]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("--max-message-bytes")
    );
    assert_eq!(reports[2]["errors"][0]["code"], "INPUT-NOT-UTF8");
    assert_eq!(reports[2]["errors"][0]["column"], 41);
    assert!(
        reports
            .iter()
            .enumerate()
            .all(|(i, r)| (r["valid"] == true) != (1..=2).contains(&i))
    );
}

/// The same faults in HSP 1.0 envelopes give the same findings (the payload
/// shapes that differ in 1.0 — capabilities and task requests — are left out).
#[test]
fn invalid_examples_moved_to_1_0_report_the_same_fault() {
    let h = home();
    let dir = repo("examples/hsp/invalid");
    let mut checked = 0;
    for (name, code) in EXPECTED {
        let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let differs_in_1_0 = [
            "capability",
            "task-request",
            "discovery-response",
            "envelope-type-version",
        ]
        .iter()
        .any(|p| name.starts_with(p));
        if differs_in_1_0 || v["hsp_envelope_version"] != "0.1" {
            continue;
        }
        v["hsp_envelope_version"] = "1.0".into();
        v["protocol_version"] = "1.0".into();
        if let Some(t) = v["message_type"]
            .as_str()
            .map(|t| t.replace("_v0.1", "_v1.0"))
        {
            v["message_type"] = t.into();
        }
        let out = aiproto(h.path())
            .args(["validate", "--format", "json"])
            .write_stdin(serde_json::to_string_pretty(&v).unwrap())
            .assert()
            .code(1);
        let report = &json_lines(&out.get_output().stdout)[0];
        assert_eq!(report["version"], "1.0", "{name}");
        let codes: Vec<&str> = report["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["code"].as_str().unwrap())
            .collect();
        assert_eq!(codes, vec![*code], "{name} in 1.0");
        checked += 1;
    }
    assert!(checked >= 20, "{checked}");
}

#[test]
fn canonical_hsp_is_one_compact_json_line_per_message() {
    let h = home();
    let out = aiproto(h.path())
        .args(["convert", "--canonical"])
        .arg(repo("examples/hsp/valid/0.1/state-sync-chunks.json"))
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert_eq!(text.lines().count(), 2);
    let again = aiproto(h.path())
        .args(["convert", "--canonical"])
        .write_stdin(text.clone())
        .assert()
        .code(0);
    assert_eq!(
        String::from_utf8_lossy(&again.get_output().stdout),
        text,
        "canonical form is stable"
    );
    aiproto(h.path())
        .args(["validate", "--strict"])
        .write_stdin(text)
        .assert()
        .code(0);
}
