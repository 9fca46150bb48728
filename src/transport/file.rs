//! `.crosstalk` / `.aict` files as a mailbox: envelopes appended one after
//! another, read back once or followed as they grow.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Ended, Listen, OnArrival, Outgoing, Transport, TransportError};
use crate::input::{Input, InputError};

/// `file:PATH`.
pub struct FileTransport {
    pub path: PathBuf,
}

impl Transport for FileTransport {
    fn send(
        &mut self,
        messages: &[Outgoing<'_>],
        _on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError> {
        for message in messages {
            append(&self.path, &message.text, message.is_envelope()).map_err(|source| {
                TransportError::Io {
                    path: self.path.display().to_string(),
                    source,
                }
            })?;
        }
        Ok(())
    }

    /// The file as it is; with `keep_reading`, again each time it changes
    /// (waiting for it to appear first).
    fn receive(
        &mut self,
        listen: &Listen,
        on_arrival: &mut OnArrival<'_>,
    ) -> Result<Ended, TransportError> {
        let input = Input::File(self.path.clone());
        let read = || match input.read() {
            Ok(source) => Ok(Some(source.text)),
            Err(InputError::Io { error, .. })
                if listen.keep_reading && error.kind() == std::io::ErrorKind::NotFound =>
            {
                Ok(None)
            }
            Err(e) => Err(e.into()),
        };
        super::poll_snapshots(&input.name(), listen, read, on_arrival)
    }
}

/// Appends one message to a file, creating it if needed. The file is locked
/// exclusively for the whole append and the data is flushed to disk before
/// the lock is released, so two writers at once never interleave or lose a
/// message. With `blank_line`, messages are separated by one blank line (text
/// envelopes); without, they follow each other line by line (JSON Lines).
pub fn append(path: &Path, text: &str, blank_line: bool) -> std::io::Result<()> {
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.lock()?;
    let result = (|| {
        let mut chunk = String::with_capacity(text.len() + 2);
        if blank_line && file.metadata()?.len() > 0 {
            chunk.push('\n');
        }
        chunk.push_str(text);
        if !text.ends_with('\n') {
            chunk.push('\n');
        }
        file.write_all(chunk.as_bytes())?;
        file.sync_data()
    })();
    let unlocked = file.unlock();
    result.and(unlocked)
}

/// Appends messages to a file under one exclusive lock, after `choose` has
/// seen the file's current text and said which of them to write (`Ok`) or
/// that nothing may be written (`Err`). Deciding and appending under the
/// same lock is what lets concurrent writers keep an archive free of
/// repeats. Each message is `(text, blank_line)` as for [`append`].
pub fn append_chosen<E>(
    path: &Path,
    messages: &[(String, bool)],
    choose: impl FnOnce(&str) -> Result<Vec<bool>, E>,
) -> std::io::Result<Result<usize, E>> {
    let mut file = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)?;
    file.lock()?;
    let result = (|| {
        let mut existing = String::new();
        std::io::Read::read_to_string(&mut file, &mut existing)?;
        let chosen = match choose(&existing) {
            Ok(chosen) => chosen,
            Err(e) => return Ok(Err(e)),
        };
        let mut chunk = String::new();
        let mut empty = existing.is_empty();
        let mut written = 0;
        for ((text, blank_line), _) in messages.iter().zip(&chosen).filter(|(_, w)| **w) {
            if *blank_line && !empty {
                chunk.push('\n');
            }
            chunk.push_str(text);
            if !text.ends_with('\n') {
                chunk.push('\n');
            }
            empty = false;
            written += 1;
        }
        file.write_all(chunk.as_bytes())?;
        file.sync_data()?;
        Ok(Ok(written))
    })();
    let unlocked = file.unlock();
    result.and_then(|r| unlocked.map(|()| r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_appends_never_interleave() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("box.crosstalk");
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for i in 0..50 {
                        let block = format!(
                            "[[W{w}→X v1]]\n{}\n[[END]]\n",
                            format!("line {i}\n").repeat(200).trim_end()
                        );
                        append(&path, &block, true).unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let blocks: Vec<&str> = text.split("\n\n").collect();
        assert_eq!(blocks.len(), 200);
        assert!(
            blocks
                .iter()
                .all(|b| b.starts_with("[[W") && b.trim_end().ends_with("[[END]]"))
        );
    }
}
