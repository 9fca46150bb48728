//! A project's settings for checking its messages: `aiproto.toml`, found in
//! the working directory or the nearest directory above it (as ruff and
//! cargo look for theirs). An unknown key is an error with its place.
//!
//! ```toml
//! [validate]
//! glob = ["messages/**"]          # directory walks take only these files
//! exclude = ["messages/drafts/"]  # … and leave these out
//! strict = false                  # warnings count as errors
//! lenient = false                 # HSP as upstream sends it
//! max-findings = 50
//! skip-non-messages = true        # named files without a message are skipped
//!
//! [severity]                      # by code, or by family of codes
//! CT-BODY-INDENT = "error"
//! HSP-TYPE-UNKNOWN = "off"
//! CT-REPAIR = "warning"
//!
//! [[schema]]                      # the project's own constraints (`schemas`)
//! capability-parameters = "translate"
//! schema = "schemas/translate.json"
//! ```
//!
//! `checks` applies the project's schemas to messages as they are read.

pub mod checks;
pub mod schemas;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::diag::policy::{Level, SeverityPolicy};

/// The file's name.
pub const FILE_NAME: &str = "aiproto.toml";

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectFile {
    #[serde(default)]
    pub validate: ValidateSettings,
    /// Code or family → level, in the file's order of keys (sorted).
    #[serde(default)]
    pub severity: BTreeMap<String, Level>,
    /// `[[schema]]`: the project's JSON Schemas, in the file's order.
    #[serde(default, rename = "schema")]
    pub schemas: Vec<schemas::SchemaEntry>,
}

/// `[validate]`: defaults for the flags of the same names.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ValidateSettings {
    #[serde(default)]
    pub glob: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
    pub strict: Option<bool>,
    pub lenient: Option<bool>,
    pub max_findings: Option<usize>,
    pub skip_non_messages: Option<bool>,
    pub no_ignore: Option<bool>,
    pub hidden: Option<bool>,
}

/// A project file read, with where it is.
#[derive(Debug)]
pub struct Project {
    pub path: PathBuf,
    pub file: ProjectFile,
}

impl Project {
    /// The severity rules of the file, checked against the catalogue.
    pub fn severity_policy(&self) -> Result<SeverityPolicy, String> {
        let mut policy = SeverityPolicy::default();
        let origin = self.path.display().to_string();
        for (code, level) in &self.file.severity {
            policy
                .add(code, *level, &origin, false)
                .map_err(|why| format!("{origin}: [severity] {why}"))?;
        }
        Ok(policy)
    }
}

impl Project {
    /// The project's schemas, compiled; the error names the file and the
    /// `[[schema]]` table (1-based) at fault.
    pub fn schemas(&self) -> Result<Vec<schemas::ProjectSchema>, String> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        self.file
            .schemas
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                schemas::compile(entry, dir)
                    .map_err(|why| format!("{}: [[schema]] #{}: {why}", self.path.display(), i + 1))
            })
            .collect()
    }
}

/// The `aiproto.toml` nearest to `start` (it, or a directory above it).
pub fn find(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(FILE_NAME))
        .find(|candidate| candidate.is_file())
}

/// Reads `path`; the error names the file, and the line and column.
pub fn load(path: &Path) -> Result<Project, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file =
        crate::config::parse_toml(&text).map_err(|why| format!("{}: {why}", path.display()))?;
    Ok(Project {
        path: path.to_path_buf(),
        file,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_file_above_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a/b/c");
        std::fs::create_dir_all(&deep).unwrap();
        // Nothing inside the temporary directory: whatever is above it.
        assert_eq!(find(&deep), find(dir.path()));
        std::fs::write(dir.path().join("a").join(FILE_NAME), "").unwrap();
        assert_eq!(find(&deep), Some(dir.path().join("a").join(FILE_NAME)));
    }

    #[test]
    fn settings_and_severities_are_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(
            &path,
            "[validate]\nexclude = [\"drafts/\"]\nmax-findings = 5\n\n[severity]\nCT-BODY-INDENT = \"error\"\nCT-REPAIR = \"off\"\n",
        )
        .unwrap();
        let project = load(&path).unwrap();
        assert_eq!(project.file.validate.exclude, vec!["drafts/"]);
        assert_eq!(project.file.validate.max_findings, Some(5));
        let policy = project.severity_policy().unwrap();
        assert_eq!(policy.level_of("CT-BODY-INDENT"), Some(Level::Error));
        assert_eq!(policy.level_of("CT-REPAIR-SPACE"), Some(Level::Off));

        std::fs::write(&path, "[validate]\nstrcit = true\n").unwrap();
        let e = load(&path).unwrap_err();
        assert!(
            e.contains("line 2, column 1") && e.contains("strcit"),
            "{e}"
        );
        std::fs::write(&path, "[severity]\nCT-BODY-INDNET = \"error\"\n").unwrap();
        let e = load(&path).unwrap().severity_policy().unwrap_err();
        assert!(e.contains("CT-BODY-INDNET"), "{e}");
        std::fs::write(&path, "[severity]\nCT-BODY-INDENT = \"fatal\"\n").unwrap();
        assert!(load(&path).unwrap_err().contains("fatal"));
    }
}
