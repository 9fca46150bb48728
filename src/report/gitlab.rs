//! GitLab code quality: a JSON array of issues, each with a description,
//! the check's name (the code), a fingerprint that stays the same from one
//! run to the next, a severity and a place.
//!
//! The fingerprint is what GitLab matches findings by across a merge
//! request: the path, the code, the message's id, the JSON Pointer and the
//! finding's text, and which occurrence of those it is in the file — never
//! the line or column, so a line added above a finding does not make it
//! look fixed and new.

use std::io::Write;

use serde_json::json;
use sha2::{Digest, Sha256};

use super::{Report, Verdict, has_place, paths, text_with_hint};
use crate::diag::Severity;

pub struct Gitlab<'w> {
    out: Box<dyn Write + 'w>,
    written: usize,
    /// How often each finding's identity was met, so that two alike
    /// findings in one file keep apart fingerprints.
    seen: std::collections::HashMap<Vec<u8>, usize>,
}

impl<'w> Gitlab<'w> {
    pub fn new(out: Box<dyn Write + 'w>) -> Self {
        Gitlab {
            out,
            written: 0,
            seen: Default::default(),
        }
    }

    /// The fingerprint of a finding: what it is and where, without its line.
    fn fingerprint(&mut self, path: &str, id: Option<&str>, d: &crate::diag::Diagnostic) -> String {
        let identity = [
            path,
            d.code,
            id.unwrap_or(""),
            d.pointer.as_deref().unwrap_or(""),
            &d.message,
        ]
        .join("\0")
        .into_bytes();
        let occurrence = self.seen.entry(identity.clone()).or_default();
        *occurrence += 1;
        let mut keyed = identity;
        keyed.extend_from_slice(format!("\0{occurrence}").as_bytes());
        hex(&Sha256::digest(&keyed))
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
            let fingerprint = self.fingerprint(&path, verdict.id, d);
            let issue = json!({
                "type": "issue",
                "description": text_with_hint(d),
                "check_name": d.code,
                "fingerprint": fingerprint,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diagnostic, Pos};
    use crate::report::{Finding, Verdict};

    fn fingerprints(line: usize, twice: bool) -> Vec<String> {
        let d = Diagnostic::error("CT-INTENT-UNKNOWN", "unknown intent `SHOUT`")
            .at(Pos::new(line, 9), 5);
        let mut out = Vec::new();
        {
            let mut report: Box<dyn Report> = Box::new(Gitlab::new(Box::new(&mut out)));
            for _ in 0..(1 + usize::from(twice)) {
                report
                    .verdict(&Verdict {
                        source: "m.crosstalk",
                        index: Some(0),
                        line: Some(line - 6),
                        kind: None,
                        id: None,
                        valid: false,
                        findings: vec![Finding {
                            diagnostic: &d,
                            severity: Severity::Error,
                        }],
                        omitted: 0,
                    })
                    .unwrap();
            }
            report.finish().unwrap();
        }
        let issues: serde_json::Value = serde_json::from_slice(&out).unwrap();
        issues
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["fingerprint"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn a_finding_moved_down_keeps_its_fingerprint_and_alike_findings_differ() {
        assert_eq!(fingerprints(7, false), fingerprints(8, false));
        let two = fingerprints(7, true);
        assert_ne!(two[0], two[1]);
        assert_eq!(two[0], fingerprints(7, false)[0]);
    }
}
