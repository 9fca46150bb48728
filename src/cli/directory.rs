//! `aiproto directory`: a capability directory on an MQTT broker (hsp-0.1
//! §5.1): keeps the advertisements it sees, answers discovery queries.

use std::io::Write;

use serde::Serialize;

use super::args::{DirectoryArgs, GlobalArgs};
use super::endpoints::{endpoint, failure};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::operations::receive::Inbox;
use crate::operations::serving::{ADVERTISEMENTS, Directory, QUERIES, Seen};
use crate::output::{self, Format};
use crate::sign::message::verify_found;
use crate::transport::{self, Endpoint, Publication};

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
    let broker = endpoint(&args.via)?;
    if !matches!(broker, Endpoint::Mqtt(_)) {
        return Err(CliError::usage(
            "the directory lives on an MQTT broker: --via mqtt://HOST[:PORT] (or mqtts://)",
        ));
    }
    let mut listen = args.listen.listen(&broker, false, g.quiet)?;
    listen.filters = vec![
        ADVERTISEMENTS.to_string(),
        QUERIES.to_string(),
        format!("hsp/agents/{}", args.id),
    ];
    if !g.quiet {
        eprintln!("aiproto: directory {} starting", args.id);
    }
    let mut directory = Directory::new(args.id.clone());
    directory.ttl = chrono::Duration::try_seconds(args.ttl as i64)
        .ok_or_else(|| CliError::usage("--ttl is too long"))?;
    let trust = super::common::required_signatures(args.require_signed)?;
    let mut out = std::io::stdout().lock();
    let mut transport = transport::open(broker, args.listen.settings());
    let ended = Inbox::new(args.listen.count)
        .receive(&mut *transport, &listen, |r| {
            let Ok(message) = serde_json::from_str::<serde_json::Value>(r.text) else {
                return Ok(Vec::new());
            };
            let query = message
                .get("message_id")
                .and_then(|v| v.as_str())
                .unwrap_or("");
            let is_ad = message
                .get("message_type")
                .and_then(|t| t.as_str())
                .is_some_and(|t| t.starts_with("HSP::CapabilityAdvertisement_v"));
            if let (true, Some(trust)) = (is_ad, &trust) {
                let why = match r.found.map(|f| verify_found(f, trust)) {
                    None => Some("it cannot be read".to_string()),
                    Some(Err(e)) => Some(format!("error[{}]: {e}", e.code())),
                    Some(Ok(_)) => None,
                };
                if let Some(why) = why {
                    eprintln!("aiproto: advertisement {query} not kept (--require-signed): {why}");
                    return Ok(Vec::new());
                }
            }
            match directory.see(&message) {
                Seen::Stored(id) => {
                    let known = directory.len();
                    let stored = Event::Stored {
                        capability_id: &id,
                        known,
                    };
                    write_event(&mut out, g.format, &stored)?;
                    Ok(Vec::new())
                }
                Seen::Answered(reply) => {
                    let answered = Event::Answered {
                        query,
                        to: &reply.recipient_ai_id,
                        capabilities: reply.payload["capabilities"].as_array().map_or(0, Vec::len),
                    };
                    write_event(&mut out, g.format, &answered)?;
                    let topic = format!("hsp/agents/{}", reply.recipient_ai_id);
                    let bytes = serde_json::to_vec(&*reply)?;
                    Ok(vec![
                        Publication::json(topic, bytes)
                            .correlated((!query.is_empty()).then_some(query)),
                    ])
                }
                Seen::Refused(why) => {
                    if !g.quiet {
                        eprintln!("aiproto: advertisement not kept: {why}");
                    }
                    Ok(Vec::new())
                }
                Seen::Ignored => Ok(Vec::new()),
            }
        })
        .map_err(failure)?;
    Ok(args.listen.ended(ended).unwrap_or(ExitStatus::Ok))
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
