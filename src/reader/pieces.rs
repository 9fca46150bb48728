//! Reading an input piece by piece in bounded memory, with the same
//! messages and findings as reading it whole: HSP JSON Lines in batches of
//! lines, Crosstalk text in pieces cut only where no envelope is open (so
//! each envelope is read from one piece), and anything else whole.
//!
//! Memory is bounded by the piece size and the largest message; a piece's
//! messages are placed in the input's line numbering.

use std::io::BufRead;

use super::{Document, NoMessage};
use crate::chars;
use crate::diag::{Diagnostic, Pos};
use crate::input::{self, Input, InputError, Source};
use crate::protocols::crosstalk::extract;
use crate::protocols::{Found, Protocol, ProtocolSpec, ReadOptions, hsp};
use crate::stream::LineReader;

/// The size a piece grows to before it is cut (where a cut is allowed).
pub const PIECE_BYTES: usize = 1 << 18;

/// One piece of an input: its text, and the messages in it, numbered as
/// in the whole input.
#[derive(Debug)]
pub struct Piece {
    /// The input's name and the piece's text.
    pub source: Source,
    /// Lines of the input before the piece: the piece's line `n` is the
    /// input's line `first_line + n`.
    pub first_line: usize,
    pub messages: Vec<Found>,
}

/// What reading an input gives, piece by piece.
pub enum Item {
    Piece(Piece),
    /// A file a walk found that holds no message (a README): passed over.
    Skipped(Source, NoMessage),
}

/// Reads `input` piece by piece; see the module's documentation.
pub fn pieces(
    input: &Input,
    forced: Option<ProtocolSpec>,
    options: &ReadOptions,
    piece_bytes: usize,
) -> Result<Pieces, InputError> {
    let reader = match input {
        Input::Text(_) => None,
        _ => Some(input.open()?),
    };
    pieces_from(input, reader, forced, options, piece_bytes)
}

/// [`pieces`] of an input already opened (`None` for text in memory).
pub fn pieces_from(
    input: &Input,
    reader: Option<Box<dyn BufRead + Send>>,
    forced: Option<ProtocolSpec>,
    options: &ReadOptions,
    piece_bytes: usize,
) -> Result<Pieces, InputError> {
    pieces_opened(input, reader, forced, options, piece_bytes, false)
}

/// [`pieces`] of an input already read whole (a small file, `bytes`): one
/// JSON line alone is a document, not a stream of one record (told
/// without parsing the line).
pub fn pieces_of_whole(
    input: &Input,
    bytes: Vec<u8>,
    forced: Option<ProtocolSpec>,
    options: &ReadOptions,
    piece_bytes: usize,
) -> Result<Pieces, InputError> {
    let reader: Box<dyn BufRead + Send> = Box::new(std::io::Cursor::new(bytes));
    pieces_opened(input, Some(reader), forced, options, piece_bytes, true)
}

/// [`pieces_from`]; `whole`: the reader holds the whole input, in one
/// buffer (its first `fill_buf` gives all of it).
fn pieces_opened(
    input: &Input,
    reader: Option<Box<dyn BufRead + Send>>,
    forced: Option<ProtocolSpec>,
    options: &ReadOptions,
    piece_bytes: usize,
    whole: bool,
) -> Result<Pieces, InputError> {
    let name = input.name();
    let Some(mut reader) = reader else {
        return Ok(Pieces::new(
            input,
            forced,
            options,
            piece_bytes,
            Mode::Whole(None),
            false,
        ));
    };
    let head = fill(&mut reader, &name)?;
    let bom = head.starts_with(chars::BOM.to_string().as_bytes());
    let head_text = match std::str::from_utf8(head) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(head),
    };
    let json = looks_like_json(&head_text);
    let forced_protocol = forced.map(|s| s.protocol);
    // A saved mail is read whole, so that its encoded body can be decoded;
    // so is a UTF-16 file (its lines do not end in a lone newline byte).
    let mail = super::mail::needs_decoding(&head_text);
    let utf16 = input::utf16_bom(head);
    // CBP frames are binary: read whole, and decoded into their messages.
    let frames = crate::protocols::csdl::upstream::cbp::is_cbp(head);
    let mode = if mail || utf16.is_some() || frames {
        Mode::Whole(Some(reader))
    } else if json
        && matches!(forced_protocol, None | Some(Protocol::Hsp))
        && if whole {
            crate::stream::is_hsp_json_lines(head)
        } else {
            crate::stream::looks_like_hsp_json_lines(head)
        }
    {
        Mode::HspLines(LineReader::new(reader, options.max_message_bytes))
    } else if !json && matches!(forced_protocol, None | Some(Protocol::Crosstalk)) {
        Mode::Crosstalk(CrosstalkCut::new(reader))
    } else {
        Mode::Whole(Some(reader))
    };
    let mut pieces = Pieces::new(input, forced, options, piece_bytes, mode, bom);
    pieces.utf16 = utf16;
    Ok(pieces)
}

