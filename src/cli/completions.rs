//! `aiproto completions`: shell completion scripts, generated from the same
//! clap definition as the help (the files in `completions/` come from here).

use clap::CommandFactory;

use super::args::{Cli, CompletionsArgs};
use crate::exit::{CmdResult, ExitStatus};

/// The completion script for one shell.
pub fn script(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "aiproto", &mut out);
    out
}

/// The file name a shell's script is checked in under, in `completions/`.
pub fn file_name(shell: clap_complete::Shell) -> &'static str {
    use clap_complete::Shell::*;
    match shell {
        Bash => "aiproto.bash",
        Zsh => "_aiproto",
        Fish => "aiproto.fish",
        Elvish => "aiproto.elv",
        PowerShell => "_aiproto.ps1",
        _ => "aiproto.unknown",
    }
}

pub fn run(args: &CompletionsArgs) -> CmdResult {
    use std::io::Write;
    std::io::stdout().lock().write_all(&script(args.shell))?;
    Ok(ExitStatus::Ok)
}
