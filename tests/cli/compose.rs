//! `aiproto compose`: new envelopes and replies that pass validation.

use predicates::prelude::*;

use super::{REQUEST, aiproto, home, json_lines};

fn inspect(h: &std::path::Path, text: &str) -> serde_json::Value {
    let out = aiproto(h)
        .args(["inspect", "--format", "json"])
        .write_stdin(text.to_string())
        .assert()
        .code(0);
    json_lines(&out.get_output().stdout).remove(0)
}

#[test]
fn composes_a_valid_1_1_request_with_generated_ids() {
    let h = home();
    let out = aiproto(h.path())
        .args([
            "compose",
            "crosstalk",
            "--from",
            "CLAUDE",
            "--to",
            "chatgpt://thread/xyz",
            "--intent",
            "REQUEST",
        ])
        .args([
            "--context",
            "review",
            "--user",
            "kalle",
            "--meta",
            "routing.X-Priority=high",
            "--meta",
            "custom-acme.Team=platform",
        ])
        .args([
            "--meta",
            "routing.X-Reply-To=claude://session/abc",
            "--body",
            "Line one\n  indented",
        ])
        .assert()
        .code(0);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("[[CLAUDE→chatgpt://thread/xyz v1]]\nuser: kalle\nsession: "));
    assert!(text.contains("\nmeta: routing\nX-Priority: high\nX-Reply-To: claude://session/abc\n\nmeta: custom-acme\nTeam: platform\n\n"));
    assert!(text.ends_with("body: |\n  Line one\n    indented\nsig: none\n[[END]]\n"));
    aiproto(h.path())
        .args(["validate", "--strict"])
        .write_stdin(text.clone())
        .assert()
        .code(0);
    let m = &inspect(h.path(), &text)["message"];
    assert_eq!(m["id"].as_str().unwrap().len(), 26);
    assert_eq!(m["thread"].as_str().unwrap().len(), 26);
}

#[test]
fn reply_keeps_the_thread_and_points_at_the_original() {
    let h = home();
    let original = h.path().join("q.crosstalk");
    std::fs::write(&original, REQUEST).unwrap();
    let out = aiproto(h.path())
        .args(["compose", "--reply-to"])
        .arg(&original)
        .args(["--body", "Looks good"])
        .assert()
        .code(0);
    let reply = inspect(h.path(), &String::from_utf8_lossy(&out.get_output().stdout));
    let m = &reply["message"];
    assert_eq!(m["sender"], "CHATGPT");
    assert_eq!(m["recipient"], "CLAUDE");
    assert_eq!(m["thread"], "01J9J3D3M6A4M3WQX8G1ZQ0S7K");
    assert_eq!(m["parent"], "01J9J3DBC4N7P2Q3R5S7T9W1V2");
    assert_eq!(m["intent"], "RESPOND");
    assert_ne!(m["id"], "01J9J3DBC4N7P2Q3R5S7T9W1V2");
    assert_eq!(reply["valid"], true);
}

#[test]
fn error_reply_fills_meta_error() {
    let h = home();
    let original = h.path().join("q.crosstalk");
    std::fs::write(&original, REQUEST).unwrap();
    let out = aiproto(h.path())
        .args(["compose", "--reply-to"])
        .arg(&original)
        .args([
            "--intent",
            "ERROR",
            "--error-code",
            "E-FORMAT",
            "--reason",
            "body is not valid YAML",
        ])
        .write_stdin("")
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("intent: ERROR\n\nmeta: error\nCode: E-FORMAT\nReason: body is not valid YAML\nOriginal-Intent: REQUEST\n"), "{text}");
    aiproto(h.path())
        .args(["validate", "--strict"])
        .write_stdin(text)
        .assert()
        .code(0);
}

#[test]
fn body_from_stdin_and_from_a_file() {
    let h = home();
    let file = h.path().join("body.txt");
    std::fs::write(&file, "from a file\r\n\r\n").unwrap();
    aiproto(h.path())
        .args([
            "compose",
            "--from",
            "A",
            "--to",
            "B",
            "--intent",
            "BROADCAST",
            "--body-file",
        ])
        .arg(&file)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "body: |\n  from a file\nsig: none\n",
        ));
    aiproto(h.path())
        .args([
            "compose",
            "--from",
            "A",
            "--to",
            "B",
            "--intent",
            "BROADCAST",
        ])
        .write_stdin("from stdin\n")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("  from stdin\n"));
}

