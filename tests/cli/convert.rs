//! `aiproto convert`: version moves, canonical form, loss reports.

use predicates::prelude::*;

use super::{REQUEST, aiproto, big_archive, big_archive_id, home, json_lines};

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
            "dropped signature = ed25519:pkid=alice;sig=AAAA",
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

/// The HSP TaskRequest of the examples, as a chat assistant receives it.
/// The TaskResult `convert --to hsp --answers ANSWERS` makes of a reply on
/// stdin (it must succeed, silently).
fn answered(h: &std::path::Path, answers: &std::path::Path, reply: &str) -> serde_json::Value {
    let out = aiproto(h)
        .args(["convert", "--to", "hsp", "--format", "json", "--answers"])
        .arg(answers)
        .write_stdin(reply.to_string())
        .assert()
        .code(0)
        .stderr("");
    json_lines(&out.get_output().stdout).remove(0)
}

fn task_request_as_crosstalk(h: &std::path::Path) -> String {
    let out = aiproto(h)
        .args(["convert", "--to", "crosstalk"])
        .arg(super::repo("examples/hsp/valid/1.0/task-request.json"))
        .assert()
        .code(0)
        .stderr("");
    String::from_utf8_lossy(&out.get_output().stdout).to_string()
}

#[test]
fn an_hsp_task_request_reaches_crosstalk_and_its_answer_comes_back_as_a_task_result() {
    let h = home();
    let envelope = task_request_as_crosstalk(h.path());
    assert!(
        envelope.starts_with("[[did:hsp:agent_A→did:hsp:agent_B v1]]\n"),
        "{envelope}"
    );
    assert!(envelope.contains("intent: REQUEST\n"), "{envelope}");
    assert!(
        envelope.contains("\"csv_content\": \"a,b\\n1,2\\n\""),
        "{envelope}"
    );
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(envelope.clone())
        .assert()
        .code(0);
    // The assistant answers with a RESPOND whose parent is the request.
    let request_id = envelope
        .lines()
        .find_map(|l| l.strip_prefix("message: "))
        .unwrap();
    let reply = format!(
        "[[did:hsp:agent_B→did:hsp:agent_A v1]]\nparent: {request_id}\nmessage: 01J9J3D3M6A4M3WQX8G1ZQ0S7K\nintent: RESPOND\nbody: |\n  a sums to 1, b to 2.\nsig: none\n[[END]]\n"
    );
    let request_path = super::repo("examples/hsp/valid/1.0/task-request.json");
    let request: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&request_path).unwrap()).unwrap();
    // Without the request, aiproto says what it had to guess.
    aiproto(h.path())
        .args(["convert", "--to", "hsp"])
        .write_stdin(reply.clone())
        .assert()
        .code(0)
        .stderr(predicate::str::contains("give --answers REQUEST"));
    // With it (the HSP request, or the envelope it became), the result
    // answers the request's request_id at its callback_address.
    let ask = h.path().join("ask.crosstalk");
    std::fs::write(&ask, &envelope).unwrap();
    for answers in [request_path.as_path(), ask.as_path()] {
        let result = &answered(h.path(), answers, &reply);
        assert_eq!(result["message_type"], "HSP::TaskResult_v1.0");
        assert_eq!(result["communication_pattern"], "response");
        assert_eq!(result["correlation_id"], request_id);
        assert_eq!(
            result["payload"]["request_id"],
            request["payload"]["request_id"]
        );
        assert_eq!(
            result["recipient_ai_id"],
            request["payload"]["callback_address"]
        );
        assert_eq!(result["payload"]["status"], "success");
        assert_eq!(result["payload"]["payload"], "a sums to 1, b to 2.");
        aiproto(h.path())
            .args(["validate", "--strict", "-"])
            .write_stdin(result.to_string())
            .assert()
            .code(0);
    }
    // A transcript holding both converts the same way.
    let both = h.path().join("both.crosstalk");
    std::fs::write(&both, format!("{envelope}\n{reply}")).unwrap();
    let out = aiproto(h.path())
        .args(["convert", "--to", "hsp"])
        .arg(&both)
        .assert()
        .code(0)
        .stderr("");
    let out = json_lines(&out.get_output().stdout);
    assert_eq!(
        out[1]["payload"]["request_id"],
        request["payload"]["request_id"]
    );
}

