//! The person's own texts: a digest of every message the person composed
//! on this machine (`aiproto compose`, the desk), kept in `AIPROTO_HOME`.
//! `sign --only-mine` signs an envelope only when its text is one of them:
//! an envelope is never the person's by its claimed sender alone, since an
//! assistant can write `[[ME→…]]` as easily as the person can.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The file the digests are kept in, under `AIPROTO_HOME`.
pub const FILE: &str = "composed";

/// How many digests are kept (the oldest are forgotten first).
const KEPT: usize = 10_000;

/// The digest a text is known by: its lines without trailing spaces or
/// carriage returns, and without blank lines at either end, so the same
/// message pasted back from a chat or a file matches; any other change
/// (a word of the body, a header) does not.
pub fn digest(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let normal = lines.join("\n");
    Sha256::digest(normal.trim_matches('\n').as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The ledger of the person's composed texts.
pub struct Composed {
    path: PathBuf,
}

impl Composed {
    /// The ledger in `AIPROTO_HOME` (or the platform's config folder).
    pub fn open() -> Option<Composed> {
        crate::home::home().map(|home| Composed::at(&home.join(FILE)))
    }

    pub fn at(path: &Path) -> Composed {
        Composed {
            path: path.to_path_buf(),
        }
    }

    /// Remembers `text` as one the person composed. The file is the
    /// person's alone (mode 0600), and keeps the last 10,000 digests.
    pub fn record(&self, text: &str) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut kept = self.digests()?;
        kept.push(digest(text));
        let start = kept.len().saturating_sub(KEPT);
        let mut options = std::fs::OpenOptions::new();
        options.create(true).write(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let tmp = self.path.with_extension("tmp");
        let mut file = options.open(&tmp)?;
        file.write_all((kept[start..].join("\n") + "\n").as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, &self.path)
    }

    /// Whether the person composed `text` here.
    pub fn holds(&self, text: &str) -> std::io::Result<bool> {
        Ok(self.known()?.holds(text))
    }

    /// Every text the ledger knows, read once to look many up.
    pub fn known(&self) -> std::io::Result<Known> {
        Ok(Known(self.digests()?.into_iter().collect()))
    }

    fn digests(&self) -> std::io::Result<Vec<String>> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => Ok(text
                .lines()
                .filter(|l| l.len() == 64)
                .map(str::to_string)
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }
}

/// The digests of the person's composed texts.
#[derive(Debug, Default)]
pub struct Known(std::collections::HashSet<String>);

impl Known {
    pub fn holds(&self, text: &str) -> bool {
        self.0.contains(&digest(text))
    }
}

/// Whether a message is the person's to sign with `sign --only-mine`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mine {
    Yes,
    /// Its sender is not one the key signs for.
    OtherSender,
    /// Its sender is one the key signs for, but the person did not compose
    /// this text here: an assistant can claim any sender.
    NotComposedHere,
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENVELOPE: &str =
        "[[ME→CLAUDE v1]]\nintent: REQUEST\nbody: |\n  Pay 10 EUR.\nsig: none\n[[END]]\n";

    #[test]
    fn a_composed_text_is_known_again_as_pasted_back_and_an_edited_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Composed::at(&dir.path().join(FILE));
        assert!(!ledger.holds(ENVELOPE).unwrap());
        ledger.record(ENVELOPE).unwrap();
        assert!(ledger.holds(ENVELOPE).unwrap());
        let pasted = format!("\n{}  \n", ENVELOPE.replace('\n', "\r\n"));
        assert!(ledger.holds(&pasted).unwrap(), "line ends and blank edges");
        let edited = ENVELOPE.replace("10 EUR", "1000 EUR");
        assert!(!ledger.holds(&edited).unwrap(), "another body");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
