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
    // The page that opened the browser, removed when the desk stops.
    let mut opener = None;
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
        if open {
            match open_browser(url) {
                Ok(folder) => opener = Some(folder),
                Err(why) => {
                    eprintln!("aiproto: could not open a browser ({why}): open the URL above");
                }
            }
        }
    })
    .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    drop(opener);
    if !quiet {
        eprintln!("aiproto: stopped");
    }
    Ok(ExitStatus::Ok)
}

/// Hands the page to the system's opener without putting the token on its
/// command line, where any local user reads it in the process list: the
/// opener gets a `file://` page, in a folder only this user can enter
/// (0700) and readable only by them (0600), that sends the browser on to
/// the URL; the page is removed a minute later (the token itself works
/// once). The folder is returned, to be removed when the desk stops.
fn open_browser(url: &str) -> Result<tempfile::TempDir, String> {
    let (program, before): (&str, &[&str]) = if cfg!(target_os = "macos") {
        ("open", &[])
    } else if cfg!(windows) {
        ("cmd", &["/C", "start", ""])
    } else {
        ("xdg-open", &[])
    };
    let folder = tempfile::Builder::new()
        .prefix("aiproto-desk-")
        .tempdir()
        .map_err(|e| format!("cannot make the page that opens the desk: {e}"))?;
    #[cfg(unix)]
    std::fs::set_permissions(
        folder.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .map_err(|e| format!("cannot make {} private: {e}", folder.path().display()))?;
    let page = folder.path().join("open.html");
    write_private(&page, &redirect_page(url))
        .map_err(|e| format!("cannot write {}: {e}", page.display()))?;
    std::process::Command::new(program)
        .args(before)
        .arg(format!("file://{}", page.display()))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(drop)
        .map_err(|e| format!("{program}: {e}"))?;
    // The browser reads the page within moments; then it goes.
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(60));
        let _ = std::fs::remove_file(page);
    });
    Ok(folder)
}

/// A page that sends the browser on to `url` at once, leaving no history
/// entry of its own.
fn redirect_page(url: &str) -> String {
    let attribute = url.replace('&', "&amp;").replace('"', "&quot;");
    let script = serde_json::to_string(url).unwrap_or_default();
    format!(
        "<!doctype html>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"refresh\" content=\"0; url={attribute}\">\n\
         <title>aiproto desk</title>\n<script>location.replace({script})</script>\n\
         <p>Opening the desk…</p>\n"
    )
}

/// Writes `text` to a new file only its owner may read (0600 on Unix).
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(text.as_bytes())
}
