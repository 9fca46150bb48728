//! One library under every face: the same inputs through the command line
//! (`--format json`), the MCP server (the official SDK's client) and the
//! desk's API (over HTTP, as the page calls it) give the same verdicts and
//! the same converted bytes. The inputs are the shipped examples, the chat
//! damage fixtures and a hostile size.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{aiproto, home, json_lines, repo};

/// Every file under `dir`, sorted, as paths relative to `root`.
fn files(root: &Path, dir: &str, out: &mut Vec<String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .to_string();
        if path.is_dir() {
            files(root, &rel, out);
        } else {
            out.push(rel);
        }
    }
}

/// The inputs: a copy of the examples and the damage fixtures, and an
/// envelope whose body is 3 MB.
fn inputs() -> (tempfile::TempDir, Vec<String>) {
    let root = tempfile::tempdir().unwrap();
    let copy = |from: &Path, to: &Path| {
        let status = std::process::Command::new("cp")
            .arg("-r")
            .arg(from)
            .arg(to)
            .status()
            .unwrap();
        assert!(status.success());
    };
    copy(&repo("examples"), &root.path().join("examples"));
    copy(
        &repo("tests/fixtures/chat-damage"),
        &root.path().join("chat-damage"),
    );
    let body: String = "  one line of a long body\n".repeat(120_000);
    let huge = super::REQUEST.replace("  Please review.\n", &body);
    std::fs::write(root.path().join("huge.crosstalk"), huge).unwrap();
    let mut all = Vec::new();
    files(root.path(), "examples", &mut all);
    files(root.path(), "chat-damage", &mut all);
    all.push("huge.crosstalk".into());
    (root, all)
}

/// A verdict without the name its face gave the input.
fn unnamed(mut record: Value) -> Value {
    if let Some(map) = record.as_object_mut() {
        map.remove("source");
    }
    record
}

/// The command line's verdicts, by input.
fn cli_verdicts(root: &Path, home: &Path, paths: &[String]) -> BTreeMap<String, Vec<Value>> {
    let out = aiproto(home)
        .current_dir(root)
        .args(["validate", "--format", "json"])
        .args(paths)
        .output()
        .unwrap();
    let mut by_input: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for record in json_lines(&out.stdout) {
        let source = record["source"].as_str().unwrap().to_string();
        by_input.entry(source).or_default().push(unnamed(record));
    }
    by_input
}

#[tokio::test]
async fn the_command_line_mcp_and_the_desk_give_the_same_verdicts() {
    let (root, paths) = inputs();
    let h = home();
    let cli = cli_verdicts(root.path(), h.path(), &paths);
    // Large enough for the hostile size; the default limit is checked below.
    let mcp = super::mcp::start(root.path(), h.path(), &["--max-bytes", "16777216"]).await;
    let archive = h.path().join("desk.crosstalk");
    let desk = super::desk::start(h.path(), &archive, &["--max-bytes", "16777216"]);
    let mut compared = 0;
    let mut differ = Vec::new();
    for path in &paths {
        let want = cli.get(path).cloned().unwrap_or_default();
        let by_mcp = super::mcp::call(&mcp, "validate", json!({ "path": path })).await;
        let Some(answer) = by_mcp.structured_content.as_ref() else {
            differ.push(format!("{path}: MCP refused it: {:?}", by_mcp.content));
            continue;
        };
        let got: Vec<Value> = answer["messages"]
            .as_array()
            .unwrap()
            .iter()
            .cloned()
            .map(unnamed)
            .collect();
        if got != want {
            differ.push(format!("{path}: MCP {got:?}\n  command line {want:?}"));
        }
        let text = std::fs::read(root.path().join(path)).unwrap();
        let Ok(text) = String::from_utf8(text) else {
            continue; // the desk takes pasted text; bytes that are no text cannot be pasted
        };
        let (status, answer) = super::desk::call(&desk, "read", &json!({ "text": text }));
        assert_eq!(status, 200, "{path}: {answer}");
        let got: Vec<Value> = match answer["messages"].as_array().unwrap().as_slice() {
            [] => answer["input"]
                .as_object()
                .map(|_| answer["input"].clone())
                .into_iter()
                .collect(),
            messages => messages.iter().map(|m| m["verdict"].clone()).collect(),
        };
        let got: Vec<Value> = got.into_iter().map(unnamed).collect();
        if got != want {
            differ.push(format!("{path}: desk {got:?}\n  command line {want:?}"));
        }
        compared += 1;
    }
    assert!(differ.is_empty(), "\n{}\n", differ.join("\n"));
    assert!(compared > 200, "only {compared} inputs compared");
    mcp.cancel().await.unwrap();
    // A server's own bound, said as such: the one difference on purpose.
    let bounded = super::mcp::start(root.path(), h.path(), &[]).await;
    let refused = super::mcp::call(&bounded, "validate", json!({ "path": "huge.crosstalk" })).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(
        format!("{:?}", refused.content)
            .contains("over this server's limit of 1048576 (--max-bytes)"),
        "{:?}",
        refused.content
    );
    bounded.cancel().await.unwrap();
}

