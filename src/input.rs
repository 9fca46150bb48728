//! Where messages come from: files, directories (walked), and stdin (`-` or nothing).

use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};

/// File extensions read when a directory is walked.
pub const MESSAGE_EXTENSIONS: [&str; 7] =
    ["crosstalk", "aict", "txt", "md", "json", "jsonl", "ndjson"];

/// The text of one input, with the name used in findings.
#[derive(Debug, Clone)]
pub struct Source {
    /// The path as given, or `<stdin>`.
    pub name: String,
    pub text: String,
}

/// Why an input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The message names the cause itself, so it is not also a `source`
    /// (which `{:#}` would print a second time).
    #[error("cannot read {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{path}:{line}:{column}: not UTF-8 text (a binary file?)")]
    NotUtf8 {
        path: String,
        line: usize,
        column: usize,
    },
    #[error(
        "no input: give files or directories, or pipe messages on stdin (`-` reads the terminal)"
    )]
    NoInput,
}

impl InputError {
    /// The input this error is about.
    pub fn path(&self) -> &str {
        match self {
            InputError::Io { path, .. } | InputError::NotUtf8 { path, .. } => path,
            InputError::NoInput => "<stdin>",
        }
    }
}

/// The operand that names the system clipboard instead of a file, in every
/// command that reads messages (`aiproto validate clipboard:`). A file of
/// that name is reached as `./clipboard:`.
pub const CLIPBOARD: &str = "clipboard:";

/// One input to read: a file, stdin, or text already in memory (what was
/// on the clipboard).
#[derive(Debug, Clone)]
pub enum Input {
    Stdin,
    File(PathBuf),
    Text(Source),
}

impl Input {
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File(p) => p.display().to_string(),
            Input::Text(source) => source.name.clone(),
        }
    }

    /// Reads the whole input as UTF-8 text.
    pub fn read(&self) -> Result<Source, InputError> {
        if let Input::Text(source) = self {
            return Ok(source.clone());
        }
        let reader = self.open()?;
        read_from(self.name(), reader, Vec::new())
    }

    /// Opens the input for reading, buffered.
    pub fn open(&self) -> Result<Box<dyn BufRead>, InputError> {
        const CAPACITY: usize = 1 << 20;
        match self {
            Input::Stdin => Ok(Box::new(BufReader::with_capacity(
                CAPACITY,
                std::io::stdin(),
            ))),
            Input::File(p) => std::fs::File::open(p)
                .map(|f| Box::new(BufReader::with_capacity(CAPACITY, f)) as Box<dyn BufRead>)
                .map_err(|error| InputError::Io {
                    path: self.name(),
                    error,
                }),
            Input::Text(source) => Ok(Box::new(std::io::Cursor::new(
                source.text.clone().into_bytes(),
            ))),
        }
    }

    /// The input's size in bytes, when it is a file.
    pub fn size(&self) -> Option<u64> {
        match self {
            Input::Stdin => None,
            Input::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Input::Text(source) => Some(source.text.len() as u64),
        }
    }
}

/// Reads the rest of an open input (after the bytes already taken from it,
/// `head`) as UTF-8 text.
pub fn read_from(
    name: String,
    mut reader: impl Read,
    mut head: Vec<u8>,
) -> Result<Source, InputError> {
    reader
        .read_to_end(&mut head)
        .map_err(|error| InputError::Io {
            path: name.clone(),
            error,
        })?;
    let text = decode_utf8(head, &name)?;
    Ok(Source { name, text })
}

fn decode_utf8(bytes: Vec<u8>, name: &str) -> Result<String, InputError> {
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        // Safe: `valid_up_to` marks the end of the valid prefix.
        let prefix = std::str::from_utf8(good).unwrap_or_default();
        let line = prefix.matches('\n').count() + 1;
        let column = prefix.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        InputError::NotUtf8 {
            path: name.to_string(),
            line,
            column,
        }
    })
}

/// Turns the paths given on the command line into inputs: `-` is stdin, and
/// so is nothing when stdin is not a terminal; a directory is walked (sorted, hidden entries skipped, only
/// [`MESSAGE_EXTENSIONS`]), a file is read whatever its name.
pub fn expand(paths: &[PathBuf]) -> Result<Vec<Input>, InputError> {
    if paths.is_empty() {
        // Nothing given at an interactive terminal is a mistake, not a wait.
        if std::io::stdin().is_terminal() {
            return Err(InputError::NoInput);
        }
        return Ok(vec![Input::Stdin]);
    }
    let mut inputs = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input::Stdin);
        } else if path.is_dir() {
            walk(path, &mut inputs)?;
        } else {
            inputs.push(Input::File(path.clone()));
        }
    }
    Ok(inputs)
}

fn walk(dir: &Path, inputs: &mut Vec<Input>) -> Result<(), InputError> {
    let io = |error| InputError::Io {
        path: dir.display().to_string(),
        error,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'))
        })
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, inputs)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| MESSAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            inputs.push(Input::File(path));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_where_invalid_utf8_starts() {
        let err = decode_utf8(b"ok\nab\xffcd".to_vec(), "x").unwrap_err();
        assert!(matches!(
            err,
            InputError::NotUtf8 {
                line: 2,
                column: 3,
                ..
            }
        ));
    }
}
