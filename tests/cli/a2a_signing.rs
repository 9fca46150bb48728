//! Agent Card signatures held against the official SDKs: cards aiproto
//! signs verify under a2a-sdk (Python) and @a2a-js/sdk, cards they sign
//! verify under aiproto with a key the person trusts, and neither a key
//! the card points to, nor a key trusted for another card, nor a forged
//! header earns an "ok".

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use predicates::str::contains;
use serde_json::{Value, json};

use super::{aiproto, home, repo};

const NAME: &str = "Route Planner";

fn card() -> Value {
    json!({
        "name": NAME, "description": "Plans routes, même à Zürich 🚲", "version": "1.0.0",
        "capabilities": {"streaming": true, "pushNotifications": false},
        "skills": [{"id": "route", "name": "Route", "description": "A route", "tags": ["maps"]}],
        "supportedInterfaces": [{"url": "https://planner.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"]
    })
}

/// A card the two readings of rule 1 give other bytes for: an extension
/// parameter holds an empty string, which the SDKs remove and the
/// specification keeps.
fn card_with_an_empty_value() -> Value {
    let mut card = card();
    card["capabilities"]["extensions"] =
        json!([{"uri": "urn:example:tariffs", "params": {"note": "", "zone": 2}}]);
    card
}

fn write(dir: &Path, name: &str, value: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
    path
}

/// Whether the Python SDK's signing imports (SKIPPED otherwise, unless CI
/// requires it).
pub fn python_sdk() -> bool {
    super::a2a::python_installed(
        "import a2a.utils.signing, jwt, cryptography",
        "AIPROTO_REQUIRE_A2A_SDK",
        "python3 -m pip install 'a2a-sdk[http-server,signing]==1.3.0'",
    )
}

/// Runs tests/interop/a2a_card_signing.py (the Python SDK) with `card` on stdin.
fn python(args: &[&str], card: &Path) -> std::process::Output {
    Command::new("python3")
        .arg(repo("tests/interop/a2a_card_signing.py"))
        .args(args)
        .stdin(std::fs::File::open(card).unwrap())
        .output()
        .unwrap()
}

/// The JS SDK's script beside a node_modules holding it, when
/// `AIPROTO_A2A_JS_SDK` names one (else SKIPPED).
fn js_sdk(dir: &Path) -> Option<PathBuf> {
    let Some(modules) = std::env::var_os("AIPROTO_A2A_JS_SDK") else {
        eprintln!(
            "SKIPPED (JS): npm install --prefix DIR @a2a-js/sdk@1.3.0 and set AIPROTO_A2A_JS_SDK=DIR/node_modules"
        );
        return None;
    };
    // An ES module finds its packages beside it, not through NODE_PATH.
    std::os::unix::fs::symlink(modules, dir.join("node_modules")).unwrap();
    let script = dir.join("card_signing.mjs");
    std::fs::copy(repo("tests/interop/a2a_js_card_signing.mjs"), &script).unwrap();
    Some(script)
}

fn js(script: &Path, args: &[&str], card: &Path) -> std::process::Output {
    Command::new("node")
        .arg(script)
        .args(args)
        .stdin(std::fs::File::open(card).unwrap())
        .output()
        .unwrap()
}

/// The verdict: the last line (the JS SDK logs each failed signature first).
fn stdout(out: &std::process::Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim().lines().last().unwrap_or("").to_string()
}

/// A key in the home, bound to the card's name, and its public PEM.
fn keygen(h: &Path, id: &str, algorithm: &str) -> PathBuf {
    aiproto(h)
        .args([
            "keygen",
            "--id",
            id,
            "--algorithm",
            algorithm,
            "--signs-for",
            NAME,
        ])
        .assert()
        .success();
    let out = aiproto(h)
        .args(["keys", "export", id, "--encoding", "pem"])
        .output()
        .unwrap();
    let pem = h.join(format!("{id}.pub.pem"));
    std::fs::write(&pem, out.stdout).unwrap();
    pem
}

#[test]
fn cards_aiproto_signs_verify_under_both_sdks_and_a_changed_card_does_not() {
    if !python_sdk() {
        return;
    }
    let h = home();
    let js_dir = tempfile::tempdir().unwrap();
    let script = js_sdk(js_dir.path());
    for (id, algorithm, alg) in [("ed", "ed25519", "EdDSA"), ("es", "p256", "ES256")] {
        let public = keygen(h.path(), id, algorithm);
        for (label, card) in [
            ("plain", card()),
            ("with an empty value", card_with_an_empty_value()),
        ] {
            let unsigned = write(h.path(), "card.json", &card);
            let out = aiproto(h.path())
                .args(["sign", "--key", id])
                .arg(&unsigned)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let signed: Value = serde_json::from_slice(&out.stdout).unwrap();
            // One signature per reading that gives other bytes.
            let expected = if label == "plain" { 1 } else { 2 };
            assert_eq!(
                signed["signatures"].as_array().unwrap().len(),
                expected,
                "{label}"
            );
            let signed_path = write(h.path(), "signed.json", &signed);
            let mut tampered = signed.clone();
            tampered["supportedInterfaces"][0]["url"] = "https://attacker.example/a2a".into();
            let tampered_path = write(h.path(), "tampered.json", &tampered);
            let key = public.to_str().unwrap();

            aiproto(h.path())
                .arg("verify")
                .arg(&signed_path)
                .assert()
                .success();
            aiproto(h.path())
                .arg("verify")
                .arg(&tampered_path)
                .assert()
                .code(1)
                .stdout(contains("SIG-BAD"));

            let ok = python(&["verify", key, alg], &signed_path);
            assert_eq!(stdout(&ok), "verified", "Python, {alg}, {label}");
            let refused = python(&["verify", key, alg], &tampered_path);
            assert_eq!(
                stdout(&refused),
                "InvalidSignaturesError",
                "Python, {alg}, {label}"
            );
            if let Some(script) = &script {
                let ok = js(script, &["verify", key, alg], &signed_path);
                assert_eq!(stdout(&ok), "verified", "JS, {alg}, {label}");
                let refused = js(script, &["verify", key, alg], &tampered_path);
                assert!(!refused.status.success(), "JS, {alg}, {label}");
            }
        }
    }
}

#[test]
fn cards_the_sdks_sign_verify_under_aiproto_only_with_a_key_trusted_for_that_card() {
    if !python_sdk() {
        return;
    }
    let h = home();
    let js_dir = tempfile::tempdir().unwrap();
    let script = js_sdk(js_dir.path());
    let report_schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo("schemas/aiproto/verify-report.schema.json")).unwrap(),
    )
    .unwrap();
    let report_schema = jsonschema::validator_for(&report_schema).unwrap();
    for alg in ["EdDSA", "ES256"] {
        let (private, public) = (h.path().join("sdk.key"), h.path().join("sdk.pub"));
        let keygen = Command::new("python3")
            .arg(repo("tests/interop/a2a_card_signing.py"))
            .args(["keygen", alg])
            .args([&private, &public])
            .status()
            .unwrap();
        assert!(keygen.success());
        let kid = format!("sdk-{alg}");
        let (private, public) = (private.to_str().unwrap(), public.to_str().unwrap());
        for card in [card(), card_with_an_empty_value()] {
            let unsigned = write(h.path(), "card.json", &card);
            let mut signed = vec![python(
                &[
                    "sign",
                    private,
                    alg,
                    &kid,
                    "https://attacker.example/jwks.json",
                ],
                &unsigned,
            )];
            if let Some(script) = &script {
                signed.push(js(script, &["sign", private, alg, &kid], &unsigned));
            }
            for out in signed {
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let path = h.path().join("sdk-signed.json");
                std::fs::write(&path, &out.stdout).unwrap();
                let other = tempfile::tempdir().unwrap();

                // Nobody trusts the key: the card's own jku is not followed.
                aiproto(other.path())
                    .arg("verify")
                    .arg(&path)
                    .assert()
                    .code(1)
                    .stdout(contains("SIG-UNTRUSTED"));
                // Trusted for another card's name: not for this one.
                aiproto(other.path())
                    .args(["keys", "trust", &kid, public, "--signs-for", "Bank Agent"])
                    .assert()
                    .success();
                aiproto(other.path())
                    .arg("verify")
                    .arg(&path)
                    .assert()
                    .code(1)
                    .stdout(contains("SIG-SENDER"));
                // Trusted for it: ok.
                let trusted = tempfile::tempdir().unwrap();
                aiproto(trusted.path())
                    .args(["keys", "trust", &kid, public, "--signs-for", NAME])
                    .assert()
                    .success();
                aiproto(trusted.path())
                    .arg("verify")
                    .arg(&path)
                    .assert()
                    .success()
                    .stdout(contains(format!("ok signed by {kid} for {NAME}")));
                // In JSON, a record the report's schema holds; where the SDK
                // dropped an empty value, a note that it signed its reading.
                let out = aiproto(trusted.path())
                    .args(["verify", "--format", "json"])
                    .arg(&path)
                    .output()
                    .unwrap();
                let record = &super::json_lines(&out.stdout)[0];
                let errors: Vec<String> = report_schema
                    .iter_errors(record)
                    .map(|e| e.to_string())
                    .collect();
                assert!(errors.is_empty(), "{record}: {errors:?}");
                let empty_value = card.pointer("/capabilities/extensions").is_some();
                assert_eq!(record.get("note").is_some(), empty_value, "{record}");
            }
        }
    }
}

