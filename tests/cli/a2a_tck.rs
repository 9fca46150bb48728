//! The A2A project's own grader, a2a-tck (vendored: tests/interop/a2a-tck,
//! 1.0-dev at 357c4a8), run against `aiproto a2a serve` with a real HSP
//! worker behind it on the built-in broker, over JSON-RPC and HTTP+JSON.
//! Every MUST requirement the kit grades on a transport passes, but one
//! where the kit and the spec disagree (CORE-SEND-003, below); the kit's
//! skips are only for what the bridge does not declare. The SHOULD and
//! MAY levels are run too, and pass.

use std::path::Path;

use serde_json::Value;

use super::a2a_bridge::network_with;
use super::repo;

/// The one MUST requirement the kit grades against the spec: the spec
/// (§3.1.1, §3.3.2) says a part of a media type the agent does not take
/// is refused with ContentTypeNotSupportedError, and the requirement's
/// own text says so, but its test at 357c4a8 has no expected error and
/// so grades the refusal a failure. aiproto follows the spec.
const SPEC_OVER_KIT: &str = "CORE-SEND-003";

/// Skips per transport the kit makes for what the bridge does not
/// declare (push notifications, an extended card, gRPC-only checks, a
/// required extension, UnsupportedOperation for an agent that streams).
const SKIPS_AT_MOST: [(&str, u64); 2] = [("jsonrpc", 15), ("http_json", 14)];

/// Whether the kit's Python dependencies import; when not, SKIPPED,
/// unless `AIPROTO_REQUIRE_A2A_TCK` says CI must have them.
fn kit_installed() -> bool {
    super::a2a::python_installed(
        "import pytest, pytest_asyncio, pytest_html, httpx, grpc, google.protobuf, jsonschema, gherkin, jinja2",
        "AIPROTO_REQUIRE_A2A_TCK",
        "python3 -m pip install pytest pytest-asyncio pytest-html httpx grpcio protobuf googleapis-common-protos jsonschema gherkin-official Jinja2",
    )
}

/// A copy of the kit in `dir` (it writes its reports beside itself).
fn copy_kit(dir: &Path) {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                if entry.file_name() != "__pycache__" {
                    copy(&entry.path(), &target);
                }
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    copy(&repo("tests/interop/a2a-tck"), dir);
}

/// Runs the kit at `level`; its compatibility report.
fn run_kit(kit: &Path, address: &str, level: &str) -> Value {
    let out = std::process::Command::new("python3")
        .current_dir(kit)
        .args(["run_tck.py", "--sut-host"])
        .arg(format!("http://{address}"))
        .args(["--transport", "jsonrpc,http_json", "--level", level])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let summary = said.lines().last().unwrap_or_default();
    eprintln!("a2a-tck --level {level}: {summary}");
    let report = std::fs::read_to_string(kit.join("reports/compatibility.json"))
        .unwrap_or_else(|e| panic!("no report ({e}): {said}"));
    serde_json::from_str(&report).unwrap()
}

#[test]
fn the_a2a_tck_grades_every_must_requirement_it_exercises_a_pass() {
    if !kit_installed() {
        return;
    }
    let net = network_with(true, &["--no-token", "--task-timeout", "30"], 0.0);
    let kit = tempfile::tempdir().unwrap();
    copy_kit(kit.path());
    let report = run_kit(kit.path(), &net.address, "must");
    let mut failed = Vec::new();
    for (id, requirement) in report["per_requirement"].as_object().unwrap() {
        if requirement["level"] != "MUST" {
            continue;
        }
        for (transport, status) in requirement["transports"].as_object().unwrap() {
            if status == "FAIL" {
                failed.push((id.clone(), transport.clone(), requirement["errors"].clone()));
            }
        }
    }
    let (disagreement, others): (Vec<_>, Vec<_>) =
        failed.into_iter().partition(|(id, ..)| id == SPEC_OVER_KIT);
    assert!(others.is_empty(), "MUST requirements failed: {others:#?}");
    // The disagreement is the known one: the refusal the spec asks for.
    assert_eq!(disagreement.len(), 2, "{disagreement:?}");
    for (_, _, errors) in &disagreement {
        assert!(
            errors
                .to_string()
                .contains("application/x-unsupported-tck-type"),
            "{errors}"
        );
    }
    for (transport, most) in SKIPS_AT_MOST {
        let counts = &report["per_transport"][transport];
        eprintln!("a2a-tck MUST on {transport}: {counts}");
        assert!(counts["skipped"].as_u64().unwrap() <= most, "{counts}");
        assert!(counts["passed"].as_u64().unwrap() > 60, "{counts}");
    }

    let untested = report["per_requirement"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, r)| r["level"] == "MUST" && r["status"] == "NOT TESTED")
        .count();
    eprintln!(
        "a2a-tck MUST requirements with no test in the kit: {untested} (docs/a2a.md says how each is met)"
    );

    // SHOULD and MAY: reported, and none fails now (the card's caching
    // headers, its Last-Modified).
    for level in ["should", "may"] {
        let report = run_kit(kit.path(), &net.address, level);
        for transport in ["agent_card", "jsonrpc", "http_json"] {
            let counts = &report["per_transport"][transport];
            eprintln!("a2a-tck {level} on {transport}: {counts}");
            assert!(
                counts["failed"].as_u64().unwrap_or(0) == 0,
                "{level} {transport}: {counts}"
            );
        }
    }
}