#[tokio::test]
async fn the_command_line_and_mcp_convert_to_the_same_bytes() {
    let (root, _) = inputs();
    let h = home();
    let mut valid = Vec::new();
    for dir in ["crosstalk/valid", "hsp/valid", "csdl/valid", "msp/valid"] {
        files(root.path(), &format!("examples/{dir}"), &mut valid);
    }
    let mcp = super::mcp::start(root.path(), h.path(), &[]).await;
    for target in ["crosstalk", "hsp", "csdl", "msp"] {
        for path in &valid {
            let cli = aiproto(h.path())
                .current_dir(root.path())
                .args(["convert", "--to", target])
                .arg(path)
                .output()
                .unwrap();
            let by_mcp =
                super::mcp::call(&mcp, "convert", json!({ "path": path, "to": target })).await;
            let answer = super::mcp::structured(&by_mcp);
            let texts: String = answer["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["text"].as_str().unwrap())
                .collect::<Vec<_>>()
                .join(if target == "crosstalk" { "\n" } else { "" });
            let original = std::fs::read_to_string(root.path().join(path)).unwrap();
            assert_eq!(
                minted_ids_masked(&texts, &original),
                minted_ids_masked(&String::from_utf8_lossy(&cli.stdout), &original),
                "{path} --to {target}: MCP and the command line write other bytes"
            );
        }
    }
    mcp.cancel().await.unwrap();
}

/// The same fields composed by the command line and by MCP make the same
/// message (its minted id and times aside), and the same refusals: HSP
/// kinds with their payloads, an ERROR and a NACK with their code and
/// reason, a TaskResult with error details, a 1.0 capability without its
/// schemas, a reply to a TaskRequest, and Crosstalk envelopes.
#[tokio::test]
async fn the_command_line_and_mcp_compose_the_same_message() {
    let (root, _) = inputs();
    let h = home();
    std::fs::write(
        root.path().join("task.json"),
        r#"{"hsp_envelope_version":"1.0","message_id":"01J9J3DBC4N7P2Q3R5S7T9W1V2","sender_ai_id":"did:hsp:alice","recipient_ai_id":"did:hsp:bob","timestamp_sent":"2026-11-28T08:00:00Z","message_type":"HSP::TaskRequest_v1.0","protocol_version":"1.0","communication_pattern":"request","payload":{"request_id":"r1","capability_id_filter":"summarise","parameters":{"text":"hello"},"callback_address":"hsp/results/alice"}}"#,
    )
    .unwrap();
    let task = std::fs::read_to_string(root.path().join("task.json")).unwrap();
    let mcp = super::mcp::start(root.path(), h.path(), &[]).await;
    // (command-line arguments, MCP arguments)
    let cases: Vec<(Vec<&str>, Value)> = vec![
        (
            vec![
                "hsp",
                "fact",
                "--from",
                "did:hsp:a",
                "--statement",
                "water is wet",
                "--confidence",
                "0.9",
            ],
            json!({"protocol": "hsp", "kind": "fact", "from": "did:hsp:a", "payload": {"statement_nl": "water is wet", "confidence_score": 0.9}}),
        ),
        (
            vec![
                "hsp",
                "error",
                "--from",
                "did:hsp:a",
                "--to",
                "did:hsp:b",
                "--correlation-id",
                "c1",
                "--error-code",
                "E42",
                "--reason",
                "disk full",
            ],
            json!({"protocol": "hsp", "kind": "error", "from": "did:hsp:a", "to": "did:hsp:b", "correlation_id": "c1", "error_code": "E42", "reason": "disk full"}),
        ),
        (
            vec![
                "hsp",
                "nack",
                "--from",
                "did:hsp:a",
                "--to",
                "did:hsp:b",
                "--correlation-id",
                "c1",
                "--error-code",
                "E1",
                "--reason",
                "no",
            ],
            json!({"protocol": "hsp", "kind": "nack", "from": "did:hsp:a", "to": "did:hsp:b", "correlation_id": "c1", "error_code": "E1", "reason": "no"}),
        ),
        (
            vec![
                "hsp",
                "capability",
                "--from",
                "did:hsp:a",
                "--name",
                "summarise",
                "--parameters-schema",
                "{\"type\": \"object\"}",
            ],
            json!({"protocol": "hsp", "kind": "capability", "from": "did:hsp:a", "payload": {"name": "summarise", "parameters": {"type": "object"}}}),
        ),
        (
            vec![
                "hsp",
                "--reply-to",
                "task.json",
                "--from",
                "did:hsp:bob",
                "--status",
                "failure",
                "--error-code",
                "E7",
                "--reason",
                "too long",
            ],
            json!({"protocol": "hsp", "reply_to": task, "from": "did:hsp:bob", "payload": {"status": "failure"}, "error_code": "E7", "reason": "too long"}),
        ),
        (
            vec![
                "crosstalk",
                "--from",
                "CLAUDE",
                "--to",
                "CHATGPT",
                "--intent",
                "REQUEST",
                "--session",
                "2026-11-28T08Z abc123",
                "--body",
                "Please review.",
            ],
            json!({"protocol": "crosstalk", "from": "CLAUDE", "to": "CHATGPT", "intent": "REQUEST", "session": "2026-11-28T08Z abc123", "body": "Please review."}),
        ),
    ];
    for (args, params) in cases {
        let cli = aiproto(h.path())
            .current_dir(root.path())
            .arg("compose")
            .args(&args)
            .output()
            .unwrap();
        let by_mcp = super::mcp::call(&mcp, "compose", params.clone()).await;
        let mcp_text = by_mcp
            .structured_content
            .as_ref()
            .and_then(|s| s["text"].as_str())
            .map(str::to_string);
        let cli_text = cli
            .status
            .success()
            .then(|| String::from_utf8_lossy(&cli.stdout).into_owned());
        assert_eq!(
            mcp_text.is_some(),
            cli_text.is_some(),
            "{args:?}: one face composed, the other refused\nCLI: {}\nMCP: {:?}",
            String::from_utf8_lossy(&cli.stderr),
            by_mcp.content
        );
        if let (Some(cli_text), Some(mcp_text)) = (cli_text, mcp_text) {
            assert_eq!(
                minted_ids_masked(&mcp_text, &task),
                minted_ids_masked(&cli_text, &task),
                "{args:?}: MCP and the command line compose other messages"
            );
        }
    }
    mcp.cancel().await.unwrap();
}

/// `text` with every ULID, UUID or RFC 3339 time that `original` does not
/// hold masked: the ids and times a conversion mints (a 1.0 envelope's
/// thread, a message id, a signal's missing timestamp) are new on every run.
fn minted_ids_masked(text: &str, original: &str) -> String {
    let text = minted_times_masked(text, original);
    let text = text.as_str();
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let ulid = word.len() == 26 && word.chars().all(|c| c.is_ascii_alphanumeric());
        let uuid = word.len() == 36 && word.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
        if (ulid || uuid) && !original.contains(word.as_str()) {
            out.push_str("<minted>");
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// `text` with each `YYYY-MM-DDTHH:MM:SS[.fraction]Z` time that `original`
/// does not hold masked.
fn minted_times_masked(text: &str, original: &str) -> String {
    let bytes = text.as_bytes();
    let shape = |i: usize| {
        let at = |k: usize, f: fn(u8) -> bool| bytes.get(i + k).copied().is_some_and(f);
        let digit = |b: u8| b.is_ascii_digit();
        [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
            .iter()
            .all(|k| at(*k, digit))
            && at(4, |b| b == b'-')
            && at(10, |b| b == b'T')
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if shape(i) {
            let mut end = i + 19;
            while end < bytes.len() && (bytes[end].is_ascii_digit() || bytes[end] == b'.') {
                end += 1;
            }
            if bytes.get(end) == Some(&b'Z') {
                end += 1;
            }
            let time = &text[i..end];
            out.push_str(if original.contains(time) {
                time
            } else {
                "<minted>"
            });
            i = end;
        } else {
            let c = text[i..].chars().next().unwrap_or_default();
            out.push(c);
            i += c.len_utf8().max(1);
        }
    }
    out
}
