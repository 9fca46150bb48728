//! `aiproto id`: fresh message ids, or fresh ids for the envelopes of a
//! text (`--reissue`).

use std::io::{BufWriter, Write};

use super::args::IdArgs;
use super::common;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::ids::{self, IdKind};
use crate::protocols::crosstalk;

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
    let source = crate::reader::read_text(&common::input_of(Some(path))?)?;
    let envelopes = crosstalk::parse_all(&source.text);
    if envelopes.is_empty() {
        return Err(CliError::new(
            ExitStatus::Invalid,
            anyhow::anyhow!("{}: no Crosstalk envelope to give a fresh id", source.name),
        ));
    }
    let mut out = String::new();
    for parsed in &envelopes {
        let line = parsed.start_line;
        if !parsed.complete {
            return Err(CliError::new(
                ExitStatus::Invalid,
                anyhow::anyhow!(
                    "{}:{line}: the envelope was cut off before its [[END]] line; copy it whole",
                    source.name
                ),
            ));
        }
        if parsed.envelope.sig.as_deref().is_some_and(|s| s != "none") {
            return Err(CliError::new(
                ExitStatus::Invalid,
                anyhow::anyhow!(
                    "{}:{line}: the envelope is signed, and its signature covers its id: remove the signature, give it a fresh id, then sign it again",
                    source.name
                ),
            ));
        }
        let mut envelope = parsed.envelope.clone();
        let fresh = ids::new_id(kind);
        eprintln!(
            "aiproto: {}:{line}: message {} is now {fresh}",
            source.name,
            envelope.message.as_deref().unwrap_or("(none)")
        );
        envelope.message = Some(fresh);
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&crosstalk::render(&envelope));
    }
    // What is printed must validate as it stands.
    let checked = crosstalk::read(&out, chrono::Utc::now(), usize::MAX);
    if let Some(bad) = checked
        .iter()
        .find(|p| p.diagnostics.iter().any(|d| d.is_error()))
    {
        let why: Vec<String> = bad
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("[{}] {}", d.code, d.message))
            .collect();
        return Err(CliError::new(
            ExitStatus::Invalid,
            anyhow::anyhow!(
                "{}: with a fresh id, the envelope is still invalid: {}",
                source.name,
                why.join("; ")
            ),
        ));
    }
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(ExitStatus::Ok)
}
