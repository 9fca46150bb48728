//! Where messages come from: files, directories (walked), and stdin (`-` or nothing).

use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};

/// File extensions read when a directory is walked.
pub const MESSAGE_EXTENSIONS: [&str; 9] = [
    "crosstalk",
    "aict",
    "txt",
    "md",
    "eml",
    "json",
    "jsonl",
    "ndjson",
    "cbp",
];

/// Which files that hold no message a run passes over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Those that are something else (a README, a `package.json`); not a
    /// file whose extension is only ever a message's (`.crosstalk`,
    /// `.aict`, `.cbp`), nor an empty JSON file: those are NO-MESSAGE, as
    /// when they are named.
    Foreign,
    /// Any (`--skip-non-messages`): the person said so.
    Any,
}

/// Extensions that hold messages and nothing else: such a file without a
/// message is a finding, wherever it was found.
pub const ONLY_MESSAGE_EXTENSIONS: [&str; 3] = ["crosstalk", "aict", "cbp"];

/// The extensions of the text files Crosstalk envelopes are kept or pasted
/// in (a saved mail among them).
pub const TEXT_EXTENSIONS: [&str; 5] = ["crosstalk", "aict", "txt", "md", "eml"];

/// The extensions of JSON messages (HSP, CSDL, MSP), and of CBP frames
/// (binary CSDL messages, read as the JSON they decode to).
pub const JSON_EXTENSIONS: [&str; 4] = ["json", "jsonl", "ndjson", "cbp"];

/// How a directory is walked: by default hidden entries are skipped,
/// `.gitignore`, `.ignore` and `.git/info/exclude` honoured, and only
/// message extensions read; then the globs.
#[derive(Debug, Clone, Default)]
pub struct WalkOptions {
    /// Read what ignore files name (ripgrep's `--no-ignore`).
    pub no_ignore: bool,
    /// Read hidden files and folders (a `.git` folder stays out).
    pub hidden: bool,
    /// gitignore-style globs a file must match (`!glob` excludes), matched
    /// against its path below the walked directory.
    pub globs: Vec<String>,
    /// Globs of files and directories to leave out.
    pub excludes: Vec<String>,
    /// Only these extensions (a `--protocol` narrows the walk), else
    /// [`MESSAGE_EXTENSIONS`].
    pub extensions: Option<&'static [&'static str]>,
}

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
    #[error("{path}:{line}:{column}: {}", what.describe())]
    NotUtf8 {
        path: String,
        line: usize,
        column: usize,
        what: NotText,
    },
    #[error(
        "no input: give files or directories, or pipe messages on stdin (`-` reads the terminal)"
    )]
    NoInput,
}

/// What text that is not UTF-8 seems to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotText {
    /// It holds NUL bytes: not text at all.
    Binary,
    /// Text in a legacy 8-bit encoding: this byte is not UTF-8.
    Legacy(u8),
}

impl NotText {
    /// What `bytes`, which are not UTF-8 from `at` on, seem to be.
    pub fn of(bytes: &[u8], at: usize) -> NotText {
        if bytes.contains(&0) {
            NotText::Binary
        } else {
            NotText::Legacy(bytes.get(at).copied().unwrap_or_default())
        }
    }

    /// The finding's words.
    pub fn describe(self) -> String {
        match self {
            NotText::Binary => "not UTF-8 text (a binary file?)".into(),
            NotText::Legacy(byte) => format!(
                "not UTF-8 text: byte 0x{byte:02X} is not UTF-8; the file looks saved in a legacy 8-bit \
                 encoding (Windows-1252, Latin-1): save it as UTF-8"
            ),
        }
    }
}

impl InputError {
    /// The same error about the input called `name` (a file read through
    /// another path to it).
    pub fn named(self, name: &str) -> Self {
        match self {
            InputError::Io { error, .. } => InputError::Io {
                path: name.into(),
                error,
            },
            InputError::NotUtf8 {
                line, column, what, ..
            } => InputError::NotUtf8 {
                path: name.into(),
                line,
                column,
                what,
            },
            InputError::NoInput => InputError::NoInput,
        }
    }

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
    /// A file named on the command line.
    File(PathBuf),
    /// A file a directory walk found, or one named with
    /// `--skip-non-messages`: one that holds no message may be passed over,
    /// not reported (a README beside the messages) — as [`Pass`] says.
    Walked(PathBuf, Pass),
    Text(Source),
    /// Stdin, or a file named on the command line, copied to a private
    /// temporary file, to be read more than once (the same bytes each time).
    Spooled(std::sync::Arc<Spool>),
    /// What a walk could not enter or read (a folder without permission):
    /// reading it gives the error, so it is reported at its path and the
    /// rest of the walk is still read.
    Unreadable(Unreadable),
}

