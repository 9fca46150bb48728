//! `aiproto validate`: verdicts, output formats and exit codes.

use predicates::prelude::*;

use super::{REQUEST, aiproto, home, json_lines, repo};

#[test]
fn valid_message_exits_0_with_a_summary_on_stderr() {
    let h = home();
    aiproto(h.path())
        .arg("validate")
        .write_stdin(REQUEST)
        .assert()
        .code(0)
        .stdout("")
        .stderr(predicate::str::contains("1 message in 1 input: all valid"));
}

#[test]
fn human_findings_name_path_line_column_and_show_a_caret() {
    let h = home();
    let path = h.path().join("m.crosstalk");
    std::fs::write(&path, REQUEST.replace("intent: REQUEST", "intent: SHOUT")).unwrap();
    aiproto(h.path())
        .args(["validate", path.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "m.crosstalk:7:9: error[CT-INTENT-UNKNOWN]: unknown intent `SHOUT`",
        ))
        .stdout(predicate::str::contains(
            "7 | intent: SHOUT\n  |         ^^^^^\n",
        ));
}

#[test]
fn json_report_has_the_documented_fields() {
    let h = home();
    // The second envelope under its own id: one id on two messages is a
    // finding of its own (ID-DUPLICATE).
    let text = format!(
        "{REQUEST}\n{}",
        REQUEST
            .replace("intent: REQUEST", "intent: QUESTION")
            .replace("01J9J3DBC4N7P2Q3R5S7T9W1V2", "01J9J3DBC4N7P2Q3R5S7T9W1V3")
    );
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .write_stdin(text)
        .assert()
        .code(0);
    let lines = json_lines(&out.get_output().stdout);
    assert_eq!(lines.len(), 2);
    let second = &lines[1];
    for field in [
        "source", "index", "line", "protocol", "version", "valid", "errors", "warnings",
    ] {
        assert!(second.get(field).is_some(), "missing {field}");
    }
    assert_eq!(second["source"], "<stdin>");
    assert_eq!(second["index"], 1);
    assert_eq!(second["line"], 13);
    assert_eq!(second["protocol"], "crosstalk");
    assert_eq!(second["version"], "1.1");
    assert_eq!(second["valid"], true);
    let warning = &second["warnings"][0];
    assert_eq!(warning["code"], "CT-INTENT-LEGACY");
    assert_eq!(warning["line"], 19);
    assert_eq!(warning["column"], 9);
    assert!(warning["message"].as_str().unwrap().contains("REQUEST"));
}

#[test]
fn strict_turns_warnings_into_errors() {
    let h = home();
    let legacy = REQUEST.replace("intent: REQUEST", "intent: QUESTION");
    aiproto(h.path())
        .arg("validate")
        .write_stdin(legacy.clone())
        .assert()
        .code(0);
    let out = aiproto(h.path())
        .args(["validate", "--strict", "--format", "json"])
        .write_stdin(legacy)
        .assert()
        .code(1);
    let report = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(report["valid"], false);
    assert_eq!(report["errors"][0]["code"], "CT-INTENT-LEGACY");
}

