//! JUnit XML: a test suite per input, a test case per message; a message
//! with errors is a failure that lists its findings, and warnings go to
//! the test case's output. An input without any message is one failing
//! test case.

use std::fmt::Write as _;
use std::io::Write;

use super::{Report, Tool, Verdict, escape, paths};
use crate::diag::Severity;

pub struct Junit<'w> {
    out: Box<dyn Write + 'w>,
    tool: Tool,
    started: bool,
    /// The input whose test cases are being gathered.
    suite: Option<Suite>,
}

/// One input's test cases, written when the next input starts.
struct Suite {
    source: String,
    tests: usize,
    failures: usize,
    cases: String,
}

impl<'w> Junit<'w> {
    pub fn new(out: Box<dyn Write + 'w>, tool: Tool) -> Self {
        Junit {
            out,
            tool,
            started: false,
            suite: None,
        }
    }

    fn start(&mut self) -> std::io::Result<()> {
        if !self.started {
            self.started = true;
            writeln!(self.out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
            writeln!(
                self.out,
                r#"<testsuites name="aiproto {}">"#,
                self.tool.command
            )?;
        }
        Ok(())
    }

    fn write_suite(&mut self, suite: &Suite) -> std::io::Result<()> {
        writeln!(
            self.out,
            r#"  <testsuite name="{}" tests="{}" failures="{}" errors="0" skipped="0">"#,
            escape(&suite.source),
            suite.tests,
            suite.failures
        )?;
        self.out.write_all(suite.cases.as_bytes())?;
        writeln!(self.out, "  </testsuite>")
    }
}

impl Report for Junit<'_> {
    fn verdict(&mut self, verdict: &Verdict<'_>) -> std::io::Result<()> {
        self.start()?;
        let source = paths::relative(verdict.source);
        if self.suite.as_ref().is_some_and(|s| s.source != source)
            && let Some(done) = self.suite.take()
        {
            self.write_suite(&done)?;
        }
        let suite = self.suite.get_or_insert_with(|| Suite {
            source: source.clone(),
            tests: 0,
            failures: 0,
            cases: String::new(),
        });
        suite.tests += 1;
        let findings = |severity: Severity| -> String {
            let mut text = String::new();
            for f in verdict.findings.iter().filter(|f| f.severity == severity) {
                let d = f.diagnostic;
                let level = if severity == Severity::Error {
                    "error"
                } else {
                    "warning"
                };
                let _ = write!(
                    text,
                    "{source}:{}:{}: {level}[{}]: {}",
                    d.line, d.column, d.code, d.message
                );
                if let Some(hint) = &d.hint {
                    let _ = write!(text, "\n  = hint: {hint}");
                }
                text.push('\n');
            }
            if verdict.omitted > 0 && severity == Severity::Error {
                let _ = writeln!(
                    text,
                    "… and {} more finding(s) (--max-findings)",
                    verdict.omitted
                );
            }
            text
        };
        let _ = write!(
            suite.cases,
            r#"    <testcase name="{}" classname="{}""#,
            escape(&verdict.title()),
            escape(&source)
        );
        let errors = findings(Severity::Error);
        let warnings = findings(Severity::Warning);
        if verdict.valid && warnings.is_empty() {
            suite.cases.push_str("/>\n");
            return Ok(());
        }
        suite.cases.push_str(">\n");
        if !verdict.valid {
            suite.failures += 1;
            let first = verdict
                .findings
                .iter()
                .find(|f| f.severity == Severity::Error);
            let (kind, message) = first.map_or(("invalid", "invalid"), |f| {
                (f.diagnostic.code, f.diagnostic.message.as_str())
            });
            let _ = writeln!(
                suite.cases,
                r#"      <failure type="{}" message="{}">{}</failure>"#,
                escape(kind),
                escape(message),
                escape(&errors)
            );
        }
        if !warnings.is_empty() {
            let _ = writeln!(
                suite.cases,
                "      <system-out>{}</system-out>",
                escape(&warnings)
            );
        }
        suite.cases.push_str("    </testcase>\n");
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        self.start()?;
        if let Some(done) = self.suite.take() {
            self.write_suite(&done)?;
        }
        writeln!(self.out, "</testsuites>")?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_characters_xml_cannot_hold_are_escaped() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\u{7}\r\n"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;U+0007&#13;\n"
        );
    }
}
