//! One report however a hook runner splits the files: the aiproto
//! processes of one session keep their verdicts beside each other, and
//! each one, when it ends, writes the report again from all of them.
//!
//! A session is the parent process (pre-commit, xargs) that started the
//! runs, named by its pid and start time, or `AIPROTO_REPORT_SESSION`.
//! What a session keeps lives in a private folder under the system's
//! temporary folder, one per report file, under a file lock; a run of
//! another session starts the report afresh.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::report::merge::{self, KeptVerdict};
use crate::report::{ReportFormat, Tool};
use crate::sign::store_files::{self, io_error as store_error};

/// The session this process belongs to.
pub fn session() -> String {
    if let Ok(named) = std::env::var("AIPROTO_REPORT_SESSION")
        && !named.is_empty()
    {
        return format!("named:{named}");
    }
    let parent = std::os::unix::process::parent_id();
    // Field 22 of /proc/PID/stat, the start time: a pid reused later is
    // another session.
    let started = std::fs::read_to_string(format!("/proc/{parent}/stat"))
        .ok()
        .and_then(|stat| {
            let (_, rest) = stat.rsplit_once(')')?;
            rest.split_whitespace().nth(19).map(str::to_string)
        })
        .unwrap_or_default();
    format!("parent:{parent}:{started}")
}

/// Adds this run's verdicts to the session's and writes `target` from all
/// of them, in the order the runs ended.
pub fn write(
    target: &Path,
    format: ReportFormat,
    command: &'static str,
    kept: &[KeptVerdict],
) -> std::io::Result<()> {
    let folder = state_folder(target)?;
    let session = session();
    let io = |e: crate::sign::keystore::StoreError| std::io::Error::other(e.to_string());
    store_files::locked(&folder, || {
        let marker = folder.join("session");
        let same = std::fs::read_to_string(&marker).is_ok_and(|s| s == session);
        let mut parts = parts_in(&folder).map_err(store_error(&folder))?;
        if !same {
            for part in parts.drain(..) {
                std::fs::remove_file(&part).map_err(store_error(&part))?;
            }
            store_files::write_file(&marker, session.as_bytes())?;
        }
        let mut mine = Vec::new();
        for v in kept {
            serde_json::to_writer(&mut mine, v)
                .map_err(std::io::Error::from)
                .map_err(store_error(&folder))?;
            mine.push(b'\n');
        }
        let part = folder.join(format!("{:06}-{}.jsonl", parts.len(), std::process::id()));
        store_files::write_file(&part, &mine)?;
        parts.push(part);
        let mut all = Vec::new();
        for part in &parts {
            let text = std::fs::read_to_string(part).map_err(store_error(part))?;
            for line in text.lines() {
                let v: KeptVerdict = serde_json::from_str(line)
                    .map_err(std::io::Error::from)
                    .map_err(store_error(part))?;
                all.push(v);
            }
        }
        render(target, format, command, &all).map_err(store_error(target))
    })
    .map_err(io)
}

/// The session's parts, in the order they were written.
fn parts_in(folder: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut parts: Vec<PathBuf> = std::fs::read_dir(folder)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    parts.sort();
    Ok(parts)
}

/// Writes the report from every kept verdict: to a temporary file beside
/// `target`, renamed into place, so a reader never sees half a report.
fn render(
    target: &Path,
    format: ReportFormat,
    command: &'static str,
    all: &[KeptVerdict],
) -> std::io::Result<()> {
    let commands: std::collections::BTreeSet<&str> =
        all.iter().map(|v| v.command.as_str()).collect();
    let command = if commands.len() > 1 {
        "validate and verify"
    } else {
        command
    };
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    {
        let out = std::io::BufWriter::new(file.as_file_mut());
        merge::replay(
            crate::report::open(format, Tool { command }, Box::new(out)),
            all,
        )?;
    }
    file.as_file_mut().flush()?;
    // A report is for others to read (the temporary file is private).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    file.persist(target).map_err(|e| e.error)?;
    Ok(())
}

/// The private folder where the session's verdicts for `target` are kept:
/// named after the report's absolute path, inside this user's own folder
/// of the system's temporary folder — checked *before* anything is made
/// in it (a directory, not a symlink, owned by this user, writable by no
/// one else). When another local user made that folder first (to make
/// every merge fail and an old passing report stay), the state goes under
/// the aiproto home instead, said once on stderr.
fn state_folder(target: &Path) -> std::io::Result<PathBuf> {
    use sha2::Digest;
    let absolute = std::path::absolute(target)?;
    let digest = sha2::Sha256::digest(absolute.as_os_str().as_encoded_bytes());
    let name: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    let uid = rustix::process::getuid().as_raw();
    let temp_root = std::env::temp_dir().join(format!("aiproto-{uid}"));
    let root = match own_folder(&temp_root) {
        Ok(()) => temp_root,
        Err(why) => {
            let home = crate::home::home().ok_or_else(|| {
                std::io::Error::other(format!(
                    "{why}, and no aiproto home to keep the reports' state in instead (set AIPROTO_HOME)"
                ))
            })?;
            let fallback = home.join("state");
            eprintln!(
                "aiproto: warning: {why}: the session's report state is kept in {} instead",
                fallback.display()
            );
            own_folder(&fallback).map_err(std::io::Error::other)?;
            fallback
        }
    };
    let folder = root.join("reports").join(name);
    store_files::private_dir(&folder).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(folder)
}

/// Makes `dir` (0700) if it is missing, then requires it to be this
/// user's own: a directory, not a symlink, owned by them, writable by no
/// one else.
fn own_folder(dir: &Path) -> Result<(), String> {
    store_files::private_dir(dir).map_err(|e| e.to_string())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::symlink_metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let me = rustix::process::getuid().as_raw();
        if !meta.is_dir() || meta.uid() != me || meta.mode() & 0o022 != 0 {
            return Err(format!(
                "{} is not this user's own private folder (owner {}, mode {:o})",
                dir.display(),
                meta.uid(),
                meta.mode() & 0o7777
            ));
        }
    }
    Ok(())
}