#[test]
fn unreadable_input_is_named_and_exits_2_after_reading_the_rest() {
    let h = home();
    let good = h.path().join("good.crosstalk");
    std::fs::write(&good, REQUEST).unwrap();
    let missing = h.path().join("missing.crosstalk");
    let out = aiproto(h.path())
        .args([
            "validate",
            "--format",
            "json",
            missing.to_str().unwrap(),
            good.to_str().unwrap(),
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.crosstalk"));
    let lines = json_lines(&out.get_output().stdout);
    assert_eq!(lines[0]["errors"][0]["code"], "INPUT-UNREADABLE");
    assert_eq!(lines[1]["valid"], true);
}

#[test]
fn directories_are_walked_in_order() {
    let h = home();
    let dir = h.path().join("inbox");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("b.crosstalk"), REQUEST).unwrap();
    std::fs::write(dir.join("sub/a.aict"), REQUEST).unwrap();
    std::fs::write(dir.join("notes.bin"), [0u8, 159, 146, 150]).unwrap();
    std::fs::write(dir.join(".hidden.crosstalk"), "junk").unwrap();
    let out = aiproto(h.path())
        .args(["validate", "--format", "json", dir.to_str().unwrap()])
        .assert()
        .code(0);
    let sources: Vec<String> = json_lines(&out.get_output().stdout)
        .iter()
        .map(|l| l["source"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sources.len(), 2);
    assert!(
        sources[0].ends_with("b.crosstalk") && sources[1].ends_with("a.aict"),
        "{sources:?}"
    );
}

#[test]
fn forced_protocol_and_unknown_protocol() {
    let h = home();
    aiproto(h.path())
        .args(["validate", "-p", "crosstalk@1.1", "-"])
        .write_stdin(REQUEST)
        .assert()
        .code(0);
    aiproto(h.path())
        .args(["validate", "-p", "smtp"])
        .write_stdin(REQUEST)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown protocol `smtp`"));
}

#[test]
fn every_example_verdict_matches_its_folder() {
    let h = home();
    aiproto(h.path())
        .arg("validate")
        .arg(repo("examples/crosstalk/valid"))
        .arg(repo("examples/crosstalk/pasted"))
        .assert()
        .code(0);
    let out = aiproto(h.path())
        .args(["validate", "--format", "json"])
        .arg(repo("examples/crosstalk/invalid"))
        .assert()
        .code(1);
    let lines = json_lines(&out.get_output().stdout);
    assert!(lines.len() >= 20);
    assert!(
        lines.iter().all(|l| l["valid"] == false),
        "an invalid example passed"
    );
}

/// Every `--format json` line of `validate` and `verify`, over every
/// protocol's valid and invalid examples and every kind of input that
/// gives no message, against the published report schemas.
#[test]
fn json_lines_follow_the_published_report_schemas() {
    let validator = |name: &str| {
        let schema: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(repo(&format!("schemas/aiproto/{name}.schema.json"))).unwrap(),
        )
        .unwrap();
        jsonschema::validator_for(&schema).unwrap()
    };
    let h = home();
    std::fs::write(h.path().join("binary.json"), b"{\"a\": \"\xff\"}").unwrap();
    std::fs::write(h.path().join("notes.crosstalk"), "no envelope here\n").unwrap();
    std::fs::create_dir_all(h.path().join("empty")).unwrap();
    aiproto(h.path())
        .args(["keygen", "-q", "--id", "CLAUDE"])
        .assert()
        .code(0);
    let signed = crate::sign(h.path(), "CLAUDE", REQUEST);
    std::fs::write(h.path().join("signed.crosstalk"), signed).unwrap();
    let inputs = [
        repo("examples"),
        h.path().join("missing.crosstalk"),
        h.path().join("binary.json"),
        h.path().join("notes.crosstalk"),
        h.path().join("signed.crosstalk"),
    ];
    let mut protocols = std::collections::BTreeSet::new();
    let mut checked = 0;
    for (command, schema) in [("validate", "validate-report"), ("verify", "verify-report")] {
        let validator = validator(schema);
        for args in [&inputs[..], &[h.path().join("empty")][..]] {
            let out = aiproto(h.path())
                .args([command, "--format", "json"])
                .args(args)
                .output()
                .unwrap();
            let lines = json_lines(&out.stdout);
            assert!(!lines.is_empty(), "{command} {args:?}");
            for line in &lines {
                let errors: Vec<String> =
                    validator.iter_errors(line).map(|e| e.to_string()).collect();
                assert!(errors.is_empty(), "{command}: {line}: {errors:?}");
                if let Some(p) = line["protocol"].as_str() {
                    protocols.insert(p.to_string());
                }
                checked += 1;
            }
            let codes: Vec<&str> = lines.iter().filter_map(|l| l["code"].as_str()).collect();
            if command == "verify" && args.len() > 1 {
                for code in ["INPUT-UNREADABLE", "NO-MESSAGE", "SIG-UNSIGNED"] {
                    assert!(codes.contains(&code), "verify names {code}: {codes:?}");
                }
                assert!(lines.iter().any(|l| l["valid"] == true), "the signed one");
            }
        }
    }
    assert_eq!(
        protocols.into_iter().collect::<Vec<_>>(),
        ["a2a", "crosstalk", "csdl", "hsp", "msp"]
    );
    assert!(checked > 200, "{checked}");
}

#[test]
fn findings_are_capped_per_message_and_per_run_and_counted() {
    let h = home();
    // 200 HSP messages of 8 findings each.
    let broken = "{\"hsp_envelope_version\": \"1.0\"}\n".repeat(200);
    let out = aiproto(h.path())
        .args(["validate", "--max-findings", "3", "-"])
        .write_stdin(broken.clone())
        .assert()
        .code(1);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    // 3 per message, 3 × 20 in the run, then one note.
    let shown = stdout.matches("error[").count() + stdout.matches("warning[").count();
    assert_eq!(shown, 60, "{stdout}");
    assert_eq!(
        stdout
            .matches("and 5 more findings of this message")
            .count(),
        19
    );
    assert_eq!(stdout.matches("no more findings shown").count(), 1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains("1540 not shown"), "{stderr}");
    // One message with many findings: 3 shown, the rest counted.
    let many = "{\"hsp_envelope_version\": \"1.0\"}";
    let out = aiproto(h.path())
        .args(["validate", "--format", "json", "--max-findings", "3", "-"])
        .write_stdin(many)
        .assert()
        .code(1);
    let report = &json_lines(&out.get_output().stdout)[0];
    let listed =
        report["errors"].as_array().unwrap().len() + report["warnings"].as_array().unwrap().len();
    assert_eq!(listed, 3);
    assert_eq!(report["omitted"], 5, "{report}");
}

/// The CI reports: only `validate` and `verify` write them; a report file
/// that cannot be created stops the run before anything is read.
#[test]
fn ci_report_formats_belong_to_validate_and_verify() {
    let h = home();
    aiproto(h.path())
        .args(["convert", "--format", "sarif", "--to", "csdl"])
        .arg(repo("examples/hsp/valid/0.1/belief.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "only `validate`, `verify` and `conformance`",
        ));
    aiproto(h.path())
        .args(["validate", "--report", "yaml:out.yaml"])
        .arg(repo("examples/hsp/valid/0.1/belief.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown report format `yaml`"));
    aiproto(h.path())
        .args(["validate", "--report", "sarif:no/such/dir/out.sarif"])
        .arg(repo("examples/hsp/valid/0.1/belief.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "cannot write the report no/such/dir/out.sarif",
        ));
}

/// `--format github`: one workflow command per finding, paths relative to
/// the working directory, the exit code unchanged.
#[test]
fn github_annotations_point_at_the_finding() {
    let h = home();
    let dir = h.path().join("messages");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("m.crosstalk"),
        REQUEST.replace("intent: REQUEST", "intent: SHOUT"),
    )
    .unwrap();
    aiproto(h.path())
        .current_dir(h.path())
        .args(["validate", "--format", "github", "messages"])
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with(
            "::error file=messages/m.crosstalk,line=7,col=9,endColumn=13,title=CT-INTENT-UNKNOWN::unknown intent `SHOUT`%0A= hint: ",
        ));
}

