//! One message converted on its own, or refused with the reason: what
//! every face does before it writes a conversion.

use super::{Converted, WriteOptions, convert, refusal};
use crate::protocols::{Found, ProtocolSpec, ReadOptions};

/// What becomes of one message.
pub enum Attempt {
    Converted(Converted),
    /// Not converted, and why (an error).
    Refused(String),
    /// Nothing to write (a message the target has no form for).
    Nothing,
}

/// Converts a message of the input `name` to `target`: an invalid message,
/// or one the target would refuse (too large, say), is not converted.
pub fn attempt(
    found: &Found,
    target: ProtocolSpec,
    options: WriteOptions,
    read_options: &ReadOptions,
    name: &str,
) -> Attempt {
    if !found.is_valid(false) {
        let first = found.diagnostics.iter().find(|d| d.is_error());
        let why = first.map_or_else(String::new, |d| {
            format!("{}:{}: {}; ", d.line, d.column, d.message)
        });
        return Attempt::Refused(format!(
            "message is invalid, not converted ({why}see `aiproto validate {name}`)"
        ));
    }
    let Some(converted) = convert(found, target, options) else {
        return Attempt::Nothing;
    };
    match refusal(&converted, target.protocol, read_options) {
        Some(why) => Attempt::Refused(format!(
            "cannot be written as {}: {why}; not converted",
            target.protocol
        )),
        None => Attempt::Converted(converted),
    }
}
