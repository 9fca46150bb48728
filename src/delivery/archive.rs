//! A `.crosstalk` (or JSON Lines) archive that holds each message once:
//! appending a message already there adds nothing, and the same id on
//! other content is refused.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::input::{Input, InputError};
use crate::protocols::{Found, ReadOptions};
use crate::reader::pieces::{self, Piece};
use crate::transport::file::LockedAppend;

/// What an append did.
#[derive(Debug, Default)]
pub struct Appended {
    /// How many messages were written.
    pub written: usize,
    /// Messages already in the archive with the same content: (id, line there).
    pub repeats: Vec<(String, usize)>,
}

/// Why nothing was appended.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("cannot write {}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(
        "{source_name}: message {id} is already in {} (line {line}) with different content; nothing written. \
         The archived one came first under that id; this is another message under the same id. \
         If it is a new message (an assistant reused or invented an id), give it a fresh id \
         (`aiproto id --reissue FILE`) and send it again; if the archived one is wrong (aiproto's primer \
         example, archived by an older version), remove it from the archive first",
        archive.display()
    )]
    Conflict {
        source_name: String,
        id: String,
        archive: PathBuf,
        line: usize,
    },
}

/// Appends the messages of `inputs` that the archive does not hold yet, in
/// canonical form. A message whose id is already there with the same
/// content is not appended again (a repeated send of the same reply adds
/// nothing); the same id on other content is refused, and then nothing is
/// written.
///
/// Under the archive's lock, three steps read piece by piece: the archive
/// (each id with a digest of its message: memory grows with the number of
/// ids, not their size), the inputs (what to append), the inputs again (the
/// appending). Each input is read more than once: a spooled stdin, not stdin.
pub fn append(path: &Path, inputs: &[Input]) -> Result<Appended, ArchiveError> {
    let cannot = |error: std::io::Error| ArchiveError::Io {
        path: path.to_path_buf(),
        error,
    };
    let mut locked = LockedAppend::open(path).map_err(cannot)?;
    // Read through another handle: the lock is advisory, and ours.
    let archived = Input::File(path.to_path_buf());
    let mut by_id: HashMap<String, ([u8; 32], usize)> = HashMap::new();
    each_piece(&archived, &mut |piece| {
        for (found, text) in written(piece) {
            if let Some(id) = found.id() {
                let (key, digest) = super::same_message::keyed(id, &text);
                by_id.insert(key, (digest, found.line));
            }
        }
    })?;
    // Which messages to append (one flag per message written, in order).
    let mut chosen = Vec::new();
    let mut appended = Appended::default();
    let mut conflict = None;
    for input in inputs {
        each_piece(input, &mut |piece| {
            for (found, text) in written(piece) {
                let Some(id) = found.id() else {
                    chosen.push(true);
                    continue;
                };
                let (key, digest) = super::same_message::keyed(id, &text);
                match by_id.get(&key) {
                    Some((same, line)) if *same == digest => {
                        appended.repeats.push((id.to_string(), *line));
                        chosen.push(false);
                    }
                    Some((_, line)) => {
                        conflict.get_or_insert((input.name(), id.to_string(), *line));
                        chosen.push(false);
                    }
                    None => {
                        by_id.insert(key, (digest, found.line));
                        chosen.push(true);
                    }
                }
            }
        })?;
    }
    if let Some((source_name, id, line)) = conflict {
        return Err(ArchiveError::Conflict {
            source_name,
            id,
            archive: path.to_path_buf(),
            line,
        });
    }
    drop(by_id);
    let mut flags = chosen.iter();
    let mut failed = None;
    for input in inputs {
        each_piece(input, &mut |piece| {
            for (found, text) in written(piece) {
                if flags.next() == Some(&true) && failed.is_none() {
                    let envelope = found.protocol == crate::protocols::Protocol::Crosstalk;
                    match locked.append(&text, envelope) {
                        Ok(()) => appended.written += 1,
                        Err(e) => failed = Some(e),
                    }
                }
            }
        })?;
    }
    if let Some(e) = failed {
        return Err(cannot(e));
    }
    locked.finish().map_err(cannot)?;
    Ok(appended)
}

/// A piece's messages as their senders wrote them ([`Found::written`]):
/// JSON tokens as written, envelopes in canonical form (LF, no quote prefix
/// or fence).
fn written(piece: &Piece) -> impl Iterator<Item = (&Found, String)> {
    let source = piece.source.text.as_str();
    piece
        .messages
        .iter()
        .filter_map(move |f| Some((f, f.written(source)?)))
}

fn each_piece(input: &Input, each: &mut dyn FnMut(&Piece)) -> Result<(), InputError> {
    let mut all = pieces::pieces(input, None, &ReadOptions::default(), pieces::PIECE_BYTES)?;
    for item in &mut all {
        if let pieces::Item::Piece(piece) = item? {
            each(&piece);
        }
    }
    Ok(())
}
