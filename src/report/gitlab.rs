//! GitLab code quality: a JSON array of issues, each with a description,
//! the check's name (the code), a fingerprint that stays the same from one
//! run to the next, a severity and a place.

use std::io::Write;

use serde_json::json;
use sha2::{Digest, Sha256};

use super::{Report, Verdict, has_place, paths, text_with_hint};
use crate::diag::Severity;

pub struct Gitlab<'w> {
    out: Box<dyn Write + 'w>,
    written: usize,
}

impl<'w> Gitlab<'w> {
    pub fn new(out: Box<dyn Write + 'w>) -> Self {
        Gitlab { out, written: 0 }
    }
}

impl Report for Gitlab<'_> {
    fn verdict(&mut self, verdict: &Verdict<'_>) -> std::io::Result<()> {
        let path = paths::relative(verdict.source);
        for finding in &verdict.findings {
            let d = finding.diagnostic;
            let line = if has_place(d) {
                d.line
            } else {
                verdict.line.unwrap_or(1)
            };
            let fingerprint = Sha256::digest(
                format!("{path}\0{}\0{line}\0{}\0{}", d.code, d.column, d.message).as_bytes(),
            );
            let issue = json!({
                "type": "issue",
                "description": text_with_hint(d),
                "check_name": d.code,
                "fingerprint": hex(&fingerprint),
                "severity": match finding.severity {
                    Severity::Error => "major",
                    Severity::Warning => "minor",
                },
                "location": {"path": path, "lines": {"begin": line}},
            });
            self.out.write_all(if self.written == 0 {
                b"[\n  "
            } else {
                b",\n  "
            })?;
            serde_json::to_writer(&mut self.out, &issue)?;
            self.written += 1;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        self.out
            .write_all(if self.written == 0 { b"[]\n" } else { b"\n]\n" })?;
        self.out.flush()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
