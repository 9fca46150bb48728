//! The command line: arguments (`args`), one module per subcommand, and one dispatch.

pub mod args;
mod common;
pub mod completions;
mod compose;
pub mod convert;
mod id;
mod inspect;
mod poll;
mod schema;
mod send;
mod thread;
mod validate;

pub use args::Cli;
use args::Command;

use crate::exit::CmdResult;

/// Runs one parsed command line.
pub fn dispatch(cli: &Cli) -> CmdResult {
    let g = &cli.global;
    match &cli.command {
        Command::Validate(a) => validate::run(a, g),
        Command::Compose(a) => compose::run(a, g),
        Command::Convert(a) => convert::run(a, g),
        Command::Inspect(a) => inspect::run(a, g),
        Command::Thread(a) => thread::run(a, g),
        Command::Poll(c) => poll::run(c, g),
        Command::Schema(c) => schema::run(c, g),
        Command::Id(a) => id::run(a),
        Command::Send(a) => send::run(a, g),
        Command::Completions(a) => completions::run(a),
    }
}
