//! `serve` and `send --via http://` against each other, on loopback ports.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use predicates::prelude::*;

use super::{REQUEST, aiproto, home, repo};

/// `aiproto serve` on a free loopback port, stopped when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(home: &std::path::Path, extra: &[&str]) -> Server {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend(extra);
        Server::run(home, &args)
    }

    /// Any command that listens on HTTP and says where on its first stderr line.
    fn run(home: &std::path::Path, args: &[&str]) -> Server {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("aiproto"))
            .args(args)
            .env("AIPROTO_HOME", home)
            .current_dir(home)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the listener starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        stderr.read_line(&mut line).expect("the listening line");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .expect("an address")
            .to_string();
        // Keep draining the log so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Server { child, url }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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

#[test]
fn sigterm_stops_the_server_cleanly() {
    let h = home();
    let mut server = Server::start(h.path(), &[]);
    let pid = server.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = server.child.wait().unwrap();
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
    let status = listener.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let mut out = String::new();
    std::io::Read::read_to_string(&mut listener.child.stdout.take().unwrap(), &mut out).unwrap();
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
