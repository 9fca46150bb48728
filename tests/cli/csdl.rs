//! CSDL: validation, dialects, and `convert --to csdl --expand|--compact`.

use predicates::prelude::*;
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
        .arg(repo("examples/csdl/invalid/unknown_dialect.json"))
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

/// The JSON lines of a command that must succeed.
fn json_of_success(
    dir: &std::path::Path,
    args: &[&str],
    path: &std::path::Path,
) -> Vec<serde_json::Value> {
    let out = aiproto(dir).args(args).arg(path).assert().success();
    json_lines(&out.get_output().stdout)
}

/// Every shape E3 writes is read, named, and converted to CSDL 1.0; what
/// its own tables do not define is refused at the value.
#[test]
fn e3_shapes_are_read_named_and_written_as_csdl_1_0() {
    let dir = home();
    let e3 = repo("examples/csdl/e3");
    let rows = json_of_success(dir.path(), &["validate", "--format", "json"], &e3);
    // Seven JSON files, and three frames in agents.cbp.
    assert_eq!(rows.len(), 10, "{rows:?}");
    for row in &rows {
        let warnings: Vec<_> = row["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| &w["code"])
            .collect();
        assert_eq!(warnings, ["CSDL-UPSTREAM"], "{row}");
    }
    let mut shapes: Vec<String> =
        json_of_success(dir.path(), &["inspect", "--format", "json"], &e3)
            .iter()
            .map(|r| r["shape"].as_str().unwrap().to_string())
            .collect();
    shapes.sort();
    shapes.dedup();
    assert_eq!(
        shapes,
        [
            "agent-response",
            "anlt-structured",
            "anlt-v2",
            "cbp-message",
            "e3-message",
            "embedding"
        ]
    );
    let converted = aiproto(dir.path())
        .args(["convert", "--to", "csdl"])
        .arg(repo("examples/csdl/e3"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let spec = dir.path().join("spec.jsonl");
    std::fs::write(&spec, &converted).unwrap();
    let rows = json_of_success(dir.path(), &["validate", "--format", "json"], &spec);
    assert_eq!(rows.len(), 10);
    for row in &rows {
        assert!(row["warnings"].as_array().unwrap().is_empty(), "{row}");
        assert!(row["errors"].as_array().unwrap().is_empty(), "{row}");
    }
    // ANLT names no parties: they are written `unknown`, noted as generated.
    let anlt = json_lines(&converted)
        .into_iter()
        .find(|m| m["m"]["e3"]["shape"] == "anlt-v2")
        .unwrap();
    assert_eq!(anlt["from"], "unknown");
    assert_eq!(
        anlt["m"]["aiproto"]["generated"],
        serde_json::json!(["sender", "recipient"])
    );
    // The pydantic message's parties and ids reach the 1.0 message.
    let message = json_lines(&converted)
        .into_iter()
        .find(|m| m["m"]["e3"]["shape"] == "e3-message")
        .unwrap();
    assert_eq!(message["from"], "architect");
    assert_eq!(message["to"], "oracle");
    assert_eq!(message["intent"], "response");
    assert_eq!(message["m"]["thread"], "c-77");
}

#[test]
fn e3_values_outside_its_tables_are_refused_at_the_value() {
    let dir = home();
    aiproto(dir.path())
        .arg("validate")
        .arg(repo("examples/csdl/invalid/e3_anlt_v2_unknown_tech.json"))
        .assert()
        .code(1)
        .stdout(contains(
            "e3_anlt_v2_unknown_tech.json:1:35: error[CSDL-UNMAPPED]: 40 is not in ANLT v2's tech table (0 to 32)",
        ));
    aiproto(dir.path())
        .arg("validate")
        .arg(repo("examples/csdl/invalid/e3_unknown_cbp_type.json"))
        .assert()
        .code(1)
        .stdout(contains("error[CSDL-UNMAPPED]: `type` is \"handoff\""))
        .stdout(contains("sends a type it does not know as `req`"));
}

/// CBP frames come in as binary, from a file or a pipe: damage is said on
/// the frame it hit, and the frames after it are still read where they can
/// be found.
#[test]
fn cbp_frames_are_read_from_files_and_pipes_and_damage_is_placed_on_its_frame() {
    let dir = home();
    let stream = std::fs::read(repo("examples/csdl/e3/agents.cbp")).unwrap();
    let out = aiproto(dir.path())
        .args(["validate", "--format", "json", "-"])
        .write_stdin(stream.clone())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(json_lines(&out).len(), 3);
    // One payload byte of the first frame changed.
    let mut damaged = stream.clone();
    damaged[20] ^= 0x01;
    let file = dir.path().join("damaged.cbp");
    std::fs::write(&file, &damaged).unwrap();
    aiproto(dir.path())
        .arg("validate")
        .arg(&file)
        .assert()
        .code(1)
        .stdout(contains(
            "damaged.cbp:1:8: error[CSDL-CBP-CRC]: the payload's CRC-16 is",
        ))
        // The third frame repeats the first by its hash: unknown now too.
        .stdout(contains("damaged.cbp:3:8: error[CSDL-CBP-UNRESOLVED]"))
        .stderr(contains("3 messages in 1 input: 2 invalid"));
    // Cut in the middle of the second frame: the first is read, the cut said.
    std::fs::write(&file, &stream[..100]).unwrap();
    aiproto(dir.path())
        .arg("validate")
        .arg(&file)
        .assert()
        .code(1)
        .stdout(contains(
            "damaged.cbp:2:8: error[CSDL-CBP-FRAME]: cut off: the header announces",
        ));
    // The third frame alone names the first by hash: its content is unknown.
    std::fs::write(&file, &stream[234..]).unwrap();
    aiproto(dir.path())
        .arg("validate")
        .arg(&file)
        .assert()
        .code(1)
        .stdout(contains("error[CSDL-CBP-UNRESOLVED]"));
}

/// A stream whose first frame is of another CBP version is named as that
/// (CSDL-CBP-FRAME with the version), not as text that is not UTF-8:
/// named, piped, walked and with `--protocol csdl` alike.
#[test]
fn a_cbp_frame_of_another_version_is_named_by_its_version() {
    let dir = home();
    let mut stream = std::fs::read(repo("examples/csdl/e3/agents.cbp")).unwrap();
    stream[2] = 2;
    let file = dir.path().join("v2.cbp");
    std::fs::write(&file, &stream).unwrap();
    for args in [vec!["validate"], vec!["validate", "--protocol", "csdl"]] {
        aiproto(dir.path())
            .args(&args)
            .arg(&file)
            .assert()
            .code(1)
            .stdout(contains("error[CSDL-CBP-FRAME]: CBP version 2 at byte 0"))
            .stdout(contains("INPUT-NOT-UTF8").not());
    }
    aiproto(dir.path())
        .args(["validate", "-"])
        .write_stdin(stream.clone())
        .assert()
        .code(1)
        .stdout(contains("CBP version 2 at byte 0"));
    aiproto(dir.path())
        .args(["validate", "."])
        .current_dir(dir.path())
        .assert()
        .code(1)
        .stdout(contains("v2.cbp:1:8: error[CSDL-CBP-FRAME]: CBP version 2"));
    // Two bytes of magic and nothing else: a cut frame, not text.
    std::fs::write(&file, [0xCB, 0x50]).unwrap();
    aiproto(dir.path())
        .arg("validate")
        .arg(&file)
        .assert()
        .code(1)
        .stdout(contains("error[CSDL-CBP-FRAME]: cut off"));
}
