//! A2A 1.0 as the fifth protocol: the examples, each invalid one reporting
//! what its name says; HSP ⇄ A2A through `convert`; hostile and look-alike
//! inputs (MCP's JSON-RPC, A2A 0.3, deep and huge documents).

use predicates::prelude::*;
use predicates::str::contains;
use serde_json::{Value, json};

use super::{aiproto, home, json_lines, repo};

const EXPECTED: &[(&str, &str)] = &[
    ("card-without-skills.json", "A2A-REQUIRED"),
    ("part-with-two-contents.json", "A2A-ONE-OF"),
    ("snake-case-fields.json", "A2A-FIELD-CASE"),
    ("state-after-completed.jsonl", "A2A-AFTER-TERMINAL"),
    ("state-as-number.json", "A2A-ENUM"),
    ("timestamp-with-offset.json", "A2A-TIMESTAMP"),
    ("unknown-method.json", "A2A-METHOD"),
    ("version-0-3-message.json", "A2A-OLD-VERSION"),
];

fn error_codes(report: &Value) -> Vec<String> {
    report["errors"]
        .as_array()
        .map(|e| {
            e.iter()
                .map(|e| e["code"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn each_invalid_example_reports_what_its_name_says_where_it_is() {
    let h = home();
    let dir = repo("examples/a2a/invalid");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), EXPECTED.len());
    for (name, code) in EXPECTED {
        let out = aiproto(h.path())
            .args(["validate", "--format", "json"])
            .arg(dir.join(name))
            .assert()
            .code(1);
        let reports = json_lines(&out.get_output().stdout);
        let codes: Vec<String> = reports.iter().flat_map(error_codes).collect();
        assert!(
            codes.iter().any(|c| c == code),
            "{name}: expected {code}, got {codes:?}"
        );
        for r in &reports {
            assert_eq!(r["protocol"], "a2a", "{name}");
            for e in r["errors"].as_array().unwrap() {
                assert!(
                    e["line"].as_u64().unwrap() >= 1 && e["column"].as_u64().unwrap() >= 1,
                    "{name}: {e}"
                );
            }
        }
    }
}

#[test]
fn the_valid_examples_pass_with_no_warning() {
    let h = home();
    aiproto(h.path())
        .args(["validate", "--strict"])
        .arg(repo("examples/a2a/valid"))
        .assert()
        .code(0)
        .stderr(contains(
            "7 messages in 4 inputs: all valid (0 errors, 0 warnings)",
        ));
}

#[test]
fn the_specs_own_sample_card_passes_with_its_two_unknown_fields_named() {
    // The A2A 1.0 spec's §8.5 sample, as published: `security` and
    // `stateTransitionHistory` are not in the 1.0 schema.
    let card = json!({
        "name": "GeoSpatial Route Planner Agent", "description": "Route planning.",
        "supportedInterfaces": [{"url": "https://georoute-agent.example.com/a2a/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "version": "1.2.0",
        "capabilities": {"streaming": true, "pushNotifications": true, "stateTransitionHistory": false, "extendedAgentCard": true},
        "securitySchemes": {"google": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://accounts.google.com/.well-known/openid-configuration"}}},
        "security": [{"google": ["openid", "profile", "email"]}],
        "defaultInputModes": ["application/json", "text/plain"],
        "defaultOutputModes": ["application/json", "image/png"],
        "skills": [{"id": "route-optimizer-traffic", "name": "Traffic-Aware Route Optimizer", "description": "Routes.", "tags": ["maps"]}]
    });
    let h = home();
    let out = aiproto(h.path())
        .args(["validate", "--format", "json", "-"])
        .write_stdin(serde_json::to_string_pretty(&card).unwrap())
        .assert()
        .code(0);
    let report = &json_lines(&out.get_output().stdout)[0];
    let warned: Vec<&str> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["pointer"].as_str().unwrap())
        .collect();
    assert_eq!(
        warned,
        ["/capabilities/stateTransitionHistory", "/security"]
    );
    // --strict makes them count.
    aiproto(h.path())
        .args(["validate", "--strict", "-"])
        .write_stdin(card.to_string())
        .assert()
        .code(1);
}

#[test]
fn an_hsp_task_request_and_its_result_cross_to_a2a_and_back_unchanged() {
    let h = home();
    let request = json!({
        "hsp_envelope_version": "1.0", "message_id": "0197a3a8-5e2c-7c41-9b1e-7d4f0c2a9e11",
        "sender_ai_id": "did:hsp:planner", "recipient_ai_id": "did:hsp:weather",
        "timestamp_sent": "2026-11-28T10:00:00Z", "message_type": "HSP::TaskRequest_v1.0",
        "protocol_version": "1.0", "communication_pattern": "request",
        "payload": {"request_id": "0197a3a8-5e2c-7c41-9b1e-7d4f0c2a9e11", "requester_ai_id": "did:hsp:planner",
            "capability_id_filter": "weather_today_v1", "parameters": {"city": "Lisbon", "units": "metric"},
            "callback_address": "hsp/results/did:hsp:planner"}
    });
    let result = json!({
        "hsp_envelope_version": "1.0", "message_id": "0197a3a8-6000-7000-8000-000000000001",
        "correlation_id": "0197a3a8-5e2c-7c41-9b1e-7d4f0c2a9e11",
        "sender_ai_id": "did:hsp:weather", "recipient_ai_id": "did:hsp:planner",
        "timestamp_sent": "2026-11-28T10:00:02Z", "message_type": "HSP::TaskResult_v1.0",
        "protocol_version": "1.0", "communication_pattern": "response",
        "payload": {"result_id": "0197a3a8-6000-7000-8000-000000000001", "request_id": "0197a3a8-5e2c-7c41-9b1e-7d4f0c2a9e11",
            "executing_ai_id": "did:hsp:weather", "status": "failure", "error_details": {"error_code": "NO_DATA", "error_message": "no station"}}
    });
    for (hsp, kind) in [(&request, "message"), (&result, "task")] {
        let out = aiproto(h.path())
            .args(["convert", "--to", "a2a", "-"])
            .write_stdin(hsp.to_string())
            .assert()
            .code(0);
        let a2a: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        match kind {
            "message" => {
                // The request is a user message; its parameters a data part.
                assert_eq!(a2a["role"], "ROLE_USER");
                assert_eq!(a2a["messageId"], hsp["message_id"]);
                assert_eq!(a2a["parts"][0]["data"]["city"], "Lisbon");
            }
            _ => {
                // The result is the task it answers, failed as the HSP status says.
                assert_eq!(a2a["id"], hsp["correlation_id"]);
                assert_eq!(a2a["status"]["state"], "TASK_STATE_FAILED");
                assert_eq!(a2a["status"]["timestamp"], "2026-11-28T10:00:02Z");
            }
        }
        // What A2A writes, A2A reads: valid, no warnings.
        aiproto(h.path())
            .args(["validate", "--strict", "--protocol", "a2a", "-"])
            .write_stdin(a2a.to_string())
            .assert()
            .code(0);
        let back = aiproto(h.path())
            .args(["convert", "--to", "hsp", "-"])
            .write_stdin(a2a.to_string())
            .assert()
            .code(0);
        let back: Value = serde_json::from_slice(&back.get_output().stdout).unwrap();
        assert_eq!(&back, hsp, "{kind}: the way back differs");
    }
}

#[test]
fn json_rpc_of_other_protocols_is_not_taken_for_a2a() {
    let h = home();
    // MCP's JSON-RPC has no A2A method and no A2A object.
    let mcp = r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "validate", "arguments": {"text": "x"}}}"#;
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(mcp)
        .assert()
        .code(1)
        .stdout(contains("NO-MESSAGE"));
}

#[test]
fn hostile_documents_get_findings_not_a_crash() {
    let h = home();
    // Deep nesting inside metadata (opaque) and inside history (walked).
    let mut deep = json!("leaf");
    for _ in 0..120 {
        deep = json!({"x": deep});
    }
    let task = json!({"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}, "metadata": deep});
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(task.to_string())
        .assert()
        .code(0);
    // A card with 20,000 skills, each missing its tags: found, and counted.
    let skills: Vec<Value> = (0..20_000)
        .map(|i| json!({"id": format!("s{i}"), "name": "n", "description": "d"}))
        .collect();
    let card = json!({"name": "A", "description": "d", "supportedInterfaces": [{"url": "https://a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "version": "1", "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": skills});
    let out = aiproto(h.path())
        .args(["validate", "--format", "json", "-"])
        .write_stdin(card.to_string())
        .assert()
        .code(1);
    let report = &json_lines(&out.get_output().stdout)[0];
    let errors = report["errors"].as_array().unwrap();
    assert!(errors.iter().all(|e| e["code"] == "A2A-REQUIRED"));
    assert_eq!(errors[0]["pointer"], "/skills/0");
    assert_eq!(
        errors.len() as u64 + report["omitted"].as_u64().unwrap(),
        20_000
    );
    // A 0.3 task is named, not read as 1.0.
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(
            r#"{"kind": "task", "id": "t", "contextId": "c", "status": {"state": "completed"}}"#,
        )
        .assert()
        .code(1)
        .stdout(contains("A2A-OLD-VERSION").and(contains("A2A 0.3")));
}

#[test]
fn a_converted_message_piped_without_a_line_end_keeps_its_protocol() {
    // A CSDL message or A2A object carrying HSP fields (a conversion's
    // `m.hsp`, `metadata.x_hsp`) was taken for HSP JSON Lines when its one
    // line had no line end.
    let h = home();
    let csdl = r#"{"t":"message","from":"a","to":"b","intent":"response","v":"hi","m":{"hsp":{"message_type":"HSP::Fact_v1.0"}}}"#;
    let a2a = r#"{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"hi"}],"metadata":{"x_hsp":{"message_type":"HSP::Fact_v1.0"}}}"#;
    for (text, protocol) in [(csdl, "csdl"), (a2a, "a2a")] {
        let out = aiproto(h.path())
            .args(["validate", "--format", "json", "-"])
            .write_stdin(text)
            .assert()
            .code(0);
        assert_eq!(
            json_lines(&out.get_output().stdout)[0]["protocol"],
            protocol
        );
    }
}

#[test]
fn every_event_of_a_task_is_archived_and_a_message_only_once() {
    // A task id names the work, reported at every state: not a message id.
    let h = home();
    let archive = h.path().join("a2a.jsonl");
    let via = format!("file:{}", archive.display());
    for _ in 0..2 {
        aiproto(h.path())
            .args(["send", "--via", &via])
            .arg(repo("examples/a2a/valid/stream.jsonl"))
            .arg(repo("examples/a2a/valid/send-message.json"))
            .assert()
            .code(0);
    }
    let lines = std::fs::read_to_string(&archive).unwrap();
    // Four events twice (they have no id to recognise), the message once.
    assert_eq!(lines.lines().count(), 9, "{lines}");
}

/// Whether the official A2A Python SDK imports (`probe`, Python lines);
/// when not, the test says SKIPPED, unless `AIPROTO_REQUIRE_A2A_SDK`
/// says CI must have it (then it fails).
pub fn sdk_installed(probe: &str) -> bool {
    python_installed(
        probe,
        "AIPROTO_REQUIRE_A2A_SDK",
        "python3 -m pip install 'a2a-sdk[http-server]==1.3.0' uvicorn",
    )
}

/// Whether Python modules import (`probe`); when not, SKIPPED with how to
/// `install` them, unless the environment variable `required` is set.
pub fn python_installed(probe: &str, required: &str, install: &str) -> bool {
    let available = std::process::Command::new("python3")
        .args(["-c", probe])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        assert!(
            std::env::var_os(required).is_none(),
            "{required} is set but these Python modules are missing: {probe}"
        );
        eprintln!("SKIPPED: {install}");
    }
    available
}

/// A real A2A agent built with the official Python SDK (a2a-sdk 1.3.0),
/// listening on loopback; `None` (the test skipped) when the SDK is not
/// installed, unless `AIPROTO_REQUIRE_A2A_SDK` says CI must have it.
fn sdk_agent() -> Option<(super::support::Running, u16)> {
    sdk_agent_with(&[])
}

/// [`sdk_agent`] with arguments (`rest`: HTTP+JSON only, streaming).
fn sdk_agent_with(args: &[&str]) -> Option<(super::support::Running, u16)> {
    if !sdk_installed("import a2a.server, uvicorn, starlette") {
        return None;
    }
    let port = super::support::free_port();
    let mut command = std::process::Command::new("python3");
    command
        .arg(repo("tests/interop/a2a_sdk_server.py"))
        .arg(port.to_string())
        .args(args)
        .stdout(std::process::Stdio::piped());
    let (running, line) = super::support::started_with_line(command);
    assert_eq!(line.trim(), "ready");
    Some((running, port))
}

#[test]
fn send_reaches_a_real_a2a_sdk_agent_from_every_protocol() {
    let Some((_agent, port)) = sdk_agent() else {
        return;
    };
    let h = home();
    let via = format!("a2a+http://127.0.0.1:{port}");
    let out = aiproto(h.path())
        .args(["send", "--via", &via])
        .arg(repo("examples/crosstalk/valid/v1_1-ack-nack.crosstalk"))
        .arg(repo("examples/hsp/valid/1.0/task-request.json"))
        .arg(repo("examples/a2a/valid/send-message.json"))
        .assert()
        .code(0);
    let answers = json_lines(&out.get_output().stdout);
    // Two envelopes, one HSP request, one A2A call: four tasks, each done.
    assert_eq!(answers.len(), 4);
    for a in &answers {
        assert_eq!(a["task"]["status"]["state"], "TASK_STATE_COMPLETED", "{a}");
    }
    // The agent read what was meant: the envelope's text, the request's parameters.
    let echoed = |i: usize| answers[i]["task"]["artifacts"][0]["parts"][0].clone();
    assert_eq!(
        echoed(0)["text"],
        "echo: Received; answer follows within the hour."
    );
    assert_eq!(echoed(2)["data"]["csv_content"], "a,b\n1,2\n");
    assert_eq!(
        echoed(3)["text"],
        "echo: What is the weather in Lisbon today?"
    );
    // The card sent the calls where they were asked to go: nothing to say.
    assert!(!String::from_utf8_lossy(&out.get_output().stderr).contains("note:"));
    // Named by another name for the host, the card's URL is followed and said.
    aiproto(h.path())
        .args(["send", "--via", &format!("a2a+http://localhost:{port}")])
        .arg(repo("examples/a2a/valid/send-message.json"))
        .assert()
        .code(0)
        .stderr(contains(format!(
            "sends the calls to http://127.0.0.1:{port}/rpc"
        )));
    // What the agent answered, aiproto reads as A2A 1.0, with no finding.
    aiproto(h.path())
        .args(["validate", "--strict", "-p", "a2a", "-"])
        .write_stdin(out.get_output().stdout.clone())
        .assert()
        .code(0);
}

/// `request --via a2a+http`: an HSP TaskRequest to an agent built with
/// the Python SDK; its task comes back as the TaskResult answering it.
#[test]
fn request_reaches_a_real_a2a_sdk_agent_and_prints_the_task_result() {
    let Some((_agent, port)) = sdk_agent() else {
        return;
    };
    let h = home();
    let out = aiproto(h.path())
        .args(["request", "--via", &format!("a2a+http://127.0.0.1:{port}")])
        .arg(repo("examples/hsp/valid/1.0/task-request.json"))
        .assert()
        .code(0)
        .stderr(contains(
            "TaskResult for 018f4a70-0000-7000-8000-00000000b001",
        ));
    let stdout = out.get_output().stdout.clone();
    let result: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(result["message_type"], "HSP::TaskResult_v1.0");
    assert_eq!(
        result["correlation_id"],
        "018f4a70-0000-7000-8000-00000000b001"
    );
    assert_eq!(result["payload"]["status"], "success");
    // The SDK agent echoes the data part: the request's parameters.
    assert_eq!(
        result["payload"]["payload"],
        json!({"csv_content": "a,b\n1,2\n"})
    );
    assert_eq!(
        result["x_a2a"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(stdout)
        .assert()
        .code(0);
}

#[test]
fn an_a2a_error_fails_the_send_with_its_name() {
    let Some((_agent, port)) = sdk_agent() else {
        return;
    };
    let h = home();
    let via = format!("a2a+http://127.0.0.1:{port}");
    aiproto(h.path())
        .args(["send", "--via", &via, "-"])
        .write_stdin(r#"{"jsonrpc": "2.0", "id": "g1", "method": "GetTask", "params": {"id": "no-such-task"}}"#)
        .assert()
        .code(3)
        .stderr(contains("TaskNotFoundError (-32001)"));
    // A task the agent failed is delivered: printed, exit 0.
    let out = aiproto(h.path())
        .args(["send", "--via", &via, "-"])
        .write_stdin(r#"{"messageId": "m-fail", "role": "ROLE_USER", "parts": [{"text": "fail"}]}"#)
        .assert()
        .code(0);
    assert_eq!(
        json_lines(&out.get_output().stdout)[0]["task"]["status"]["state"],
        "TASK_STATE_FAILED"
    );
    // No agent there: a transport failure.
    let nobody = format!("a2a+http://127.0.0.1:{}", super::support::free_port());
    aiproto(h.path())
        .args(["send", "--via", &nobody])
        .arg(repo("examples/a2a/valid/send-message.json"))
        .assert()
        .code(3)
        .stderr(contains("agent-card.json"));
}

#[test]
fn two_a2a_messages_under_one_id_are_named_and_task_reports_are_not() {
    let h = home();
    let text = concat!(
        r#"{"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "one"}]}"#,
        "\n",
        r#"{"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "another"}]}"#,
        "\n",
        r#"{"id": "t-1", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}"#,
        "\n",
        r#"{"id": "t-1", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}"#,
        "\n",
    );
    let out = aiproto(h.path())
        .args(["validate", "--format", "json", "-"])
        .write_stdin(text)
        .assert()
        .code(0);
    let warned: Vec<Vec<String>> = json_lines(&out.get_output().stdout)
        .iter()
        .map(|r| {
            r["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w["code"].as_str().unwrap().to_string())
                .collect()
        })
        .collect();
    assert_eq!(
        warned,
        [vec![], vec!["ID-DUPLICATE".to_string()], vec![], vec![]]
    );
}

/// An agent whose card offers only HTTP+JSON (the SDK's, streaming): the
/// client speaks that binding, waits, streams each event as a line, or
/// returns at once; an error of the binding is named as the A2A error.
#[test]
fn send_speaks_http_json_waits_streams_or_returns_at_once() {
    let Some((_agent, port)) = sdk_agent_with(&["rest"]) else {
        return;
    };
    let h = home();
    let via = format!("a2a+http://127.0.0.1:{port}");
    let message = repo("examples/a2a/valid/send-message.json");
    let send = |extra: &[&str]| {
        let out = aiproto(h.path())
            .args(["send", "--via", &via])
            .args(extra)
            .arg(&message)
            .assert()
            .code(0);
        json_lines(&out.get_output().stdout)
    };
    let waited = send(&[]);
    assert_eq!(waited.len(), 1);
    assert_eq!(waited[0]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let streamed = send(&["--stream"]);
    let kinds: Vec<&str> = streamed
        .iter()
        .map(|e| e.as_object().unwrap().keys().next().unwrap().as_str())
        .collect();
    assert_eq!(
        kinds,
        ["task", "statusUpdate", "artifactUpdate", "statusUpdate"],
        "{streamed:?}"
    );
    assert_eq!(
        streamed[3]["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    let at_once = send(&["--no-wait"]);
    assert_ne!(
        at_once[0]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{at_once:?}"
    );
    // GetTask of no task, over HTTP+JSON: the 404 named as the A2A error.
    let get = h.path().join("get.json");
    std::fs::write(
        &get,
        r#"{"jsonrpc": "2.0", "id": "g", "method": "GetTask", "params": {"id": "no-such-task"}}"#,
    )
    .unwrap();
    aiproto(h.path())
        .args(["send", "--via", &via])
        .arg(&get)
        .assert()
        .code(3)
        .stderr(predicates::str::contains("TaskNotFoundError (-32001)"));
    // The flags belong to A2A: elsewhere they are a usage error.
    aiproto(h.path())
        .args(["send", "--stream", "--via", "-"])
        .arg(&message)
        .assert()
        .code(2);
}
