//! Envelopes pasted out of chats: prose around them, code fences, CRLF,
//! the ASCII arrow, `> ` quotes, several envelopes in one input.

use super::{REQUEST, aiproto, home, json_lines, repo};

fn reports(input: &str) -> Vec<serde_json::Value> {
    let h = home();
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .write_stdin(input.to_string())
        .assert();
    json_lines(&out.get_output().stdout)
}

#[test]
fn the_pasted_example_holds_two_valid_envelopes_at_their_lines() {
    let h = home();
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .arg(repo("examples/crosstalk/pasted/chat-transcript.md"))
        .assert()
        .code(0);
    let lines = json_lines(&out.get_output().stdout);
    assert_eq!(
        lines
            .iter()
            .map(|l| l["line"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![6, 24]
    );
}

#[test]
fn prose_fences_and_several_envelopes() {
    let input = format!(
        "Hello! Here you go:\n\n```text\n{REQUEST}```\n\nAnd a second one, unfenced:\n{REQUEST}\nCheers.\n"
    );
    let r = reports(&input);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0]["line"], 4);
    assert_eq!(r[1]["line"], 18);
    assert!(r.iter().all(|x| x["valid"] == true));
}

#[test]
fn crlf_line_ends() {
    let r = reports(&REQUEST.replace('\n', "\r\n"));
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["valid"], true, "{r:?}");
}

#[test]
fn ascii_arrow() {
    let r = reports(&REQUEST.replace('→', "->"));
    assert_eq!(r[0]["valid"], true);
}

#[test]
fn quote_prefix_on_every_line_keeps_columns_in_the_source() {
    let quoted: String = REQUEST
        .replace("intent: REQUEST", "intent: SHOUT")
        .lines()
        .map(|l| format!("> {l}\n"))
        .collect();
    let r = reports(&format!("They wrote:\n{quoted}"));
    assert_eq!(r[0]["line"], 2);
    let e = &r[0]["errors"][0];
    assert_eq!(e["code"], "CT-INTENT-UNKNOWN");
    assert_eq!(e["line"], 8);
    assert_eq!(e["column"], 11, "column counts the `> ` prefix");
}

#[test]
fn indented_end_marker_is_body_text() {
    let text = REQUEST.replace(
        "  Please review.\n",
        "  Please review.\n  [[END]]\n  still body\n",
    );
    let h = home();
    let out = aiproto(h.path())
        .args(["inspect", "--format", "json"])
        .write_stdin(text)
        .assert()
        .code(0);
    let body = json_lines(&out.get_output().stdout)[0]["message"]["body"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(body, "Please review.\n[[END]]\nstill body");
}

#[test]
fn tab_indented_body_is_read() {
    let text = REQUEST.replace("  Please review.", "\tPlease review.\n\t  indented more");
    let r = reports(&text);
    assert_eq!(r[0]["valid"], true);
}

#[test]
fn transcript_without_envelope_is_reported() {
    let r = reports("Just chatting, no envelope here.\n");
    assert_eq!(r[0]["valid"], false);
    assert_eq!(r[0]["errors"][0]["code"], "NO-MESSAGE");
}
