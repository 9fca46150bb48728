//! The checked-in completion scripts must match what the binary generates.

use clap_complete::Shell;

use super::repo;

#[test]
fn completions_are_up_to_date() {
    let update = std::env::var_os("AIPROTO_UPDATE_COMPLETIONS").is_some();
    let mut stale = Vec::new();
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::Elvish,
        Shell::PowerShell,
    ] {
        let path = repo("completions").join(aiproto::cli::completions::file_name(shell));
        let fresh = aiproto::cli::completions::script(shell);
        if update {
            std::fs::write(&path, &fresh).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(fresh.as_slice()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "completion scripts are out of date: {stale:?}\nregenerate them with: AIPROTO_UPDATE_COMPLETIONS=1 cargo test completions_are_up_to_date"
    );
}
