//! Grading a parser or a verifier: the implementation's command is run
//! once per vector, and its exit status (or its JSON) is its verdict.
//!
//! The adapter contract (docs/conformance.md): in the command's arguments
//! `{}` becomes the vector's file, `{key}` the public key of a signature
//! vector, `{protocol}` and `{version}` what the vector is written in;
//! without `{}` the vector comes on stdin. With the `exit` adapter, 0 is
//! "accepted", 1 "refused" and anything else no verdict; with the `json`
//! adapter the command prints one JSON object per message it read, each
//! with a `valid` boolean and optionally `errors` and `warnings` (lists of
//! codes, or of objects with a `code`), which is what
//! `aiproto validate --format json` prints.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::delivery::handler::{Unfinished, run_bounded};

use super::grade::Observed;
use super::vectors::Vector;

/// How the command's answer is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adapter {
    Exit,
    Json,
}

/// The implementation under test.
#[derive(Debug, Clone)]
pub struct Implementation {
    /// The program and its arguments, with placeholders.
    pub argv: Vec<String>,
    pub adapter: Adapter,
    /// Per vector; past it the command is stopped and the vector fails.
    pub timeout: Duration,
}

impl Implementation {
    /// Runs the command on `vector`, whose file (and key) were written
    /// under `kit` at their kit paths.
    pub fn observe(&self, vector: &Vector, kit: &Path) -> Observed {
        let file = kit.join(vector.kit_path());
        let key = vector.kit_key_path().map(|k| kit.join(k));
        let (argv, on_stdin) = self.arguments(vector, &file, key.as_deref());
        let mut command = Command::new(&argv[0]);
        command.args(&argv[1..]);
        let input: &[u8] = if on_stdin { vector.bytes() } else { b"" };
        let finished = match run_bounded(command, input, self.timeout, true) {
            Ok(finished) => finished,
            Err(Unfinished::Spawn(e)) => {
                return Observed::broken(format!("cannot run `{}`: {e}", argv[0]));
            }
            Err(Unfinished::Late) => {
                return Observed::broken(format!(
                    "no verdict within {} s: stopped",
                    self.timeout.as_secs_f64()
                ));
            }
            Err(Unfinished::Wait(e) | Unfinished::Read(e)) => {
                return Observed::broken(format!("lost the command's answer: {e}"));
            }
        };
        let said = last_line(&finished.stderr);
        let code = match finished.status.code() {
            Some(code @ (0 | 1)) => code,
            Some(code) => return Observed::broken(format!("exited with {code}{said}")),
            None => {
                return Observed::broken(format!("ended by a signal ({}){said}", finished.status));
            }
        };
        let observed = match self.adapter {
            Adapter::Exit if code == 0 => Observed::accepted(vec![], vec![]),
            Adapter::Exit => Observed::refused(vec![], vec![]),
            Adapter::Json => read_json_verdict(&finished.stdout, code),
        };
        observed.saying(said.strip_prefix(": ").map(str::to_string))
    }

    /// The command line for `vector`, and whether it reads the vector on stdin.
    fn arguments(&self, vector: &Vector, file: &Path, key: Option<&Path>) -> (Vec<String>, bool) {
        let mut on_stdin = true;
        let argv = self
            .argv
            .iter()
            .map(|arg| {
                if arg.contains("{}") {
                    on_stdin = false;
                }
                arg.replace("{}", &file.to_string_lossy())
                    .replace(
                        "{key}",
                        &key.map(|k| k.to_string_lossy().into_owned())
                            .unwrap_or_default(),
                    )
                    .replace("{protocol}", vector.protocol())
                    .replace("{version}", &vector.version)
            })
            .collect();
        (argv, on_stdin)
    }
}

/// The last non-empty line of a command's stderr, as `: …` for a reason.
fn last_line(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| format!(": {}", l.trim()))
        .unwrap_or_default()
}

/// The `json` adapter's verdict: every object printed must say `valid`;
/// the input is accepted when there is at least one and all are valid.
fn read_json_verdict(stdout: &[u8], code: i32) -> Observed {
    let text = String::from_utf8_lossy(stdout);
    let mut any = false;
    let mut valid = true;
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let object: serde_json::Value = match serde_json::from_str(line) {
            Ok(v @ serde_json::Value::Object(_)) => v,
            _ => {
                return Observed::broken(format!(
                    "line {} of its output is not a JSON object",
                    n + 1
                ));
            }
        };
        let Some(ok) = object.get("valid").and_then(serde_json::Value::as_bool) else {
            return Observed::broken(format!(
                "line {} of its output has no boolean `valid`",
                n + 1
            ));
        };
        any = true;
        valid &= ok;
        codes_of(&object, "errors", &mut errors);
        codes_of(&object, "warnings", &mut warnings);
        codes_of(&object, "codes", &mut errors);
    }
    if !any {
        return Observed::broken("printed no JSON verdict");
    }
    if valid != (code == 0) {
        return Observed::broken(format!(
            "its JSON says {} but it exited with {code}",
            if valid { "valid" } else { "invalid" }
        ));
    }
    errors.sort();
    errors.dedup();
    warnings.sort();
    warnings.dedup();
    if valid {
        Observed::accepted(errors, warnings)
    } else {
        Observed::refused(errors, warnings)
    }
}

