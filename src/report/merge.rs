//! Verdicts kept as data, so that a report can be written again from the
//! verdicts of several runs: what lets the aiproto processes a hook runner
//! starts for one long file list share one report.

use serde::{Deserialize, Serialize};

use super::{Finding, Report, Verdict};
use crate::diag::{Diagnostic, Severity, codes};

/// One [`Verdict`], owned and serializable.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KeptVerdict {
    /// `validate` or `verify`.
    pub command: String,
    pub source: String,
    pub index: Option<usize>,
    pub line: Option<usize>,
    pub kind: Option<String>,
    pub id: Option<String>,
    pub valid: bool,
    pub findings: Vec<KeptFinding>,
    pub omitted: usize,
}

/// One [`Finding`], owned.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KeptFinding {
    pub code: String,
    /// As the run counted it (`--strict` makes warnings errors).
    pub error: bool,
    /// As the finding was made.
    pub made_error: bool,
    pub message: String,
    pub line: usize,
    pub column: usize,
    pub length: usize,
    pub hint: Option<String>,
    pub pointer: Option<String>,
}

impl KeptVerdict {
    pub fn new(command: &str, verdict: &Verdict<'_>) -> Self {
        KeptVerdict {
            command: command.to_string(),
            source: verdict.source.to_string(),
            index: verdict.index,
            line: verdict.line,
            kind: verdict.kind.clone(),
            id: verdict.id.map(str::to_string),
            valid: verdict.valid,
            findings: verdict
                .findings
                .iter()
                .map(|f| KeptFinding {
                    code: f.diagnostic.code.to_string(),
                    error: f.severity == Severity::Error,
                    made_error: f.diagnostic.severity == Severity::Error,
                    message: f.diagnostic.message.clone(),
                    line: f.diagnostic.line,
                    column: f.diagnostic.column,
                    length: f.diagnostic.length,
                    hint: f.diagnostic.hint.clone(),
                    pointer: f.diagnostic.pointer.clone(),
                })
                .collect(),
            omitted: verdict.omitted,
        }
    }
}

/// The static name of a code read back: the catalogue's, or a leaked copy
/// for a code it does not list (none, when it is complete).
fn code_name(code: &str) -> &'static str {
    match codes::lookup(code) {
        Some(known) => known.id,
        None => Box::leak(code.to_string().into_boxed_str()),
    }
}

/// Hands every kept verdict to `report`, in order, and finishes it.
pub fn replay<'w>(report: Box<dyn Report + 'w>, kept: &[KeptVerdict]) -> std::io::Result<()> {
    let mut report = report;
    for v in kept {
        let diagnostics: Vec<Diagnostic> = v
            .findings
            .iter()
            .map(|f| {
                let made = if f.made_error {
                    Diagnostic::error(code_name(&f.code), f.message.clone())
                } else {
                    Diagnostic::warning(code_name(&f.code), f.message.clone())
                };
                Diagnostic {
                    line: f.line,
                    column: f.column,
                    length: f.length,
                    hint: f.hint.clone(),
                    pointer: f.pointer.clone(),
                    ..made
                }
            })
            .collect();
        let findings = diagnostics
            .iter()
            .zip(&v.findings)
            .map(|(diagnostic, f)| Finding {
                diagnostic,
                severity: if f.error {
                    Severity::Error
                } else {
                    Severity::Warning
                },
            })
            .collect();
        report.verdict(&Verdict {
            source: &v.source,
            index: v.index,
            line: v.line,
            kind: v.kind.clone(),
            id: v.id.as_deref(),
            valid: v.valid,
            findings,
            omitted: v.omitted,
        })?;
    }
    report.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Pos;
    use crate::report::{ReportFormat, Tool, open};

    /// A report written from kept verdicts is the report written directly.
    #[test]
    fn a_replayed_report_is_the_report_written_directly() {
        let error = Diagnostic::error("CT-INTENT-UNKNOWN", "unknown intent `SHOUT`")
            .at(Pos::new(7, 9), 5)
            .with_hint("known intents: REQUEST");
        let warning = Diagnostic::warning("CT-BODY-INDENT", "indented").at(Pos::new(9, 1), 2);
        let verdict = Verdict {
            source: "messages/a b.crosstalk",
            index: Some(0),
            line: Some(1),
            kind: Some("crosstalk 1.1".into()),
            id: Some("01J"),
            valid: false,
            findings: vec![
                Finding {
                    diagnostic: &error,
                    severity: Severity::Error,
                },
                Finding {
                    diagnostic: &warning,
                    severity: Severity::Error,
                },
            ],
            omitted: 1,
        };
        let tool = Tool {
            command: "validate",
        };
        for format in ReportFormat::ALL {
            let mut direct = Vec::new();
            let mut report = open(format, tool, Box::new(&mut direct));
            report.verdict(&verdict).unwrap();
            report.finish().unwrap();
            let kept = vec![KeptVerdict::new("validate", &verdict)];
            let line = serde_json::to_string(&kept).unwrap();
            let kept: Vec<KeptVerdict> = serde_json::from_str(&line).unwrap();
            let mut replayed = Vec::new();
            replay(open(format, tool, Box::new(&mut replayed)), &kept).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&direct),
                String::from_utf8_lossy(&replayed),
                "{format:?}"
            );
        }
    }
}
