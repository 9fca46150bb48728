//! What the X11 clipboard offers when it holds no text: nothing at all (no
//! owner), an image, or some other kind of data. arboard only says "no
//! text", which leaves the user guessing; the clipboard owner's `TARGETS`
//! list says which.

use std::time::{Duration, Instant};

use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt, CreateWindowAux, WindowClass};

/// What a clipboard without text holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoText {
    /// Nothing: no program owns the clipboard.
    Empty,
    /// An image, by its MIME type (`image/png`).
    Image(String),
    /// Data of other kinds, by the names its owner offers them under.
    Other(Vec<String>),
    /// A program owns the clipboard but did not say what it offers in time
    /// (it is busy or hung): not the same as empty.
    Unanswered,
    /// The display could not be asked (Wayland, or an X error).
    Unknown,
}

/// Asks the X11 clipboard's owner what it offers.
pub fn no_text_kind() -> NoText {
    if std::env::var_os("DISPLAY").is_none() {
        return NoText::Unknown;
    }
    targets().map_or(NoText::Unknown, |targets| match targets {
        Targets::Unowned => NoText::Empty,
        Targets::Unanswered => NoText::Unanswered,
        Targets::Offered(names) => {
            if let Some(image) = names.iter().find(|n| n.starts_with("image/")) {
                NoText::Image(image.clone())
            } else {
                let data: Vec<String> = names
                    .into_iter()
                    .filter(|n| {
                        !matches!(
                            n.as_str(),
                            "TARGETS" | "TIMESTAMP" | "MULTIPLE" | "SAVE_TARGETS"
                        )
                    })
                    .collect();
                if data.is_empty() {
                    NoText::Empty
                } else {
                    NoText::Other(data)
                }
            }
        }
    })
}

/// How long the owner has to say what it offers. A loaded machine (a CI
/// runner, a laptop swapping) can keep a healthy owner waiting for a while;
/// the question is asked only after a read found no text.
const OWNER_ANSWER: Duration = Duration::from_secs(3);

/// What asking the clipboard's owner for its `TARGETS` gave.
enum Targets {
    /// Nobody owns the clipboard.
    Unowned,
    /// The owner did not answer within [`OWNER_ANSWER`].
    Unanswered,
    /// The names it offers (empty when it refused to list them).
    Offered(Vec<String>),
}

/// Asks the clipboard's owner, if any, for its target names.
fn targets() -> Result<Targets, Box<dyn std::error::Error>> {
    let (conn, screen) = x11rb::connect(None)?;
    let root = conn.setup().roots[screen].root;
    let atom = |name: &[u8]| -> Result<u32, Box<dyn std::error::Error>> {
        Ok(conn.intern_atom(false, name)?.reply()?.atom)
    };
    let (clipboard, targets, property) = (
        atom(b"CLIPBOARD")?,
        atom(b"TARGETS")?,
        atom(b"AIPROTO_TARGETS")?,
    );
    if conn.get_selection_owner(clipboard)?.reply()?.owner == x11rb::NONE {
        return Ok(Targets::Unowned);
    }
    let window = conn.generate_id()?;
    conn.create_window(
        0,
        window,
        root,
        0,
        0,
        1,
        1,
        0,
        WindowClass::INPUT_ONLY,
        0,
        &CreateWindowAux::new(),
    )?;
    conn.convert_selection(window, clipboard, targets, property, x11rb::CURRENT_TIME)?;
    conn.flush()?;
    let deadline = Instant::now() + OWNER_ANSWER;
    let notified = loop {
        match conn.poll_for_event()? {
            Some(Event::SelectionNotify(e)) if e.requestor == window => break Some(e),
            Some(_) => {}
            None if Instant::now() > deadline => break None,
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let Some(notify) = notified else {
        return Ok(Targets::Unanswered);
    };
    if notify.property == x11rb::NONE {
        return Ok(Targets::Offered(Vec::new()));
    }
    let reply = conn
        .get_property(true, window, notify.property, AtomEnum::ATOM, 0, 1024)?
        .reply()?;
    let mut names = Vec::new();
    for atom in reply.value32().into_iter().flatten() {
        let name = conn.get_atom_name(atom)?.reply()?.name;
        names.push(String::from_utf8_lossy(&name).into_owned());
    }
    Ok(Targets::Offered(names))
}
