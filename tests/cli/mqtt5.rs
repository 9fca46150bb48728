//! MQTT 5 through Mosquitto (where installed; `.ci/run` installs it):
//! what aiproto's messages carry beside their payload, read by Mosquitto's
//! own MQTT 5 clients; `request` and its answer tied by correlation data;
//! a publish the broker refuses is an error, not an exit 0.

use std::process::Command;

use predicates::prelude::*;

use super::mqtt::{mosquitto, start_mosquitto};
use super::{Running, aiproto, free_port, home, json_lines, subscribed};

/// Mosquitto on a free port with `extra` configuration, or `None` (said) where it is not installed.
fn broker(test: &str, h: &std::path::Path, extra: &str) -> Option<(Running, u16)> {
    let binary = mosquitto(test)?;
    let port = free_port();
    let conf = h.join("mosquitto.conf");
    std::fs::write(&conf, format!("listener {port} 127.0.0.1\n{extra}")).unwrap();
    Some((start_mosquitto(binary, &conf, port), port))
}

/// `mosquitto_sub` over MQTT 5 on `filter`, printing each message as
/// `topic|content type|expiry|response topic|correlation data|payload`;
/// returns once it is subscribed.
fn properties_sub(port: u16, filter: &str, count: usize) -> std::process::Child {
    let child = Command::new("mosquitto_sub")
        .args(["-V", "mqttv5", "-h", "127.0.0.1", "-p", &port.to_string()])
        .args(["-t", filter, "-C", &count.to_string(), "-W", "20"])
        .args(["-F", "%t|%C|%E|%R|%D|%p"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("mosquitto_sub (apt-get install mosquitto-clients)");
    // mosquitto_sub says nothing when it is subscribed: a retained marker
    // would be read by the tests; a short wait is what its own tests use.
    std::thread::sleep(std::time::Duration::from_millis(500));
    child
}

fn fields(line: &str) -> Vec<&str> {
    line.splitn(6, '|').collect()
}

/// `compose hsp ARGS` written to `NAME.json` in `h`.
fn compose(h: &std::path::Path, name: &str, args: &[&str]) -> std::path::PathBuf {
    let out = aiproto(h)
        .args(["compose", "hsp"])
        .args(args)
        .assert()
        .code(0);
    let path = h.join(format!("{name}.json"));
    std::fs::write(&path, &out.get_output().stdout).unwrap();
    path
}

/// A TaskRequest from did:hsp:boss to did:hsp:worker answered on
/// hsp/results/boss, with `extra` arguments.
fn task_request(h: &std::path::Path, extra: &[&str]) -> std::path::PathBuf {
    let mut args = vec![
        "task-request",
        "--from",
        "did:hsp:boss",
        "--to",
        "did:hsp:worker",
    ];
    args.extend([
        "--capability-id",
        "translate",
        "--callback",
        "hsp/results/boss",
    ]);
    args.extend(extra);
    compose(h, "task", &args)
}

/// A fact for the topic hsp/knowledge/facts.
fn public_fact(h: &std::path::Path) -> std::path::PathBuf {
    let mut args = vec![
        "fact",
        "--from",
        "did:hsp:boss",
        "--to",
        "hsp/knowledge/facts",
    ];
    args.extend(["--statement", "The sky is blue.", "--confidence", "0.9"]);
    compose(h, "fact", &args)
}

/// A TaskRequest published over MQTT 5 carries its callback as the
/// response topic, its id as the correlation data, its deadline as the
/// expiry and its content type; a fact without `valid_until` no expiry.
#[test]
fn messages_carry_their_response_topic_correlation_and_expiry() {
    let h = home();
    let Some((_broker, port)) = broker(
        "messages_carry_their_response_topic_correlation_and_expiry",
        h.path(),
        "allow_anonymous true\n",
    ) else {
        return;
    };
    let deadline = chrono::Utc::now() + chrono::Duration::seconds(3600);
    let deadline = format!(
        "deadline_timestamp={}",
        deadline.format("%Y-%m-%dT%H:%M:%SZ")
    );
    let task = task_request(h.path(), &["--set", &deadline]);
    let fact = public_fact(h.path());
    let sub = properties_sub(port, "hsp/#", 2);
    aiproto(h.path())
        .args(["send", "--mqtt-version", "5", "--via"])
        .arg(format!("mqtt://127.0.0.1:{port}"))
        .arg(&task)
        .arg(&fact)
        .assert()
        .code(0);
    let out = sub.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let request: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&task).unwrap()).unwrap();
    let f = fields(lines[0]);
    assert_eq!(f[0], "hsp/agents/did:hsp:worker");
    assert_eq!(f[1], "application/json");
    let expiry: u32 = f[2].parse().unwrap_or_else(|_| panic!("no expiry: {text}"));
    assert!((3500..=3600).contains(&expiry), "{expiry}");
    assert_eq!(f[3], "hsp/results/boss");
    assert_eq!(f[4], request["message_id"].as_str().unwrap());
    let f = fields(lines[1]);
    assert_eq!(f[0], "hsp/knowledge/facts");
    assert_eq!((f[2], f[3], f[4]), ("", "", ""), "{text}");
}

