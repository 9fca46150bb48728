//! CSDL: validation, dialects, and `convert --to csdl --expand|--compact`.

use predicates::str::contains;

use super::{aiproto, home, json_lines, repo};

#[test]
fn spec_examples_are_valid_and_broken_ones_are_placed() {
    let dir = home();
    aiproto(dir.path())
        .args(["validate", "-q"])
        .arg(repo("examples/csdl/valid"))
        .assert()
        .success();
    aiproto(dir.path())
        .arg("validate")
        .arg(repo("examples/csdl/invalid/workflow_structure_as_printed.json"))
        .assert()
        .code(1)
        .stdout(contains(
            "workflow_structure_as_printed.json:16:20: error[CSDL-UNKNOWN-STEP]: `true_next` names `step3`",
        ));
}

#[test]
fn another_dialect_is_one_finding() {
    let dir = home();
    let out = aiproto(dir.path())
        .args(["validate", "--format", "json"])
        .arg(repo("examples/csdl/invalid/uppercase_dialect.json"))
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let rows = json_lines(&out);
    let findings = rows[0]["errors"].as_array().unwrap();
    assert!(rows[0]["warnings"].as_array().unwrap().is_empty());
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["code"], "CSDL-DIALECT");
}

#[test]
fn expand_and_compact_are_lossless() {
    let dir = home();
    let original = repo("examples/csdl/valid/function_search_knowledge_base.json");
    let expanded = aiproto(dir.path())
        .args(["convert", "--to", "csdl", "--expand"])
        .arg(&original)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(expanded.clone()).unwrap();
    assert!(
        text.contains("\"parameters\"") && text.contains("\"required\":true"),
        "{text}"
    );
    // The expanded form validates, with findings placed on its own names.
    aiproto(dir.path())
        .args(["validate", "-"])
        .write_stdin(expanded.clone())
        .assert()
        .success();
    let compact = aiproto(dir.path())
        .args(["convert", "--to", "csdl", "--compact", "-"])
        .write_stdin(expanded)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let back: serde_json::Value = serde_json::from_slice(&compact).unwrap();
    let first: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&original).unwrap()).unwrap();
    assert_eq!(back, first);
}

#[test]
fn expanded_findings_point_at_expanded_names() {
    let dir = home();
    aiproto(dir.path())
        .args(["validate", "-"])
        .write_stdin("{\n  \"type\": \"function\",\n  \"name\": \"f\",\n  \"parameters\": {\"q\": {\"type\": \"str\"}}\n}\n")
        .assert()
        .code(1)
        .stdout(contains("<stdin>:4:32: error[CSDL-TYPE]: unknown type `str`"));
}

#[test]
fn converts_to_another_protocol_and_back() {
    let dir = home();
    let out = aiproto(dir.path())
        .args(["convert", "--to", "crosstalk"])
        .arg(repo("examples/csdl/valid/agent_message.json"))
        .assert()
        .code(0)
        .stdout(contains("[[atlas→nexus v1]]"))
        .stdout(contains("intent: REQUEST"))
        .get_output()
        .stdout
        .clone();
    aiproto(dir.path())
        .args(["convert", "--to", "csdl"])
        .write_stdin(out)
        .assert()
        .code(0)
        .stdout(contains(r#""from":"atlas""#))
        .stdout(contains(r#""v":{"action":"execute_searches""#));
    aiproto(dir.path())
        .args(["convert", "--to", "hsp", "--expand"])
        .arg(repo("examples/csdl/valid/agent_message.json"))
        .assert()
        .code(2)
        .stderr(contains("--expand and --compact are for --to csdl"));
}
