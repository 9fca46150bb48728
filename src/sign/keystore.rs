//! The keystore under `AIPROTO_HOME`: own key pairs, and the public keys
//! pinned for other signers (trust on first use, like ssh's known_hosts).
//!
//! Layout: `keys/<id>.key` (private, mode 0600, JSON), `keys/<id>.pub` and
//! `known_keys` (one `<id> <algorithm> <base64 key> [signs-for=…]` line per
//! key; ids are percent-encoded where they hold `%`, `#`, `,` or `=`, so
//! that every id reads back as itself).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use super::key::{Algorithm, KeyError, PublicKey, SigningKey};
pub use super::key_line::{KnownKey, matches_pattern};

/// The environment variable naming the keystore directory (listed in docs/commands.md).
pub const HOME_ENV: &str = "AIPROTO_HOME";

/// Where aiproto keeps its keys: `AIPROTO_HOME`, else the platform config
/// directory (`$XDG_CONFIG_HOME/aiproto` or `~/.config/aiproto`).
pub fn home() -> Option<PathBuf> {
    if let Some(h) = std::env::var_os(HOME_ENV).filter(|h| !h.is_empty()) {
        return Some(PathBuf::from(h));
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(config.join("aiproto"))
}

/// Why the keystore could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no keystore directory: set AIPROTO_HOME or HOME")]
    NoHome,
    #[error("a key `{0}` already exists (use --force to replace it)")]
    Exists(String),
    #[error("no key `{0}` in the keystore")]
    Unknown(String),
    #[error("key id `{0}` may not be empty or hold whitespace, control characters, `;` or `=`")]
    BadId(String),
    #[error("{path}: permissions {mode:o} let others read this private key; run: chmod 600 {path}")]
    Permissions { path: String, mode: u32 },
    #[error("{path}: {why}")]
    Corrupt { path: String, why: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Key(#[from] KeyError),
}

/// A private key file.
#[derive(Serialize, Deserialize)]
struct KeyFile {
    id: String,
    algorithm: String,
    secret: String,
}

/// Reads a file of `<id> <algorithm> <base64>` lines (`#` comments allowed).
pub fn read_key_lines(path: &Path) -> Result<Vec<KnownKey>, StoreError> {
    let text = fs::read_to_string(path).map_err(|source| StoreError::Io {
        path: path.display().to_string(),
        source,
    })?;
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

    /// Marks a key revoked (`revoked`: one `<id> <fingerprint>` line each).
    pub fn revoke(&self, id: &str, key: &PublicKey) -> Result<(), StoreError> {
        check_id(id)?;
        let mut lines = self.revoked_lines()?;
        let line = format!("{id} {}", key.fingerprint());
        if !lines.contains(&line) {
            lines.push(line);
        }
        write_file(
            &self.revoked_path(),
            (lines.join("\n") + "\n").as_bytes(),
            false,
        )
    }

    /// The id under which a key was revoked, if it was.
    pub fn revoked_as(&self, key: &PublicKey) -> Result<Option<String>, StoreError> {
        let fingerprint = key.fingerprint();
        Ok(self.revoked_lines()?.iter().find_map(|l| {
            l.split_once(' ')
                .filter(|(_, fp)| *fp == fingerprint)
                .map(|(id, _)| id.to_string())
        }))
    }

    fn revoked_lines(&self) -> Result<Vec<String>, StoreError> {
        let path = self.revoked_path();
        match fs::read_to_string(&path) {
            Ok(text) => Ok(text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(source) => Err(StoreError::Io {
                path: path.display().to_string(),
                source,
            }),
        }
    }

    fn key_path(&self, id: &str, ext: &str) -> PathBuf {
        self.keys_dir().join(format!("{}.{ext}", file_stem(id)))
    }

    /// Makes a new key pair for `id`; refuses to replace one unless `force`.
    pub fn generate(
        &self,
        id: &str,
        algorithm: Algorithm,
        force: bool,
        signs_for: &[String],
    ) -> Result<PublicKey, StoreError> {
        check_id(id)?;
        let private = self.key_path(id, "key");
        if private.exists() && !force {
            return Err(StoreError::Exists(id.to_string()));
        }
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
        write_file(&private, json.as_bytes(), true)?;
        let public = KnownKey {
            id: id.to_string(),
            key: key.public_key(),
            signs_for: signs_for.to_vec(),
        };
        write_file(
            &self.key_path(id, "pub"),
            format!("{}\n", public.to_line()).as_bytes(),
            false,
        )?;
        Ok(public.key)
    }

    /// The private key of `id`; refused when its file is readable by others.
    pub fn signing_key(&self, id: &str) -> Result<SigningKey, StoreError> {
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
        refuse_open_permissions(&path)?;
        Ok(key)
    }

    /// Own public keys (from `keys/*.pub`).
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
            out.extend(read_key_lines(&p)?);
        }
        Ok(out)
    }

    /// Keys pinned for other signers.
    pub fn known_keys(&self) -> Result<Vec<KnownKey>, StoreError> {
        let path = self.known_path();
        if !path.exists() {
            return Ok(Vec::new());
        }
        read_key_lines(&path)
    }

    /// The key trusted for `id`: an own key, else a pinned one.
    pub fn trusted(&self, id: &str) -> Result<Option<PublicKey>, StoreError> {
        Ok(self.trusted_entry(id)?.map(|(k, _)| k.key))
    }

    /// The keystore line trusted for `id`, and whether it is an own key.
    pub fn trusted_entry(&self, id: &str) -> Result<Option<(KnownKey, bool)>, StoreError> {
        if let Some(own) = self.own_keys()?.into_iter().find(|k| k.id == id) {
            return Ok(Some((own, true)));
        }
        Ok(self
            .known_keys()?
            .into_iter()
            .find(|k| k.id == id)
            .map(|k| (k, false)))
    }

    /// Whether `id` names one of the keystore's own keys.
    pub fn is_own(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self.own_keys()?.iter().any(|k| k.id == id))
    }

    /// Pins `key` for `id` (and the senders it may sign for), replacing an
    /// earlier pin.
    pub fn pin(&self, id: &str, key: PublicKey, signs_for: &[String]) -> Result<(), StoreError> {
        check_id(id)?;
        let mut keys: Vec<KnownKey> = self
            .known_keys()?
            .into_iter()
            .filter(|k| k.id != id)
            .collect();
        keys.push(KnownKey {
            id: id.to_string(),
            key,
            signs_for: signs_for.to_vec(),
        });
        self.write_known(&keys)
    }

    /// Removes the pin for `id`; false when there was none.
    pub fn forget(&self, id: &str) -> Result<bool, StoreError> {
        let keys = self.known_keys()?;
        let kept: Vec<KnownKey> = keys.iter().filter(|k| k.id != id).cloned().collect();
        if kept.len() == keys.len() {
            return Ok(false);
        }
        self.write_known(&kept)?;
        Ok(true)
    }

    fn write_known(&self, keys: &[KnownKey]) -> Result<(), StoreError> {
        let text: String = keys.iter().map(|k| k.to_line() + "\n").collect();
        write_file(&self.known_path(), text.as_bytes(), false)
    }
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

/// Writes a file atomically: a fresh temporary file beside it, created
/// exclusively (never one left behind by someone else) with its final mode
/// (0600 for a private key), then renamed into place. On failure the
/// temporary file is removed.
fn write_file(path: &Path, bytes: &[u8], private: bool) -> Result<(), StoreError> {
    let io = |source| StoreError::Io {
        path: path.display().to_string(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io)?;
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let (tmp, mut file) = (0..16)
        .find_map(|_| {
            let tmp = dir.join(format!(".{name}.{}.tmp", ulid::Ulid::generate()));
            let mut options = fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(if private { 0o600 } else { 0o644 });
            }
            options.open(&tmp).ok().map(|f| (tmp, f))
        })
        .ok_or_else(|| io(std::io::Error::other("cannot create a temporary file")))?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(())
}

/// ssh's rule: a private key readable by group or others is not used.
fn refuse_open_permissions(path: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = fs::metadata(path) {
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                return Err(StoreError::Permissions {
                    path: path.display().to_string(),
                    mode,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generate_pin_forget() {
        let dir = tempfile::tempdir().unwrap();
        let store = Keystore::at(dir.path());
        let public = store
            .generate("alice@example.com", Algorithm::Ed25519, false, &[])
            .unwrap();
        assert!(matches!(
            store.generate("alice@example.com", Algorithm::Ed25519, false, &[]),
            Err(StoreError::Exists(_))
        ));
        let key = store.signing_key("alice@example.com").unwrap();
        assert_eq!(key.public_key(), public);
        assert_eq!(
            store.trusted("alice@example.com").unwrap(),
            Some(public.clone())
        );
        store.pin("bob@keys/2025", public.clone(), &[]).unwrap();
        assert_eq!(store.trusted("bob@keys/2025").unwrap(), Some(public));
        assert!(store.forget("bob@keys/2025").unwrap());
        assert_eq!(store.trusted("bob@keys/2025").unwrap(), None);
        assert!(
            store
                .generate("../evil", Algorithm::Ed25519, false, &[])
                .is_ok()
        );
        assert!(dir.path().join("keys/%2E%2E%2Fevil.key").exists());
        assert!(matches!(
            store.generate("a b", Algorithm::Ed25519, false, &[]),
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
            store.pin(id, a.clone(), &["*@example.com".into()]).unwrap();
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
            .generate("alice", Algorithm::Ed25519, false, &[])
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
}
