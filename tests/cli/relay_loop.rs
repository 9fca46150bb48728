//! The relay loop as a person lives it: answering a pasted transcript,
//! polls, the archive, and signing a transcript in place.

use predicates::prelude::*;

use super::{REQUEST, aiproto, home, json_lines};

const POLL: &str = "[[HUMAN→CLAUDE,CHATGPT,GEMINI v1]]
session: 2025-10-09T16Z abc123
thread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K
message: 01J9J3DBC4N7P2Q3R5S7T9V1V2
intent: POLL

meta: poll
Options: Yes | No

body: |
  Ship on Friday?
sig: none
[[END]]
";

fn answer(from: &str, id: &str, text: &str) -> String {
    format!(
        "[[{from}→HUMAN v1]]\nsession: 2025-10-09T16Z abc123\nthread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K\nparent: 01J9J3DBC4N7P2Q3R5S7T9V1V2\nmessage: {id}\nintent: RESPOND\nbody: |\n  {text}\nsig: none\n[[END]]\n"
    )
}

#[test]
fn a_reply_from_stdin_answers_the_last_envelope_of_a_transcript() {
    let h = home();
    let transcript = format!(
        "Earlier:\n{REQUEST}\nAnd now the poll:\n\n**{}",
        POLL.replacen("]]\n", "]]**\n", 1)
    );
    let out = aiproto(h.path())
        .args([
            "compose",
            "--reply-to",
            "-",
            "--from",
            "GEMINI",
            "--body",
            "Yes. Green.",
        ])
        .write_stdin(transcript.clone())
        .assert()
        .code(0)
        .stderr(predicate::str::contains("answering envelope 2 of 2"));
    let reply = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(reply.starts_with("[[GEMINI→HUMAN v1]]"), "{reply}");
    assert!(reply.contains("parent: 01J9J3DBC4N7P2Q3R5S7T9V1V2"));
    // --pick 1 answers the first one instead.
    let out = aiproto(h.path())
        .args([
            "compose",
            "--reply-to",
            "-",
            "--pick",
            "1",
            "--body",
            "Done.",
        ])
        .write_stdin(transcript.clone())
        .assert()
        .code(0);
    let reply = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(reply.starts_with("[[CHATGPT→CLAUDE v1]]"), "{reply}");
    // A reply to the POLL without --from: which receiver answers?
    aiproto(h.path())
        .args(["compose", "--reply-to", "-", "--body", "Yes"])
        .write_stdin(transcript)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("CLAUDE | CHATGPT | GEMINI"));
}

#[test]
fn a_sender_that_lists_several_names_is_invalid() {
    let h = home();
    let bad = answer("CLAUDE,CHATGPT,GEMINI", "01J9J3DK0000000000000000NK", "Yes");
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(bad)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("CT-SENDER-LIST"));
}

#[test]
fn poll_answers_are_tallied_by_option_and_the_rest_listed_apart() {
    let h = home();
    let text = [
        POLL.to_string(),
        answer(
            "CLAUDE",
            "01J9J3DK0000000000000000N1",
            "Yes. The suite is green.",
        ),
        answer("CHATGPT", "01J9J3DK0000000000000000N2", "yes!"),
        answer("MALLORY", "01J9J3DK0000000000000000N3", "No"),
        answer("GEMINI", "01J9J3DK0000000000000000N4", "Perhaps next week"),
    ]
    .join("\n");
    let out = aiproto(h.path())
        .args(["poll", "collate", "--format", "json", "-"])
        .write_stdin(text)
        .assert()
        .code(0);
    let c = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(c["answers"][0]["answer"], "Yes");
    assert_eq!(c["answers"][0]["count"], 2);
    assert_eq!(c["answers"].as_array().unwrap().len(), 1);
    let apart: Vec<(String, String)> = c["not_counted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["respondent"].as_str().unwrap().into(),
                n["why"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        apart,
        vec![
            ("MALLORY".into(), "not-asked".into()),
            ("GEMINI".into(), "no-option".into())
        ]
    );
}

#[test]
fn the_archive_holds_each_message_once() {
    let h = home();
    let archive = h.path().join("project.crosstalk");
    let via = format!("file:{}", archive.display());
    for _ in 0..2 {
        aiproto(h.path())
            .args(["send", "--via", &via])
            .write_stdin(REQUEST)
            .assert()
            .code(0);
    }
    let text = std::fs::read_to_string(&archive).unwrap();
    assert_eq!(text.matches("[[END]]").count(), 1);
    // The same id with other content: refused, nothing written.
    aiproto(h.path())
        .args(["send", "--via", &via])
        .write_stdin(REQUEST.replace("Please review.", "Please delete everything."))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("different content"));
    assert_eq!(std::fs::read_to_string(&archive).unwrap(), text);
    // thread reads an identical copy (archived by hand) as one message, with a warning.
    std::fs::write(&archive, format!("{text}\n{REQUEST}")).unwrap();
    aiproto(h.path())
        .args(["thread"])
        .arg(&archive)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("is a copy of the one at"));
}