fn codes_of(object: &serde_json::Value, field: &str, out: &mut Vec<String>) {
    for item in object
        .get(field)
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
    {
        match item {
            serde_json::Value::String(code) => out.push(code.clone()),
            serde_json::Value::Object(o) => {
                if let Some(code) = o.get("code").and_then(serde_json::Value::as_str) {
                    out.push(code.to_string());
                }
            }
            _ => {}
        }
    }
}

/// Where a run writes the vectors it hands to the command: a fresh
/// temporary directory, removed when dropped.
pub fn scratch_kit(vectors: &[Vector]) -> std::io::Result<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::Builder::new()
        .prefix("aiproto-conformance-")
        .tempdir()?;
    let root = dir.path().join("kit");
    super::vectors::write_kit(&root, vectors)?;
    Ok((dir, root))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::vectors::{Kind, all};

    fn implementation(argv: &[&str], adapter: Adapter) -> Implementation {
        Implementation {
            argv: argv.iter().map(|s| s.to_string()).collect(),
            adapter,
            timeout: Duration::from_secs(5),
        }
    }

    fn one() -> (Vector, tempfile::TempDir, PathBuf) {
        let v = all().into_iter().find(|v| v.kind == Kind::Message).unwrap();
        let (dir, root) = scratch_kit(std::slice::from_ref(&v)).unwrap();
        (v, dir, root)
    }

    #[test]
    fn the_exit_adapter_reads_0_as_accepted_1_as_refused_and_else_no_verdict() {
        let (v, _dir, root) = one();
        let run = |cmd: &str| implementation(&["sh", "-c", cmd], Adapter::Exit).observe(&v, &root);
        assert_eq!(run("exit 0"), Observed::accepted(vec![], vec![]));
        assert_eq!(run("exit 1"), Observed::refused(vec![], vec![]));
        let Observed::Broken { why } = run("echo 'parser exploded' >&2; exit 101") else {
            panic!()
        };
        assert_eq!(why, "exited with 101: parser exploded");
        let Observed::Broken { why } = run("kill -SEGV $$") else {
            panic!()
        };
        assert!(why.contains("signal"), "{why}");
        let Observed::Broken { why } =
            implementation(&["/nonexistent/parser"], Adapter::Exit).observe(&v, &root)
        else {
            panic!()
        };
        assert!(why.starts_with("cannot run `/nonexistent/parser`"), "{why}");
    }

    #[test]
    fn the_vector_goes_as_a_path_for_braces_and_on_stdin_without() {
        let (v, _dir, root) = one();
        let same = |cmd: &str| {
            implementation(&["sh", "-c", cmd, "sh", "{}"], Adapter::Exit).observe(&v, &root)
        };
        // cmp exits 0 only when the file handed over holds the vector's bytes.
        let expected = root.join(v.kit_path());
        let expected = expected.to_string_lossy();
        assert_eq!(
            same(&format!("cmp -s \"$1\" '{expected}'")),
            Observed::accepted(vec![], vec![])
        );
        let stdin = implementation(
            &["sh", "-c", &format!("cmp -s - '{expected}'")],
            Adapter::Exit,
        );
        assert_eq!(stdin.observe(&v, &root), Observed::accepted(vec![], vec![]));
    }

    #[test]
    fn a_command_past_its_deadline_is_stopped_and_fails_the_vector() {
        let (v, _dir, root) = one();
        let mut slow = implementation(&["sh", "-c", "sleep 30 & sleep 30"], Adapter::Exit);
        slow.timeout = Duration::from_millis(300);
        let started = std::time::Instant::now();
        let Observed::Broken { why } = slow.observe(&v, &root) else {
            panic!()
        };
        assert!(why.contains("no verdict within 0.3 s"), "{why}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn the_json_adapter_reads_validate_records_and_refuses_what_does_not_fit_the_contract() {
        let ok = br#"{"valid":true,"errors":[],"warnings":[{"code":"INPUT-BOM"}]}"#;
        assert_eq!(
            read_json_verdict(ok, 0),
            Observed::accepted(vec![], vec!["INPUT-BOM".into()])
        );
        let two = b"{\"valid\":true}\n{\"valid\":false,\"codes\":[\"E1\"]}\n";
        assert_eq!(
            read_json_verdict(two, 1),
            Observed::refused(vec!["E1".into()], vec![])
        );
        for (out, code, why) in [
            (&b""[..], 0, "printed no JSON verdict"),
            (b"ok", 0, "not a JSON object"),
            (b"{\"errors\":[]}", 0, "no boolean `valid`"),
            (b"{\"valid\":true}", 1, "says valid but it exited with 1"),
        ] {
            let Observed::Broken { why: got } = read_json_verdict(out, code) else {
                panic!()
            };
            assert!(got.contains(why), "{got}");
        }
    }
}
