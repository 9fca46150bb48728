//! `aiproto id`: fresh message ids.

use std::io::{BufWriter, Write};

use super::args::IdArgs;
use crate::exit::{CmdResult, ExitStatus};
use crate::ids::{self, IdKind};

pub fn run(args: &IdArgs) -> CmdResult {
    let kind = if args.uuid7 {
        IdKind::UuidV7
    } else {
        IdKind::Ulid
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    for _ in 0..args.count {
        writeln!(out, "{}", ids::new_id(kind))?;
    }
    out.flush()?;
    Ok(ExitStatus::Ok)
}
