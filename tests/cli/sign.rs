//! `keygen`, `keys`, `sign`, `verify`: signatures that survive copy-paste and
//! catch any change, with trust on first use and pinned keys.

use predicates::prelude::*;

use super::{REQUEST, aiproto, home, installed, json_lines, repo, sign};

/// A key that signs for its own id and for the senders of the messages
/// these tests sign: CLAUDE (the REQUEST envelope) and any HSP DID.
fn keygen(h: &std::path::Path, id: &str, algorithm: &str) {
    aiproto(h)
        .args(["keygen", "-q", "--id", id, "--algorithm", algorithm])
        .args([
            "--signs-for",
            id,
            "--signs-for",
            "CLAUDE",
            "--signs-for",
            "did:hsp:*",
        ])
        .assert()
        .code(0);
}

#[test]
fn sign_then_verify_for_each_protocol_and_algorithm() {
    let h = home();
    let hsp = std::fs::read_to_string(repo("examples/hsp/valid/1.0/task-request.json")).unwrap();
    let csdl = std::fs::read_to_string(repo("examples/csdl/valid/tool_expanded.json")).unwrap();
    for algorithm in ["ed25519", "p256"] {
        let id = format!("{algorithm}@example.com");
        keygen(h.path(), &id, algorithm);
        for text in [REQUEST, hsp.as_str(), csdl.as_str()] {
            let signed = sign(h.path(), &id, text);
            aiproto(h.path())
                .arg("verify")
                .write_stdin(signed.clone())
                .assert()
                .code(0)
                .stdout(predicate::str::contains(format!("ok signed by {id}")));
            // The signed message is still a valid message of its protocol.
            aiproto(h.path())
                .args(["validate", "--strict"])
                .write_stdin(signed)
                .assert()
                .code(0);
        }
    }
}

#[test]
fn copy_paste_damage_still_verifies() {
    let h = home();
    keygen(h.path(), "alice", "ed25519");
    let signed = sign(h.path(), "alice", REQUEST);
    let crlf_and_trailing = signed.replace('\n', "  \r\n");
    let quoted: String = signed.lines().map(|l| format!("> {l}\n")).collect();
    let fenced = format!("Here:\n```\n{signed}```\nbye\n");
    let tabbed = signed.replace("  Please review.", "\tPlease review.");
    for damaged in [crlf_and_trailing, quoted, fenced, tabbed] {
        aiproto(h.path())
            .arg("verify")
            .write_stdin(damaged.clone())
            .assert()
            .code(0);
    }
}

