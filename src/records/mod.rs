//! The JSON records of `--format json`: one shape per command, written by
//! every face of the library (the command line, the MCP server), so a
//! program reading one reads the other.

pub mod convert;
pub mod inspect;
pub mod thread;
pub mod validate;
pub mod verify;
