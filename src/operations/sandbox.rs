//! The directories an MCP client may name files in. A file is opened
//! beneath its root without ever leaving it — on Linux with
//! `openat2(RESOLVE_BENEATH)` from the root's directory, opened once, so a
//! folder swapped for a symlink between a check and the use cannot lead
//! out (there is no check apart from the use) — and handed on as the open
//! file itself ([`Opened::path`]). Elsewhere, a path is taken when it
//! resolves, symlinks followed, to a place inside a root.

use std::path::{Component, Path, PathBuf};

/// Why a path is refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PathError {
    #[error("an empty path")]
    Empty,
    #[error("`{0}`: a path with `..` is refused (name files inside the roots)")]
    ParentDir(String),
    #[error("`{path}` is outside the roots this server was started with ({roots})")]
    Outside { path: String, roots: String },
    #[error("`{path}`: {why}")]
    Unusable { path: String, why: String },
    #[error("`{path}` is not a regular file")]
    NotAFile { path: String },
}

/// One root: where it is, and (on Linux) its directory, open.
#[derive(Debug)]
struct Root {
    path: PathBuf,
    #[cfg(target_os = "linux")]
    dir: std::sync::Arc<rustix::fd::OwnedFd>,
}

impl Clone for Root {
    fn clone(&self) -> Self {
        Root {
            path: self.path.clone(),
            #[cfg(target_os = "linux")]
            dir: std::sync::Arc::clone(&self.dir),
        }
    }
}

/// The roots, each resolved and opened once at start-up.
#[derive(Debug, Clone)]
pub struct Sandbox {
    roots: Vec<Root>,
}

/// A file opened inside a root. Code that opens files by name uses
/// [`Opened::path`], which names this very file for as long as the value
/// lives (on Linux `/proc/self/fd/N`), whatever happens to the names in
/// between.
#[derive(Debug)]
pub struct Opened {
    _file: std::fs::File,
    path: PathBuf,
    resolved: PathBuf,
}

impl Opened {
    /// A path that opens this file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the file is, for messages.
    pub fn resolved(&self) -> &Path {
        &self.resolved
    }
}

/// How a file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    /// For appending; created when missing (its folder must exist).
    Append,
}

