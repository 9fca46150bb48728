//! Directory walks as a gate sees them: what `verify` and `validate` pass
//! over is counted and named, ignore files can be set aside, and a folder
//! that cannot be read is a finding while the rest is still checked.

use std::path::Path;

use crate::{REQUEST, aiproto, home};

fn run(home: &Path, dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = aiproto(home).current_dir(dir).args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// A repository whose `.gitignore` hides an unsigned message from walks.
fn repository_with_an_ignored_message() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let messages = dir.path().join("messages");
    std::fs::create_dir_all(messages.join("local")).unwrap();
    std::fs::write(dir.path().join(".gitignore"), "local/\n").unwrap();
    std::fs::write(messages.join("local/unsigned.crosstalk"), REQUEST).unwrap();
    std::fs::write(messages.join(".draft.crosstalk"), REQUEST).unwrap();
    std::fs::write(messages.join("notes.rs"), "// not a message\n").unwrap();
    dir
}

#[test]
fn verify_reads_what_git_hides_and_names_what_a_walk_passes_over() {
    let h = home();
    let repo = repository_with_an_ignored_message();
    // A gate reads the ignored and the hidden message: both unsigned, both failures.
    let (code, out) = run(h.path(), repo.path(), &["verify", "messages/"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("messages/local/unsigned.crosstalk:1: error[SIG-UNSIGNED]")
            && out.contains("messages/.draft.crosstalk:1: error[SIG-UNSIGNED]"),
        "{out}"
    );
    // --respect-ignore walks as validate does: nothing else to read, and
    // the ignored message does not make the gate green.
    let (code, out) = run(
        h.path(),
        repo.path(),
        &["verify", "--respect-ignore", "messages/"],
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("NO-INPUT"), "{out}");
    assert!(
        out.contains("3 file(s) or folder(s) (1 hidden, 1 in ignore files, 1 other extensions)"),
        "the reasons, counted: {out}"
    );
    // -v names each one and why.
    let (_, out) = run(
        h.path(),
        repo.path(),
        &["verify", "--respect-ignore", "-v", "messages/"],
    );
    for line in [
        "messages/local/ and everything in it: not read, named in an ignore file (--no-ignore reads it)",
        "messages/.draft.crosstalk: not read, hidden (--hidden reads it)",
        "messages/notes.rs: not read, not a message file extension",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    assert!(
        !out.contains(".gitignore"),
        "ignore files are settings: {out}"
    );
    // A file named on the command line is read whatever ignores it.
    let (code, out) = run(
        h.path(),
        repo.path(),
        &[
            "verify",
            "--respect-ignore",
            "messages/local/unsigned.crosstalk",
        ],
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("SIG-UNSIGNED"), "{out}");
}

/// A folder whose path is longer than the system allows (ENAMETOOLONG):
/// a read that fails whoever runs it (root reads a chmod 000 folder).
fn unreadable_folder(root: &Path) -> String {
    let name = "d".repeat(200);
    let script = format!(
        "cd '{}' && for i in $(seq 22); do mkdir {name} && cd -P {name} || exit 1; done",
        root.display()
    );
    let done = std::process::Command::new("sh")
        .args(["-c", &script])
        .status()
        .unwrap();
    assert!(done.success());
    name
}

#[test]
fn a_folder_that_cannot_be_read_is_a_finding_and_the_rest_is_checked() {
    let h = home();
    let dir = tempfile::tempdir().unwrap();
    let messages = dir.path().join("messages");
    std::fs::create_dir_all(&messages).unwrap();
    std::fs::write(
        messages.join("broken.crosstalk"),
        REQUEST.replace("intent: REQUEST", "intent: SHOUT"),
    )
    .unwrap();
    unreadable_folder(&messages);
    for command in ["validate", "verify"] {
        let out = aiproto(h.path())
            .current_dir(dir.path())
            .args([command, "--format", "sarif", "messages"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{command}");
        let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let results = sarif["runs"][0]["results"].as_array().unwrap();
        let rules: Vec<&str> = results
            .iter()
            .map(|r| r["ruleId"].as_str().unwrap())
            .collect();
        assert!(rules.contains(&"CT-INTENT-UNKNOWN"), "{command}: {rules:?}");
        let unreadable = results
            .iter()
            .find(|r| r["ruleId"] == "INPUT-UNREADABLE")
            .unwrap_or_else(|| panic!("{command}: {rules:?}"));
        let text = unreadable["message"]["text"].as_str().unwrap();
        assert!(text.contains("File name too long"), "{command}: {text}");
        let uri = unreadable["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        assert!(
            uri.starts_with("messages/dddd"),
            "{command}: at its path: {uri}"
        );
    }
}

/// A walk in CI: a `.crosstalk` file of prose and an empty `.json` are
/// NO-MESSAGE in every report, as when named; a README and a
/// `package.json` are something else and passed over; `--skip-non-messages`
/// passes over all of them.
#[test]
fn a_message_file_without_a_message_is_a_finding_in_every_report() {
    let h = home();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ok.crosstalk"), REQUEST).unwrap();
    std::fs::write(
        dir.path().join("prose.crosstalk"),
        "Just prose, pasted by mistake.\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("empty.json"), "").unwrap();
    std::fs::write(dir.path().join("package.json"), "{\"name\": \"pkg\"}\n").unwrap();
    std::fs::write(dir.path().join("README.md"), "# notes\n").unwrap();

    let (code, text) = run(h.path(), dir.path(), &["validate", "."]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("prose.crosstalk:1:1: error[NO-MESSAGE]"),
        "{text}"
    );
    assert!(text.contains("empty.json:1:1: error[NO-MESSAGE]"), "{text}");
    assert!(
        !text.contains("package.json:") && !text.contains("README.md:"),
        "{text}"
    );

    for format in ["json", "sarif", "junit", "gitlab"] {
        let (code, report) = run(h.path(), dir.path(), &["validate", "--format", format, "."]);
        assert_eq!(code, Some(1), "{format}: {report}");
        for name in ["prose.crosstalk", "empty.json"] {
            assert!(report.contains(name), "{format} names {name}: {report}");
        }
        assert!(report.contains("NO-MESSAGE"), "{format}: {report}");
    }

    let (code, text) = run(
        h.path(),
        dir.path(),
        &["validate", "--skip-non-messages", "."],
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("4 files without a message skipped"), "{text}");
}
