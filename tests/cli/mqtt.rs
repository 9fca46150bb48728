//! MQTT end to end: the embedded broker (always) and Mosquitto (where
//! installed; `.ci/run` installs it), `send --via mqtt://…` and `recv`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use predicates::prelude::*;

use super::{
    REQUEST, Running, aiproto, aiproto_child, embedded_broker, free_port, home, json_lines, repo,
    spawn, subscribed, subscribed_logged, wait_for,
};

/// Subscribes, publishes the example JSON Lines, and checks all arrived on
/// the topic their recipient names.
fn exchange(h: &std::path::Path, port: u16) {
    let recv = subscribed(
        h,
        &[
            "--via",
            &format!("mqtt://127.0.0.1:{port}/hsp/#"),
            "--count",
            "3",
            "--timeout",
            "20",
            "--format",
            "json",
        ],
    );
    aiproto(h)
        .args(["send", "--via", &format!("mqtt://127.0.0.1:{port}")])
        .arg(repo("examples/hsp/valid/0.1/facts.jsonl"))
        .assert()
        .code(0);
    let out = recv.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 3);
    assert!(
        lines
            .iter()
            .all(|l| l["topic"] == "hsp/knowledge/facts/general")
    );
    let first: serde_json::Value =
        serde_json::from_str(lines[0]["message"].as_str().unwrap()).unwrap();
    assert_eq!(first["message_id"], "018f4a6e-8c1b-7d2a-9e3f-000000000000");
}

#[test]
fn hsp_over_the_embedded_broker() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    exchange(h.path(), port);
}

#[test]
fn a_message_replayed_to_a_restarted_receiver_is_not_taken_twice() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let facts = std::fs::read_to_string(repo("examples/hsp/valid/0.1/facts.jsonl")).unwrap();
    let facts: Vec<&str> = facts.lines().collect();
    let state = h.path().join("taken");
    let via = format!("mqtt://127.0.0.1:{port}/hsp/#");
    let receive = |publish: &[&str]| {
        let recv = subscribed(
            h.path(),
            &[
                "--via",
                &via,
                "--state",
                state.to_str().unwrap(),
                "--count",
                "1",
                "--timeout",
                "20",
                "--format",
                "json",
            ],
        );
        for message in publish {
            aiproto(h.path())
                .args(["send", "--via", &format!("mqtt://127.0.0.1:{port}")])
                .write_stdin(format!("{message}\n"))
                .assert()
                .code(0);
        }
        let out = recv.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        json_lines(&out.stdout)
    };
    let first = receive(&[facts[0]]);
    assert_eq!(first.len(), 1);
    // Restarted: the captured message sent again is skipped, the next taken.
    let second = receive(&[facts[0], facts[1]]);
    assert_eq!(second.len(), 1);
    let taken: serde_json::Value =
        serde_json::from_str(second[0]["message"].as_str().unwrap()).unwrap();
    assert_eq!(taken["message_id"], "018f4a6e-8c1b-7d2a-9e3f-000000000001");
}

/// `n` facts from did:hsp:ai_alpha to did:hsp:beta, each asking for an ACK.
fn facts_asking_for_acks(n: usize) -> String {
    numbered_facts(n)
        .replace("\"requires_ack\": false", "\"requires_ack\": true")
        .replace("hsp/knowledge/facts/general", "did:hsp:beta")
}

#[test]
fn a_burst_of_messages_asking_for_acks_is_printed_whole_and_acknowledged() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let n = 1000;
    // Last, the burst at QoS 2 to a receiver in a persistent session, which
    // acknowledges each message by hand once printed: its acknowledgements
    // must not wait behind its own answers (an ACK each). With every answer
    // handed to the client at once, the client's window of 20 filled, the
    // acknowledgements queued behind it, and the built-in broker, waiting
    // for them, stopped the burst at about 560 of 1,000.
    for (qos, session) in [("0", None), ("1", None), ("2", None), ("2", Some("beta"))] {
        let count = n.to_string();
        let listen = |filter: &str, extra: &[&str]| {
            let mut args = vec![
                "--via".to_string(),
                format!("mqtt://127.0.0.1:{port}/{filter}"),
                "--count".into(),
                count.clone(),
                "--timeout".into(),
                "120".into(),
                "--qos".into(),
                qos.into(),
                "--format".into(),
                "json".into(),
            ];
            args.extend(extra.iter().map(|s| s.to_string()));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            subscribed(h.path(), &args)
        };
        // At QoS 0 the broker may drop what a subscriber is slow to take:
        // only the receiver's own printing is promised there.
        let acks = (qos != "0").then(|| listen("hsp/agents/did:hsp:ai_alpha", &["--no-ack"]));
        let mut receiving = vec!["--as", "did:hsp:beta"];
        if let Some(name) = session {
            receiving.extend(["--session", name]);
        }
        let receiver = listen("hsp/agents/did:hsp:beta", &receiving);
        aiproto(h.path())
            .args([
                "send",
                "-q",
                "--qos",
                qos,
                "--via",
                &format!("mqtt://127.0.0.1:{port}"),
            ])
            .write_stdin(facts_asking_for_acks(n))
            .assert()
            .code(0);
        let got = receiver.wait_with_output().unwrap();
        assert_eq!(
            got.status.code(),
            Some(0),
            "QoS {qos}, session {session:?}: {} of {n} printed; {}",
            json_lines(&got.stdout).len(),
            String::from_utf8_lossy(&got.stderr)
        );
        assert_eq!(json_lines(&got.stdout).len(), n, "QoS {qos}");
        let Some(acks) = acks else { continue };
        let got = acks.wait_with_output().unwrap();
        assert_eq!(got.status.code(), Some(0), "QoS {qos}: acks");
        let acks = json_lines(&got.stdout);
        assert_eq!(acks.len(), n, "QoS {qos}");
        let ack: serde_json::Value =
            serde_json::from_str(acks[0]["message"].as_str().unwrap()).unwrap();
        assert_eq!(ack["sender_ai_id"], "did:hsp:beta");
    }
}

