//! `aiproto a2a serve`, the bridge, with a real HSP network behind it: the
//! built-in broker, an `aiproto recv --exec` worker that advertises its
//! capability and answers TaskRequests, and the official A2A Python SDK
//! (a2a-sdk) as the client over both bindings; raw HTTP for the door and
//! the refusals a hostile or hurried client meets.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Running, aiproto, embedded_broker, home, raw, repo, spawn, started_with_line};

const TOKEN: &str = "a2a-bridge-test-token-0123";

/// A broker, a worker answering as `did:hsp:echo` (advertised unless
/// `advertise` is false), and the bridge in front.
pub struct Network {
    _broker: Running,
    _workers: Vec<Running>,
    _bridge: Running,
    broker: u16,
    /// `127.0.0.1:PORT` of the bridge.
    pub address: String,
    pub home: tempfile::TempDir,
}

/// A worker on the provider's topic answering as `did` after `delay` s.
fn worker(h: &Path, broker: u16, did: &str, delay: f64) -> Child {
    let handler = format!(
        "python3 {} {} {did} {delay}",
        repo("tests/interop/hsp_task_handler.py").display(),
        assert_cmd::cargo::cargo_bin("aiproto").display()
    );
    super::subscribed(
        h,
        &[
            "--via",
            &format!("mqtt://127.0.0.1:{broker}/hsp/agents/did:hsp:echo"),
            "--as",
            did,
            "--exec",
            &handler,
        ],
    )
}

fn advertise(h: &Path, broker: u16) {
    advertise_signed(h, broker, None);
}

/// The echo capability advertised (retained), signed with `key` if given.
fn advertise_signed(h: &Path, broker: u16, key: Option<&str>) {
    let ad = aiproto(h)
        .args([
            "compose",
            "hsp",
            "capability",
            "--from",
            "did:hsp:echo",
            "--capability-id",
            "echo",
            "--name",
            "Echo",
            "--description",
            "Echoes its parameters",
            "--tags",
            "echo,test",
            "--parameters-schema",
            r#"{"type": "object"}"#,
            "--returns-schema",
            r#"{"type": "object"}"#,
        ])
        .assert()
        .code(0);
    let mut ad = ad.get_output().stdout.clone();
    if let Some(key) = key {
        ad = super::sign(h, key, &String::from_utf8_lossy(&ad)).into_bytes();
    }
    aiproto(h)
        .args([
            "send",
            "--retain",
            "--via",
            &format!("mqtt://127.0.0.1:{broker}/hsp/capabilities/advertisements/echo"),
        ])
        .write_stdin(ad)
        .assert()
        .code(0);
}

fn network(advertised: bool, extra: &[&str]) -> Network {
    network_with(advertised, extra, 0.0)
}