/// `request --mqtt-version 5` against an agent made of aiproto commands
/// over MQTT 5: the worker's `recv --format json` shows the request's
/// response topic and correlation data, its answer goes back with the
/// same correlation data, and an answer correlated to another request on
/// the same callback topic is not taken.
#[test]
fn request_and_answer_are_tied_by_correlation_data() {
    let h = home();
    let Some((_broker, port)) = broker(
        "request_and_answer_are_tied_by_correlation_data",
        h.path(),
        "allow_anonymous true\n",
    ) else {
        return;
    };
    let broker = format!("mqtt://127.0.0.1:{port}");
    let task = task_request(h.path(), &[]);
    let id = serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&task).unwrap())
        .unwrap()["message_id"]
        .as_str()
        .unwrap()
        .to_string();
    let worker = subscribed(
        h.path(),
        &[
            "--via",
            &format!("{broker}/hsp/agents/did:hsp:worker"),
            "--mqtt-version",
            "5",
            "--count",
            "1",
            "--timeout",
            "20",
            "--format",
            "json",
        ],
    );
    let answers = properties_sub(port, "hsp/results/#", 2);
    let asker = super::spawn(
        h.path(),
        &[
            "request",
            "--mqtt-version",
            "5",
            "--timeout",
            "20",
            "--via",
            &broker,
        ],
    )
    .arg(&task)
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let got = worker.wait_with_output().unwrap();
    let [line] = json_lines(&got.stdout).try_into().unwrap();
    assert_eq!(line["mqtt5"]["response_topic"], "hsp/results/boss");
    assert_eq!(line["mqtt5"]["correlation_data"], id.as_str());
    assert_eq!(line["mqtt5"]["content_type"], "application/json");
    let received = h.path().join("received.json");
    std::fs::write(&received, line["message"].as_str().unwrap()).unwrap();
    let answer = |result: &str| {
        aiproto(h.path())
            .args(["compose", "hsp", "--reply-to"])
            .arg(&received)
            .args(["--from", "did:hsp:worker", "--status", "success"])
            .args(["--result", result])
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone()
    };
    // First an answer as aiproto's agent would send it, with correlation
    // data naming another request (as one of another asker sharing the
    // callback topic would): `request` must not take it.
    let stray = answer(r#"{"text": "for someone else"}"#);
    let published = Command::new("mosquitto_pub")
        .args(["-V", "mqttv5", "-h", "127.0.0.1", "-p", &port.to_string()])
        .args([
            "-t",
            "hsp/results/boss",
            "-D",
            "publish",
            "correlation-data",
            "another-request",
        ])
        .arg("-m")
        .arg(String::from_utf8(stray).unwrap().trim_end())
        .status()
        .unwrap();
    assert!(published.success());
    let real = answer(r#"{"text": "Bonjour"}"#);
    aiproto(h.path())
        .args(["send", "--mqtt-version", "5", "--via", &broker, "-"])
        .write_stdin(real)
        .assert()
        .code(0);
    let out = asker.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["payload"]["payload"]["text"], "Bonjour");
    // What aiproto's answer carried, as Mosquitto's client read it.
    let seen = String::from_utf8(answers.wait_with_output().unwrap().stdout).unwrap();
    let last = seen.lines().last().unwrap_or_default();
    assert_eq!(fields(last)[4], id, "{seen}");
}

