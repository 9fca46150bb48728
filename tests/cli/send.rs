//! `aiproto send --via file:…`: appends that never interleave or lose an envelope.

use std::process::Stdio;

use predicates::prelude::*;

use super::{REQUEST, aiproto, home, json_lines};

#[test]
fn concurrent_senders_lose_nothing() {
    let h = home();
    let mailbox = h.path().join("box.crosstalk");
    let bin = assert_cmd::cargo::cargo_bin("aiproto");
    let via = format!("file:{}", mailbox.display());
    let mut children = Vec::new();
    for writer in 0..4 {
        let message = h.path().join(format!("m{writer}.crosstalk"));
        // Each writer's file holds 10 envelopes with a long body, each with
        // its own id; three senders send the same file at once.
        let body = format!("  writer {writer}\n").repeat(300);
        let one = REQUEST
            .replace("  Please review.\n", &body)
            .replace("CLAUDE→", &format!("W{writer}→"));
        let envelopes: Vec<String> = (0..10)
            .map(|i| {
                one.replace(
                    "message: 01J9J3DBC4N7P2Q3R5S7T9W1V2",
                    &format!("message: 01J9J3DBC4N7P2Q3R5S7T9W{writer}{i:02}"),
                )
            })
            .collect();
        std::fs::write(&message, envelopes.join("\n")).unwrap();
        for _ in 0..3 {
            children.push(
                std::process::Command::new(&bin)
                    .args(["send", "-q", message.to_str().unwrap(), "--via", &via])
                    .stdout(Stdio::null())
                    .spawn()
                    .unwrap(),
            );
        }
    }
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .arg(&mailbox)
        .assert()
        .code(0);
    // Each envelope once: the senders that came second found it archived.
    let reports = json_lines(&out.get_output().stdout);
    assert_eq!(reports.len(), 4 * 10);
}

#[test]
fn invalid_messages_are_not_sent_unless_forced() {
    let h = home();
    let mailbox = h.path().join("box.aict");
    let via = format!("file:{}", mailbox.display());
    let bad = REQUEST.replace("intent: REQUEST", "intent: SHOUT");
    aiproto(h.path())
        .args(["send", "--via", &via])
        .write_stdin(bad.clone())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nothing sent"));
    assert!(!mailbox.exists());
    aiproto(h.path())
        .args(["send", "--force", "--via", &via])
        .write_stdin(bad)
        .assert()
        .code(0);
    assert!(mailbox.exists());
}

#[test]
fn unknown_transport_is_a_usage_error() {
    let h = home();
    aiproto(h.path())
        .args(["send", "--via", "carrier-pigeon://x"])
        .write_stdin(REQUEST)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("file:PATH"));
}

#[test]
fn hsp_messages_are_appended_as_json_lines() {
    let h = home();
    let mailbox = h.path().join("bus.jsonl");
    let via = format!("file:{}", mailbox.display());
    for _ in 0..2 {
        aiproto(h.path())
            .args(["send", "-q", "--via", &via])
            .arg(super::repo("examples/hsp/valid/0.1/facts.jsonl"))
            .assert()
            .code(0);
    }
    // The second send found every message in the archive already.
    let text = std::fs::read_to_string(&mailbox).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(text.lines().all(|l| l.starts_with('{')));
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .arg(&mailbox)
        .assert()
        .code(0);
    assert_eq!(json_lines(&out.get_output().stdout).len(), 3);
}

