//! How `validate` reports: one verdict per message (or per input that holds
//! none), as findings for people or JSON Lines for programs, and a tally.

use std::io::Write;

use crate::cli::args::GlobalArgs;
use crate::cli::reports::{Reports, input_verdict, message_verdict};
use crate::diag::policy::SeverityPolicy;
use crate::diag::{self, Diagnostic, Severity};
use crate::operations::Found;
use crate::output::{self, Format, Painter, Stream};
use crate::records::validate::ValidateRecord;
use crate::report::Finding;

/// How many findings are shown: `--max-findings` per message, and this
/// many times that in a whole run.
const RUN_FACTOR: usize = 20;

/// The `--max-findings` budget: per message and for the whole run.
pub struct FindingCap {
    per_message: usize,
    left_in_run: usize,
    /// Findings not shown, over the run.
    pub omitted: usize,
    /// Whether the end of the run's budget was said.
    announced: bool,
}

impl FindingCap {
    /// `0` shows every finding.
    pub fn new(per_message: usize) -> Self {
        let per_message = if per_message == 0 {
            usize::MAX
        } else {
            per_message
        };
        FindingCap {
            per_message,
            left_in_run: per_message.saturating_mul(RUN_FACTOR),
            omitted: 0,
            announced: false,
        }
    }

    /// How many of a message's `total` findings to show; counts the rest.
    fn take(&mut self, total: usize) -> usize {
        let shown = total.min(self.per_message).min(self.left_in_run);
        self.left_in_run -= shown;
        self.omitted += total - shown;
        shown
    }

    /// Whether the run's budget is spent (nothing more is shown).
    fn spent(&self) -> bool {
        self.left_in_run == 0
    }
}

#[derive(Default)]
struct Tally {
    inputs: usize,
    /// Files a directory walk met that hold no message.
    skipped: usize,
    messages: usize,
    invalid: usize,
    errors: usize,
    warnings: usize,
    unreadable: usize,
}

/// Writes verdicts to stdout (or the CI report `--format` names) and to
/// each `--report` file, and keeps the tally for the summary.
pub struct Reporter<'g, W: Write> {
    out: W,
    painter: Painter,
    global: &'g GlobalArgs,
    strict: bool,
    tally: Tally,
    cap: FindingCap,
    reports: Reports<'g>,
    /// The project's and the flags' per-code severities.
    policy: SeverityPolicy,
}

impl<'g, W: Write> Reporter<'g, W> {
    pub fn new(
        out: W,
        global: &'g GlobalArgs,
        strict: bool,
        max_findings: usize,
        reports: Reports<'g>,
        policy: SeverityPolicy,
    ) -> Self {
        Reporter {
            out,
            painter: Painter::new(global.color, Stream::Stdout),
            global,
            strict,
            tally: Tally::default(),
            cap: FindingCap::new(max_findings),
            reports,
            policy,
        }
    }

    /// The severity a finding counts with in this run.
    fn severity(&self, d: &Diagnostic) -> Severity {
        if self.strict {
            Severity::Error
        } else {
            d.severity
        }
    }

    pub fn start_input(&mut self) {
        self.tally.inputs += 1;
    }

