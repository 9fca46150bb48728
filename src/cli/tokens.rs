//! `aiproto tokens`: token counts of inputs, or of each message in every
//! form aiproto can write it.

use std::io::Write;

use serde::Serialize;

use super::args::{GlobalArgs, TokensArgs};
use super::common;
use crate::exit::{CmdResult, ExitStatus};
use crate::input::Input;
use crate::operations::{self, Found};
use crate::output::{self, Format};
use crate::tokens::Encoding;

/// A file is counted in chunks of about this size (bounded memory).
const COUNT_CHUNK: usize = 1 << 20;

#[derive(Serialize)]
struct Count<'a> {
    source: &'a str,
    encoding: Encoding,
    tokens: usize,
}

/// One message in two forms.
#[derive(Serialize)]
struct Comparison<'a> {
    source: &'a str,
    line: usize,
    protocol: &'static str,
    encoding: Encoding,
    /// Form name → tokens.
    forms: Vec<Form>,
    /// The first form's tokens over the second's.
    ratio: f64,
}

#[derive(Serialize)]
struct Form {
    form: &'static str,
    tokens: usize,
}

pub fn run(args: &TokensArgs, g: &GlobalArgs) -> CmdResult {
    if args.compare {
        return compare(args, g);
    }
    let mut out = std::io::stdout().lock();
    let mut total = 0;
    let inputs = super::common::inputs(&args.input)?;
    let many = inputs.len() > 1;
    for i in &inputs {
        let name = i.name();
        let tokens = match i {
            Input::Text(source) => args.encoding.count(&source.text),
            _ => args.encoding.count_lines(i.open()?, &name, COUNT_CHUNK)?,
        };
        total += tokens;
        match g.format {
            Format::Json => output::write_json_line(
                &mut out,
                &Count {
                    source: &name,
                    encoding: args.encoding,
                    tokens,
                },
            )?,
            Format::Human => writeln!(out, "{tokens:>8}  {name}")?,
        }
    }
    if many && g.format == Format::Human && !g.quiet {
        writeln!(out, "{total:>8}  total ({})", args.encoding)?;
    }
    Ok(ExitStatus::Ok)
}

fn compare(args: &TokensArgs, g: &GlobalArgs) -> CmdResult {
    let mut out = std::io::stdout().lock();
    let mut sums = [0usize; 2];
    let mut status = ExitStatus::Ok;
    let mut emit = |c: &Comparison<'_>| -> std::io::Result<()> {
        sums[0] += c.forms[0].tokens;
        sums[1] += c.forms[1].tokens;
        match g.format {
            Format::Json => output::write_json_line(&mut out, c),
            Format::Human => writeln!(
                out,
                "{}:{}: {} {} {}, {} {} ({:.2})",
                c.source,
                c.line,
                c.protocol,
                c.forms[0].form,
                c.forms[0].tokens,
                c.forms[1].form,
                c.forms[1].tokens,
                c.ratio
            ),
        }
    };
    // Records of `msp pipeline --format json` name the prose a signal was
    // made from: the signal is compared with that prose.
    let mut rest = args.input.clone();
    rest.paths.clear();
    for path in &args.input.paths {
        match pipeline_records(path, args.encoding)? {
            Some(records) => {
                let name = path.display().to_string();
                for (line, forms) in records {
                    emit(&comparison(&name, line, "msp", args.encoding, forms))?;
                }
            }
            None => rest.paths.push(path.clone()),
        }
    }
    if rest.paths.is_empty() && !args.input.paths.is_empty() {
        summary(&mut out, g, args, sums)?;
        return Ok(status);
    }
    let read_status = common::each_message(
        &rest,
        &Default::default(),
        &mut |_, _, _| {},
        &mut |name, found| {
            let Some((protocol, forms)) = forms(found, args.encoding) else {
                eprintln!(
                    "aiproto: error: {}:{}: an unreadable {} message has no forms to compare",
                    name, found.line, found.protocol
                );
                status = status.max(ExitStatus::Invalid);
                return Ok(());
            };
            emit(&comparison(
                name,
                found.line,
                protocol,
                args.encoding,
                forms,
            ))?;
            Ok(())
        },
    )?;
    summary(&mut out, g, args, sums)?;
    Ok(status.max(read_status))
}

