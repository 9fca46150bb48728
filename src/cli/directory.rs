//! `aiproto directory`: a capability directory on an MQTT broker (hsp-0.1
//! §5.1): keeps the advertisements it sees, answers discovery queries.

use std::io::Write;
use std::time::Duration;

use serde::Serialize;

use super::args::{DirectoryArgs, GlobalArgs};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::output::{self, Format};
use crate::protocols::hsp::directory::{ADVERTISEMENTS, Directory, QUERIES, Seen};
use crate::transport::mqtt::{self, Ended, MqttUri};

/// `--format json`: one line per message the directory acted on.
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum Event<'a> {
    Stored {
        capability_id: &'a str,
        known: usize,
    },
    Answered {
        query: &'a str,
        to: &'a str,
        capabilities: usize,
    },
}

pub fn run(args: &DirectoryArgs, g: &GlobalArgs) -> CmdResult {
    let mut uri = MqttUri::parse(&args.via).map_err(CliError::usage)?;
    uri.session = args.listen.session.clone();
    let filters = vec![
        ADVERTISEMENTS.to_string(),
        QUERIES.to_string(),
        format!("hsp/agents/{}", args.id),
    ];
    let mut directory = Directory::new(args.id.clone());
    let mut out = std::io::stdout().lock();
    let quiet = g.quiet;
    let ended = mqtt::subscribe(
        &uri,
        &filters,
        args.listen.qos,
        args.listen.count,
        args.listen.timeout.map(Duration::from_secs_f64),
        || {
            if !quiet {
                eprintln!(
                    "aiproto: directory {} subscribed to {}",
                    args.id,
                    filters.join(", ")
                );
            }
        },
        |_topic, payload| {
            let Ok(message) = serde_json::from_slice::<serde_json::Value>(payload) else {
                return Ok(None);
            };
            let query = message
                .get("message_id")
                .and_then(|v| v.as_str())
                .unwrap_or("");
            let (event, reply) = match directory.see(&message) {
                Seen::Stored(id) => (Some((Some(id), None)), None),
                Seen::Answered(reply) => {
                    let topic = format!("hsp/agents/{}", reply.recipient_ai_id);
                    let body = serde_json::to_vec(&*reply).map_err(std::io::Error::other)?;
                    (Some((None, Some(reply))), Some((topic, body)))
                }
                Seen::Ignored => (None, None),
            };
            match event {
                Some((Some(id), _)) => write_event(
                    &mut out,
                    g.format,
                    &Event::Stored {
                        capability_id: &id,
                        known: directory.len(),
                    },
                )?,
                Some((None, Some(reply))) => write_event(
                    &mut out,
                    g.format,
                    &Event::Answered {
                        query,
                        to: &reply.recipient_ai_id,
                        capabilities: reply.payload["capabilities"].as_array().map_or(0, Vec::len),
                    },
                )?,
                _ => {}
            }
            Ok(reply)
        },
    )
    .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    match (ended, args.listen.count) {
        (Ended::Timeout, Some(_)) => Ok(args.listen.timed_out()),
        _ => Ok(ExitStatus::Ok),
    }
}

fn write_event(out: &mut impl Write, format: Format, event: &Event<'_>) -> std::io::Result<()> {
    match format {
        Format::Json => output::write_json_line(out, event)?,
        Format::Human => match event {
            Event::Stored {
                capability_id,
                known,
            } => {
                writeln!(out, "stored {capability_id} ({known} known)")?;
            }
            Event::Answered {
                query,
                to,
                capabilities,
            } => {
                writeln!(
                    out,
                    "answered {query} from {to}: {capabilities} capabilities"
                )?;
            }
        },
    }
    out.flush()
}