/// A path a walk met and could not read, with why.
#[derive(Debug, Clone)]
pub struct Unreadable {
    pub path: PathBuf,
    pub kind: std::io::ErrorKind,
    pub why: String,
}

/// An input copied to a temporary file (deleted when the last handle goes),
/// under the input's name.
#[derive(Debug)]
pub struct Spool {
    file: tempfile::NamedTempFile,
    name: String,
}

/// Copies stdin to a temporary file, for a command that reads its input
/// twice (an all-or-nothing promise kept without holding it in memory).
pub fn spool_stdin() -> Result<Input, InputError> {
    spool("<stdin>".into(), &mut std::io::stdin().lock())
}

/// Copies a file named on the command line to a private temporary file,
/// read in its place by a command that checks its input in a first pass
/// and acts on it in a second (`send`, `sign`): both passes then read the
/// same bytes, so what was checked is what is sent or signed, whatever
/// happens to the file in between. Any other input is returned as it is.
pub fn spool_file(input: Input) -> Result<Input, InputError> {
    let Input::File(path) = &input else {
        return Ok(input);
    };
    let name = input.name();
    let mut file = std::fs::File::open(path).map_err(|error| InputError::Io {
        path: name.clone(),
        error: clipboard_hint(path, error),
    })?;
    spool(name, &mut file)
}

fn spool(name: String, from: &mut impl Read) -> Result<Input, InputError> {
    let io = |error| InputError::Io {
        path: name.clone(),
        error,
    };
    let mut file = tempfile::NamedTempFile::new().map_err(io)?;
    std::io::copy(from, &mut file).map_err(io)?;
    Ok(Input::Spooled(std::sync::Arc::new(Spool { file, name })))
}

impl Input {
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::Spooled(spool) => spool.name.clone(),
            Input::File(p) | Input::Walked(p, _) => crate::path_names::name(p),
            Input::Unreadable(u) => crate::path_names::name(&u.path),
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
    pub fn open(&self) -> Result<Box<dyn BufRead + Send>, InputError> {
        const CAPACITY: usize = 1 << 20;
        match self {
            Input::Stdin => Ok(Box::new(BufReader::with_capacity(
                CAPACITY,
                std::io::stdin(),
            ))),
            Input::File(p) | Input::Walked(p, _) => std::fs::File::open(p)
                .map(|f| Box::new(BufReader::with_capacity(CAPACITY, f)) as Box<dyn BufRead + Send>)
                .map_err(|error| InputError::Io {
                    path: self.name(),
                    error: clipboard_hint(p, error),
                }),
            Input::Text(source) => Ok(Box::new(std::io::Cursor::new(
                source.text.clone().into_bytes(),
            ))),
            Input::Unreadable(u) => Err(InputError::Io {
                path: self.name(),
                error: std::io::Error::new(u.kind, u.why.clone()),
            }),
            Input::Spooled(spool) => spool
                .file
                .reopen()
                .map(|f| Box::new(BufReader::with_capacity(CAPACITY, f)) as Box<dyn BufRead + Send>)
                .map_err(|error| InputError::Io {
                    path: self.name(),
                    error,
                }),
        }
    }

