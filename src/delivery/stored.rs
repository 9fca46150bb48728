//! The receiving server's memory of what arrived: each message is stored
//! once under its id (an id-less one under its text's digest), so a
//! client's retry is acknowledged without being stored or handed on
//! again; other content under a seen id is another message (another
//! sender's, or an edited copy) and is kept and handed on too, under its
//! id and its digest, never dropped for the first to come; the inbox's quota.
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
    Io(std::io::Error),
}

/// What storing a message did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// The first message under its id: kept.
    New,
    /// Its id came before with other content: kept beside it, and to be
    /// said (another sender's message under the same id, or an edited copy).
    OtherContent,
    /// The same message came before (a client's retry): nothing kept.
    Before,
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

    /// The name of other content under the same id: the id and the
    /// digest of the text.
    fn other_content(&self, text: &str) -> Name {
        let digest = Sha256::digest(text.as_bytes());
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        Name {
            stem: format!("{}.sha256-{hex}", self.stem),
            ext: self.ext,
            dedup: true,
        }
    }
}

/// Whether the inbox `dir` holds this message already: `Ok(true)` for the
/// same text under its name, or under its id and digest when other content
/// took the name first. Nothing is written.
pub fn stored_before(dir: &Path, found: &Found, text: &str) -> Result<bool, StoreError> {
    let name = Name::of(found, text);
    match std::fs::read(dir.join(name.file())) {
        Ok(kept) if kept == text.as_bytes() => Ok(true),
        Ok(_) if name.dedup => Ok(dir.join(name.other_content(text).file()).exists()),
        Ok(_) => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Writes a message into the inbox `dir` under its `Name` (see [`Kept`]);
/// other content under a seen id goes under the id and its digest. The
/// text goes to a temporary file first, linked into place (never over
/// another file) and removed in every case, so a failed write (a full
/// disk) leaves nothing behind.
pub fn store(dir: &Path, found: &Found, text: &str) -> Result<Kept, StoreError> {
    std::fs::create_dir_all(dir)?;
    let name = Name::of(found, text);
    let tmp = dir.join(format!(".{}.{}.tmp", name.stem, crate::ids::new_ulid()));
    let kept = write_new(&tmp, text).and_then(|()| link(&tmp, dir, &name, text));
    let _ = std::fs::remove_file(&tmp);
    Ok(kept?)
}

/// Links the written `tmp` into place under `name`.
fn link(tmp: &Path, dir: &Path, name: &Name, text: &str) -> std::io::Result<Kept> {
    let target = dir.join(name.file());
    match std::fs::hard_link(tmp, &target) {
        Ok(()) => Ok(Kept::New),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && !name.dedup => {
            let other = dir.join(format!(
                "{}-{}.{}",
                name.stem,
                crate::ids::new_ulid(),
                name.ext
            ));
            std::fs::hard_link(tmp, other).map(|()| Kept::New)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            if std::fs::read(&target)? == text.as_bytes() {
                return Ok(Kept::Before);
            }
            let other = dir.join(name.other_content(text).file());
            match std::fs::hard_link(tmp, other) {
                Ok(()) => Ok(Kept::OtherContent),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(Kept::Before),
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
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

/// Each id's digests (the first content, then any other), and the ids
/// oldest first (to forget the oldest).
#[derive(Debug, Default)]
struct Remembered {
    by_id: HashMap<String, Vec<[u8; 32]>>,
    order: VecDeque<String>,
}

impl Seen {
    /// What taking this message does (see [`Kept`]), remembering it. A
    /// message without an id is known by its text.
    pub fn first_time(&self, found: &Found, text: &str) -> Result<Kept, StoreError> {
        self.remember(found, text, true)
    }

    /// Whether this message came before, without remembering it.
    pub fn known(&self, found: &Found, text: &str) -> Result<bool, StoreError> {
        self.remember(found, text, false)
            .map(|kept| kept == Kept::Before)
    }

    /// What taking the message does; it is remembered when `keep`.
    fn remember(&self, found: &Found, text: &str, keep: bool) -> Result<Kept, StoreError> {
        let (id, digest) = match found.id() {
            // The id as compared, the same message in any capitals of it.
            Some(id) => super::same_message::keyed(id, text),
            None => {
                let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
                let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
                (format!("sha256-{hex}"), digest)
            }
        };
        let id = id.as_str();
        let mut guard = self
            .inner
            .lock()
            .map_err(|_| std::io::Error::other("the server's memory of ids was poisoned"))?;
        let Remembered { by_id, order } = &mut *guard;
        if let Some(digests) = by_id.get_mut(id) {
            if digests.contains(&digest) {
                return Ok(Kept::Before);
            }
            if keep {
                digests.push(digest);
            }
            return Ok(Kept::OtherContent);
        }
        if keep {
            if order.len() == REMEMBERED
                && let Some(old) = order.pop_front()
            {
                by_id.remove(&old);
            }
            by_id.insert(id.to_string(), vec![digest]);
            order.push_back(id.to_string());
        }
        Ok(Kept::New)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::routing::tests::first as found;

    /// A server without an inbox tells messages apart as an archive and a
    /// receiver do: the id in other capitals is the same id.
    #[test]
    fn a_server_remembers_ids_as_they_compare() {
        let lower =
            r#"{"intent":"REPORT","target":"x","trace_id":"6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f"}"#;
        let upper = lower.replace(
            "6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f",
            "6F1C1B8E-1D2A-4C3B-9E4F-5A6B7C8D9E0F",
        );
        let other = upper.replace("\"x\"", "\"y\"");
        let seen = Seen::default();
        assert_eq!(seen.first_time(&found(lower), lower).unwrap(), Kept::New);
        assert_eq!(
            seen.first_time(&found(&upper), &upper).unwrap(),
            Kept::Before
        );
        assert_eq!(
            seen.first_time(&found(&other), &other).unwrap(),
            Kept::OtherContent
        );
        assert!(seen.known(&found(&other), &other).unwrap());
    }
}
