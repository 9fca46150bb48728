//! Where aiproto keeps what is the user's own: keys, the credentials file,
//! the MSP configuration.

use std::path::PathBuf;

/// The environment variable naming that directory (listed in docs/commands.md).
pub const HOME_ENV: &str = "AIPROTO_HOME";

/// `AIPROTO_HOME`, else the platform config directory
/// (`$XDG_CONFIG_HOME/aiproto` or `~/.config/aiproto`).
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
