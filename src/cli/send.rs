//! `aiproto send`: deliver each message of a file to a destination, all or
//! nothing (or, with `--each`, each checked and sent in turn), reading the
//! inputs piece by piece (bounded memory).

use std::io::Write;
use std::path::{Path, PathBuf};

use super::args::{GlobalArgs, SendArgs};
use super::common;
use super::endpoints::{endpoint, failure};
use crate::diag::Diagnostic;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::input::{self, Input};
use crate::operations::read::{self as reader, Item, Piece};
use crate::operations::sending::{self, Unsendable, unsendable};
use crate::operations::{Protocol, ReadOptions};
use crate::transport::secrets::redact;
use crate::transport::{self, Endpoint, Outgoing};

pub fn run(args: &SendArgs, g: &GlobalArgs) -> CmdResult {
    let destination = endpoint(&args.via)?;
    if !matches!(destination, Endpoint::A2a(_))
        && (args.stream || args.no_wait || args.token_file.is_some() || args.require_signed_card)
    {
        return Err(CliError::usage(
            "--stream, --no-wait, --token-file and --require-signed-card are for an A2A agent: --via a2a+http(s)://HOST",
        ));
    }
    if args.each {
        return send_each(args, &destination, g);
    }
    let inputs = read_inputs(&args.paths)?;
    // Nothing is sent unless every message may be: a first pass checks
    // them all, a second sends, each reading the inputs piece by piece
    // (stdin is kept in a temporary file between the two).
    let count = match check(&inputs, args.force, g)? {
        Checked::Refused => return Ok(ExitStatus::Invalid),
        Checked::Sendable(count) => count,
    };
    if let Endpoint::File(path) = &destination {
        return archive(path, &inputs, g);
    }
    if let Endpoint::Email(address) = &destination
        && args.out.is_some()
        && count != 1
    {
        return Err(failure(transport::TransportError::EmailOneFile(count))
            .with_hint(format!("send to {address} over SMTP with --smtp URL")));
    }
    match &destination {
        Endpoint::Stdio => write_stdout(&inputs)?,
        // One paste holds everything: gathered first.
        Endpoint::Clipboard => {
            let pieces = gather(&inputs)?;
            let messages: Vec<Outgoing> = pieces
                .iter()
                .flat_map(|piece| outgoing(piece, &destination))
                .collect();
            let mut clipboard = transport::open(destination.clone(), args.settings());
            clipboard
                .send(&messages, &mut print_reply)
                .map_err(failure)?;
            clipboard.finish().map_err(failure)?;
        }
        _ => {
            let mut transport = open_transport(args, &destination)?;
            send_overlapped(&inputs, &destination, &mut *transport)?;
            // An MQTT connection kept open between pieces is closed here,
            // once everything is written.
            transport.finish().map_err(failure)?;
        }
    }
    say_sent(args, &destination, count, g);
    Ok(ExitStatus::Ok)
}

/// The transport to a destination that takes messages as they come.
fn open_transport(
    args: &SendArgs,
    destination: &Endpoint,
) -> Result<Box<dyn transport::Transport>, CliError> {
    let mut settings = args.settings();
    // --each: what is handed over is written before the next message is
    // waited for (its latency is the point); acknowledged as it goes.
    if args.each {
        settings.send_returns = transport::SendReturns::Written;
    }
    settings.a2a_token = super::common::a2a_token(args.token_file.as_deref())?;
    if args.require_signed_card {
        settings.a2a_card_check = Some(super::common::signed_card_check()?);
    }
    Ok(transport::open(destination.clone(), settings))
}

/// Says on stderr how many messages went where (not with --quiet).
fn say_sent(args: &SendArgs, destination: &Endpoint, n: usize, g: &GlobalArgs) {
    if !g.quiet {
        match destination {
            Endpoint::Mqtt(_) => eprintln!(
                "aiproto: published {n} message(s) to {} at QoS {}",
                redact(&args.via),
                args.qos
            ),
            Endpoint::Clipboard => eprintln!("aiproto: copied {n} message(s) to the clipboard"),
            Endpoint::Email(address) => {
                let how = args.out.as_ref().map_or_else(
                    || "sent over SMTP".to_string(),
                    |p| format!("written to {}", p.display()),
                );
                eprintln!("aiproto: {n} mail(s) to {address} {how}");
            }
            _ => eprintln!("aiproto: sent {n} message(s) to {}", redact(&args.via)),
        }
    }
}