#[test]
fn sigterm_in_the_middle_of_an_ack_burst_stops_recv_by_the_convention() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let via = format!("mqtt://127.0.0.1:{port}/hsp/agents/did:hsp:beta");
    let mut recv = aiproto_child(
        h.path(),
        &[
            "recv",
            "--via",
            &via,
            "--as",
            "did:hsp:beta",
            "--count",
            "100000",
            "--format",
            "json",
        ],
    );
    wait_for(&mut recv, "subscribed");
    let burst = h.path().join("burst.jsonl");
    std::fs::write(&burst, facts_asking_for_acks(20_000)).unwrap();
    let mut send = spawn(
        h.path(),
        &["send", "-q", "--via", &format!("mqtt://127.0.0.1:{port}")],
    )
    .arg(&burst)
    .spawn()
    .unwrap();
    let mut stdout = BufReader::new(recv.stdout.take().unwrap());
    let mut line = String::new();
    for _ in 0..200 {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "recv stopped printing"
        );
    }
    let pid = recv.id().to_string();
    let started = std::time::Instant::now();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let status = recv.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(4),
        "not reaching --count after a signal is 4"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let _ = send.kill();
    let _ = send.wait();
}

#[test]
fn a_receiver_acknowledges_valid_messages_nacks_invalid_ones_and_answers_no_stranger() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let broker = format!("mqtt://127.0.0.1:{port}");
    let sender_inbox = subscribed(
        h.path(),
        &[
            "--via",
            &format!("{broker}/hsp/agents/did:hsp:ai_alpha"),
            "--no-ack",
            "--count",
            "2",
            "--timeout",
            "20",
            "--format",
            "json",
        ],
    );
    let log = h.path().join("recv.log");
    let receiver = subscribed_logged(
        h.path(),
        &[
            "--via",
            &format!("{broker}/hsp/agents/did:hsp:beta"),
            "--as",
            "did:hsp:beta",
            "--count",
            "3",
            "--timeout",
            "20",
        ],
        &log,
    );
    let facts = facts_asking_for_acks(3);
    let lines: Vec<&str> = facts.lines().collect();
    // A valid fact; one with a score of 7; one from a sender that is no DID.
    let invalid = lines[1].replace("\"confidence_score\": 0.9", "\"confidence_score\": 7");
    let stranger = lines[2].replace(
        "\"sender_ai_id\": \"did:hsp:ai_alpha\"",
        "\"sender_ai_id\": \"alpha\"",
    );
    assert!(invalid != lines[1] && stranger != lines[2]);
    aiproto(h.path())
        .args(["send", "-q", "--force", "--via", &broker])
        .write_stdin(format!("{}\n{invalid}\n{stranger}\n", lines[0]))
        .assert()
        .code(0);
    let got = receiver.wait_with_output().unwrap();
    assert_eq!(
        got.status.code(),
        Some(1),
        "an invalid message was received"
    );
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(
        stderr.contains("not acknowledged: its sender `alpha` is not a DID"),
        "{stderr}"
    );
    let got = sender_inbox.wait_with_output().unwrap();
    assert_eq!(got.status.code(), Some(0));
    let receipts: Vec<serde_json::Value> = json_lines(&got.stdout)
        .iter()
        .map(|l| serde_json::from_str(l["message"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(receipts[0]["message_type"], "HSP::Acknowledgement_v0.1");
    assert_eq!(receipts[0]["sender_ai_id"], "did:hsp:beta");
    assert_eq!(
        receipts[1]["message_type"],
        "HSP::NegativeAcknowledgement_v0.1"
    );
    assert_eq!(receipts[1]["payload"]["error_code"], "HSP-SCORE-RANGE");
}

#[test]
fn a_port_that_never_answers_mqtt_is_named_within_seconds() {
    let h = home();
    // A TCP listener that accepts and never speaks MQTT.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let started = std::time::Instant::now();
    aiproto(h.path())
        .args([
            "recv",
            "--via",
            &format!("mqtt://127.0.0.1:{port}/hsp/#"),
            "--timeout",
            "60",
        ])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("no CONNACK within 10 s"));
    assert!(started.elapsed() < std::time::Duration::from_secs(40));
    drop(silent);
}

#[test]
fn a_wildcard_address_is_invalid_and_never_reaches_a_broker() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let fact = numbered_facts(1).replace("hsp/knowledge/facts/general", "hsp/agents/#");
    let out = aiproto(h.path())
        .args(["validate", "--format", "json", "-"])
        .write_stdin(fact.clone())
        .assert()
        .code(1);
    let report = &json_lines(&out.get_output().stdout)[0];
    let finding = &report["errors"][0];
    assert_eq!(finding["code"], "HSP-ID-FORMAT", "{report}");
    assert_eq!(finding["pointer"], "/recipient_ai_id", "{report}");
    // Forced out anyway: refused at once, not published, nothing stalls.
    let started = std::time::Instant::now();
    aiproto(h.path())
        .args([
            "send",
            "--force",
            "--via",
            &format!("mqtt://127.0.0.1:{port}"),
        ])
        .write_stdin(fact)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("`#` is an MQTT wildcard"));
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn crosstalk_at_each_qos_on_an_explicit_topic() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    for qos in ["0", "1", "2"] {
        let recv = subscribed(
            h.path(),
            &[
                "--via",
                &format!("mqtt://127.0.0.1:{port}/relay/chatgpt"),
                "--count",
                "1",
                "--timeout",
                "20",
            ],
        );
        aiproto(h.path())
            .args([
                "send",
                "--qos",
                qos,
                "--via",
                &format!("mqtt://127.0.0.1:{port}/relay/chatgpt"),
            ])
            .write_stdin(REQUEST)
            .assert()
            .code(0);
        let out = recv.wait_with_output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), REQUEST, "QoS {qos}");
    }
    aiproto(h.path())
        .args(["send", "--via", &format!("mqtt://127.0.0.1:{port}")])
        .write_stdin(REQUEST)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("topic"));
}

#[test]
fn more_than_65535_messages_at_qos_1_lose_none() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let template = std::fs::read_to_string(repo("examples/hsp/valid/0.1/facts.jsonl")).unwrap();
    let line = template.lines().next().unwrap().to_string();
    let n = 66_000;
    let body: String = (0..n)
        .map(|i| line.replace("018f4a6e-8c1b-7d2a-9e3f-000000000000", &format!("m{i:06}")) + "\n")
        .collect();
    let file = h.path().join("many.jsonl");
    std::fs::write(&file, body).unwrap();
    let recv = subscribed(
        h.path(),
        &[
            "--via",
            &format!("mqtt://127.0.0.1:{port}/hsp/#"),
            "--count",
            &n.to_string(),
            "--timeout",
            "120",
        ],
    );
    aiproto(h.path())
        .args([
            "send",
            "-q",
            "--qos",
            "1",
            "--via",
            &format!("mqtt://127.0.0.1:{port}"),
        ])
        .arg(&file)
        .assert()
        .code(0);
    let out = recv.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let received = String::from_utf8_lossy(&out.stdout);
    assert_eq!(received.lines().count(), n);
    assert!(
        received
            .lines()
            .last()
            .unwrap()
            .contains(&format!("m{:06}", n - 1))
    );
}

