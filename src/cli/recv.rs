//! `aiproto recv` (print each message that arrives, once), `aiproto
//! request` (a TaskRequest out, its TaskResult back) and `aiproto broker`
//! (an embedded MQTT broker).

use std::io::Write;
use std::time::Duration;

use serde::Serialize;

use super::args::{GlobalArgs, RecvArgs, RequestArgs};
use super::common::print_findings;
use super::endpoints::{endpoint, failure, stop_on_signals};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::operations::ReadValue as Value;
use crate::operations::delegate::{self, Answered, Delegation, Heard, Outcome};
use crate::operations::delegate_a2a::{A2aDelegation, delegate_a2a};
use crate::operations::receive::{self, Inbox, Received};
use crate::operations::sending::{Receipt, receipt};
use crate::operations::serving::Handler;
use crate::output::{self, Format};
use crate::transport::secrets::redact;
use crate::transport::{self, Ended, Endpoint, Settings};

/// `--format json`: one line per message.
#[derive(Serialize)]
struct ReceivedRecord<'a> {
    /// Where it came from: a topic, a path, `<clipboard>`, `<stdin>`.
    source: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    topic: Option<&'a str>,
    /// `null` when no protocol reads it.
    protocol: Option<&'static str>,
    valid: bool,
    /// False for an envelope cut off before its `[[END]]` line (the
    /// message is then the text as it came).
    complete: bool,
    message: &'a str,
    /// What an MQTT 5 publisher said beside the message.
    #[serde(skip_serializing_if = "Option::is_none")]
    mqtt5: Option<Mqtt5<'a>>,
}

/// The MQTT 5 properties of a message that came with some.
#[derive(Serialize)]
struct Mqtt5<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    content_type: Option<&'a str>,
    /// Seconds the broker still kept it for.
    #[serde(skip_serializing_if = "Option::is_none")]
    expiry_seconds: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_topic: Option<&'a str>,
    /// The correlation data as text (UTF-8), else in hex under `correlation_data_hex`.
    #[serde(skip_serializing_if = "Option::is_none")]
    correlation_data: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    correlation_data_hex: Option<String>,
}