/// Where `send --each` stopped: the message that may not be sent.
struct Stopped {
    name: String,
    line: usize,
    why: Unsendable,
}

/// `send --each`: each message read, checked and sent in turn; the
/// reading and checking run on another thread while this one sends (at
/// most one message waits between them). The first message that may not
/// be sent stops the reading; what was read before it is sent.
fn send_each(args: &SendArgs, destination: &Endpoint, g: &GlobalArgs) -> CmdResult {
    if matches!(destination, Endpoint::File(_) | Endpoint::Clipboard) || args.out.is_some() {
        return Err(CliError::usage(
            "--each is for a destination that takes one message at a time: mqtt(s)://, http(s)://, a2a+http(s)://, email: over SMTP, or -",
        ));
    }
    let inputs = named_inputs(&args.paths)?;
    let mut transport = open_transport(args, destination)?;
    let (sent, read) = pump(&mut *transport, |handed| {
        check_each(&inputs, args.force, destination, g, handed)
    })?;
    // What went out is acknowledged (QoS 1 and 2) whatever ended the
    // reading: an input without a message, one that cannot be read.
    transport.finish().map_err(failure)?;
    match read? {
        None => {
            say_sent(args, destination, sent, g);
            Ok(ExitStatus::Ok)
        }
        Some(stop) => {
            let force = if stop.why == Unsendable::Invalid {
                " (use --force to send invalid ones)"
            } else {
                ""
            };
            eprintln!(
                "aiproto: error: {}:{}: {}; stopped there: {sent} message(s) sent before it to {}{force}",
                stop.name,
                stop.line,
                stop.why.describe(),
                redact(&args.via),
            );
            Ok(ExitStatus::Invalid)
        }
    }
}

/// The reading side of [`send_each`]: each message checked as it is read
/// (stdin from a pipe a message at a time) and handed on; the first one that may not
/// be sent is said, with its findings, and ends the reading.
fn check_each(
    inputs: &[Input],
    force: bool,
    destination: &Endpoint,
    g: &GlobalArgs,
    sender: std::sync::mpsc::SyncSender<Vec<Outgoing>>,
) -> Result<Option<Stopped>, CliError> {
    let mut handing = Handing::new(sender);
    let mut stopped = None;
    for input in inputs {
        let piece_bytes = if input.comes_as_written() {
            1
        } else {
            reader::PIECE_BYTES
        };
        let checks = ReadOptions::default();
        let none =
            reader::each_piece_of(input, None, &checks, piece_bytes, &mut |piece: &Piece| {
                let name = &piece.source.name;
                let source = piece.source.text.as_str();
                for found in &piece.messages {
                    if let Some(why) = unsendable(found, force) {
                        let text = (source, piece.first_line);
                        common::print_findings(g, name, text, found, Diagnostic::is_error);
                        stopped = Some(Stopped {
                            name: name.clone(),
                            line: found.line,
                            why,
                        });
                        break;
                    }
                    handing.add(sending::outgoing(found, source, destination));
                }
                // The sender stopped (it failed, and says why): so does the reading.
                if stopped.is_some() || !handing.offer() {
                    return Err(CliError::new(
                        ExitStatus::Transport,
                        anyhow::anyhow!("stopped"),
                    ));
                }
                Ok(())
            });
        match none {
            Err(_) if stopped.is_some() => break,
            Err(e) => return Err(e),
            Ok(Some(why)) => {
                handing.finish();
                return Err(CliError::new(
                    ExitStatus::Invalid,
                    anyhow::anyhow!("{}: {why}; nothing after it sent", input.name()),
                ));
            }
            Ok(None) => {}
        }
    }
    handing.finish();
    Ok(stopped)
}

/// Messages checked and waiting for the sender: handed over at once when
/// it is free (the first message of a pipeline goes as soon as it is
/// read), gathered while it is busy, up to [`reader::PIECE_BYTES`] of them.
struct Handing {
    sender: std::sync::mpsc::SyncSender<Vec<Outgoing>>,
    waiting: Vec<Outgoing>,
    bytes: usize,
}

impl Handing {
    fn new(sender: std::sync::mpsc::SyncSender<Vec<Outgoing>>) -> Handing {
        Handing {
            sender,
            waiting: Vec::new(),
            bytes: 0,
        }
    }