#[test]
fn timeouts_and_unreachable_brokers() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    aiproto(h.path())
        .args([
            "recv",
            "--via",
            &format!("mqtt://127.0.0.1:{port}/nobody"),
            "--count",
            "1",
            "--timeout",
            "0.5",
        ])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("timed out"));
    aiproto(h.path())
        .args(["send", "--via", "mqtt://127.0.0.1:9/x"])
        .write_stdin(REQUEST)
        .assert()
        .code(3);
    aiproto(h.path())
        .args(["recv", "--via", "mqtt://127.0.0.1:9/x", "--timeout", "5"])
        .assert()
        .code(3);
}

/// [`REQUEST`] sent to `send_uri` arrives, whole, at a `recv` of
/// `recv_uri` that subscribed first (`extra`: arguments both take).
pub fn passes_through(h: &std::path::Path, recv_uri: &str, send_uri: &str, extra: &[&str]) {
    let mut args = vec!["--via", recv_uri, "--count", "1", "--timeout", "20"];
    args.extend_from_slice(extra);
    let recv = subscribed(h, &args);
    aiproto(h)
        .args(["send", "--via", send_uri])
        .args(extra)
        .write_stdin(REQUEST)
        .assert()
        .code(0);
    let out = recv.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("[[CLAUDE→CHATGPT v1]]"));
}

/// The Mosquitto binary, or `None` (with a SKIPPED line) when it is not installed.
pub fn mosquitto(test: &str) -> Option<&'static str> {
    // Debian installs it in /usr/sbin, which a CI PATH may lack.
    let found = ["mosquitto", "/usr/sbin/mosquitto"]
        .into_iter()
        .find(|b| Command::new(b).arg("-h").output().is_ok());
    if found.is_none() {
        eprintln!("SKIPPED {test}: mosquitto is not installed (apt-get install mosquitto)");
    }
    found
}

/// Starts Mosquitto with `conf` (its listener on `port`) and waits until it listens.
pub fn start_mosquitto(binary: &str, conf: &std::path::Path, port: u16) -> Running {
    let broker = Command::new(binary)
        .arg("-c")
        .arg(conf)
        .stderr(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed().as_secs() < 10, "mosquitto did not start");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Running(broker)
}

/// Mosquitto on a free loopback port, anyone allowed, its configuration
/// in `dir`: the broker and its port.
pub fn anonymous_mosquitto(binary: &str, dir: &std::path::Path) -> (Running, u16) {
    let port = free_port();
    let conf = dir.join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!("listener {port} 127.0.0.1\nallow_anonymous true\n"),
    )
    .unwrap();
    (start_mosquitto(binary, &conf, port), port)
}

#[test]
fn hsp_over_mosquitto() {
    let Some(binary) = mosquitto("hsp_over_mosquitto") else {
        return;
    };
    let h = home();
    let port = free_port();
    let conf = h.path().join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!("listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\n"),
    )
    .unwrap();
    let _broker = start_mosquitto(binary, &conf, port);
    exchange(h.path(), port);
    // Mosquitto's own subscriber gets the message as it is: no line end
    // added after it (it would print a blank line after each message).
    // Retained, so the subscriber gets it whenever it connects.
    aiproto(h.path())
        .args([
            "send",
            "--retain",
            "--via",
            &format!("mqtt://127.0.0.1:{port}/plain/x"),
            "-",
        ])
        .write_stdin(REQUEST)
        .assert()
        .code(0);
    let got = first_retained(port, "plain/x");
    assert_eq!(got, format!("{}\n", REQUEST.trim_end()), "{got:?}");
    // An HSP message arrives as its sender wrote it: its tokens on one
    // line, `12345678901234567890123` not turned into
    // `1.2345678901234568e+22`, nor `1.50` into `1.5`, nor the keys sorted.
    let original = super::send::hsp_as_written();
    aiproto(h.path())
        .args([
            "send",
            "--retain",
            "--via",
            &format!("mqtt://127.0.0.1:{port}/as/written"),
            "-",
        ])
        .write_stdin(original.clone())
        .assert()
        .code(0);
    super::send::assert_sent_as_written(&first_retained(port, "as/written"), &original);
}

/// The message retained on `topic`, as Mosquitto's own subscriber prints it.
fn first_retained(port: u16, topic: &str) -> String {
    let sub = Command::new("mosquitto_sub")
        .args(["-p", &port.to_string(), "-h", "127.0.0.1", "-t", topic])
        .args(["-C", "1", "-W", "20"])
        .output()
        .expect("mosquitto_sub (apt-get install mosquitto-clients)");
    String::from_utf8_lossy(&sub.stdout).to_string()
}

#[test]
fn a_qos_2_burst_reaches_mosquittos_own_subscriber_whole() {
    let Some(binary) = mosquitto("a_qos_2_burst_reaches_mosquittos_own_subscriber_whole") else {
        return;
    };
    let h = home();
    let port = free_port();
    let conf = h.path().join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!("listener {port} 127.0.0.1\nallow_anonymous true\n"),
    )
    .unwrap();
    let _broker = start_mosquitto(binary, &conf, port);
    let sub = Command::new("mosquitto_sub")
        .args([
            "-p",
            &port.to_string(),
            "-h",
            "127.0.0.1",
            "-q",
            "2",
            "-t",
            "hsp/#",
            "-C",
            "1000",
            "-W",
            "60",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("mosquitto_sub (apt-get install mosquitto-clients)");
    std::thread::sleep(std::time::Duration::from_millis(500));
    aiproto(h.path())
        .args([
            "send",
            "-q",
            "--qos",
            "2",
            "--via",
            &format!("mqtt://127.0.0.1:{port}"),
        ])
        .write_stdin(numbered_facts(1000))
        .assert()
        .code(0);
    let got = sub.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&got.stdout).lines().count(), 1000);
}