/// One message's comparison.
fn comparison<'a>(
    source: &'a str,
    line: usize,
    protocol: &'static str,
    encoding: Encoding,
    forms: Vec<Form>,
) -> Comparison<'a> {
    Comparison {
        source,
        line,
        protocol,
        encoding,
        ratio: forms[0].tokens as f64 / forms[1].tokens.max(1) as f64,
        forms,
    }
}

/// Records of `msp pipeline`: each one's line and its two forms.
type Records = Vec<(usize, Vec<Form>)>;

/// How much of a file's start says whether it holds `msp pipeline`
/// records (`original_text` is a record's first key).
const RECORD_HEAD: usize = 4096;

/// The largest file looked at as `msp pipeline` records.
const RECORDS_MAX_BYTES: u64 = 16 << 20;

/// When `path` holds records of `msp pipeline --format json` (one JSON
/// object, or one per line, with `signal` and `original_text`): each
/// record's line and its signal against its original prose.
fn pipeline_records(
    path: &std::path::Path,
    encoding: Encoding,
) -> Result<Option<Records>, crate::exit::CliError> {
    let small = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() <= RECORDS_MAX_BYTES);
    if !small {
        return Ok(None);
    }
    // A look at the start first: any other input is read once, by the
    // message readers, not twice.
    let mut head = Vec::with_capacity(RECORD_HEAD);
    if let Ok(file) = std::fs::File::open(path) {
        let _ = std::io::Read::read_to_end(
            &mut std::io::Read::take(file, RECORD_HEAD as u64),
            &mut head,
        );
    }
    let head = String::from_utf8_lossy(&head);
    if !head.trim_start().starts_with('{') || !head.contains("\"original_text\"") {
        return Ok(None);
    }
    let text = Input::File(path.to_path_buf()).read()?.text;
    let record = |json: &serde_json::Value| -> Option<Vec<Form>> {
        let original = json.get("original_text")?.as_str()?;
        let signal = json.get("signal").filter(|s| s.is_object())?;
        Some(vec![
            Form {
                form: "signal",
                tokens: encoding.count(&signal.to_string()),
            },
            Form {
                form: "original",
                tokens: encoding.count(original),
            },
        ])
    };
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) {
        return Ok(record(&json).map(|forms| vec![(1, forms)]));
    }
    let mut records = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let Some(forms) = serde_json::from_str(line).ok().as_ref().and_then(record) else {
            return Ok(None);
        };
        records.push((i + 1, forms));
    }
    Ok(Some(records))
}

/// The total line of the human form.
fn summary(
    out: &mut impl Write,
    g: &GlobalArgs,
    args: &TokensArgs,
    sums: [usize; 2],
) -> std::io::Result<()> {
    if g.format == Format::Human && !g.quiet && sums[1] > 0 {
        writeln!(
            out,
            "total: {} against {} tokens ({:.2}, {:.0}% saved; {})",
            sums[0],
            sums[1],
            sums[0] as f64 / sums[1] as f64,
            100.0 * (1.0 - sums[0] as f64 / sums[1] as f64),
            args.encoding
        )?;
    }
    Ok(())
}

/// A message's two forms, the compact one first (for Crosstalk and HSP:
/// the Crosstalk envelope first).
fn forms(found: &Found, encoding: Encoding) -> Option<(&'static str, Vec<Form>)> {
    let (protocol, texts) = operations::forms::two_forms(found)?;
    let forms = texts
        .iter()
        .map(|(form, text)| Form {
            form,
            tokens: encoding.count(text),
        })
        .collect();
    Some((protocol, forms))
}