    fn add(&mut self, message: Option<Outgoing>) {
        if let Some(message) = message {
            self.bytes += message.text.len();
            self.waiting.push(message);
        }
    }

    /// Hands over what waits if the sender is free, or once it is when
    /// too much waits; false when the sender has stopped.
    fn offer(&mut self) -> bool {
        use std::sync::mpsc::TrySendError;
        if self.waiting.is_empty() {
            return true;
        }
        let batch = std::mem::take(&mut self.waiting);
        let sent = match self.sender.try_send(batch) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(batch)) if self.bytes < reader::PIECE_BYTES => {
                self.waiting = batch;
                return true;
            }
            Err(TrySendError::Full(batch)) => self.sender.send(batch).map_err(drop),
            Err(TrySendError::Disconnected(_)) => Err(()),
        };
        self.bytes = 0;
        sent.is_ok()
    }

    /// Hands over whatever still waits.
    fn finish(mut self) {
        if !self.waiting.is_empty() {
            let _ = self.sender.send(std::mem::take(&mut self.waiting));
        }
    }
}

/// The inputs, each to be read twice: private copies of the files named and
/// of stdin, or the clipboard's text.
fn read_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, CliError> {
    named_inputs(paths)?
        .into_iter()
        .map(|input| match input {
            Input::Stdin => Ok(input::spool_stdin()?),
            // What the first pass checks is what the second sends, even if
            // the file is written to in between.
            other => Ok(input::spool_file(other)?),
        })
        .collect()
}

/// The inputs named on the command line (stdin when none is).
fn named_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, CliError> {
    if paths.is_empty() {
        return Ok(vec![Input::Stdin]);
    }
    paths.iter().map(|p| common::input_of(Some(p))).collect()
}

/// How the second pass reads: the inputs are the private copies (or the
/// clipboard's text in memory) that [`check`] read and checked, so HSP
/// messages are parsed and not checked again. Each is sent as its text was
/// written, so of HSP JSON Lines only what routes it is built (a mail's
/// subject and ids among it).
fn second_pass() -> ReadOptions {
    ReadOptions {
        checked_before: true,
        routing_only: true,
        ..ReadOptions::default()
    }
}

/// Sends the inputs' messages in order, a piece at a time: the next piece
/// is read and written out on another thread while this one sends the one
/// before (at most one piece waits between them).
fn send_overlapped(
    inputs: &[Input],
    destination: &Endpoint,
    transport: &mut dyn transport::Transport,
) -> Result<(), CliError> {
    let (_, read) = pump(transport, |handed| {
        for_each_piece(inputs, &mut |piece| {
            // The sender stopped (it failed, and says why): so does the reading.
            handed
                .send(outgoing(piece, destination))
                .map_err(|_| CliError::new(ExitStatus::Transport, anyhow::anyhow!("stopped")))
        })
    })?;
    read
}

/// Runs `read` on another thread, handing batches of messages to
/// `transport` on this one as they come (at most one batch waits).
/// Returns how many were sent and what `read` gave; a transport failure
/// is the error, and stops the reading (its next hand-over fails).
fn pump<T: Send>(
    transport: &mut dyn transport::Transport,
    read: impl FnOnce(std::sync::mpsc::SyncSender<Vec<Outgoing>>) -> Result<T, CliError> + Send,
) -> Result<(usize, Result<T, CliError>), CliError> {
    std::thread::scope(|scope| {
        let (handed, arrived) = std::sync::mpsc::sync_channel::<Vec<Outgoing>>(1);
        let reader = scope.spawn(move || read(handed));
        let mut sent = 0;
        for messages in arrived {
            transport
                .send(&messages, &mut print_reply)
                .map_err(failure)?;
            sent += messages.len();
        }
        let read = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok((sent, read))
    })
}

/// The inputs' pieces in order, each handed to `each`; an input without
/// any message was refused by [`check`] before.
fn for_each_piece(
    inputs: &[Input],
    each: &mut dyn FnMut(&Piece) -> Result<(), CliError>,
) -> Result<(), CliError> {
    for input in inputs {
        common::each_piece(input, None, &second_pass(), each)?;
    }
    Ok(())
}

/// Every piece of the inputs, held (for a destination that takes all at once).
fn gather(inputs: &[Input]) -> Result<Vec<Piece>, CliError> {
    let mut pieces = Vec::new();
    for input in inputs {
        let mut all = reader::pieces(input, None, &second_pass(), reader::PIECE_BYTES)?;
        for item in &mut all {
            if let Item::Piece(piece) = item? {
                pieces.push(piece);
            }
        }
    }
    Ok(pieces)
}

