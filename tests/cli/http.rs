//! `serve` and `send --via http://` against each other, on loopback ports.

use std::process::Command;

use predicates::prelude::*;

use super::{REQUEST, Running, aiproto, home, repo, spawn, wait_for};

/// `aiproto serve` on a free loopback port, stopped when dropped.
pub struct Server {
    pub child: Running,
    pub url: String,
}

impl Server {
    pub fn start(home: &std::path::Path, extra: &[&str]) -> Server {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend(extra);
        Server::run(home, &args)
    }

    /// Any command that listens on HTTP and says where on its first stderr line.
    fn run(home: &std::path::Path, args: &[&str]) -> Server {
        let mut child = spawn(home, args)
            .current_dir(home)
            .spawn()
            .expect("the listener starts");
        let line = wait_for(&mut child, "http://");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .expect("an address")
            .to_string();
        Server {
            child: Running(child),
            url,
        }
    }
}

#[test]
fn a_valid_envelope_is_stored_and_acknowledged() {
    let h = home();
    let server = Server::start(h.path(), &["--inbox", "inbox"]);
    aiproto(h.path())
        .args([
            "send",
            "--via",
            &format!("{}/crosstalk/receive", server.url),
        ])
        .write_stdin(REQUEST)
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains("intent: ACK").and(predicate::str::contains(
                "parent: 01J9J3DBC4N7P2Q3R5S7T9W1V2",
            )),
        );
    let stored = h.path().join("inbox/01J9J3DBC4N7P2Q3R5S7T9W1V2.crosstalk");
    assert_eq!(std::fs::read_to_string(stored).unwrap(), REQUEST);
}

#[test]
fn invalid_large_and_too_frequent_requests_get_their_error() {
    let h = home();
    let server = Server::start(h.path(), &["--max-bytes", "400", "--rate", "2"]);
    let via = format!("{}/crosstalk/receive", server.url);
    aiproto(h.path())
        .args(["send", "--force", "--via", &via])
        .write_stdin(REQUEST.replace("intent: REQUEST", "intent: SHOUT"))
        .assert()
        .code(3)
        .stdout(predicate::str::contains("Code: E-FORMAT"))
        .stderr(predicate::str::contains("HTTP 400"));
    let big = REQUEST.replace("Please review.", &"x".repeat(500));
    aiproto(h.path())
        .args(["send", "--via", &via])
        .write_stdin(big)
        .assert()
        .code(3)
        .stdout(predicate::str::contains("Code: E-TOO-LARGE"));
    let mut limited = 0;
    for _ in 0..6 {
        let out = aiproto(h.path())
            .args(["send", "-q", "--via", &via])
            .write_stdin(REQUEST)
            .output()
            .unwrap();
        if String::from_utf8_lossy(&out.stdout).contains("Code: E-RATE") {
            assert_eq!(out.status.code(), Some(3));
            limited += 1;
        }
    }
    assert!(limited > 0, "a burst over --rate 2 is refused");
}

#[test]
fn an_exec_handler_writes_the_reply() {
    let h = home();
    let server = Server::start(
        h.path(),
        &[
            "--exec",
            "sed -e s/REQUEST/RESPOND/ -e s/CLAUDE→CHATGPT/CHATGPT→CLAUDE/",
        ],
    );
    aiproto(h.path())
        .args([
            "send",
            "--via",
            &format!("{}/crosstalk/receive", server.url),
        ])
        .write_stdin(REQUEST)
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains("[[CHATGPT→CLAUDE v1]]")
                .and(predicate::str::contains("intent: RESPOND")),
        );
}

#[test]
fn hsp_messages_get_an_hsp_ack_and_ids_cannot_escape_the_inbox() {
    let h = home();
    let server = Server::start(h.path(), &["--inbox", "inbox"]);
    let mut msg: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo("examples/hsp/valid/0.1/fact-envelope-example.json"))
            .unwrap(),
    )
    .unwrap();
    msg["message_id"] = "../../escape/evil".into();
    let out = aiproto(h.path())
        .args(["send", "--via", &format!("{}/hsp", server.url)])
        .write_stdin(msg.to_string())
        .assert()
        .code(0);
    let ack: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(ack["message_type"], "HSP::Acknowledgement_v0.1");
    assert_eq!(ack["correlation_id"], "../../escape/evil");
    assert!(h.path().join("inbox/escapeevil.json").exists());
    assert!(!h.path().join("escape").exists());
}