pub fn network_with(advertised: bool, extra: &[&str], delay: f64) -> Network {
    let h = home();
    let (broker_child, broker) = embedded_broker(h.path());
    let workers = vec![Running(worker(h.path(), broker, "did:hsp:echo", delay))];
    if advertised {
        advertise(h.path(), broker);
    }
    let token_file = h.path().join("token");
    std::fs::write(&token_file, TOKEN).unwrap();
    // `--sign-card ID`: the bridge's home has that key, bound to the card's
    // default name.
    if let Some(at) = extra.iter().position(|a| *a == "--sign-card") {
        aiproto(h.path())
            .args([
                "keygen",
                "--id",
                extra[at + 1],
                "--signs-for",
                "aiproto HSP bridge",
            ])
            .assert()
            .success();
    }
    let tokenless = extra.contains(&"--no-token");
    let mut command = spawn(
        h.path(),
        &[
            "a2a",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--via",
            &format!("mqtt://127.0.0.1:{broker}"),
        ],
    );
    if !extra.contains(&"--task-timeout") {
        command.args(["--task-timeout", "20"]);
    }
    if !tokenless {
        command.arg("--token-file").arg(&token_file);
    }
    command.args(extra);
    let (bridge, line) = started_with_line(command);
    let address = line
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/.well-known/agent-card.json"))
        .unwrap_or_else(|| panic!("the card's URL on stdout: {line:?}"))
        .to_string();
    let network = Network {
        _broker: broker_child,
        _workers: workers,
        _bridge: bridge,
        broker,
        address,
        home: h,
    };
    if advertised {
        // The card lists the skill once the bridge has seen the advertisement.
        let started = Instant::now();
        while network.get(card_path()).0 != 200 {
            assert!(started.elapsed() < Duration::from_secs(20), "no card");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    network
}

impl Network {
    fn head(&self, method: &str, path: &str, extra: &str) -> String {
        format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\n{extra}",
            self.address
        )
    }

    fn get(&self, path: &str) -> (u16, String) {
        let head = self.head("GET", path, "A2A-Version: 1.0\r\n");
        let (status, _, body) = raw(&self.address, &head, b"");
        (status, body)
    }

    /// A JSON-RPC call with the usual headers: the response's JSON.
    fn call(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let head = self.head(
            "POST",
            "/jsonrpc",
            "A2A-Version: 1.0\r\nContent-Type: application/json\r\n",
        );
        let (status, _, text) = raw(&self.address, &head, body.to_string().as_bytes());
        assert_eq!(status, 200, "{text}");
        serde_json::from_str(&text).unwrap()
    }
}

pub fn card_path() -> &'static str {
    "/.well-known/agent-card.json"
}

fn text_message(text: &str, id: &str) -> Value {
    json!({"message": {"messageId": id, "role": "ROLE_USER", "parts": [{"text": text}]}})
}

/// The SDK client's steps, by name, over `binding`; `None` when the SDK
/// is not installed (and CI does not require it).
fn sdk_steps(net: &Network, binding: &str) -> Option<std::collections::HashMap<String, Value>> {
    if !super::a2a::sdk_installed("import a2a.client, httpx") {
        return None;
    }
    let out = std::process::Command::new("python3")
        .arg(repo("tests/interop/a2a_sdk_client.py"))
        .arg(format!("http://{}", net.address))
        .arg(TOKEN)
        .arg(binding)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        super::json_lines(&out.stdout)
            .into_iter()
            .map(|step| (step["step"].as_str().unwrap().to_string(), step))
            .collect(),
    )
}

/// What the SDK saw, the same over both bindings: each task ended as the
/// worker answered, streams in order, pages without loss, cancels and
/// missing tasks named by the SDK's own error classes.
#[test]
fn the_a2a_sdk_sends_streams_gets_lists_and_cancels_over_both_bindings() {
    let net = network(true, &[]);
    for binding in ["JSONRPC", "HTTP+JSON"] {
        let Some(steps) = sdk_steps(&net, binding) else {
            return;
        };
        let task = &steps["send"]["events"][0]["task"];
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{binding}");
        let result = &task["artifacts"][0]["parts"][0]["data"];
        assert_eq!(result["echo"], json!({"text": "hello"}));
        // The A2A message reached the worker whole (the TCK's steering).
        assert_eq!(result["a2a_message_id"], "tck-send-1");

        let failed = &steps["send-fail"]["events"][0]["task"];
        assert_eq!(failed["status"]["state"], "TASK_STATE_FAILED");
        assert_eq!(
            failed["status"]["message"]["parts"][0]["text"],
            "E-ASKED: asked to fail"
        );

        let states: Vec<&str> = steps["stream"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| {
                e.pointer("/task/status/state")
                    .or(e.pointer("/statusUpdate/status/state"))
                    .and_then(Value::as_str)
            })
            .collect();
        assert_eq!(
            states,
            [
                "TASK_STATE_SUBMITTED",
                "TASK_STATE_WORKING",
                "TASK_STATE_COMPLETED"
            ],
            "{binding}"
        );
        assert!(
            steps["stream"]["events"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e.get("artifactUpdate").is_some())
        );

        let got = &steps["get"]["task"];
        assert_eq!(got["id"], task["id"]);
        assert!(got.get("history").is_none(), "historyLength 0: no history");

        let (first, second) = (&steps["list"]["first"], &steps["list"]["second"]);
        assert_eq!(first["tasks"].as_array().unwrap().len(), 2);
        assert!(first["tasks"][0].get("artifacts").is_some());
        assert!(second["tasks"][0].get("artifacts").is_none());
        assert_ne!(first["tasks"][0]["id"], second["tasks"][0]["id"]);

        assert_eq!(
            steps["cancel"]["task"]["status"]["state"],
            "TASK_STATE_CANCELED"
        );
        assert_eq!(steps["cancel-done"]["error"], "TaskNotCancelableError");
        assert_eq!(steps["get-missing"]["error"], "TaskNotFoundError");
    }
}

