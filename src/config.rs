//! The settings file, `config.toml` in the aiproto home (`AIPROTO_HOME`,
//! else `~/.config/aiproto`). Only the `[msp]` table exists so far; a
//! missing file is an empty one, and an unknown key is an error (a typo
//! should not silently fall back to a default).

use std::path::PathBuf;

use serde::Deserialize;

/// Which MSP backend encodes and judges (`--backend`, `[msp] backend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// No network: rules and the offline judge.
    Offline,
    /// An OpenAI-compatible server.
    Openai,
    /// Groq's OpenAI-compatible API.
    Groq,
}

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub msp: MspConfig,
}

/// `[msp]`: the same settings as the `aiproto msp` flags.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MspConfig {
    pub backend: Option<BackendKind>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub embedding_model: Option<String>,
    pub embedding_model_dir: Option<PathBuf>,
    pub rpm: Option<u32>,
    pub timeout: Option<f64>,
    pub retries: Option<u32>,
    pub threshold: Option<f64>,
    pub style: Option<String>,
}

/// Why the file could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {why}")]
pub struct ConfigError {
    pub path: String,
    pub why: String,
}

/// The path of the file, when there is a home.
pub fn path() -> Option<PathBuf> {
    crate::sign::keystore::home().map(|h| h.join("config.toml"))
}

/// Reads the file (an empty config when there is none).
pub fn load() -> Result<Config, ConfigError> {
    let Some(path) = path() else {
        return Ok(Config::default());
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(e) => {
            return Err(ConfigError {
                path: path.display().to_string(),
                why: e.to_string(),
            });
        }
    };
    parse(&text).map_err(|why| ConfigError {
        path: path.display().to_string(),
        why,
    })
}

/// Parses a config text; the error names the line and column.
pub fn parse(text: &str) -> Result<Config, String> {
    parse_toml(text)
}

/// Parses any TOML settings text; the error names the line and column.
pub fn parse_toml<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    toml::from_str(text).map_err(|e| {
        let place = e.span().map(|span| {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: ")
        });
        format!("{}{}", place.unwrap_or_default(), e.message())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_msp_table() {
        let c = parse("[msp]\nbackend = \"groq\"\nrpm = 10\nthreshold = 0.7\n").unwrap();
        assert_eq!(c.msp.backend, Some(BackendKind::Groq));
        assert_eq!(c.msp.rpm, Some(10));
        assert!(parse("").unwrap().msp.model.is_none());
    }

    #[test]
    fn typos_are_errors_with_a_place() {
        let e = parse("[msp]\nrmp = 10\n").unwrap_err();
        assert!(e.starts_with("line 2, column 1: "), "{e}");
        assert!(e.contains("rmp"), "{e}");
    }
}
