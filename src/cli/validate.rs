//! `aiproto validate`: check every message of every input; the exit code is the verdict.

use std::io::{BufWriter, Write};

use chrono::Utc;
use serde::Serialize;

use super::args::{GlobalArgs, ValidateArgs};
use crate::diag::{self, Diagnostic, Pos};
use crate::exit::{CmdResult, ExitStatus};
use crate::input::{self, InputError};
use crate::output::{self, Format, Painter, Stream};
use crate::protocols::{Found, ReadOptions};
use crate::reader::{self, Document};

/// One line of `--format json` output: the verdict on one message, or on a
/// whole input when it holds no message or cannot be read (`index` null).
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    pub source: &'a str,
    pub index: Option<usize>,
    pub line: Option<usize>,
    pub end_line: Option<usize>,
    pub protocol: Option<&'static str>,
    pub version: Option<&'a str>,
    pub id: Option<String>,
    pub valid: bool,
    pub errors: Vec<&'a Diagnostic>,
    pub warnings: Vec<&'a Diagnostic>,
}

#[derive(Default)]
struct Tally {
    inputs: usize,
    messages: usize,
    invalid: usize,
    errors: usize,
    warnings: usize,
    unreadable: usize,
}

pub fn run(args: &ValidateArgs, g: &GlobalArgs) -> CmdResult {
    let inputs = input::expand(&args.input.paths)?;
    let options = ReadOptions {
        now: Utc::now(),
        lenient: args.lenient,
        max_message_bytes: args.max_message_bytes,
    };
    let painter = Painter::new(g.color, Stream::Stdout);
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut status = ExitStatus::Ok;
    let mut tally = Tally::default();
    for input in &inputs {
        tally.inputs += 1;
        let result = reader::read(input, args.input.protocol, &options);
        let verdict = match result {
            Ok(doc) if doc.messages.is_empty() => {
                let d =
                    Diagnostic::error("NO-MESSAGE", reader::no_message_reason(&doc.source.text))
                        .at(Pos::new(1, 1), 1);
                file_level(
                    &mut out,
                    &painter,
                    g,
                    &doc.source.name,
                    Some(&doc.source.text),
                    d,
                    &mut tally,
                )?
            }
            Ok(doc) => report_document(&mut out, &painter, g, args.strict, &doc, &mut tally)?,
            Err(InputError::NotUtf8 { path, line, column }) => {
                let d = Diagnostic::error("INPUT-NOT-UTF8", "not UTF-8 text (a binary file?)")
                    .at(Pos::new(line, column), 1);
                file_level(&mut out, &painter, g, &path, None, d, &mut tally)?
            }
            Err(e) => {
                out.flush()?;
                tally.unreadable += 1;
                eprintln!("aiproto: error: {e}");
                if g.format == Format::Json {
                    let d = Diagnostic::error("INPUT-UNREADABLE", e.to_string());
                    let r = file_report(e.path(), &d);
                    output::write_json_line(&mut out, &r)?;
                }
                ExitStatus::Usage
            }
        };
        status = status.max(verdict);
    }
    out.flush()?;
    if !g.quiet && g.format == Format::Human {
        print_summary(&tally, &Painter::new(g.color, Stream::Stderr));
    }
    Ok(status)
}

fn report_document(
    out: &mut impl Write,
    p: &Painter,
    g: &GlobalArgs,
    strict: bool,
    doc: &Document,
    tally: &mut Tally,
) -> std::io::Result<ExitStatus> {
    let mut status = ExitStatus::Ok;
    // Built on the first finding to print, once per document.
    let mut lines: Option<output::SourceLines> = None;
    for found in &doc.messages {
        let (errors, warnings) = diag::partition(&found.diagnostics, strict);
        tally.messages += 1;
        tally.errors += errors.len();
        tally.warnings += warnings.len();
        let valid = errors.is_empty();
        if !valid {
            tally.invalid += 1;
            status = ExitStatus::Invalid;
        }
        match g.format {
            Format::Json => output::write_json_line(
                out,
                &message_report(&doc.source.name, found, errors, warnings),
            )?,
            Format::Human => {
                let lines = lines.get_or_insert_with(|| output::SourceLines::new(&doc.source.text));
                for d in &found.diagnostics {
                    out.write_all(
                        output::format_diagnostic(
                            p,
                            &doc.source.name,
                            lines.get(d.line),
                            d,
                            strict,
                        )
                        .as_bytes(),
                    )?;
                }
                if g.verbose && found.diagnostics.is_empty() {
                    writeln!(
                        out,
                        "{}: {} {} {}",
                        p.bold(&format!("{}:{}", doc.source.name, found.line)),
                        p.good("ok"),
                        found.protocol,
                        found.version
                    )?;
                }
            }
        }
    }
    Ok(status)
}

fn message_report<'a>(
    source: &'a str,
    found: &'a Found,
    errors: Vec<&'a Diagnostic>,
    warnings: Vec<&'a Diagnostic>,
) -> Report<'a> {
    Report {
        source,
        index: Some(found.index),
        line: Some(found.line),
        end_line: Some(found.end_line),
        protocol: Some(found.protocol.name()),
        version: Some(&found.version),
        id: found.id().map(str::to_string),
        valid: errors.is_empty(),
        errors,
        warnings,
    }
}

fn file_report<'a>(source: &'a str, d: &'a Diagnostic) -> Report<'a> {
    Report {
        source,
        index: None,
        line: None,
        end_line: None,
        protocol: None,
        version: None,
        id: None,
        valid: false,
        errors: vec![d],
        warnings: Vec::new(),
    }
}

/// Reports a problem with a whole input (no message in it, not text).
fn file_level(
    out: &mut impl Write,
    p: &Painter,
    g: &GlobalArgs,
    path: &str,
    text: Option<&str>,
    d: Diagnostic,
    tally: &mut Tally,
) -> std::io::Result<ExitStatus> {
    tally.invalid += 1;
    tally.errors += 1;
    match g.format {
        Format::Json => output::write_json_line(out, &file_report(path, &d))?,
        Format::Human => out.write_all(
            output::format_diagnostic(
                p,
                path,
                text.and_then(|t| output::SourceLines::new(t).get(d.line)),
                &d,
                false,
            )
            .as_bytes(),
        )?,
    }
    Ok(ExitStatus::Invalid)
}

fn print_summary(t: &Tally, p: &Painter) {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let verdict = if t.invalid == 0 {
        p.good("all valid")
    } else {
        p.error(&format!("{} invalid", t.invalid))
    };
    eprintln!(
        "{} in {}: {verdict} ({}, {})",
        plural(t.messages, "message"),
        plural(t.inputs, "input"),
        plural(t.errors, "error"),
        plural(t.warnings, "warning"),
    );
}