/// `--via http://host:port` with no path: each message goes to its
/// protocol's route, several inputs in one run.
#[test]
fn a_url_without_a_path_reaches_each_protocols_route() {
    let h = home();
    let server = Server::start(h.path(), &["--inbox", "inbox"]);
    let envelope = h.path().join("ask.crosstalk");
    std::fs::write(&envelope, REQUEST).unwrap();
    let out = aiproto(h.path())
        .args(["send", "--via", &server.url])
        .arg(&envelope)
        .arg(repo("examples/hsp/valid/0.1/belief.json"))
        .assert()
        .code(0);
    let replies = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(replies.contains("intent: ACK"), "{replies}");
    assert!(replies.contains("HSP::Acknowledgement_v0.1"), "{replies}");
    assert!(
        h.path()
            .join("inbox/01J9J3DBC4N7P2Q3R5S7T9W1V2.crosstalk")
            .exists()
    );

    // CSDL has no route in the HTTP binding: said before anything is sent.
    let csdl = h.path().join("plan.json");
    std::fs::write(&csdl, r#"{"v":"1.0","t":"req","m":"get weather"}"#).unwrap();
    aiproto(h.path())
        .args(["send", "--force", "--via", &server.url])
        .arg(&csdl)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("no route for csdl"));
}

/// A message POSTed to the other protocol's route is told where it belongs.
#[test]
fn a_message_on_the_wrong_route_is_told_the_right_one() {
    let h = home();
    let server = Server::start(h.path(), &[]);
    let hsp = std::fs::read_to_string(repo("examples/hsp/valid/0.1/belief.json")).unwrap();
    aiproto(h.path())
        .args([
            "send",
            "--via",
            &format!("{}/crosstalk/receive", server.url),
        ])
        .write_stdin(hsp)
        .assert()
        .code(3)
        .stdout(predicate::str::contains(
            "this is a message of protocol hsp, not crosstalk: POST it to /hsp",
        ));
    aiproto(h.path())
        .args(["send", "--via", &format!("{}/hsp", server.url)])
        .write_stdin(REQUEST)
        .assert()
        .code(3)
        .stdout(predicate::str::contains("POST it to /crosstalk/receive"));
}

#[test]
fn sigterm_stops_the_server_cleanly() {
    let h = home();
    let mut server = Server::start(h.path(), &[]);
    let pid = server.child.0.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = server.child.0.wait().unwrap();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn an_unreachable_peer_is_a_transport_failure() {
    let h = home();
    aiproto(h.path())
        .args(["send", "--via", "http://127.0.0.1:9/crosstalk/receive"])
        .write_stdin(REQUEST)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("127.0.0.1:9"));
}

/// `recv --via http://ADDR` listens as `serve` does: each POSTed message is
/// acknowledged to its sender and printed once; `--count` ends it.
#[test]
fn recv_listens_on_an_http_address() {
    let h = home();
    let mut listener = Server::run(
        h.path(),
        &[
            "recv",
            "--via",
            "http://127.0.0.1:0",
            "--count",
            "2",
            "--timeout",
            "20",
            "--format",
            "json",
        ],
    );
    aiproto(h.path())
        .args([
            "send",
            "--via",
            &format!("{}/crosstalk/receive", listener.url),
        ])
        .write_stdin(REQUEST)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("intent: ACK"));
    aiproto(h.path())
        .args(["send", "--via", &format!("{}/hsp", listener.url)])
        .arg(repo("examples/hsp/valid/0.1/belief.json"))
        .assert()
        .code(0);
    let status = listener.child.0.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let mut out = String::new();
    std::io::Read::read_to_string(&mut listener.child.0.stdout.take().unwrap(), &mut out).unwrap();
    let lines = super::json_lines(out.as_bytes());
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0]["protocol"], "crosstalk");
    assert_eq!(lines[0]["message"], REQUEST);
    assert_eq!(lines[1]["protocol"], "hsp");
    assert!(
        lines[1]["source"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:")
    );
}

/// A raw HTTP request on a fresh connection; the status line's code.
pub fn raw_post(url: &str, path: &str, body: &str) -> u16 {
    raw_exchange(url, path, body).0
}

/// A raw HTTP request on a fresh connection: the status line's code and
/// the answer's body.
pub fn raw_exchange(url: &str, path: &str, body: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let addr = url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    let sent = write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    // A server that closes the connection at once (a client over its
    // share) can do so before the request is written: no answer either.
    if let Err(e) = sent {
        assert!(
            matches!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
            ),
            "{e}"
        );
        return (0, String::new());
    }
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply).to_string();
    let status = reply
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = reply
        .split_once("\r\n\r\n")
        .map_or_else(String::new, |(_, b)| b.to_string());
    (status, body)
}

/// A client that sends the headers and 10 bytes of a 5 KB body, then waits.
fn stalled_client(url: &str) -> std::net::TcpStream {
    use std::io::Write;
    let mut stream = std::net::TcpStream::connect(url.trim_start_matches("http://")).unwrap();
    write!(
        stream,
        "POST /crosstalk/receive HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n[[A→B v1]]"
    )
    .unwrap();
    stream
}