/// The card lists the live capability and validates as an A2A card.
#[test]
fn the_card_is_built_from_live_advertisements_and_validates() {
    let net = network(true, &[]);
    let (status, card) = net.get(card_path());
    assert_eq!(status, 200);
    let parsed: Value = serde_json::from_str(&card).unwrap();
    assert_eq!(parsed["skills"][0]["id"], "echo");
    assert_eq!(parsed["skills"][0]["tags"], json!(["echo", "test"]));
    let interfaces = parsed["supportedInterfaces"].as_array().unwrap();
    assert!(interfaces.iter().all(|i| {
        i["url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("http://{}", net.address))
    }));
    aiproto(net.home.path())
        .args(["validate", "-"])
        .write_stdin(card)
        .assert()
        .code(0);
}

/// `--sign-card`: the card served is signed, and verifies under aiproto
/// and under the official Python SDK with the bridge's public key; a key
/// bound to another name is refused at the start.
#[test]
fn a_signed_card_verifies_under_aiproto_and_the_python_sdk() {
    let net = network(true, &["--sign-card", "bridge-key"]);
    let (status, card) = net.get(card_path());
    assert_eq!(status, 200);
    let parsed: Value = serde_json::from_str(&card).unwrap();
    // Two: the bearer requirement's empty scope list (`"list": []`) is
    // removed by the SDKs' reading of rule 1 and kept by the spec's.
    assert_eq!(parsed["signatures"].as_array().unwrap().len(), 2, "{card}");
    let h = net.home.path();
    let path = h.join("served-card.json");
    std::fs::write(&path, &card).unwrap();
    aiproto(h)
        .arg("verify")
        .arg(&path)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "ok signed by bridge-key for aiproto HSP bridge",
        ));
    // The same bytes twice: the ETag holds while nothing changes.
    assert_eq!(net.get(card_path()).1, card);
    let export = aiproto(h)
        .args(["keys", "export", "bridge-key", "--encoding", "pem"])
        .output()
        .unwrap();
    let pem = h.join("bridge-key.pem");
    std::fs::write(&pem, export.stdout).unwrap();

    // A client sends nothing until the card's key is trusted for its name.
    let client = home();
    let via = format!("a2a+http://{}", net.address);
    let message = client.path().join("hello.json");
    std::fs::write(&message, text_message("hello", "m-signed").to_string()).unwrap();
    let send = || {
        let mut command = aiproto(client.path());
        command
            .args(["send", "--require-signed-card", "--via", &via])
            .env("AIPROTO_A2A_TOKEN", TOKEN)
            .arg(&message);
        command
    };
    send()
        .assert()
        .code(3)
        .stderr(predicates::str::contains("SIG-UNTRUSTED"));
    aiproto(client.path())
        .args(["keys", "trust", "bridge-key"])
        .arg(&pem)
        .args(["--signs-for", "aiproto HSP bridge"])
        .assert()
        .success();
    send().assert().code(0).stderr(predicates::str::contains(
        "the Agent Card is signed by `bridge-key`",
    ));

    if super::a2a_signing::python_sdk() {
        let verdict = std::process::Command::new("python3")
            .arg(super::repo("tests/interop/a2a_card_signing.py"))
            .arg("verify")
            .arg(&pem)
            .arg("EdDSA")
            .stdin(std::fs::File::open(&path).unwrap())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&verdict.stdout).trim(), "verified");
    }
    aiproto(h)
        .args(["keygen", "--id", "other-key", "--signs-for", "Someone Else"])
        .assert()
        .success();
    aiproto(h)
        .args([
            "a2a",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--no-token",
            "--sign-card",
            "other-key",
        ])
        .args(["--via", &format!("mqtt://127.0.0.1:{}", net.broker)])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "the card is named `aiproto HSP bridge`",
        ));
}

