//! `aiproto validate`: check every message of every input; the exit code is the verdict.
//!
//! HSP JSON Lines are streamed line by line and checked in parallel batches
//! (`stream`); other inputs are read piece by piece (`operations::read`):
//! memory stays bounded whatever the input's size. Small files (one piece
//! each) are read and checked on every core, a batch ahead of the reports,
//! which are written in input order on this thread.

mod report;
pub mod settings;
mod stream;

use std::io::{BufRead, BufWriter};

use chrono::Utc;

use super::args::{GlobalArgs, ValidateArgs};
use crate::diag::{Diagnostic, Pos};
use crate::exit::{CmdResult, ExitStatus};
use crate::input::{Input, InputError};
use crate::operations::read::{self, Item, SeenIds, WhyNoMessage as NoMessage};
use crate::operations::{Protocol, ReadOptions};
use crate::output::SourceLines;
use crate::project::checks::ProjectChecks;
use report::Reporter;

pub fn run(args: &ValidateArgs, g: &GlobalArgs) -> CmdResult {
    let mut settings = settings::resolve(args)?;
    let (inputs, skipped) = super::common::gather(&settings.input)?;
    let options = ReadOptions {
        now: Utc::now(),
        lenient: settings.lenient,
        max_message_bytes: args.max_message_bytes,
        checked_before: false,
        routing_only: false,
        // Without project schemas a message is reported by its verdict
        // and id alone.
        verdicts_only: settings.project_checks.is_empty(),
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
    let mut next = inputs.iter();
    let batch = || -> std::io::Result<Option<Vec<&Input>>> {
        let batch: Vec<&Input> = next.by_ref().take(INPUTS_AHEAD).collect();
        Ok((!batch.is_empty()).then_some(batch))
    };
    let read = |input: &&Input| read_small(input, args, &options);
    crate::parallel::pipelined(batch, read, |batch, reads| {
        for (input, read) in batch.into_iter().zip(reads) {
            reporter.start_input();
            let verdict = match read {
                Some(read) => report_read(read, checks, &mut reporter)?,
                None => validate_input(input, args, g, &options, checks, &mut reporter)?,
            };
            status = status.max(verdict);
        }
        Ok(())
    })?;
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

/// Inputs read ahead of the reports, at most (twice this in memory).
const INPUTS_AHEAD: usize = 64;

/// A small file read and checked whole, ready to report.
struct SmallRead {
    name: String,
    items: Vec<Result<Item, InputError>>,
    /// When it held no message: why, and the line that says so.
    no_message: Option<(NoMessage, Option<String>)>,
}

/// Reads and checks a file of one piece (on any thread); `None` for what
/// is read as it is reported: stdin, a larger file, a pipe or device
/// named as a file, HSP JSON Lines (which are streamed and checked in
/// parallel themselves), a file that cannot be opened (reported then).
fn read_small(input: &Input, args: &ValidateArgs, options: &ReadOptions) -> Option<SmallRead> {
    let bytes = input.small_file(read::PIECE_BYTES)?;
    let forced = args.input.protocol.map(|s| s.protocol);
    if matches!(forced, None | Some(Protocol::Hsp)) && crate::stream::is_hsp_json_lines(&bytes) {
        return None;
    }
    let mut pieces = read::pieces_of_whole(
        input,
        bytes,
        args.input.protocol,
        options,
        read::PIECE_BYTES,
    )
    .ok()?;
    let items: Vec<_> = pieces.by_ref().collect();
    let any = items
        .iter()
        .any(|i| matches!(i, Ok(Item::Piece(p)) if !p.messages.is_empty()));
    let no_message = (!any).then(|| {
        let why = pieces.why_no_message();
        let line = pieces.head_line(why.pos().line).map(str::to_string);
        (why, line)
    });
    Some(SmallRead {
        name: input.name(),
        items,
        no_message,
    })
}

/// Reports a small file read ahead.
fn report_read<W: std::io::Write>(
    read: SmallRead,
    checks: &mut ProjectChecks,
    reporter: &mut Reporter<'_, W>,
) -> std::io::Result<ExitStatus> {
    match report_pieces(&read.name, read.items.into_iter(), checks, reporter)? {
        Some(status) => Ok(status),
        None => {
            let (why, line) = read.no_message.unwrap_or((NoMessage::Empty, None));
            report_no_message(reporter, &read.name, &why, line.as_deref())
        }
    }
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
    // The next piece is read and checked while this one is reported.
    let mut pieces = match read::pieces_from(
        input,
        Some(reader),
        args.input.protocol,
        options,
        read::PIECE_BYTES,
    )
    .and_then(|pieces| pieces.ahead())
    {
        Ok(pieces) => pieces,
        Err(e) => return unreadable(reporter, &name, &e),
    };
    match report_pieces(&name, &mut pieces, checks, reporter)? {
        Some(status) => Ok(status),
        None => {
            let pieces = pieces.read_through();
            let why = pieces.why_no_message();
            let first_line = pieces.head_line(why.pos().line);
            report_no_message(reporter, &name, &why, first_line)
        }
    }
}

/// Reports every message of an input's pieces; `None` when it held none.
fn report_pieces<W: std::io::Write>(
    name: &str,
    items: impl Iterator<Item = Result<Item, InputError>>,
    checks: &mut ProjectChecks,
    reporter: &mut Reporter<'_, W>,
) -> std::io::Result<Option<ExitStatus>> {
    let mut status = ExitStatus::Ok;
    let mut any = false;
    let mut seen = SeenIds::default();
    for item in items {
        let mut piece = match item {
            Ok(Item::Piece(piece)) => piece,
            Ok(Item::Skipped(source, why)) => {
                // A file a walk met that is no message (a README, a package.json):
                // skipped; named explicitly, it would be an error.
                reporter.skip_input(&source.name, &why.to_string());
                return Ok(Some(ExitStatus::Ok));
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
                return Ok(Some(ExitStatus::Invalid));
            }
            Err(e) => return unreadable(reporter, name, &e).map(Some),
        };
        let lines = SourceLines::new(&piece.source.text);
        let before = piece.first_line;
        for found in &mut piece.messages {
            any = true;
            let source = &piece.source.text;
            let repeated = seen.finding(found, || found.written(source).map(Into::into));
            found.diagnostics.extend(repeated);
            checks.check(found, &piece.source.text);
            let line = |n: usize| n.checked_sub(before).and_then(|n| lines.get(n));
            if !reporter.message(&piece.source.name, found, line)? {
                status = ExitStatus::Invalid;
            }
        }
    }
    Ok(any.then_some(status))
}

/// NO-MESSAGE for an input that held none.
fn report_no_message<W: std::io::Write>(
    reporter: &mut Reporter<'_, W>,
    name: &str,
    why: &NoMessage,
    first_line: Option<&str>,
) -> std::io::Result<ExitStatus> {
    let d = Diagnostic::error("NO-MESSAGE", why.to_string()).at(why.pos(), 1);
    let first_line = first_line.filter(|l| !l.is_empty());
    reporter.input_invalid(name, first_line, &d)?;
    Ok(ExitStatus::Invalid)
}

fn unreadable<W: std::io::Write>(
    reporter: &mut Reporter<'_, W>,
    name: &str,
    e: &InputError,
) -> std::io::Result<ExitStatus> {
    reporter.input_unreadable(name, e)?;
    Ok(ExitStatus::Usage)
}