#[test]
fn mistakes_are_refused_with_nothing_written() {
    let h = home();
    let base = ["compose", "--from", "A", "--to", "B", "--body", "x"];
    aiproto(h.path())
        .args(base)
        .args(["--intent", "SHOUT"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("CT-INTENT-UNKNOWN"));
    aiproto(h.path())
        .args(base)
        .args(["--intent", "ERROR"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--error-code"));
    aiproto(h.path())
        .args(base)
        .args(["--intent", "REQUEST", "--meta", "nodot=1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("NAMESPACE.Key=Value"));
    aiproto(h.path())
        .args([
            "compose",
            "crosstalk@1.0",
            "--from",
            "A",
            "--to",
            "B",
            "--body",
            "x",
            "--intent",
            "QUESTION",
            "--thread",
            "01J9J3D3M6A4M3WQX8G1ZQ0S7K",
        ])
        .assert()
        .code(2);
    aiproto(h.path())
        .args(["compose", "--from", "A", "--to", "B", "--intent", "REQUEST"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("empty"));
}

#[test]
fn composes_1_0_and_uuid7() {
    let h = home();
    let out = aiproto(h.path())
        .args([
            "compose",
            "crosstalk@1.0",
            "--from",
            "A",
            "--to",
            "B",
            "--intent",
            "REQUEST",
            "--body",
            "x",
        ])
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(!text.contains("thread:") && !text.contains("message:"));
    let out = aiproto(h.path())
        .args([
            "compose", "--uuid7", "--from", "A", "--to", "B", "--intent", "REQUEST", "--body", "x",
        ])
        .assert()
        .code(0);
    let m = inspect(h.path(), &String::from_utf8_lossy(&out.get_output().stdout));
    assert_eq!(m["message"]["id"].as_str().unwrap().len(), 36);
}

#[test]
fn trailing_spaces_of_the_body_are_kept_trailing_blank_lines_are_not() {
    let h = home();
    let out = aiproto(h.path())
        .args([
            "compose",
            "crosstalk",
            "--from",
            "A",
            "--to",
            "B",
            "--intent",
            "BROADCAST",
        ])
        .args(["--body", "hello   \nworld  \n\n  \n"])
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains("body: |\n  hello   \n  world  \nsig: none\n"),
        "{text:?}"
    );
}

/// A reply holding its own envelope and, quoted below it, the message it
/// answers: `--reply-to` answers the reply's own envelope, and says it
/// passed over the quoted one, for compose and the primer alike.
#[test]
fn a_quoted_envelope_below_a_reply_is_not_the_one_answered() {
    let h = home();
    let own = REQUEST
        .replace("[[CLAUDE→CHATGPT v1]]", "[[CHATGPT→CLAUDE v1]]")
        .replace("01J9J3DBC4N7P2Q3R5S7T9W1V2", "01J9J3DF8WQ0R2T4V6X8Z0B2D4");
    let quoted: String = REQUEST.lines().map(|l| format!("> {l}\n")).collect();
    let reply = format!("My answer:\n\n{own}\nYou wrote:\n\n{quoted}");
    let file = h.path().join("reply.txt");
    std::fs::write(&file, reply).unwrap();
    for args in [
        vec!["compose", "--body", "ok", "--reply-to"],
        vec!["primer", "--reply-to"],
    ] {
        let out = aiproto(h.path()).args(&args).arg(&file).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("parent: 01J9J3DF8WQ0R2T4V6X8Z0B2D4"),
            "{args:?} answers the reply's own envelope: {stdout}"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("answering envelope 1 of 2")
                && stderr.contains("1 quoted (`> `) envelope(s) after it were passed over"),
            "{args:?}: {stderr}"
        );
    }
}

/// A reply that ends with an envelope addressed to the person: the primer
/// hands the other chat the one addressed to it, never one that would make
/// it write `[[HUMAN→…]]`; with only the person's, it asks who answers.
#[test]
fn the_primer_never_makes_the_other_chat_write_as_the_person() {
    let h = home();
    let to_human = REQUEST
        .replace("[[CLAUDE→CHATGPT v1]]", "[[CLAUDE→HUMAN v1]]")
        .replace("01J9J3DBC4N7P2Q3R5S7T9W1V2", "01J9J3DBC4N7P2Q3R5S7T9W1V3");
    let reply = h.path().join("reply.txt");
    std::fs::write(
        &reply,
        format!("Here you go:\n\n{REQUEST}\nAnd for you:\n\n{to_human}"),
    )
    .unwrap();
    aiproto(h.path())
        .args(["primer", "--via", "-", "--reply-to"])
        .arg(&reply)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("[[CHATGPT→CLAUDE v1]]"))
        .stdout(predicate::str::contains("[[HUMAN→").not())
        .stderr(predicate::str::contains("answering envelope 1 of 2"));
    std::fs::write(&reply, &to_human).unwrap();
    aiproto(h.path())
        .args(["primer", "--via", "-", "--reply-to"])
        .arg(&reply)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("addressed to HUMAN, that is you"))
        .stderr(predicate::str::contains("--from NAME"));
}
