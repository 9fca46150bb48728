//! `aiproto serve`: the HTTP receiving side, until SIGINT or SIGTERM.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::args::{GlobalArgs, ServeArgs};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::transport::server::{self, ServeOptions};

pub fn run(args: &ServeArgs, g: &GlobalArgs) -> CmdResult {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    }
    let options = ServeOptions {
        inbox: args.inbox.clone(),
        exec: args.exec.clone(),
        max_bytes: args.max_bytes,
        rate: args.rate,
    };
    let quiet = g.quiet;
    server::serve(&args.listen, &options, stop, |addr| {
        if !quiet {
            eprintln!("aiproto: listening on http://{addr} (POST /crosstalk/receive, /hsp)");
        }
    })
    .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    if !quiet {
        eprintln!("aiproto: stopped");
    }
    Ok(ExitStatus::Ok)
}
