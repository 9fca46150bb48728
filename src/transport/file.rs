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
        messages: &[Outgoing],
        _on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError> {
        for message in messages {
            append(&self.path, &message.text, message.routing.spaced).map_err(|source| {
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

/// A file held under an exclusive lock while messages are appended to it
/// (through one buffer), flushed to disk and unlocked by [`finish`]. What
/// is decided while holding it (which messages the archive lacks) stays
/// true until then: concurrent writers keep an archive free of repeats.
///
/// [`finish`]: LockedAppend::finish
pub struct LockedAppend {
    out: std::io::BufWriter<std::fs::File>,
    empty: bool,
}

impl LockedAppend {
    /// Opens (creating it if need be) and locks the file.
    pub fn open(path: &Path) -> std::io::Result<LockedAppend> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        file.lock()?;
        let empty = file.metadata()?.len() == 0;
        Ok(LockedAppend {
            out: std::io::BufWriter::with_capacity(1 << 20, file),
            empty,
        })
    }

    /// Appends one message, as [`append`] does.
    pub fn append(&mut self, text: &str, blank_line: bool) -> std::io::Result<()> {
        if blank_line && !self.empty {
            self.out.write_all(b"\n")?;
        }
        self.out.write_all(text.as_bytes())?;
        if !text.ends_with('\n') {
            self.out.write_all(b"\n")?;
        }
        self.empty = false;
        Ok(())
    }

    /// Writes what is buffered, flushes it to disk and unlocks the file.
    pub fn finish(self) -> std::io::Result<()> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        let synced = file.sync_data();
        let unlocked = file.unlock();
        synced.and(unlocked)
    }
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