/// Whether the start of an input is JSON (a byte-order mark before it allowed).
fn looks_like_json(head: &str) -> bool {
    crate::protocols::json_doc::starts_like_json(head.trim_start_matches(chars::BOM))
}

fn fill<'r>(reader: &'r mut Box<dyn BufRead + Send>, name: &str) -> Result<&'r [u8], InputError> {
    reader.fill_buf().map_err(|error| InputError::Io {
        path: name.to_string(),
        error,
    })
}

enum Mode {
    /// Read whole: from the open reader, or the input's text in memory.
    Whole(Option<Box<dyn BufRead + Send>>),
    HspLines(LineReader<Box<dyn BufRead + Send>>),
    Crosstalk(CrosstalkCut),
}

/// The pieces of one input, in order.
pub struct Pieces {
    input: Input,
    name: String,
    forced: Option<ProtocolSpec>,
    options: ReadOptions,
    piece_bytes: usize,
    mode: Mode,
    lines_before: usize,
    messages_before: usize,
    /// A byte-order mark began the input: the first message is told so.
    bom: bool,
    /// The UTF-16 encoding the input was decoded from, said on its first message.
    utf16: Option<&'static str>,
    /// The start of the first piece, to say why an input holds no message.
    head: String,
    done: bool,
}

impl Pieces {
    fn new(
        input: &Input,
        forced: Option<ProtocolSpec>,
        options: &ReadOptions,
        piece_bytes: usize,
        mode: Mode,
        bom: bool,
    ) -> Self {
        Pieces {
            input: input.clone(),
            name: input.name(),
            forced,
            options: *options,
            piece_bytes,
            mode,
            lines_before: 0,
            messages_before: 0,
            bom,
            utf16: None,
            head: String::new(),
            done: false,
        }
    }

    /// Why the input held no message (once read through, if it held none).
    pub fn why_no_message(&self) -> NoMessage {
        super::why_no_message(&self.head)
    }

    /// The input's first line (once read), for a finding about the whole input.
    pub fn first_line(&self) -> Option<&str> {
        self.head.lines().next()
    }

    /// Line `n` (1-based) of the input's start, if it is in it.
    pub fn head_line(&self, n: usize) -> Option<&str> {
        self.head.lines().nth(n.checked_sub(1)?)
    }

    /// At the end of a streamed input without any message: a file a walk
    /// met is passed over as [`super::read_or_skip`] passes it.
    fn end(&mut self) -> Option<Item> {
        // Why there is no message is asked only where there is none: it
        // parses the head again (a tenth of a run over 2,000 small files).
        if self.messages_before > 0 {
            return None;
        }
        let why = self.why_no_message();
        let passed_over = why.may_be_skipped() && self.input.may_pass_over(&self.head);
        passed_over.then(|| {
            let source = Source {
                name: self.name.clone(),
                text: std::mem::take(&mut self.head),
            };
            Item::Skipped(source, why)
        })
    }

    /// Whether the input is read in more than one piece where it is long.
    pub fn streams(&self) -> bool {
        !matches!(self.mode, Mode::Whole(_))
    }

