//! The keystore's files on disk: folders only their owner can enter,
//! files written whole (a temporary file renamed into place), one lock for
//! every read-decide-write, and OpenSSH's StrictModes rule on what is read.

use std::fs;
use std::io::Write;
use std::path::Path;

use super::store_error::StoreError;

pub fn io_error(path: &Path) -> impl Fn(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Creates a folder and its missing parents with mode 0700 (whatever the
/// umask): the keystore is nobody else's to list or fill.
pub fn private_dir(dir: &Path) -> Result<(), StoreError> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(io_error(dir))
}

/// Reads a keystore file; `None` when it does not exist. The file and its
/// folder must pass [`refuse_unsafe`].
pub fn read_optional(path: &Path) -> Result<Option<String>, StoreError> {
    match fs::read_to_string(path) {
        Ok(text) => {
            refuse_unsafe(path)?;
            if let Some(dir) = path.parent() {
                refuse_unsafe(dir)?;
            }
            Ok(Some(text))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(path)(e)),
    }
}

/// OpenSSH's StrictModes: a keystore file or folder owned by another user,
/// or writable by group or others, could have been written by someone
/// else, so it is not trusted as it is.
pub fn refuse_unsafe(path: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let Ok(meta) = fs::symlink_metadata(path) else {
            return Ok(());
        };
        let shown = path.display().to_string();
        let me = rustix::process::geteuid().as_raw();
        if meta.uid() != me {
            return Err(StoreError::Unsafe {
                why: format!("owned by user {}, not by you (user {me})", meta.uid()),
                fix: format!("check who wrote it, then: chown {me} {shown}"),
                path: shown,
            });
        }
        let mode = meta.mode() & 0o777;
        if mode & 0o022 != 0 {
            let wanted = if meta.is_dir() { 0o700 } else { 0o600 };
            return Err(StoreError::Unsafe {
                why: format!("permissions {mode:o} let others write it"),
                fix: format!("check what it holds, then: chmod {wanted:o} {shown}"),
                path: shown,
            });
        }
    }
    Ok(())
}

/// Holds the keystore's lock (an exclusive lock on `.lock` in its root)
/// while `f` runs, so that reading, deciding and writing are one step for
/// every process sharing the keystore.
pub fn locked<T>(root: &Path, f: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
    private_dir(root)?;
    let path = root.join(".lock");
    let mut options = fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(&path).map_err(io_error(&path))?;
    file.lock().map_err(io_error(&path))?;
    let result = f();
    // Closing the file releases the lock; unlocking first says so.
    let _ = file.unlock();
    result
}

/// Writes a file atomically: a fresh temporary file beside it, created
/// exclusively (never one left behind by someone else) with its final mode
/// (0600), then renamed into place. On failure the temporary file is
/// removed.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let io = io_error(path);
    let dir = path.parent().unwrap_or(Path::new("."));
    private_dir(dir)?;
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
                options.mode(0o600);
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

/// ssh's rule for private keys: one readable by group or others is not used.
pub fn refuse_open_private(path: &Path) -> Result<(), StoreError> {
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
    refuse_unsafe(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn folders_are_private_whatever_the_umask_and_open_ones_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("a/b");
        private_dir(&home).unwrap();
        let mode = fs::metadata(&home).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        write_file(&home.join("known_keys"), b"x\n").unwrap();
        assert_eq!(
            read_optional(&home.join("known_keys")).unwrap().as_deref(),
            Some("x\n")
        );
        fs::set_permissions(&home, fs::Permissions::from_mode(0o777)).unwrap();
        let err = read_optional(&home.join("known_keys"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("permissions 777") && err.contains("chmod 700"),
            "{err}"
        );
        fs::set_permissions(&home, fs::Permissions::from_mode(0o700)).unwrap();
        fs::set_permissions(home.join("known_keys"), fs::Permissions::from_mode(0o666)).unwrap();
        let err = read_optional(&home.join("known_keys"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("chmod 600"), "{err}");
        assert_eq!(read_optional(&home.join("absent")).unwrap(), None);
    }
}
