//! The reports CI systems read: GitHub workflow commands, SARIF 2.1.0,
//! JUnit XML and GitLab code quality, written from the verdicts of
//! `validate` and `verify`.
//!
//! A command hands each message's [`Verdict`] to a [`Report`] as it goes,
//! then calls [`Report::finish`]. GitHub lines and GitLab entries are
//! written as they come; SARIF and JUnit need the whole run (totals, one
//! document), so they keep what they print (the findings, and a line per
//! message for JUnit) until the end.

mod github;
mod gitlab;
mod junit;
pub mod merge;
pub mod paths;
mod sarif;

use std::io::Write;

use crate::diag::{Diagnostic, Severity};

/// The CI report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Github,
    Sarif,
    Junit,
    Gitlab,
}

impl ReportFormat {
    pub fn name(self) -> &'static str {
        match self {
            ReportFormat::Github => "github",
            ReportFormat::Sarif => "sarif",
            ReportFormat::Junit => "junit",
            ReportFormat::Gitlab => "gitlab",
        }
    }

    pub const ALL: [ReportFormat; 4] = [
        ReportFormat::Github,
        ReportFormat::Sarif,
        ReportFormat::Junit,
        ReportFormat::Gitlab,
    ];
}

impl std::str::FromStr for ReportFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ReportFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| format!("unknown report format `{s}` (github, sarif, junit or gitlab)"))
    }
}

/// One finding as the run counts it: under `--strict` a warning is an error.
#[derive(Debug, Clone, Copy)]
pub struct Finding<'a> {
    pub diagnostic: &'a Diagnostic,
    pub severity: Severity,
}

/// The verdict on one message, or on a whole input that holds none or
/// cannot be read (`line` and `index` then `None`).
#[derive(Debug, Clone)]
pub struct Verdict<'a> {
    /// The input as the user named it (a path, `<stdin>`, `clipboard:`).
    pub source: &'a str,
    /// 0-based position among the messages of its input.
    pub index: Option<usize>,
    /// The message's first line.
    pub line: Option<usize>,
    /// `crosstalk 1.1`, `hsp 0.1`, … when a message was read.
    pub kind: Option<String>,
    pub id: Option<&'a str>,
    pub valid: bool,
    /// The findings shown (`--max-findings` may leave some out).
    pub findings: Vec<Finding<'a>>,
    /// How many findings were left out.
    pub omitted: usize,
}

impl Verdict<'_> {
    /// A name for the message in a report: `crosstalk 1.1 message 01J… (line 3)`.
    pub fn title(&self) -> String {
        match (&self.kind, self.index, self.line) {
            (Some(kind), Some(index), Some(line)) => match self.id {
                Some(id) => format!("{kind} message {id} (line {line})"),
                None => format!("{kind} message {} (line {line})", index + 1),
            },
            _ => "the input".to_string(),
        }
    }
}

/// Which command made the report, and which aiproto.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    /// `validate` or `verify`.
    pub command: &'static str,
}

/// A report being written.
pub trait Report {
    fn verdict(&mut self, verdict: &Verdict<'_>) -> std::io::Result<()>;
    /// Writes what was kept and flushes.
    fn finish(self: Box<Self>) -> std::io::Result<()>;
}

/// A report in `format` to `out`.
pub fn open<'w>(
    format: ReportFormat,
    tool: Tool,
    out: Box<dyn Write + 'w>,
) -> Box<dyn Report + 'w> {
    match format {
        ReportFormat::Github => Box::new(github::Github::new(out)),
        ReportFormat::Sarif => Box::new(sarif::Sarif::new(out, tool)),
        ReportFormat::Junit => Box::new(junit::Junit::new(out, tool)),
        ReportFormat::Gitlab => Box::new(gitlab::Gitlab::new(out)),
    }
}

/// A GitHub report to `out` that also writes the job summary to `summary`.
pub fn github_with_summary<'w>(
    tool: Tool,
    out: Box<dyn Write + 'w>,
    summary: Box<dyn Write + 'w>,
) -> Box<dyn Report + 'w> {
    Box::new(github::Github::with_summary(out, summary, tool))
}

/// A finding's text with its hint, as the human output shows it.
fn text_with_hint(d: &Diagnostic) -> String {
    match &d.hint {
        Some(hint) => format!("{}\n= hint: {hint}", d.message),
        None => d.message.clone(),
    }
}

/// Whether a finding has a place in the text (a whole-input finding may not).
fn has_place(d: &Diagnostic) -> bool {
    d.line > 0
}

/// Text made safe for an XML or HTML attribute or element: the five markup
/// characters as entities, and characters XML 1.0 cannot hold at all
/// (control characters, unpaired surrogates cannot occur in a `str`) as
/// their code point, `U+0007`.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' => out.push(c),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 || matches!(c, '\u{FFFE}' | '\u{FFFF}') => {
                out.push_str(&format!("U+{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}