#[test]
fn credentials_come_from_the_environment_or_a_private_file_and_are_never_printed() {
    let Some(binary) = mosquitto("credentials_come_from_the_environment_or_a_private_file") else {
        return;
    };
    let h = home();
    let port = free_port();
    let passwords = h.path().join("passwords");
    let made = Command::new("mosquitto_passwd")
        .args(["-c", "-b"])
        .arg(&passwords)
        .args(["agent", "s3cret"])
        .status()
        .expect("mosquitto_passwd (apt-get install mosquitto)");
    assert!(made.success());
    let conf = h.path().join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!(
            "listener {port} 127.0.0.1\nallow_anonymous false\npassword_file {}\n",
            passwords.display()
        ),
    )
    .unwrap();
    let _broker = start_mosquitto(binary, &conf, port);
    let via = format!("mqtt://127.0.0.1:{port}/hsp/x");
    let send = |env: &[(&str, &str)]| {
        let mut cmd = aiproto(h.path());
        cmd.args(["send", "-q", "--via", &via]).write_stdin(REQUEST);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.assert()
    };
    send(&[])
        .code(3)
        .stderr(predicate::str::contains("refused"));
    let env = [
        ("AIPROTO_USERNAME", "agent"),
        ("AIPROTO_PASSWORD", "s3cret"),
    ];
    // Bound to a host: without it, or for another, they are not sent.
    send(&env).code(3);
    send(&[
        env[0],
        env[1],
        ("AIPROTO_CREDENTIALS_HOST", "broker.example"),
    ])
    .code(3);
    send(&[env[0], env[1], ("AIPROTO_CREDENTIALS_HOST", "127.0.0.1")]).code(0);
    let file = h.path().join("credentials");
    std::fs::write(&file, "machine 127.0.0.1 login agent password s3cret\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    send(&[]).code(2).stderr(
        predicate::str::contains("chmod 600").and(predicate::str::contains("s3cret").not()),
    );
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    send(&[]).code(0);
    // A password given in a URL (still accepted) never shows in an error.
    for url in [
        "http://bob:hunter22@127.0.0.1:9/hsp".to_string(),
        format!("mqtt://bob:hunter22@127.0.0.1:{port}/hsp/x"),
    ] {
        aiproto(h.path())
            .args(["send", "-q", "--via", &url])
            .write_stdin(REQUEST)
            .assert()
            .code(3)
            .stderr(predicate::str::contains("hunter22").not());
    }
    aiproto(h.path())
        .args([
            "send",
            "-q",
            "--via",
            "email:kalle@example.com",
            "--smtp",
            "smtp://bob:hunter22@127.0.0.1:9",
        ])
        .write_stdin(REQUEST)
        .assert()
        .code(3)
        .stderr(
            predicate::str::contains("hunter22")
                .not()
                .and(predicate::str::contains("bob:***@")),
        );
}

/// What a test proxy does to the first connection once `after` bytes from
/// the client went through; later connections pass through.
#[derive(Clone, Copy)]
enum Policy {
    /// Cut it (a network failure; the broker keeps running).
    Cut,
    /// Stop forwarding until `release` is set (`held` says it stopped): holds
    /// a stream at a known point, whatever the speed of the machine.
    Hold,
}

/// A TCP relay to `target` applying `policy` after `after` bytes.
struct Proxy {
    port: u16,
    held: std::sync::Arc<std::sync::atomic::AtomicBool>,
    release: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

fn proxy(target: u16, policy: Policy, after: usize) -> Proxy {
    use std::io::{Read, Write};
    use std::net::{Shutdown, TcpListener, TcpStream};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = Arc::new(AtomicBool::new(false));
    let release = Arc::new(AtomicBool::new(false));
    let (held_in, release_in) = (Arc::clone(&held), Arc::clone(&release));
    std::thread::spawn(move || {
        for (n, client) in listener.incoming().enumerate() {
            let Ok(mut client) = client else { continue };
            let Ok(mut server) = TcpStream::connect(("127.0.0.1", target)) else {
                let _ = client.shutdown(Shutdown::Both);
                continue;
            };
            let (mut client_r, mut server_w) =
                (client.try_clone().unwrap(), server.try_clone().unwrap());
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut server, &mut client);
                let _ = client.shutdown(Shutdown::Both);
            });
            let (held, release) = (Arc::clone(&held_in), Arc::clone(&release_in));
            std::thread::spawn(move || {
                let mut buf = [0u8; 16 * 1024];
                let mut forwarded = 0;
                while let Ok(read) = client_r.read(&mut buf) {
                    if read == 0 || server_w.write_all(&buf[..read]).is_err() {
                        break;
                    }
                    forwarded += read;
                    if n == 0 && forwarded >= after {
                        if let Policy::Hold = policy {
                            held.store(true, Ordering::SeqCst);
                            while !release.load(Ordering::SeqCst) {
                                std::thread::sleep(std::time::Duration::from_millis(5));
                            }
                        }
                        break;
                    }
                }
                let _ = server_w.shutdown(Shutdown::Both);
                let _ = client_r.shutdown(Shutdown::Both);
            });
        }
    });
    Proxy {
        port,
        held,
        release,
    }
}

