//! End-to-end tests: the real `aiproto` binary on examples, fixtures and generated input.

// A failed unwrap in a test helper is a failed test, with its location.
#![allow(clippy::unwrap_used)]

mod bad_input;
mod clipboard;
mod completions;
mod compose;
mod compose_hsp;
mod convert;
mod csdl;
mod desk;
mod email;
mod examples;
mod hsp;
mod http;
mod mcp;
mod mqtt;
mod msp;
mod msp_remote;
mod project;
mod relay;
mod relay_loop;
mod send;
mod sign;
mod streaming;
mod transcripts;
mod trust;
mod validate;
mod views;

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The binary, with a private AIPROTO_HOME and no color.
pub fn aiproto(home: &Path) -> Command {
    let mut cmd = Command::cargo_bin("aiproto").expect("binary built");
    cmd.env("AIPROTO_HOME", home)
        .env("NO_COLOR", "1")
        .env_remove("AIPROTO_EMBEDDING_MODEL_DIR")
        .env_remove("RUST_BACKTRACE");
    cmd
}

/// A temporary directory that lives as long as the test.
pub fn home() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// A path inside the repository.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The JSON Lines of a `--format json` run.
pub fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON"))
        .collect()
}

/// A small valid 1.1 envelope.
pub const REQUEST: &str = "[[CLAUDE→CHATGPT v1]]
user: kalle
session: 2025-10-09T16Z abc123
thread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K
message: 01J9J3DBC4N7P2Q3R5S7T9W1V2
context: review
intent: REQUEST
body: |
  Please review.
sig: none
[[END]]
";

/// An archive of `count` envelopes (copies of [`REQUEST`], each with its own
/// id and a body long enough that the archive spans several of the pieces
/// the readers stream in), with `damage` applied to envelope `broken_at`.
/// Returns the archive and the line at which that envelope begins.
pub fn big_archive(
    count: usize,
    broken_at: Option<usize>,
    damage: impl Fn(&str) -> String,
) -> (String, usize) {
    let mut archive = String::new();
    let mut broken_line = 0;
    for i in 0..count {
        let mut envelope = REQUEST.replace("01J9J3DBC4N7P2Q3R5S7T9W1V2", &big_archive_id(i));
        envelope = envelope.replace("review", &"review ".repeat(40));
        if Some(i) == broken_at {
            broken_line = archive.matches('\n').count() + 1;
            envelope = damage(&envelope);
        }
        archive.push_str(&envelope);
        archive.push('\n');
    }
    (archive, broken_line)
}

/// The id of envelope `i` of [`big_archive`].
pub fn big_archive_id(i: usize) -> String {
    format!("01J9J3DBC4N7P2Q3R5{i:08}")
}

/// The messages of `text` signed with the keystore key `key` (in `h`).
pub fn sign(h: &std::path::Path, key: &str, text: &str) -> String {
    let out = aiproto(h)
        .args(["sign", "--key", key])
        .write_stdin(text.to_string())
        .assert()
        .code(0);
    String::from_utf8_lossy(&out.get_output().stdout).to_string()
}