/// `request --via a2a+http`: an HSP TaskRequest to an A2A agent (the
/// bridge, an HSP worker behind it), its task back as the TaskResult that
/// answers the request, valid and pointed at it; no token, or a card that
/// is not signed when a signed one is asked for, sends nothing (exit 3).
#[test]
fn request_reaches_an_a2a_agent_and_its_task_comes_back_as_the_task_result() {
    let net = network(true, &[]);
    let h = net.home.path();
    let via = format!("a2a+http://{}", net.address);
    let request = repo("examples/hsp/valid/1.0/task-request.json");
    let out = aiproto(h)
        .args(["request", "--via", &via])
        .env("AIPROTO_A2A_TOKEN", TOKEN)
        .arg(&request)
        .assert()
        .code(0);
    let stdout = out.get_output().stdout.clone();
    let result: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(result["message_type"], "HSP::TaskResult_v1.0");
    assert_eq!(
        result["correlation_id"],
        "018f4a70-0000-7000-8000-00000000b001"
    );
    // As a TaskResult goes: to the request's callback address.
    assert_eq!(result["recipient_ai_id"], "hsp/results/agent_A");
    let payload = &result["payload"];
    assert_eq!(
        payload["request_id"],
        "018f4a70-0000-7000-8000-000000000001"
    );
    assert_eq!(payload["status"], "success");
    // The worker behind the bridge echoed the request's parameters.
    let echoed = &payload["payload"];
    assert_eq!(echoed["by"], "did:hsp:echo");
    assert_eq!(echoed["echo"]["csv_content"], "a,b\n1,2\n");
    aiproto(h)
        .args(["validate", "-"])
        .write_stdin(stdout)
        .assert()
        .code(0);
    // A task the agent rejects (the worker's scenario by message id): its
    // TaskResult, exit 1; a direct message for an answer: a success.
    let mut asked: Value =
        serde_json::from_str(&std::fs::read_to_string(&request).unwrap()).unwrap();
    for (id, code, status) in [
        ("tck-reject-task-r1", 1, "rejected"),
        ("tck-message-response-r1", 0, "success"),
    ] {
        asked["message_id"] = id.into();
        let out = aiproto(h)
            .args(["request", "--via", &via, "-"])
            .env("AIPROTO_A2A_TOKEN", TOKEN)
            .write_stdin(asked.to_string())
            .assert()
            .code(code);
        let stdout = out.get_output().stdout.clone();
        let result: Value = serde_json::from_slice(&stdout).unwrap();
        assert_eq!(result["payload"]["status"], status, "{result}");
        assert_eq!(result["correlation_id"], id);
        aiproto(h)
            .args(["validate", "-"])
            .write_stdin(stdout)
            .assert()
            .code(0);
    }
    aiproto(h)
        .args(["request", "--via", &via])
        .arg(&request)
        .assert()
        .code(3)
        .stderr(predicates::str::contains("401"));
    aiproto(h)
        .args(["request", "--require-signed", "--via", &via])
        .env("AIPROTO_A2A_TOKEN", TOKEN)
        .arg(&request)
        .assert()
        .code(3)
        .stderr(predicates::str::contains("SIG-UNSIGNED"));
}

