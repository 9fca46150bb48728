//! Moving messages to a destination named by a URI. This version knows
//! `file:PATH` (append to a .crosstalk file) and `-` (stdout).

pub mod file;

use std::io::Write;
use std::path::PathBuf;

/// A destination for `send`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    File(PathBuf),
}

/// Why a destination could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("unknown destination `{0}`: this version sends to file:PATH or - (stdout)")]
    Unsupported(String),
    #[error("cannot write to {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl std::str::FromStr for Destination {
    type Err = TransportError;

    fn from_str(uri: &str) -> Result<Self, Self::Err> {
        if uri == "-" || uri == "stdout:" {
            return Ok(Destination::Stdout);
        }
        match uri
            .strip_prefix("file://")
            .or_else(|| uri.strip_prefix("file:"))
        {
            Some(path) if !path.is_empty() => Ok(Destination::File(PathBuf::from(path))),
            _ => Err(TransportError::Unsupported(uri.to_string())),
        }
    }
}

impl Destination {
    /// Delivers one rendered message; `blank_line` separates text envelopes
    /// in a file by a blank line.
    pub fn send(&self, text: &str, blank_line: bool) -> Result<(), TransportError> {
        match self {
            Destination::Stdout => {
                std::io::stdout()
                    .lock()
                    .write_all(text.as_bytes())
                    .map_err(|source| TransportError::Io {
                        path: "<stdout>".into(),
                        source,
                    })
            }
            Destination::File(path) => {
                file::append(path, text, blank_line).map_err(|source| TransportError::Io {
                    path: path.display().to_string(),
                    source,
                })
            }
        }
    }
}
