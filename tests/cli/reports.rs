//! Reports written by several runs: the runs of one session (a hook
//! runner's parts) make one report, a new session starts it afresh.

use std::path::Path;

use crate::{REQUEST, aiproto, home};

fn sarif_rules(path: &Path) -> Vec<String> {
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(sarif["runs"].as_array().unwrap().len(), 1, "{sarif}");
    sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{}@{}",
                r["ruleId"].as_str().unwrap(),
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
            )
        })
        .collect()
}

#[test]
fn the_runs_of_one_session_write_one_report_and_a_new_session_replaces_it() {
    let h = home();
    let dir = tempfile::tempdir().unwrap();
    let bad = REQUEST.replace("intent: REQUEST", "intent: SHOUT");
    for i in 0..8 {
        std::fs::write(dir.path().join(format!("m{i}.crosstalk")), &bad).unwrap();
    }
    let reports = "sarif:out.sarif,junit:out.xml,gitlab:out.json,github:out.txt";
    let run = |session: &str, file: String| {
        let mut cmd = crate::spawn(h.path(), &["validate", "-q", &file]);
        cmd.current_dir(dir.path())
            .env("AIPROTO_REPORT", reports)
            .env("AIPROTO_REPORT_SESSION", session);
        cmd.spawn().unwrap()
    };
    // Eight runs at once, as pre-commit starts its parts.
    let children: Vec<_> = (0..8)
        .map(|i| run("one", format!("m{i}.crosstalk")))
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1));
    }
    let mut rules = sarif_rules(&dir.path().join("out.sarif"));
    rules.sort();
    let expected: Vec<String> = (0..8)
        .map(|i| format!("CT-INTENT-UNKNOWN@m{i}.crosstalk"))
        .collect();
    assert_eq!(rules, expected);
    let junit = std::fs::read_to_string(dir.path().join("out.xml")).unwrap();
    assert_eq!(junit.matches("<testcase ").count(), 8, "{junit}");
    assert_eq!(junit.matches("<testsuites").count(), 1, "{junit}");
    let gitlab: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out.json")).unwrap())
            .unwrap();
    assert_eq!(gitlab.as_array().unwrap().len(), 8, "{gitlab}");
    let github = std::fs::read_to_string(dir.path().join("out.txt")).unwrap();
    assert_eq!(github.matches("::error ").count(), 8, "{github}");

    // Another session: the report holds its run only.
    let out = run("two", "m3.crosstalk".into())
        .wait_with_output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        sarif_rules(&dir.path().join("out.sarif")),
        ["CT-INTENT-UNKNOWN@m3.crosstalk"]
    );
}

#[test]
fn without_a_session_each_run_replaces_the_report() {
    let h = home();
    let dir = tempfile::tempdir().unwrap();
    let bad = REQUEST.replace("intent: REQUEST", "intent: SHOUT");
    std::fs::write(dir.path().join("a.crosstalk"), &bad).unwrap();
    std::fs::write(dir.path().join("b.crosstalk"), &bad).unwrap();
    for file in ["a.crosstalk", "b.crosstalk"] {
        aiproto(h.path())
            .current_dir(dir.path())
            .args(["validate", "-q", "--report", "sarif:out.sarif", file])
            .assert()
            .code(1);
    }
    assert_eq!(
        sarif_rules(&dir.path().join("out.sarif")),
        ["CT-INTENT-UNKNOWN@b.crosstalk"]
    );
}

