//! GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=CODE::message`,
//! one line per finding, which GitHub shows as annotations on the lines of
//! a pull request; and, when asked, the job summary: the totals and the
//! findings as a Markdown table (GitHub annotates only a few per step).

use std::io::Write;

use super::{Finding, Report, Tool, Verdict, has_place, paths, text_with_hint};
use crate::diag::Severity;

/// How many annotations of each level GitHub shows for one step (its
/// documented limit); the rest are dropped.
pub const ANNOTATIONS_PER_LEVEL: usize = 10;

/// How many findings the job summary lists (GitHub takes 1 MiB of it).
const SUMMARY_ROWS: usize = 500;

pub struct Github<'w> {
    out: Box<dyn Write + 'w>,
    summary: Option<Summary<'w>>,
    errors: usize,
    warnings: usize,
}

/// The job summary being gathered.
struct Summary<'w> {
    out: Box<dyn Write + 'w>,
    tool: Tool,
    verdicts: usize,
    invalid: usize,
    rows: Vec<String>,
    more: usize,
}

impl<'w> Github<'w> {
    pub fn new(out: Box<dyn Write + 'w>) -> Self {
        Github {
            out,
            summary: None,
            errors: 0,
            warnings: 0,
        }
    }

    /// Also writes the job summary to `summary` (`$GITHUB_STEP_SUMMARY`).
    pub fn with_summary(
        out: Box<dyn Write + 'w>,
        summary: Box<dyn Write + 'w>,
        tool: Tool,
    ) -> Self {
        Github {
            summary: Some(Summary {
                out: summary,
                tool,
                verdicts: 0,
                invalid: 0,
                rows: Vec::new(),
                more: 0,
            }),
            ..Github::new(out)
        }
    }
}

impl Report for Github<'_> {
    fn verdict(&mut self, verdict: &Verdict<'_>) -> std::io::Result<()> {
        let file = paths::relative(verdict.source);
        for finding in &verdict.findings {
            writeln!(self.out, "{}", command(&file, finding))?;
            match finding.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
            }
        }
        if let Some(summary) = &mut self.summary {
            summary.add(&file, verdict);
        }
        if verdict.omitted > 0 {
            let line = verdict.line.unwrap_or(1);
            writeln!(
                self.out,
                "::notice file={},line={line},title=aiproto::{}",
                property(&file),
                data(&format!(
                    "{} more finding(s) of {} not shown (--max-findings)",
                    verdict.omitted,
                    verdict.title()
                ))
            )?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        if self.errors > ANNOTATIONS_PER_LEVEL || self.warnings > ANNOTATIONS_PER_LEVEL {
            let where_ = if self.summary.is_some() {
                "the job summary lists every finding"
            } else {
                "a SARIF or JUnit report (--report) lists every finding"
            };
            writeln!(
                self.out,
                "::notice title=aiproto::{}",
                data(&format!(
                    "{} error(s) and {} warning(s): GitHub shows at most {ANNOTATIONS_PER_LEVEL} annotations of each level per step; {where_}",
                    self.errors, self.warnings
                ))
            )?;
        }
        if let Some(summary) = self.summary.take() {
            summary.write(self.errors, self.warnings)?;
        }
        self.out.flush()
    }
}

impl Summary<'_> {
    fn add(&mut self, file: &str, verdict: &Verdict<'_>) {
        self.verdicts += 1;
        self.invalid += usize::from(!verdict.valid);
        for finding in &verdict.findings {
            if self.rows.len() == SUMMARY_ROWS {
                self.more += 1;
                continue;
            }
            let d = finding.diagnostic;
            let line = if has_place(d) {
                d.line
            } else {
                verdict.line.unwrap_or(1)
            };
            let level = match finding.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            self.rows.push(format!(
                "| {} | {line} | {level} | `{}` | {} |",
                cell(file),
                d.code,
                cell(&d.message)
            ));
        }
    }

    fn write(mut self, errors: usize, warnings: usize) -> std::io::Result<()> {
        let verdict = if self.invalid == 0 {
            "passed"
        } else {
            "failed"
        };
        writeln!(
            self.out,
            "### aiproto {}: {verdict}
",
            self.tool.command
        )?;
        writeln!(
            self.out,
            "| messages and inputs | valid | invalid | errors | warnings |"
        )?;
        writeln!(self.out, "| ---: | ---: | ---: | ---: | ---: |")?;
        writeln!(
            self.out,
            "| {} | {} | {} | {errors} | {warnings} |\n",
            self.verdicts,
            self.verdicts - self.invalid,
            self.invalid
        )?;
        if !self.rows.is_empty() {
            writeln!(self.out, "| file | line | level | code | finding |")?;
            writeln!(self.out, "| --- | ---: | --- | --- | --- |")?;
            for row in &self.rows {
                writeln!(self.out, "{row}")?;
            }
            if self.more > 0 {
                writeln!(
                    self.out,
                    "\n{} more finding(s) not listed here: a SARIF or JUnit report (`--report`) holds them all.",
                    self.more
                )?;
            }
            writeln!(self.out)?;
        }
        self.out.flush()
    }
}

/// Text for a Markdown table cell: one line, `|` and markup escaped.
fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' | '\\' | '`' | '*' | '_' | '<' | '>' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => out.push_str(&format!("U+{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The workflow command of one finding.
fn command(file: &str, finding: &Finding<'_>) -> String {
    let d = finding.diagnostic;
    let level = match finding.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut properties = vec![format!("file={}", property(file))];
    if has_place(d) {
        properties.push(format!("line={}", d.line));
        properties.push(format!("col={}", d.column.max(1)));
        // The last column the annotation covers (inclusive).
        properties.push(format!(
            "endColumn={}",
            d.column.max(1) + d.length.max(1) - 1
        ));
    }
    properties.push(format!("title={}", property(d.code)));
    format!(
        "::{level} {}::{}",
        properties.join(","),
        data(&text_with_hint(d))
    )
}

/// A command's message: `%`, CR and LF escaped (the runner's own rules).
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value: as [`data`], and `:` and `,` too.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diagnostic, Pos};

    #[test]
    fn a_finding_is_one_escaped_command_line() {
        let d = Diagnostic::error(
            "CT-INTENT-UNKNOWN",
            "unknown intent `SHOUT`, 100%\nsee below",
        )
        .at(Pos::new(7, 9), 5)
        .with_hint("one of REQUEST, RESPOND");
        let f = Finding {
            diagnostic: &d,
            severity: Severity::Error,
        };
        assert_eq!(
            command("dir,x/a:b.crosstalk", &f),
            "::error file=dir%2Cx/a%3Ab.crosstalk,line=7,col=9,endColumn=13,title=CT-INTENT-UNKNOWN::unknown intent `SHOUT`, 100%25%0Asee below%0A= hint: one of REQUEST, RESPOND"
        );
    }

    #[test]
    fn a_finding_without_a_place_names_only_the_file() {
        let d = Diagnostic::error("NO-MESSAGE", "no message");
        let f = Finding {
            diagnostic: &d,
            severity: Severity::Warning,
        };
        assert_eq!(
            command("README.md", &f),
            "::warning file=README.md,title=NO-MESSAGE::no message"
        );
    }
}
