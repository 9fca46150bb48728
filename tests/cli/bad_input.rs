//! Hostile input: binary, empty, truncated, huge, invalid UTF-8. Always a
//! clear message and exit 1 or 2, never a panic.

use predicates::prelude::*;

use super::{REQUEST, aiproto, home, json_lines};

fn assert_no_panic(input: Vec<u8>, expected_code: i32) -> Vec<serde_json::Value> {
    let h = home();
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .write_stdin(input)
        .assert()
        .code(expected_code)
        .stderr(predicate::str::contains("panicked").not());
    json_lines(&out.get_output().stdout)
}

#[test]
fn binary_input_names_the_first_bad_byte() {
    let r = assert_no_panic(b"\x7fELF\x02\x01\x01\n\x00\x00\xff\xfe".to_vec(), 1);
    assert_eq!(r[0]["errors"][0]["code"], "INPUT-NOT-UTF8");
    assert_eq!(r[0]["errors"][0]["line"], 2);
    assert_eq!(r[0]["errors"][0]["column"], 3);
}

#[test]
fn empty_input() {
    let r = assert_no_panic(Vec::new(), 1);
    assert_eq!(r[0]["errors"][0]["code"], "NO-MESSAGE");
}

#[test]
fn another_projects_json_with_a_message_type_is_no_message() {
    let other = br#"{"message_type": "chat.reply", "from": "bot", "text": "hi", "ts": 1}"#;
    let r = assert_no_panic(other.to_vec(), 1);
    assert_eq!(r[0]["errors"][0]["code"], "NO-MESSAGE");
    assert_eq!(r[0]["errors"].as_array().unwrap().len(), 1);
    // An HSP envelope without its version field is still HSP.
    let hsp = br#"{"message_type": "fact", "sender_ai_id": "did:hsp:a", "message_id": "m"}"#;
    let r = assert_no_panic(hsp.to_vec(), 1);
    assert!(
        r[0]["errors"][0]["code"]
            .as_str()
            .unwrap()
            .starts_with("HSP-"),
        "{r:?}"
    );
}

#[test]
fn every_truncation_of_an_envelope_is_handled() {
    let h = home();
    for cut in 0..REQUEST.len() {
        if !REQUEST.is_char_boundary(cut) {
            continue;
        }
        aiproto(h.path())
            .arg("validate")
            .write_stdin(&REQUEST[..cut])
            .assert()
            .code(predicate::in_iter([0, 1]))
            .stderr(predicate::str::contains("panicked").not());
    }
}

#[test]
fn huge_input_of_many_envelopes() {
    let many = REQUEST.repeat(20_000);
    let r = assert_no_panic(many.into_bytes(), 0);
    assert_eq!(r.len(), 20_000);
    assert_eq!(r[19_999]["line"], 19_999 * 11 + 1);
}

#[test]
fn a_single_enormous_line() {
    let mut text = REQUEST.replace("  Please review.", &format!("  {}", "x".repeat(5_000_000)));
    text.push_str(&"[".repeat(100_000));
    let r = assert_no_panic(text.into_bytes(), 0);
    assert_eq!(r.len(), 1);
}

#[test]
fn header_lines_made_of_brackets_and_arrows() {
    for junk in [
        "[[→]]",
        "[[->]]",
        "[[ v1]]",
        "[[→ v1]]",
        "[[a→ v1]]",
        "[[→b v1.1]]",
        "[[a→b v]]",
        "[[[[a→b v1]]]]",
    ] {
        assert_no_panic(format!("{junk}\nbody: |\n  x\n[[END]]\n").into_bytes(), 1);
    }
}

#[test]
fn closed_stdout_ends_quietly_with_0() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let h = home();
    let input = h.path().join("many.crosstalk");
    std::fs::write(&input, REQUEST.repeat(20_000)).unwrap();
    for args in [
        vec!["id", "-n", "2000000"],
        vec!["validate", "--format", "json", input.to_str().unwrap()],
    ] {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("aiproto"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // The reader is dropped here: the pipe closes while aiproto still writes.
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("error") && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
    }
}

/// `clipboard` without its colon is a file that does not exist: the error
/// says how the clipboard is named.
#[test]
fn clipboard_without_the_colon_is_told_the_name() {
    let h = home();
    aiproto(h.path())
        .current_dir(h.path())
        .args(["validate", "clipboard"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "the system clipboard is named `clipboard:`, with the colon",
        ));
}
