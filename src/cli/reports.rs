//! The CI reports of `validate` and `verify`: the one `--format` prints on
//! stdout, and each `--report FORMAT:FILE`.

use std::io::BufWriter;

use super::args::{GlobalArgs, ReportArgs, ReportTarget};
use crate::diag::{Diagnostic, Severity};
use crate::exit::{CliError, ExitStatus};
use crate::operations::Found;
use crate::report::merge::KeptVerdict;
use crate::report::{self, Finding, Report, Tool, Verdict};

/// The verdict on one message read from `source`.
pub fn message_verdict<'a>(
    source: &'a str,
    found: &'a Found,
    valid: bool,
    findings: Vec<Finding<'a>>,
    omitted: usize,
) -> Verdict<'a> {
    let kind = format!("{} {}", found.protocol, found.version);
    Verdict {
        source,
        index: Some(found.index),
        line: Some(found.line),
        kind: Some(kind.trim_end().to_string()),
        id: found.id(),
        valid,
        findings,
        omitted,
    }
}

/// The verdict on a whole input: it holds no message, or cannot be read.
pub fn input_verdict<'a>(source: &'a str, finding: &'a Diagnostic) -> Verdict<'a> {
    Verdict {
        source,
        index: None,
        line: None,
        kind: None,
        id: None,
        valid: false,
        findings: vec![Finding {
            diagnostic: finding,
            severity: Severity::Error,
        }],
        omitted: 0,
    }
}

/// Every report a run writes.
pub struct Reports<'w> {
    /// The report on stdout, when `--format` names one (nothing else is
    /// printed on stdout then).
    pub stdout: Option<Box<dyn Report + 'w>>,
    files: Vec<(String, FileReport<'w>)>,
    command: &'static str,
}

/// A `--report` file: written as the run goes, or (merged with the other
/// runs of its session) when it ends.
enum FileReport<'w> {
    Direct(Box<dyn Report + 'w>),
    Merged {
        target: ReportTarget,
        kept: Vec<KeptVerdict>,
    },
}

impl Reports<'_> {
    /// Opens the reports asked for; a file that cannot be created is a usage
    /// error before anything is read.
    pub fn open(
        g: &GlobalArgs,
        args: &ReportArgs,
        command: &'static str,
    ) -> Result<Self, CliError> {
        let tool = Tool { command };
        let stdout = g.format_choice.report().map(|format| {
            let out = Box::new(BufWriter::new(std::io::stdout()));
            match job_summary(format) {
                Some(summary) => report::github_with_summary(tool, out, summary),
                None => report::open(format, tool, out),
            }
        });
        let merge = args.merge_reports
            || ["PRE_COMMIT", "AIPROTO_REPORT_SESSION"]
                .iter()
                .any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()));
        let mut files = Vec::new();
        for target in &args.reports {
            let cannot = |e: std::io::Error| {
                CliError::new(
                    ExitStatus::Usage,
                    anyhow::anyhow!("cannot write the report {}: {e}", target.path.display()),
                )
            };
            let name = target.path.display().to_string();
            if merge {
                // Written when the run ends; whether it can be, checked now
                // (without emptying what the session wrote so far).
                std::fs::OpenOptions::new()
                    .append(true)
                    .create(true)
                    .open(&target.path)
                    .map_err(cannot)?;
                files.push((
                    name,
                    FileReport::Merged {
                        target: target.clone(),
                        kept: Vec::new(),
                    },
                ));
                continue;
            }
            let file = std::fs::File::create(&target.path).map_err(cannot)?;
            files.push((
                name,
                FileReport::Direct(report::open(
                    target.format,
                    tool,
                    Box::new(BufWriter::new(file)),
                )),
            ));
        }
        Ok(Reports {
            stdout,
            files,
            command,
        })
    }

    /// Whether any report is written (verdicts need to be built).
    pub fn any(&self) -> bool {
        self.stdout.is_some() || !self.files.is_empty()
    }

    /// Hands one verdict to every report.
    pub fn verdict(&mut self, verdict: &Verdict<'_>) -> std::io::Result<()> {
        if let Some(out) = &mut self.stdout {
            out.verdict(verdict)?;
        }
        for (name, file) in &mut self.files {
            match file {
                FileReport::Direct(report) => {
                    report.verdict(verdict).map_err(|e| named(name, e))?
                }
                FileReport::Merged { kept, .. } => {
                    kept.push(KeptVerdict::new(self.command, verdict))
                }
            }
        }
        Ok(())
    }

    /// Completes every report.
    pub fn finish(self) -> std::io::Result<()> {
        if let Some(out) = self.stdout {
            out.finish()?;
        }
        for (name, file) in self.files {
            match file {
                FileReport::Direct(report) => report.finish(),
                FileReport::Merged { target, kept } => {
                    super::report_merge::write(&target.path, target.format, self.command, &kept)
                }
            }
            .map_err(|e| named(&name, e))?;
        }
        Ok(())
    }
}

/// `--format github` in a GitHub Actions step: the job summary file
/// (`$GITHUB_STEP_SUMMARY`), opened to append. One that cannot be opened
/// is said on stderr and left out: the annotations still go out.
fn job_summary(format: report::ReportFormat) -> Option<Box<dyn std::io::Write>> {
    if format != report::ReportFormat::Github {
        return None;
    }
    let path = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty())?;
    match std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
    {
        Ok(file) => Some(Box::new(BufWriter::new(file))),
        Err(e) => {
            eprintln!(
                "aiproto: warning: cannot write the job summary {}: {e}",
                std::path::Path::new(&path).display()
            );
            None
        }
    }
}

/// A report file's write error, naming the file.
fn named(name: &str, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("writing the report {name}: {e}"))
}
