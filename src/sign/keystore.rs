//! The keystore under `AIPROTO_HOME`: own key pairs (current and retired
//! by rotations), the public keys pinned for other signers (trust on first
//! use per sender, like ssh's known_hosts per host) and the revocations
//! applied.
//!
//! Layout, every folder 0700 and every file 0600:
//! - `keys/<id>.key` (private, JSON) and `keys/<id>.pub`: the current own keys;
//! - `keys/retired/<id>.<unix time>.key` and `retired_keys`: own keys a
//!   rotation replaced, kept so that earlier messages still verify;
//! - `known_keys`: one keystore line per pinned key (`<id> <algorithm>
//!   <base64 key> [signs-for=…] [may-revoke=…] [expires=…] [retired=…]`; ids
//!   percent-encoded where they hold `%`, `#`, `,` or `=`);
//! - `revoked`: one `<id> <fingerprint> [at=…] [by=…]` line per revocation;
//! - `.lock`: held while a command reads, decides and writes.

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use super::key::{Algorithm, PublicKey, SigningKey};
pub use super::key_line::{KnownKey, matches_pattern};
use super::key_line::{format_date, parse_date};
use super::store_files::{locked, read_optional, refuse_open_private, refuse_unsafe, write_file};

pub use crate::home::{HOME_ENV, home};

pub use super::store_error::{SenderBound, StoreError};

/// A private key file.
#[derive(Serialize, Deserialize)]
struct KeyFile {
    id: String,
    algorithm: String,
    secret: String,
}

/// Reads a file of keystore lines (`#` comments allowed).
pub fn read_key_lines(path: &Path) -> Result<Vec<KnownKey>, StoreError> {
    let text = fs::read_to_string(path).map_err(|source| StoreError::Io {
        path: path.display().to_string(),
        source,
    })?;
    parse_key_lines(path, &text)
}

fn parse_key_lines(path: &Path, text: &str) -> Result<Vec<KnownKey>, StoreError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| {
            KnownKey::parse(l).map_err(|why| StoreError::Corrupt {
                path: format!("{}:{}", path.display(), i + 1),
                why,
            })
        })
        .collect()
}

/// Where a trusted key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// One of the keystore's own keys.
    Own,
    /// Pinned for someone else.
    Pinned,
}

/// A revocation applied to this keystore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revocation {
    pub id: String,
    pub fingerprint: String,
    pub at: Option<DateTime<Utc>>,
    /// The key whose signed REVOKE was applied.
    pub by: Option<String>,
}

impl Revocation {
    fn to_line(&self) -> String {
        let mut line = format!("{} {}", self.id, self.fingerprint);
        if let Some(at) = self.at {
            line.push_str(&format!(" at={}", format_date(at)));
        }
        if let Some(by) = &self.by {
            line.push_str(&format!(" by={by}"));
        }
        line
    }

    fn parse(line: &str) -> Option<Revocation> {
        let mut parts = line.split_whitespace();
        let mut r = Revocation {
            id: parts.next()?.to_string(),
            fingerprint: parts.next()?.to_string(),
            at: None,
            by: None,
        };
        for field in parts {
            match field.split_once('=') {
                Some(("at", at)) => r.at = parse_date(at).ok(),
                Some(("by", by)) => r.by = Some(by.to_string()),
                _ => {}
            }
        }
        Some(r)
    }
}

/// What trust on first use found for a signer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FirstUse {
    /// The key is now pinned for its id and the sender.
    Pinned,
    /// The very same key was already pinned (by another process, say).
    AlreadyPinned,
    /// The id or the sender already has another key: nothing was pinned.
    Taken { entry: KnownKey, origin: Origin },
}

/// The keystore in one directory.
#[derive(Debug, Clone)]
pub struct Keystore {
    root: PathBuf,
}

impl Keystore {
    pub fn open() -> Result<Keystore, StoreError> {
        Ok(Keystore {
            root: home().ok_or(StoreError::NoHome)?,
        })
    }

    pub fn at(root: impl Into<PathBuf>) -> Keystore {
        Keystore { root: root.into() }
    }