    fn next_piece(&mut self) -> Result<Option<Item>, InputError> {
        let (text, lines, mut messages) = match &mut self.mode {
            Mode::Whole(reader) => {
                self.done = true;
                let max = self.options.max_message_bytes;
                let source = match reader.take() {
                    Some(reader) => super::source_from(self.name.clone(), reader, max)?,
                    None => super::read_source(&self.input, max)?,
                };
                return Ok(Some(
                    match super::read_or_skip(&self.input, source, self.forced, &self.options) {
                        Ok(Document {
                            source,
                            mut messages,
                        }) => {
                            if let (Some(encoding), Some(first)) =
                                (self.utf16, messages.first_mut())
                            {
                                first.diagnostics.insert(0, utf16_warning(encoding));
                            }
                            self.messages_before = messages.len();
                            if messages.is_empty() {
                                self.head.clone_from(&source.text);
                            }
                            Item::Piece(Piece {
                                source,
                                first_line: 0,
                                messages,
                            })
                        }
                        Err((source, why)) => Item::Skipped(source, why),
                    },
                ));
            }
            Mode::HspLines(reader) => match hsp_lines(reader, &self.options, self.piece_bytes)
                .map_err(|error| InputError::Io {
                    path: self.name.clone(),
                    error,
                })? {
                Some(piece) => piece,
                None => return Ok(self.end()),
            },
            Mode::Crosstalk(cut) => {
                let Some(bytes) = cut.next(self.piece_bytes).map_err(|error| InputError::Io {
                    path: self.name.clone(),
                    error,
                })?
                else {
                    return Ok(self.end());
                };
                let mut text = input::decode_utf8(bytes, &self.name).map_err(|e| match e {
                    InputError::NotUtf8 {
                        path,
                        line,
                        column,
                        what,
                    } => InputError::NotUtf8 {
                        path,
                        line: self.lines_before + line,
                        column,
                        what,
                    },
                    other => other,
                })?;
                if self.lines_before == 0 && text.starts_with(chars::BOM) {
                    text.drain(..chars::BOM.len_utf8());
                }
                let lines = text.matches('\n').count();
                let messages = Protocol::Crosstalk.read(&text, &self.options);
                (text, lines, messages)
            }
        };
        for found in &mut messages {
            found.shift_lines(self.lines_before);
            found.index += self.messages_before;
        }
        if self.bom
            && let Some(first) = messages.first_mut()
        {
            self.bom = false;
            first.diagnostics.insert(0, bom_warning());
        }
        if self.lines_before == 0 {
            self.head = head_of(&text);
        }
        let piece = Piece {
            source: Source {
                name: self.name.clone(),
                text,
            },
            first_line: self.lines_before,
            messages,
        };
        self.lines_before += lines;
        self.messages_before += piece.messages.len();
        Ok(Some(Item::Piece(piece)))
    }
}

impl Pieces {
    /// These pieces read one ahead: the next piece is read and checked on
    /// another thread while the caller works on the one before (sends it,
    /// converts it, writes it, lets it go), so the checking threads are
    /// not left idle meanwhile. An input of one piece (a file no larger
    /// than a piece, one read whole) is read here, without a thread. A
    /// caller that stops early drops the [`Ahead`]: the reading thread is
    /// not waited for (it may be waiting on a pipe that stays open) and
    /// ends at its next piece or with the process.
    pub fn ahead(self) -> Result<Ahead, InputError> {
        let one_piece = !self.streams()
            || self
                .input
                .size()
                .is_some_and(|size| size <= self.piece_bytes as u64);
        if one_piece {
            return Ok(Ahead(Way::Here(self)));
        }
        let name = self.name.clone();
        // One piece waits while the caller has the one before.
        let (ahead, arrived) = std::sync::mpsc::sync_channel(1);
        let mut pieces = self;
        let reading = std::thread::Builder::new()
            .name("read ahead".into())
            .spawn(move || {
                for item in &mut pieces {
                    let last = !matches!(item, Ok(Item::Piece(_)));
                    if ahead.send(item).is_err() || last {
                        break;
                    }
                }
                pieces
            })
            .map_err(|error| InputError::Io { path: name, error })?;
        Ok(Ahead(Way::Thread {
            arrived,
            reading: Some(reading),
            read: None,
        }))
    }
}

/// [`Pieces`] read one ahead ([`Pieces::ahead`]).
pub struct Ahead(Way);

enum Way {
    /// One piece: read on the caller's thread.
    Here(Pieces),
    Thread {
        arrived: std::sync::mpsc::Receiver<Result<Item, InputError>>,
        reading: Option<std::thread::JoinHandle<Pieces>>,
        /// The pieces, back from the reading thread once it ended.
        read: Option<Pieces>,
    },
}

impl Ahead {
    /// The pieces, once the last was taken (to say why the input held no
    /// message). Waits for the reading thread, which is ending then.
    pub fn read_through(self) -> Pieces {
        match self.0 {
            Way::Here(pieces) => pieces,
            Way::Thread {
                arrived,
                mut reading,
                mut read,
            } => {
                // Nothing more is taken: a reading thread still sending stops.
                drop(arrived);
                joined(&mut reading, &mut read);
                read.expect("the reading thread gave its pieces back")
            }
        }
    }
}