#[test]
fn hsp_to_crosstalk_and_back_is_the_identity() {
    let h = home();
    let envelope = task_request_as_crosstalk(h.path());
    let back = aiproto(h.path())
        .args(["convert", "--to", "hsp"])
        .write_stdin(envelope)
        .assert()
        .code(0)
        .stderr("");
    let back = &json_lines(&back.get_output().stdout)[0];
    let original: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(super::repo("examples/hsp/valid/1.0/task-request.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(*back, original);
}

#[test]
fn converting_to_msp_reports_what_the_signal_cannot_hold() {
    let h = home();
    let out = aiproto(h.path())
        .args(["convert", "--to", "msp", "--format", "json"])
        .write_stdin(REQUEST)
        .assert()
        .code(0);
    let report = json_lines(&out.get_output().stderr);
    let fields: Vec<&str> = report[0]["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["field"].as_str().unwrap())
        .collect();
    assert!(
        fields.contains(&"sender") && fields.contains(&"recipient"),
        "{fields:?}"
    );
    let signal = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(signal["intent"], "DELEGATE");
    aiproto(h.path())
        .args(["convert", "--to", "msp", "--strict"])
        .write_stdin(REQUEST)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("--strict"));
}

#[test]
fn many_messages_in_many_out_and_from_forces_the_source() {
    let h = home();
    let out = aiproto(h.path())
        .args(["convert", "--to", "crosstalk"])
        .arg(super::repo("examples/hsp/valid/0.1/facts.jsonl"))
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let envelopes = text.matches("[[END]]").count();
    assert!(envelopes >= 2, "{text}");
    let back = aiproto(h.path())
        .args(["convert", "--from", "crosstalk", "--to", "hsp@0.1"])
        .write_stdin(text)
        .assert()
        .code(0)
        .stderr("");
    assert_eq!(json_lines(&back.get_output().stdout).len(), envelopes);
    aiproto(h.path())
        .args(["convert", "--from", "hsp", "--to", "crosstalk"])
        .write_stdin(REQUEST)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("message is invalid"));
}

#[test]
fn tokens_compare_counts_a_message_as_crosstalk_and_as_hsp() {
    let h = home();
    let out = aiproto(h.path())
        .args(["tokens", "--compare", "--format", "json"])
        .write_stdin(REQUEST)
        .assert()
        .code(0);
    let c = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(c["protocol"], "crosstalk/hsp");
    assert_eq!(c["forms"][0]["form"], "crosstalk");
    assert_eq!(c["forms"][1]["form"], "hsp");
    let (ct, hsp) = (
        c["forms"][0]["tokens"].as_u64().unwrap(),
        c["forms"][1]["tokens"].as_u64().unwrap(),
    );
    assert!(ct > 10 && hsp > ct, "{c}");
}

#[test]
fn crosstalk_1_0_from_another_protocol_speaks_1_0_with_a_session() {
    let h = home();
    // (A CSDL message has no id and no time: its session is random.)
    let sources = [
        ("examples/hsp/valid/1.0/task-request.json", "QUESTION", true),
        ("examples/csdl/valid/agent_message.json", "QUESTION", false),
    ];
    for (path, intent, same_twice) in sources {
        let out = aiproto(h.path())
            .args(["convert", "--to", "crosstalk@1.0"])
            .arg(super::repo(path))
            .assert()
            .code(0);
        let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
        assert!(
            text.contains(&format!("\nintent: {intent}\n")),
            "{path}:\n{text}"
        );
        let session = text
            .lines()
            .find_map(|l| l.strip_prefix("session: "))
            .unwrap_or_else(|| panic!("{path}: no session:\n{text}"));
        assert!(session.contains(" aiproto-"), "{session}");
        // Converting again gives the same session: it is made from the message.
        let again = aiproto(h.path())
            .args(["convert", "--to", "crosstalk@1.0"])
            .arg(super::repo(path))
            .assert()
            .code(0);
        let again = String::from_utf8_lossy(&again.get_output().stdout).to_string();
        assert_eq!(again == text, same_twice, "{path}");
    }
    // An intent 1.0 has no word for is written as the nearest, and reported.
    let ack = "[[A→B v1]]\nmessage: 01J9J3DBC4N7P2Q3R5S7T9W1V2\nintent: ACK\nbody: |\n  got it\nsig: none\n[[END]]\n";
    aiproto(h.path())
        .args(["convert", "--to", "crosstalk@1.0"])
        .write_stdin(ack)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("intent: ANSWER\n"))
        .stdout(predicate::str::contains("session: "))
        .stderr(predicate::str::contains(
            "Crosstalk 1.0 has no ACK intent; written as ANSWER",
        ));
}

#[test]
fn hsp_0_1_comes_back_as_0_1_when_no_version_is_asked() {
    let h = home();
    let path = super::repo("examples/hsp/valid/0.1/fact-envelope-example.json");
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let envelope = aiproto(h.path())
        .args(["convert", "--to", "crosstalk"])
        .arg(&path)
        .assert()
        .code(0);
    let envelope = String::from_utf8_lossy(&envelope.get_output().stdout).to_string();
    let back = aiproto(h.path())
        .args(["convert", "--to", "hsp"])
        .write_stdin(envelope.clone())
        .assert()
        .code(0)
        .stderr("");
    assert_eq!(json_lines(&back.get_output().stdout)[0], original);
    // Asked for, 1.0 it is.
    let v1 = aiproto(h.path())
        .args(["convert", "--to", "hsp@1.0"])
        .write_stdin(envelope)
        .assert()
        .code(0);
    assert_eq!(
        json_lines(&v1.get_output().stdout)[0]["hsp_envelope_version"],
        "1.0"
    );
}

