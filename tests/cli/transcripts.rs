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

/// Every damaged paste in `tests/fixtures/chat-damage` reports exactly the
/// findings its `.expected` file lists, and `--strict` refuses it.
#[test]
fn chat_damage_fixtures_report_what_was_repaired() {
    let dir = repo("tests/fixtures/chat-damage");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "expected") {
            continue;
        }
        let expected_path = path.with_extension("expected");
        let Ok(expected) = std::fs::read_to_string(&expected_path) else {
            continue;
        };
        let mut expected: Vec<&str> = expected.lines().filter(|l| !l.is_empty()).collect();
        expected.sort_unstable();
        let h = home();
        let out = aiproto(h.path())
            .args(["validate", "--format", "json"])
            .arg(&path)
            .assert();
        let mut found: Vec<String> = json_lines(&out.get_output().stdout)
            .iter()
            .flat_map(|r| {
                let mut all = r["errors"].as_array().cloned().unwrap_or_default();
                all.extend(r["warnings"].as_array().cloned().unwrap_or_default());
                all
            })
            .map(|d| {
                format!(
                    "{}:{} {}",
                    d["line"],
                    d["column"],
                    d["code"].as_str().unwrap()
                )
            })
            .collect();
        found.sort_unstable();
        assert_eq!(found, expected, "{}", path.display());
        aiproto(h.path())
            .args(["validate", "-q", "--strict"])
            .arg(&path)
            .assert()
            .code(1);
        checked += 1;
    }
    assert!(checked >= 9, "only {checked} fixtures found");
}

#[test]
fn a_repaired_envelope_is_written_clean() {
    let h = home();
    let out = aiproto(h.path())
        .args(["convert", "--canonical"])
        .arg(repo("tests/fixtures/chat-damage/nbsp-everywhere.txt"))
        .assert()
        .code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.starts_with("[[CLAUDE→HUMAN v1]]\n"), "{text}");
    assert!(!text.contains('\u{a0}'));
    aiproto(h.path())
        .args(["validate", "-q", "--strict", "-"])
        .write_stdin(text)
        .assert()
        .code(0);
}

#[test]
fn a_cut_off_reply_never_passes_a_pipeline() {
    let h = home();
    let cut = std::fs::read_to_string(repo("tests/fixtures/chat-damage/cut-off.txt")).unwrap();
    // recv does not print it as a message…
    let out = aiproto(h.path())
        .args(["recv", "--via", "-"])
        .write_stdin(cut.clone())
        .assert()
        .code(1)
        .stderr(predicates::str::contains("CT-END-MISSING"))
        .stderr(predicates::str::contains("cut off"));
    assert!(out.get_output().stdout.is_empty());
    // …says so in JSON…
    let out = aiproto(h.path())
        .args(["recv", "--via", "-", "--format", "json"])
        .write_stdin(cut.clone())
        .assert()
        .code(1);
    let report = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(report["complete"], false);
    assert!(!report["message"].as_str().unwrap().contains("[[END]]"));
    // …and send, even forced, refuses it.
    let archive = h.path().join("a.crosstalk");
    aiproto(h.path())
        .args(["send", "--force", "--via"])
        .arg(format!("file:{}", archive.display()))
        .write_stdin(cut)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("cut off"));
    assert!(!archive.exists());
}

/// A reply the assistant split into two code blocks, and one whose body
/// shows an example envelope once the chat took the body's indentation
/// off: `recv | send` archives the one real envelope, whole — never the
/// first part alone, never the example.
#[test]
fn split_replies_and_examples_in_bodies_archive_the_real_envelope() {
    for (fixture, last_words) in [
        ("reply-in-parts.md", "is it stable across deploys?"),
        (
            "example-in-body-unindented.md",
            "Fill in the body and send it back.",
        ),
    ] {
        let h = home();
        let paste = std::fs::read_to_string(repo(&format!("tests/fixtures/chat-damage/{fixture}")))
            .unwrap();
        let received = aiproto(h.path())
            .args(["recv", "--via", "-"])
            .write_stdin(paste)
            .assert()
            .code(0);
        let envelope = String::from_utf8_lossy(&received.get_output().stdout).into_owned();
        let archive = h.path().join("project.crosstalk");
        aiproto(h.path())
            .args(["send", "--via", &format!("file:{}", archive.display())])
            .write_stdin(envelope)
            .assert()
            .code(0);
        let kept = std::fs::read_to_string(&archive).unwrap();
        assert!(
            kept.starts_with("[[CHATGPT→CLAUDE v1]]\n"),
            "{fixture}: {kept}"
        );
        assert!(
            kept.contains(&format!("  {last_words}\n")),
            "{fixture}: {kept}"
        );
        let out = aiproto(h.path())
            .args(["validate", "--strict", "--format", "json"])
            .arg(&archive)
            .assert()
            .code(0);
        assert_eq!(
            json_lines(&out.get_output().stdout).len(),
            1,
            "{fixture}: {kept}"
        );
    }
}

