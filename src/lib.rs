//! aiproto: compose, validate, convert and send AI-agent protocol messages.
//!
//! Readers → one model → writers: each protocol in [`protocols`] reads its
//! wire form into a typed value, checks it, and maps it to and from the
//! shared [`model::Message`]. The command line in [`cli`], the MCP server
//! in [`mcp`] and the browser desk in [`desk`] are three faces over this
//! library, writing the same JSON records ([`records`]); what the last two
//! both call is in [`operations`]. [`run`] is the whole program.

pub mod a2a_errors;
pub mod bridge;
pub mod chars;
pub mod cli;
pub mod config;
pub mod conformance;
pub mod convert;
pub mod delivery;
pub mod desk;
pub mod diag;
pub mod exit;
pub mod fuzzing;
pub mod home;
pub mod ids;
pub mod input;
pub mod json_locate;
pub mod mcp;
pub mod model;
pub mod mqtt_topic;
pub mod operations;
pub mod output;
pub mod parallel;
pub mod path_names;
pub mod poll;
pub mod project;
#[cfg(test)]
pub mod proptest_config;
pub mod prose;
pub mod protocols;
pub mod reader;
pub mod records;
pub mod report;
pub mod schemas;
pub mod sign;
pub mod splice;
pub mod stream;
pub mod thread;
pub mod tokens;
pub mod transport;

use std::ffi::OsString;
use std::io::Write;

use exit::ExitStatus;

/// Runs aiproto with these arguments; returns the process exit code.
/// Errors are printed once, as `aiproto: error: …` with an optional hint;
/// a closed stdout (`aiproto … | head`) ends the program quietly with 0.
pub fn run(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> u8 {
    let cli = match cli::parse(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitStatus::Usage.code()
            } else {
                ExitStatus::Ok.code()
            };
        }
    };
    match cli::dispatch(&cli) {
        Ok(status) => status.code(),
        Err(e) if is_broken_pipe(&e.error) => ExitStatus::Ok.code(),
        Err(e) => {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "aiproto: error: {:#}", e.error);
            if let Some(hint) = &e.hint {
                let _ = writeln!(err, "hint: {hint}");
            }
            e.status.code()
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<std::io::Error>())
        .any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}
