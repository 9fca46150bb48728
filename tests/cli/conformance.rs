//! `aiproto conformance`: aiproto graded by its own kit in every mode, and
//! deliberately broken implementations graded down on the right vectors.

use std::collections::BTreeSet;

use super::http::Server;
use super::{aiproto, home, json_lines};

fn bin() -> String {
    assert_cmd::cargo::cargo_bin("aiproto")
        .to_string_lossy()
        .into_owned()
}

/// The kit's vectors as `conformance vectors --format json` lists them.
fn listed(h: &std::path::Path, args: &[&str]) -> Vec<serde_json::Value> {
    let out = aiproto(h)
        .args(["conformance", "vectors", "--format", "json"])
        .args(args)
        .assert()
        .code(0);
    json_lines(&out.get_output().stdout)
}

/// The vector records and the summary of a `--format json` run.
fn graded(stdout: &[u8]) -> (Vec<serde_json::Value>, serde_json::Value) {
    let mut records = json_lines(stdout);
    let summary = records.pop().expect("a summary line");
    assert_eq!(summary["record"], "summary");
    assert!(records.iter().all(|r| r["record"] == "vector"));
    (records, summary)
}

/// The record of vector `id`.
fn record<'r>(records: &'r [serde_json::Value], id: &str) -> &'r serde_json::Value {
    records
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no record of {id}"))
}