/// Several inputs go out in the order given; one invalid input stops all of
/// them, and the message names which file it was.
#[test]
fn several_paths_are_sent_in_order_or_not_at_all() {
    let h = home();
    let mailbox = h.path().join("box.crosstalk");
    let via = format!("file:{}", mailbox.display());
    let first = h.path().join("first.crosstalk");
    let second = h.path().join("second.crosstalk");
    let bad = h.path().join("bad.crosstalk");
    std::fs::write(&first, REQUEST).unwrap();
    let other = REQUEST.replace(
        "message: 01J9J3DBC4N7P2Q3R5S7T9W1V2",
        "message: 01J9J3DBC4N7P2Q3R5S7T9W1V3",
    );
    std::fs::write(&second, &other).unwrap();
    std::fs::write(&bad, REQUEST.replace("intent: REQUEST", "intent: SHOUT")).unwrap();

    aiproto(h.path())
        .args(["send", "--via", &via])
        .args([&first, &bad, &second])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("bad.crosstalk").and(predicate::str::contains("nothing sent")),
        );
    assert!(
        !mailbox.exists(),
        "nothing is sent when one input is invalid"
    );

    aiproto(h.path())
        .args(["send", "--via", &via])
        .args([&second, &first])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("appended 2 message(s)"));
    let archived = std::fs::read_to_string(&mailbox).unwrap();
    let at = |id: &str| archived.find(id).unwrap();
    assert!(at("W1V3") < at("W1V2"), "in the order given:\n{archived}");
}

/// An HSP message written over several lines, with numbers no double holds
/// exactly, a trailing zero and its keys in the sender's order.
pub fn hsp_as_written() -> String {
    let text = std::fs::read_to_string(super::repo("examples/hsp/valid/0.1/opinion.json")).unwrap();
    text.replacen(
        '{',
        "{\n  \"zz\": 12345678901234567890123,\n  \"yy\": 1.50,\n  \"note\": \"two  spaces \\u00e9\",",
        1,
    )
}

/// What a destination must receive: the sender's tokens on one line, not
/// the message serialised again from its parsed value.
pub fn assert_sent_as_written(got: &str, original: &str) {
    assert!(
        got.starts_with(
            r#"{"zz":12345678901234567890123,"yy":1.50,"note":"two  spaces \u00e9","hsp_envelope_version":"0.1","#
        ),
        "{got:?}"
    );
    assert_eq!(got.trim_end().lines().count(), 1, "{got:?}");
    let sent: serde_json::Value = serde_json::from_str(got).unwrap();
    let written: serde_json::Value = serde_json::from_str(original).unwrap();
    assert_eq!(sent, written);
}

#[test]
fn json_messages_are_sent_as_their_sender_wrote_them() {
    let h = home();
    let message = h.path().join("opinion.json");
    let original = hsp_as_written();
    std::fs::write(&message, &original).unwrap();
    let out = aiproto(h.path())
        .args(["send", "-q", "--via", "-"])
        .arg(&message)
        .assert()
        .code(0);
    assert_sent_as_written(
        &String::from_utf8_lossy(&out.get_output().stdout),
        &original,
    );
    let mailbox = h.path().join("bus.jsonl");
    aiproto(h.path())
        .args([
            "send",
            "-q",
            "--via",
            &format!("file:{}", mailbox.display()),
        ])
        .arg(&message)
        .assert()
        .code(0);
    assert_sent_as_written(&std::fs::read_to_string(&mailbox).unwrap(), &original);
    // A mail's body: the same tokens, indented for the reader.
    let eml = h.path().join("opinion.eml");
    aiproto(h.path())
        .args(["send", "-q", "--via", "email:kalle@example.com", "--out"])
        .arg(&eml)
        .arg(&message)
        .assert()
        .code(0);
    let mail = std::fs::read_to_string(&eml).unwrap();
    assert!(
        mail.contains("{\r\n  \"zz\": 12345678901234567890123,\r\n  \"yy\": 1.50,\r\n"),
        "{mail}"
    );
    // The same message again is a repeat, not a conflict.
    aiproto(h.path())
        .args(["send", "--via", &format!("file:{}", mailbox.display())])
        .arg(&message)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("already in the archive"));
}