/// A QoS 1 stream whose connection is cut in the middle: `aiproto send`
/// reconnects with backoff and publishes again what was not acknowledged,
/// so the subscriber gets every message (at least once).
#[test]
fn a_connection_lost_in_the_middle_of_a_qos_1_stream_loses_nothing() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let proxy = proxy(port, Policy::Cut, 300_000).port;
    let total = 20_000;
    let received = h.path().join("received.jsonl");
    let mut sub = spawn(h.path(), &[])
        .args([
            "recv",
            "--via",
            &format!("mqtt://127.0.0.1:{port}/cut/stream"),
            "--qos",
            "1",
        ])
        .args(["--timeout", "60", "--format", "json"])
        .stdout(std::fs::File::create(&received).unwrap())
        .spawn()
        .unwrap();
    wait_for(&mut sub, "subscribed");
    let _sub = Running(sub);
    let stream: String = (0..total)
        .map(|i| format!("{{\"intent\":\"REPORT\",\"target\":\"{i}\"}}\n"))
        .collect();
    let sent = aiproto(h.path())
        .args([
            "send",
            "--qos",
            "1",
            "--via",
            &format!("mqtt://127.0.0.1:{proxy}/cut/stream"),
        ])
        .write_stdin(stream)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(0);
    let stderr = String::from_utf8_lossy(&sent.get_output().stderr).to_string();
    assert!(
        stderr.contains("lost") && stderr.contains("reconnected"),
        "{stderr}"
    );
    // Every message arrives at least once (the ones in flight at the cut may twice).
    let target = |l: &str| -> Option<i64> {
        let line: serde_json::Value = serde_json::from_str(l).ok()?;
        let m: serde_json::Value = serde_json::from_str(line["message"].as_str()?).ok()?;
        m["target"].as_str()?.parse().ok()
    };
    let started = std::time::Instant::now();
    let mut got = std::collections::HashSet::new();
    while got.len() < total && started.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        got = std::fs::read_to_string(&received)
            .unwrap()
            .lines()
            .filter_map(target)
            .collect();
    }
    let missing: Vec<i64> = (0..total as i64)
        .filter(|n| !got.contains(n))
        .take(10)
        .collect();
    assert!(
        missing.is_empty(),
        "lost, e.g. {missing:?} ({} of {total} arrived)",
        got.len()
    );
}

/// The `message_id` of each HSP message `recv --format json` printed.
fn printed_ids(lines: &str) -> Vec<String> {
    lines
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            let message: serde_json::Value =
                serde_json::from_str(record["message"].as_str().unwrap()).unwrap();
            message["message_id"].as_str().unwrap().to_string()
        })
        .collect()
}

/// A persistent session's queue arrives in one burst when `recv` connects:
/// `--count 1` takes one message and the broker keeps the others for the
/// session's next run. (The client used to acknowledge every message it
/// read, handed on or not: three of these four were lost.)
#[test]
fn messages_past_the_count_stay_queued_for_a_persistent_session() {
    let test = "messages_past_the_count_stay_queued_for_a_persistent_session";
    let Some(binary) = mosquitto(test) else {
        return;
    };
    if !super::installed(
        test,
        "mosquitto_pub",
        &["--help"],
        "apt-get install mosquitto-clients",
    ) {
        return;
    }
    let h = home();
    let (_broker, port) = anonymous_mosquitto(binary, h.path());
    let via = format!("mqtt://127.0.0.1:{port}/queued");
    let recv = |count: &str, timeout: &str| {
        spawn(h.path(), &["recv", "--via", &via, "--qos", "1"])
            .args(["--session", "taker", "--no-ack", "--format", "json"])
            .args(["--count", count, "--timeout", timeout])
            .output()
            .unwrap()
    };
    let ids = |out: &std::process::Output| printed_ids(&String::from_utf8_lossy(&out.stdout));
    // The session and its subscription, with nothing in it yet.
    assert_eq!(recv("1", "1").status.code(), Some(4));
    let file = h.path().join("four.jsonl");
    std::fs::write(&file, numbered_facts(4)).unwrap();
    let published = Command::new("mosquitto_pub")
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-q", "1"])
        .args(["-t", "queued", "-l"])
        .stdin(std::fs::File::open(&file).unwrap())
        .status()
        .unwrap();
    assert!(published.success());
    let first = recv("1", "10");
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(ids(&first), ["m000000"]);
    let rest = recv("3", "10");
    assert_eq!(
        rest.status.code(),
        Some(0),
        "the broker no longer had them: {}",
        String::from_utf8_lossy(&rest.stderr)
    );
    assert_eq!(ids(&rest), ["m000001", "m000002", "m000003"]);
}

/// Many HSP Facts, one per line, each with its own message id (`m000000`…).
fn numbered_facts(n: usize) -> String {
    let template = std::fs::read_to_string(repo("examples/hsp/valid/0.1/facts.jsonl")).unwrap();
    let line = template.lines().next().unwrap().to_string();
    (0..n)
        .map(|i| line.replace("018f4a6e-8c1b-7d2a-9e3f-000000000000", &format!("m{i:06}")) + "\n")
        .collect()
}

/// Stops a broker the way a service manager does (SIGTERM: Mosquitto saves
/// its persistence file and exits) and waits for it.
fn stop_gracefully(broker: &mut Running) {
    let pid = broker.0.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    broker.0.wait().unwrap();
}

/// A Mosquitto restart in the middle of a QoS 1 stream: the publisher
/// reconnects and publishes again what was not acknowledged, the subscriber
/// (a persistent session) reconnects and the broker delivers what it queued
/// for it. Every message arrives, and each is printed once.
#[test]
fn a_broker_restart_in_the_middle_of_a_qos_1_stream_loses_nothing() {
    let Some(binary) = mosquitto("a_broker_restart_in_the_middle_of_a_qos_1_stream_loses_nothing")
    else {
        return;
    };
    let h = home();
    let port = free_port();
    let store = h.path().join("store");
    std::fs::create_dir(&store).unwrap();
    let conf = h.path().join("mosquitto.conf");
    // Run as root (CI), Mosquitto would switch to its own user, which cannot
    // write the store in this private directory.
    std::fs::write(
        &conf,
        format!(
            "listener {port} 127.0.0.1\nallow_anonymous true\nuser root\npersistence true\npersistence_location {}/\nmax_queued_messages 0\n",
            store.display()
        ),
    )
    .unwrap();
    let mut broker = start_mosquitto(binary, &conf, port);
    let total = 30_000;
    let file = h.path().join("stream.jsonl");
    std::fs::write(&file, numbered_facts(total)).unwrap();
    let received = h.path().join("received.jsonl");
    let mut sub = spawn(h.path(), &[])
        .args([
            "recv",
            "--via",
            &format!("mqtt://127.0.0.1:{port}/restart/stream"),
        ])
        .args([
            "--qos",
            "1",
            "--session",
            "restart-test",
            "--format",
            "json",
        ])
        .args(["--count", &total.to_string(), "--timeout", "120"])
        .stdout(std::fs::File::create(&received).unwrap())
        .spawn()
        .unwrap();
    wait_for(&mut sub, "subscribed");
    // The publisher goes through a proxy that holds its stream after about
    // 2 MB (some 2,000 of the 30,000 messages): the restart comes in the
    // middle of the stream by construction, on a fast machine or a slow one.
    let proxy = proxy(port, Policy::Hold, 2_000_000);
    let publisher = aiproto_child(
        h.path(),
        &[
            "send",
            "--qos",
            "1",
            "--via",
            &format!("mqtt://127.0.0.1:{}/restart/stream", proxy.port),
            file.to_str().unwrap(),
        ],
    );
    let lines = || std::fs::read_to_string(&received).unwrap().lines().count();
    let started = std::time::Instant::now();
    while !proxy.held.load(std::sync::atomic::Ordering::SeqCst) {
        assert!(started.elapsed().as_secs() < 60, "the stream did not start");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    stop_gracefully(&mut broker);
    let at_restart = lines();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let _broker = start_mosquitto(binary, &conf, port);
    proxy
        .release
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let sent = publisher.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&sent.stderr);
    assert_eq!(sent.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("reconnected"), "{stderr}");
    assert!(at_restart < total, "the stream ended before the restart");
    assert_eq!(sub.wait().unwrap().code(), Some(0));
    let ids = printed_ids(&std::fs::read_to_string(&received).unwrap());
    let distinct: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), total, "lost {}", total - distinct.len());
    assert_eq!(ids.len(), total, "printed twice: {}", ids.len() - total);
}