    fn keys_dir(&self) -> PathBuf {
        self.root.join("keys")
    }

    fn known_path(&self) -> PathBuf {
        self.root.join("known_keys")
    }

    fn revoked_path(&self) -> PathBuf {
        self.root.join("revoked")
    }

    fn retired_path(&self) -> PathBuf {
        self.root.join("retired_keys")
    }

    fn key_path(&self, id: &str, ext: &str) -> PathBuf {
        self.keys_dir().join(format!("{}.{ext}", file_stem(id)))
    }

    /// Reads a file of keystore lines, none when it does not exist; the
    /// keystore's root must be safe too.
    fn lines_of(&self, path: &Path) -> Result<Vec<KnownKey>, StoreError> {
        refuse_unsafe(&self.root)?;
        match read_optional(path)? {
            Some(text) => parse_key_lines(path, &text),
            None => Ok(Vec::new()),
        }
    }

    /// Makes a new key pair for `id`. An existing key of that id is kept
    /// with `force` (retired, as by a rotation, so that what it signed
    /// still verifies here), else refused.
    pub fn generate(
        &self,
        id: &str,
        algorithm: Algorithm,
        force: bool,
        signs_for: &[String],
        expires: Option<DateTime<Utc>>,
    ) -> Result<KnownKey, StoreError> {
        check_id(id)?;
        locked(&self.root, || {
            if self.key_path(id, "key").exists() {
                if !force {
                    return Err(StoreError::Exists(id.to_string()));
                }
                self.retire_own(id)?;
            }
            self.write_own(id, algorithm, signs_for, expires)
                .map(|(_, public)| public)
        })
    }

    /// A rotation: the current key of `id` is retired (kept, with the time
    /// it stopped signing) and a new one takes its id, senders and the
    /// expiry given. Returns the old key (to sign the transition
    /// statement), its public line as retired, and the new public line.
    pub fn rotate(
        &self,
        id: &str,
        expires: Option<DateTime<Utc>>,
    ) -> Result<(SigningKey, KnownKey, KnownKey), StoreError> {
        check_id(id)?;
        locked(&self.root, || {
            let old_key = self.load_private(id)?;
            let old = self.retire_own(id)?;
            let (_, new) = self.write_own(id, old_key.algorithm, &old.signs_for, expires)?;
            Ok((old_key, old, new))
        })
    }

    /// Moves the current key of `id` to `keys/retired/` and its public line
    /// to `retired_keys`, marked with the time it stopped signing.
    fn retire_own(&self, id: &str) -> Result<KnownKey, StoreError> {
        let mut public = self
            .own_entry(id)?
            .ok_or_else(|| StoreError::Unknown(id.to_string()))?;
        let now = Utc::now();
        public.retired = Some(now);
        let private = self.key_path(id, "key");
        let kept = self.keys_dir().join("retired").join(format!(
            "{}.{}.key",
            file_stem(id),
            now.timestamp()
        ));
        let text = fs::read(&private).map_err(|source| StoreError::Io {
            path: private.display().to_string(),
            source,
        })?;
        write_file(&kept, &text)?;
        let mut retired = self.lines_of(&self.retired_path())?;
        retired.push(public.clone());
        write_lines(&self.retired_path(), &retired)?;
        let _ = fs::remove_file(self.key_path(id, "pub"));
        fs::remove_file(&private).map_err(|source| StoreError::Io {
            path: private.display().to_string(),
            source,
        })?;
        Ok(public)
    }

    fn write_own(
        &self,
        id: &str,
        algorithm: Algorithm,
        signs_for: &[String],
        expires: Option<DateTime<Utc>>,
    ) -> Result<(SigningKey, KnownKey), StoreError> {
        let private = self.key_path(id, "key");
        let key = SigningKey::generate(algorithm)?;
        let file = KeyFile {
            id: id.to_string(),
            algorithm: algorithm.name().into(),
            secret: STANDARD.encode(key.secret()),
        };
        let json = serde_json::to_string_pretty(&file).map_err(|e| StoreError::Corrupt {
            path: private.display().to_string(),
            why: e.to_string(),
        })?;
        write_file(&private, json.as_bytes())?;
        let mut public = KnownKey::new(id, key.public_key()).signing_for(signs_for.to_vec());
        public.expires = expires;
        write_file(
            &self.key_path(id, "pub"),
            format!("{}\n", public.to_line()).as_bytes(),
        )?;
        Ok((key, public))
    }

