//! `aiproto convert`: read → shared model → write, with a report of what the
//! target could not hold. Inputs are read piece by piece and each message
//! written before the next is read, so memory stays bounded by the largest
//! message and a piece (`reader::pieces`), whatever the input's size.

use std::io::Write;

use super::args::{ConvertArgs, GlobalArgs, InputArgs};
use super::common;
use crate::convert::answers::{Pointed, Requests};
use crate::convert::{self, Attempt, WriteOptions};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::input::{self, Input};
use crate::model::Loss;
use crate::operations::read::{self, Item};
use crate::operations::{Found, Protocol, ProtocolSpec, ReadOptions};
use crate::output::{self, Format, Painter, Stream};
use crate::records::convert::LossRecord;

pub fn run(args: &ConvertArgs, g: &GlobalArgs) -> CmdResult {
    if (args.expand || args.compact) && args.to.is_some_and(|t| t.protocol != Protocol::Csdl) {
        return Err(CliError::usage("--expand and --compact are for --to csdl"));
    }
    let options = WriteOptions {
        csdl_expanded: args.expand,
    };
    let mut input_args = args.input.clone();
    input_args.protocol = input_args.protocol.or(args.from);
    let read_options = ReadOptions {
        lenient: args.lenient,
        max_message_bytes: args.max_message_bytes,
        ..ReadOptions::default()
    };
    let mut inputs = common::inputs(&input_args)?;
    let requests = match &args.answers {
        Some(path) => requests_in(path, &read_options, options)?,
        None => Requests::new(),
    };
    let mut pass = Pass {
        args,
        g,
        options,
        read_options,
        requests: requests.clone(),
        any_loss: false,
        status: ExitStatus::Ok,
        written: 0,
        err_painter: Painter::new(g.color, Stream::Stderr),
    };
    if !args.strict {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        pass.convert_all(&inputs, &input_args, Some(&mut out), true)?;
        out.flush()?;
        return Ok(pass.status);
    }
    // --strict writes nothing if anything would be lost: a first pass
    // finds out (and says what), a second writes. Stdin is kept in a
    // temporary file for the second pass, and so is each file named (the
    // second pass then writes what the first found lossless, even if the
    // file is written to in between); memory stays bounded either way.
    for input in &mut inputs {
        *input = match std::mem::replace(input, Input::Stdin) {
            Input::Stdin => input::spool_stdin()?,
            other => input::spool_file(other)?,
        };
    }
    pass.convert_all(&inputs, &input_args, None, true)?;
    if pass.any_loss {
        eprintln!("aiproto: error: --strict: the conversion would lose data; nothing written");
        return Ok(ExitStatus::Invalid);
    }
    let status = pass.status;
    pass.requests = requests;
    pass.written = 0;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    pass.convert_all(&inputs, &input_args, Some(&mut out), false)?;
    out.flush()?;
    Ok(status)
}

/// One pass over the inputs: each message read, converted and written (or
/// only judged) before the next is read.
struct Pass<'a> {
    args: &'a ConvertArgs,
    g: &'a GlobalArgs,
    options: WriteOptions,
    read_options: ReadOptions,
    /// TaskRequests in HSP form met so far (and those of `--answers`): an
    /// answer converted to HSP points at the one it answers.
    requests: Requests,
    any_loss: bool,
    status: ExitStatus,
    /// Messages written so far (a Crosstalk envelope after one gets a blank line).
    written: usize,
    err_painter: Painter,
}