/// A TaskRequest goes out, a worker answers with `compose hsp --reply-to`,
/// and `request` prints the TaskResult that carries its correlation id.
/// A TaskRequest from did:hsp:boss to did:hsp:worker answered on
/// hsp/results/boss, written to `task.json` in `h`; returns its path and JSON.
fn task_request(h: &std::path::Path) -> (std::path::PathBuf, serde_json::Value) {
    let out = aiproto(h)
        .args([
            "compose",
            "hsp",
            "task-request",
            "--from",
            "did:hsp:boss",
            "--to",
            "did:hsp:worker",
            "--capability-id",
            "translate",
            "--param",
            "text=Hello",
            "--callback",
            "hsp/results/boss",
        ])
        .assert()
        .code(0);
    let task = h.join("task.json");
    std::fs::write(&task, &out.get_output().stdout).unwrap();
    (
        task,
        serde_json::from_slice(&out.get_output().stdout).unwrap(),
    )
}

/// The worker: receives one request, writes its successful TaskResult
/// (`result` as the result), and sends what `answers` makes of it.
fn worker(
    h: &std::path::Path,
    broker: &str,
    result: &'static str,
    answers: fn(serde_json::Value) -> String,
) -> std::thread::JoinHandle<()> {
    let worker = subscribed(
        h,
        &[
            "--via",
            &format!("{broker}/hsp/agents/did:hsp:worker"),
            "--count",
            "1",
            "--timeout",
            "20",
        ],
    );
    let (worker_home, worker_broker) = (h.to_path_buf(), broker.to_string());
    std::thread::spawn(move || {
        let got = worker.wait_with_output().unwrap();
        let received = worker_home.join("received.json");
        std::fs::write(&received, &got.stdout).unwrap();
        let reply = aiproto(&worker_home)
            .args(["compose", "hsp", "--reply-to"])
            .arg(&received)
            .args([
                "--from",
                "did:hsp:worker",
                "--status",
                "success",
                "--result",
                result,
            ])
            .assert()
            .code(0);
        let real: serde_json::Value = serde_json::from_slice(&reply.get_output().stdout).unwrap();
        aiproto(&worker_home)
            .args(["send", "-q", "--force", "--via", &worker_broker])
            .write_stdin(answers(real))
            .assert()
            .code(0);
    })
}

#[test]
fn a_failed_task_exits_1_with_its_error_details() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let broker = format!("mqtt://127.0.0.1:{port}");
    let (task, _) = task_request(h.path());
    let answer = worker(h.path(), &broker, "{}", |mut failed| {
        failed["payload"]["status"] = "failure".into();
        failed["payload"]["error_details"] =
            serde_json::json!({"error_code": "DISK_FULL", "error_message": "no space left"});
        format!("{failed}\n")
    });
    aiproto(h.path())
        .args(["request", "--via", &broker, "--timeout", "20"])
        .arg(&task)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("with status failure")
                .and(predicate::str::contains("no space left")),
        );
    answer.join().unwrap();
}

#[test]
fn request_waits_for_the_matching_task_result() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let broker = format!("mqtt://127.0.0.1:{port}");
    let (task, request) = task_request(h.path());
    let request_id = request["message_id"].as_str().unwrap().to_string();
    let answer = worker(h.path(), &broker, "{\"text\": \"Bonjour\"}", |real| {
        // Before it: a forged result from an agent that merely saw the
        // request, and a failure without error_details (invalid).
        let mut forged = real.clone();
        forged["sender_ai_id"] = "did:hsp:mallory".into();
        forged["message_id"] = "forged-1".into();
        let mut invalid = real.clone();
        invalid["payload"]["status"] = "failure".into();
        invalid["message_id"] = "invalid-1".into();
        format!("{forged}\n{invalid}\n{real}\n")
    });
    let out = aiproto(h.path())
        .args(["request", "--via", &broker, "--timeout", "20"])
        .arg(&task)
        .assert()
        .code(0)
        .stderr(
            predicate::str::contains(
                "from `did:hsp:mallory`, but the request asked `did:hsp:worker`",
            )
            .and(predicate::str::contains("HSP-ERROR-DETAILS-MISSING")),
        );
    answer.join().unwrap();
    let result: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(result["correlation_id"], request_id.as_str());
    assert_eq!(result["payload"]["payload"]["text"], "Bonjour");
    // Nobody answers a second time.
    aiproto(h.path())
        .args(["request", "--via", &broker, "--timeout", "0.5"])
        .arg(&task)
        .assert()
        .code(4);
    // A request without a callback address is refused.
    let no_callback = aiproto(h.path())
        .args([
            "compose",
            "hsp",
            "task-request",
            "--from",
            "did:hsp:boss",
            "--to",
            "did:hsp:worker",
            "--capability-id",
            "translate",
            "--version",
            "0.1",
        ])
        .assert()
        .code(0);
    aiproto(h.path())
        .args(["request", "--via", &broker])
        .write_stdin(no_callback.get_output().stdout.clone())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("callback_address"));
}

