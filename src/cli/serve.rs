//! `aiproto serve`: the HTTP receiving side, until SIGINT or SIGTERM.

use super::args::{GlobalArgs, ServeArgs};
use super::endpoints::failure;
use std::sync::Arc;

use crate::delivery::binding::Binding;
use crate::exit::{CmdResult, ExitStatus};
use crate::transport::http::HttpTransport;
use crate::transport::server::ServeOptions;
use crate::transport::{Answer, Listen, Transport};

pub fn run(args: &ServeArgs, g: &GlobalArgs) -> CmdResult {
    let stop = super::endpoints::stop_on_signals()?;
    let mut transport = HttpTransport {
        url: format!("http://{}", args.listen),
        serve: ServeOptions {
            exchange: Arc::new(Binding::new(args.inbox.clone(), args.exec.clone())),
            max_bytes: args.max_bytes,
            rate: args.rate,
            max_connections: args.max_connections.max(1),
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