#[test]
fn a_stalled_client_holds_up_nobody_else_and_gets_408() {
    use std::io::Read;
    let h = home();
    let server = Server::start(h.path(), &["--read-timeout", "2"]);
    let mut stalled = stalled_client(&server.url);
    std::thread::sleep(std::time::Duration::from_millis(200));
    // Another client is answered while the first one stalls.
    let started = std::time::Instant::now();
    assert_eq!(raw_post(&server.url, "/crosstalk/receive", REQUEST), 200);
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    // The stalled one gets 408 once its deadline passes.
    stalled
        .set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    let mut reply = String::new();
    let _ = stalled.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("E-TIMEOUT"), "{reply}");
}

#[test]
fn many_slow_clients_are_bounded_and_the_server_recovers() {
    let h = home();
    let server = Server::start(h.path(), &["--read-timeout", "2", "--max-connections", "4"]);
    let slow: Vec<_> = (0..12).map(|_| stalled_client(&server.url)).collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    // Past the bound, refused at once with 503 rather than left waiting.
    let started = std::time::Instant::now();
    let busy = raw_post(&server.url, "/crosstalk/receive", REQUEST);
    assert!(busy == 503 || busy == 200, "{busy}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    drop(slow);
    // Once the slow ones time out, everyone is served again.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert_eq!(raw_post(&server.url, "/crosstalk/receive", REQUEST), 200);
}

#[test]
fn a_retried_post_is_acknowledged_once_stored() {
    let h = home();
    let server = Server::start(h.path(), &["--inbox", "inbox"]);
    for _ in 0..3 {
        assert_eq!(raw_post(&server.url, "/crosstalk/receive", REQUEST), 200);
    }
    let stored: Vec<_> = std::fs::read_dir(h.path().join("inbox")).unwrap().collect();
    assert_eq!(stored.len(), 1, "{stored:?}");
    // The same id with other content is another message (another
    // sender's, or an edited copy): kept beside the first, never dropped
    // for the first to come, and kept once however often it is retried.
    let other = REQUEST.replace("Please review.", "Please delete.");
    for _ in 0..2 {
        assert_eq!(raw_post(&server.url, "/crosstalk/receive", &other), 200);
    }
    let mut stored: Vec<String> = std::fs::read_dir(h.path().join("inbox"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    stored.sort();
    let mut expected = [REQUEST.to_string(), other.clone()];
    expected.sort();
    assert_eq!(stored, expected);
    // Without an inbox folder, the server's memory decides the same way.
    let memory = Server::start(h.path(), &[]);
    for body in [REQUEST, &other, &other, REQUEST] {
        assert_eq!(raw_post(&memory.url, "/crosstalk/receive", body), 200);
    }
}

#[test]
fn a_full_disk_answers_507_and_leaves_no_file() {
    let h = home();
    let inbox = h.path().join("inbox");
    std::fs::create_dir_all(&inbox).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16k", "tmpfs"])
        .arg(&inbox)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!(
            "SKIPPED a_full_disk_answers_507_and_leaves_no_file: cannot mount a tmpfs (not root?)"
        );
        return;
    }
    std::fs::write(inbox.join("filler"), vec![0u8; 16 * 1024]).ok();
    let server = Server::start(h.path(), &["--inbox", "inbox"]);
    let status = raw_post(&server.url, "/crosstalk/receive", REQUEST);
    let left: Vec<String> = std::fs::read_dir(&inbox)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    drop(server);
    let _ = Command::new("umount").arg(&inbox).status();
    assert_eq!(status, 507);
    assert_eq!(left, vec!["filler".to_string()]);
}

/// The upstream HSP connector's paths: `GET /health` answers 200 while the
/// server runs, and `POST /message` takes an HSP envelope as `/hsp` does
/// (the connector's own code drives them in tests/interop/hsp_connector.py).
#[test]
fn the_upstream_connectors_health_and_message_paths_are_served() {
    use std::io::{Read, Write};
    let h = home();
    let server = Server::start(h.path(), &["--inbox", "inbox"]);
    let address = server.url.trim_start_matches("http://").to_string();
    let exchange = |request: String| {
        let mut stream = std::net::TcpStream::connect(&address).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    let health = exchange("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".into());
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    assert!(health.ends_with("{\"status\":\"ok\"}\n"), "{health}");
    let message =
        std::fs::read_to_string(repo("examples/hsp/valid/0.1/task-request.json")).unwrap();
    let posted = exchange(format!(
        "POST /message HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{message}",
        message.len()
    ));
    assert!(posted.starts_with("HTTP/1.1 200"), "{posted}");
    assert!(posted.contains("HSP::Acknowledgement_v0.1"), "{posted}");
    assert!(
        h.path()
            .join("inbox/018f4a6e-8c1b-7d2a-9e3f-00000000a001.json")
            .exists()
    );
    let broken = exchange(
        "POST /message HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"x\":1}".into(),
    );
    assert!(broken.starts_with("HTTP/1.1 400"), "{broken}");
}