fn failed_ids(records: &[serde_json::Value]) -> BTreeSet<String> {
    records
        .iter()
        .filter(|r| r["passed"] == false)
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

/// The vector records of `conformance http URL --format json` with
/// `extra` arguments, which must exit with `code`.
fn http_graded(
    h: &std::path::Path,
    url: &str,
    extra: &[&str],
    code: i32,
) -> Vec<serde_json::Value> {
    let out = aiproto(h)
        .args(["conformance", "http", "--format", "json"])
        .args(extra)
        .arg(url)
        .assert()
        .code(code);
    graded(&out.get_output().stdout).0
}

#[test]
fn aiproto_validate_passes_every_message_vector_with_the_codes_it_names() {
    let h = home();
    let b = bin();
    let out = aiproto(h.path())
        .args([
            "conformance",
            "parser",
            "--format",
            "json",
            "--adapter",
            "json",
            "--codes",
            "--",
        ])
        .args([&b, "validate", "--format", "json", "-p", "{protocol}", "{}"])
        .assert()
        .code(0);
    let (records, summary) = graded(&out.get_output().stdout);
    assert!(records.len() >= 380, "{} vectors", records.len());
    assert_eq!(failed_ids(&records), BTreeSet::new());
    assert_eq!(summary["mandatory_met"], true);
    let protocols: Vec<&str> = summary["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["protocol"].as_str().unwrap())
        .collect();
    assert_eq!(protocols, ["hsp", "crosstalk", "csdl", "msp", "a2a"]);
}

#[test]
fn aiproto_verify_passes_every_signature_vector_and_a_verifier_that_trusts_everything_does_not() {
    let h = home();
    let b = bin();
    aiproto(h.path())
        .args(["conformance", "verifier", "--"])
        .args([&b, "verify", "--pubkey", "{key}", "{}"])
        .assert()
        .code(0);
    // `validate` says nothing about signatures: altered, foreign-key and
    // unsigned messages all pass it, and each is graded down.
    let out = aiproto(h.path())
        .args(["conformance", "verifier", "--format", "json", "--"])
        .args([&b, "validate", "{}"])
        .assert()
        .code(1);
    let (records, _) = graded(&out.get_output().stdout);
    let rejects: BTreeSet<String> = listed(h.path(), &[])
        .iter()
        .filter(|v| v["kind"] == "signature" && v["expect"] == "reject")
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    assert!(rejects.contains("crosstalk/signed/body-altered"));
    assert!(rejects.contains("hsp/signed/unsigned"));
    assert_eq!(failed_ids(&records), rejects);
}

#[test]
fn a_parser_that_accepts_everything_fails_exactly_the_vectors_the_spec_refuses() {
    let h = home();
    let out = aiproto(h.path())
        .args(["conformance", "parser", "--format", "json", "--", "true"])
        .assert()
        .code(1);
    let (records, summary) = graded(&out.get_output().stdout);
    let rejects: BTreeSet<String> = listed(h.path(), &[])
        .iter()
        .filter(|v| (v["kind"] == "message" || v["kind"] == "damage") && v["expect"] == "reject")
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    assert!(rejects.len() > 150, "{}", rejects.len());
    assert_eq!(failed_ids(&records), rejects);
    assert!(
        records
            .iter()
            .filter(|r| r["passed"] == false)
            .all(|r| r["code"] == "CONF-ACCEPTED")
    );
    assert_eq!(summary["mandatory_met"], false);
    assert!(
        summary["protocols"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["compliance"] == "none")
    );
}

/// An implementer's loop: a failure names its vector and its file in a
/// written kit; `--only` reruns exactly that vector (or a section, or a
/// glob); a baseline of today's failures passes, and a new failure, or a
/// listed one that passes now, changes the verdict; a typo in the baseline
/// stops the run before anything runs.
#[test]
fn failures_point_at_their_files_and_a_baseline_fails_only_on_a_change() {
    let h = home();
    // An imperfect HSP parser: anything that starts like a JSON object is
    // fine (a shell one: the runs below start it for every vector, five
    // times over).
    let parser = h.path().join("naive.sh");
    std::fs::write(&parser, "[ \"$(head -c 1 \"$1\")\" = \"{\" ]\n").unwrap();
    let naive = parser.to_str().unwrap();
    let base = h.path().join("expected-failures.txt");
    let out = aiproto(h.path())
        .args([
            "conformance",
            "parser",
            "-p",
            "hsp",
            "--format",
            "json",
            "--write-expected-failures",
        ])
        .arg(&base)
        .args(["--", "sh", naive, "{}"])
        .assert()
        .code(1);
    let (records, _) = graded(&out.get_output().stdout);
    let failed = failed_ids(&records);
    assert!(failed.len() > 50, "{}", failed.len());
    let one = record(&records, "hsp/invalid/fact-confidence-above-1");
    assert_eq!(one["passed"], false);
    assert_eq!(one["file"], "hsp/invalid/fact-confidence-above-1.json");
    // The written kit has that file.
    let kit = h.path().join("kit");
    aiproto(h.path())
        .args(["conformance", "vectors", "-q", "--out"])
        .arg(&kit)
        .assert()
        .success();
    assert!(
        kit.join("hsp/invalid/fact-confidence-above-1.json")
            .is_file()
    );

    // The human run: counts by section and by cause before the detail.
    let out = aiproto(h.path())
        .args([
            "conformance",
            "parser",
            "-p",
            "hsp",
            "--",
            "sh",
            naive,
            "{}",
        ])
        .assert()
        .code(1);
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let groups = text
        .find("failures by spec section")
        .expect("grouped counts");
    assert!(text.find("failures by cause").unwrap() < text.find("FAIL ").unwrap());
    assert!(groups < text.find("FAIL ").unwrap());
    assert!(
        text.contains("file: hsp/invalid/fact-confidence-above-1.json"),
        "{text}"
    );

    // --only reruns exactly one vector, or a section.
    let only = |patterns: &[&str]| {
        let mut cmd = aiproto(h.path());
        cmd.args(["conformance", "parser", "--format", "json"]);
        for p in patterns {
            cmd.args(["--only", p]);
        }
        let out = cmd.args(["--", "sh", naive, "{}"]).assert().code(1);
        graded(&out.get_output().stdout).0
    };
    assert_eq!(only(&["hsp/invalid/fact-confidence-above-1"]).len(), 1);
    let records = only(&["acknowledgements", "hsp/1.0/fact-*"]);
    assert!(records.len() > 5);
    assert!(records.iter().all(|r| {
        r["section"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("acknowledgements")
            || r["id"].as_str().unwrap().starts_with("hsp/1.0/fact-")
    }));

    // Today's failures as the baseline: the same run passes.
    let against = |file: &std::path::Path, code: i32| {
        let out = aiproto(h.path())
            .args([
                "conformance",
                "parser",
                "-p",
                "hsp",
                "--format",
                "json",
                "--expected-failures",
            ])
            .arg(file)
            .args(["--", "sh", naive, "{}"])
            .assert()
            .code(code);
        let (_, summary) = graded(&out.get_output().stdout);
        (
            summary,
            String::from_utf8_lossy(&out.get_output().stderr).to_string(),
        )
    };
    let (summary, _) = against(&base, 0);
    assert_eq!(summary["baseline"]["new"], serde_json::json!([]));
    // One mandatory failure left out of it: a new failure.
    let text = std::fs::read_to_string(&base).unwrap();
    let fewer = h.path().join("fewer.txt");
    std::fs::write(
        &fewer,
        text.replace("hsp/invalid/fact-confidence-above-1 ", "# "),
    )
    .unwrap();
    let (summary, err) = against(&fewer, 1);
    assert_eq!(
        summary["baseline"]["new"],
        serde_json::json!(["hsp/invalid/fact-confidence-above-1"])
    );
    assert!(
        err.contains("new failure: hsp/invalid/fact-confidence-above-1"),
        "{err}"
    );
    // A vector that passes listed too: the baseline is out of date.
    let more = h.path().join("more.txt");
    std::fs::write(&more, format!("{text}hsp/1.0/fact\n")).unwrap();
    let (summary, err) = against(&more, 1);
    assert_eq!(
        summary["baseline"]["fixed"],
        serde_json::json!(["hsp/1.0/fact"])
    );
    assert!(err.contains("passes now"), "{err}");
    // A typo: refused before anything runs, naming the line.
    let typo = h.path().join("typo.txt");
    std::fs::write(&typo, "hsp/1.0/fcat\n").unwrap();
    let out = aiproto(h.path())
        .args(["conformance", "parser", "-p", "hsp", "--expected-failures"])
        .arg(&typo)
        .args(["--", "sh", naive, "{}"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("typo.txt:1: `hsp/1.0/fcat` is no vector"),
        "{err}"
    );
    assert!(out.get_output().stdout.is_empty());
}

#[test]
fn a_parser_that_hangs_is_stopped_and_graded_broken_within_its_time_bound() {
    let h = home();
    let started = std::time::Instant::now();
    let out = aiproto(h.path())
        .args([
            "conformance",
            "parser",
            "-p",
            "msp",
            "--timeout",
            "0.3",
            "-j",
            "4",
            "--format",
            "json",
            "--",
            "sh",
            "-c",
            "sleep 30",
        ])
        .assert()
        .code(1);
    let (records, _) = graded(&out.get_output().stdout);
    assert!(records.iter().all(|r| {
        r["code"] == "CONF-BROKEN"
            && r["why"]
                .as_str()
                .unwrap()
                .contains("no verdict within 0.3 s")
    }));
    // 43 vectors at 0.3 s, 4 at a time: far below 43 × 30 s.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn nothing_to_grade_or_nothing_to_run_is_an_error_never_a_pass() {
    let h = home();
    // MSP has no recommended vectors.
    aiproto(h.path())
        .args([
            "conformance",
            "parser",
            "-p",
            "msp",
            "--level",
            "recommended",
            "--",
            "true",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("nothing to grade"));
    aiproto(h.path())
        .args(["conformance", "parser", "--", "/nonexistent/parser", "{}"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "cannot run `/nonexistent/parser`",
        ));
    aiproto(h.path())
        .args(["conformance", "parser", "--codes", "--", "true"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--adapter json"));
    // A port nobody listens on.
    let port = super::free_port();
    aiproto(h.path())
        .args([
            "conformance",
            "http",
            &format!("http://127.0.0.1:{port}/hsp"),
        ])
        .assert()
        .code(3);
    aiproto(h.path())
        .args(["conformance", "http", "http://127.0.0.1:1/inbox"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--protocol"));
}

#[test]
fn aiproto_serve_passes_every_vector_of_both_http_bindings() {
    let h = home();
    let server = Server::start(h.path(), &["--inbox", "inbox"]);
    for route in ["crosstalk/receive", "hsp"] {
        let records = http_graded(h.path(), &format!("{}/{route}", server.url), &[], 0);
        assert!(records.len() > 100, "{route}: {}", records.len());
        assert_eq!(failed_ids(&records), BTreeSet::new(), "{route}");
    }
}

/// Graded at the server's base URL instead of its endpoint, every vector
/// would fail with the same 404: the run stops after a few, exit 3, and
/// asks whether this is the endpoint, naming the binding's paths.
#[test]
fn a_url_that_is_not_the_endpoint_stops_the_run_with_a_hint() {
    let h = home();
    let server = Server::start(h.path(), &["--inbox", "inbox"]);
    let out = aiproto(h.path())
        .args(["conformance", "http", "--protocol", "hsp"])
        .arg(format!("{}/", server.url))
        .assert()
        .code(3);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("is this the endpoint?"), "{err}");
    assert!(err.contains("POST /hsp or /message"), "{err}");
    assert!(out.get_output().stdout.is_empty(), "no grade is printed");
}

#[test]
fn a_receiver_that_takes_messages_without_acknowledging_them_is_graded_down() {
    let h = home();
    // A handler whose reply is no envelope, and one that echoes the HSP
    // message back instead of an ACK naming it.
    let thanks = Server::start(h.path(), &["--exec", "echo thanks"]);
    let records = http_graded(
        h.path(),
        &format!("{}/crosstalk/receive", thanks.url),
        &[],
        1,
    );
    for r in &records {
        let accept = r["expect"] == "accept";
        assert_eq!(r["passed"] == false, accept, "{r}");
        if accept {
            assert_eq!(r["code"], "CONF-ANSWER", "{r}");
        }
    }
    let echo = Server::start(h.path(), &["--exec", "cat"]);
    let records = http_graded(
        h.path(),
        &format!("{}/hsp", echo.url),
        &["--level", "mandatory"],
        1,
    );
    let fact = record(&records, "hsp/1.0/fact");
    assert_eq!(fact["code"], "CONF-ANSWER");
    assert!(
        fact["why"].as_str().unwrap().contains("correlation_id"),
        "{fact}"
    );
}

#[test]
fn the_ci_reports_hold_a_test_case_per_vector_and_a_finding_per_failure() {
    let h = home();
    let junit = aiproto(h.path())
        .args([
            "conformance",
            "parser",
            "-p",
            "msp",
            "--format",
            "junit",
            "--",
            "true",
        ])
        .assert()
        .code(1);
    let xml = String::from_utf8(junit.get_output().stdout.clone()).unwrap();
    let vectors = listed(h.path(), &["-p", "msp"]);
    let rejects = vectors.iter().filter(|v| v["expect"] == "reject").count();
    assert_eq!(xml.matches("<testcase ").count(), vectors.len());
    assert_eq!(xml.matches("<failure").count(), rejects, "{xml}");
    let sarif = aiproto(h.path())
        .args([
            "conformance",
            "parser",
            "-p",
            "msp",
            "--format",
            "sarif",
            "--",
            "true",
        ])
        .assert()
        .code(1);
    let log: serde_json::Value = serde_json::from_slice(&sarif.get_output().stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), rejects);
    assert!(results.iter().all(|r| r["ruleId"] == "CONF-ACCEPTED"));
}

#[test]
fn vectors_are_written_for_other_implementations_and_never_into_a_strangers_folder() {
    let h = home();
    aiproto(h.path())
        .args(["conformance", "vectors", "-p", "crosstalk", "--out", "kit"])
        .current_dir(h.path())
        .assert()
        .code(0);
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(h.path().join("kit/manifest.json")).unwrap())
            .unwrap();
    let vectors = manifest["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), listed(h.path(), &["-p", "crosstalk"]).len());
    for v in vectors {
        assert!(
            h.path()
                .join("kit")
                .join(v["file"].as_str().unwrap())
                .is_file(),
            "{v}"
        );
        assert!(["mandatory", "recommended", "decision"].contains(&v["level"].as_str().unwrap()));
    }
    std::fs::create_dir(h.path().join("project")).unwrap();
    std::fs::write(h.path().join("project/Cargo.toml"), "").unwrap();
    aiproto(h.path())
        .args(["conformance", "vectors", "--out", "project"])
        .current_dir(h.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no manifest.json"));
}

/// A shell pipeline in its own process group, stopped whole when dropped.
struct Pipeline(std::process::Child);

impl Drop for Pipeline {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &group])
            .status();
        let _ = self.0.wait();
    }
}

/// An HSP agent made of aiproto commands on `port`: `recv` answers ACKs
/// and NACKs; TaskRequests go through `compose hsp task-result` and `send`,
/// with `tamper` (a shell stage, `| …`) between them to break it on purpose. Stopped when
/// dropped; `recv` also ends by itself after two minutes.
fn aiproto_agent(h: &std::path::Path, port: u16, recv_flags: &str, tamper: &str) -> Pipeline {
    let b = bin();
    let script = format!(
        "'{b}' recv --via mqtt://127.0.0.1:{port}/hsp/agents/did:hsp:worker --as did:hsp:worker \
         --timeout 120 {recv_flags} 2>/dev/null | while IFS= read -r m; do \
           case \"$m\" in *'\"HSP::TaskRequest_v'*) printf '%s\\n' \"$m\" | '{b}' compose hsp task-result \
             --reply-to - --from did:hsp:worker --status success {tamper} | \
             '{b}' send --via mqtt://127.0.0.1:{port} >/dev/null 2>&1 ;; esac; \
         done"
    );
    let mut command = std::process::Command::new("sh");
    command.args(["-c", &script]).env("AIPROTO_HOME", h);
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let child = command.spawn().unwrap();
    // recv says nothing on stdout until a message comes: give it its subscription.
    std::thread::sleep(std::time::Duration::from_millis(800));
    Pipeline(child)
}

fn graded_agent(h: &std::path::Path, port: u16, code: i32) -> Vec<serde_json::Value> {
    let out = aiproto(h)
        .args([
            "conformance",
            "mqtt",
            &format!("mqtt://127.0.0.1:{port}"),
            "--agent",
            "did:hsp:worker",
            "--capability",
            "echo",
            "--timeout",
            "3",
            "--format",
            "json",
        ])
        .assert()
        .code(code);
    graded(&out.get_output().stdout).0
}

#[test]
fn aiproto_as_an_mqtt_agent_passes_every_probe() {
    let h = home();
    let (_broker, port) = super::embedded_broker(h.path());
    let _agent = aiproto_agent(h.path(), port, "", "");
    let records = graded_agent(h.path(), port, 0);
    let ids: Vec<&str> = records.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert!(
        ids.contains(&"hsp/agent/task-result") && ids.contains(&"hsp/agent/survives-garbage"),
        "{ids:?}"
    );
    assert_eq!(failed_ids(&records), BTreeSet::new());
}

#[test]
fn an_agent_that_never_acks_or_answers_with_another_correlation_id_is_graded_down() {
    let h = home();
    let (_broker, port) = super::embedded_broker(h.path());
    {
        let _silent = aiproto_agent(h.path(), port, "--no-ack", "");
        let records = graded_agent(h.path(), port, 1);
        let failed = failed_ids(&records);
        for id in [
            "hsp/agent/ack-when-asked-1.0",
            "hsp/agent/ack-when-asked-0.1",
            "hsp/agent/survives-garbage",
        ] {
            assert!(failed.contains(id), "{id} should fail: {failed:?}");
        }
        let ack = record(&records, "hsp/agent/ack-when-asked-1.0");
        assert_eq!(ack["code"], "CONF-BROKEN");
        assert!(
            ack["why"]
                .as_str()
                .unwrap()
                .contains("no ACK or NACK naming"),
            "{ack}"
        );
        assert!(!failed.contains("hsp/agent/task-result"), "{failed:?}");
    }
    let _wrong = aiproto_agent(
        h.path(),
        port,
        "",
        r#"| sed 's/"correlation_id": "[^"]*"/"correlation_id": "018f4a6e-8c1b-7d2a-9e3f-0000000000aa"/'"#,
    );
    let records = graded_agent(h.path(), port, 1);
    assert_eq!(
        failed_ids(&records),
        BTreeSet::from(["hsp/agent/task-result".to_string()])
    );
    let task = record(&records, "hsp/agent/task-result");
    assert_eq!(task["code"], "CONF-ANSWER");
    assert!(
        task["why"]
            .as_str()
            .unwrap()
            .contains("correlation_id is 018f4a6e-8c1b-7d2a-9e3f-0000000000aa"),
        "{task}"
    );
}

/// `--format html`: one page for a graded run (the failures in it, no
/// script); refused where there is no graded run.
#[test]
fn a_graded_run_is_one_self_contained_page() {
    let h = home();
    let out = aiproto(h.path())
        .args([
            "conformance",
            "parser",
            "--format",
            "html",
            "--only",
            "hsp/invalid/fact-*",
            "--",
            "true",
        ])
        .assert()
        .code(1);
    let page = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.contains("id=\"hsp/invalid/fact-confidence-above-1\""));
    assert!(page.contains("hsp/invalid/fact-confidence-above-1.json"));
    assert!(page.contains("CONF-ACCEPTED") && !page.contains("<script"));
    for args in [
        &["validate", "--format", "html", "-"][..],
        &["conformance", "vectors", "--format", "html"][..],
    ] {
        aiproto(h.path())
            .args(args)
            .write_stdin("")
            .assert()
            .code(2);
    }
}
