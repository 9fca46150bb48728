//! The `--exec` handler of the receiving server: a shell command given one
//! message on stdin, whose stdout is the reply; and [`run_bounded`], which
//! runs any command that way (the conformance kit runs implementations
//! with it). Its stdin is written on a thread of its own while its stdout
//! is read, so a command that answers before it has read everything (`cat`
//! with a large message) cannot deadlock; past its deadline it is killed,
//! with everything it started.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The default `--exec-timeout`, in seconds.
pub const TIMEOUT_SECS: u64 = 60;

/// The largest reply taken from a handler.
pub const MAX_REPLY: usize = 16 * 1024 * 1024;

/// A shell command that handles each message.
#[derive(Debug, Clone)]
pub struct Handler {
    pub command: String,
    pub timeout: Duration,
}

impl Handler {
    /// Runs the handler on `message`: its stdout when it exits 0 in time,
    /// else why not (its stderr goes to the server's).
    pub fn run(&self, message: &str) -> Result<String, String> {
        let cmd = &self.command;
        let mut command = Command::new("sh");
        command.args(["-c", cmd]);
        let finished =
            run_bounded(command, message.as_bytes(), self.timeout, false).map_err(|e| match e {
                Unfinished::Spawn(e) => format!("cannot run `{cmd}`: {e}"),
                Unfinished::Wait(e) => format!("cannot wait for `{cmd}`: {e}"),
                Unfinished::Read(e) => format!("cannot read the reply of `{cmd}`: {e}"),
                Unfinished::Late => format!(
                    "`{cmd}` did not finish within {} s (--exec-timeout): stopped",
                    self.timeout.as_secs_f64()
                ),
            })?;
        if !finished.status.success() {
            return Err(format!("`{cmd}` exited with {}", finished.status));
        }
        if finished.stdout.len() > MAX_REPLY {
            return Err(format!("`{cmd}` replied with more than {MAX_REPLY} bytes"));
        }
        String::from_utf8(finished.stdout).map_err(|_| "the handler's reply is not UTF-8".into())
    }
}

/// What a command run by [`run_bounded`] left.
#[derive(Debug)]
pub struct Finished {
    pub status: std::process::ExitStatus,
    /// Its stdout, up to [`MAX_REPLY`] + 1 bytes.
    pub stdout: Vec<u8>,
    /// The end of its stderr (the last 4 KiB), when it was captured.
    pub stderr: Vec<u8>,
}

/// Why [`run_bounded`] has no [`Finished`].
#[derive(Debug)]
pub enum Unfinished {
    Spawn(std::io::Error),
    Wait(std::io::Error),
    Read(std::io::Error),
    /// Past its deadline: stopped with everything it started.
    Late,
}

/// Runs `command` with `input` on its stdin, reading its stdout (and its
/// stderr when `capture_stderr`, else the caller's stderr is its own); past
/// `timeout` it is killed with its whole process group.
pub fn run_bounded(
    mut command: Command,
    input: &[u8],
    timeout: Duration,
    capture_stderr: bool,
) -> Result<Finished, Unfinished> {
    command.stdin(Stdio::piped()).stdout(Stdio::piped());
    if capture_stderr {
        command.stderr(Stdio::piped());
    }
    // Its own process group, so that a deadline stops what it started too.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().map_err(Unfinished::Spawn)?;
    let stdin = child.stdin.take();
    let input = input.to_vec();
    // A command that does not read its stdin closes it: a write error
    // then is no failure of ours.
    let writer = std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(&input);
        }
    });
    let stdout = child.stdout.take();
    // The reader says when its stdout ends through a channel: a command
    // that exits leaving a background process holding that stdout has not
    // finished, and the wait for the end keeps to the same deadline.
    let (read_done, stdout_read) = std::sync::mpsc::sync_channel(1);
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let read = match stdout {
            Some(stdout) => stdout
                .take(MAX_REPLY as u64 + 1)
                .read_to_end(&mut out)
                .map(|_| out),
            None => Ok(out),
        };
        let _ = read_done.send(read);
    });
    let stderr = child.stderr.take();
    let errors = std::thread::spawn(move || -> Vec<u8> {
        let mut kept = Vec::new();
        if let Some(mut stderr) = stderr {
            let mut buf = [0u8; 8192];
            while let Ok(n @ 1..) = stderr.read(&mut buf) {
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > 4096 {
                    kept.drain(..kept.len() - 4096);
                }
            }
        }
        kept
    });
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_micros(200);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => break None,
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(5));
            }
            Err(e) => {
                stop_group(&mut child);
                return Err(Unfinished::Wait(e));
            }
        }
    };
    // Its stdout, read to its end within the same deadline: a command
    // that exits leaving a background process on that stdout has not
    // finished.
    let read = status.and_then(|_| {
        let remaining = deadline.saturating_duration_since(Instant::now());
        stdout_read.recv_timeout(remaining).ok()
    });
    if read.is_none() {
        stop_group(&mut child);
    }
    let _ = reader.join();
    let _ = writer.join();
    let stderr = errors.join().unwrap_or_default();
    let (Some(status), Some(stdout)) = (status, read) else {
        return Err(Unfinished::Late);
    };
    let stdout = stdout.map_err(Unfinished::Read)?;
    Ok(Finished {
        status,
        stdout,
        stderr,
    })
}

/// Kills the handler and every process of its group, then reaps it.
fn stop_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Some(group) = rustix::process::Pid::from_raw(child.id() as i32) {
        // The group is the child's own (process_group(0)). Its id cannot
        // have been reused: either the child is not reaped yet, or it was
        // and members of its group remain, and Linux (like every POSIX
        // system) gives no new process the id of a living group.
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn handler(command: &str, secs: u64) -> Handler {
        Handler {
            command: command.into(),
            timeout: Duration::from_secs(secs),
        }
    }

    #[test]
    fn a_handler_that_echoes_a_large_message_does_not_deadlock() {
        let message = "x".repeat(3 * 1024 * 1024);
        assert_eq!(
            handler("cat", 30).run(&message).unwrap().len(),
            message.len()
        );
    }

    #[test]
    fn a_handler_past_its_deadline_is_stopped_with_what_it_started() {
        let started = Instant::now();
        let why = handler("sleep 30 & sleep 30; echo late", 1)
            .run("m")
            .unwrap_err();
        assert!(why.contains("did not finish within 1 s"), "{why}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_handler_that_exits_leaving_a_child_on_its_output_keeps_the_deadline() {
        let started = Instant::now();
        // The shell answers at once, but the background sleep holds the
        // reply's pipe open for 30 s.
        let why = handler("sleep 30 & echo early", 1).run("m").unwrap_err();
        assert!(why.contains("did not finish within 1 s"), "{why}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_failing_handler_is_an_error_and_one_that_does_not_read_is_not() {
        assert!(
            handler("exit 3", 5)
                .run("m")
                .unwrap_err()
                .contains("exited with")
        );
        let big = "y".repeat(1024 * 1024);
        assert_eq!(handler("echo ok", 5).run(&big).unwrap(), "ok\n");
    }
}