    /// The whole content of a named or walked file of at most `limit`
    /// bytes, read with the fewest system calls a file allows: one `stat`
    /// for its size (of the path for a file named, which must not be
    /// opened unless it is a regular file; of the open file for one a walk
    /// found, which takes only regular files), open, a read of that size,
    /// the read that finds its end, close — a buffered reader and
    /// `read_to_end` took three more. `None` for any other input, a larger
    /// file, or one that cannot be read: the caller then reads it the usual
    /// way, from its start, which says why.
    pub fn small_file(&self, limit: usize) -> Option<Vec<u8>> {
        let regular_size = |m: std::fs::Metadata| m.is_file().then_some(m.len());
        let (path, named_size) = match self {
            // A pipe or a device named as a file: what is read from it
            // could not be read again, so it is not opened here.
            Input::File(path) => (path, Some(regular_size(std::fs::metadata(path).ok()?)?)),
            Input::Walked(path, _) => (path, None),
            _ => return None,
        };
        let mut file = std::fs::File::open(path).ok()?;
        let size = match named_size {
            Some(size) => size,
            None => regular_size(file.metadata().ok()?)?,
        };
        let size = usize::try_from(size).ok().filter(|&s| s <= limit)?;
        // One byte more than the size: the read that finds the end has
        // room, and a file grown since the `fstat` is read on.
        let mut bytes = vec![0; size + 1];
        let mut filled = 0;
        loop {
            match file.read(&mut bytes[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
            if filled > limit {
                return None;
            }
            if filled == bytes.len() {
                bytes.resize(bytes.len() * 2, 0);
            }
        }
        bytes.truncate(filled);
        Some(bytes)
    }

    /// Whether the input, holding no message (its text `text`), may be
    /// passed over rather than reported: a file a walk found that is
    /// something else, or any with `--skip-non-messages` ([`Pass`]).
    pub fn may_pass_over(&self, text: &str) -> bool {
        let Input::Walked(path, pass) = self else {
            return false;
        };
        if *pass == Pass::Any {
            return true;
        }
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        let json = JSON_EXTENSIONS.contains(&extension.as_str());
        let empty = text.trim_start_matches(crate::chars::BOM).trim().is_empty();
        let only_messages = ONLY_MESSAGE_EXTENSIONS.contains(&extension.as_str());
        !(only_messages || json && empty)
    }

    /// Whether the input may still be being written as it is read: stdin
    /// from a pipe or a terminal, read a message at a time by a command
    /// that acts on each as it comes. Stdin redirected from a file (`<
    /// FILE`) is all there already, and is read in pieces like a file.
    pub fn comes_as_written(&self) -> bool {
        matches!(self, Input::Stdin) && !stdin_is_a_file()
    }

    /// The input's size in bytes, when it is a file.
    pub fn size(&self) -> Option<u64> {
        match self {
            Input::Stdin | Input::Unreadable(_) => None,
            Input::File(p) | Input::Walked(p, _) => std::fs::metadata(p).ok().map(|m| m.len()),
            Input::Text(source) => Some(source.text.len() as u64),
            Input::Spooled(spool) => spool.file.as_file().metadata().ok().map(|m| m.len()),
        }
    }
}

/// Whether stdin is redirected from a regular file.
#[cfg(unix)]
fn stdin_is_a_file() -> bool {
    use std::os::fd::AsFd;
    std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|fd| std::fs::File::from(fd).metadata())
        .is_ok_and(|m| m.is_file())
}

/// Whether stdin is redirected from a regular file: not asked here, so
/// stdin is read as a pipe is.
#[cfg(not(unix))]
fn stdin_is_a_file() -> bool {
    false
}

/// A missing file named `clipboard` (or `clip`, `clipboard::`…) was meant
/// as the system clipboard: the error says how to name it.
fn clipboard_hint(path: &Path, error: std::io::Error) -> std::io::Error {
    let name = path.as_os_str().to_string_lossy();
    let meant = ["clipboard", "clip", "clipboard::", "clipboard/"].contains(&name.as_ref());
    if error.kind() != std::io::ErrorKind::NotFound || !meant {
        return error;
    }
    std::io::Error::new(
        error.kind(),
        format!("{error}; the system clipboard is named `{CLIPBOARD}`, with the colon"),
    )
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
    let text = decode_text(head, &name)?;
    Ok(Source { name, text })
}

/// The UTF-16 encoding a byte-order mark at the start of `head` names (what
/// Notepad's "Unicode" and Windows PowerShell 5 save), if any.
pub fn utf16_bom(head: &[u8]) -> Option<&'static str> {
    match head {
        [0xFF, 0xFE, ..] => Some("UTF-16LE"),
        [0xFE, 0xFF, ..] => Some("UTF-16BE"),
        _ => None,
    }
}

