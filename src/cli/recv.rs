//! `aiproto recv` (subscribe and print) and `aiproto broker` (an embedded MQTT broker).

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;

use super::args::{BrokerArgs, GlobalArgs, RecvArgs, RequestArgs};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::output::{self, Format};
use crate::transport::mqtt::{self, Ended, MqttUri};

/// `--format json`: one line per received message.
#[derive(Serialize)]
struct Received<'a> {
    topic: &'a str,
    message: &'a str,
}

pub fn run(args: &RecvArgs, g: &GlobalArgs) -> CmdResult {
    if let Some(source) = super::recv_text::TextSource::parse(&args.via) {
        return super::recv_text::run(&source, args, g);
    }
    let mut uri = MqttUri::parse(&args.via).map_err(|why| {
        CliError::usage(format!(
            "{why} (recv reads from mqtt://host[:port]/FILTER, clipboard or file:PATH)"
        ))
    })?;
    uri.session = args.listen.session.clone();
    let mut filters: Vec<String> = uri.topic.iter().cloned().collect();
    filters.extend(args.filters.iter().cloned());
    if filters.is_empty() {
        return Err(CliError::usage(
            "no topic filter: give it in the URI (mqtt://host/hsp/#) or with --filter",
        ));
    }
    let timeout = args.listen.timeout.map(Duration::from_secs_f64);
    let quiet = g.quiet;
    let mut out = std::io::stdout().lock();
    let ended = mqtt::subscribe(
        &uri,
        &filters,
        args.listen.qos,
        args.listen.count,
        timeout,
        || {
            if !quiet {
                eprintln!("aiproto: subscribed to {}", filters.join(", "));
            }
        },
        |topic, payload| {
            let text = String::from_utf8_lossy(payload);
            match g.format {
                Format::Json => output::write_json_line(
                    &mut out,
                    &Received {
                        topic,
                        message: &text,
                    },
                )?,
                Format::Human => {
                    out.write_all(text.as_bytes())?;
                    if !text.ends_with('\n') {
                        out.write_all(b"\n")?;
                    }
                }
            }
            out.flush()?;
            Ok(if args.no_ack { None } else { ack_for(payload) })
        },
    )
    .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    match (ended, args.listen.count) {
        (Ended::Timeout, Some(_)) => Ok(args.listen.timed_out()),
        _ => Ok(ExitStatus::Ok),
    }
}

pub fn broker(args: &BrokerArgs, g: &GlobalArgs) -> CmdResult {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    }
    let listen = args.listen;
    // rumqttd's `start` blocks for ever: it gets its own thread, and the process ends with main.
    let broker = std::thread::spawn(move || mqtt::run_broker(listen));
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect_timeout(&listen, Duration::from_millis(100)).is_err() {
        if broker.is_finished() || started.elapsed() > Duration::from_secs(10) {
            let why = match broker.join() {
                Ok(Err(e)) => e,
                _ => "it did not start listening".into(),
            };
            return Err(CliError::new(
                ExitStatus::Transport,
                anyhow::anyhow!("cannot run the broker on {listen}: {why}"),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if !g.quiet {
        eprintln!("aiproto: MQTT broker listening on mqtt://{listen}");
    }
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(100));
    }
    if !g.quiet {
        eprintln!("aiproto: broker stopped");
    }
    Ok(ExitStatus::Ok)
}

/// `aiproto request`: a TaskRequest out, its TaskResult back.
pub fn request(args: &RequestArgs, g: &GlobalArgs) -> CmdResult {
    use crate::protocols::Value;
    let uri = MqttUri::parse(&args.via).map_err(CliError::usage)?;
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
    let json = &message.json;
    let is_task = json
        .get("message_type")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.starts_with("HSP::TaskRequest_v"));
    let callback = json
        .pointer("/payload/callback_address")
        .and_then(|c| c.as_str());
    let (true, Some(callback)) = (is_task, callback) else {
        return Err(CliError::usage(
            "request needs an HSP TaskRequest with a payload.callback_address",
        )
        .with_hint("compose one with `aiproto compose hsp task-request --callback TOPIC …`"));
    };
    let id = message.message_id().unwrap_or_default().to_string();
    let topic = super::send::topic_for(&uri, found)?;
    let text = found.render().unwrap_or_default();
    let is_reply = |payload: &[u8]| {
        serde_json::from_slice::<serde_json::Value>(payload).is_ok_and(|v| {
            v.get("correlation_id").and_then(|c| c.as_str()) == Some(id.as_str())
                && v.get("message_type")
                    .and_then(|t| t.as_str())
                    .is_some_and(|t| t.starts_with("HSP::TaskResult_v"))
        })
    };
    let timeout = Duration::from_secs_f64(args.timeout);
    let reply = mqtt::request(
        &uri,
        &topic,
        text.into_bytes(),
        callback,
        args.qos,
        timeout,
        is_reply,
    )
    .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    let Some((_, payload)) = reply else {
        eprintln!("aiproto: no TaskResult for {id} within {} s", args.timeout);
        return Ok(ExitStatus::Timeout);
    };
    let mut out = std::io::stdout().lock();
    out.write_all(&payload)?;
    out.write_all(b"\n")?;
    if !g.quiet {
        eprintln!("aiproto: TaskResult for {id} received on {callback}");
    }
    Ok(ExitStatus::Ok)
}

/// hsp-0.1 §4.3: the ACK a received HSP message asks for, and the topic of
/// its sender (`hsp/agents/<did>`), for `recv` to publish.
fn ack_for(payload: &[u8]) -> Option<(String, Vec<u8>)> {
    use crate::protocols::hsp::compose::{self, Kind};
    let message: serde_json::Value = serde_json::from_slice(payload).ok()?;
    if !compose::requires_ack(&message) {
        return None;
    }
    let ack = compose::acknowledge(
        Some(&message),
        Kind::Ack,
        serde_json::Map::new(),
        "did:aiproto:receiver",
    )
    .ok()?;
    let topic = format!("hsp/agents/{}", ack.recipient_ai_id);
    Some((topic, serde_json::to_vec(&ack).ok()?))
}