#[test]
fn the_untrusted_key_is_named_with_the_jku_aiproto_did_not_fetch() {
    if !python_sdk() {
        return;
    }
    let h = home();
    let (private, public) = (h.path().join("k.key"), h.path().join("k.pub"));
    assert!(
        Command::new("python3")
            .arg(repo("tests/interop/a2a_card_signing.py"))
            .args(["keygen", "ES256"])
            .args([&private, &public])
            .status()
            .unwrap()
            .success()
    );
    let unsigned = write(h.path(), "card.json", &card());
    let out = python(
        &[
            "sign",
            private.to_str().unwrap(),
            "ES256",
            "self-named",
            "https://attacker.example/jwks.json",
        ],
        &unsigned,
    );
    let path = h.path().join("signed.json");
    std::fs::write(&path, &out.stdout).unwrap();
    aiproto(h.path())
        .args(["verify", "--tofu"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(contains(
            "https://attacker.example/jwks.json, which aiproto does not fetch",
        ))
        .stdout(contains("aiproto keys trust self-named"));
}

#[test]
fn forged_headers_and_algorithm_confusion_earn_no_ok() {
    let h = home();
    keygen(h.path(), "ed", "ed25519");
    let unsigned = write(h.path(), "card.json", &card());
    let out = aiproto(h.path())
        .args(["sign", "--key", "ed"])
        .arg(&unsigned)
        .output()
        .unwrap();
    let signed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let original = signed["signatures"][0].clone();
    let protected = |header: Value| URL_SAFE_NO_PAD.encode(header.to_string());
    for (header, code) in [
        // The same signature under a header that names another algorithm.
        (
            json!({"alg": "HS256", "typ": "JOSE", "kid": "ed"}),
            "SIG-ALGORITHM",
        ),
        (
            json!({"alg": "none", "typ": "JOSE", "kid": "ed"}),
            "SIG-ALGORITHM",
        ),
        (
            json!({"alg": "ES256", "typ": "JOSE", "kid": "ed"}),
            "SIG-ALGORITHM",
        ),
        // A header the signature was not made over.
        (
            json!({"alg": "EdDSA", "typ": "JOSE", "kid": "ed", "x": 1}),
            "SIG-BAD",
        ),
        (
            json!({"alg": "EdDSA", "kid": "ed", "crit": ["exp"], "exp": 1}),
            "SIG-MALFORMED",
        ),
    ] {
        let mut forged = signed.clone();
        forged["signatures"][0]["protected"] = protected(header.clone()).into();
        let path = write(h.path(), "forged.json", &forged);
        aiproto(h.path())
            .arg("verify")
            .arg(&path)
            .assert()
            .code(1)
            .stdout(contains(code));
    }
    // A bad signature first and a good one after: the good one is found.
    let mut both = signed.clone();
    let mut bad = original.clone();
    bad["signature"] = URL_SAFE_NO_PAD.encode([7u8; 64]).into();
    both["signatures"] = json!([bad, original]);
    let path = write(h.path(), "both.json", &both);
    aiproto(h.path())
        .arg("verify")
        .arg(&path)
        .assert()
        .success();
    // Hostile lists: thousands of signatures that are not, a header nested
    // past any reader's depth, one that is not base64 at all: each named,
    // none verified, nothing panics.
    let deep = format!("{}1{}", "[".repeat(300), "]".repeat(300));
    let junk: Vec<Value> = (0..3000)
        .map(|i| match i % 3 {
            0 => json!({"protected": URL_SAFE_NO_PAD.encode(&deep), "signature": "AA"}),
            1 => json!({"protected": "%%%not base64%%%", "signature": "AA"}),
            _ => json!({"protected": protected(json!({"alg": "EdDSA", "kid": "ed"})), "signature": URL_SAFE_NO_PAD.encode([i as u8; 64])}),
        })
        .collect();
    let mut hostile = signed.clone();
    hostile["signatures"] = Value::Array(junk);
    let path = write(h.path(), "hostile.json", &hostile);
    // Found a card although `skills` comes after a megabyte of signatures.
    aiproto(h.path())
        .arg("verify")
        .arg(&path)
        .assert()
        .code(1)
        .stdout(contains("SIG-MALFORMED"));
    // An empty list of signatures is unsigned, not verified.
    let mut none = signed.clone();
    none["signatures"] = json!([]);
    let path = write(h.path(), "none.json", &none);
    aiproto(h.path())
        .arg("verify")
        .arg(&path)
        .assert()
        .code(1)
        .stdout(contains("SIG-UNSIGNED"));
}