/// A stream the network cuts before its task ends (a proxy closing it
/// after the first event) is followed again with SubscribeToTask to the
/// end; cut every time, the send gives up after three tries (exit 3),
/// naming the task.
#[test]
fn a_cut_stream_is_followed_again_and_given_up_after_three_cuts() {
    let net = network_with(true, &[], 1.0);
    let h = net.home.path();
    let message = h.join("hello.json");
    std::fs::write(&message, text_message("hello", "m-cut").to_string()).unwrap();
    let target = net.address.rsplit(':').next().unwrap().to_string();
    for (cuts, code) in [(1, 0), (100, 3)] {
        let port = super::free_port();
        let mut proxy = std::process::Command::new("python3");
        proxy
            .arg(repo("tests/interop/cutting_proxy.py"))
            .args([port.to_string(), target.clone(), cuts.to_string()])
            .stdout(std::process::Stdio::piped());
        let (_proxy, line) = started_with_line(proxy);
        assert_eq!(line.trim(), "ready");
        let out = aiproto(h)
            .args([
                "send",
                "--stream",
                "--via",
                &format!("a2a+http://127.0.0.1:{port}"),
            ])
            .env("AIPROTO_A2A_TOKEN", TOKEN)
            .arg(&message)
            .timeout(Duration::from_secs(60))
            .assert()
            .code(code);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        let events = super::json_lines(&out.get_output().stdout);
        let last_state = events.last().and_then(|e| {
            e.pointer("/task/status/state")
                .or(e.pointer("/statusUpdate/status/state"))
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        let followed = stderr
            .matches("following it again (SubscribeToTask)")
            .count();
        if cuts == 1 {
            assert_eq!(followed, 1, "{stderr}");
            assert_eq!(
                last_state.as_deref(),
                Some("TASK_STATE_COMPLETED"),
                "{events:?}"
            );
        } else {
            assert_eq!(followed, 3, "{stderr}");
            assert!(
                stderr.contains("was cut 3 times before the task ended"),
                "{stderr}"
            );
        }
    }
}

/// Nothing advertised: no card (503), and a message is refused by name,
/// not left waiting.
#[test]
fn with_no_agent_advertising_there_is_no_card_and_no_task() {
    let net = network(false, &[]);
    let (status, body) = net.get(card_path());
    assert_eq!(status, 503, "{body}");
    let answer = net.call("SendMessage", text_message("hello", "m1"));
    assert_eq!(answer["error"]["code"], -32004, "{answer}");
}

/// The door: no token, a rebinding Host, a foreign Origin, no version, a
/// wrong content type, a body too large, an old method name, params that
/// are not a request.
#[test]
fn the_door_refuses_what_a_hostile_or_hurried_client_sends() {
    let net = network(true, &["--max-bytes", "4096"]);
    let a = &net.address;
    let body =
        json!({"jsonrpc": "2.0", "id": 9, "method": "GetTask", "params": {"id": "x"}}).to_string();
    let post = |head: &str, body: &[u8]| raw(a, head, body);
    let no_token = format!(
        "POST /jsonrpc HTTP/1.1\r\nHost: {a}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n"
    );
    assert_eq!(post(&no_token, body.as_bytes()).0, 401);
    let rebinding = format!(
        "POST /jsonrpc HTTP/1.1\r\nHost: attacker.example\r\nAuthorization: Bearer {TOKEN}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n"
    );
    assert_eq!(post(&rebinding, body.as_bytes()).0, 403);
    let origin = net.head(
        "POST",
        "/jsonrpc",
        "Origin: https://attacker.example\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n",
    );
    assert_eq!(post(&origin, body.as_bytes()).0, 403);

    let code = |head: String, body: &[u8]| {
        let (status, _, text) = post(&head, body);
        assert_eq!(status, 200, "{text}");
        serde_json::from_str::<Value>(&text).unwrap()["error"]["code"].clone()
    };
    let no_version = net.head("POST", "/jsonrpc", "Content-Type: application/json\r\n");
    assert_eq!(code(no_version, body.as_bytes()), -32009);
    let text_plain = net.head(
        "POST",
        "/jsonrpc",
        "A2A-Version: 1.0\r\nContent-Type: text/plain\r\n",
    );
    assert_eq!(code(text_plain, body.as_bytes()), -32005);
    // The spec's examples spell it application/a2a+json: taken too.
    let a2a_json = net.head(
        "POST",
        "/jsonrpc",
        "A2A-Version: 1.0\r\nContent-Type: application/a2a+json\r\n",
    );
    assert_eq!(code(a2a_json, body.as_bytes()), -32001);
    let json_head = || {
        net.head(
            "POST",
            "/jsonrpc",
            "A2A-Version: 1.0\r\nContent-Type: application/json\r\n",
        )
    };
    assert_eq!(code(json_head(), b"{not json"), -32700);
    let old = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {}});
    let answer = net.call("message/send", json!({}));
    assert_eq!(answer["error"]["code"], -32601, "{old}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`SendMessage`")
    );
    let huge = vec![b' '; 8192];
    assert_eq!(post(&json_head(), &huge).0, 413);

    // Not a SendMessageRequest: named, with where.
    let answer = net.call("SendMessage", json!({"message": {"role": "ROLE_USER"}}));
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    // A file part the bridge cannot carry.
    let image = json!({"message": {"messageId": "i", "role": "ROLE_USER",
        "parts": [{"url": "https://example.com/a.png", "mediaType": "image/png"}]}});
    assert_eq!(net.call("SendMessage", image)["error"]["code"], -32005);
    // Push notifications are not offered, and say so.
    let push = net.call(
        "CreateTaskPushNotificationConfig",
        json!({"taskId": "t", "url": "https://example.com/hook"}),
    );
    assert_eq!(push["error"]["code"], -32003);
    // REST: the same errors with the spec's HTTP statuses.
    let (status, _, text) = raw(
        a,
        &net.head("GET", "/rest/tasks/nope", "A2A-Version: 1.0\r\n"),
        b"",
    );
    assert_eq!(status, 404, "{text}");
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
}

