//! `aiproto msp --backend openai|groq` against an OpenAI-compatible server
//! run inside the test on a loopback port (the real services are out of
//! reach here): the requests the client sends, JSON mode, replies that are
//! not JSON, 429 with Retry-After, 500s, a server that hangs, the presets.

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{aiproto, home};

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    authorization: Option<String>,
    body: Value,
}

/// A reply: status, an optional Retry-After, a body, and a delay first.
#[derive(Clone)]
struct Reply {
    status: u16,
    retry_after: Option<&'static str>,
    body: String,
    delay: Duration,
}

fn ok(body: Value) -> Reply {
    Reply {
        status: 200,
        retry_after: None,
        body: body.to_string(),
        delay: Duration::ZERO,
    }
}

fn status(code: u16) -> Reply {
    Reply {
        status: code,
        retry_after: None,
        body: json!({"error": {"message": format!("status {code} from the test server")}})
            .to_string(),
        delay: Duration::ZERO,
    }
}

/// A chat completion whose message is `content`.
fn chat(content: &str) -> Reply {
    ok(json!({"id": "x", "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}))
}

/// A server answering with `replies` in turn (the last one repeats).
struct FakeLlm {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl FakeLlm {
    fn start(replies: Vec<Reply>) -> FakeLlm {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let port = server.server_addr().to_ip().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        thread::spawn(move || {
            for (n, mut request) in server.incoming_requests().enumerate() {
                let mut body = String::new();
                let _ = request.as_reader().read_to_string(&mut body);
                log.lock().unwrap().push(Seen {
                    path: request.url().to_string(),
                    authorization: request
                        .headers()
                        .iter()
                        .find(|h| h.field.equiv("Authorization"))
                        .map(|h| h.value.to_string()),
                    body: serde_json::from_str(&body).unwrap_or(Value::Null),
                });
                let reply = replies[n.min(replies.len() - 1)].clone();
                thread::spawn(move || {
                    thread::sleep(reply.delay);
                    let mut response = tiny_http::Response::from_string(reply.body)
                        .with_status_code(reply.status)
                        .with_header(
                            tiny_http::Header::from_bytes("Content-Type", "application/json")
                                .unwrap(),
                        );
                    if let Some(after) = reply.retry_after {
                        response.add_header(
                            tiny_http::Header::from_bytes("Retry-After", after).unwrap(),
                        );
                    }
                    let _ = request.respond(response);
                });
            }
        });
        FakeLlm {
            url: format!("http://127.0.0.1:{port}/v1"),
            seen,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// `aiproto msp …` against the server, with a known key and a clean environment.
fn msp(dir: &std::path::Path, server: &FakeLlm, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = aiproto(dir);
    for var in [
        "AIPROTO_LLM_BACKEND",
        "AIPROTO_LLM_BASE_URL",
        "AIPROTO_LLM_MODEL",
        "AIPROTO_LLM_EMBEDDING_MODEL",
        "GROQ_API_KEY",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("AIPROTO_LLM_API_KEY", "test-key")
        .arg("msp")
        .args(args)
        .args([
            "--backend",
            "openai",
            "--base-url",
            &server.url,
            "--model",
            "test-model",
        ]);
    cmd
}

#[test]
fn encode_sends_a_json_mode_chat_and_validates_the_reply() {
    let dir = home();
    let server = FakeLlm::start(vec![chat(
        r#"{"intent": "ANALYZE", "target": "Q3 churn", "params": {"region": "EU"}, "priority": "high"}"#,
    )]);
    let out = msp(
        dir.path(),
        &server,
        &["encode", "--format", "json", "Why did churn rise in Q3?"],
    )
    .assert()
    // A one-line prose: the signal has more tokens (said, exit 1).
    .code(1)
    .get_output()
    .stdout
    .clone();
    let signal: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(signal["intent"], "ANALYZE");
    assert_eq!(signal["params"]["region"], "EU");
    assert!(uuid::Uuid::parse_str(signal["trace_id"].as_str().unwrap()).is_ok());
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].authorization.as_deref(), Some("Bearer test-key"));
    let body = &seen[0].body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
    assert_eq!(body["messages"][0]["role"], "system");
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("ANALYZE")
    );
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "Why did churn rise in Q3?"})
    );
}

#[test]
fn decode_sends_the_signal_without_json_mode() {
    let dir = home();
    let server = FakeLlm::start(vec![chat("Please look into the Q3 churn in the EU.")]);
    let signal = dir.path().join("signal.json");
    std::fs::write(&signal, r#"{"intent": "ANALYZE", "target": "Q3 churn"}"#).unwrap();
    msp(
        dir.path(),
        &server,
        &["decode", "--style", "concise", signal.to_str().unwrap()],
    )
    .assert()
    .success()
    .stdout("Please look into the Q3 churn in the EU.\n");
    let body = &server.seen()[0].body;
    assert!(body.get("response_format").is_none());
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("concise")
    );
    let sent: Value =
        serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap();
    assert_eq!(sent["target"], "Q3 churn");
}

#[test]
fn judge_uses_embeddings() {
    let dir = home();
    let server = FakeLlm::start(vec![ok(json!({"object": "list", "data": [
        {"index": 1, "embedding": [0.8, 0.6]},
        {"index": 0, "embedding": [1.0, 0.0]}
    ]}))]);
    let out = msp(
        dir.path(),
        &server,
        &["judge", "--format", "json", "--threshold", "0.75", "a", "b"],
    )
    .assert()
    .success()
    .get_output()
    .stdout
    .clone();
    let judge: Value = serde_json::from_slice(&out).unwrap();
    assert!((judge["similarity_score"].as_f64().unwrap() - 0.8).abs() < 1e-9);
    assert_eq!(judge["passed"], true);
    let seen = server.seen();
    assert_eq!(seen[0].path, "/v1/embeddings");
    assert_eq!(seen[0].body["input"], json!(["a", "b"]));
}

#[test]
fn a_reply_that_is_not_json_is_an_encoder_error() {
    let dir = home();
    let server = FakeLlm::start(vec![chat("Sure! Here is your signal: intent=ANALYZE")]);
    msp(dir.path(), &server, &["encode", "Check the logs."])
        .assert()
        .code(3)
        .stderr(predicates::str::contains(
            "EncoderError: Failed to parse LLM response",
        ));
    let server = FakeLlm::start(vec![Reply {
        body: "<html>bad gateway</html>".into(),
        ..ok(Value::Null)
    }]);
    msp(dir.path(), &server, &["encode", "Check the logs."])
        .assert()
        .code(3)
        .stderr(predicates::str::contains("is not JSON"));
}

#[test]
fn a_signal_with_an_unknown_field_is_refused() {
    let dir = home();
    let server = FakeLlm::start(vec![chat(
        r#"{"intent": "QUERY", "target": "x", "mood": "sunny"}"#,
    )]);
    msp(dir.path(), &server, &["encode", "What is the weather?"])
        .assert()
        .code(3)
        .stderr(predicates::str::contains("unknown field `mood`"));
}

#[test]
fn a_429_is_retried_after_retry_after() {
    let dir = home();
    let limited = Reply {
        retry_after: Some("1"),
        ..status(429)
    };
    let server = FakeLlm::start(vec![
        limited,
        chat(r#"{"intent": "REPORT", "target": "uptime"}"#),
    ]);
    let start = Instant::now();
    msp(
        dir.path(),
        &server,
        &["encode", "Uptime was 99.9% this week."],
    )
    .assert()
    // A one-line prose: the signal has more tokens (said, exit 1).
    .code(1);
    assert_eq!(server.seen().len(), 2);
    assert!(
        start.elapsed() >= Duration::from_millis(900),
        "Retry-After was not honoured"
    );
}

#[test]
fn a_429_that_persists_is_a_rate_limit_error() {
    let dir = home();
    let server = FakeLlm::start(vec![Reply {
        retry_after: Some("0"),
        ..status(429)
    }]);
    msp(
        dir.path(),
        &server,
        &["encode", "--retries", "2", "Uptime was fine."],
    )
    .assert()
    .code(3)
    .stderr(predicates::str::contains("RateLimitError"));
    assert_eq!(server.seen().len(), 3);
}

#[test]
fn server_errors_are_retried_then_reported() {
    let dir = home();
    let server = FakeLlm::start(vec![
        status(500),
        chat(r#"{"intent": "REPORT", "target": "x"}"#),
    ]);
    msp(dir.path(), &server, &["encode", "All good."])
        .assert()
        // A one-line prose: the signal has more tokens (said, exit 1).
        .code(1);
    assert_eq!(server.seen().len(), 2);
    let server = FakeLlm::start(vec![status(503)]);
    msp(
        dir.path(),
        &server,
        &["encode", "--retries", "0", "All good."],
    )
    .assert()
    .code(3)
    .stderr(predicates::str::contains("HTTP 503"))
    .stderr(predicates::str::contains("status 503 from the test server"));
    let server = FakeLlm::start(vec![status(401)]);
    msp(dir.path(), &server, &["encode", "All good."])
        .assert()
        .code(3);
    assert_eq!(server.seen().len(), 1, "a 401 is not retried");
}

#[test]
fn a_server_that_hangs_times_out() {
    let dir = home();
    let server = FakeLlm::start(vec![Reply {
        delay: Duration::from_secs(10),
        ..chat("{}")
    }]);
    msp(
        dir.path(),
        &server,
        &["encode", "--timeout", "0.5", "Hello there."],
    )
    .assert()
    .code(3)
    .stderr(predicates::str::contains("did not answer within 0.5 s"));
}

#[test]
fn settings_come_from_config_toml() {
    let dir = home();
    let server = FakeLlm::start(vec![chat(r#"{"intent": "QUERY", "target": "x"}"#)]);
    std::fs::write(
        dir.path().join("config.toml"),
        format!(
            "[msp]\nbackend = \"openai\"\nbase_url = \"{}\"\nmodel = \"from-config\"\n",
            server.url
        ),
    )
    .unwrap();
    aiproto(dir.path())
        .env("AIPROTO_LLM_API_KEY", "k")
        .env_remove("AIPROTO_LLM_MODEL")
        .args(["msp", "encode", "Who is on call?"])
        .assert()
        // A one-line prose: the signal has more tokens (said, exit 1).
        .code(1);
    assert_eq!(server.seen()[0].body["model"], "from-config");
    std::fs::write(dir.path().join("config.toml"), "[msp]\nrmp = 3\n").unwrap();
    aiproto(dir.path())
        .args(["msp", "encode", "x"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("config.toml: line 2, column 1"));
}

#[test]
fn groq_needs_its_key_and_judges_offline() {
    let dir = home();
    aiproto(dir.path())
        .env_remove("GROQ_API_KEY")
        .env_remove("AIPROTO_LLM_API_KEY")
        .args(["msp", "encode", "--backend", "groq", "Hello."])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("GROQ_API_KEY"));
    // With a base URL of its own, groq's judge never calls /embeddings.
    let server = FakeLlm::start(vec![status(500)]);
    aiproto(dir.path())
        .env("GROQ_API_KEY", "g")
        .args([
            "msp",
            "judge",
            "--backend",
            "groq",
            "--base-url",
            &server.url,
            "same",
            "same",
        ])
        .assert()
        .success();
    assert!(server.seen().is_empty());
}