    /// The private key of `id`, to sign with: refused when its file is
    /// readable by others, when it was revoked or when it has expired.
    pub fn signing_key(&self, id: &str) -> Result<SigningKey, StoreError> {
        self.usable_own(id).map(|(key, _)| key)
    }

    /// The private key of `id` as [`Keystore::signing_key`] gives it, with
    /// its public line (read once for both the expiry and the caller).
    fn usable_own(&self, id: &str) -> Result<(SigningKey, Option<KnownKey>), StoreError> {
        let key = self.load_private(id)?;
        if let Some(r) = self.revoked(&key.public_key())? {
            return Err(StoreError::RevokedOwn {
                id: id.to_string(),
                at: r.at.map_or_else(|| "an unknown date".into(), format_date),
            });
        }
        let entry = self.own_entry(id)?;
        if let Some(expires) = entry.as_ref().and_then(|e| e.expires)
            && expires < Utc::now()
        {
            return Err(StoreError::ExpiredOwn {
                id: id.to_string(),
                at: format_date(expires),
            });
        }
        Ok((key, entry))
    }

    fn load_private(&self, id: &str) -> Result<SigningKey, StoreError> {
        let path = self.key_path(id, "key");
        let text = fs::read_to_string(&path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => StoreError::Unknown(id.to_string()),
            _ => StoreError::Io {
                path: path.display().to_string(),
                source,
            },
        })?;
        let corrupt = |why: String| StoreError::Corrupt {
            path: path.display().to_string(),
            why,
        };
        let file: KeyFile =
            serde_json::from_str(&text).map_err(|e| corrupt(format!("not a key file: {e}")))?;
        let algorithm = Algorithm::parse(&file.algorithm)
            .ok_or_else(|| corrupt(format!("unknown algorithm `{}`", file.algorithm)))?;
        let secret = STANDARD
            .decode(&file.secret)
            .map_err(|_| corrupt("the secret is not base64".into()))?;
        let key = SigningKey::from_secret(algorithm, secret).map_err(|e| corrupt(e.to_string()))?;
        refuse_open_private(&path)?;
        refuse_unsafe(&self.keys_dir())?;
        refuse_unsafe(&self.root)?;
        Ok(key)
    }

    /// Own current public keys (from `keys/*.pub`).
    pub fn own_keys(&self) -> Result<Vec<KnownKey>, StoreError> {
        let mut out = Vec::new();
        let Ok(entries) = fs::read_dir(self.keys_dir()) else {
            return Ok(out);
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "pub"))
            .collect();
        paths.sort();
        for p in paths {
            out.extend(self.lines_of(&p)?);
        }
        Ok(out)
    }

    /// The current own key of `id`.
    pub fn own_entry(&self, id: &str) -> Result<Option<KnownKey>, StoreError> {
        Ok(self.own_keys()?.into_iter().find(|k| k.id == id))
    }

    /// One of your keys, ready to sign: its private half (refused when
    /// revoked or expired) and its public line, which says whom it signs
    /// for.
    pub fn own_signer(&self, id: &str) -> Result<(SigningKey, KnownKey), String> {
        let (key, entry) = self.usable_own(id).map_err(|e| e.to_string())?;
        let entry = entry.ok_or_else(|| format!("no public key for `{id}` in the keystore"))?;
        Ok((key, entry))
    }

    /// Own keys retired by rotations.
    pub fn retired_own_keys(&self) -> Result<Vec<KnownKey>, StoreError> {
        self.lines_of(&self.retired_path())
    }

    /// Keys pinned for other signers (those retired by a key transition too).
    pub fn known_keys(&self) -> Result<Vec<KnownKey>, StoreError> {
        self.lines_of(&self.known_path())
    }

    /// Every key the keystore holds for `id`, current and retired, own first.
    pub fn entries_for(&self, id: &str) -> Result<Vec<(KnownKey, Origin)>, StoreError> {
        Ok(self
            .all_entries()?
            .into_iter()
            .filter(|(k, _)| k.id == id)
            .collect())
    }

    /// The current keys whose lines name `sender` (see
    /// [`KnownKey::names_sender`]).
    pub fn bound_to(&self, sender: &str) -> Result<Vec<(KnownKey, Origin)>, StoreError> {
        Ok(self
            .all_entries()?
            .into_iter()
            .filter(|(k, _)| k.is_current() && k.names_sender(sender))
            .collect())
    }

    fn all_entries(&self) -> Result<Vec<(KnownKey, Origin)>, StoreError> {
        let own = self
            .own_keys()?
            .into_iter()
            .chain(self.retired_own_keys()?)
            .map(|k| (k, Origin::Own));
        let pinned = self.known_keys()?.into_iter().map(|k| (k, Origin::Pinned));
        Ok(own.chain(pinned).collect())
    }

    /// The current key trusted for `id`: an own key, else a pinned one.
    pub fn trusted(&self, id: &str) -> Result<Option<PublicKey>, StoreError> {
        Ok(self.trusted_entry(id)?.map(|(k, _)| k.key))
    }

    /// The current keystore line trusted for `id`, and whether it is an own key.
    pub fn trusted_entry(&self, id: &str) -> Result<Option<(KnownKey, bool)>, StoreError> {
        Ok(self
            .entries_for(id)?
            .into_iter()
            .find(|(k, _)| k.is_current())
            .map(|(k, origin)| (k, origin == Origin::Own)))
    }

    /// Whether `id` names one of the keystore's own keys.
    pub fn is_own(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self.own_entry(id)?.is_some())
    }

    /// Trust on first use, for `key` presented under `id` by `sender`: read,
    /// decide and write under the keystore's lock, so that concurrent
    /// verifiers neither lose a pin nor pin two keys for one sender. A
    /// sender or an id that already has another key is not at first use.
    pub fn pin_first_use(
        &self,
        id: &str,
        key: &PublicKey,
        sender: Option<&str>,
    ) -> Result<FirstUse, StoreError> {
        check_id(id)?;
        locked(&self.root, || {
            let taken = self
                .entries_for(id)?
                .into_iter()
                .find(|(k, _)| k.is_current());
            let taken = match (taken, sender) {
                (Some(t), _) => Some(t),
                (None, Some(sender)) => self.bound_to(sender)?.into_iter().next(),
                (None, None) => None,
            };
            match taken {
                Some((entry, _)) if entry.key == *key && entry.id == id => {
                    Ok(FirstUse::AlreadyPinned)
                }
                Some((entry, origin)) => Ok(FirstUse::Taken { entry, origin }),
                None => {
                    let mut keys = self.known_keys()?;
                    let signs_for = sender.map(|s| vec![s.to_string()]).unwrap_or_default();
                    keys.push(KnownKey::new(id, key.clone()).signing_for(signs_for));
                    write_lines(&self.known_path(), &keys)?;
                    Ok(FirstUse::Pinned)
                }
            }
        })
    }

    /// Pins a key a person chose (`keys trust`, `keys import`). Another key
    /// already under the same id is replaced only with `replace`, and an
    /// own key's id never; a sender another key already signs for (one of
    /// your own keys above all) is bound to this one too only with `replace`.
    pub fn pin(&self, entry: KnownKey, replace: bool) -> Result<(), StoreError> {
        check_id(&entry.id)?;
        locked(&self.root, || {
            if self.is_own(&entry.id)? {
                return Err(StoreError::OwnId(entry.id.clone()));
            }
            let mut keys = self.known_keys()?;
            if let Some(pinned) = keys
                .iter()
                .find(|k| k.id == entry.id && k.is_current() && k.key != entry.key)
                && !replace
            {
                return Err(StoreError::Replaces {
                    id: entry.id.clone(),
                    pinned: pinned.key.fingerprint(),
                    new: entry.key.fingerprint(),
                });
            }
            if !replace && let Some((sender, bound, origin)) = self.bound_elsewhere(&entry)? {
                return Err(StoreError::SenderBound(Box::new(SenderBound {
                    sender,
                    bound_id: bound.id.clone(),
                    bound: bound.key.fingerprint(),
                    own: origin == Origin::Own,
                    new_id: entry.id.clone(),
                    new: entry.key.fingerprint(),
                })));
            }
            keys.retain(|k| k.id != entry.id);
            keys.push(entry);
            write_lines(&self.known_path(), &keys)
        })
    }

    /// A sender `entry` would sign for that another key (under another id,
    /// or another key) already signs for: the sender, that key, whose it is.
    pub fn bound_elsewhere(
        &self,
        entry: &KnownKey,
    ) -> Result<Option<(String, KnownKey, Origin)>, StoreError> {
        let senders = if entry.signs_for.is_empty() {
            vec![entry.id.clone()]
        } else {
            entry.signs_for.clone()
        };
        for sender in senders.iter().filter(|s| !s.contains('*')) {
            if let Some((bound, origin)) = self
                .bound_to(sender)?
                .into_iter()
                .find(|(k, _)| k.id != entry.id && k.key != entry.key)
            {
                return Ok(Some((sender.clone(), bound, origin)));
            }
        }
        Ok(None)
    }

    /// A key transition statement, checked by the caller: the pinned key
    /// `old` of `id` is retired at `at` and `new` takes its place, with the
    /// same senders and revokers.
    pub fn transition(
        &self,
        id: &str,
        old: &PublicKey,
        new: &PublicKey,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        locked(&self.root, || {
            let mut keys = self.known_keys()?;
            let Some(current) = keys
                .iter_mut()
                .find(|k| k.id == id && k.is_current() && k.key == *old)
            else {
                return Err(StoreError::Unknown(format!(
                    "{id}` with the key {} (the statement's old key",
                    old.fingerprint()
                )));
            };
            current.retired = Some(at);
            let mut next = KnownKey::new(id, new.clone()).signing_for(current.signs_for.clone());
            next.revokers = current.revokers.clone();
            keys.push(next);
            write_lines(&self.known_path(), &keys)
        })
    }

    /// Removes the pins of `id` (current and retired); false when there were none.
    pub fn forget(&self, id: &str) -> Result<bool, StoreError> {
        locked(&self.root, || {
            let keys = self.known_keys()?;
            let kept: Vec<KnownKey> = keys.iter().filter(|k| k.id != id).cloned().collect();
            if kept.len() == keys.len() {
                return Ok(false);
            }
            write_lines(&self.known_path(), &kept)?;
            Ok(true)
        })
    }

    /// Marks a key revoked, on the word of the key `by`.
    pub fn revoke(&self, id: &str, key: &PublicKey, by: &str) -> Result<(), StoreError> {
        check_id(id)?;
        locked(&self.root, || {
            let mut all = self.revocations()?;
            let fingerprint = key.fingerprint();
            if !all.iter().any(|r| r.fingerprint == fingerprint) {
                all.push(Revocation {
                    id: id.to_string(),
                    fingerprint,
                    at: Some(Utc::now()),
                    by: Some(by.to_string()),
                });
            }
            self.write_revocations(&all)
        })
    }

    /// Withdraws the revocations of `id`; returns those withdrawn.
    pub fn unrevoke(&self, id: &str) -> Result<Vec<Revocation>, StoreError> {
        locked(&self.root, || {
            let (gone, kept): (Vec<Revocation>, Vec<Revocation>) =
                self.revocations()?.into_iter().partition(|r| r.id == id);
            if !gone.is_empty() {
                self.write_revocations(&kept)?;
            }
            Ok(gone)
        })
    }

    /// The revocation of a key, if it was revoked.
    pub fn revoked(&self, key: &PublicKey) -> Result<Option<Revocation>, StoreError> {
        let fingerprint = key.fingerprint();
        Ok(self
            .revocations()?
            .into_iter()
            .find(|r| r.fingerprint == fingerprint))
    }

    /// Every revocation applied here.
    pub fn revocations(&self) -> Result<Vec<Revocation>, StoreError> {
        refuse_unsafe(&self.root)?;
        let text = read_optional(&self.revoked_path())?.unwrap_or_default();
        Ok(text.lines().filter_map(Revocation::parse).collect())
    }

    fn write_revocations(&self, all: &[Revocation]) -> Result<(), StoreError> {
        let text: String = all.iter().map(|r| r.to_line() + "\n").collect();
        write_file(&self.revoked_path(), text.as_bytes())
    }
}