/// The upstream's proposed `hash:` line: written by `compose --hash`,
/// checked on every read — the same envelope quoted or with CRLF line ends
/// passes, one cut or edited fails naming both hashes; a hash computed by
/// another implementation over a layout that is not aiproto's canonical one
/// (Python's zlib over the text as written) passes too.
#[test]
fn a_hash_line_catches_a_cut_or_edited_paste() {
    let h = home();
    let out = aiproto(h.path())
        .args([
            "compose", "--from", "CLAUDE", "--to", "CHATGPT", "--intent", "REQUEST",
        ])
        .args([
            "--body",
            "Please review the pagination patch.\nThe second line matters.",
            "--hash",
        ])
        .assert()
        .code(0);
    let envelope = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(envelope.contains("\nhash: "), "{envelope}");
    let quoted: String = envelope
        .lines()
        .map(|l| {
            if l.is_empty() {
                ">\r\n".to_string()
            } else {
                format!("> {l}\r\n")
            }
        })
        .collect();
    for intact in [envelope.clone(), quoted] {
        aiproto(h.path())
            .args(["validate", "--strict", "-"])
            .write_stdin(intact)
            .assert()
            .code(0);
    }
    let cut = envelope.replace("  The second line matters.\n", "");
    let edited = envelope.replace("pagination", "paging");
    for damaged in [cut, edited] {
        aiproto(h.path())
            .args(["validate", "-"])
            .write_stdin(damaged)
            .assert()
            .code(1)
            .stdout(predicates::str::contains("CT-HASH-MISMATCH"));
    }
    // Another implementation's layout: the proposed fields before the
    // ids, the hash over the text as written.
    let written = "[[CLAUDE→CHATGPT v1]]\nVERSION: 1.1\nNONCE: q1w2e3\nmessage: 01J9J3DBC4N7P2Q3R5S7T9W1V2\nintent: REQUEST\nbody: |\n  Please review.\nsig: none";
    let crc = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, zlib; print('%08x' % zlib.crc32(sys.stdin.buffer.read()))",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn();
    let Ok(mut crc) = crc else {
        eprintln!("SKIPPED the raw-layout hash: no python3");
        return;
    };
    std::io::Write::write_all(&mut crc.stdin.take().unwrap(), written.as_bytes()).unwrap();
    let crc = String::from_utf8(crc.wait_with_output().unwrap().stdout).unwrap();
    let theirs = format!("{written}\nhash: {}\n[[END]]\n", crc.trim());
    let out = aiproto(h.path())
        .args(["validate", "--format", "json", "-"])
        .write_stdin(theirs.clone())
        .assert()
        .code(0);
    let record = &json_lines(&out.get_output().stdout)[0];
    let warnings: Vec<&str> = record["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        warnings.iter().filter(|c| **c == "CT-RC1-FIELD").count(),
        2,
        "{warnings:?}"
    );
    // The proposed fields travel through a conversion and back.
    let hsp = aiproto(h.path())
        .args(["convert", "--to", "hsp"])
        .write_stdin(theirs)
        .assert()
        .code(0);
    let back = aiproto(h.path())
        .args(["convert", "--to", "crosstalk"])
        .write_stdin(hsp.get_output().stdout.clone())
        .assert()
        .code(0);
    let back = String::from_utf8_lossy(&back.get_output().stdout).into_owned();
    assert!(back.contains("\nVERSION: 1.1\nNONCE: q1w2e3\n"), "{back}");
}

/// A 1.1-rc1 `DIGEST` (the body's SHA-256, `sha-256=:BASE64:`) is checked:
/// the body as written passes, a changed body is named (a warning: the
/// roadmap does not say over which bytes).
#[test]
fn a_digest_field_is_checked_against_the_body() {
    use base64::Engine;
    use predicates::prelude::PredicateBooleanExt;
    use sha2::Digest;
    let h = home();
    let digest = base64::engine::general_purpose::STANDARD
        .encode(sha2::Sha256::digest(b"Please review.\nThe second line."));
    let envelope = format!(
        "[[CLAUDE→CHATGPT v1]]\nmessage: 01J9J3DBC4N7P2Q3R5S7T9W1V2\nintent: REQUEST\nDIGEST: sha-256=:{digest}:\nbody: |\n  Please review.\n  The second line.\nsig: none\n[[END]]\n"
    );
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(envelope.clone())
        .assert()
        .code(0)
        .stdout(predicates::str::contains("CT-DIGEST-MISMATCH").not());
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(envelope.replace("second", "third"))
        .assert()
        .code(0)
        .stdout(predicates::str::contains("CT-DIGEST-MISMATCH"));
}

/// Signed envelopes go through the damage a repair undoes and still
/// verify (`sig:` and `[[END]]` joined, escaped brackets, a tab in the
/// header, Word bullets); an edit of the body after that does not.
#[test]
fn repaired_signed_envelopes_verify_and_edited_ones_do_not() {
    let h = home();
    aiproto(h.path())
        .args(["keygen", "-q", "--id", "CLAUDE"])
        .assert()
        .code(0);
    let signed = crate::sign(h.path(), "CLAUDE", REQUEST);
    let joined = signed.replace("\n[[END]]", " [[END]]");
    let escaped = signed
        .replace("[[CLAUDE→CHATGPT v1]]", "\\[\\[CLAUDE→CHATGPT v1\\]\\]")
        .replace("[[END]]", "\\[\\[END\\]\\]");
    let tab = signed.replace("CHATGPT v1]]", "CHATGPT\tv1]]");
    let bullets: String = signed.lines().map(|l| format!("•\t{l}\n")).collect();
    for damaged in [joined, escaped, tab, bullets] {
        aiproto(h.path())
            .arg("verify")
            .write_stdin(damaged.clone())
            .assert()
            .code(0)
            .stdout(predicates::str::contains("ok signed by CLAUDE"));
        let edited = damaged.replace("Please review.", "Please delete.");
        aiproto(h.path())
            .arg("verify")
            .write_stdin(edited)
            .assert()
            .code(1);
    }
}