/// hsp-0.1 §4.3: a receiver answers `requires_ack` with an ACK to the sender.
#[test]
fn receivers_acknowledge_messages_that_ask_for_it() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let broker = format!("mqtt://127.0.0.1:{port}");
    let request = repo("examples/hsp/valid/0.1/task-request.json");
    let sent: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&request).unwrap()).unwrap();
    assert_eq!(sent["qos_parameters"]["requires_ack"], true);
    let sender_inbox = subscribed(
        h.path(),
        &[
            "--via",
            &format!("{broker}/hsp/agents/did:hsp:ai_alpha"),
            "--count",
            "1",
            "--timeout",
            "20",
            "--format",
            "json",
        ],
    );
    let receiver = subscribed(
        h.path(),
        &[
            "--via",
            &format!("{broker}/hsp/agents/did:hsp:ai_gamma"),
            "--count",
            "1",
            "--timeout",
            "20",
        ],
    );
    aiproto(h.path())
        .args(["send", "-q", "--via", &broker])
        .arg(&request)
        .assert()
        .code(0);
    assert_eq!(receiver.wait_with_output().unwrap().status.code(), Some(0));
    let got = sender_inbox.wait_with_output().unwrap();
    assert_eq!(got.status.code(), Some(0));
    let line = &json_lines(&got.stdout)[0];
    let ack: serde_json::Value = serde_json::from_str(line["message"].as_str().unwrap()).unwrap();
    assert_eq!(ack["message_type"], "HSP::Acknowledgement_v0.1");
    assert_eq!(ack["correlation_id"], sent["message_id"]);
    assert_eq!(ack["sender_ai_id"], "did:hsp:ai_gamma");
    aiproto(h.path())
        .args(["validate", "--strict"])
        .write_stdin(line["message"].as_str().unwrap().to_string())
        .assert()
        .code(0);
}

#[test]
fn a_relay_moves_messages_from_the_broker_to_a_file() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let outbox = h.path().join("outbox.crosstalk");
    let mut relay = aiproto_child(
        h.path(),
        &[
            "relay",
            "--from",
            &format!("mqtt://127.0.0.1:{port}/crosstalk/inbox"),
            "--to",
            &format!("file:{}", outbox.display()),
            "--count",
            "1",
            "--timeout",
            "20",
        ],
    );
    wait_for(&mut relay, "subscribed");
    aiproto(h.path())
        .args([
            "send",
            "--via",
            &format!("mqtt://127.0.0.1:{port}/crosstalk/inbox"),
        ])
        .write_stdin(REQUEST)
        .assert()
        .code(0);
    assert_eq!(relay.wait().unwrap().code(), Some(0));
    let relayed = std::fs::read_to_string(&outbox).unwrap();
    assert!(relayed.contains("\nHop-1: aiproto-relay "), "{relayed}");
}

/// An HSP message composed with `aiproto compose hsp`.
fn composed(h: &std::path::Path, args: &[&str]) -> Vec<u8> {
    aiproto(h)
        .args(["compose", "hsp"])
        .args(args)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone()
}

#[test]
fn the_directory_answers_discovery_queries_with_the_matching_advertisements() {
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let uri = format!("mqtt://127.0.0.1:{port}");
    let mut directory = aiproto_child(
        h.path(),
        &[
            "directory",
            "--via",
            &uri,
            "--count",
            "4",
            "--timeout",
            "20",
            "--format",
            "json",
        ],
    );
    wait_for(&mut directory, "subscribed");
    for (id, tags) in [("translate", "nlp,translation"), ("vision", "images")] {
        let ad = composed(
            h.path(),
            &[
                "capability",
                "--version",
                "0.1",
                "--from",
                "did:hsp:gamma",
                "--capability-id",
                id,
                "--name",
                id,
                "--description",
                "a service",
                "--tags",
                tags,
                "--availability",
                "online",
                "--set",
                "version=\"1.0\"",
            ],
        );
        aiproto(h.path())
            .args(["send", "--via", &uri])
            .write_stdin(ad)
            .assert()
            .code(0);
    }
    // An impostor speaking for gamma: not kept, and the answer below still
    // names gamma's own advertisement only.
    let forged = composed(
        h.path(),
        &[
            "capability",
            "--version",
            "0.1",
            "--from",
            "did:hsp:mallory",
            "--capability-id",
            "translate",
            "--name",
            "translate",
            "--description",
            "mine now",
            "--tags",
            "nlp,translation",
            "--availability",
            "online",
            "--set",
            "version=\"1.0\"",
            "--set",
            "ai_id=did:hsp:gamma",
        ],
    );
    aiproto(h.path())
        .args(["send", "--via", &uri])
        .write_stdin(forged)
        .assert()
        .code(0);
    let asker = subscribed(
        h.path(),
        &[
            "--via",
            &format!("{uri}/hsp/agents/did:hsp:alpha"),
            "--count",
            "1",
            "--timeout",
            "20",
            "--format",
            "json",
            "--no-ack",
        ],
    );
    let query = composed(
        h.path(),
        &[
            "discovery-query",
            "--version",
            "0.1",
            "--from",
            "did:hsp:alpha",
            "--tags",
            "nlp",
        ],
    );
    let query_id =
        serde_json::from_slice::<serde_json::Value>(&query).unwrap()["message_id"].clone();
    aiproto(h.path())
        .args(["send", "--via", &uri])
        .write_stdin(query)
        .assert()
        .code(0);
    let answer = asker.wait_with_output().unwrap();
    assert_eq!(answer.status.code(), Some(0));
    let received = &json_lines(&answer.stdout)[0];
    let response: serde_json::Value =
        serde_json::from_str(received["message"].as_str().unwrap()).unwrap();
    assert_eq!(
        response["message_type"],
        "HSP::CapabilityDiscoveryResponse_v0.1"
    );
    assert_eq!(response["correlation_id"], query_id);
    let found: Vec<&str> = response["payload"]["capabilities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["capability_id"].as_str().unwrap())
        .collect();
    assert_eq!(found, vec!["translate"]);
    assert_eq!(
        response["payload"]["capabilities"][0]["description"],
        "a service"
    );
    aiproto(h.path())
        .args(["validate", "--strict", "-"])
        .write_stdin(received["message"].as_str().unwrap().to_string())
        .assert()
        .code(0);
    let out = directory.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let events = json_lines(&out.stdout);
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[2]["answered"]["capabilities"], 1);
}