/// Takes the pieces back from the reading thread; a panic there goes on
/// here, never a silent end of the input.
fn joined(reading: &mut Option<std::thread::JoinHandle<Pieces>>, read: &mut Option<Pieces>) {
    if let Some(thread) = reading.take() {
        match thread.join() {
            Ok(pieces) => *read = Some(pieces),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

impl Iterator for Ahead {
    type Item = Result<Item, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            Way::Here(pieces) => pieces.next(),
            Way::Thread {
                arrived,
                reading,
                read,
            } => match arrived.recv() {
                Ok(item) => Some(item),
                // The reading thread ended: at the end of the input, or in a panic.
                Err(_) => {
                    joined(reading, read);
                    None
                }
            },
        }
    }
}

impl Iterator for Pieces {
    type Item = Result<Item, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = self.next_piece();
        if !matches!(next, Ok(Some(Item::Piece(_)))) {
            self.done = true;
        }
        next.transpose()
    }
}

/// Enough of a text's start to tell what it is.
fn head_of(text: &str) -> String {
    // The byte where the 4,097th character starts (or the end): one slice
    // copied, instead of a string built a character at a time.
    if text.len() <= 4096 {
        return text.to_string();
    }
    let end = text
        .char_indices()
        .nth(4096)
        .map_or(text.len(), |(at, _)| at);
    text[..end].to_string()
}

/// The warning the first message of an input with a byte-order mark gets.
/// The finding on the first message of a file decoded from UTF-16.
pub fn utf16_warning(encoding: &str) -> Diagnostic {
    Diagnostic::warning(
        "INPUT-UTF16",
        format!("the file is {encoding} (a Windows \"Unicode\" or PowerShell 5 save), decoded"),
    )
    .at(Pos::new(1, 1), 1)
    .with_hint("save it as UTF-8 (in Notepad: Save as, Encoding UTF-8)")
}

pub fn bom_warning() -> Diagnostic {
    Diagnostic::warning(
        "INPUT-BOM",
        "the input starts with a byte-order mark (U+FEFF), which was ignored",
    )
    .at(Pos::new(1, 1), 1)
    .with_hint("save the file as UTF-8 without a BOM")
}

/// The next batch of JSON Lines: its text (a line over the size limit or
/// not UTF-8 left empty, so that numbering holds), its line count, and its
/// messages placed in the batch.
fn hsp_lines(
    reader: &mut LineReader<Box<dyn BufRead + Send>>,
    options: &ReadOptions,
    piece_bytes: usize,
) -> std::io::Result<Option<(String, usize, Vec<Found>)>> {
    let hsp_options = options.hsp();
    let mut text = String::new();
    let mut lines = 0;
    let mut failed = Vec::new();
    while text.len() < piece_bytes {
        let Some(line) = reader.next_line()? else {
            break;
        };
        lines += 1;
        match line.text_or_failure(lines, options.max_message_bytes) {
            Ok(t) => text.push_str(t),
            Err(d) => failed.push(d),
        }
        text.push('\n');
    }
    if lines == 0 {
        return Ok(None);
    }
    let mut messages: Vec<Found> = hsp::read_json_lines(&text, hsp_options)
        .into_iter()
        .map(|read| Found::from_hsp(0, read))
        .collect();
    messages.extend(
        failed
            .into_iter()
            .map(|d| Found::from_hsp(0, hsp::Read::failed(d))),
    );
    messages.sort_by_key(|f| f.line);
    for (index, found) in messages.iter_mut().enumerate() {
        found.index = index;
    }
    Ok(Some((text, lines, messages)))
}

/// Cuts Crosstalk text into pieces before a line where no envelope is
/// open ([`extract::Cuts`]), once a piece is long enough: each envelope is
/// read from one piece, as it would be from the whole.
struct CrosstalkCut {
    reader: Box<dyn BufRead + Send>,
    /// A line read but left for the next piece.
    pending: Option<Vec<u8>>,
    cuts: extract::Cuts,
    first: bool,
}

impl CrosstalkCut {
    fn new(reader: Box<dyn BufRead + Send>) -> Self {
        CrosstalkCut {
            reader,
            pending: None,
            cuts: extract::Cuts::default(),
            first: true,
        }
    }

    /// The next piece's bytes, line ends as written; `None` at the end.
    fn next(&mut self, piece_bytes: usize) -> std::io::Result<Option<Vec<u8>>> {
        let mut piece = self.pending.take().unwrap_or_default();
        loop {
            let mut line = Vec::new();
            if self.reader.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            let text = String::from_utf8_lossy(&line);
            let mut text = text.trim_end_matches(['\n', '\r']);
            if std::mem::take(&mut self.first) {
                text = text.trim_start_matches(chars::BOM);
            }
            if self.cuts.before(text) && piece.len() >= piece_bytes {
                self.pending = Some(line);
                return Ok(Some(piece));
            }
            piece.extend_from_slice(&line);
        }
        Ok((!piece.is_empty()).then_some(piece))
    }
}

#[cfg(test)]
mod tests;