/// A TaskResult from another agent than the one asked (an eavesdropper
/// on the provider's topic, answering first) does not become the task's
/// result: the real provider's answer, a second later, does.
#[test]
fn a_forged_result_from_another_agent_is_not_taken() {
    let net = network_with(true, &[], 1.0);
    let _forger = Running(worker(net.home.path(), net.broker, "did:hsp:mallory", 0.0));
    let answer = net.call("SendMessage", text_message("hello", "m-forged"));
    let task = &answer["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{answer}");
    assert_eq!(
        task["artifacts"][0]["parts"][0]["data"]["by"], "did:hsp:echo",
        "{answer}"
    );
}

/// Numbers a double cannot hold: refused on the way in (the HSP agent
/// would read another number), carried as written on the way out.
#[test]
fn numbers_are_never_rewritten_on_either_way() {
    let net = network(true, &[]);
    let big = r#"{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {"messageId": "b", "role": "ROLE_USER", "parts": [{"data": {"n": 12345678901234567890123}}]}}}"#;
    let head = net.head(
        "POST",
        "/jsonrpc",
        "A2A-Version: 1.0\r\nContent-Type: application/json\r\n",
    );
    let (_, _, text) = raw(&net.address, &head, big.as_bytes());
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let why = answer["error"]["message"].as_str().unwrap();
    assert!(why.contains("12345678901234567890123"), "{why}");

    let answer = net.call("SendMessage", text_message("big", "m-big"));
    let task = &answer["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{answer}");
    let part = &task["artifacts"][0]["parts"][0];
    assert_eq!(part["mediaType"], "application/json");
    let exact = part["text"].as_str().unwrap();
    assert!(exact.contains("12345678901234567890123"), "{exact}");
    assert!(exact.contains("0.90"), "{exact}");
    assert!(
        task["status"]["message"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains("as written")
    );
}

/// The official JavaScript SDK (@a2a-js/sdk 1.3.0) over both bindings:
/// send, stream, get, cancel, and a cancel of an ended task named by its
/// own error class. It runs where `AIPROTO_A2A_JS_SDK` names the
/// node_modules holding the SDK (CI installs it there), else SKIPPED.
#[test]
fn the_a2a_js_sdk_sends_streams_gets_and_cancels_over_both_bindings() {
    let Some(modules) = std::env::var_os("AIPROTO_A2A_JS_SDK") else {
        eprintln!(
            "SKIPPED: npm install --prefix DIR @a2a-js/sdk@1.3.0 and set AIPROTO_A2A_JS_SDK=DIR/node_modules"
        );
        return;
    };
    let modules = std::path::PathBuf::from(modules);
    assert!(
        modules.join("@a2a-js/sdk").is_dir(),
        "AIPROTO_A2A_JS_SDK={} holds no @a2a-js/sdk",
        modules.display()
    );
    // An ES module finds its packages beside it, not through NODE_PATH.
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&modules, dir.path().join("node_modules")).unwrap();
    let script = dir.path().join("client.mjs");
    std::fs::copy(repo("tests/interop/a2a_js_client.mjs"), &script).unwrap();
    let net = network(true, &[]);
    for binding in ["JSONRPC", "HTTP+JSON"] {
        let out = std::process::Command::new("node")
            .arg(&script)
            .arg(format!("http://{}", net.address))
            .arg(TOKEN)
            .arg(binding)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{binding}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let steps: std::collections::HashMap<String, Value> = super::json_lines(&out.stdout)
            .into_iter()
            .map(|step| (step["step"].as_str().unwrap().to_string(), step))
            .collect();
        // The SDK's TaskState numbers: 1 submitted, 2 working, 3 completed, 5 canceled.
        let sent = &steps["send"]["result"];
        assert_eq!(sent["status"]["state"], 3, "{binding}: {sent}");
        let data = &sent["artifacts"][0]["parts"][0]["content"]["value"];
        assert_eq!(data["a2a_message_id"], "js-send-1", "{binding}: {sent}");
        let states: Vec<i64> = steps["stream"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| {
                let value = &e["payload"]["value"];
                value["status"]["state"].as_i64()
            })
            .collect();
        assert_eq!(states, [1, 2, 3], "{binding}: {}", steps["stream"]);
        assert_eq!(steps["get"]["task"]["id"], sent["id"]);
        assert_eq!(steps["cancel"]["task"]["status"]["state"], 5);
        let error = steps["cancel-done"]["error"].as_str().unwrap();
        assert!(
            error.ends_with("TaskNotCancelableError"),
            "{binding}: {error}"
        );
    }
}