/// A private CA and a server certificate for 127.0.0.1 signed by it, as PEM
/// files in `dir`: (CA, server certificate, server key).
pub fn test_certificates(dir: &std::path::Path) -> [std::path::PathBuf; 3] {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "aiproto test CA");
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    params
        .distinguished_name
        .push(DnType::CommonName, "127.0.0.1");
    let cert = params.signed_by(&key, &ca).unwrap();
    let files = [
        dir.join("ca.pem"),
        dir.join("server.pem"),
        dir.join("server.key"),
    ];
    for (path, pem) in files
        .iter()
        .zip([ca.pem(), cert.pem(), key.serialize_pem()])
    {
        std::fs::write(path, pem).unwrap();
    }
    files
}

/// mqtts:// against Mosquitto with a TLS listener whose certificate a
/// private CA signed: trusted with --cafile, refused (exit 3) without.
#[test]
fn mqtts_with_a_private_ca() {
    let Some(binary) = mosquitto("mqtts_with_a_private_ca") else {
        return;
    };
    let h = home();
    let port = free_port();
    let [ca, cert, key] = test_certificates(h.path());
    let conf = h.path().join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!(
            "listener {port} 127.0.0.1\nallow_anonymous true\nuser root\ncafile {}\ncertfile {}\nkeyfile {}\n",
            ca.display(),
            cert.display(),
            key.display()
        ),
    )
    .unwrap();
    let _broker = start_mosquitto(binary, &conf, port);
    let uri = format!("mqtts://127.0.0.1:{port}/tls/inbox");
    let ca = ca.to_str().unwrap();
    passes_through(h.path(), &uri, &uri, &["--cafile", ca]);
    aiproto(h.path())
        .args(["send", "--via", &uri])
        .write_stdin(REQUEST)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("certificate"));
    aiproto(h.path())
        .args(["send", "--via", &uri, "--cafile", "/nonexistent/ca.pem"])
        .write_stdin(REQUEST)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("/nonexistent/ca.pem"));
}

/// One convention for SIGINT and SIGTERM: every waiting command stops
/// cleanly and ends as `--timeout` would have at that moment: 0 when it had
/// no end of its own, 4 when `--count` messages had not arrived.
#[test]
fn a_signal_stops_every_waiting_command_by_one_convention() {
    let h = home();
    let (mut broker, port) = embedded_broker(h.path());
    let via = format!("mqtt://127.0.0.1:{port}/hsp/knowledge/#");
    // A followed file says it is ready by printing what it holds.
    let followed = h.path().join("box.crosstalk");
    std::fs::write(&followed, REQUEST).unwrap();
    let follow = format!("file:{}", followed.display());
    let directory = format!("mqtt://127.0.0.1:{port}");
    let subscribed = (false, "subscribed");
    let runs: [(&[&str], (bool, &str), i32); 5] = [
        (&["recv", "--via", &via], subscribed, 0),
        (&["recv", "--via", &via, "--count", "5"], subscribed, 4),
        (
            &["directory", "--via", &directory, "--id", "did:hsp:dir"],
            subscribed,
            0,
        ),
        (&["relay", "--from", &via, "--to", "-"], subscribed, 0),
        (
            &["recv", "--via", &follow, "--follow"],
            (true, "[[END]]"),
            0,
        ),
    ];
    for (signal, (args, (on_stdout, ready), code)) in ["-INT", "-TERM"].iter().cycle().zip(runs) {
        let mut child = aiproto_child(h.path(), args);
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut said = String::new();
        let waited: &mut dyn BufRead = if on_stdout { &mut stdout } else { &mut stderr };
        while !said.contains(ready) {
            assert!(waited.read_line(&mut said).unwrap() > 0, "{args:?}: {said}");
        }
        let pid = child.id().to_string();
        Command::new("kill").args([*signal, &pid]).status().unwrap();
        let status = child.wait().unwrap();
        std::io::Read::read_to_string(&mut stderr, &mut said).unwrap();
        assert_eq!(status.code(), Some(code), "{args:?} after {signal}: {said}");
        if code == 4 {
            assert!(
                said.contains("stopped by a signal before 5 message(s) arrived"),
                "{said}"
            );
        }
    }
    // The broker itself, the same way.
    let pid = broker.0.id().to_string();
    Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert_eq!(broker.0.wait().unwrap().code(), Some(0));
}

/// A port that takes the connection and never answers CONNECT is no
/// broker: `recv --timeout` ends with exit 3 and says so, never the quiet
/// exit 0 of a timeout on a broker that was heard.
#[test]
fn recv_against_a_port_that_never_answers_mqtt_exits_3() {
    let h = home();
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    // Accepts and holds every connection without a byte back.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming().flatten() {
            held.push(stream);
        }
    });
    let out = aiproto(h.path())
        .args([
            "recv",
            "--via",
            &format!("mqtt://127.0.0.1:{port}/x"),
            "--timeout",
            "2",
        ])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(3);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("no CONNACK"), "{err}");
}

/// What arrives that is no message is never passed without a word: a
/// payload of prose is named on stderr (and makes the run exit 1), an
/// empty payload is counted as none and said.
#[test]
fn arrivals_that_are_no_message_are_named() {
    if !super::installed(
        "arrivals_that_are_no_message_are_named",
        "mosquitto_pub",
        &["--help"],
        "apt-get install mosquitto-clients",
    ) {
        return;
    }
    let h = home();
    let (_broker, port) = embedded_broker(h.path());
    let log = h.path().join("recv.log");
    let recv = subscribed_logged(
        h.path(),
        &[
            "--via",
            &format!("mqtt://127.0.0.1:{port}/t"),
            "--count",
            "2",
            "--timeout",
            "20",
        ],
        &log,
    );
    let publish = |extra: &[&str]| {
        let status = Command::new("mosquitto_pub")
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &port.to_string(),
                "-t",
                "t",
                "-q",
                "1",
            ])
            .args(extra)
            .status()
            .unwrap();
        assert!(status.success());
    };
    publish(&["-m", "hello there"]);
    publish(&["-n"]);
    publish(&["-m", REQUEST]);
    let out = recv.wait_with_output().unwrap();
    let err = std::fs::read_to_string(&log).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("no message of any protocol (`hello there`)"),
        "{err}"
    );
    assert!(err.contains("1 empty arrival(s)"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("01J9J3DBC4N7P2Q3R5S7T9W1V2"));
}