/// Over MQTT 5 the broker says when it refuses a message (here its ACL):
/// `send` exits 3 naming the message and the reason. Over 3.1.1 the same
/// broker acknowledges and drops it, and no client can tell.
#[test]
fn a_publish_the_broker_refuses_is_an_error_over_mqtt5() {
    let h = home();
    let acl = h.path().join("acl");
    std::fs::write(&acl, "topic readwrite hsp/agents/#\n").unwrap();
    let Some((_broker, port)) = broker(
        "a_publish_the_broker_refuses_is_an_error_over_mqtt5",
        h.path(),
        &format!("allow_anonymous true\nacl_file {}\n", acl.display()),
    ) else {
        return;
    };
    let fact = public_fact(h.path());
    let via = format!("mqtt://127.0.0.1:{port}");
    aiproto(h.path())
        .args(["send", "--mqtt-version", "5", "--via", &via])
        .arg(&fact)
        .assert()
        .code(3)
        .stderr(
            predicate::str::contains("refused message 1 of 1 (to `hsp/knowledge/facts`)")
                .and(predicate::str::contains("NotAuthorized")),
        );
    aiproto(h.path())
        .args(["send", "--via", &via])
        .arg(&fact)
        .assert()
        .code(0);
}

/// MQTT 5's request and response with peers that know nothing of HSP: a
/// `recv --exec` agent publishes its handler's answer on the request's
/// response topic with its correlation data (`mosquitto_rr` gets it, though
/// the TaskRequest's callback names another topic), and `request` takes a
/// plain reply whose correlation data names its request.
#[test]
fn a_worker_answers_on_the_response_topic_and_request_takes_a_plain_reply() {
    let h = home();
    let Some((_broker, port)) = broker(
        "a_worker_answers_on_the_response_topic_and_request_takes_a_plain_reply",
        h.path(),
        "allow_anonymous true\n",
    ) else {
        return;
    };
    let broker = format!("mqtt://127.0.0.1:{port}");
    let worker = |count: &str| {
        subscribed(
            h.path(),
            &[
                "--via",
                &format!("{broker}/hsp/agents/did:hsp:worker"),
                "--mqtt-version",
                "5",
                "--exec",
                "echo plain-ok",
                "--count",
                count,
                "--timeout",
                "20",
            ],
        )
    };
    // mosquitto_rr asks with a response topic of its own.
    let task = task_request(h.path(), &[]);
    let first = worker("1");
    let out = Command::new("mosquitto_rr")
        .args(["-V", "mqttv5", "-h", "127.0.0.1", "-p", &port.to_string()])
        .args([
            "-t",
            "hsp/agents/did:hsp:worker",
            "-e",
            "replies/rr",
            "-W",
            "20",
        ])
        // Its -f sends an empty payload (Mosquitto 2.0.11): the text itself.
        .arg("-m")
        .arg(std::fs::read_to_string(&task).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "plain-ok");
    first.wait_with_output().unwrap();
    // aiproto request takes the plain reply: printed, exit 0, said.
    let second = worker("1");
    let asked = aiproto(h.path())
        .args([
            "request",
            "--mqtt-version",
            "5",
            "--timeout",
            "20",
            "--via",
            &broker,
        ])
        .arg(&task)
        .assert()
        .code(0);
    assert_eq!(
        String::from_utf8_lossy(&asked.get_output().stdout),
        "plain-ok\n"
    );
    assert!(
        String::from_utf8_lossy(&asked.get_output().stderr).contains("a plain MQTT 5 reply"),
        "{}",
        String::from_utf8_lossy(&asked.get_output().stderr)
    );
    second.wait_with_output().unwrap();
    // Under --require-signed a plain reply, which carries no signature, is not taken.
    let third = worker("1");
    aiproto(h.path())
        .args([
            "request",
            "--mqtt-version",
            "5",
            "--timeout",
            "3",
            "--require-signed",
        ])
        .args(["--via", &broker])
        .arg(&task)
        .assert()
        .code(4)
        .stderr(predicates::str::contains("carries no signature"));
    third.wait_with_output().unwrap();
}