fn write_lines(path: &Path, keys: &[KnownKey]) -> Result<(), StoreError> {
    let text: String = keys.iter().map(|k| k.to_line() + "\n").collect();
    write_file(path, text.as_bytes())
}

fn check_id(id: &str) -> Result<(), StoreError> {
    if id.is_empty()
        || id.contains(|c: char| c.is_whitespace() || c.is_control() || c == ';' || c == '=')
    {
        return Err(StoreError::BadId(id.to_string()));
    }
    Ok(())
}

/// A file name for a key id: anything but letters, digits, `-`, `_` and `@`
/// is percent-encoded, so no id can name a path outside `keys/`.
fn file_stem(id: &str) -> String {
    id.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_@".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generate_pin_forget() {
        let dir = tempfile::tempdir().unwrap();
        let store = Keystore::at(dir.path());
        let public = store
            .generate("alice@example.com", Algorithm::Ed25519, false, &[], None)
            .unwrap()
            .key;
        assert!(matches!(
            store.generate("alice@example.com", Algorithm::Ed25519, false, &[], None),
            Err(StoreError::Exists(_))
        ));
        let key = store.signing_key("alice@example.com").unwrap();
        assert_eq!(key.public_key(), public);
        assert_eq!(
            store.trusted("alice@example.com").unwrap(),
            Some(public.clone())
        );
        store
            .pin(KnownKey::new("bob@keys/2025", public.clone()), false)
            .unwrap();
        assert_eq!(store.trusted("bob@keys/2025").unwrap(), Some(public));
        assert!(store.forget("bob@keys/2025").unwrap());
        assert_eq!(store.trusted("bob@keys/2025").unwrap(), None);
        assert!(
            store
                .generate("../evil", Algorithm::Ed25519, false, &[], None)
                .is_ok()
        );
        assert!(dir.path().join("keys/%2E%2E%2Fevil.key").exists());
        assert!(matches!(
            store.generate("a b", Algorithm::Ed25519, false, &[], None),
            Err(StoreError::BadId(_))
        ));
    }

    #[test]
    fn a_corrupt_key_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let store = Keystore::at(dir.path());
        fs::create_dir_all(dir.path().join("keys")).unwrap();
        fs::write(dir.path().join("keys/x.key"), "garbage").unwrap();
        let err = store.signing_key("x").unwrap_err().to_string();
        assert!(
            err.contains("x.key") && err.contains("not a key file"),
            "{err}"
        );
    }

    #[test]
    fn every_id_reads_back_as_itself() {
        let dir = tempfile::tempdir().unwrap();
        let store = Keystore::at(dir.path());
        let a = SigningKey::generate(Algorithm::Ed25519)
            .unwrap()
            .public_key();
        for id in [
            "#team",
            "50%off",
            "a,b",
            "x=y".replace('=', "%3D").as_str(),
            "аlice",
        ] {
            store
                .pin(
                    KnownKey::new(id, a.clone()).signing_for(vec!["*@example.com".into()]),
                    true,
                )
                .unwrap();
            let (entry, own) = store.trusted_entry(id).unwrap().unwrap();
            assert_eq!((entry.id.as_str(), own), (id, false));
            assert_eq!(entry.signs_for, vec!["*@example.com".to_string()]);
        }
    }

    #[test]
    fn a_leftover_temporary_file_never_gives_its_mode_to_a_private_key() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let store = Keystore::at(dir.path());
        fs::create_dir_all(dir.path().join("keys")).unwrap();
        for leftover in ["keys/alice.tmp", "keys/.alice.key.tmp"] {
            fs::write(dir.path().join(leftover), "old").unwrap();
            fs::set_permissions(dir.path().join(leftover), fs::Permissions::from_mode(0o644))
                .unwrap();
        }
        store
            .generate("alice", Algorithm::Ed25519, false, &[], None)
            .unwrap();
        let mode = fs::metadata(dir.path().join("keys/alice.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        fs::set_permissions(
            dir.path().join("keys/alice.key"),
            fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        assert!(matches!(
            store.signing_key("alice"),
            Err(StoreError::Permissions { .. })
        ));
    }

    fn key() -> PublicKey {
        SigningKey::generate(Algorithm::Ed25519)
            .unwrap()
            .public_key()
    }

    #[test]
    fn first_use_is_per_sender_and_a_chosen_pin_never_replaces_silently() {
        let dir = tempfile::tempdir().unwrap();
        let store = Keystore::at(dir.path());
        let (alice, attacker) = (key(), key());
        assert_eq!(
            store.pin_first_use("alice", &alice, Some("ALICE")).unwrap(),
            FirstUse::Pinned
        );
        assert_eq!(
            store.pin_first_use("alice", &alice, Some("ALICE")).unwrap(),
            FirstUse::AlreadyPinned
        );
        // Another id for the same sender is not at first use.
        let FirstUse::Taken { entry, origin } = store
            .pin_first_use("alice-laptop", &attacker, Some("ALICE"))
            .unwrap()
        else {
            panic!("a second key was pinned for ALICE");
        };
        assert_eq!((entry.id.as_str(), origin), ("alice", Origin::Pinned));
        assert!(matches!(
            store.pin(KnownKey::new("alice", attacker.clone()), false),
            Err(StoreError::Replaces { .. })
        ));
        assert_eq!(store.trusted("alice").unwrap(), Some(alice));
        store
            .pin(KnownKey::new("alice", attacker.clone()), true)
            .unwrap();
        assert_eq!(store.trusted("alice").unwrap(), Some(attacker));
    }

    #[test]
    fn rotation_keeps_the_old_key_retired_and_revocation_can_be_withdrawn() {
        let dir = tempfile::tempdir().unwrap();
        let store = Keystore::at(dir.path());
        let first = store
            .generate("me", Algorithm::Ed25519, false, &["HUMAN".into()], None)
            .unwrap();
        let (old_key, old, new) = store.rotate("me", None).unwrap();
        assert_eq!(old_key.public_key(), first.key);
        assert!(old.retired.is_some() && new.retired.is_none());
        assert_eq!(new.signs_for, vec!["HUMAN".to_string()]);
        let entries = store.entries_for("me").unwrap();
        assert_eq!(entries.len(), 2, "{entries:?}");
        assert_eq!(store.trusted("me").unwrap(), Some(new.key.clone()));
        assert_eq!(
            fs::read_dir(dir.path().join("keys/retired"))
                .unwrap()
                .count(),
            1
        );
        store.revoke("me", &new.key, "me").unwrap();
        assert!(matches!(
            store.signing_key("me"),
            Err(StoreError::RevokedOwn { .. })
        ));
        assert_eq!(store.unrevoke("me").unwrap().len(), 1);
        assert!(store.signing_key("me").is_ok());
    }

    #[test]
    fn concurrent_first_uses_keep_every_pin() {
        let dir = tempfile::tempdir().unwrap();
        let threads: Vec<_> = (0..12)
            .map(|i| {
                let store = Keystore::at(dir.path());
                std::thread::spawn(move || {
                    store
                        .pin_first_use(&format!("agent{i}"), &key(), Some(&format!("AGENT{i}")))
                        .unwrap()
                })
            })
            .collect();
        for t in threads {
            assert_eq!(t.join().unwrap(), FirstUse::Pinned);
        }
        assert_eq!(Keystore::at(dir.path()).known_keys().unwrap().len(), 12);
    }
}
