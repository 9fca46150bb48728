//! The directories an MCP client may name files in: a path is taken only
//! when it resolves, symlinks followed, to a place inside one of them.

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

/// The roots, each resolved once at start-up.
#[derive(Debug, Clone)]
pub struct Sandbox {
    roots: Vec<PathBuf>,
}

impl Sandbox {
    /// Resolves each root (it must exist and be a directory).
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
                Ok(resolved)
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Sandbox { roots })
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// An existing regular file to read: a relative path is looked up in
    /// each root in turn; an absolute one must lie inside a root.
    pub fn existing_file(&self, path: &str) -> Result<PathBuf, PathError> {
        let candidates = self.candidates(path)?;
        let mut last = None;
        for candidate in candidates {
            match candidate.canonicalize() {
                Ok(resolved) => {
                    self.inside(path, &resolved)?;
                    if !resolved.is_file() {
                        return Err(PathError::NotAFile { path: path.into() });
                    }
                    return Ok(resolved);
                }
                Err(e) => last = Some(e),
            }
        }
        Err(PathError::Unusable {
            path: path.into(),
            why: last.map_or_else(|| "not found".into(), |e| e.to_string()),
        })
    }

    /// A file to write (it may not exist yet): its folder must exist inside
    /// a root, and the file itself, if it is there, must resolve inside one
    /// (a symlink out of the roots is refused).
    pub fn writable_file(&self, path: &str) -> Result<PathBuf, PathError> {
        let candidate = self
            .candidates(path)?
            .into_iter()
            .next()
            .ok_or(PathError::Empty)?;
        let name = candidate.file_name().ok_or_else(|| PathError::Unusable {
            path: path.into(),
            why: "names no file".into(),
        })?;
        let folder = candidate.parent().unwrap_or(Path::new("/"));
        let folder = folder.canonicalize().map_err(|e| PathError::Unusable {
            path: path.into(),
            why: format!("its folder: {e}"),
        })?;
        self.inside(path, &folder)?;
        let target = folder.join(name);
        match std::fs::symlink_metadata(&target) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let resolved = target.canonicalize().map_err(|e| PathError::Unusable {
                    path: path.into(),
                    why: format!("a symlink that does not resolve: {e}"),
                })?;
                self.inside(path, &resolved)?;
                Ok(resolved)
            }
            Ok(meta) if !meta.is_file() => Err(PathError::NotAFile { path: path.into() }),
            _ => Ok(target),
        }
    }

    /// Where a path may be: under each root (relative), or itself (absolute).
    fn candidates(&self, path: &str) -> Result<Vec<PathBuf>, PathError> {
        if path.trim().is_empty() {
            return Err(PathError::Empty);
        }
        let p = Path::new(path);
        if p.components().any(|c| matches!(c, Component::ParentDir)) {
            return Err(PathError::ParentDir(path.into()));
        }
        if p.is_absolute() {
            return Ok(vec![p.to_path_buf()]);
        }
        Ok(self.roots.iter().map(|r| r.join(p)).collect())
    }

    fn inside(&self, path: &str, resolved: &Path) -> Result<(), PathError> {
        if self.roots.iter().any(|r| resolved.starts_with(r)) {
            return Ok(());
        }
        Err(PathError::Outside {
            path: path.into(),
            roots: self
                .roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
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
        assert_eq!(sandbox.existing_file("in.crosstalk"), Ok(want.clone()));
        let absolute = root.path().join("in.crosstalk");
        assert_eq!(
            sandbox.existing_file(absolute.to_str().expect("utf-8")),
            Ok(want)
        );
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
        assert_eq!(sandbox.writable_file("sub/new.crosstalk"), Ok(want));
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