/// A stream nobody reads does not hold the bridge up, and JSON nested
/// deeper than any A2A object is named, not a crash.
#[test]
fn a_stalled_stream_reader_and_deep_json_hold_nothing_up() {
    use std::io::Write;
    let net = network(true, &[]);
    // Many streams opened and never read.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
        "params": text_message("hello", "m-stalled")})
    .to_string();
    let head = net.head(
        "POST",
        "/jsonrpc",
        "A2A-Version: 1.0\r\nContent-Type: application/json\r\n",
    );
    let stalled: Vec<std::net::TcpStream> = (0..8)
        .map(|_| {
            let mut stream = std::net::TcpStream::connect(&net.address).unwrap();
            write!(stream, "{head}Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
            stream
        })
        .collect();
    // Others are served meanwhile.
    let answer = net.call("SendMessage", text_message("hello", "m-beside"));
    assert_eq!(
        answer["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{answer}"
    );
    drop(stalled);
    let deep = format!(
        r#"{{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}1{}}}"#,
        "[".repeat(600_000),
        "]".repeat(600_000)
    );
    let (status, _, text) = raw(&net.address, &head, deep.as_bytes());
    assert_eq!(status, 413, "over --max-bytes first: {text}");
    let deep = format!(
        r#"{{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}1{}}}"#,
        "[".repeat(5_000),
        "]".repeat(5_000)
    );
    let (status, _, text) = raw(&net.address, &head, deep.as_bytes());
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    // And the bridge still answers.
    assert_eq!(net.get(card_path()).0, 200);
}

/// aiproto's own client through the bridge: the token from a file, each
/// streamed event a line as it comes, a task returned at once, and the
/// token withheld (and the call refused) without it.
#[test]
fn aiproto_send_streams_through_the_bridge_with_its_token() {
    let net = network(true, &[]);
    let h = net.home.path();
    let via = format!("a2a+http://{}", net.address);
    let token = h.join("client-token");
    std::fs::write(&token, format!("{TOKEN}\n")).unwrap();
    let message = h.join("hello.json");
    std::fs::write(&message, text_message("hello", "m-client").to_string()).unwrap();
    let out = aiproto(h)
        .args(["send", "--stream", "--via", &via, "--token-file"])
        .arg(&token)
        .arg(&message)
        .assert()
        .code(0);
    let events = super::json_lines(&out.get_output().stdout);
    let states: Vec<&str> = events
        .iter()
        .filter_map(|e| {
            e.pointer("/task/status/state")
                .or(e.pointer("/statusUpdate/status/state"))
                .and_then(Value::as_str)
        })
        .collect();
    assert_eq!(
        states,
        [
            "TASK_STATE_SUBMITTED",
            "TASK_STATE_WORKING",
            "TASK_STATE_COMPLETED"
        ]
    );
    assert!(events.iter().any(|e| e.get("artifactUpdate").is_some()));
    let out = aiproto(h)
        .args(["send", "--no-wait", "--via", &via])
        .env("AIPROTO_A2A_TOKEN", TOKEN)
        .arg(&message)
        .assert()
        .code(0);
    let task = &super::json_lines(&out.get_output().stdout)[0]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_SUBMITTED");
    aiproto(h)
        .args(["send", "--via", &via])
        .arg(&message)
        .assert()
        .code(3)
        .stderr(predicates::str::contains("401"));
    // The bridge's card is not signed: a client that asks for a signed one
    // sends nothing.
    aiproto(h)
        .args(["send", "--require-signed-card", "--via", &via])
        .env("AIPROTO_A2A_TOKEN", TOKEN)
        .arg(&message)
        .assert()
        .code(3)
        .stderr(predicates::str::contains("SIG-UNSIGNED"));
}

/// `--require-signed`: an unsigned advertisement is not kept (no card, no
/// skill), a signed one is; a TaskResult that carries no signature is
/// not taken, and the task fails saying so.
#[test]
fn with_require_signed_only_what_verifies_is_trusted() {
    let net = network(false, &["--require-signed", "--task-timeout", "4"]);
    let h = net.home.path();
    advertise(h, net.broker);
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(
        net.get(card_path()).0,
        503,
        "an unsigned advertisement was kept"
    );
    aiproto(h)
        .args([
            "keygen",
            "-q",
            "--id",
            "echo",
            "--signs-for",
            "did:hsp:echo",
        ])
        .assert()
        .code(0);
    advertise_signed(h, net.broker, Some("echo"));
    let started = Instant::now();
    while net.get(card_path()).0 != 200 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the signed advertisement was not kept"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The worker answers unsigned: not taken.
    let answer = net.call("SendMessage", text_message("hello", "m-unsigned"));
    let task = &answer["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED", "{answer}");
    let said = task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(said.contains("not accepted"), "{said}");
}

/// A broker that cannot be reached ends the bridge with exit 3, named;
/// a listening address beyond loopback needs --allow-remote, and
/// --no-token loopback.
#[test]
fn an_unreachable_broker_or_a_wide_door_is_refused() {
    let h = home();
    aiproto(h.path())
        .args(["a2a", "serve", "--listen", "127.0.0.1:0", "--no-token"])
        .args(["--via", &format!("mqtt://127.0.0.1:{}", super::free_port())])
        .timeout(Duration::from_secs(30))
        .assert()
        .code(3)
        .stderr(predicates::str::contains("the HSP network's broker"));
    for wide in [&["--no-token"][..], &[][..]] {
        aiproto(h.path())
            .args([
                "a2a",
                "serve",
                "--listen",
                "0.0.0.0:0",
                "--via",
                "mqtt://127.0.0.1",
            ])
            .args(wide)
            .assert()
            .code(2);
    }
    aiproto(h.path())
        .args([
            "a2a",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--via",
            "http://127.0.0.1",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("over MQTT"));
}