impl Sandbox {
    /// Resolves and opens each root (it must exist and be a directory).
    pub fn new(roots: &[PathBuf]) -> Result<Sandbox, String> {
        let roots = roots
            .iter()
            .map(|r| {
                let resolved = r
                    .canonicalize()
                    .map_err(|e| format!("--root {}: {e}", r.display()))?;
                if !resolved.is_dir() {
                    return Err(format!("--root {}: not a directory", r.display()));
                }
                #[cfg(target_os = "linux")]
                let dir = {
                    use rustix::fs::{Mode, OFlags};
                    rustix::fs::open(
                        &resolved,
                        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                        Mode::empty(),
                    )
                    .map_err(|e| format!("--root {}: {e}", r.display()))?
                };
                Ok(Root {
                    path: resolved,
                    #[cfg(target_os = "linux")]
                    dir: std::sync::Arc::new(dir),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Sandbox { roots })
    }

    pub fn roots(&self) -> Vec<PathBuf> {
        self.roots.iter().map(|r| r.path.clone()).collect()
    }

    /// An existing regular file, opened to read: a relative path is looked
    /// up in each root in turn; an absolute one must lie inside a root.
    pub fn existing_file(&self, path: &str) -> Result<Opened, PathError> {
        self.open(path, Access::Read)
    }

    /// A file to append to, created when missing: its folder must exist
    /// inside a root, and the file itself must be inside one (a symlink out
    /// of the roots is refused).
    pub fn writable_file(&self, path: &str) -> Result<Opened, PathError> {
        self.open(path, Access::Append)
    }

    fn open(&self, path: &str, access: Access) -> Result<Opened, PathError> {
        let candidates = self.candidates(path)?;
        let mut last = None;
        for (root, relative) in candidates {
            match self.open_beneath(path, root, &relative, access) {
                Ok(opened) => return Ok(opened),
                Err(PathError::Unusable { why, .. }) if access == Access::Read => last = Some(why),
                Err(e) => return Err(e),
            }
        }
        Err(PathError::Unusable {
            path: path.into(),
            why: last.unwrap_or_else(|| "not found".into()),
        })
    }

    /// Where a path may be: each root and the path below it (relative), or
    /// the root an absolute path lies in.
    fn candidates(&self, path: &str) -> Result<Vec<(&Root, PathBuf)>, PathError> {
        if path.trim().is_empty() {
            return Err(PathError::Empty);
        }
        let p = Path::new(path);
        if p.components().any(|c| matches!(c, Component::ParentDir)) {
            return Err(PathError::ParentDir(path.into()));
        }
        if p.is_absolute() {
            // Resolved as far as it exists, so that a root reached through
            // a symlinked prefix (/tmp on macOS) is recognised.
            let resolved = resolve_existing_prefix(p);
            let inside: Vec<(&Root, PathBuf)> = self
                .roots
                .iter()
                .filter_map(|r| {
                    let below = resolved.strip_prefix(&r.path).ok()?;
                    Some((r, below.to_path_buf()))
                })
                .collect();
            if inside.is_empty() {
                return Err(self.outside(path));
            }
            return Ok(inside);
        }
        Ok(self.roots.iter().map(|r| (r, p.to_path_buf())).collect())
    }

    fn outside(&self, path: &str) -> PathError {
        PathError::Outside {
            path: path.into(),
            roots: self
                .roots
                .iter()
                .map(|r| r.path.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    /// Opens `relative` beneath `root`: with openat2 on Linux, never
    /// leaving it, symlinks inside it followed.
    #[cfg(target_os = "linux")]
    fn open_beneath(
        &self,
        path: &str,
        root: &Root,
        relative: &Path,
        access: Access,
    ) -> Result<Opened, PathError> {
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        use rustix::io::Errno;
        let relative = if relative.as_os_str().is_empty() {
            Path::new(".")
        } else {
            relative
        };
        // openat2 takes a mode only with O_CREAT.
        let (flags, mode) = match access {
            Access::Read => (
                OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY,
                Mode::empty(),
            ),
            Access::Append => (
                OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE | OFlags::CLOEXEC | OFlags::NOCTTY,
                Mode::from_raw_mode(0o644),
            ),
        };
        let opened = rustix::fs::openat2(
            &*root.dir,
            relative,
            flags,
            mode,
            ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
        );
        let fd = match opened {
            Ok(fd) => fd,
            // A kernel before 5.6 has no openat2: resolve, then open.
            Err(Errno::NOSYS) => {
                return self.open_resolved(path, &root.path.join(relative), access);
            }
            Err(Errno::XDEV) | Err(Errno::LOOP) => return Err(self.outside(path)),
            Err(Errno::ISDIR) => return Err(PathError::NotAFile { path: path.into() }),
            Err(e) => {
                let why = std::io::Error::from(e);
                let why = match (access, why.kind()) {
                    (Access::Append, std::io::ErrorKind::NotFound) => format!("its folder: {why}"),
                    _ => why.to_string(),
                };
                return Err(PathError::Unusable {
                    path: path.into(),
                    why,
                });
            }
        };
        let file = std::fs::File::from(fd);
        let is_file = file.metadata().is_ok_and(|m| m.is_file());
        if !is_file {
            return Err(PathError::NotAFile { path: path.into() });
        }
        use std::os::fd::AsRawFd;
        let by_fd = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        let resolved = std::fs::read_link(&by_fd).unwrap_or_else(|_| root.path.join(relative));
        Ok(Opened {
            _file: file,
            path: by_fd,
            resolved,
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn open_beneath(
        &self,
        path: &str,
        root: &Root,
        relative: &Path,
        access: Access,
    ) -> Result<Opened, PathError> {
        self.open_resolved(path, &root.path.join(relative), access)
    }

    /// Resolves `candidate` (symlinks followed), checks that it lies in a
    /// root, and opens it: what a system without openat2 can do.
    fn open_resolved(
        &self,
        path: &str,
        candidate: &Path,
        access: Access,
    ) -> Result<Opened, PathError> {
        let unusable = |why: String| PathError::Unusable {
            path: path.into(),
            why,
        };
        let resolved = match access {
            Access::Read => candidate
                .canonicalize()
                .map_err(|e| unusable(e.to_string()))?,
            Access::Append => {
                let name = candidate
                    .file_name()
                    .ok_or_else(|| unusable("names no file".into()))?;
                let folder = candidate.parent().unwrap_or(Path::new("/"));
                let folder = folder
                    .canonicalize()
                    .map_err(|e| unusable(format!("its folder: {e}")))?;
                let target = folder.join(name);
                match std::fs::symlink_metadata(&target) {
                    Ok(meta) if meta.file_type().is_symlink() => target
                        .canonicalize()
                        .map_err(|e| unusable(format!("a symlink that does not resolve: {e}")))?,
                    _ => target,
                }
            }
        };
        if !self.roots.iter().any(|r| resolved.starts_with(&r.path)) {
            return Err(self.outside(path));
        }
        let file = match access {
            Access::Read => std::fs::File::open(&resolved),
            Access::Append => std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&resolved),
        }
        .map_err(|e| unusable(e.to_string()))?;
        if !file.metadata().is_ok_and(|m| m.is_file()) {
            return Err(PathError::NotAFile { path: path.into() });
        }
        Ok(Opened {
            _file: file,
            path: resolved.clone(),
            resolved,
        })
    }
}

/// `path` with its longest existing prefix resolved (symlinks followed)
/// and the rest appended as written.
fn resolve_existing_prefix(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut prefix = path;
    loop {
        if let Ok(resolved) = prefix.canonicalize() {
            return rest.iter().rev().fold(resolved, |p, c| p.join(c));
        }
        match (prefix.parent(), prefix.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                prefix = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, Sandbox) {
        let root = tempfile::tempdir().expect("temp dir");
        let outside = tempfile::tempdir().expect("temp dir");
        std::fs::write(root.path().join("in.crosstalk"), "x").expect("write");
        std::fs::create_dir(root.path().join("sub")).expect("mkdir");
        std::fs::write(outside.path().join("secret.txt"), "s").expect("write");
        std::os::unix::fs::symlink(
            outside.path().join("secret.txt"),
            root.path().join("link.txt"),
        )
        .expect("symlink");
        std::os::unix::fs::symlink(outside.path(), root.path().join("out")).expect("symlink");
        let sandbox = Sandbox::new(&[root.path().to_path_buf()]).expect("sandbox");
        (root, outside, sandbox)
    }

    #[test]
    fn a_file_inside_the_root_is_read_by_relative_or_absolute_path() {
        let (root, _outside, sandbox) = setup();
        let want = root
            .path()
            .canonicalize()
            .expect("root")
            .join("in.crosstalk");
        let opened = sandbox.existing_file("in.crosstalk").expect("opened");
        assert_eq!(opened.resolved(), want);
        assert_eq!(std::fs::read_to_string(opened.path()).expect("read"), "x");
        let absolute = root.path().join("in.crosstalk");
        let opened = sandbox
            .existing_file(absolute.to_str().expect("utf-8"))
            .expect("opened");
        assert_eq!(opened.resolved(), want);
    }

    /// A folder swapped for a symlink out of the root, again and again,
    /// while files below it are opened: no open reaches outside.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_folder_swapped_for_a_symlink_never_leads_out() {
        let root = tempfile::tempdir().expect("temp dir");
        let outside = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(root.path().join("real")).expect("mkdir");
        std::fs::write(root.path().join("real/a.crosstalk"), "inside").expect("write");
        std::fs::write(outside.path().join("a.crosstalk"), "outside").expect("write");
        std::os::unix::fs::symlink(outside.path(), root.path().join("link")).expect("symlink");
        std::fs::rename(root.path().join("real"), root.path().join("d")).expect("rename");
        let sandbox = Sandbox::new(&[root.path().to_path_buf()]).expect("sandbox");
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let swapper = {
            let (dir, stop) = (root.path().to_path_buf(), std::sync::Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let _ = std::fs::rename(dir.join("d"), dir.join("real"));
                    let _ = std::fs::rename(dir.join("link"), dir.join("d"));
                    let _ = std::fs::rename(dir.join("d"), dir.join("link"));
                    let _ = std::fs::rename(dir.join("real"), dir.join("d"));
                }
            })
        };
        let (mut read, mut refused) = (0, 0);
        for _ in 0..3000 {
            match sandbox.existing_file("d/a.crosstalk") {
                Ok(opened) => {
                    let text = std::fs::read_to_string(opened.path()).expect("read");
                    assert_eq!(text, "inside", "read outside the root");
                    read += 1;
                }
                Err(_) => refused += 1,
            }
            if let Ok(opened) = sandbox.writable_file("d/new.crosstalk") {
                assert!(
                    opened
                        .resolved()
                        .starts_with(root.path().canonicalize().expect("root"))
                );
            }
        }
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        swapper.join().expect("swapper");
        assert!(
            !outside.path().join("new.crosstalk").exists(),
            "written outside the root"
        );
        assert!(read > 0 && refused > 0, "{read} read, {refused} refused");
    }

    #[test]
    fn dot_dot_absolute_paths_outside_and_symlinks_out_are_refused() {
        let (_root, outside, sandbox) = setup();
        assert!(matches!(
            sandbox.existing_file("sub/../in.crosstalk"),
            Err(PathError::ParentDir(_))
        ));
        assert!(matches!(
            sandbox.existing_file("../etc/passwd"),
            Err(PathError::ParentDir(_))
        ));
        let secret = outside.path().join("secret.txt");
        assert!(matches!(
            sandbox.existing_file(secret.to_str().expect("utf-8")),
            Err(PathError::Outside { .. })
        ));
        assert!(matches!(
            sandbox.existing_file("/etc/passwd"),
            Err(PathError::Outside { .. })
        ));
        assert!(matches!(
            sandbox.existing_file("link.txt"),
            Err(PathError::Outside { .. })
        ));
        assert!(matches!(
            sandbox.existing_file("out/secret.txt"),
            Err(PathError::Outside { .. })
        ));
        assert!(matches!(
            sandbox.writable_file("link.txt"),
            Err(PathError::Outside { .. })
        ));
        assert!(matches!(
            sandbox.writable_file("out/new.crosstalk"),
            Err(PathError::Outside { .. })
        ));
        assert!(matches!(
            sandbox.writable_file("/tmp/x.crosstalk"),
            Err(PathError::Outside { .. })
        ));
    }

    #[test]
    fn a_new_file_may_be_written_in_a_folder_of_the_root_but_not_a_folder() {
        let (root, _outside, sandbox) = setup();
        let want = root
            .path()
            .canonicalize()
            .expect("root")
            .join("sub/new.crosstalk");
        let opened = sandbox.writable_file("sub/new.crosstalk").expect("opened");
        assert_eq!(opened.resolved(), want);
        assert!(matches!(
            sandbox.existing_file("sub"),
            Err(PathError::NotAFile { .. })
        ));
        assert!(matches!(
            sandbox.writable_file("missing/new.crosstalk"),
            Err(PathError::Unusable { .. })
        ));
    }
}
