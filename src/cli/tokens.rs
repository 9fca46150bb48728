//! `aiproto tokens`: token counts of inputs, or of each message in every
//! form aiproto can write it.

use std::io::Write;

use serde::Serialize;

use super::args::{GlobalArgs, TokensArgs};
use super::common;
use crate::convert::{self, WriteOptions};
use crate::exit::{CmdResult, ExitStatus};
use crate::input::Input;
use crate::output::{self, Format};
use crate::protocols::csdl::codes;
use crate::protocols::msp::offline;
use crate::protocols::{Found, Protocol, ProtocolSpec, Value};
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
    let read_status = common::each_message(
        &args.input,
        &Default::default(),
        &mut |_, _| {},
        &mut |name, found| {
            let Some((protocol, forms)) = forms(found, args.encoding) else {
                eprintln!(
                    "aiproto: error: {}:{}: an unreadable {} message has no forms to compare",
                    name, found.line, found.protocol
                );
                status = status.max(ExitStatus::Invalid);
                return Ok(());
            };
            sums[0] += forms[0].tokens;
            sums[1] += forms[1].tokens;
            let c = Comparison {
                source: name,
                line: found.line,
                protocol,
                encoding: args.encoding,
                ratio: forms[0].tokens as f64 / forms[1].tokens.max(1) as f64,
                forms,
            };
            match g.format {
                Format::Json => output::write_json_line(&mut out, &c)?,
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
                )?,
            }
            Ok(())
        },
    )?;
    status = status.max(read_status);
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
    Ok(status)
}

/// A message's two forms, the compact one first (for Crosstalk and HSP:
/// the Crosstalk envelope first).
fn forms(found: &Found, encoding: Encoding) -> Option<(&'static str, Vec<Form>)> {
    let (protocol, texts) = match &found.value {
        Value::Csdl(Some(doc)) => (
            "csdl",
            [
                ("compact", codes::compact(&doc.json).to_string()),
                ("expanded", codes::expand(&doc.json).to_string()),
            ],
        ),
        Value::Msp(Some(doc)) => (
            "msp",
            [
                ("signal", doc.json.to_string()),
                ("prose", offline::decode(&doc.json, "professional")),
            ],
        ),
        // The same message as a Crosstalk envelope and as an HSP envelope.
        Value::Crosstalk(_) | Value::Hsp(Some(_)) => {
            let as_ = |protocol| {
                let target = ProtocolSpec {
                    protocol,
                    version: None,
                };
                convert::convert(found, target, WriteOptions::default()).map(|c| c.text)
            };
            (
                "crosstalk/hsp",
                [
                    ("crosstalk", as_(Protocol::Crosstalk)?),
                    ("hsp", as_(Protocol::Hsp)?),
                ],
            )
        }
        _ => return None,
    };
    let forms = texts
        .iter()
        .map(|(form, text)| Form {
            form,
            tokens: encoding.count(text),
        })
        .collect();
    Some((protocol, forms))
}