/// Decodes `bytes` as UTF-8, or as UTF-16 when a byte-order mark says so
/// (the mark dropped).
pub fn decode_text(bytes: Vec<u8>, name: &str) -> Result<String, InputError> {
    let Some(encoding) = utf16_bom(&bytes) else {
        return decode_utf8(bytes, name);
    };
    let units = bytes[2..].chunks(2).map(|pair| match (encoding, pair) {
        ("UTF-16LE", [a, b]) => u16::from_le_bytes([*a, *b]),
        (_, [a, b]) => u16::from_be_bytes([*a, *b]),
        // An odd last byte: not a code unit.
        _ => 0xD800,
    });
    let mut text = String::with_capacity(bytes.len() / 2);
    for c in char::decode_utf16(units) {
        match c {
            Ok(c) => text.push(c),
            Err(_) => {
                let line = text.matches('\n').count() + 1;
                let column = text.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                return Err(InputError::NotUtf8 {
                    path: name.to_string(),
                    line,
                    column,
                    what: NotText::Binary,
                });
            }
        }
    }
    Ok(text)
}

/// Decodes `bytes` as UTF-8; the error names the line and column of the
/// first byte that is not.
pub fn decode_utf8(bytes: Vec<u8>, name: &str) -> Result<String, InputError> {
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
            what: NotText::of(e.as_bytes(), good.len()),
        }
    })
}

/// Turns the paths given on the command line into inputs: `-` is stdin, and
/// so is nothing when stdin is not a terminal; a directory is walked
/// ([`walk`]), a file is read whatever its name.
/// What walks passed over is added to `skipped`.
pub fn expand(
    paths: &[PathBuf],
    options: &WalkOptions,
    skipped: &mut Vec<Skipped>,
) -> Result<Vec<Input>, InputError> {
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
            let found = walk(path, options)?;
            inputs.extend(found.files.into_iter().map(|file| match file {
                Ok(path) => Input::Walked(path, Pass::Foreign),
                Err(unreadable) => Input::Unreadable(unreadable),
            }));
            skipped.extend(found.skipped);
        } else {
            inputs.push(Input::File(path.clone()));
        }
    }
    Ok(inputs)
}

/// Why a walk passed over a file or folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SkipReason {
    /// Its name starts with a dot (`--hidden` reads it).
    Hidden,
    /// A `.gitignore`, `.ignore` or `.git/info/exclude` names it (`--no-ignore` reads it).
    Ignored,
    /// A `--glob` does not take it, or an `--exclude` leaves it out.
    Excluded,
    /// Its extension is not one messages are kept under.
    Extension,
    /// Read, and it holds no message of any protocol (a README).
    NoMessage,
}

impl SkipReason {
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::Hidden => "hidden (--hidden reads it)",
            SkipReason::Ignored => "named in an ignore file (--no-ignore reads it)",
            SkipReason::Excluded => "left out by --glob/--exclude",
            SkipReason::Extension => "not a message file extension",
            SkipReason::NoMessage => "holds no message",
        }
    }

    /// A few words for a count: `3 hidden`.
    pub fn short(self) -> &'static str {
        match self {
            SkipReason::Hidden => "hidden",
            SkipReason::Ignored => "in ignore files",
            SkipReason::Excluded => "left out by --glob/--exclude",
            SkipReason::Extension => "other extensions",
            SkipReason::NoMessage => "holding no message",
        }
    }
}

/// A file or folder a walk passed over (a folder counts once, with
/// everything in it).
#[derive(Debug, Clone)]
pub struct Skipped {
    pub path: PathBuf,
    pub is_dir: bool,
    pub why: SkipReason,
}

/// What a directory walk found: the files to read and what could not be
/// read, in walk order, and what it passed over.
#[derive(Debug, Default)]
pub struct Walk {
    pub files: Vec<Result<PathBuf, Unreadable>>,
    pub skipped: Vec<Skipped>,
}