#[test]
fn a_change_to_any_value_breaks_the_signature() {
    use aiproto::protocols::crosstalk::parse_all;
    use aiproto::sign::claim::{crosstalk_claim, crosstalk_input};
    use aiproto::sign::key::{Algorithm, SigningKey};
    use aiproto::sign::trust::{Trust, verify};
    let key = SigningKey::generate(Algorithm::Ed25519).unwrap();
    let mut env = parse_all(REQUEST).remove(0).envelope;
    aiproto::sign::claim::sign_crosstalk(&mut env, &key, "alice", false);
    let signed = aiproto::protocols::crosstalk::render(&env);
    let trust = Trust::Key(key.public_key());
    let mut checked = 0;
    for (n, line) in signed.lines().enumerate() {
        if line.starts_with("sig:") || line.starts_with("[[END") {
            continue;
        }
        let value_start = line.find(": ").map_or(2, |i| i + 2);
        for (i, c) in line.char_indices().filter(|(i, _)| *i >= value_start) {
            let replacement = if c == 'x' { 'y' } else { 'x' };
            let mut lines: Vec<String> = signed.lines().map(str::to_string).collect();
            lines[n].replace_range(i..i + c.len_utf8(), &replacement.to_string());
            let changed = lines.join("\n") + "\n";
            let Some(parsed) = parse_all(&changed).into_iter().next() else {
                continue;
            };
            let claim = crosstalk_claim(&parsed.envelope).unwrap();
            assert!(
                verify(&claim, &crosstalk_input(&parsed.envelope), &trust, None).is_err(),
                "line {n} col {i}: {changed}"
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn a_change_to_any_hsp_value_breaks_the_signature() {
    let h = home();
    keygen(h.path(), "bob", "p256");
    let text = std::fs::read_to_string(repo("examples/hsp/valid/0.1/task-request.json")).unwrap();
    let signed: serde_json::Value = serde_json::from_str(&sign(h.path(), "bob", &text)).unwrap();
    let pinned = aiproto(h.path())
        .args(["keys", "export", "bob", "--encoding", "pem"])
        .assert()
        .code(0);
    let pem = h.path().join("bob.pem");
    std::fs::write(&pem, &pinned.get_output().stdout).unwrap();
    let mut changes = Vec::new();
    for field in [
        "message_id",
        "sender_ai_id",
        "timestamp_sent",
        "message_type",
    ] {
        let mut v = signed.clone();
        let s = v[field].as_str().unwrap().to_string();
        v[field] = format!("{}X", &s[..s.len() - 1]).into();
        changes.push(v);
    }
    let mut v = signed.clone();
    v["payload"]["parameters"]["text_to_translate"] = "Hello World".into();
    changes.push(v);
    let mut v = signed.clone();
    v["payload"]["priority"] = 6.into();
    changes.push(v);
    // A change either makes the message invalid (a malformed id: it is
    // refused before its signature is looked at) or breaks the signature.
    for changed in changes {
        aiproto(h.path())
            .args(["verify", "--pubkey"])
            .arg(&pem)
            .write_stdin(changed.to_string())
            .assert()
            .code(1)
            .stdout(
                predicate::str::contains("SIG-BAD")
                    .or(predicate::str::contains("the message is invalid")),
            );
    }
    // Key order and spacing are not part of what is signed (JCS).
    let compact = serde_json::to_string(&signed).unwrap();
    aiproto(h.path())
        .args(["verify", "--pubkey"])
        .arg(&pem)
        .write_stdin(compact)
        .assert()
        .code(0);
}

#[test]
fn trust_on_first_use_pins_and_a_changed_key_fails_loudly() {
    let signer = home();
    let receiver = home();
    keygen(signer.path(), "alice", "ed25519");
    let signed = sign(signer.path(), "alice", REQUEST);
    aiproto(receiver.path())
        .arg("verify")
        .write_stdin(signed.clone())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("SIG-UNTRUSTED"));
    aiproto(receiver.path())
        .args(["verify", "--tofu"])
        .write_stdin(signed.clone())
        .assert()
        .code(0)
        .stdout(predicate::str::contains("pinned on first use"));
    aiproto(receiver.path())
        .arg("verify")
        .write_stdin(signed)
        .assert()
        .code(0);
    // Mallory signs as alice with her own key.
    let mallory = home();
    keygen(mallory.path(), "alice", "ed25519");
    let forged = sign(mallory.path(), "alice", REQUEST);
    aiproto(receiver.path())
        .args(["verify", "--tofu", "--format", "json"])
        .write_stdin(forged)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("\"code\":\"SIG-KEY-CHANGED\""));
    aiproto(receiver.path())
        .args(["keys", "list"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("pinned"));
}

#[test]
fn trusted_keys_files_and_unsigned_or_malformed_messages() {
    let h = home();
    keygen(h.path(), "alice", "ed25519");
    let signed = sign(h.path(), "alice", REQUEST);
    let out = aiproto(h.path())
        .args(["keys", "export", "alice"])
        .assert()
        .code(0);
    let list = h.path().join("trusted.txt");
    std::fs::write(&list, &out.get_output().stdout).unwrap();
    let ci = home();
    aiproto(ci.path())
        .args(["verify", "--trusted-keys"])
        .arg(&list)
        .write_stdin(signed.clone())
        .assert()
        .code(0);
    assert!(
        !ci.path().join("known_keys").exists(),
        "a trusted-keys run pins nothing"
    );
    let out = aiproto(h.path())
        .args(["verify", "--format", "json"])
        .write_stdin(REQUEST)
        .assert()
        .code(1);
    assert_eq!(
        json_lines(&out.get_output().stdout)[0]["code"],
        "SIG-UNSIGNED"
    );
    let truncated = signed.replacen(";pk=", "==;pk=", 1);
    let out = aiproto(h.path())
        .args(["verify", "--format", "json"])
        .write_stdin(truncated)
        .assert()
        .code(1);
    // The malformed sig: line is a validation error, reported as such.
    assert_eq!(
        json_lines(&out.get_output().stdout)[0]["code"],
        "CT-SIG-MALFORMED"
    );
}

#[test]
fn keygen_keeps_private_keys_private_and_never_overwrites() {
    let h = home();
    keygen(h.path(), "alice", "ed25519");
    aiproto(h.path())
        .args(["keygen", "--id", "alice"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("keygen --rotate alice"));
    aiproto(h.path())
        .args(["keygen", "-q", "--id", "alice", "--force"])
        .assert()
        .code(0);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(h.path().join("keys/alice.key"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
    }
    aiproto(h.path())
        .args(["sign", "--key", "nobody"])
        .write_stdin(REQUEST)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no key `nobody`"));
}

#[test]
fn sign_in_place() {
    let h = home();
    keygen(h.path(), "alice", "ed25519");
    let file = h.path().join("m.crosstalk");
    std::fs::write(&file, REQUEST).unwrap();
    aiproto(h.path())
        .args(["sign", "-q", "-i", "--key", "alice"])
        .arg(&file)
        .assert()
        .code(0);
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("sig: ed25519:pkid=alice;sig=")
    );
    aiproto(h.path()).arg("verify").arg(&file).assert().code(0);
}

/// The upstream appendix's golden vectors: envelopes built from each signed
/// payload verify with its public key, also after CRLF, NFD and code-fence
/// damage, and fail after any change to a value.
#[test]
fn the_golden_jws_vectors_verify_and_survive_paste_damage() {
    use unicode_normalization::UnicodeNormalization;
    let h = home();
    let dir = repo("tests/fixtures/crosstalk-golden");
    let pem = dir.join("public.pem");
    let verify = |text: String| {
        aiproto(h.path())
            .args(["verify", "--pubkey"])
            .arg(&pem)
            .write_stdin(text)
            .assert()
    };
    for n in 1..=3 {
        let payload = std::fs::read_to_string(dir.join(format!("vector{n}.payload.txt"))).unwrap();
        let jws = std::fs::read_to_string(dir.join(format!("vector{n}.jws"))).unwrap();
        let envelope = format!("{payload}sig: {}\n[[END]]\n", jws.trim());
        verify(envelope.clone())
            .code(0)
            .stdout(predicate::str::contains("ok signed by"));
        verify(envelope.replace('\n', "\r\n")).code(0);
        verify(envelope.nfd().collect()).code(0);
        verify(format!("Relayed:\n```\n{envelope}```\n")).code(0);
        for (from, to) in [
            ("kalle", "kallE"),
            ("REQUEST", "RESPOND"),
            ("session: 2025", "session: 2026"),
        ] {
            let changed = envelope.replacen(from, to, 1);
            if changed != envelope {
                verify(changed)
                    .code(1)
                    .stdout(predicate::str::contains("SIG-BAD"));
            }
        }
    }
    // Without --pubkey there is no key to check against: the JWS names none.
    let payload = std::fs::read_to_string(dir.join("vector1.payload.txt")).unwrap();
    let jws = std::fs::read_to_string(dir.join("vector1.jws")).unwrap();
    aiproto(h.path())
        .arg("verify")
        .write_stdin(format!("{payload}sig: {}\n[[END]]\n", jws.trim()))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("--pubkey"));
}

#[test]
fn jws_form_signs_and_verifies_with_a_keystore_key() {
    let h = home();
    keygen(h.path(), "alice", "ed25519");
    let out = aiproto(h.path())
        .args(["sign", "--key", "alice", "--sig-format", "jws"])
        .write_stdin(REQUEST)
        .assert()
        .code(0);
    let signed = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        signed.contains("..") && signed.contains("sig: eyJ"),
        "{signed}"
    );
    aiproto(h.path())
        .arg("verify")
        .write_stdin(signed.clone())
        .assert()
        .code(0)
        .stdout(predicate::str::contains("ok signed by alice"));
    aiproto(h.path())
        .arg("verify")
        .write_stdin(signed.replace("Please review.", "Please review!"))
        .assert()
        .code(1);
    keygen(h.path(), "bob", "p256");
    aiproto(h.path())
        .args(["sign", "--key", "bob", "--sig-format", "jws"])
        .write_stdin(REQUEST)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("ed25519"));
}

/// Detached signatures interoperate with the real `minisign` tool, both ways
/// (`.ci/run` installs it; elsewhere the test says it skipped).
#[test]
fn detached_signatures_interoperate_with_minisign() {
    let h = home();
    keygen(h.path(), "alice", "ed25519");
    let data = h.path().join("report.bin");
    std::fs::write(&data, [0u8, 159, 146, 150, b'\n', b'x']).unwrap();
    aiproto(h.path())
        .args(["sign", "-q", "--detached", "--key", "alice"])
        .arg(&data)
        .assert()
        .code(0);
    let sig = h.path().join("report.bin.minisig");
    aiproto(h.path())
        .args(["verify", "--signature"])
        .arg(&sig)
        .arg(&data)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("ok signed by alice"));
    let tampered = h.path().join("tampered.bin");
    std::fs::write(&tampered, [0u8, 159, 146, 150, b'\n', b'y']).unwrap();
    aiproto(h.path())
        .args(["verify", "--signature"])
        .arg(&sig)
        .arg(&tampered)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("SIG-BAD"));
    let out = aiproto(h.path())
        .args(["keys", "export", "alice", "--encoding", "minisign"])
        .assert()
        .code(0);
    let pubfile = h.path().join("alice.pub");
    std::fs::write(&pubfile, &out.get_output().stdout).unwrap();

    if !installed(
        "detached_signatures_interoperate_with_minisign",
        "minisign",
        &["-v"],
        "apt-get install minisign",
    ) {
        return;
    }
    let minisign = |args: &[&std::ffi::OsStr]| {
        std::process::Command::new("minisign")
            .args(args)
            .current_dir(h.path())
            .output()
            .unwrap()
    };
    // minisign verifies what aiproto signed.
    let out = minisign(&[
        "-V".as_ref(),
        "-m".as_ref(),
        data.as_os_str(),
        "-p".as_ref(),
        pubfile.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "minisign -V: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // aiproto verifies what minisign signed.
    let (mpub, msec) = (h.path().join("m.pub"), h.path().join("m.key"));
    assert!(
        minisign(&[
            "-G".as_ref(),
            "-W".as_ref(),
            "-p".as_ref(),
            mpub.as_os_str(),
            "-s".as_ref(),
            msec.as_os_str()
        ])
        .status
        .success()
    );
    let msig = h.path().join("m.minisig");
    assert!(
        minisign(&[
            "-S".as_ref(),
            "-m".as_ref(),
            data.as_os_str(),
            "-s".as_ref(),
            msec.as_os_str(),
            "-x".as_ref(),
            msig.as_os_str()
        ])
        .status
        .success()
    );
    aiproto(h.path())
        .args(["verify", "--signature"])
        .arg(&msig)
        .arg("--pubkey")
        .arg(&mpub)
        .arg(&data)
        .assert()
        .code(0);
    aiproto(h.path())
        .args(["verify", "--signature"])
        .arg(&msig)
        .arg("--pubkey")
        .arg(&mpub)
        .arg(&tampered)
        .assert()
        .code(1);
    // A minisign public key also works for message signatures made with the same Ed25519 key.
    let signed = sign(h.path(), "alice", REQUEST);
    aiproto(home().path())
        .args(["verify", "--pubkey"])
        .arg(&pubfile)
        .write_stdin(signed)
        .assert()
        .code(0);
}

#[test]
fn an_applied_revoke_makes_later_signatures_fail() {
    let alice = home();
    let receiver = home();
    keygen(alice.path(), "alice", "ed25519");
    let signed = sign(alice.path(), "alice", REQUEST);
    aiproto(receiver.path())
        .args(["verify", "--tofu"])
        .write_stdin(signed.clone())
        .assert()
        .code(0);
    let revoke = "[[CLAUDE→EVERYONE v1]]\nsession: 2025-10-09T16Z abc123\nthread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K\nmessage: 01J9J3EP0000000000000000RV\nintent: REVOKE\n\nmeta: revocation\nType: key\nKey-ID: alice\nReason: laptop stolen\n\nbody: |\n  Do not trust signatures by this key any more.\nsig: none\n[[END]]\n";
    let file = receiver.path().join("revoke.crosstalk");
    // Unsigned, it is refused.
    std::fs::write(&file, revoke).unwrap();
    aiproto(receiver.path())
        .args(["keys", "apply-revoke"])
        .arg(&file)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not signed"));
    // Signed by a stranger (even one the receiver trusts), it is not.
    let stranger = home();
    keygen(stranger.path(), "mallory", "ed25519");
    aiproto(receiver.path())
        .args(["verify", "--tofu"])
        .write_stdin(sign(
            stranger.path(),
            "mallory",
            &REQUEST.replace("[[CLAUDE→", "[[mallory→"),
        ))
        .assert()
        .code(0);
    std::fs::write(&file, sign(stranger.path(), "mallory", revoke)).unwrap();
    aiproto(receiver.path())
        .args(["keys", "apply-revoke"])
        .arg(&file)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("`mallory` may not revoke `alice`"));
    aiproto(receiver.path())
        .arg("verify")
        .write_stdin(signed.clone())
        .assert()
        .code(0);
    // Signed by the key it revokes, it is applied.
    std::fs::write(&file, sign(alice.path(), "alice", revoke)).unwrap();
    aiproto(receiver.path())
        .args(["keys", "apply-revoke"])
        .arg(&file)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("revoked `alice`"));
    let out = aiproto(receiver.path())
        .args(["verify", "--format", "json"])
        .write_stdin(signed.clone())
        .assert()
        .code(1);
    assert_eq!(
        json_lines(&out.get_output().stdout)[0]["code"],
        "SIG-REVOKED"
    );
    aiproto(receiver.path())
        .args(["keys", "list"])
        .assert()
        .code(0)
        .stdout(predicate::str::is_match("revoked +alice .*by alice").unwrap());
    // A revocation applied by mistake is withdrawn deliberately.
    aiproto(receiver.path())
        .args(["keys", "unrevoke", "alice"])
        .assert()
        .code(0);
    aiproto(receiver.path())
        .arg("verify")
        .write_stdin(signed)
        .assert()
        .code(0);
}

