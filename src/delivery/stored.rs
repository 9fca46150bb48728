//! The receiving server's memory of what arrived: each message is stored
//! once under its id (an id-less one under its text's digest), so a
//! client's retry is acknowledged without being stored or handed on
//! again, and the same id on other content is refused; the inbox's quota.
//! Deciding costs one link attempt and, for a repeat, one read: the same
//! for the ten-thousandth message as for the first.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use crate::protocols::{Found, Protocol};

/// Why a message was not stored.
#[derive(Debug)]
pub enum StoreError {
    /// This id was received before with other content.
    Conflict(String),
    Io(std::io::Error),
}

impl From<std::io::Error> for StoreError {
    fn from(e: std::io::Error) -> Self {
        StoreError::Io(e)
    }
}

/// The file a message is kept in, in an inbox: `<id>.<ext>` (the id's
/// letters, digits, `-` and `_` only), or for a message without an id
/// `sha256-<digest of its text>.<ext>`, so that the same id-less message
/// sent twice is kept once. `dedup` is false for an id that lost
/// characters to the file name (it could meet another id that lost
/// others): such a name, when taken, gets a ULID after it.
struct Name {
    stem: String,
    ext: &'static str,
    dedup: bool,
}

impl Name {
    fn of(found: &Found, text: &str) -> Name {
        let ext = if found.protocol == Protocol::Crosstalk {
            "crosstalk"
        } else {
            "json"
        };
        let id = found.id().unwrap_or("");
        let safe: String = id
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .take(80)
            .collect();
        if id.is_empty() {
            let digest = Sha256::digest(text.as_bytes());
            let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
            return Name {
                stem: format!("sha256-{hex}"),
                ext,
                dedup: true,
            };
        }
        Name {
            dedup: !safe.is_empty() && safe == id,
            stem: if safe.is_empty() {
                crate::ids::new_ulid()
            } else {
                safe
            },
            ext,
        }
    }

    fn file(&self) -> String {
        format!("{}.{}", self.stem, self.ext)
    }
}

/// Whether the inbox `dir` holds this message already: `Ok(true)` for the
/// same text under its name, the conflict for other text under an id that
/// is its own file name. Nothing is written.
pub fn stored_before(dir: &Path, found: &Found, text: &str) -> Result<bool, StoreError> {
    let name = Name::of(found, text);
    match std::fs::read(dir.join(name.file())) {
        Ok(kept) if kept == text.as_bytes() => Ok(true),
        Ok(_) if name.dedup => Err(StoreError::Conflict(
            found.id().unwrap_or_default().to_string(),
        )),
        Ok(_) => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Writes a message into the inbox `dir` under its `Name`: `Ok(true)`
/// when stored, `Ok(false)` when the same message is there already. The
/// text goes to a temporary file first, linked into place (never over
/// another file) and removed in every case, so a failed write (a full
/// disk) leaves nothing behind.
pub fn store(dir: &Path, found: &Found, text: &str) -> Result<bool, StoreError> {
    std::fs::create_dir_all(dir)?;
    let Name { stem, ext, dedup } = Name::of(found, text);
    let tmp = dir.join(format!(".{stem}.{}.tmp", crate::ids::new_ulid()));
    let linked = write_new(&tmp, text).and_then(|()| {
        let target = dir.join(format!("{stem}.{ext}"));
        match std::fs::hard_link(&tmp, &target) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && !dedup => {
                let other = dir.join(format!("{stem}-{}.{ext}", crate::ids::new_ulid()));
                std::fs::hard_link(&tmp, other).map(|()| target)
            }
            linked => linked.map(|()| target),
        }
    });
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let target = dir.join(format!("{stem}.{ext}"));
            if std::fs::read(&target)? == text.as_bytes() {
                Ok(false)
            } else {
                Err(StoreError::Conflict(
                    found.id().unwrap_or_default().to_string(),
                ))
            }
        }
        Err(e) => Err(e.into()),
    }
}

/// The bounds of an inbox: bytes and files it may hold. Counted once when
/// the server starts (what is there already counts), then as messages
/// are stored.
#[derive(Debug)]
pub struct Quota {
    pub max_bytes: u64,
    pub max_files: u64,
    used: Mutex<(u64, u64)>,
}

