//! `aiproto serve`: the HTTP receiving side, until SIGINT or SIGTERM.

use super::args::{GlobalArgs, ServeArgs};
use super::endpoints::failure;
use std::sync::Arc;

use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::operations::serving::{Binding, Handler, Quota};
use crate::transport::http::HttpTransport;
use crate::transport::server::ServeOptions;
use crate::transport::{Answer, Listen, Transport};

pub fn run(args: &ServeArgs, g: &GlobalArgs) -> CmdResult {
    let stop = super::endpoints::stop_on_signals()?;
    let inbox = match &args.inbox {
        Some(dir) => {
            let quota =
                Quota::of(dir, args.max_inbox_bytes, args.max_inbox_files).map_err(|e| {
                    CliError::usage(format!(
                        "--inbox {}: cannot count what it holds: {e}",
                        dir.display()
                    ))
                })?;
            Some((dir.clone(), quota))
        }
        None => None,
    };
    let exec = args.exec.as_ref().map(|command| Handler {
        command: command.clone(),
        timeout: std::time::Duration::from_secs(args.exec_timeout.max(1)),
    });
    let mut transport = HttpTransport {
        url: format!("http://{}", args.listen),
        serve: ServeOptions {
            exchange: Arc::new(Binding::new(inbox, exec)),
            max_bytes: args.max_bytes,
            rate: args.rate,
            max_connections: args.max_connections.max(1),
            max_per_client: args.max_per_client.max(1),
            read_timeout: std::time::Duration::from_secs(args.read_timeout.max(1)),
        },
    };
    let listen = Listen {
        quiet: g.quiet,
        stop,
        ..Listen::default()
    };
    // The server stores and answers each message itself; nothing more to do with it.
    transport
        .receive(&listen, &mut |_| Ok(Answer::default()))
        .map_err(failure)?;
    if !g.quiet {
        eprintln!("aiproto: stopped");
    }
    Ok(ExitStatus::Ok)
}
