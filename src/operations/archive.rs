//! The archive: its text for the operations that read it, and the
//! idempotent append of whole, valid messages.

use std::path::Path;

use serde_json::{Value, json};

use super::{Context, OpError, OpResult};
use crate::delivery::archive;
use crate::diag;
use crate::input::{Input, Source};
use crate::reader::Document;
use crate::records::validate::ValidateRecord;

/// The archive's text (empty while it does not exist yet), within the size limit.
pub fn archive_source(ctx: &Context, archive: &Path) -> Result<Source, OpError> {
    let name = archive.display().to_string();
    match std::fs::metadata(archive) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Source {
                name,
                text: String::new(),
            });
        }
        Ok(meta) if meta.len() > ctx.max_bytes as u64 => {
            return Err(OpError::new(format!(
                "{name}: {} bytes, over this server's limit of {} (--max-bytes)",
                meta.len(),
                ctx.max_bytes
            )));
        }
        _ => {}
    }
    Input::File(archive.to_path_buf())
        .read()
        .map_err(|e| OpError::new(e.to_string()))
}

/// Appends the messages of `doc` to the archive at `path`, each once (a
/// message already there is reported, not written again), after
/// [`refuse_unsendable`].
pub fn append_checked(path: &Path, doc: Document) -> OpResult {
    refuse_unsendable(&doc)?;
    let count = doc.messages.len();
    let appended = archive::append(path, &[Input::Text(doc.source)])
        .map_err(|e| OpError::new(e.to_string()))?;
    let repeats: Vec<Value> = appended
        .repeats
        .iter()
        .map(|(id, line)| json!({ "id": id, "line": line }))
        .collect();
    Ok(json!({
        "archive": path.display().to_string(),
        "messages": count,
        "appended": appended.written,
        "already_there": repeats,
    }))
}

/// Nothing is sent unless every message may be: each whole (an envelope
/// cut off before `[[END]]` is not) and valid.
pub fn refuse_unsendable(doc: &Document) -> Result<(), OpError> {
    let name = doc.source.name.as_str();
    if doc.messages.is_empty() {
        return Err(OpError::new(format!(
            "{name}: {}",
            crate::reader::no_message_reason(&doc.source.text)
        )));
    }
    let bad = doc
        .messages
        .iter()
        .find(|f| !f.is_complete() || !f.is_valid(false));
    let Some(bad) = bad else { return Ok(()) };
    let why = if bad.is_complete() {
        "the message is invalid"
    } else {
        "the envelope was cut off before its [[END]] line"
    };
    let records: Vec<Value> = doc
        .messages
        .iter()
        .map(|found| {
            let (errors, warnings) = diag::partition(&found.diagnostics, false);
            serde_json::to_value(ValidateRecord::message(name, found, errors, warnings, None))
                .unwrap_or(Value::Null)
        })
        .collect();
    Err(OpError {
        message: format!("{name}:{}: {why}; nothing sent", bad.line),
        details: Some(json!({ "messages": records })),
    })
}
