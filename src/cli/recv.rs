//! `aiproto recv` (subscribe and print) and `aiproto broker` (an embedded MQTT broker).

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;

use super::args::{BrokerArgs, GlobalArgs, RecvArgs};
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
    let uri = MqttUri::parse(&args.via).map_err(|why| {
        CliError::usage(format!("{why} (recv reads from mqtt://host[:port]/FILTER)"))
    })?;
    let mut filters: Vec<String> = uri.topic.iter().cloned().collect();
    filters.extend(args.filters.iter().cloned());
    if filters.is_empty() {
        return Err(CliError::usage(
            "no topic filter: give it in the URI (mqtt://host/hsp/#) or with --filter",
        ));
    }
    let timeout = args.timeout.map(Duration::from_secs_f64);
    let quiet = g.quiet;
    let mut out = std::io::stdout().lock();
    let ended = mqtt::subscribe(
        &uri,
        &filters,
        args.qos,
        args.count,
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
            out.flush()
        },
    )
    .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    match (ended, args.count) {
        (Ended::Timeout, Some(n)) => {
            eprintln!("aiproto: timed out before {n} message(s) arrived");
            Ok(ExitStatus::Timeout)
        }
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
