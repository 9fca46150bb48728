//! Each invalid example is named for what is wrong with it; this table
//! checks that aiproto reports exactly that.

use super::{aiproto, home, json_lines, repo};

const EXPECTED: &[(&str, &str)] = &[
    ("attachment-digest-truncated", "CT-ATTACH-INVALID"),
    ("consent-not-in-vocabulary", "CT-PRIVACY-CONSENT"),
    ("duplicate-intent", "CT-HEADER-DUPLICATE"),
    ("error-code-not-in-taxonomy", "CT-ERROR-CODE"),
    ("error-without-meta-error", "CT-ERROR-META"),
    ("expires-not-a-date", "CT-PRIVACY-EXPIRES"),
    ("header-version-2", "CT-HEADER-VERSION"),
    ("header-without-arrow", "CT-HEADER-MALFORMED"),
    ("lowercase-intent", "CT-INTENT-UNKNOWN"),
    ("message-id-not-a-ulid", "CT-ID-INVALID"),
    ("meta-value-on-two-lines", "CT-META-MULTILINE"),
    ("missing-body", "CT-BODY-MISSING"),
    ("missing-end-line", "CT-END-MISSING"),
    ("missing-intent", "CT-HEADER-MISSING"),
    ("missing-message-id-in-v1_1", "CT-HEADER-MISSING"),
    // A stray brace is not a template placeholder: the id is checked.
    ("parent-brace-not-a-placeholder", "CT-ID-INVALID"),
    ("reply-to-not-an-address", "CT-ROUTE-INVALID"),
    ("sig-without-key-id", "CT-SIG-MALFORMED"),
    ("stray-line", "CT-LINE-UNEXPECTED"),
    ("template-placeholders", "CT-PLACEHOLDER"),
    ("unknown-intent", "CT-INTENT-UNKNOWN"),
];

#[test]
fn each_invalid_example_reports_what_its_name_says() {
    let h = home();
    let dir = repo("examples/crosstalk/invalid");
    let on_disk = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        on_disk,
        EXPECTED.len(),
        "every invalid example needs a row in EXPECTED"
    );
    for (name, code) in EXPECTED {
        let path = dir.join(format!("{name}.crosstalk"));
        let out = aiproto(h.path())
            .args(["validate", "--format", "json"])
            .arg(&path)
            .assert()
            .code(1);
        let report = &json_lines(&out.get_output().stdout)[0];
        let codes: Vec<&str> = report["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["code"].as_str().unwrap())
            .collect();
        assert!(
            codes.contains(code),
            "{name}: expected {code}, got {codes:?}"
        );
        assert!(
            report["errors"]
                .as_array()
                .unwrap()
                .iter()
                .all(|e| e["line"].as_u64().unwrap() >= 1 && e["column"].as_u64().unwrap() >= 1)
        );
    }
}

#[test]
fn valid_examples_have_no_errors_and_render_back_identically() {
    let h = home();
    for entry in std::fs::read_dir(repo("examples/crosstalk/valid")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let out = aiproto(h.path())
            .args(["convert", "--canonical"])
            .arg(&path)
            .assert()
            .code(0);
        assert_eq!(
            String::from_utf8_lossy(&out.get_output().stdout),
            text,
            "{} is not in canonical form",
            path.display()
        );
    }
}
