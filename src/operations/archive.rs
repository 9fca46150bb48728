//! The archive: its text for the operations that read it, and the
//! idempotent append of whole, valid messages.

use std::path::Path;

use serde_json::{Value, json};

use super::sending::unsendable;
use super::{Context, OpError, OpResult};
use crate::delivery::archive;
use crate::diag;
use crate::input::{Input, Source};
use crate::reader::Document;
use crate::records::validate::ValidateRecord;

/// The archive's text (empty while it does not exist yet), whatever its
/// size: `--max-bytes` bounds what a page or an assistant hands over, not
/// the person's own archive, which grows with every message kept (an
/// archive that opened at 1 MB still opens at 2).
pub fn archive_source(_ctx: &Context, archive: &Path) -> Result<Source, OpError> {
    let name = archive.display().to_string();
    if let Err(e) = std::fs::metadata(archive)
        && e.kind() == std::io::ErrorKind::NotFound
    {
        return Ok(Source {
            name,
            text: String::new(),
        });
    }
    Input::File(archive.to_path_buf())
        .read()
        .map_err(|e| OpError::new(e.to_string()))
}

/// The first message with this id in the archive, and its line: read
/// piece by piece (memory bounded whatever the archive's size).
pub fn archived_message(archive: &Path, id: &str) -> Result<Option<(usize, String)>, OpError> {
    use crate::reader::pieces::{self, Item};
    if !archive.exists() {
        return Ok(None);
    }
    let input = Input::File(archive.to_path_buf());
    let options = crate::protocols::ReadOptions::default();
    let all = pieces::pieces(&input, None, &options, pieces::PIECE_BYTES)
        .map_err(|e| OpError::new(e.to_string()))?;
    for item in all {
        match item.map_err(|e| OpError::new(e.to_string()))? {
            Item::Piece(piece) => {
                if let Some(found) = piece.messages.iter().find(|f| f.id() == Some(id)) {
                    let text = found.written(&piece.source.text).ok_or_else(|| {
                        OpError::new(format!("message {id} cannot be written back"))
                    })?;
                    return Ok(Some((found.line, text)));
                }
            }
            Item::Skipped(..) => break,
        }
    }
    Ok(None)
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
    let Some((bad, why)) = doc
        .messages
        .iter()
        .find_map(|f| unsendable(f, false).map(|why| (f, why)))
    else {
        return Ok(());
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
        message: format!("{name}:{}: {}; nothing sent", bad.line, why.describe()),
        details: Some(json!({ "messages": records })),
    })
}
