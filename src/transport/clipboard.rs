//! The system clipboard (X11, and Wayland compositors with the data-control
//! protocol), through arboard. On both, copied text lives only as long as
//! its owner: `copy` leaves a small holder process (this executable, run as
//! the hidden `clipboard-hold` command) that owns the text until another
//! program takes the clipboard, as xclip and wl-copy do.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use arboard::{Clipboard, SetExtLinux};

use super::clipboard_targets::{NoText, no_text_kind};
use super::{Ended, Listen, OnArrival, Outgoing, Transport, TransportError};

/// The hidden subcommand the holder process runs.
pub const HOLD_COMMAND: &str = "clipboard-hold";
/// What the holder prints once it owns the clipboard.
const READY: &str = "ok";

/// Why the clipboard could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ClipboardError {
    #[error("no clipboard: {0} (no display? DISPLAY or WAYLAND_DISPLAY names the session's)")]
    Unavailable(String),
    #[error("the clipboard is empty")]
    Empty,
    #[error("the clipboard holds an image ({0}), not text")]
    Image(String),
    #[error("the clipboard holds no text (it offers {0})")]
    NotText(String),
    #[error(
        "the program that owns the clipboard did not answer when asked for its text or what it holds (is it hung?); nothing was read"
    )]
    Unanswered,
    #[error("clipboard: {0}")]
    Failed(String),
}

impl ClipboardError {
    /// The clipboard works but holds no text (it is empty, or holds an image).
    pub fn is_no_text(&self) -> bool {
        matches!(
            self,
            ClipboardError::Empty | ClipboardError::Image(_) | ClipboardError::NotText(_)
        )
    }
}

fn open() -> Result<Clipboard, ClipboardError> {
    Clipboard::new().map_err(|e| ClipboardError::Unavailable(e.to_string()))
}

/// `clipboard`.
pub struct ClipboardTransport;

impl Transport for ClipboardTransport {
    /// All the messages in one paste (copying each would keep only the last).
    fn send(
        &mut self,
        messages: &[Outgoing],
        _on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError> {
        copy(&super::joined(messages)).map_err(Into::into)
    }

    /// The clipboard's text; with `keep_reading`, again each time it changes.
    fn receive(
        &mut self,
        listen: &Listen,
        on_arrival: &mut OnArrival<'_>,
    ) -> Result<Ended, TransportError> {
        // Watching, a clipboard without text, or whose owner is too busy to
        // answer, is "nothing yet"; read once, it is an error that says what
        // the clipboard holds instead (an owner that did not answer: exit 3).
        let read = || match paste() {
            Ok(text) => Ok(Some(text)),
            Err(e)
                if listen.keep_reading
                    && (e.is_no_text() || matches!(e, ClipboardError::Unanswered)) =>
            {
                Ok(None)
            }
            Err(e) => Err(e.into()),
        };
        super::poll_snapshots("<clipboard>", listen, read, on_arrival)
    }
}

/// The text on the clipboard. When there is none, the error says what is
/// there instead: nothing, an image, or other data.
pub fn paste() -> Result<String, ClipboardError> {
    // arboard says "not available" for an empty clipboard, and an unknown
    // error ("incorrect type") for an image: the owner's targets say which.
    open()?.get_text().map_err(|e| match (no_text_kind(), e) {
        (NoText::Image(kind), _) => ClipboardError::Image(kind),
        (NoText::Other(kinds), _) => ClipboardError::NotText(kinds.join(", ")),
        (NoText::Unanswered, _) => ClipboardError::Unanswered,
        (_, arboard::Error::ContentNotAvailable) | (NoText::Empty, _) => ClipboardError::Empty,
        (NoText::Unknown, other) => ClipboardError::Failed(other.to_string()),
    })
}

/// Puts text on the clipboard and returns once it is there; the text stays
/// pasteable after this process exits, until something else is copied.
pub fn copy(text: &str) -> Result<(), ClipboardError> {
    // No display: the same clear error, before a holder is started.
    drop(open()?);
    let exe = std::env::current_exe()
        .map_err(|e| ClipboardError::Failed(format!("cannot find this executable: {e}")))?;
    let mut holder = Command::new(exe)
        .arg(HOLD_COMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: a Ctrl-C meant for the caller leaves it be.
        .process_group(0)
        .spawn()
        .map_err(|e| ClipboardError::Failed(format!("cannot start the clipboard holder: {e}")))?;
    let failed = |e: std::io::Error| ClipboardError::Failed(e.to_string());
    {
        let mut stdin = holder
            .stdin
            .take()
            .ok_or(ClipboardError::Failed("no pipe".into()))?;
        stdin.write_all(text.as_bytes()).map_err(failed)?;
    }
    let mut line = String::new();
    if let Some(stdout) = holder.stdout.take() {
        BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(failed)?;
    }
    if line.trim_end() == READY {
        return Ok(());
    }
    // The holder gave up: its message says why.
    let mut why = String::new();
    if let Some(mut stderr) = holder.stderr.take() {
        stderr.read_to_string(&mut why).map_err(failed)?;
    }
    let _ = holder.wait();
    let why = why
        .trim()
        .trim_start_matches("aiproto: error: ")
        .to_string();
    Err(if why.starts_with("no clipboard") {
        ClipboardError::Unavailable(why)
    } else {
        ClipboardError::Failed(why)
    })
}

/// The holder: reads the text on stdin, takes the clipboard, says so on
/// stdout, and keeps serving the text until another program takes the clipboard.
pub fn hold() -> Result<(), ClipboardError> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| ClipboardError::Failed(format!("reading the text: {e}")))?;
    let mut clipboard = open()?;
    clipboard
        .set_text(text.clone())
        .map_err(|e| ClipboardError::Failed(e.to_string()))?;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{READY}").and_then(|()| stdout.flush());
    drop(stdout);
    // A display that goes away (the session ends, Xvfb stops) ends the holder too.
    std::thread::spawn(|| {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
            if !display_alive() {
                std::process::exit(0);
            }
        }
    });
    // Returns when another program owns the clipboard.
    clipboard
        .set()
        .wait()
        .text(text)
        .map_err(|e| ClipboardError::Failed(e.to_string()))
}

/// Whether the session's display server still accepts connections (a local
/// X display's or the Wayland compositor's socket); unknown kinds count as alive.
fn display_alive() -> bool {
    use std::os::unix::net::UnixStream;
    if let Ok(wayland) = std::env::var("WAYLAND_DISPLAY") {
        let path = if wayland.starts_with('/') {
            std::path::PathBuf::from(wayland)
        } else {
            let runtime = std::env::var("XDG_RUNTIME_DIR").unwrap_or_default();
            std::path::Path::new(&runtime).join(wayland)
        };
        return UnixStream::connect(path).is_ok();
    }
    let display = std::env::var("DISPLAY").unwrap_or_default();
    let Some(number) = display
        .strip_prefix(':')
        .and_then(|d| d.split('.').next())
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    else {
        return true;
    };
    UnixStream::connect(format!("/tmp/.X11-unix/X{number}")).is_ok()
}