/// A repository walk: `.gitignore` and hidden entries honoured, files that
/// hold no message skipped (named with -v), broken JSON still reported,
/// `--glob`/`--exclude` and `--protocol` narrowing what is read.
#[test]
fn a_repository_walk_reads_messages_and_skips_the_rest() {
    let h = home();
    let root = h.path().join("repo");
    let messages = root.join("messages");
    std::fs::create_dir_all(messages.join("drafts")).unwrap();
    std::fs::create_dir_all(root.join("node_modules")).unwrap();
    let bad = REQUEST.replace("intent: REQUEST", "intent: SHOUT");
    std::fs::write(messages.join("ask.crosstalk"), REQUEST).unwrap();
    std::fs::copy(
        repo("examples/hsp/valid/0.1/belief.json"),
        messages.join("belief.json"),
    )
    .unwrap();
    std::fs::write(messages.join("drafts/bad.crosstalk"), &bad).unwrap();
    std::fs::write(root.join("node_modules/bad.crosstalk"), &bad).unwrap();
    std::fs::write(root.join(".gitignore"), "node_modules/\n").unwrap();
    std::fs::write(root.join("README.md"), "# A project\n").unwrap();
    std::fs::write(root.join("package.json"), "{\"name\": \"x\"}\n").unwrap();

    let validate = |args: &[&str]| {
        let out = aiproto(h.path())
            .current_dir(&root)
            .arg("validate")
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    let (code, text) = validate(&["-v", "."]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("drafts/bad.crosstalk:7:9"), "{text}");
    assert!(
        !text.contains("node_modules/bad.crosstalk:")
            && text.contains(
                "./node_modules/ and everything in it: not read, named in an ignore file"
            ),
        "ignored by .gitignore, and said so: {text}"
    );
    assert!(text.contains("./README.md: skipped"), "{text}");
    assert!(text.contains("./package.json: skipped"), "{text}");
    assert!(text.contains("2 files without a message skipped"), "{text}");

    let (code, text) = validate(&["--exclude", "drafts/", "."]);
    assert_eq!(code, Some(0), "{text}");
    let (code, text) = validate(&["--glob", "**/*.json", "."]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("1 message in 1 input"), "{text}");
    let (code, text) = validate(&["-p", "hsp", "."]);
    assert_eq!(
        code,
        Some(0),
        "only the JSON files, and package.json skipped: {text}"
    );

    // Named explicitly, a file without a message is an error, unless asked.
    let (code, text) = validate(&["README.md"]);
    assert_eq!(code, Some(1), "{text}");
    let (code, text) = validate(&["--skip-non-messages", "README.md", "messages/ask.crosstalk"]);
    assert_eq!(code, Some(0), "{text}");
    // Broken JSON is never skipped: it is a message that broke.
    std::fs::write(messages.join("cut.json"), "{\"x\": ").unwrap();
    let (code, text) = validate(&["."]);
    assert_eq!(code, Some(1));
    assert!(text.contains("cut.json:1:1: error[NO-MESSAGE]"), "{text}");
}

#[test]
fn ignoring_a_code_never_makes_what_was_not_read_valid() {
    let h = home();
    let fact = std::fs::read_to_string(repo("examples/hsp/valid/0.1/facts.jsonl")).unwrap();
    let lines = format!("{}\nnot json at all\n", fact.lines().next().unwrap());
    for ignore in ["HSP-JSON", "HSP"] {
        aiproto(h.path())
            .args(["validate", "--ignore", ignore, "-"])
            .write_stdin(lines.clone())
            .assert()
            .code(1)
            .stdout(predicate::str::contains(
                "2:1: error[NO-MESSAGE]: not read as a message, so not valid",
            ))
            .stderr(predicate::str::contains("1 invalid"));
    }
    // A cut-off envelope stays invalid with its finding ignored, too.
    aiproto(h.path())
        .args(["validate", "--ignore", "CT-END-MISSING", "-"])
        .write_stdin(REQUEST.replace("[[END]]\n", ""))
        .assert()
        .code(1);
}

/// Two different messages under one id in one input: named with the
/// first one's line (a reply to that id could mean either), a failure
/// under --strict; the same message twice: said. Warnings both (a corpus
/// gathered from many files may reuse ids). Crosstalk envelopes and HSP
/// JSON Lines alike, and the MCP face says the same.
#[test]
fn one_id_on_two_messages_of_an_input_is_named() {
    let h = home();
    let other = REQUEST.replace("Please review.", "Please review it again.");
    let duplicate = format!("{REQUEST}\n{other}");
    aiproto(h.path())
        .args(["validate", "--strict", "-"])
        .write_stdin(duplicate.clone())
        .assert()
        .code(1);
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(duplicate.clone())
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "<stdin>:13:1: warning[ID-DUPLICATE]: message id 01J9J3DBC4N7P2Q3R5S7T9W1V2 is already used on line 1 by another message",
        ));
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(format!("{REQUEST}\n{REQUEST}"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "warning[ID-REPEATED]: the same message as on line 1 again",
        ));
    let fact = std::fs::read_to_string(repo("examples/hsp/valid/1.0/fact.json")).unwrap();
    let fact: serde_json::Value = serde_json::from_str(&fact).unwrap();
    let mut changed = fact.clone();
    changed["payload"]["statement_nl"] = "Another fact under the same id.".into();
    let lines = |a: &serde_json::Value, b: &serde_json::Value| format!("{a}\n{b}\n");
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(lines(&fact, &changed))
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "<stdin>:2:1: warning[ID-DUPLICATE]",
        ));
    aiproto(h.path())
        .args(["validate", "-"])
        .write_stdin(lines(&fact, &fact))
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "<stdin>:2:1: warning[ID-REPEATED]",
        ));
    // Another input may hold the same id: the check is within one input.
    let dir = h.path().join("two");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("a.crosstalk"), REQUEST).unwrap();
    std::fs::write(dir.join("b.crosstalk"), &other).unwrap();
    aiproto(h.path()).arg("validate").arg(&dir).assert().code(0);
}
