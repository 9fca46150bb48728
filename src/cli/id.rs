//! `aiproto id`: fresh message ids, or fresh ids for the envelopes of a
//! text (`--reissue`).

use std::io::{BufWriter, Write};

use super::args::IdArgs;
use super::common;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::ids::{self, IdKind};
use crate::operations::composing::{self, ReissueError};
use crate::operations::read;

pub fn run(args: &IdArgs) -> CmdResult {
    let kind = if args.uuid7 {
        IdKind::UuidV7
    } else {
        IdKind::Ulid
    };
    if let Some(path) = &args.reissue {
        return reissue(path, kind);
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    for _ in 0..args.count {
        writeln!(out, "{}", ids::new_id(kind))?;
    }
    out.flush()?;
    Ok(ExitStatus::Ok)
}

/// Each envelope of the text with a fresh `message` id (thread and parent
/// kept), validated; all or nothing.
fn reissue(path: &std::path::Path, kind: IdKind) -> CmdResult {
    let source = read::read_text(&common::input_of(Some(path))?)?;
    let name = &source.name;
    let reissued = composing::reissue(&source.text, kind).map_err(|e| {
        let at = if matches!(e, ReissueError::CutOff { .. } | ReissueError::Signed { .. }) {
            ":"
        } else {
            ": "
        };
        CliError::new(ExitStatus::Invalid, anyhow::anyhow!("{name}{at}{e}"))
    })?;
    for (line, old, new) in &reissued.changes {
        eprintln!(
            "aiproto: {name}:{line}: message {} is now {new}",
            old.as_deref().unwrap_or("(none)")
        );
    }
    std::io::stdout()
        .lock()
        .write_all(reissued.text.as_bytes())?;
    Ok(ExitStatus::Ok)
}