#[test]
fn sign_in_place_keeps_the_transcript_around_the_envelopes() {
    let h = home();
    aiproto(h.path())
        .args(["keygen", "-q", "--id", "alice", "--signs-for", "CLAUDE"])
        .assert()
        .code(0);
    let transcript = format!(
        "Hi! Here is what CLAUDE said:\r\n\r\n> {}\r\nThanks, bye.\r\n",
        REQUEST.trim_end().replace('\n', "\r\n> ")
    );
    let path = h.path().join("chat.md");
    std::fs::write(&path, &transcript).unwrap();
    aiproto(h.path())
        .args(["sign", "-i", "--key", "alice"])
        .arg(&path)
        .assert()
        .code(0);
    let signed = std::fs::read_to_string(&path).unwrap();
    assert!(
        signed.starts_with("Hi! Here is what CLAUDE said:\r\n\r\n> [[CLAUDE→CHATGPT v1]]\r\n"),
        "{signed}"
    );
    assert!(
        signed.ends_with("> [[END]]\r\nThanks, bye.\r\n"),
        "{signed}"
    );
    assert!(signed.contains("> sig: ed25519:"), "{signed}");
    aiproto(h.path())
        .args(["verify"])
        .arg(&path)
        .assert()
        .code(0);
}

/// An assistant's second message reused the id of its first: the archive
/// refuses it and says what to do, `id --reissue` gives it a fresh id
/// (thread and parent kept), and then it is archived.
#[test]
fn a_reused_id_is_one_command_from_archivable() {
    let h = home();
    let archive = h.path().join("chat.crosstalk");
    let via = format!("file:{}", archive.display());
    aiproto(h.path())
        .args(["send", "--via", &via])
        .write_stdin(REQUEST)
        .assert()
        .code(0);
    let second = REQUEST.replace("Please review.", "One more thing.");
    aiproto(h.path())
        .args(["send", "--via", &via])
        .write_stdin(second.clone())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("aiproto id --reissue"));
    let out = aiproto(h.path())
        .args(["id", "--reissue", "-"])
        .write_stdin(second)
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "message 01J9J3DBC4N7P2Q3R5S7T9W1V2 is now ",
        ));
    let fresh = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        !fresh.contains("message: 01J9J3DBC4N7P2Q3R5S7T9W1V2"),
        "{fresh}"
    );
    assert!(
        fresh.contains("thread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K"),
        "{fresh}"
    );
    aiproto(h.path())
        .args(["send", "--via", &via])
        .write_stdin(fresh)
        .assert()
        .code(0);
    let kept = std::fs::read_to_string(&archive).unwrap();
    assert_eq!(kept.matches("[[END]]").count(), 2);
    // A signed envelope is not given a new id behind its signature's back.
    let signed = REQUEST.replace("sig: none", "sig: ed25519:pkid=k;sig=AAAA");
    aiproto(h.path())
        .args(["id", "--reissue", "-"])
        .write_stdin(signed)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("sign it again"));
}