#[test]
fn a_message_the_target_would_refuse_as_too_large_is_not_converted() {
    let h = home();
    // 400 bytes of body: under 600 as an envelope, over it as escaped HSP JSON.
    let body = "  \"q\" \\ \"q\" \\ \"q\" \\ \"q\" \\ \"q\"\n".repeat(14);
    let envelope = format!(
        "[[A→B v1]]\nmessage: 01J9J3DBC4N7P2Q3R5S7T9W1V3\nintent: REQUEST\nbody: |\n{body}sig: none\n[[END]]\n"
    );
    assert!(envelope.len() < 600, "{}", envelope.len());
    aiproto(h.path())
        .args(["convert", "--to", "hsp", "--max-message-bytes", "600"])
        .write_stdin(envelope.clone())
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "cannot be written as hsp: HSP-TOO-LARGE",
        ));
    // A Crosstalk envelope over the limit is refused when read, as JSON is.
    let out = aiproto(h.path())
        .args(["validate", "--format", "json", "--max-message-bytes", "300"])
        .write_stdin(envelope)
        .assert()
        .code(1);
    assert_eq!(
        json_lines(&out.get_output().stdout)[0]["errors"][0]["code"],
        "CT-TOO-LARGE"
    );
}

/// An archive larger than the pieces it is read in (2 MiB): every envelope
/// converted once, in order, a broken one in the middle named by its line
/// in the whole file, and `--strict` from stdin (spooled for its second
/// pass) writing exactly what the plain run writes.
#[test]
fn an_archive_larger_than_a_piece_converts_in_order() {
    let h = home();
    let count = 12_000;
    let broken_at = 7_000;
    let (archive, start) = big_archive(count, Some(broken_at), |e| {
        e.replace("intent: REQUEST", "intent: SHOUT")
    });
    let broken_line = start + 6; // the intent line
    assert!(archive.len() > 8 << 20, "{} bytes", archive.len());
    let path = h.path().join("archive.crosstalk");
    std::fs::write(&path, &archive).unwrap();
    let out = aiproto(h.path())
        .args(["convert", "--to", "hsp", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "archive.crosstalk:{}: message is invalid, not converted ({broken_line}:9: unknown intent `SHOUT`",
            broken_line - 6
        )),
        "{stderr}"
    );
    let ids: Vec<String> = json_lines(&out.stdout)
        .iter()
        .map(|m| m["message_id"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = (0..count)
        .filter(|i| *i != broken_at)
        .map(big_archive_id)
        .collect();
    assert_eq!(ids.len(), expected.len());
    assert!(ids == expected, "messages out of order or lost");

    let strict = aiproto(h.path())
        .args(["convert", "--to", "hsp", "--strict"])
        .write_stdin(archive.replace("intent: SHOUT", "intent: REQUEST"))
        .output()
        .unwrap();
    assert_eq!(strict.status.code(), Some(0));
    assert_eq!(json_lines(&strict.stdout).len(), count);
}

/// The documented answer path with ids Crosstalk cannot carry as they are
/// (a UUID v4, any string): the request converted to Crosstalk, answered
/// with `compose --reply-to`, converted back with `--answers`, correlates
/// to the id the requester sent, with its request_id and callback_address.
#[test]
fn an_answer_finds_its_request_whatever_the_id_became() {
    let h = home();
    let template: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(super::repo("examples/hsp/valid/0.1/task-request.json")).unwrap(),
    )
    .unwrap();
    for id in ["3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c", "msg-0042"] {
        let mut request = template.clone();
        request["message_id"] = id.into();
        request["payload"]["callback_address"] = "hsp/results/ai_alpha".into();
        let request_path = h.path().join("request.json");
        std::fs::write(&request_path, request.to_string()).unwrap();
        let envelope = aiproto(h.path())
            .args(["convert", "--to", "crosstalk"])
            .arg(&request_path)
            .assert()
            .code(0);
        let envelope_path = h.path().join("request.crosstalk");
        std::fs::write(&envelope_path, &envelope.get_output().stdout).unwrap();
        let reply = aiproto(h.path())
            .args(["compose", "--reply-to"])
            .arg(&envelope_path)
            .args(["--from", "did:hsp:ai_gamma", "--body", "Bonjour le monde"])
            .assert()
            .code(0);
        let reply = String::from_utf8_lossy(&reply.get_output().stdout).into_owned();
        for answers in [&request_path, &envelope_path] {
            let result = &answered(h.path(), answers, &reply);
            assert_eq!(result["correlation_id"], id, "{id} {}", answers.display());
            assert_eq!(result["payload"]["request_id"], "taskreq_uuid_abcde");
            assert_eq!(result["recipient_ai_id"], "hsp/results/ai_alpha");
        }
    }
}