/// A ULID is one id in any case: the same envelope with its id retyped in
/// lower case is already in the archive, and another message under that
/// id is a conflict, as under the id written the same way.
#[test]
fn an_id_retyped_in_another_case_is_the_same_id_in_the_archive() {
    let h = home();
    let archive = h.path().join("project.crosstalk");
    let via = format!("file:{}", archive.display());
    let id = REQUEST
        .lines()
        .find_map(|l| l.strip_prefix("message: "))
        .unwrap();
    let lower = REQUEST.replace(id, &id.to_ascii_lowercase());
    for (text, code, said) in [
        (REQUEST.to_string(), 0, "appended 1 message"),
        (lower.clone(), 0, "already in the archive"),
        (
            lower.replace("body: |\n  ", "body: |\n  Edited: "),
            1,
            "with different content",
        ),
    ] {
        aiproto(h.path())
            .args(["send", "--via", &via, "-"])
            .write_stdin(text)
            .assert()
            .code(code)
            .stderr(predicate::str::contains(said));
    }
    assert_eq!(
        std::fs::read_to_string(&archive)
            .unwrap()
            .matches("[[END]]")
            .count(),
        1
    );
}

/// `--force` sends invalid messages, never what cannot be read as one: a
/// line that is not JSON was dropped while the count said it was sent.
#[test]
fn force_does_not_send_what_cannot_be_read() {
    let h = home();
    let message = std::fs::read_to_string(super::repo("examples/hsp/valid/0.1/opinion.json"))
        .unwrap()
        .replace('\n', "");
    let input = h.path().join("mixed.jsonl");
    std::fs::write(&input, format!("{message}\n{{\"broken\": \n{message}\n")).unwrap();
    aiproto(h.path())
        .args(["send", "--force", "--via", "-"])
        .arg(&input)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "mixed.jsonl:2: not readable as a message, nothing sent (not even with --force)",
        ));
}

/// `send --each`: messages are checked and sent in turn; the first that
/// may not go stops it, named with its line and with how many went before
/// it, and nothing after it is sent. Without --each, nothing is.
#[test]
fn each_stops_at_the_first_message_that_may_not_go() {
    let h = home();
    let id = "message: 01J9J3DBC4N7P2Q3R5S7T9W1V2";
    let with_id =
        |last: &str| REQUEST.replace(id, &format!("message: 01J9J3DBC4N7P2Q3R5S7T9W1{last}"));
    let before = format!("{}\n{}\n", with_id("V2"), with_id("V3"));
    let bad = with_id("V4").replace("intent: REQUEST", "intent: SHOUT");
    let file = h.path().join("each.crosstalk");
    std::fs::write(&file, format!("{before}{bad}\n{}", with_id("V5"))).unwrap();
    let line = before.lines().count() + 1;
    let out = aiproto(h.path())
        .args(["send", "--each", "--via", "-"])
        .arg(&file)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains(format!("each.crosstalk:{line}:"))
                .and(predicate::str::contains("2 message(s) sent before it"))
                .and(predicate::str::contains("SHOUT"))
                .and(predicate::str::contains("--force")),
        );
    let sent = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(sent.contains("W1V2") && sent.contains("W1V3"), "{sent}");
    assert!(!sent.contains("W1V4") && !sent.contains("W1V5"), "{sent}");
    // Stdin redirected from the file (`< FILE`: read in pieces, as the
    // file is, not a message at a time): the same stop after the same two.
    let out = super::support::spawn(h.path(), &["send", "--each", "--via", "-"])
        .stdin(std::fs::File::open(&file).unwrap())
        .output()
        .unwrap();
    let (sent, said) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains(&format!("<stdin>:{line}:")), "{said}");
    assert!(said.contains("2 message(s) sent before it"), "{said}");
    assert!(sent.contains("W1V2") && sent.contains("W1V3"), "{sent}");
    assert!(!sent.contains("W1V4") && !sent.contains("W1V5"), "{sent}");
    // All or nothing, without --each.
    aiproto(h.path())
        .args(["send", "--via", "-"])
        .arg(&file)
        .assert()
        .code(1)
        .stdout("");
    // --force sends the invalid one too, never an unreadable one.
    aiproto(h.path())
        .args(["send", "--each", "--force", "-q", "--via", "-"])
        .arg(&file)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("W1V5"));
}

