//! The receiving server's memory of what arrived: each message is stored
//! once under its id, so a client's retry is acknowledged without being
//! stored or handed on again, and the same id on other content is refused.
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

/// Writes a message into the inbox `dir` as `<id>.<ext>` (the id's letters,
/// digits, `-` and `_` only; a message without an id gets a fresh ULID):
/// `Ok(true)` when stored, `Ok(false)` when the same message is there
/// already. The text goes to a temporary file first, linked into place
/// (never over another file) and removed in every case, so a failed write
/// (a full disk) leaves nothing behind.
pub fn store(dir: &Path, found: &Found, text: &str) -> Result<bool, StoreError> {
    std::fs::create_dir_all(dir)?;
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
    // An id that loses characters to the file name could meet another id
    // that loses others: only an id that is its own file name deduplicates;
    // the others get a ULID after their name when it is taken.
    let dedup = !safe.is_empty() && safe == id;
    let stem = if safe.is_empty() {
        crate::ids::new_ulid()
    } else {
        safe
    };
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
                Err(StoreError::Conflict(id.to_string()))
            }
        }
        Err(e) => Err(e.into()),
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
/// message (the last [`REMEMBERED`]).
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
    /// message without an id is always new.
    pub fn first_time(&self, found: &Found, text: &str) -> Result<bool, StoreError> {
        let Some(id) = found.id() else {
            return Ok(true);
        };
        let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        let mut guard = self
            .inner
            .lock()
            .map_err(|_| std::io::Error::other("the server's memory of ids was poisoned"))?;
        let Remembered { by_id, order } = &mut *guard;
        match by_id.get(id) {
            Some(known) if *known == digest => Ok(false),
            Some(_) => Err(StoreError::Conflict(id.to_string())),
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
