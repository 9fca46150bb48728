//! One reading path and one byte-keeping writing path, through the real
//! binary: a saved mail is read the same by `validate`, `compose
//! --reply-to`, `primer --reply-to` and `compose hsp --reply-to`; a JSON
//! message moved by `recv`, `relay` and `send --via file:` leaves as it came
//! (big integers, `0.90`, key order, spaces inside its line).

use base64::Engine;
use predicates::prelude::*;

use super::{REQUEST, aiproto, home};

/// [`REQUEST`] as a mail client saves it: quoted-printable (the arrow as
/// `=E2=86=92`), CRLF line ends, a soft line break inside the body.
fn request_mail() -> String {
    let body = REQUEST
        .replace('→', "=E2=86=92")
        .replace("  Please review.", "  Please re=\nview.")
        .replace('\n', "\r\n");
    format!(
        "From: Kalle <kalle@example.com>\r\nTo: relay@example.com\r\nSubject: review\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Transfer-Encoding: quoted-printable\r\n\r\n{body}"
    )
}

#[test]
fn a_saved_mail_is_read_alike_by_validate_compose_and_the_primer() {
    let h = home();
    let eml = h.path().join("request.eml");
    std::fs::write(&eml, request_mail()).unwrap();
    aiproto(h.path()).arg("validate").arg(&eml).assert().code(0);
    // The reply answers the envelope in the mail: CHATGPT writes back to CLAUDE.
    aiproto(h.path())
        .args(["compose", "--body", "Looks good."])
        .arg("--reply-to")
        .arg(&eml)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("[[CHATGPT→CLAUDE v1]]"))
        .stdout(predicate::str::contains(
            "parent: 01J9J3DBC4N7P2Q3R5S7T9W1V2",
        ));
    aiproto(h.path())
        .args(["primer", "--via", "-"])
        .arg("--reply-to")
        .arg(&eml)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("[[CHATGPT→CLAUDE v1]]"))
        .stdout(predicate::str::contains("Please review."));
    aiproto(h.path())
        .args(["id", "--reissue"])
        .arg(&eml)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("[[CLAUDE→CHATGPT v1]]"));
}

/// An HSP TaskRequest as one line of JSON.
const TASK: &str = r#"{"hsp_envelope_version":"0.1","message_id":"018f4a6e-8c1b-7d2a-9e3f-1a2b3c4d5e6f","sender_ai_id":"did:hsp:ai_alpha","recipient_ai_id":"did:hsp:ai_beta","timestamp_sent":"2024-07-05T14:00:00Z","message_type":"HSP::TaskRequest_v0.1","protocol_version":"0.1","communication_pattern":"request","payload":{"request_id":"req-1","requester_ai_id":"did:hsp:ai_alpha","capability_id_filter":"cap.translate","parameters":{"text":"hello"},"callback_address":"hsp/results/did:hsp:ai_alpha"}}"#;

#[test]
fn compose_hsp_answers_a_message_saved_as_a_base64_mail() {
    let h = home();
    let body = base64::engine::general_purpose::STANDARD.encode(TASK);
    let mail = format!(
        "From: a@example.com\r\nTo: b@example.com\r\nSubject: task\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n{body}\r\n"
    );
    let eml = h.path().join("task.eml");
    std::fs::write(&eml, mail).unwrap();
    aiproto(h.path())
        .args([
            "compose",
            "hsp",
            "--status",
            "success",
            "--result",
            r#"{"text":"hallo"}"#,
        ])
        .arg("--reply-to")
        .arg(&eml)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            r#""correlation_id": "018f4a6e-8c1b-7d2a-9e3f-1a2b3c4d5e6f""#,
        ))
        .stdout(predicate::str::contains("HSP::TaskResult_v0.1"));
}

/// Two HSP facts a Python agent wrote: spaces after its colons, keys in its
/// own order, a number no double holds and a confidence of `0.90`.
const FACTS: &str = concat!(
    r#"{"message_id": "018f4a6e-8c1b-7d2a-9e3f-000000000001", "hsp_envelope_version": "0.1", "sender_ai_id": "did:hsp:ai_alpha", "recipient_ai_id": "did:hsp:ai_beta", "timestamp_sent": "2024-07-05T14:00:00Z", "message_type": "HSP::Fact_v0.1", "protocol_version": "0.1", "communication_pattern": "publish", "x_count": 12345678901234567890123, "payload": {"id": "f1", "statement_type": "natural_language", "statement_nl": "caf\u00e9", "source_ai_id": "did:hsp:ai_alpha", "timestamp_created": "2024-07-05T14:00:00Z", "confidence_score": 0.90}}"#,
    "\n",
    r#"{"hsp_envelope_version":"0.1","message_id":"018f4a6e-8c1b-7d2a-9e3f-000000000002","sender_ai_id":"did:hsp:ai_alpha","recipient_ai_id":"did:hsp:ai_beta","timestamp_sent":"2024-07-05T14:00:00Z","message_type":"HSP::Fact_v0.1","protocol_version":"0.1","communication_pattern":"publish","payload":{"id":"f2","statement_type":"natural_language","statement_nl":"-0","source_ai_id":"did:hsp:ai_alpha","timestamp_created":"2024-07-05T14:00:00Z","confidence_score":1.50e-1}}"#,
    "\n",
);

