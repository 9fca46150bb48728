//! `aiproto send`: deliver each message of a file to a destination.

use std::io::Write;

use super::args::{GlobalArgs, SendArgs};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::output::{self, Painter, Stream};
use crate::protocols::{Found, Protocol};
use crate::reader::Document;
use crate::transport::{Destination, TransportError};

pub fn run(args: &SendArgs, g: &GlobalArgs) -> CmdResult {
    let destination: Destination = args.via.parse().map_err(CliError::usage)?;
    let doc = super::common::read_one(args.path.as_deref())?;
    if !args.force && refuse_invalid(&doc, g) {
        eprintln!(
            "aiproto: error: {}: invalid message(s), nothing sent (use --force to send anyway)",
            doc.source.name
        );
        return Ok(ExitStatus::Invalid);
    }
    if let Destination::Mqtt(uri) = &destination {
        return send_mqtt(uri, &doc, args, g);
    }
    if let Destination::Email(address) = &destination {
        return send_email(address, &doc, args, g);
    }
    if destination == Destination::Clipboard {
        // One paste for all the messages: copying each would keep only the last.
        let texts: Vec<String> = doc.messages.iter().filter_map(Found::render).collect();
        let any_envelope = doc
            .messages
            .iter()
            .any(|f| f.protocol == Protocol::Crosstalk);
        destination
            .send(&crate::transport::join_messages(&texts), any_envelope)
            .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
        if !g.quiet {
            eprintln!(
                "aiproto: copied {} message(s) to the clipboard",
                texts.len()
            );
        }
        return Ok(ExitStatus::Ok);
    }
    for found in &doc.messages {
        // Sent as written: same protocol and version, ids and signature kept,
        // in canonical form (LF, no quote prefix or fence).
        let Some(text) = found.render() else { continue };
        let text_envelope = found.protocol == crate::protocols::Protocol::Crosstalk;
        match destination.send(&text, text_envelope) {
            Ok(Some(reply)) => print_reply(&reply)?,
            Ok(None) => {}
            Err(TransportError::Status { url, status, reply }) => {
                // The peer's ERROR envelope says why; show it, then fail.
                print_reply(&reply)?;
                return Err(CliError::new(
                    ExitStatus::Transport,
                    anyhow::anyhow!("{url} answered HTTP {status}"),
                ));
            }
            Err(e) => return Err(CliError::new(ExitStatus::Transport, e)),
        }
    }
    if !g.quiet {
        eprintln!(
            "aiproto: sent {} message(s) to {}",
            doc.messages.len(),
            args.via
        );
    }
    Ok(ExitStatus::Ok)
}

/// Prints the errors of invalid messages; true when there was any.
fn refuse_invalid(doc: &Document, g: &GlobalArgs) -> bool {
    let p = Painter::new(g.color, Stream::Stderr);
    let mut any = false;
    let lines = output::SourceLines::new(&doc.source.text);
    for found in doc.messages.iter().filter(|f| !f.is_valid(false)) {
        any = true;
        for d in found.diagnostics.iter().filter(|d| d.is_error()) {
            eprint!(
                "{}",
                output::format_diagnostic(&p, &doc.source.name, lines.get(d.line), d, false)
            );
        }
    }
    any
}

/// A peer's reply, on stdout, ending with a line end.
fn print_reply(reply: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(reply.as_bytes())?;
    if !reply.is_empty() && !reply.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// All messages over one MQTT connection. The topic is the URI's, or for an
/// HSP message the one its recipient names (hsp-0.1 §4.4): an `hsp/…`
/// topic as is, a DID as `hsp/agents/<did>`.
fn send_mqtt(
    uri: &crate::transport::mqtt::MqttUri,
    doc: &Document,
    args: &SendArgs,
    g: &GlobalArgs,
) -> CmdResult {
    let mut items = Vec::with_capacity(doc.messages.len());
    for found in &doc.messages {
        let Some(text) = found.render() else { continue };
        let topic = topic_for(uri, found)?;
        items.push((topic, text.into_bytes()));
    }
    let n = items.len();
    crate::transport::mqtt::publish(
        uri,
        items,
        args.qos,
        args.retain,
        std::time::Duration::from_secs(60),
    )
    .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    if !g.quiet {
        eprintln!(
            "aiproto: published {n} message(s) to {} at QoS {}",
            args.via, args.qos
        );
    }
    Ok(ExitStatus::Ok)
}

/// The topic a message goes to: the URI's, or for an HSP message the one its
/// recipient names (hsp-0.1 §4.4): an `hsp/…` topic as is, a DID as
/// `hsp/agents/<did>`.
pub fn topic_for(
    uri: &crate::transport::mqtt::MqttUri,
    found: &crate::protocols::Found,
) -> Result<String, CliError> {
    let recipient = match &found.value {
        crate::protocols::Value::Hsp(Some(m)) => m
            .json
            .get("recipient_ai_id")
            .and_then(|r| r.as_str())
            .map(str::to_string),
        _ => None,
    };
    match (&uri.topic, recipient) {
        (Some(t), _) => Ok(t.clone()),
        (None, Some(r)) if r.starts_with("hsp/") => Ok(r),
        (None, Some(r)) => Ok(format!("hsp/agents/{r}")),
        (None, None) => Err(CliError::usage(
            "no topic: give it in the URI, mqtt://host/topic",
        )),
    }
}

/// Each message as a mail to `address`: written to `--out` (one message) or
/// sent over `--smtp`.
fn send_email(address: &str, doc: &Document, args: &SendArgs, g: &GlobalArgs) -> CmdResult {
    use crate::protocols::Value;
    use crate::transport::email;
    if args.out.is_none() && args.smtp.is_none() {
        return Err(CliError::usage(TransportError::EmailHow(
            address.to_string(),
        )));
    }
    if args.out.is_some() && doc.messages.len() != 1 {
        return Err(CliError::usage(format!(
            "--out writes one mail; {} holds {} messages (use --smtp, or split the input)",
            doc.source.name,
            doc.messages.len()
        )));
    }
    let transport = |e: email::EmailError| CliError::new(ExitStatus::Transport, e);
    for found in &doc.messages {
        let (mail, sender) = match &found.value {
            Value::Crosstalk(p) => (
                email::crosstalk_mail(&p.envelope),
                p.envelope.sender.strip_prefix("email:").map(str::to_string),
            ),
            Value::Hsp(Some(m)) => (email::json_mail("hsp", &m.json), None),
            Value::Csdl(Some(d)) => (email::json_mail("csdl", &d.json), None),
            Value::Msp(Some(d)) => (email::json_mail("msp", &d.json), None),
            _ => continue,
        };
        let from = args
            .mail_from
            .clone()
            .or(sender)
            .unwrap_or_else(|| "aiproto@localhost".into());
        let message = email::build(&mail, &from, address).map_err(CliError::usage)?;
        if let Some(path) = &args.out {
            std::fs::write(path, message.formatted()).map_err(|e| {
                CliError::new(
                    ExitStatus::Transport,
                    anyhow::anyhow!("cannot write {}: {e}", path.display()),
                )
            })?;
        } else if let Some(url) = &args.smtp {
            email::send(&message, url).map_err(transport)?;
        }
    }
    if !g.quiet {
        let how = args.out.as_ref().map_or_else(
            || "sent over SMTP".to_string(),
            |p| format!("written to {}", p.display()),
        );
        eprintln!("aiproto: {} mail(s) to {address} {how}", doc.messages.len());
    }
    Ok(ExitStatus::Ok)
}
