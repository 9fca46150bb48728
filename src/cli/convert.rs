//! `aiproto convert`: read → shared model → write, with a report of what the target could not hold.

use std::io::Write;

use serde::Serialize;

use super::args::{ConvertArgs, GlobalArgs};
use super::common;
use crate::convert::{self, WriteOptions};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::model::Loss;
use crate::output::{self, Format, Painter, Stream};
use crate::protocols::{Found, Protocol, ProtocolSpec, ReadOptions, hsp};

/// The `--format json` loss report of one message (written to stderr).
#[derive(Debug, Serialize)]
struct LossReport<'a> {
    source: &'a str,
    index: usize,
    line: usize,
    dropped: &'a [Loss],
}

pub fn run(args: &ConvertArgs, g: &GlobalArgs) -> CmdResult {
    if (args.expand || args.compact) && args.to.is_some_and(|t| t.protocol != Protocol::Csdl) {
        return Err(CliError::usage("--expand and --compact are for --to csdl"));
    }
    let options = WriteOptions {
        csdl_expanded: args.expand,
    };
    let mut input = args.input.clone();
    input.protocol = input.protocol.or(args.from);
    let mut converted = Vec::new();
    let mut status = ExitStatus::Ok;
    let mut any_loss = false;
    let err_painter = Painter::new(g.color, Stream::Stderr);
    let read_options = ReadOptions {
        lenient: args.lenient,
        max_message_bytes: args.max_message_bytes,
        ..ReadOptions::default()
    };
    let (docs, read_status) = common::read_all_with(&input, &read_options)?;
    status = status.max(read_status);
    let mut requests = match &args.answers {
        Some(path) => requests_in(path, &read_options, options)?,
        None => Vec::new(),
    };
    let mut answers = Vec::new();
    for doc in &docs {
        for found in &doc.messages {
            if !found.is_valid(false) {
                eprintln!(
                    "aiproto: error: {}:{}: message is invalid, not converted (see `aiproto validate {}`)",
                    doc.source.name, found.line, doc.source.name
                );
                status = status.max(ExitStatus::Invalid);
                continue;
            }
            let target = target_of(args, found);
            let Some(out) = convert::convert(found, target, options) else {
                continue;
            };
            if let Some(why) = convert::refusal(&out, target.protocol, &read_options) {
                eprintln!(
                    "aiproto: error: {}:{}: cannot be written as {}: {why}; not converted",
                    doc.source.name, found.line, target.protocol
                );
                status = status.max(ExitStatus::Invalid);
                continue;
            }
            if !out.losses.is_empty() {
                any_loss = true;
                report_losses(g, &err_painter, &doc.source.name, found, &out.losses)?;
            }
            if found.protocol != Protocol::Hsp
                && let Ok(json) = serde_json::from_str::<serde_json::Value>(&out.text)
                && json.get("message_type").is_some()
            {
                if is_task_request(&json) {
                    requests.push(json.clone());
                }
                answers.push((
                    converted.len(),
                    json,
                    format!("{}:{}", doc.source.name, found.line),
                ));
            }
            converted.push(out.text);
        }
    }
    for (at, mut json, place) in answers {
        if point_at_requests(&mut json, &requests, &place) {
            converted[at] = format!("{json}\n");
        }
    }
    if args.strict && any_loss {
        eprintln!("aiproto: error: --strict: the conversion would lose data; nothing written");
        return Ok(ExitStatus::Invalid);
    }
    let mut out = std::io::stdout().lock();
    out.write_all(crate::transport::join_messages(&converted).as_bytes())?;
    Ok(status)
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
) -> Result<Vec<serde_json::Value>, CliError> {
    let input = common::input_of(Some(path))?;
    let doc = crate::reader::read(&input, None, read_options)?;
    let requests: Vec<serde_json::Value> = doc
        .messages
        .iter()
        .filter(|f| f.is_valid(false))
        .filter_map(|f| convert::convert(f, HSP, options))
        .filter_map(|c| serde_json::from_str(&c.text).ok())
        .filter(is_task_request)
        .collect();
    if requests.is_empty() {
        return Err(CliError::usage(format!(
            "--answers {}: no valid TaskRequest in it",
            path.display()
        ))
        .with_hint("give the HSP TaskRequest, or the Crosstalk envelope it was converted to"));
    }
    Ok(requests)
}

fn is_task_request(json: &serde_json::Value) -> bool {
    json.get("message_type")
        .and_then(serde_json::Value::as_str)
        .is_some_and(|t| t.starts_with("HSP::TaskRequest_"))
}

/// Points an HSP answer written from another protocol at the request it
/// answers; says on stderr when it is a TaskResult whose request is unknown.
fn point_at_requests(
    json: &mut serde_json::Value,
    requests: &[serde_json::Value],
    place: &str,
) -> bool {
    if requests
        .iter()
        .any(|r| hsp::compose::point_at_request(json, r))
    {
        return true;
    }
    let is_result = json
        .get("message_type")
        .and_then(serde_json::Value::as_str)
        .is_some_and(|t| t.starts_with("HSP::TaskResult_"));
    let answered = requests
        .iter()
        .any(|r| r.get("message_id") == json.get("correlation_id"));
    if is_result && !answered {
        eprintln!(
            "aiproto: note: {place}: the TaskResult's request_id is its parent's message id and it goes to the parent's sender; \
             give --answers REQUEST to take the request's request_id and callback_address"
        );
    }
    false
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
    let mut err = std::io::stderr().lock();
    match g.format {
        Format::Json => output::write_json_line(
            &mut err,
            &LossReport {
                source,
                index: found.index,
                line: found.line,
                dropped: losses,
            },
        )?,
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
    Ok(())
}
