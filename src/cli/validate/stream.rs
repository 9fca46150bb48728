//! Validating HSP JSON Lines of any length: lines are read in batches,
//! checked on all cores, and reported in input order; memory stays bounded
//! by the batch size and `--max-message-bytes`.

use std::io::{BufRead, IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::report::Reporter;
use crate::cli::args::GlobalArgs;
use crate::exit::ExitStatus;
use crate::operations::read::{self, HspOptions, HspRead, SeenIds};
use crate::operations::{Found, ReadOptions};
use crate::parallel;
use crate::project::checks::ProjectChecks;
use crate::stream::{Line, LineReader};

/// Lines checked together; bounds memory, keeps every core busy (512
/// measured against 128 to 8192: as fast as any, 30 MB resident against
/// 42 MB for 2048).
const BATCH: usize = 512;
/// Inputs at least this large (or of unknown size) get a progress bar on a terminal.
const PROGRESS_FROM: u64 = 64 * 1024 * 1024;

/// A progress bar on stderr for a large input, when stderr is a terminal.
pub fn progress_bar(g: &GlobalArgs, size: Option<u64>) -> Option<ProgressBar> {
    if g.quiet || !std::io::stderr().is_terminal() || size.is_some_and(|s| s < PROGRESS_FROM) {
        return None;
    }
    let bar = match size {
        Some(total) => ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr()),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
    };
    let template = if size.is_some() {
        "{spinner} validating {bytes}/{total_bytes} ({bytes_per_sec}, {eta} left) {msg}"
    } else {
        "{spinner} validating {bytes} ({bytes_per_sec}) {msg}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    Some(bar)
}

/// Checks every line of a JSON Lines input.
pub fn validate<W: Write>(
    reader: impl BufRead,
    name: &str,
    options: &ReadOptions,
    checks: &mut ProjectChecks,
    reporter: &mut Reporter<'_, W>,
    progress: Option<ProgressBar>,
) -> std::io::Result<ExitStatus> {
    let hsp_options = options.hsp();
    let mut lines = LineReader::new(reader, options.max_message_bytes);
    let mut status = ExitStatus::Ok;
    let mut index = 0;
    let mut seen = SeenIds::default();
    // Each line's digest is taken on the pool, beside its check.
    let digests = seen.digests();
    // Lines are read and reports written on this thread while the batch
    // before is checked on the pool.
    let read_batch = || -> Result<Option<Vec<Line>>, Stop> {
        let mut batch = Vec::with_capacity(BATCH);
        while batch.len() < BATCH {
            match lines.next_line() {
                Ok(Some(Line::Text(_, t))) if t.trim().is_empty() => {}
                Ok(Some(line)) => batch.push(line),
                Ok(None) => break,
                Err(e) => return Err(Stop::Unreadable(e)),
            }
        }
        if let Some(bar) = &progress {
            bar.set_position(lines.consumed);
        }
        Ok((!batch.is_empty()).then_some(batch))
    };
    let report_batch = |batch: Vec<Line>, reads: Vec<(HspRead, Option<u64>)>| -> Result<(), Stop> {
        for (line, (read, digest)) in batch.iter().zip(reads) {
            let mut found = Found::from_hsp(index, read);
            index += 1;
            let text = match line {
                Line::Text(_, t) => Some(t.as_str()),
                _ => None,
            };
            let repeated = seen.finding_digested(&found, || digest);
            found.diagnostics.extend(repeated);
            checks.check(&mut found, text.unwrap_or_default());
            if !reporter
                .message(name, &found, |_| text)
                .map_err(Stop::Write)?
            {
                status = ExitStatus::Invalid;
            }
        }
        if let Some(bar) = &progress {
            bar.set_message(format!("{index} messages"));
        }
        Ok(())
    };
    match parallel::pipelined(
        read_batch,
        |line| {
            let digest = match line {
                Line::Text(_, t) => Some(digests.of(t)),
                _ => None,
            };
            (check_line(line, hsp_options), digest)
        },
        report_batch,
    ) {
        Ok(()) => {}
        Err(Stop::Write(e)) => return Err(e),
        Err(Stop::Unreadable(e)) => {
            reporter.input_unreadable(name, &format!("cannot read {name}: {e}"))?;
            return Ok(ExitStatus::Usage);
        }
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    Ok(status)
}

/// Why a pipelined run stopped early.
enum Stop {
    /// The input could not be read on.
    Unreadable(std::io::Error),
    /// The report could not be written.
    Write(std::io::Error),
}

/// One line read and checked, or the finding that says why it holds no
/// message (over the size limit, not UTF-8).
fn check_line(line: &Line, options: HspOptions) -> HspRead {
    let n = line.number();
    match line.text_or_failure(n, options.max_message_bytes) {
        Ok(text) => read::hsp_line(text, n, options),
        Err(d) => HspRead::failed(d),
    }
}