/// The default `--max-inbox-bytes`: 1 GiB.
pub const MAX_INBOX_BYTES: u64 = 1 << 30;
/// The default `--max-inbox-files`.
pub const MAX_INBOX_FILES: u64 = 100_000;

impl Quota {
    /// The quota of `dir`, with what it holds now.
    pub fn of(dir: &Path, max_bytes: u64, max_files: u64) -> std::io::Result<Quota> {
        let mut used = (0, 0);
        match std::fs::read_dir(dir) {
            Ok(entries) => {
                for entry in entries {
                    let entry = entry?;
                    let meta = entry.metadata()?;
                    if meta.is_file() && !entry.file_name().to_string_lossy().starts_with('.') {
                        used.0 += meta.len();
                        used.1 += 1;
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        Ok(Quota {
            max_bytes,
            max_files,
            used: Mutex::new(used),
        })
    }

    /// Takes room for a message of `bytes`: why not when the inbox is full.
    pub fn take(&self, bytes: u64) -> Result<(), String> {
        let mut used = self
            .used
            .lock()
            .map_err(|_| "the inbox's count was poisoned".to_string())?;
        if used.1 + 1 > self.max_files {
            return Err(format!(
                "the inbox is full: it holds {} messages (--max-inbox-files {})",
                used.1, self.max_files
            ));
        }
        if used.0 + bytes > self.max_bytes {
            return Err(format!(
                "the inbox is full: {} of {} bytes used, the message is {bytes} (--max-inbox-bytes)",
                used.0, self.max_bytes
            ));
        }
        used.0 += bytes;
        used.1 += 1;
        Ok(())
    }

    /// Gives back the room of a message that was not stored after all.
    pub fn give_back(&self, bytes: u64) {
        if let Ok(mut used) = self.used.lock() {
            used.0 = used.0.saturating_sub(bytes);
            used.1 = used.1.saturating_sub(1);
        }
    }
}

fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

/// How many ids a server without an inbox remembers.
const REMEMBERED: usize = 100_000;

/// The ids received by a server without an inbox, with a digest of each
/// message (the last `REMEMBERED`).
#[derive(Debug, Default)]
pub struct Seen {
    inner: Mutex<Remembered>,
}

/// Each id's digest, and the ids oldest first (to forget the oldest).
#[derive(Debug, Default)]
struct Remembered {
    by_id: HashMap<String, [u8; 32]>,
    order: VecDeque<String>,
}

impl Seen {
    /// `Ok(true)` the first time an id comes; `Ok(false)` for the same
    /// message again; a conflict for the same id on other content. A
    /// message without an id is known by its text.
    pub fn first_time(&self, found: &Found, text: &str) -> Result<bool, StoreError> {
        self.remember(found, text, true)
    }

    /// Whether this message came before (the conflict for the same id on
    /// other content), without remembering it.
    pub fn known(&self, found: &Found, text: &str) -> Result<bool, StoreError> {
        self.remember(found, text, false).map(|first| !first)
    }

    /// `Ok(true)` when the message is new (and then remembered when `keep`).
    /// A message without an id is known by its text's digest.
    fn remember(&self, found: &Found, text: &str, keep: bool) -> Result<bool, StoreError> {
        let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        let by_digest;
        let id = match found.id() {
            Some(id) => id,
            None => {
                by_digest = format!(
                    "sha256-{}",
                    digest
                        .iter()
                        .map(|b| format!("{b:02x}"))
                        .collect::<String>()
                );
                &by_digest
            }
        };
        let mut guard = self
            .inner
            .lock()
            .map_err(|_| std::io::Error::other("the server's memory of ids was poisoned"))?;
        let Remembered { by_id, order } = &mut *guard;
        match by_id.get(id) {
            Some(known) if *known == digest => Ok(false),
            Some(_) => Err(StoreError::Conflict(id.to_string())),
            None if !keep => Ok(true),
            None => {
                if order.len() == REMEMBERED
                    && let Some(old) = order.pop_front()
                {
                    by_id.remove(&old);
                }
                by_id.insert(id.to_string(), digest);
                order.push_back(id.to_string());
                Ok(true)
            }
        }
    }
}