/// A piece's messages as payloads for `destination`, each as its sender
/// wrote it (see [`sending::outgoing`]).
fn outgoing(piece: &Piece, destination: &Endpoint) -> Vec<Outgoing> {
    let source = piece.source.text.as_str();
    piece
        .messages
        .iter()
        .filter_map(|found| sending::outgoing(found, source, destination))
        .collect()
}

/// What the first pass found.
enum Checked {
    /// Every message may be sent; this many of them.
    Sendable(usize),
    /// Something may not (said on stderr): nothing is sent.
    Refused,
}

/// The first pass: an input without any message is an error (exit 1); an
/// envelope cut off before its `[[END]]` line, JSON that cannot be read,
/// or (without `--force`) an invalid message, is reported with its
/// findings and refuses the send.
fn check(inputs: &[Input], force: bool, g: &GlobalArgs) -> Result<Checked, CliError> {
    let mut refused = false;
    let mut count = 0;
    // This pass only judges: the messages are read again to be sent.
    let judge_only = ReadOptions {
        verdicts_only: true,
        ..ReadOptions::default()
    };
    for input in inputs {
        let mut invalid = false;
        let none = common::each_piece(input, None, &judge_only, &mut |piece| {
            let name = &piece.source.name;
            let text = (piece.source.text.as_str(), piece.first_line);
            for found in &piece.messages {
                count += 1;
                match unsendable(found, force) {
                    None => {}
                    Some(Unsendable::Invalid) => {
                        invalid = true;
                        common::print_findings(g, name, text, found, Diagnostic::is_error);
                    }
                    Some(why) => {
                        refused = true;
                        common::print_findings(g, name, text, found, Diagnostic::is_error);
                        let more = if why == Unsendable::Unreadable {
                            " (not even with --force)"
                        } else {
                            ""
                        };
                        eprintln!(
                            "aiproto: error: {name}:{}: {}, nothing sent{more}",
                            found.line,
                            why.describe()
                        );
                    }
                }
            }
            Ok(())
        })?;
        if let Some(why) = none {
            return Err(CliError::new(
                ExitStatus::Invalid,
                anyhow::anyhow!("{}: {why}", input.name()),
            ));
        }
        if invalid {
            refused = true;
            eprintln!(
                "aiproto: error: {}: invalid message(s), nothing sent (use --force to send anyway)",
                input.name()
            );
        }
    }
    Ok(if refused {
        Checked::Refused
    } else {
        Checked::Sendable(count)
    })
}

/// `send --via -`: the messages on stdout through one buffer, Crosstalk
/// envelopes with a blank line between them, JSON messages one per line.
fn write_stdout(inputs: &[Input]) -> Result<(), CliError> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut first = true;
    for_each_piece(inputs, &mut |piece| {
        for found in &piece.messages {
            let Some(text) = found.written(&piece.source.text) else {
                continue;
            };
            if !first && found.protocol == Protocol::Crosstalk {
                out.write_all(b"\n")?;
            }
            out.write_all(text.as_bytes())?;
            first = false;
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(())
}

/// A peer's reply, on stdout, ending with a line end.
pub fn print_reply(reply: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(reply.as_bytes())?;
    if !reply.is_empty() && !reply.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// `send --via file:`: appends the messages that the archive does not
/// hold yet (see [`sending::append`]).
fn archive(path: &Path, inputs: &[Input], g: &GlobalArgs) -> CmdResult {
    let appended = match sending::append(path, inputs) {
        Ok(appended) => appended,
        Err(e @ sending::ArchiveError::Conflict { .. }) => {
            eprintln!("aiproto: error: {e}");
            return Ok(ExitStatus::Invalid);
        }
        Err(sending::ArchiveError::Input(e)) => return Err(e.into()),
        Err(e) => return Err(CliError::new(ExitStatus::Transport, e)),
    };
    if !g.quiet {
        for (id, line) in &appended.repeats {
            eprintln!(
                "aiproto: message {id} is already in the archive {} (line {line}), not appended again",
                path.display()
            );
        }
        eprintln!(
            "aiproto: appended {} message(s) to {}",
            appended.written,
            path.display()
        );
    }
    Ok(ExitStatus::Ok)
}
