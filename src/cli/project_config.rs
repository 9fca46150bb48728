//! `aiproto config show`: the project settings in force, and where each came from.

use std::io::Write;

use serde_json::{Value, json};

use super::args::{ConfigCommand, GlobalArgs};
use super::validate::settings::{DEFAULT_MAX_FINDINGS, project_of};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::output::{self, Format};
use crate::project::schemas::Target;

pub fn run(command: &ConfigCommand, g: &GlobalArgs) -> CmdResult {
    let ConfigCommand::Show { config, no_config } = command;
    let project = project_of(config.as_deref(), *no_config)?;
    let policy = match &project {
        Some(p) => p.severity_policy().map_err(CliError::usage)?,
        None => Default::default(),
    };
    // Compiled, so that a broken schema shows here as it would in a run.
    let schemas = match &project {
        Some(p) => p.schemas().map_err(CliError::usage)?,
        None => Vec::new(),
    };
    let origin = project
        .as_ref()
        .map_or_else(String::new, |p| p.path.display().to_string());
    let file = project
        .as_ref()
        .map(|p| p.file.validate.clone())
        .unwrap_or_default();
    // (key, value, from): a value the file gives, else the default.
    let from = |given: bool| {
        if given {
            origin.clone()
        } else {
            "default".to_string()
        }
    };
    let settings: Vec<(&str, Value, String)> = vec![
        ("glob", json!(file.glob), from(!file.glob.is_empty())),
        (
            "exclude",
            json!(file.exclude),
            from(!file.exclude.is_empty()),
        ),
        (
            "strict",
            json!(file.strict.unwrap_or(false)),
            from(file.strict.is_some()),
        ),
        (
            "lenient",
            json!(file.lenient.unwrap_or(false)),
            from(file.lenient.is_some()),
        ),
        (
            "max-findings",
            json!(file.max_findings.unwrap_or(DEFAULT_MAX_FINDINGS)),
            from(file.max_findings.is_some()),
        ),
        (
            "skip-non-messages",
            json!(file.skip_non_messages.unwrap_or(false)),
            from(file.skip_non_messages.is_some()),
        ),
        (
            "no-ignore",
            json!(file.no_ignore.unwrap_or(false)),
            from(file.no_ignore.is_some()),
        ),
        (
            "hidden",
            json!(file.hidden.unwrap_or(false)),
            from(file.hidden.is_some()),
        ),
    ];
    let mut out = std::io::stdout().lock();
    match g.format {
        Format::Json => {
            let validate: serde_json::Map<String, Value> = settings
                .iter()
                .map(|(k, v, from)| ((*k).to_string(), json!({"value": v, "from": from})))
                .collect();
            let report = json!({
                "project_file": project.as_ref().map(|p| p.path.display().to_string()),
                "validate": validate,
                "severity": policy.rules(),
                "schemas": schemas
                    .iter()
                    .map(|s| json!({"checks": s.target.to_string(), "schema": s.file}))
                    .collect::<Vec<_>>(),
            });
            output::write_json_line(&mut out, &report)?;
        }
        Format::Human => {
            match &project {
                Some(p) => writeln!(out, "project file: {}", p.path.display())?,
                None if *no_config => writeln!(out, "project file: none (--no-config)")?,
                None => writeln!(
                    out,
                    "project file: none (no aiproto.toml here or in a directory above)"
                )?,
            }
            writeln!(out, "[validate]")?;
            for (key, value, from) in &settings {
                writeln!(out, "{:<28} # {from}", format!("{key} = {value}"))?;
            }
            writeln!(out, "[severity]")?;
            if policy.is_empty() {
                writeln!(out, "# none: every code at its own severity")?;
            }
            for rule in policy.rules() {
                writeln!(
                    out,
                    "{:<28} # {}",
                    format!("{} = \"{}\"", rule.code, rule.level),
                    rule.origin
                )?;
            }
            writeln!(out, "[[schema]]")?;
            if schemas.is_empty() {
                writeln!(out, "# none: only the protocols' own rules")?;
            }
            for schema in &schemas {
                let required = match schema.target {
                    Target::CrosstalkMeta { required: true, .. } => " (required)",
                    _ => "",
                };
                writeln!(out, "{}{required}: {}", schema.target, schema.file)?;
            }
        }
    }
    Ok(ExitStatus::Ok)
}