#[test]
fn recv_relay_and_archives_write_json_messages_as_they_came() {
    let h = home();
    aiproto(h.path())
        .args(["recv", "--via", "-"])
        .write_stdin(FACTS)
        .assert()
        .code(0)
        .stdout(FACTS);
    aiproto(h.path())
        .args(["relay", "--from", "-", "--to", "-"])
        .write_stdin(FACTS)
        .assert()
        .code(0)
        .stdout(FACTS);
    let archive = h.path().join("facts.jsonl");
    for _ in 0..2 {
        aiproto(h.path())
            .args(["send", "--via"])
            .arg(format!("file:{}", archive.display()))
            .write_stdin(FACTS)
            .assert()
            .code(0);
    }
    assert_eq!(std::fs::read_to_string(&archive).unwrap(), FACTS);
    aiproto(h.path())
        .args(["send", "--via", "-"])
        .write_stdin(FACTS)
        .assert()
        .code(0)
        .stdout(FACTS);
    // `recv --format json` carries the same text in its record.
    let out = aiproto(h.path())
        .args(["recv", "--via", "-", "--format", "json"])
        .write_stdin(FACTS)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let texts: Vec<String> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["message"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(texts.concat(), FACTS);
}

/// The same id on other content, told apart by a digit a double cannot
/// hold: the archive refuses it instead of taking it for a repeat.
#[test]
fn an_archive_tells_numbers_apart_that_a_double_cannot() {
    let h = home();
    let archive = h.path().join("facts.jsonl");
    let first = FACTS.lines().next().unwrap().to_string() + "\n";
    let other = first.replace("12345678901234567890123", "12345678901234567890124");
    aiproto(h.path())
        .args(["send", "--via"])
        .arg(format!("file:{}", archive.display()))
        .write_stdin(first.clone())
        .assert()
        .code(0);
    aiproto(h.path())
        .args(["send", "--via"])
        .arg(format!("file:{}", archive.display()))
        .write_stdin(other)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("with different content"));
    assert_eq!(std::fs::read_to_string(&archive).unwrap(), first);
}

/// What a mail client with `format=flowed` (RFC 3676) makes of a text: a
/// line longer than 78 characters broken after a space (the space kept at
/// the end: a soft break), and a space stuffed before a line that begins
/// with one.
fn flowed(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut rest = line.to_string();
        while rest.chars().count() > 78 {
            let Some(at) = rest[..78].rfind(' ') else {
                break;
            };
            let (head, tail) = rest.split_at(at + 1);
            out.push_str(&stuffed(head));
            out.push_str("\r\n");
            rest = tail.to_string();
        }
        out.push_str(&stuffed(&rest));
        out.push_str("\r\n");
    }
    out
}

fn stuffed(line: &str) -> String {
    if line.starts_with([' ', '>']) || line.starts_with("From ") {
        format!(" {line}")
    } else {
        line.to_string()
    }
}

/// [`REQUEST`] signed by a new key `you@example.com` (an id holding `@` and
/// `.`, as the README's) that signs for CLAUDE, in the keystore at `home`.
fn signed_by_you(home: &std::path::Path) -> String {
    aiproto(home)
        .args([
            "keygen",
            "-q",
            "--id",
            "you@example.com",
            "--signs-for",
            "CLAUDE",
        ])
        .assert()
        .code(0);
    super::sign(home, "you@example.com", REQUEST)
}

/// A signed envelope mailed by a client that sends `format=flowed`: its
/// `sig:` line broken after `sig: ` (the key id holds `@` and `.`), its body
/// lines stuffed. Read as the sender wrote it, it verifies.
#[test]
fn a_signed_envelope_mailed_as_flowed_text_verifies() {
    let h = home();
    let signed = signed_by_you(h.path());
    assert!(
        signed
            .lines()
            .any(|l| l.starts_with("sig: ") && l.len() > 78)
    );
    let mail = format!(
        "From: you@example.com\r\nTo: relay@example.com\r\nSubject: review\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8; format=flowed\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{}",
        flowed(&signed)
    );
    assert!(mail.contains("\r\nsig: \r\n"), "{mail}");
    let eml = h.path().join("signed.eml");
    std::fs::write(&eml, mail).unwrap();
    aiproto(h.path()).arg("verify").arg(&eml).assert().code(0);
    aiproto(h.path())
        .args(["compose", "--body", "Thanks."])
        .arg("--reply-to")
        .arg(&eml)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("[[CHATGPT→CLAUDE v1]]"));
}

/// A signed envelope in a plain-text mail that a client hard-wrapped (no
/// `format=flowed`: Outlook, Gmail): the value moved whole to the line after
/// `sig:`, or broken at 76 columns, with a key id holding `@` and `.`. Read
/// back it verifies; the same mail with its body edited does not.
#[test]
fn a_signed_envelope_hard_wrapped_by_a_mail_client_verifies() {
    let h = home();
    let signed = signed_by_you(h.path());
    let sig_line = signed
        .lines()
        .find(|l| l.starts_with("sig: "))
        .unwrap()
        .to_string();
    let value = sig_line.strip_prefix("sig: ").unwrap();
    let moved = signed.replace(&sig_line, &format!("sig:\n{value}"));
    let (head, tail) = sig_line.split_at(76);
    let broken = signed.replace(&sig_line, &format!("{head}\n{tail}"));
    for (how, text) in [("moved", moved), ("broken", broken)] {
        let eml = h.path().join(format!("{how}.eml"));
        let mail = format!(
            "From: you@example.com\r\nTo: relay@example.com\r\nSubject: review\r\n\r\n{}",
            text.replace('\n', "\r\n")
        );
        std::fs::write(&eml, &mail).unwrap();
        aiproto(h.path())
            .arg("verify")
            .arg(&eml)
            .assert()
            .code(0)
            .stdout(predicate::str::contains("CT-REPAIR-WRAP").or(predicate::str::contains("ok")));
        std::fs::write(&eml, mail.replace("Please review.", "Please delete.")).unwrap();
        aiproto(h.path())
            .arg("verify")
            .arg(&eml)
            .assert()
            .code(1)
            .stdout(predicate::str::contains("SIG-BAD"));
    }
}