    /// Reports one message; `line_text` gives a source line for the caret.
    /// Returns whether the message is valid.
    pub fn message<'t>(
        &mut self,
        source: &str,
        found: &Found,
        line_text: impl Fn(usize) -> Option<&'t str>,
    ) -> std::io::Result<bool> {
        // Per-code severities change a copy; most runs have none.
        let adjusted;
        let diagnostics: &[Diagnostic] = if self.policy.is_empty() {
            &found.diagnostics
        } else {
            let mut own = found.diagnostics.clone();
            self.policy.apply(&mut own);
            // What could not be read as a message (not JSON, cut off) is
            // never a valid one: ignoring its finding hides the finding,
            // and the message is still counted as invalid, said here.
            let unread = found.value.is_unreadable() || !found.is_complete();
            if unread && !own.iter().any(|d| d.is_error()) {
                let hidden: Vec<&str> = found
                    .diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .map(|d| d.code)
                    .collect();
                own.push(
                    Diagnostic::error(
                        "NO-MESSAGE",
                        format!(
                            "not read as a message, so not valid, whatever the severity settings say (its finding {} is ignored)",
                            hidden.join(", ")
                        ),
                    )
                    .at(crate::diag::Pos::new(found.line, 1), 1),
                );
            }
            adjusted = own;
            &adjusted
        };
        let (errors, warnings) = diag::partition(diagnostics, self.strict);
        self.tally.messages += 1;
        self.tally.errors += errors.len();
        self.tally.warnings += warnings.len();
        let valid = errors.is_empty();
        if !valid {
            self.tally.invalid += 1;
        }
        let total = diagnostics.len();
        let shown = self.cap.take(total);
        let omitted = (shown < total).then_some(total - shown);
        if self.reports.any() {
            let findings = diagnostics
                .iter()
                .take(shown)
                .map(|d| Finding {
                    diagnostic: d,
                    severity: self.severity(d),
                })
                .collect();
            let verdict = message_verdict(source, found, valid, findings, omitted.unwrap_or(0));
            self.reports.verdict(&verdict)?;
            if self.reports.stdout.is_some() {
                return Ok(valid);
            }
        }
        match self.global.format {
            Format::Json => {
                // Errors first: they decide the verdict.
                let mut errors = errors;
                let mut warnings = warnings;
                errors.truncate(shown);
                warnings.truncate(shown - errors.len());
                let report = ValidateRecord::message(source, found, errors, warnings, omitted);
                output::write_json_line(&mut self.out, &report)?;
            }
            Format::Human => {
                for d in diagnostics.iter().take(shown) {
                    let text = output::format_diagnostic(
                        &self.painter,
                        source,
                        line_text(d.line),
                        d,
                        self.strict,
                    );
                    self.out.write_all(text.as_bytes())?;
                }
                let p = &self.painter;
                match omitted {
                    Some(_) if self.cap.spent() && !self.cap.announced => {
                        self.cap.announced = true;
                        writeln!(
                            self.out,
                            "{}",
                            p.dim(&format!(
                                "aiproto: no more findings shown: {} were shown in this run (--max-findings × {RUN_FACTOR}); the summary counts them all",
                                self.cap.per_message.saturating_mul(RUN_FACTOR)
                            ))
                        )?;
                    }
                    Some(_) if self.cap.spent() => {}
                    Some(k) => writeln!(
                        self.out,
                        "{}: {}",
                        p.bold(&format!("{source}:{}", found.line)),
                        p.dim(&format!(
                            "… and {k} more finding{} of this message (--max-findings)",
                            if k == 1 { "" } else { "s" }
                        ))
                    )?,
                    None => {}
                }
                if self.global.verbose && diagnostics.is_empty() {
                    writeln!(
                        self.out,
                        "{}: {} {} {}",
                        p.bold(&format!("{source}:{}", found.line)),
                        p.good("ok"),
                        found.protocol,
                        found.version
                    )?;
                }
            }
        }
        Ok(valid)
    }

    /// Messages checked so far.
    pub fn messages(&self) -> usize {
        self.tally.messages
    }

    /// Files passed over so far as holding no message.
    pub fn skipped(&self) -> usize {
        self.tally.skipped
    }

    /// Notes a file a walk met that holds no message: not counted as an
    /// input, said only with `--verbose`.
    pub fn skip_input(&mut self, source: &str, why: &str) {
        self.tally.inputs -= 1;
        self.tally.skipped += 1;
        if self.global.verbose {
            eprintln!("aiproto: note: {source}: skipped, it holds no message ({why})");
        }
    }

    /// Reports a problem with a whole input (no message in it, not text).
    pub fn input_invalid(
        &mut self,
        source: &str,
        line_text: Option<&str>,
        d: &Diagnostic,
    ) -> std::io::Result<()> {
        self.tally.invalid += 1;
        self.tally.errors += 1;
        self.whole_input(source, line_text, d)
    }

    /// Reports an input that cannot be read at all (exit 2).
    pub fn input_unreadable(
        &mut self,
        source: &str,
        error: &dyn std::fmt::Display,
    ) -> std::io::Result<()> {
        self.tally.unreadable += 1;
        self.out.flush()?;
        eprintln!("aiproto: error: {error}");
        let d = Diagnostic::error("INPUT-UNREADABLE", error.to_string());
        if self.report_whole_input(source, &d)? {
            return Ok(());
        }
        if self.global.format == Format::Json {
            self.whole_input(source, None, &d)?;
        }
        Ok(())
    }

    fn whole_input(
        &mut self,
        source: &str,
        line_text: Option<&str>,
        d: &Diagnostic,
    ) -> std::io::Result<()> {
        if self.report_whole_input(source, d)? {
            return Ok(());
        }
        match self.global.format {
            Format::Json => {
                let report = ValidateRecord::input(source, d);
                output::write_json_line(&mut self.out, &report)
            }
            Format::Human => self.out.write_all(
                output::format_diagnostic(&self.painter, source, line_text, d, false).as_bytes(),
            ),
        }
    }

    /// Hands a finding about a whole input to the reports; true when the
    /// report on stdout took it (nothing else is printed there).
    fn report_whole_input(&mut self, source: &str, d: &Diagnostic) -> std::io::Result<bool> {
        if !self.reports.any() {
            return Ok(false);
        }
        let verdict = input_verdict(source, d);
        self.reports.verdict(&verdict)?;
        Ok(self.reports.stdout.is_some())
    }

    /// Flushes the verdicts and prints the one-line summary on stderr.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.out.flush()?;
        self.reports.finish()?;
        if self.global.quiet || self.global.format != Format::Human {
            return Ok(());
        }
        let t = &self.tally;
        let p = Painter::new(self.global.color, Stream::Stderr);
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        // "all valid" only when every input was read: a missing file is
        // not a pass.
        let verdict = if t.invalid == 0 && t.unreadable == 0 {
            p.good("all valid")
        } else {
            let mut parts = Vec::new();
            if t.invalid > 0 {
                parts.push(p.error(&format!("{} invalid", t.invalid)));
            }
            if t.unreadable > 0 {
                parts.push(format!("{} valid", t.messages.saturating_sub(t.invalid)));
                parts.push(p.error(&format!("{} unreadable", plural(t.unreadable, "input"))));
            }
            parts.join(", ")
        };
        let mut left_out = if self.cap.omitted > 0 {
            format!("; {} not shown (--max-findings)", self.cap.omitted)
        } else {
            String::new()
        };
        if t.skipped > 0 {
            left_out.push_str(&format!(
                "; {} without a message skipped (-v names them)",
                plural(t.skipped, "file")
            ));
        }
        eprintln!(
            "{} in {}: {verdict} ({}, {}{left_out})",
            plural(t.messages, "message"),
            plural(t.inputs, "input"),
            plural(t.errors, "error"),
            plural(t.warnings, "warning"),
        );
        Ok(())
    }
}
