//! `aiproto relay`: stdin and followed files to files, conversion on the
//! way, `meta: audit` hops, signed and invalid messages. (MQTT → file is in
//! `mqtt.rs`, beside the broker helpers.)

use std::time::Duration;

use predicates::prelude::*;

use super::{REQUEST, aiproto, home, json_lines, spawn};

#[test]
fn each_relay_adds_a_numbered_hop_with_the_digest_of_what_it_received() {
    let h = home();
    let first = h.path().join("first.crosstalk");
    let second = h.path().join("second.crosstalk");
    aiproto(h.path())
        .args(["relay", "--from", "-", "--relay-id", "relay-a", "--to"])
        .arg(format!("file:{}", first.display()))
        .write_stdin(REQUEST)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("relayed 1 message(s)"));
    let once = std::fs::read_to_string(&first).unwrap();
    let digest = {
        use sha2::Digest;
        let canonical = aiproto(h.path())
            .args(["convert", "--canonical"])
            .write_stdin(REQUEST)
            .assert()
            .get_output()
            .stdout
            .clone();
        let hash = sha2::Sha256::digest(&canonical);
        hash.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    assert!(once.contains("\nmeta: audit\nHop-1: relay-a "), "{once}");
    assert!(once.contains(&format!(" sha256:{digest}\n")), "{once}");
    aiproto(h.path())
        .args(["validate", "--strict"])
        .arg(&first)
        .assert()
        .code(0);
    // The next relay adds the next hop.
    aiproto(h.path())
        .args(["relay", "--from", "-", "--relay-id", "relay-b", "--to"])
        .arg(format!("file:{}", second.display()))
        .write_stdin(once)
        .assert()
        .code(0);
    let twice = std::fs::read_to_string(&second).unwrap();
    assert!(
        twice.contains("Hop-1: relay-a ") && twice.contains("\nHop-2: relay-b "),
        "{twice}"
    );
}

#[test]
fn a_relay_converts_on_the_way() {
    let h = home();
    let out = aiproto(h.path())
        .args(["relay", "--from", "-", "--to", "-", "--convert-to", "hsp"])
        .write_stdin(REQUEST)
        .assert()
        .code(0);
    let hsp = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(hsp["message_type"], "HSP::TaskRequest_v1.0");
    aiproto(h.path())
        .args(["validate", "--strict", "-"])
        .write_stdin(hsp.to_string())
        .assert()
        .code(0);
}

#[test]
fn signed_envelopes_pass_unchanged_and_invalid_ones_not_at_all() {
    let h = home();
    let signed = REQUEST.replace("sig: none", "sig: ed25519:pkid=alice;sig=AAAA");
    aiproto(h.path())
        .args(["relay", "--from", "-", "--to", "-"])
        .write_stdin(signed.clone())
        .assert()
        .code(0)
        .stdout(signed)
        .stderr(predicate::str::contains(
            "no audit hop added: the envelope is signed",
        ));
    let invalid = REQUEST.replace("intent: REQUEST\n", "");
    aiproto(h.path())
        .args(["relay", "--from", "-", "--to", "-"])
        .write_stdin(invalid)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("not relayed"));
}

/// A message that comes again under its id with other content is relayed
/// (it may be another sender's) and said, as `recv` says it; the same
/// message twice is relayed once.
#[test]
fn other_content_under_a_seen_id_is_relayed_and_said() {
    let h = home();
    let edited = REQUEST.replace("Please review", "Please approve");
    assert_ne!(edited, REQUEST, "the fixture's body changed");
    let out = aiproto(h.path())
        .args(["relay", "--from", "-", "--to", "-"])
        .write_stdin(format!("{REQUEST}\n{REQUEST}\n{edited}"))
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "came before with other content; this one is handed on too",
        ))
        .stderr(predicate::str::contains("relayed 2 message(s)"));
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert_eq!(stdout.matches("[[END]]").count(), 2, "{stdout}");
    assert!(stdout.contains("Please approve"), "{stdout}");
}

#[test]
fn a_followed_file_is_relayed_as_it_grows() {
    let h = home();
    let inbox = h.path().join("inbox.crosstalk");
    let outbox = h.path().join("outbox.crosstalk");
    let relay = spawn(h.path(), &[])
        .args(["relay", "--count", "2", "--timeout", "20", "--from"])
        .arg(format!("file:{}", inbox.display()))
        .arg("--to")
        .arg(format!("file:{}", outbox.display()))
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(&inbox, REQUEST).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let reply = REQUEST.replace("01J9J3DBC4N7P2Q3R5S7T9W1V2", "01J9J3DK0000000000000000NK");
    std::fs::write(&inbox, format!("{REQUEST}\n{reply}")).unwrap();
    let out = relay.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let relayed = std::fs::read_to_string(&outbox).unwrap();
    assert_eq!(relayed.matches("[[END]]").count(), 2, "{relayed}");
    assert_eq!(
        relayed.matches("Hop-1: aiproto-relay ").count(),
        2,
        "{relayed}"
    );
}

/// A password in a URI is never shown: not in relay's closing line, not in
/// the error about a URI that does not parse.
#[test]
fn passwords_in_uris_never_show() {
    let h = home();
    let (_broker, port) = super::embedded_broker(h.path());
    let out = aiproto(h.path())
        .args(["relay", "--from", "-", "--to"])
        .arg(format!("mqtt://bob:s3cret-pw@127.0.0.1:{port}/relay/x"))
        .write_stdin(REQUEST)
        .timeout(Duration::from_secs(30))
        .assert()
        .success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("relayed 1 message(s)") && err.contains("bob:***@"),
        "{err}"
    );
    assert!(!err.contains("s3cret-pw"), "{err}");
    for args in [
        &[
            "recv",
            "--via",
            "mqtt://bob:s3cret-pw@127.0.0.1:notaport/x",
            "--timeout",
            "1",
        ][..],
        &[
            "send",
            "--via",
            "mqtt://bob:s3cret-pw@127.0.0.1:notaport/x",
            "-",
        ][..],
    ] {
        let out = aiproto(h.path())
            .args(args)
            .write_stdin(REQUEST)
            .timeout(Duration::from_secs(30))
            .assert()
            .failure();
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(
            err.contains("notaport") && !err.contains("s3cret-pw"),
            "{err}"
        );
    }
}