/// `--format github` in a GitHub Actions step: the job summary holds the
/// totals and every finding, and a notice says when there are more than
/// GitHub will annotate.
#[test]
fn github_writes_a_job_summary_and_says_when_annotations_run_out() {
    let h = home();
    let dir = tempfile::tempdir().unwrap();
    let bad = REQUEST.replace("intent: REQUEST", "intent: SHOUT");
    for i in 0..12 {
        std::fs::write(dir.path().join(format!("m{i:02}|x.crosstalk")), &bad).unwrap();
    }
    std::fs::write(dir.path().join("summary.md"), "earlier step\n").unwrap();
    let out = aiproto(h.path())
        .current_dir(dir.path())
        .env("GITHUB_STEP_SUMMARY", dir.path().join("summary.md"))
        .args(["validate", "--format", "github", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("::error ").count(), 12, "{stdout}");
    assert!(
        stdout.lines().last().unwrap().starts_with(
            "::notice title=aiproto::12 error(s) and 0 warning(s): GitHub shows at most 10 annotations of each level per step; the job summary lists every finding"
        ),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(
        summary.starts_with("earlier step\n### aiproto validate: failed\n"),
        "appended: {summary}"
    );
    assert!(summary.contains("| 12 | 0 | 12 | 12 | 0 |"), "{summary}");
    assert_eq!(
        summary.matches("`CT-INTENT-UNKNOWN`").count(),
        12,
        "{summary}"
    );
    assert!(
        summary.contains("| m00\\|x.crosstalk | 7 | error |"),
        "a pipe in a name is escaped: {summary}"
    );

    // Ten findings or fewer: no notice; no summary file: annotations only.
    let out = aiproto(h.path())
        .current_dir(dir.path())
        .args(["validate", "--format", "github", "m00|x.crosstalk"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("::notice"));
}

/// A file name that is not UTF-8 is written so that its bytes can be had
/// back: percent-encoded in a SARIF URI, `\xHH` elsewhere.
#[cfg(unix)]
#[test]
fn a_name_that_is_not_utf8_is_written_losslessly() {
    use std::os::unix::ffi::OsStrExt;
    let h = home();
    let dir = tempfile::tempdir().unwrap();
    let bad = REQUEST.replace("intent: REQUEST", "intent: SHOUT");
    let name = std::ffi::OsStr::from_bytes(b"caf\xE9.crosstalk");
    std::fs::write(dir.path().join(name), &bad).unwrap();
    let run = |format: &str| {
        let out = aiproto(h.path())
            .current_dir(dir.path())
            .args(["validate", "--format", format, "."])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}");
        String::from_utf8(out.stdout).unwrap()
    };
    let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).unwrap();
    assert_eq!(
        sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "caf%E9.crosstalk"
    );
    let json = run("json");
    assert!(
        json.contains(r#""source":"./caf\\xE9.crosstalk""#),
        "{json}"
    );
    for (format, written) in [
        ("junit", r"caf\xE9.crosstalk"),
        ("github", r"caf\xE9.crosstalk"),
        ("gitlab", r#""caf\\xE9.crosstalk""#),
    ] {
        let out = run(format);
        assert!(out.contains(written), "{format}: {out}");
        assert!(!out.contains('\u{FFFD}'), "{format}: {out}");
    }
}

/// Another local user makes this user's state folder in the temporary
/// folder first (here a symlink to a folder of theirs; as root in CI also
/// a folder owned by someone else, writable by all): the report is still
/// written, from this run, with the state kept under the aiproto home —
/// never the old passing report left in place, never a file made in their
/// folder.
#[test]
fn a_state_folder_made_by_someone_else_is_not_used() {
    let h = home();
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let uid = rustix::process::getuid().as_raw();
    let theirs = tmp.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::os::unix::fs::symlink(&theirs, tmp.path().join(format!("aiproto-{uid}"))).unwrap();
    let bad = REQUEST.replace("intent: REQUEST", "intent: SHOUT");
    std::fs::write(dir.path().join("m.crosstalk"), &bad).unwrap();
    // An old report that passed.
    std::fs::write(dir.path().join("out.xml"), "<testsuites/>").unwrap();
    let out = crate::aiproto(h.path())
        .current_dir(dir.path())
        .env("TMPDIR", tmp.path())
        .env("AIPROTO_REPORT", "junit:out.xml")
        .env("AIPROTO_REPORT_SESSION", "s")
        .args(["validate", "-q", "m.crosstalk"])
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("not this user's own private folder"), "{err}");
    let junit = std::fs::read_to_string(dir.path().join("out.xml")).unwrap();
    assert!(junit.contains("CT-INTENT-UNKNOWN"), "{junit}");
    assert_eq!(
        std::fs::read_dir(&theirs).unwrap().count(),
        0,
        "nothing made in their folder"
    );
    assert!(h.path().join("state/reports").is_dir());
}