impl<'a> Mqtt5<'a> {
    fn of(p: &'a transport::Properties) -> Mqtt5<'a> {
        let data = p.correlation_data.as_deref();
        let text = data.and_then(|d| std::str::from_utf8(d).ok());
        Mqtt5 {
            content_type: p.content_type.as_deref(),
            expiry_seconds: p.expiry_seconds,
            response_topic: p.response_topic.as_deref(),
            correlation_data: text,
            correlation_data_hex: data
                .filter(|_| text.is_none())
                .map(|d| d.iter().map(|b| format!("{b:02x}")).collect()),
        }
    }
}

pub fn run(args: &RecvArgs, g: &GlobalArgs) -> CmdResult {
    let mut source = endpoint(&args.via)?;
    let stdin = source == Endpoint::Stdio;
    let keep_reading = args.watch || args.follow;
    let mut filters = args.filters.clone();
    if let Some(group) = &args.share {
        share(group, &mut source, &mut filters)?;
    }
    let mut listen = args.listen.listen(&source, keep_reading, g.quiet)?;
    listen.filters = filters;
    let handler = args.exec.as_ref().map(|command| Handler {
        command: command.clone(),
        timeout: Duration::from_secs(args.exec_timeout.max(1)),
    });
    listen.handled_within = handler.as_ref().map(|h| h.timeout);
    let mut transport = transport::open(source, args.listen.settings());
    let mut inbox = Inbox::new(args.listen.count);
    // A receiver that verifies keeps replays out across restarts by default.
    let state = match (&args.state, args.require_signed) {
        (Some(state), _) => Some(state.clone()),
        (None, true) => Some(default_state(args)?),
        (None, false) => None,
    };
    let trust = super::common::required_signatures(args.require_signed)?;
    let mut refused = 0usize;
    if let Some(state) = &state {
        inbox = inbox.remembering(state).map_err(|e| {
            CliError::usage(format!(
                "cannot use the state file {}: {e}",
                state.display()
            ))
        })?;
    }
    let mut invalid = false;
    let to_terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let mut out = std::io::stdout().lock();
    let mut printed = 0usize;
    // The HSP ACK a message asks for, once it is taken.
    let hsp_receipt = |origin: &str, found: Option<&crate::operations::Found>| {
        if args.no_ack {
            return Vec::new();
        }
        match found.map(|f| receipt(f, args.agent.as_deref())) {
            Some(Receipt::Publish(publication)) => vec![publication],
            Some(Receipt::Unaddressed(why)) => {
                if !g.quiet {
                    eprintln!("aiproto: {origin}: not acknowledged: {why}");
                }
                Vec::new()
            }
            Some(Receipt::NotAsked) | None => Vec::new(),
        }
    };
    let handle = |r: Received<'_>| {
        if let Some(trust) = &trust {
            // Judged by the clock when it arrives.
            let fresh = crate::sign::message::Freshness {
                max_age: Some(args.max_age),
                strict: false,
                now: chrono::Utc::now(),
            };
            let verdict = match r.found {
                Some(found) => crate::sign::message::verify_fresh(found, trust, &fresh)
                    .map(|_| ())
                    .map_err(|e| format!("[{}] {e}", e.code())),
                None => Err("not a message of a known protocol".to_string()),
            };
            if let Err(why) = verdict {
                let line = r.found.map_or(1, |f| f.line);
                eprintln!(
                    "aiproto: error: {}:{line}: not taken (--require-signed): {}",
                    output::escape_controls(r.origin),
                    output::escape_controls(&why)
                );
                refused += 1;
                return Ok(Vec::new());
            }
        }
        let valid = r.found.is_some_and(|f| f.is_valid(false));
        let complete = r.found.is_none_or(|f| f.is_complete());
        invalid |= !valid;
        if r.found.is_none() {
            // Passed on as it came, but never without a word: it is no message.
            let start: String = r.text.chars().take(40).collect();
            eprintln!(
                "aiproto: warning: {}: an arrival that is no message of any protocol (`{}{}`): passed on as it came, invalid",
                r.origin,
                output::escape_controls(start.trim_end()),
                if r.text.chars().count() > 40 {
                    "…"
                } else {
                    ""
                }
            );
        }
        if let Some(warning) = receive::other_content_warning(&r) {
            eprintln!("aiproto: warning: {warning}");
        }
        if let Some(found) = r.found.filter(|_| !g.quiet || !valid) {
            // The findings of an invalid message, and the repairs made
            // to read a valid one, as `validate` prints them.
            print_findings(g, r.origin, (r.arrival, r.first_line), found, |d| {
                !valid || d.is_repair()
            });
        }
        if let Some(handler) = &handler {
            if !valid {
                // Sent again, it would be as invalid: taken, not handled.
                eprintln!(
                    "aiproto: {}: an invalid message is not handed to --exec (taken: it would come back as invalid)",
                    output::escape_controls(r.origin)
                );
                return Ok(Vec::new());
            }
            let reply = handler.run(r.text).map_err(|why| {
                CliError::new(
                    ExitStatus::Transport,
                    anyhow::anyhow!(
                        "{}: {why}; the message is not acknowledged (a broker sends it again)",
                        output::escape_controls(r.origin)
                    ),
                )
            })?;
            printed += 1;
            let mut answers = hsp_receipt(r.origin, r.found);
            // Asked over MQTT 5 with a response topic: the reply goes there,
            // with the request's correlation data (MQTT 5's request and
            // response, as mosquitto_rr asks). Else a TaskResult answering
            // an HSP TaskRequest that came over MQTT goes to the request's
            // callback address, whatever the MQTT version. Else it is printed.
            let mqtt5 = r
                .properties
                .and_then(|p| Some((p.response_topic.clone()?, p.correlation_data.clone())));
            let callback = || {
                r.topic?;
                let topic = delegate::callback_of(r.found?)?;
                delegate::is_task_result(&reply).then(|| (topic.to_string(), None))
            };
            match mqtt5.or_else(callback) {
                Some((topic, correlation_data)) if !reply.is_empty() => {
                    answers.push(transport::Publication {
                        topic,
                        payload: reply
                            .strip_suffix('\n')
                            .unwrap_or(&reply)
                            .as_bytes()
                            .to_vec(),
                        properties: transport::Properties {
                            correlation_data,
                            ..transport::Properties::default()
                        },
                    });
                }
                _ => {
                    out.write_all(reply.as_bytes())?;
                    out.flush()?;
                }
            }
            return Ok(answers);
        }
        match g.format {
            Format::Json => output::write_json_line(
                &mut out,
                &ReceivedRecord {
                    source: r.origin,
                    topic: r.topic,
                    protocol: r.found.map(|f| f.protocol.name()),
                    valid,
                    complete,
                    message: r.text,
                    mqtt5: r.properties.map(Mqtt5::of),
                },
            )?,
            Format::Human if !complete => {
                let line = r.found.map_or(1, |f| f.line);
                eprintln!(
                    "aiproto: error: {}:{line}: the envelope was cut off before its [[END]] line; not printed",
                    r.origin
                );
                return Ok(Vec::new());
            }
            Format::Human => {
                if printed > 0 && r.text.starts_with("[[") {
                    out.write_all(b"\n")?;
                }
                // On a terminal, a message cannot drive it: its control
                // characters are shown escaped. Piped, it goes as it is.
                let text = if to_terminal {
                    output::escape_controls(r.text)
                } else {
                    std::borrow::Cow::Borrowed(r.text)
                };
                out.write_all(text.as_bytes())?;
                if !r.text.ends_with('\n') {
                    out.write_all(b"\n")?;
                }
            }
        }
        out.flush()?;
        printed += 1;
        Ok(hsp_receipt(r.origin, r.found))
    };
    // Stdin is read once, piece by piece: bounded memory whatever its size.
    let ended = if stdin {
        inbox.receive_input(&crate::input::Input::Stdin, &listen, handle)
    } else {
        inbox.receive(&mut *transport, &listen, handle)
    }
    .map_err(failure)?;
    if inbox.empty_arrivals() > 0 {
        eprintln!(
            "aiproto: warning: {} empty arrival(s): no message, not counted (an empty MQTT payload also clears a retained message)",
            inbox.empty_arrivals()
        );
    }
    if inbox.redeliveries() > 0 && !g.quiet {
        eprintln!(
            "aiproto: {} redelivered message(s) not printed again (the id and content of one taken before, in this run or in --state)",
            inbox.redeliveries()
        );
    }
    if refused > 0 {
        eprintln!(
            "aiproto: {refused} message(s) not taken: unsigned, not verified by a trusted key, or older than --max-age {}",
            format_duration(args.max_age)
        );
    }
    if let Some(early) = args.listen.ended(ended) {
        return Ok(early);
    }
    match ended {
        _ if refused > 0 => Ok(ExitStatus::Invalid),
        Ended::Exhausted if printed == 0 => {
            eprintln!("aiproto: error: {}: no message found", redact(&args.via));
            Ok(ExitStatus::Invalid)
        }
        _ if invalid => Ok(ExitStatus::Invalid),
        _ => Ok(ExitStatus::Ok),
    }
}

