//! What a `validate` run does: its flags over the project's `aiproto.toml`
//! over the defaults.

use crate::cli::args::{InputArgs, ValidateArgs};
use crate::diag::policy::{Level, SeverityPolicy};
use crate::exit::CliError;
use crate::project::checks::ProjectChecks;
use crate::project::{self, Project};

/// `--max-findings` when neither the flag nor the file gives it.
pub const DEFAULT_MAX_FINDINGS: usize = 50;

/// The settings in force for one run.
pub struct Settings {
    /// The inputs, with the project's globs and excludes added to the flags'.
    pub input: InputArgs,
    pub strict: bool,
    pub lenient: bool,
    pub max_findings: usize,
    pub policy: SeverityPolicy,
    /// The project's own schemas (`[[schema]]`), compiled.
    pub project_checks: ProjectChecks,
}

/// The project file a run uses: `--config`, else the nearest `aiproto.toml`
/// (none with `--no-config`).
pub fn project_of(
    config: Option<&std::path::Path>,
    no_config: bool,
) -> Result<Option<Project>, CliError> {
    if no_config {
        return Ok(None);
    }
    let path = match config {
        Some(path) => Some(path.to_path_buf()),
        None => std::env::current_dir()
            .ok()
            .and_then(|cwd| project::find(&cwd)),
    };
    path.map(|p| project::load(&p).map_err(CliError::usage))
        .transpose()
}

/// Flags first, then the file, then the defaults.
pub fn resolve(args: &ValidateArgs) -> Result<Settings, CliError> {
    let project = project_of(args.config.as_deref(), args.no_config)?;
    let file = project
        .as_ref()
        .map(|p| p.file.validate.clone())
        .unwrap_or_default();
    let schemas = match &project {
        Some(p) => p.schemas().map_err(CliError::usage)?,
        None => Vec::new(),
    };
    let mut policy = match &project {
        Some(p) => p.severity_policy().map_err(CliError::usage)?,
        None => SeverityPolicy::default(),
    };
    for (codes, level, flag) in [
        (&args.as_error, Level::Error, "--error"),
        (&args.as_warning, Level::Warning, "--warn"),
        (&args.ignored, Level::Off, "--ignore"),
    ] {
        for code in codes {
            policy
                .add(code, level, flag, true)
                .map_err(|why| CliError::usage(format!("{flag}: {why}")))?;
        }
    }
    let mut input = args.input.clone();
    input.globs.extend(file.glob);
    input.excludes.extend(file.exclude);
    input.skip_non_messages |= file.skip_non_messages.unwrap_or(false);
    input.no_ignore |= file.no_ignore.unwrap_or(false);
    input.hidden |= file.hidden.unwrap_or(false);
    // A flag given wins over the file; --lenient and --strict exclude each other.
    let lenient = args.lenient || (!args.strict && file.lenient.unwrap_or(false));
    let strict = args.strict || (!args.lenient && file.strict.unwrap_or(false));
    if strict && lenient {
        return Err(CliError::usage(
            "aiproto.toml sets both strict and lenient; they exclude each other",
        ));
    }
    Ok(Settings {
        input,
        strict,
        lenient,
        max_findings: args
            .max_findings
            .or(file.max_findings)
            .unwrap_or(DEFAULT_MAX_FINDINGS),
        policy,
        project_checks: ProjectChecks::new(schemas),
    })
}
