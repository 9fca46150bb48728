//! `aiproto desk`: starts the relay desk (see [`crate::desk`]) and prints
//! its URL; Ctrl-C stops it.

use std::io::Write;
use std::time::Duration;

use super::args::{DeskArgs, GlobalArgs};
use crate::desk::{self, Options};
use crate::exit::{CliError, CmdResult, ExitStatus};

pub fn run(args: &DeskArgs, g: &GlobalArgs) -> CmdResult {
    let stop = super::endpoints::stop_on_signals()?;
    let archive = super::common::archive_path(&args.archive)?;
    let options = Options {
        listen: args.listen.clone(),
        archive: archive.clone(),
        max_bytes: args.max_bytes,
        read_timeout: Duration::from_secs(args.read_timeout.max(1)),
        max_connections: args.max_connections.max(1),
        max_per_client: args.max_per_client.max(1),
        log: g.verbose,
    };
    let quiet = g.quiet;
    let open = args.open;
    desk::serve(options, &stop, |address, url| {
        // The URL alone on stdout, for scripts; the rest on stderr.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{url}").and_then(|()| out.flush());
        if !address.ip().is_loopback() {
            eprintln!(
                "aiproto: warning: listening on {address}, not loopback: other machines can reach the desk \
                 (an API call still needs the token in the URL)"
            );
        }
        if !quiet {
            eprintln!(
                "aiproto: the desk is at the URL above (archive {}); Ctrl-C stops it",
                archive.display()
            );
        }
        if open && let Err(why) = open_browser(url) {
            eprintln!("aiproto: could not open a browser ({why}): open the URL above");
        }
    })
    .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    if !quiet {
        eprintln!("aiproto: stopped");
    }
    Ok(ExitStatus::Ok)
}

/// Hands the URL to the system's opener.
fn open_browser(url: &str) -> Result<(), String> {
    let (program, before): (&str, &[&str]) = if cfg!(target_os = "macos") {
        ("open", &[])
    } else if cfg!(windows) {
        ("cmd", &["/C", "start", ""])
    } else {
        ("xdg-open", &[])
    };
    std::process::Command::new(program)
        .args(before)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(drop)
        .map_err(|e| format!("{program}: {e}"))
}
