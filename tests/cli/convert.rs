//! `aiproto convert`: version moves, canonical form, loss reports.

use predicates::prelude::*;

use super::{REQUEST, aiproto, home, json_lines};

const V1_0: &str = "[[CLAUDE→CHATGPT v1]]
user: kalle
session: 2025-10-09T16Z abc123
context: review
intent: PATCH
body: |
  -old
  +new
sig: none
[[END]]
";

#[test]
fn migrates_1_0_to_1_1_and_back_without_loss_of_the_original() {
    let h = home();
    let up = aiproto(h.path())
        .args(["convert", "--to", "crosstalk@1.1"])
        .write_stdin(V1_0)
        .assert()
        .code(0)
        .stderr("");
    let up = String::from_utf8_lossy(&up.get_output().stdout).to_string();
    assert!(
        up.contains("intent: REQUEST\n\nmeta: compat\nLegacy-Intent: PATCH\n"),
        "{up}"
    );
    assert!(up.contains("\nthread: ") && up.contains("\nmessage: "));
    aiproto(h.path())
        .args(["validate", "--strict"])
        .write_stdin(up.clone())
        .assert()
        .code(0);
    aiproto(h.path())
        .args(["convert", "--to", "crosstalk@1.0"])
        .write_stdin(up)
        .assert()
        .code(0)
        .stdout(V1_0)
        .stderr(
            predicate::str::contains("dropped thread =")
                .and(predicate::str::contains("dropped message =")),
        );
}

#[test]
fn downgrade_reports_every_dropped_field_as_json() {
    let h = home();
    let text = REQUEST.replace(
        "intent: REQUEST\n",
        "intent: REQUEST\n\nmeta: routing\nX-Priority: high\n\n",
    );
    let out = aiproto(h.path())
        .args(["convert", "--to", "crosstalk@1.0", "--format", "json"])
        .write_stdin(text)
        .assert()
        .code(0);
    let report = json_lines(&out.get_output().stderr).remove(0);
    let fields: Vec<&str> = report["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, vec!["thread", "message", "meta.routing.X-Priority"]);
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("intent: QUESTION\n"));
}

#[test]
fn strict_conversion_with_loss_writes_nothing() {
    let h = home();
    aiproto(h.path())
        .args(["convert", "--to", "crosstalk@1.0", "--strict"])
        .write_stdin(REQUEST)
        .assert()
        .code(1)
        .stdout("");
    aiproto(h.path())
        .args(["convert", "--to", "crosstalk@1.1", "--strict"])
        .write_stdin(REQUEST)
        .assert()
        .code(0)
        .stdout(REQUEST);
}

#[test]
fn canonical_form_normalises_pasted_text() {
    let h = home();
    let messy = "> [[CLAUDE->CHATGPT v1]]\r\n> intent:   REQUEST\r\n> user: kalle  \r\n> message: 01J9J3DBC4N7P2Q3R5S7T9W1V2\r\n> body: |\r\n> \tline\r\n>\r\n>     more\r\n> sig: none\r\n> [[END]]\r\n";
    let canonical = "[[CLAUDE→CHATGPT v1]]\nuser: kalle\nmessage: 01J9J3DBC4N7P2Q3R5S7T9W1V2\nintent: REQUEST\nbody: |\n  line\n\n    more\nsig: none\n[[END]]\n";
    aiproto(h.path())
        .args(["convert", "--canonical"])
        .write_stdin(messy)
        .assert()
        .code(0)
        .stdout(canonical);
    aiproto(h.path())
        .args(["convert", "--canonical"])
        .write_stdin(canonical)
        .assert()
        .code(0)
        .stdout(canonical);
}

#[test]
fn signature_is_dropped_when_the_version_changes() {
    let h = home();
    let signed = V1_0.replace("sig: none", "sig: ed25519:pkid=alice;sig=AAAA");
    aiproto(h.path())
        .args(["convert", "--to", "crosstalk@1.1"])
        .write_stdin(signed.clone())
        .assert()
        .code(0)
        .stdout(predicate::str::contains("sig: none"))
        .stderr(predicate::str::contains(
            "dropped sig = ed25519:pkid=alice;sig=AAAA",
        ));
    aiproto(h.path())
        .args(["convert", "--canonical"])
        .write_stdin(signed.clone())
        .assert()
        .code(0)
        .stdout(signed);
}

#[test]
fn invalid_messages_are_not_converted() {
    let h = home();
    aiproto(h.path())
        .args(["convert", "--to", "crosstalk@1.1"])
        .write_stdin(REQUEST.replace("intent: REQUEST", "intent: SHOUT"))
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("invalid, not converted"));
}
