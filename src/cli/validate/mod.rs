//! `aiproto validate`: check every message of every input; the exit code is the verdict.
//!
//! Inputs are read whole, except HSP JSON Lines, which are streamed line by
//! line in constant memory and checked in parallel batches (`stream`).

mod report;
pub mod settings;
mod stream;

use std::io::{BufRead, BufWriter};

use chrono::Utc;

use super::args::{GlobalArgs, ValidateArgs};
use crate::diag::{Diagnostic, Pos};
use crate::exit::{CmdResult, ExitStatus};
use crate::input::{self, Input, InputError};
use crate::output::SourceLines;
use crate::project::checks::ProjectChecks;
use crate::protocols::{Protocol, ReadOptions};
use crate::reader;
use report::Reporter;

pub fn run(args: &ValidateArgs, g: &GlobalArgs) -> CmdResult {
    let mut settings = settings::resolve(args)?;
    let inputs = super::common::inputs(&settings.input)?;
    let options = ReadOptions {
        now: Utc::now(),
        lenient: settings.lenient,
        max_message_bytes: args.max_message_bytes,
    };
    let reports = super::reports::Reports::open(g, &args.report, "validate")?;
    let mut reporter = Reporter::new(
        BufWriter::new(std::io::stdout().lock()),
        g,
        settings.strict,
        settings.max_findings,
        reports,
        std::mem::take(&mut settings.policy),
    );
    let checks = &mut settings.project_checks;
    let mut status = ExitStatus::Ok;
    for input in &inputs {
        reporter.start_input();
        status = status.max(validate_input(
            input,
            args,
            g,
            &options,
            checks,
            &mut reporter,
        )?);
    }
    reporter.finish()?;
    Ok(status)
}

fn validate_input<W: std::io::Write>(
    input: &Input,
    args: &ValidateArgs,
    g: &GlobalArgs,
    options: &ReadOptions,
    checks: &mut ProjectChecks,
    reporter: &mut Reporter<'_, W>,
) -> std::io::Result<ExitStatus> {
    let name = input.name();
    let mut reader = match input.open() {
        Ok(r) => r,
        Err(e) => return unreadable(reporter, &name, &e),
    };
    let head = match reader.fill_buf() {
        Ok(head) => head,
        Err(e) => {
            return unreadable(
                reporter,
                &name,
                &InputError::Io {
                    path: name.clone(),
                    error: e,
                },
            );
        }
    };
    let forced = args.input.protocol.map(|s| s.protocol);
    if matches!(forced, None | Some(Protocol::Hsp))
        && crate::stream::looks_like_hsp_json_lines(head)
    {
        let progress = stream::progress_bar(g, input.size());
        return stream::validate(reader, &name, options, checks, reporter, progress);
    }
    let source = match input::read_from(name.clone(), reader, Vec::new()) {
        Ok(source) => source,
        Err(InputError::NotUtf8 { path, line, column }) => {
            let d = Diagnostic::error("INPUT-NOT-UTF8", "not UTF-8 text (a binary file?)")
                .at(Pos::new(line, column), 1);
            reporter.input_invalid(&path, None, &d)?;
            return Ok(ExitStatus::Invalid);
        }
        Err(e) => return unreadable(reporter, &name, &e),
    };
    let mut doc = match reader::read_or_skip(input, source, args.input.protocol, options) {
        Ok(doc) => doc,
        Err((source, why)) => {
            // A file a walk met that is no message (a README, a package.json):
            // skipped; named explicitly, it would be an error.
            reporter.skip_input(&source.name, &why.to_string());
            return Ok(ExitStatus::Ok);
        }
    };
    let lines = SourceLines::new(&doc.source.text);
    if doc.messages.is_empty() {
        let d = Diagnostic::error("NO-MESSAGE", reader::no_message_reason(&doc.source.text))
            .at(Pos::new(1, 1), 1);
        reporter.input_invalid(&doc.source.name, lines.get(1).filter(|l| !l.is_empty()), &d)?;
        return Ok(ExitStatus::Invalid);
    }
    let mut status = ExitStatus::Ok;
    for found in &mut doc.messages {
        checks.check(found, &doc.source.text);
        if !reporter.message(&doc.source.name, found, |n| lines.get(n))? {
            status = ExitStatus::Invalid;
        }
    }
    Ok(status)
}

fn unreadable<W: std::io::Write>(
    reporter: &mut Reporter<'_, W>,
    name: &str,
    e: &InputError,
) -> std::io::Result<ExitStatus> {
    reporter.input_unreadable(name, e)?;
    Ok(ExitStatus::Usage)
}