/// The message files below `dir`, sorted by path: hidden entries skipped,
/// what `.gitignore`, `.ignore` and `.git/info/exclude` leave out left out
/// (in a git repository or not, as ripgrep does with --no-require-git), only
/// the message extensions, then `options`' globs. A folder or file that
/// cannot be read is in the result as [`Unreadable`], and the walk goes on;
/// everything passed over is listed with why.
pub fn walk(dir: &Path, options: &WalkOptions) -> Result<Walk, InputError> {
    let io = |error: std::io::Error| InputError::Io {
        path: dir.display().to_string(),
        error,
    };
    let mut overrides = ignore::overrides::OverrideBuilder::new(dir);
    let invalid = |e: ignore::Error| io(std::io::Error::new(std::io::ErrorKind::InvalidInput, e));
    for glob in &options.globs {
        overrides.add(glob).map_err(invalid)?;
    }
    for glob in &options.excludes {
        let negated = match glob.strip_prefix('!') {
            Some(rest) => rest.to_string(),
            None => format!("!{glob}"),
        };
        overrides.add(&negated).map_err(invalid)?;
    }
    let overrides = overrides.build().map_err(invalid)?;
    let extensions = options.extensions.unwrap_or(&MESSAGE_EXTENSIONS);
    let honour = !options.no_ignore;
    let walker = ignore::WalkBuilder::new(dir)
        .require_git(false)
        .git_global(false)
        .hidden(!options.hidden)
        .ignore(honour)
        .git_ignore(honour)
        .git_exclude(honour)
        .parents(honour)
        .overrides(overrides.clone())
        .filter_entry(|entry| entry.file_name() != ".git")
        .sort_by_file_name(std::ffi::OsStr::cmp)
        .build();
    let mut found = Walk::default();
    // Every path the walk yielded, and the folders it entered: a child of
    // an entered folder that was not yielded was left out by a filter.
    let mut yielded = std::collections::HashSet::new();
    let mut folders = Vec::new();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                found.files.push(Err(unreadable(dir, e)));
                continue;
            }
        };
        let file_type = entry.file_type();
        let is_dir = file_type.is_some_and(|t| t.is_dir());
        let path = entry.into_path();
        yielded.insert(path.clone());
        if is_dir {
            folders.push(path);
            continue;
        }
        let wanted = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.contains(&e.to_ascii_lowercase().as_str()));
        // The walk's own type says what a plain file is, without a `stat`
        // of each of thousands; a link is followed to see what it names.
        let is_file = || match file_type {
            Some(t) if !t.is_symlink() => t.is_file(),
            _ => path.is_file(),
        };
        if wanted && is_file() {
            found.files.push(Ok(path));
        } else {
            found.skipped.push(Skipped {
                path,
                is_dir: false,
                why: SkipReason::Extension,
            });
        }
    }
    for folder in folders {
        // A folder the walk could not list is already among the unreadable.
        let Ok(children) = std::fs::read_dir(&folder) else {
            continue;
        };
        for child in children.flatten() {
            let path = child.path();
            let name = child.file_name();
            // The ignore files themselves are the walk's settings, not content.
            if yielded.contains(&path)
                || [".git", ".gitignore", ".ignore"].iter().any(|n| name == *n)
            {
                continue;
            }
            let is_dir = child.file_type().is_ok_and(|t| t.is_dir());
            let why = if !options.hidden && name.to_string_lossy().starts_with('.') {
                SkipReason::Hidden
            } else if overrides.matched(&path, is_dir).is_ignore() {
                SkipReason::Excluded
            } else {
                SkipReason::Ignored
            };
            found.skipped.push(Skipped { path, is_dir, why });
        }
    }
    found.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

/// A walk's error as the path it is about and why.
fn unreadable(dir: &Path, error: ignore::Error) -> Unreadable {
    fn path_of(error: &ignore::Error) -> Option<&Path> {
        match error {
            ignore::Error::WithPath { path, .. } => Some(path),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                path_of(err)
            }
            ignore::Error::Loop { child, .. } => Some(child),
            ignore::Error::Partial(errors) => errors.first().and_then(path_of),
            _ => None,
        }
    }
    let path = path_of(&error).unwrap_or(dir).to_path_buf();
    let why = error
        .io_error()
        .map_or_else(|| innermost(&error), ToString::to_string);
    let kind = error
        .io_error()
        .map_or(std::io::ErrorKind::Other, std::io::Error::kind);
    Unreadable { path, kind, why }
}

