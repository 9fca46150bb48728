//! The one reading path, as every face calls it: an input (a file, stdin,
//! the clipboard's text, a face's argument) becomes messages with findings
//! through `reader` — a saved mail decoded, a byte-order mark dropped,
//! UTF-16 and CBP frames read — whole or piece by piece (bounded memory
//! whatever the size). The faces only say what they find.

pub use crate::input::{Input, InputError, Source};
pub use crate::protocols::hsp::{Options as HspOptions, Read as HspRead, read_line as hsp_line};
pub use crate::protocols::seen_ids::{Digests, SeenIds};
pub use crate::reader::pieces::{
    Ahead, Item, PIECE_BYTES, Piece, pieces, pieces_from, pieces_of_whole,
};
pub use crate::reader::{
    Document, NoMessage as WhyNoMessage, hsp_original, no_message_reason, read,
    read_source as source, read_text, why_no_message,
};

use crate::protocols::{Found, ProtocolSpec, ReadOptions};

/// How an input gave no message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoMessage {
    /// Read, and it holds none (NO-MESSAGE, status 1).
    Empty,
    /// A file a walk met that holds none (a README): passed over.
    PassedOver,
    /// Not UTF-8 text (INPUT-NOT-UTF8, status 1).
    NotText,
    /// It cannot be read at all (INPUT-UNREADABLE, status 2).
    Unreadable,
}

impl NoMessage {
    /// The diagnostic code of the finding it is, if it is one.
    pub fn code(self) -> Option<&'static str> {
        match self {
            NoMessage::Empty => Some("NO-MESSAGE"),
            NoMessage::PassedOver => None,
            NoMessage::NotText => Some("INPUT-NOT-UTF8"),
            NoMessage::Unreadable => Some("INPUT-UNREADABLE"),
        }
    }

    fn of(e: &InputError) -> NoMessage {
        match e {
            InputError::NotUtf8 { .. } => NoMessage::NotText,
            _ => NoMessage::Unreadable,
        }
    }
}

/// Reads every input piece by piece and hands each message to `each` with
/// its input's name, in order. An input that gives no message is handed
/// to `no_message` with how and why, and the reading goes on.
pub fn each_message<E>(
    inputs: Vec<Input>,
    protocol: Option<ProtocolSpec>,
    options: &ReadOptions,
    no_message: &mut dyn FnMut(&str, NoMessage, String),
    each: &mut dyn FnMut(&str, &Found) -> Result<(), E>,
) -> Result<(), E> {
    for input in inputs {
        let name = input.name();
        let mut pieces = match pieces(&input, protocol, options, PIECE_BYTES) {
            Ok(pieces) => pieces,
            Err(e) => {
                no_message(&name, NoMessage::of(&e), e.to_string());
                continue;
            }
        };
        let mut any = false;
        let mut outcome = None;
        for item in &mut pieces {
            match item {
                Ok(Item::Piece(piece)) => {
                    for found in &piece.messages {
                        any = true;
                        each(&piece.source.name, found)?;
                    }
                }
                Ok(Item::Skipped(_, why)) => {
                    outcome = Some((NoMessage::PassedOver, why.to_string()));
                    break;
                }
                Err(e) => {
                    outcome = Some((NoMessage::of(&e), e.to_string()));
                    break;
                }
            }
        }
        if outcome.is_none() && !any {
            outcome = Some((NoMessage::Empty, pieces.why_no_message().to_string()));
        }
        if let Some((how, why)) = outcome {
            no_message(&name, how, why);
        }
    }
    Ok(())
}

/// Reads one input piece by piece and hands each piece to `each`, in
/// order. Returns why there was no message when the input held none; a
/// file a walk met without any message (a README) is passed over.
pub fn each_piece<E: From<InputError>>(
    input: &Input,
    protocol: Option<ProtocolSpec>,
    options: &ReadOptions,
    each: &mut dyn FnMut(&Piece) -> Result<(), E>,
) -> Result<Option<String>, E> {
    each_piece_of(input, protocol, options, PIECE_BYTES, each)
}

/// [`each_piece`], with pieces cut from `piece_bytes` on (1: a message
/// at a time, as soon as it is read).
///
/// The pieces are read one ahead
/// ([`Pieces::ahead`](crate::reader::pieces::Pieces::ahead)): the next is
/// read and checked while `each` works on this one.
pub fn each_piece_of<E: From<InputError>>(
    input: &Input,
    protocol: Option<ProtocolSpec>,
    options: &ReadOptions,
    piece_bytes: usize,
    each: &mut dyn FnMut(&Piece) -> Result<(), E>,
) -> Result<Option<String>, E> {
    let mut pieces = pieces(input, protocol, options, piece_bytes)?.ahead()?;
    let mut any = false;
    for item in &mut pieces {
        let Item::Piece(piece) = item? else {
            return Ok(None);
        };
        any |= !piece.messages.is_empty();
        each(&piece)?;
    }
    Ok((!any).then(|| pieces.read_through().why_no_message().to_string()))
}

/// Why one input could not be read into messages.
#[derive(Debug, thiserror::Error)]
pub enum ReadOneError {
    #[error(transparent)]
    Input(#[from] InputError),
    /// It was read and holds no message: its name, and why.
    #[error("{0}: {1}")]
    NoMessage(String, String),
}

/// Reads the one input a command works on, whole; an input without any
/// message is an error.
pub fn one(input: &Input) -> Result<Document, ReadOneError> {
    let doc = read(input, None, &ReadOptions::default())?;
    if doc.messages.is_empty() {
        let why = no_message_reason(&doc.source.text);
        return Err(ReadOneError::NoMessage(doc.source.name, why));
    }
    Ok(doc)
}