/// The replay state a verifying receiver keeps by default: one file per
/// source (the URI, its filters and share group), under `AIPROTO_HOME/state`.
fn default_state(args: &RecvArgs) -> Result<std::path::PathBuf, CliError> {
    use sha2::{Digest, Sha256};
    let home = crate::home::home().ok_or_else(|| {
        CliError::usage("no AIPROTO_HOME or home folder for the replay state: give --state FILE")
    })?;
    let source = format!(
        "{}\n{}\n{}",
        args.via,
        args.filters.join("\n"),
        args.share.as_deref().unwrap_or("")
    );
    let digest: String = Sha256::digest(source.as_bytes())[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let dir = home.join("state");
    std::fs::create_dir_all(&dir).map_err(|e| {
        CliError::usage(format!(
            "cannot make the replay state folder {}: {e}",
            dir.display()
        ))
    })?;
    Ok(dir.join(format!("recv-{digest}.ids")))
}

/// A duration as `--max-age` takes it.
fn format_duration(d: chrono::Duration) -> String {
    let s = d.num_seconds();
    match s {
        s if s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s % 3_600 == 0 => format!("{}h", s / 3_600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// `--share GROUP`: every filter subscribed as `$share/GROUP/FILTER`.
fn share(group: &str, source: &mut Endpoint, filters: &mut [String]) -> Result<(), CliError> {
    let Endpoint::Mqtt(uri) = source else {
        return Err(CliError::usage(
            "--share is for MQTT: --via mqtt://HOST/FILTER",
        ));
    };
    if group.is_empty() || group.contains(['/', '+', '#']) {
        return Err(CliError::usage(format!(
            "--share `{group}`: a group name is one topic level, without `/`, `+` or `#`"
        )));
    }
    let shared = |filter: &str| format!("$share/{group}/{filter}");
    if let Some(topic) = uri.topic.as_mut() {
        *topic = shared(topic);
    }
    for filter in filters.iter_mut() {
        *filter = shared(filter);
    }
    if uri.topic.is_none() && filters.is_empty() {
        return Err(CliError::usage(
            "--share needs a topic filter: --via mqtt://HOST/FILTER or --filter FILTER",
        ));
    }
    Ok(())
}

/// `aiproto request`: sends a TaskRequest and prints the TaskResult that
/// answers it: over MQTT, published once the subscription to its callback
/// topic stands, the answer the one whose correlation names it; to an A2A
/// agent, as SendMessage, its task back as the TaskResult.
pub fn request(args: &RequestArgs, g: &GlobalArgs) -> CmdResult {
    let destination = endpoint(&args.via)?;
    if !matches!(destination, Endpoint::Mqtt(_) | Endpoint::A2a(_)) {
        return Err(CliError::usage(
            "request goes over MQTT (--via mqtt://HOST[:PORT], or mqtts://) or to an A2A agent (--via a2a+http(s)://HOST)",
        ));
    }
    if !matches!(destination, Endpoint::A2a(_)) && args.token_file.is_some() {
        return Err(CliError::usage(
            "--token-file is for an A2A agent: --via a2a+http(s)://HOST",
        ));
    }
    let doc = super::common::read_one(args.path.as_deref())?;
    let [found] = doc.messages.as_slice() else {
        return Err(CliError::usage(
            "request sends one TaskRequest: the input holds several messages",
        ));
    };
    let Value::Hsp(Some(message)) = &found.value else {
        return Err(CliError::usage("request sends an HSP TaskRequest"));
    };
    if !found.is_valid(false) {
        return Err(CliError::new(
            ExitStatus::Invalid,
            anyhow::anyhow!(
                "{}: the TaskRequest is invalid (see `aiproto validate`)",
                doc.source.name
            ),
        ));
    }
    let id = message.message_id().unwrap_or_default().to_string();
    let uri = match destination {
        Endpoint::Mqtt(uri) => uri,
        Endpoint::A2a(base) => {
            let delegation = A2aDelegation {
                base: base.clone(),
                token: super::common::a2a_token(args.token_file.as_deref())?,
                // The only signature A2A has is the card's.
                card_check: args
                    .require_signed
                    .then(super::common::signed_card_check)
                    .transpose()?,
                timeout: Duration::from_secs_f64(args.timeout),
            };
            let answered =
                delegate_a2a(found, &doc.source.text, delegation).map_err(|e| match e {
                    delegate::DelegateError::Transport(e) => failure(e),
                    other => failure(transport::TransportError::Peer {
                        url: redact(&base),
                        why: other.to_string(),
                    }),
                })?;
            return print_answer(answered, &id, "(its A2A task, as HSP)", g);
        }
        _ => unreachable!("checked above"),
    };
    let Some(callback) = delegate::callback_of(found) else {
        return Err(CliError::usage(
            "request needs an HSP TaskRequest with a payload.callback_address",
        )
        .with_hint("compose one with `aiproto compose hsp task-request --callback TOPIC …`"));
    };
    let trust = super::common::required_signatures(args.require_signed)?;
    let delegation = Delegation {
        broker: uri,
        settings: Settings {
            qos: args.qos,
            mqtt_version: args.mqtt.mqtt_version,
            ca_file: args.ca_file.clone(),
            ..Settings::default()
        },
        timeout: Duration::from_secs_f64(args.timeout),
        stop: stop_on_signals()?,
        trust: trust.as_ref(),
    };
    let outcome = delegate::delegate(found, &doc.source.text, delegation, |heard| match heard {
        Heard::UnsignedPlain { origin } => eprintln!(
            "aiproto: ignored a plain MQTT 5 reply on {}: it carries no signature (--require-signed); still waiting",
            output::escape_controls(origin)
        ),
        Heard::Refused { origin, why } => eprintln!(
            "aiproto: ignored a TaskResult on {}: {why}; still waiting",
            output::escape_controls(origin)
        ),
        Heard::Interim { from, status, .. } if !g.quiet => {
            eprintln!("aiproto: `{from}` says the task is {status}; still waiting");
        }
        Heard::Interim { .. } => {}
    })
    .map_err(|e| match e {
        delegate::DelegateError::Transport(e) => failure(e),
        other => CliError::usage(other.to_string()),
    })?;
    let mut out = std::io::stdout().lock();
    let answered = match outcome {
        Outcome::Plain(text) => {
            out.write_all(text.trim_end().as_bytes())?;
            out.write_all(b"\n")?;
            if !g.quiet {
                eprintln!(
                    "aiproto: a plain MQTT 5 reply to {id} on {callback} (its correlation data names the request; no HSP TaskResult, so no status to check)"
                );
            }
            return Ok(ExitStatus::Ok);
        }
        Outcome::Unanswered { ended, refused } => {
            if ended == Ended::Interrupted {
                eprintln!("aiproto: stopped by a signal before a TaskResult for {id} arrived");
            } else {
                eprintln!("aiproto: no TaskResult for {id} within {} s", args.timeout);
            }
            if refused > 0 {
                eprintln!(
                    "aiproto: {refused} TaskResult(s) claiming to answer it were not accepted (above)"
                );
            }
            return Ok(ExitStatus::Timeout);
        }
        Outcome::Answered(answered) => answered,
    };
    print_answer(answered, &id, &format!("received on {callback}"), g)
}

/// Prints the TaskResult accepted (`came`: how it came); a status other
/// than success exits 1, with the error details.
fn print_answer(answered: Answered, id: &str, came: &str, g: &GlobalArgs) -> CmdResult {
    let Answered {
        text,
        from,
        status,
        error,
    } = answered;
    let mut out = std::io::stdout().lock();
    out.write_all(text.trim_end().as_bytes())?;
    out.write_all(b"\n")?;
    if status != "success" {
        eprintln!(
            "aiproto: error: `{from}` answered {id} with status {status}: {}",
            error.unwrap_or_else(|| "no error_details".into())
        );
        return Ok(ExitStatus::Invalid);
    }
    if !g.quiet {
        eprintln!("aiproto: TaskResult for {id} from `{from}` {came}");
    }
    Ok(ExitStatus::Ok)
}