impl Pass<'_> {
    /// Converts every message of every input; `report` says on stderr what
    /// is not converted or lost (the second pass of --strict stays quiet).
    fn convert_all(
        &mut self,
        inputs: &[Input],
        input_args: &InputArgs,
        mut out: Option<&mut dyn Write>,
        report: bool,
    ) -> Result<(), CliError> {
        for input in inputs {
            let mut any = false;
            // The next piece is read and checked while this one is converted.
            let mut pieces = read::pieces(
                input,
                input_args.protocol,
                &self.read_options,
                read::PIECE_BYTES,
            )?
            .ahead()?;
            let mut skipped = false;
            for item in &mut pieces {
                let piece = match item? {
                    Item::Piece(piece) => piece,
                    Item::Skipped(..) => {
                        skipped = true; // a README a walk met
                        break;
                    }
                };
                // Converting (and checking the result) is most of the cost:
                // on every core; what follows is in input order.
                let (args, options, read_options) = (self.args, self.options, self.read_options);
                let name = &piece.source.name;
                let attempts = crate::parallel::map(&piece.messages, |found| {
                    convert::attempt(found, target_of(args, found), options, &read_options, name)
                });
                for (found, attempt) in piece.messages.iter().zip(attempts) {
                    any = true;
                    let Some(text) = self.message(&piece.source.name, found, attempt, report)?
                    else {
                        continue;
                    };
                    if let Some(out) = out.as_mut() {
                        if self.written > 0 && text.starts_with("[[") {
                            out.write_all(b"\n")?;
                        }
                        out.write_all(text.as_bytes())?;
                    }
                    self.written += 1;
                }
            }
            if !any && !skipped {
                if report {
                    let why = pieces.read_through().why_no_message();
                    eprintln!("aiproto: error: {}: {why}", input.name());
                }
                self.status = self.status.max(ExitStatus::Invalid);
            }
        }
        Ok(())
    }

    /// The message converted, or `None` (said on stderr with `report`).
    /// What becomes of one message, in input order: why it is not
    /// converted, or its losses reported and the text to write.
    fn message(
        &mut self,
        name: &str,
        found: &Found,
        attempt: Attempt,
        report: bool,
    ) -> Result<Option<String>, CliError> {
        let mut converted = match attempt {
            Attempt::Converted(converted) => converted,
            Attempt::Nothing => return Ok(None),
            Attempt::Refused(why) => {
                if report {
                    eprintln!("aiproto: error: {name}:{}: {why}", found.line);
                }
                self.status = self.status.max(ExitStatus::Invalid);
                return Ok(None);
            }
        };
        if !converted.losses.is_empty() {
            self.any_loss = true;
            if report {
                report_losses(self.g, &self.err_painter, name, found, &converted.losses)?;
            }
        }
        if found.protocol != Protocol::Hsp
            && let Ok(mut json) = serde_json::from_str::<serde_json::Value>(&converted.text)
            && json.get("message_type").is_some()
        {
            self.requests.remember(&json);
            let place = format!("{name}:{}", found.line);
            if point_at_requests(&mut json, &self.requests, &place, report) {
                converted.text = format!("{json}\n");
            }
        }
        Ok(Some(converted.text))
    }
}

const HSP: ProtocolSpec = ProtocolSpec {
    protocol: Protocol::Hsp,
    version: None,
};

/// The HSP TaskRequests of `--answers FILE`, in HSP form whatever their protocol.
fn requests_in(
    path: &std::path::Path,
    read_options: &ReadOptions,
    options: WriteOptions,
) -> Result<Requests, CliError> {
    let input = common::input_of(Some(path))?;
    let doc = read::read(&input, None, read_options)?;
    let mut requests = Requests::new();
    doc.messages
        .iter()
        .filter(|f| f.is_valid(false))
        .filter_map(|f| convert::convert(f, HSP, options))
        .filter_map(|c| serde_json::from_str(&c.text).ok())
        .for_each(|request| requests.remember(&request));
    if requests.is_empty() {
        return Err(CliError::usage(format!(
            "--answers {}: no valid TaskRequest in it",
            path.display()
        ))
        .with_hint("give the HSP TaskRequest, or the Crosstalk envelope it was converted to"));
    }
    Ok(requests)
}

/// Points an HSP answer written from another protocol at the request it
/// answers (met earlier, or given with --answers); says on stderr when it
/// is a TaskResult whose request is unknown.
fn point_at_requests(
    json: &mut serde_json::Value,
    requests: &Requests,
    place: &str,
    report: bool,
) -> bool {
    match requests.point_at(json) {
        Pointed::Pointed => true,
        Pointed::Unknown => {
            if report {
                eprintln!(
                    "aiproto: note: {place}: the TaskResult's request_id is its parent's message id and it goes to the parent's sender; \
                     give --answers REQUEST to take the request's request_id and callback_address"
                );
            }
            false
        }
        Pointed::Unchanged => false,
    }
}

/// `--to` as given (its version defaulting to the protocol's newest), or
/// with `--canonical` alone the message's own protocol and version.
fn target_of(args: &ConvertArgs, found: &Found) -> ProtocolSpec {
    args.to.unwrap_or_else(|| found.spec())
}

fn report_losses(
    g: &GlobalArgs,
    p: &Painter,
    source: &str,
    found: &Found,
    losses: &[Loss],
) -> Result<(), CliError> {
    // One write per message: stderr is unbuffered, and a stream of
    // conversions reports thousands of these.
    let mut err = std::io::BufWriter::new(std::io::stderr().lock());
    match g.format {
        Format::Json => output::write_json_line(&mut err, &LossRecord::new(source, found, losses))?,
        Format::Human => {
            for loss in losses {
                writeln!(
                    err,
                    "{}: {} {} = {} ({})",
                    p.bold(&format!("{source}:{}", found.line)),
                    p.warning("dropped"),
                    loss.field,
                    loss.value,
                    loss.reason
                )?;
            }
        }
    }
    err.flush()?;
    Ok(())
}
