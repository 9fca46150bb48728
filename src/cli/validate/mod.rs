//! `aiproto validate`: check every message of every input; the exit code is the verdict.
//!
//! HSP JSON Lines are streamed line by line and checked in parallel batches
//! (`stream`); other inputs are read piece by piece (`reader::pieces`):
//! memory stays bounded whatever the input's size.

mod report;
pub mod settings;
mod stream;

use std::io::{BufRead, BufWriter};

use chrono::Utc;

use super::args::{GlobalArgs, ValidateArgs};
use crate::diag::{Diagnostic, Pos};
use crate::exit::{CmdResult, ExitStatus};
use crate::input::{Input, InputError};
use crate::output::SourceLines;
use crate::project::checks::ProjectChecks;
use crate::protocols::{Protocol, ReadOptions};
use crate::reader::pieces::{self, Item};
use report::Reporter;

pub fn run(args: &ValidateArgs, g: &GlobalArgs) -> CmdResult {
    let mut settings = settings::resolve(args)?;
    let (inputs, skipped) = super::common::gather(&settings.input)?;
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
    super::common::note_skipped(g, &skipped);
    if status == ExitStatus::Ok && reporter.messages() == 0 && !args.allow_empty {
        let why =
            super::common::looked_at(&settings.input, inputs.len(), reporter.skipped(), &skipped);
        let d = Diagnostic::error("NO-INPUT", why).at(Pos::new(1, 1), 1);
        reporter.input_invalid(&super::common::nothing_source(&settings.input), None, &d)?;
        status = ExitStatus::Invalid;
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
    let mut pieces = match pieces::pieces_from(
        input,
        Some(reader),
        args.input.protocol,
        options,
        pieces::PIECE_BYTES,
    ) {
        Ok(pieces) => pieces,
        Err(e) => return unreadable(reporter, &name, &e),
    };
    let mut status = ExitStatus::Ok;
    let mut any = false;
    for item in &mut pieces {
        let mut piece = match item {
            Ok(Item::Piece(piece)) => piece,
            Ok(Item::Skipped(source, why)) => {
                // A file a walk met that is no message (a README, a package.json):
                // skipped; named explicitly, it would be an error.
                reporter.skip_input(&source.name, &why.to_string());
                return Ok(ExitStatus::Ok);
            }
            Err(InputError::NotUtf8 {
                path,
                line,
                column,
                what,
            }) => {
                let d = Diagnostic::error("INPUT-NOT-UTF8", what.describe())
                    .at(Pos::new(line, column), 1);
                reporter.input_invalid(&path, None, &d)?;
                return Ok(ExitStatus::Invalid);
            }
            Err(e) => return unreadable(reporter, &name, &e),
        };
        let lines = SourceLines::new(&piece.source.text);
        let before = piece.first_line;
        for found in &mut piece.messages {
            any = true;
            checks.check(found, &piece.source.text);
            let line = |n: usize| n.checked_sub(before).and_then(|n| lines.get(n));
            if !reporter.message(&piece.source.name, found, line)? {
                status = ExitStatus::Invalid;
            }
        }
    }
    if !any {
        let why = pieces.why_no_message();
        let d = Diagnostic::error("NO-MESSAGE", why.to_string()).at(why.pos(), 1);
        let first_line = pieces.head_line(why.pos().line).filter(|l| !l.is_empty());
        reporter.input_invalid(&name, first_line, &d)?;
        return Ok(ExitStatus::Invalid);
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
