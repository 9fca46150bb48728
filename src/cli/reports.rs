//! The CI reports of `validate` and `verify`: the one `--format` prints on
//! stdout, and each `--report FORMAT:FILE`.

use std::io::BufWriter;

use super::args::{GlobalArgs, ReportArgs};
use crate::diag::{Diagnostic, Severity};
use crate::exit::{CliError, ExitStatus};
use crate::protocols::Found;
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
    files: Vec<(String, Box<dyn Report + 'w>)>,
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
        let stdout = g
            .format_choice
            .report()
            .map(|format| report::open(format, tool, Box::new(BufWriter::new(std::io::stdout()))));
        let mut files = Vec::new();
        for target in &args.reports {
            let file = std::fs::File::create(&target.path).map_err(|e| {
                CliError::new(
                    ExitStatus::Usage,
                    anyhow::anyhow!("cannot write the report {}: {e}", target.path.display()),
                )
            })?;
            let name = target.path.display().to_string();
            files.push((
                name,
                report::open(target.format, tool, Box::new(BufWriter::new(file))),
            ));
        }
        Ok(Reports { stdout, files })
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
            file.verdict(verdict).map_err(|e| named(name, e))?;
        }
        Ok(())
    }

    /// Completes every report.
    pub fn finish(self) -> std::io::Result<()> {
        if let Some(out) = self.stdout {
            out.finish()?;
        }
        for (name, file) in self.files {
            file.finish().map_err(|e| named(&name, e))?;
        }
        Ok(())
    }
}

/// A report file's write error, naming the file.
fn named(name: &str, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("writing the report {name}: {e}"))
}
