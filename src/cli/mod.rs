//! The command line: arguments (`args`), one module per subcommand, and one dispatch.

mod a2a;
pub mod args;
mod broker;
mod common;
pub mod completions;
mod compose;
mod conformance;
pub mod convert;
mod desk;
mod directory;
mod endpoints;
mod id;
mod inspect;
mod keys;
mod mcp;
mod msp;
mod poll;
mod primer;
mod project_config;
mod recv;
mod relay;
mod report_merge;
mod reports;
mod schema;
mod send;
mod serve;
mod sign;
mod thread;
mod tokens;
mod validate;
mod verify;

pub use args::Cli;
use args::Command;

use clap::ValueEnum;

use crate::exit::CmdResult;

/// Parses a command line. An environment variable that is set but empty
/// (`AIPROTO_EMBEDDING_MODEL_DIR=` in a CI file, an `export X=` left over)
/// counts as unset, as most tools read one, rather than as a flag given no
/// value ("a value is required for '--embedding-model-dir'", exit 2).
pub fn parse(
    args: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>,
) -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    // Each subcommand's arguments are built only when it is the one run
    // (`defer` on the subcommand enums): `--version` or `validate` does not
    // pay for building the 40-odd others. Walking the arguments for empty
    // environment variables needs them all, so it builds the whole tree;
    // that happens only when one of aiproto's own variables is set but empty.
    let mut command = Cli::command();
    let empty_own_variable = std::env::vars_os().any(|(name, value)| {
        value.is_empty() && name.as_encoded_bytes().starts_with(ENV_PREFIX.as_bytes())
    });
    if empty_own_variable {
        command.build();
        command = without_empty_env(command);
    }
    let mut matches = command.try_get_matches_from(args)?;
    Cli::from_arg_matches_mut(&mut matches)
}

/// The prefix of every environment variable an argument reads (a test
/// holds each argument to it).
const ENV_PREFIX: &str = "AIPROTO_";

/// `command` with the environment variables of its arguments, and of its
/// subcommands', that are set but empty no longer read.
fn without_empty_env(command: clap::Command) -> clap::Command {
    let command = command.mut_args(|arg| {
        let empty = arg
            .get_env()
            .and_then(std::env::var_os)
            .is_some_and(|value| value.is_empty());
        if empty { arg.env(None) } else { arg }
    });
    let names: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .collect();
    names.into_iter().fold(command, |command, name| {
        command.mut_subcommand(name, without_empty_env)
    })
}

/// Runs one parsed command line.
pub fn dispatch(cli: &Cli) -> CmdResult {
    let mut global = cli.global.clone();
    global.format = global.format_choice.base();
    if global.format_choice.report().is_some()
        && !matches!(
            cli.command,
            Command::Validate(_) | Command::Verify(_) | Command::Conformance(_)
        )
    {
        return Err(crate::exit::CliError::usage(format!(
            "--format {} is a CI report, which only `validate`, `verify` and `conformance` write (use human or json)",
            global
                .format_choice
                .to_possible_value()
                .map_or_else(String::new, |v| v.get_name().to_string())
        )));
    }
    if global.format_choice == crate::output::FormatChoice::Html
        && !matches!(
            &cli.command,
            Command::Conformance(c) if !matches!(c, args::ConformanceCommand::Vectors(_))
        )
    {
        return Err(crate::exit::CliError::usage(
            "--format html is the page of a graded run, which only `conformance parser|verifier|http|mqtt` write (use human or json)",
        ));
    }
    let g = &global;
    match &cli.command {
        Command::Validate(a) => validate::run(a, g),
        Command::Compose(a) => compose::run(a, g),
        Command::Primer(a) => primer::run(a, g),
        Command::Convert(a) => convert::run(a, g),
        Command::Inspect(a) => inspect::run(a, g),
        Command::Thread(a) => thread::run(a, g),
        Command::Poll(c) => poll::run(c, g),
        Command::Schema(c) => schema::run(c, g),
        Command::Id(a) => id::run(a),
        Command::Send(a) => send::run(a, g),
        Command::Serve(a) => serve::run(a, g),
        Command::Mcp(a) => mcp::run(a),
        Command::A2a(args::A2aCommand::Serve(a)) => a2a::serve(a),
        Command::Desk(a) => desk::run(a, g),
        Command::Recv(a) => recv::run(a, g),
        Command::Request(a) => recv::request(a, g),
        Command::Broker(a) => broker::broker(a, g),
        Command::Relay(a) => relay::run(a, g),
        Command::Directory(a) => directory::run(a, g),
        Command::ClipboardHold => crate::transport::clipboard::hold()
            .map(|()| crate::exit::ExitStatus::Ok)
            .map_err(|e| crate::exit::CliError::new(crate::exit::ExitStatus::Transport, e)),
        Command::Keygen(a) => keys::keygen(a, g),
        Command::Keys(c) => keys::run(c, g),
        Command::Sign(a) => sign::run(a, g),
        Command::Verify(a) => verify::run(a, g),
        Command::Msp(c) => msp::run(c, g),
        Command::Tokens(a) => tokens::run(a, g),
        Command::Config(c) => project_config::run(c, g),
        Command::Conformance(c) => conformance::run(c, g),
        Command::Completions(a) => completions::run(a),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Clap's own consistency checks (clashing flags, bad defaults) on every subcommand.
    #[test]
    fn the_command_line_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }

    /// `parse` looks for empty variables by this prefix alone, so an argument
    /// reading any other variable would see an empty one as a given value.
    #[test]
    fn every_environment_variable_an_argument_reads_has_the_prefix() {
        fn walk(command: &clap::Command, names: &mut Vec<String>) {
            for arg in command.get_arguments() {
                if let Some(name) = arg.get_env() {
                    names.push(name.to_string_lossy().into_owned());
                }
            }
            command.get_subcommands().for_each(|sub| walk(sub, names));
        }
        let mut command = super::Cli::command();
        command.build();
        let mut names = Vec::new();
        walk(&command, &mut names);
        assert!(
            names.len() >= 8,
            "the walk missed the deferred arguments: {names:?}"
        );
        for name in names {
            assert!(name.starts_with(super::ENV_PREFIX), "{name}");
        }
    }
}
