//! GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=CODE::message`,
//! one line per finding, which GitHub shows as annotations on the lines of
//! a pull request.

use std::io::Write;

use super::{Finding, Report, Verdict, has_place, paths, text_with_hint};
use crate::diag::Severity;

pub struct Github<'w> {
    out: Box<dyn Write + 'w>,
}

impl<'w> Github<'w> {
    pub fn new(out: Box<dyn Write + 'w>) -> Self {
        Github { out }
    }
}

impl Report for Github<'_> {
    fn verdict(&mut self, verdict: &Verdict<'_>) -> std::io::Result<()> {
        let file = paths::relative(verdict.source);
        for finding in &verdict.findings {
            writeln!(self.out, "{}", command(&file, finding))?;
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
        self.out.flush()
    }
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