#[test]
fn csdl_signatures_live_in_m_and_survive_a_change_of_spelling() {
    let h = home();
    keygen(h.path(), "alice", "ed25519");
    let text = std::fs::read_to_string(repo(
        "examples/csdl/valid/function_search_knowledge_base.json",
    ))
    .unwrap();
    let signed = sign(h.path(), "alice", &text);
    let json: serde_json::Value = serde_json::from_str(&signed).unwrap();
    assert_eq!(json["m"]["security_parameters"]["key_id"], "alice");
    let expanded = aiproto(h.path())
        .args(["convert", "--to", "csdl", "--expand", "-"])
        .write_stdin(signed.clone())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    aiproto(h.path())
        .args(["verify", "-"])
        .write_stdin(expanded)
        .assert()
        .code(0);
    aiproto(h.path())
        .args(["verify", "-"])
        .write_stdin(signed.replace("\"limit\"", "\"max\""))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("SIG-BAD"));
    aiproto(h.path())
        .args(["sign", "--key", "alice"])
        .arg(repo("examples/msp/valid/full.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--detached"));
}

/// What the relay loop repairs without touching content keeps a signature
/// good: here header names a chat capitalised and a `sig:` line a mail
/// client hard-wrapped (the envelope read back out of a quoted-printable or
/// base64 mail is in `email.rs`).
#[test]
fn a_signature_survives_the_repairs_of_structure() {
    let h = home();
    keygen(h.path(), "CLAUDE", "ed25519");
    let signed = sign(h.path(), "CLAUDE", REQUEST);
    let capitalised: String = signed
        .lines()
        .map(|l| {
            for name in [
                "session:", "thread:", "message:", "intent:", "body:", "sig:",
            ] {
                if let Some(rest) = l.strip_prefix(name) {
                    let mut upper = name.to_string();
                    upper[..1].make_ascii_uppercase();
                    return format!("{upper}{rest}\n");
                }
            }
            format!("{l}\n")
        })
        .collect();
    assert!(capitalised.contains("Sig: ed25519"), "{capitalised}");
    // The sig: line hard-wrapped at 76 columns, as a mail client does.
    let wrapped: String = signed
        .lines()
        .map(|l| {
            if l.starts_with("sig: ") && l.chars().count() > 76 {
                let (head, tail) = l.split_at(76);
                format!("{head}\n{tail}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    assert!(
        wrapped.lines().count() > signed.lines().count(),
        "{wrapped}"
    );
    for (what, text) in [("capitalised", capitalised), ("wrapped", wrapped)] {
        let out = aiproto(h.path())
            .args(["verify", "-"])
            .write_stdin(text)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{what}: {stdout}");
        assert!(stdout.contains("ok signed by CLAUDE"), "{what}: {stdout}");
    }
}

/// The repairs of whole replies keep a signature good where they give back
/// the signed text: a reply split into two code blocks, an example
/// envelope in a body whose indentation a chat took off, a long body line
/// a mail client hard-wrapped. Where the text lost more than the repair
/// gives back (the example's own indentation too), the signature fails.
#[test]
fn a_signature_survives_parts_examples_and_wrapped_body_lines() {
    let h = home();
    keygen(h.path(), "CLAUDE", "ed25519");
    let text = "[[CLAUDE→CHATGPT v1]]\nsession: 2025-10-09T16Z abc123\nthread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K\nmessage: 01J9J3DBC4N7P2Q3R5S7T9W1V2\nintent: REQUEST\nbody: |\n  Please review the pagination patch; the cursor encoding should stay stable across deploys and restarts.\n  A request to me looks like this:\n  [[HUMAN→CLAUDE v1]]\n  intent: REQUEST\n  body: |\n    Your question.\n  sig: none\n  [[END]]\n  Thanks.\nsig: none\n[[END]]\n";
    let signed = sign(h.path(), "CLAUDE", text);
    let lines: Vec<&str> = signed.lines().collect();
    let body = lines.iter().position(|l| *l == "body: |").unwrap() + 1;
    let sig = lines
        .iter()
        .rposition(|l| l.starts_with("sig: ed25519"))
        .unwrap();
    let joined = |lines: &[String]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    let owned: Vec<String> = lines.iter().map(|l| l.to_string()).collect();

    let mut parts = owned.clone();
    parts.insert(body + 1, "```\n\n**Part 2/2 (continued)**\n\n```".into());
    let parts = format!("```\n{}```\n", joined(&parts));

    let unindent = |all: bool| {
        let mut out = owned.clone();
        for l in &mut out[body..sig] {
            *l = if all {
                l.trim_start().to_string()
            } else {
                l[2..].to_string()
            };
        }
        joined(&out)
    };

    let mut wrapped = owned.clone();
    let long = &wrapped[body];
    let cut = long[..72].rfind(' ').unwrap();
    let (head, tail) = (long[..cut].to_string(), long[cut + 1..].to_string());
    wrapped.splice(body..=body, [head, tail]);
    let wrapped = joined(&wrapped);

    for (what, text, code) in [
        ("parts", parts, "CT-REPAIR-JOIN"),
        ("example", unindent(false), "CT-REPAIR-NESTED"),
        ("wrapped", wrapped, "CT-REPAIR-WRAP"),
    ] {
        let out = aiproto(h.path())
            .args(["verify", "-"])
            .write_stdin(text.clone())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{what}: {stdout}\n{text}");
        assert!(stdout.contains("ok signed by CLAUDE"), "{what}: {stdout}");
        aiproto(h.path())
            .args(["validate", "-"])
            .write_stdin(text)
            .assert()
            .code(0)
            .stdout(predicate::str::contains(code));
    }
    // The example's own body indentation lost too: read, but not what was signed.
    aiproto(h.path())
        .args(["verify", "-"])
        .write_stdin(unindent(true))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("SIG-BAD"));
}