/// `send --each` reads stdin a message at a time: an HSP line piped in is
/// published, and received, while the writer has not written the next
/// one yet (without --each, stdin is read to its end first).
#[test]
fn each_publishes_a_piped_message_before_the_next_is_written() {
    use std::io::{BufRead, BufReader, Write};
    let h = home();
    let (_broker, port) = super::embedded_broker(h.path());
    let uri = format!("mqtt://127.0.0.1:{port}/hsp/each");
    let recv_args = ["--via", &uri, "--count", "2", "--timeout", "30"];
    let mut recv = super::subscribed(h.path(), &recv_args);
    let example =
        std::fs::read_to_string(super::repo("examples/hsp/valid/0.1/opinion.json")).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&example).unwrap();
    let mut line = |id: &str| {
        value["message_id"] = id.into();
        format!("{value}\n")
    };
    let (first_id, second_id) = (
        "018f4a6e-8c1b-7d2a-9e3f-0000000000e1",
        "018f4a6e-8c1b-7d2a-9e3f-0000000000e2",
    );
    let mut send = super::spawn(h.path(), &["send", "--each", "--qos", "1", "--via", &uri])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut writer = send.stdin.take().unwrap();
    writer.write_all(line(first_id).as_bytes()).unwrap();
    writer.flush().unwrap();
    // The first arrives while stdin is still open (recv gives up after 30 s).
    let mut received = BufReader::new(recv.stdout.take().unwrap());
    let mut first = String::new();
    assert!(
        received.read_line(&mut first).unwrap() > 0,
        "recv ended first"
    );
    assert!(first.contains(first_id), "{first}");
    writer.write_all(line(second_id).as_bytes()).unwrap();
    drop(writer);
    let sent = send.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&sent.stderr);
    assert_eq!(sent.status.code(), Some(0), "{said}");
    assert!(said.contains("published 2 message(s)"), "{said}");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut received, &mut rest).unwrap();
    assert!(rest.contains(second_id), "{rest}");
    assert!(recv.wait().unwrap().success());
}

/// `send --each` stops at a bad message piped in while the writer still
/// holds the pipe open: the thread reading ahead, waiting on the pipe for
/// a next message that may never come, is not waited for.
#[test]
fn each_stops_at_a_bad_piped_message_while_the_pipe_stays_open() {
    use std::io::Write;
    let h = home();
    let example =
        std::fs::read_to_string(super::repo("examples/hsp/valid/0.1/opinion.json")).unwrap();
    let value: serde_json::Value = serde_json::from_str(&example).unwrap();
    let mut bad = value.clone();
    bad.as_object_mut().unwrap().remove("sender_ai_id");
    let mut send = super::spawn(h.path(), &["send", "--each", "--via", "-"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut writer = send.stdin.take().unwrap();
    writer
        .write_all(format!("{value}\n{bad}\n").as_bytes())
        .unwrap();
    writer.flush().unwrap();
    // The writer is kept (the pipe stays open) until aiproto has ended.
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = send.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = send.kill();
            panic!("send --each waited on the open pipe after the bad message");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    drop(writer);
    let out = send.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.code(), Some(1), "{said}");
    assert!(said.contains("<stdin>:2:"), "{said}");
    assert!(said.contains("1 message(s) sent before it"), "{said}");
}

/// An input without any message ends `send --each` there (exit 1): what
/// came before it has gone out, and is said to have.
#[test]
fn each_stops_at_an_input_without_a_message() {
    let h = home();
    let first = h.path().join("first.crosstalk");
    std::fs::write(&first, REQUEST).unwrap();
    let empty = h.path().join("notes.txt");
    std::fs::write(&empty, "nothing to send here\n").unwrap();
    aiproto(h.path())
        .args(["send", "--each", "--via", "-"])
        .arg(&first)
        .arg(&empty)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("W1V2"))
        .stderr(
            predicate::str::contains("notes.txt")
                .and(predicate::str::contains("nothing after it sent")),
        );
}

#[test]
fn each_is_refused_where_messages_go_all_at_once() {
    let h = home();
    for via in ["file:box.crosstalk", "clipboard"] {
        aiproto(h.path())
            .args(["send", "--each", "--via", via])
            .write_stdin(REQUEST)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--each is for a destination"));
    }
}