/// The cause of a walk's error without the path it wraps it in.
fn innermost(error: &ignore::Error) -> String {
    match error {
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => innermost(err),
        ignore::Error::Partial(errors) => errors.first().map_or_else(String::new, innermost),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    /// The validate hooks of `.pre-commit-hooks.yaml` take every JSON
    /// extension a directory walk reads (CBP frames among them), and the
    /// Crosstalk files; a new extension cannot be forgotten there.
    #[test]
    fn the_validate_hooks_take_every_json_extension_the_walk_reads() {
        let hooks = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
        )
        .unwrap();
        let mut seen = 0;
        for hook in hooks.split("\n- id: ").skip(1) {
            if !hook.starts_with("aiproto-validate") {
                continue;
            }
            seen += 1;
            let files = hook
                .lines()
                .find_map(|l| l.trim().strip_prefix("files: "))
                .unwrap();
            let listed: Vec<&str> = files
                .trim_start_matches("\\.(")
                .trim_end_matches(")$")
                .split('|')
                .collect();
            for ext in JSON_EXTENSIONS.iter().chain(&["crosstalk", "aict"]) {
                assert!(listed.contains(ext), "{files} lacks {ext}");
            }
        }
        assert_eq!(seen, 2, "aiproto-validate and aiproto-validate-system");
    }

    /// A walk takes plain files by the type the directory listing gives,
    /// and still follows a link to see whether it names a file.
    #[test]
    fn a_walk_takes_files_and_links_to_files_not_links_to_folders() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("real.json"), "{}").unwrap();
        std::fs::create_dir(outside.path().join("folder.json")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("plain.json"), "{}").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("real.json"),
            dir.path().join("link.json"),
        )
        .unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("folder.json"),
            dir.path().join("dirlink.json"),
        )
        .unwrap();
        let options = WalkOptions {
            no_ignore: false,
            hidden: false,
            globs: Vec::new(),
            excludes: Vec::new(),
            extensions: None,
        };
        let mut skipped = Vec::new();
        let inputs = expand(&[dir.path().to_path_buf()], &options, &mut skipped).unwrap();
        let mut names: Vec<String> = inputs
            .iter()
            .map(|i| i.name().rsplit('/').next().unwrap_or_default().to_string())
            .collect();
        names.sort();
        assert_eq!(names, ["link.json", "plain.json"]);
        assert!(
            skipped
                .iter()
                .any(|s| s.path.ends_with("dirlink.json") && !s.is_dir),
            "{:?}",
            skipped.iter().map(|s| &s.path).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_small_file_is_read_whole_and_nothing_else_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        let text = "{\"a\": 1}\n".repeat(100);
        std::fs::write(&path, &text).unwrap();
        for input in [
            super::Input::File(path.clone()),
            super::Input::Walked(path.clone(), super::Pass::Foreign),
        ] {
            assert_eq!(
                input.small_file(text.len()),
                Some(text.clone().into_bytes())
            );
            assert_eq!(input.small_file(text.len() - 1), None, "over the limit");
        }
        std::fs::write(&path, "").unwrap();
        assert_eq!(super::Input::File(path).small_file(10), Some(Vec::new()));
        // Not regular files: a folder, a missing file, a pipe named as a
        // file (not even opened: opening would wait for its writer).
        assert_eq!(
            super::Input::File(dir.path().to_path_buf()).small_file(10),
            None
        );
        assert_eq!(
            super::Input::Walked(dir.path().join("nope"), super::Pass::Foreign).small_file(10),
            None
        );
        let fifo = dir.path().join("pipe");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
            0,
        )
        .unwrap();
        assert_eq!(super::Input::File(fifo).small_file(10), None);
        assert_eq!(super::Input::Stdin.small_file(10), None);
    }

    #[test]
    fn a_spooled_file_keeps_its_name_and_the_bytes_it_had() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("batch.jsonl");
        std::fs::write(&path, "checked\n").unwrap();
        let copy = super::spool_file(super::Input::File(path.clone())).unwrap();
        // Written to between the check and the use: the copy is what was checked.
        std::fs::write(&path, "swapped in after the check\n").unwrap();
        assert_eq!(copy.read().unwrap().text, "checked\n");
        assert_eq!(copy.name(), super::Input::File(path).name());
        // Reading it twice gives the same bytes.
        assert_eq!(copy.read().unwrap().text, "checked\n");
        let missing = super::spool_file(super::Input::File(dir.path().join("nope")));
        assert!(missing.is_err());
    }

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
