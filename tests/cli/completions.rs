//! The checked-in completion scripts and man page must match what the
//! command-line definition generates.

use clap::CommandFactory;
use clap_complete::Shell;

use super::repo;

/// The man page, rendered from the same clap definition as `--help`.
fn man_page() -> Vec<u8> {
    let mut out = Vec::new();
    clap_mangen::Man::new(aiproto::cli::Cli::command())
        .render(&mut out)
        .expect("render man page");
    out
}

#[test]
fn completions_are_up_to_date() {
    let update = std::env::var_os("AIPROTO_UPDATE_COMPLETIONS").is_some();
    let mut stale = Vec::new();
    let shells = [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::Elvish,
        Shell::PowerShell,
    ];
    let scripts = shells.map(|shell| {
        (
            aiproto::cli::completions::file_name(shell),
            aiproto::cli::completions::script(shell),
        )
    });
    for (name, fresh) in scripts.into_iter().chain([("aiproto.1", man_page())]) {
        let path = repo("completions").join(name);
        if update {
            std::fs::write(&path, &fresh).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(fresh.as_slice()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "completion scripts or man page are out of date: {stale:?}\nregenerate them with: AIPROTO_UPDATE_COMPLETIONS=1 cargo test completions_are_up_to_date"
    );
}
