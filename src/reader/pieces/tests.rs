//! Reading piece by piece gives what reading whole gives: the same
//! messages, lines, findings and places, whatever the piece size.

use proptest::prelude::*;

use super::*;
use crate::protocols::Found;

/// Texts a relay archive or a pasted transcript is made of.
const PARTS: &[&str] = &[
    include_str!("../../../examples/crosstalk/valid/v1_1-request-routing.crosstalk"),
    include_str!("../../../examples/crosstalk/valid/v1_1-poll-and-answers.crosstalk"),
    include_str!("../../../examples/crosstalk/valid/v1_0-question.crosstalk"),
    include_str!("../../../examples/crosstalk/invalid/missing-end-line.crosstalk"),
    include_str!("../../../examples/crosstalk/invalid/meta-value-on-two-lines.crosstalk"),
    include_str!("../../../examples/crosstalk/invalid/stray-line.crosstalk"),
    include_str!("../../../examples/crosstalk/pasted/chat-transcript.md"),
    include_str!("../../../tests/fixtures/chat-damage/bold-header-and-end.txt"),
    include_str!("../../../tests/fixtures/chat-damage/nbsp-everywhere.txt"),
    include_str!("../../../tests/fixtures/chat-damage/cut-off.txt"),
    include_str!("../../../tests/fixtures/chat-damage/heading-header.md"),
    include_str!("../../../tests/fixtures/chat-damage/example-in-body-unindented.md"),
    include_str!("../../../tests/fixtures/chat-damage/reply-in-parts.md"),
    include_str!("../../../tests/fixtures/chat-damage/lines-joined.txt"),
    include_str!("../../../tests/fixtures/chat-damage/mail-wrapped-body.txt"),
    // Pieces of split replies and of bodies that lost their indentation,
    // so that look-aheads meet each other and the ends of pieces.
    "**Part 2/2**\n",
    "(continued)\n",
    "  a body line after a break\n",
    UNINDENTED,
    "[[END]]\n",
    "Here is my answer:\n\n```\n",
    "```\n",
    "> [[claude→gpt v1]]\n> intent: REQUEST\n> body: |\n>   quoted\n> [[END]]\n",
    "  [[claude→gpt v1]]\n  intent: REQUEST\n  body: |\n    indented\n  [[END]]\n",
    "body text that mentions [[END]] in passing\n",
    "\r\n",
    "line with an extra return\r\r\n",
];

const UNINDENTED: &str = "[[a→b v1]]\nbody: |\nunindented text\n";
const UNINDENTED_LEFT_OPEN: usize = 18;

/// What a reader reports of a message, to compare two readings.
fn summary(found: &Found) -> String {
    let findings: Vec<String> = found
        .diagnostics
        .iter()
        .map(|d| format!("{}@{}:{}+{}", d.code, d.line, d.column, d.length))
        .collect();
    let places = match &found.value {
        crate::protocols::Value::Crosstalk(p) => format!("{:?}", p.locations),
        _ => String::new(),
    };
    format!(
        "#{} {}-{} {} {} {findings:?} {places} {:?}",
        found.index,
        found.line,
        found.end_line,
        found.protocol,
        found.version,
        found.span.map(|s| s.line_offset)
    )
}

fn whole(path: &std::path::Path) -> Vec<String> {
    let input = Input::File(path.to_path_buf());
    let doc = crate::reader::read(&input, None, &ReadOptions::default()).unwrap();
    doc.messages.iter().map(summary).collect()
}

fn in_pieces(path: &std::path::Path, piece_bytes: usize) -> (Vec<String>, usize) {
    let input = Input::File(path.to_path_buf());
    let mut out = Vec::new();
    let mut count = 0;
    let pieces = pieces(&input, None, &ReadOptions::default(), piece_bytes).unwrap();
    assert!(pieces.streams(), "read whole, not in pieces");
    for item in pieces {
        let Item::Piece(piece) = item.unwrap() else {
            panic!("a named file is never skipped");
        };
        count += 1;
        for found in &piece.messages {
            // Every message's lines are in its piece.
            let line = found.line.checked_sub(piece.first_line + 1);
            let lines = piece.source.text.split('\n').count();
            assert!(line.is_some_and(|n| n < lines), "{}", summary(found));
            out.push(summary(found));
        }
    }
    (out, count)
}

proptest! {
    #![proptest_config(crate::proptest_config::config(128))]

    #[test]
    fn crosstalk_in_pieces_reads_as_whole(
        parts in proptest::collection::vec(0..PARTS.len(), 1..24),
        bom in any::<bool>(),
        piece_bytes in 1usize..400,
    ) {
        let mut text = String::from(if bom { "\u{feff}" } else { "" });
        // After an unindented body left open, no cut is known to be safe
        // until the look-ahead for an example envelope in it is answered.
        let may_wait = parts.contains(&UNINDENTED_LEFT_OPEN);
        for part in parts {
            text.push_str(PARTS[part]);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("archive.crosstalk");
        std::fs::write(&path, &text).unwrap();
        let (pieces, count) = in_pieces(&path, piece_bytes);
        let whole = whole(&path);
        prop_assert_eq!(PARTS[UNINDENTED_LEFT_OPEN], UNINDENTED);
        prop_assert_eq!(&pieces, &whole);
        // Cut before the second envelope when what comes before it is long enough.
        let input = Input::File(path.clone());
        let doc = crate::reader::read(&input, None, &ReadOptions::default()).unwrap();
        if let Some(second) = doc.messages.get(1).filter(|_| !may_wait) {
            let before: usize = doc.source.text.split_inclusive('\n').take(second.line - 1).map(str::len).sum();
            prop_assert!(before < piece_bytes || count > 1, "{} pieces", count);
        }
    }
}

#[test]
fn json_lines_in_pieces_read_as_whole_broken_lines_included() {
    let good = include_str!("../../../examples/hsp/valid/0.1/belief.json");
    let good: serde_json::Value = serde_json::from_str(good).unwrap();
    let line = good.to_string();
    let mut text = String::new();
    for i in 0..40 {
        match i % 7 {
            3 => text.push_str("{\"hsp_envelope_version\": \"0.1\", broken\n"),
            5 => text.push('\n'),
            6 => text.push_str(&format!("{}\r\n", line.replace("0.9", "7"))),
            _ => text.push_str(&format!("{line}\n")),
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus.jsonl");
    std::fs::write(&path, &text).unwrap();
    let expected = whole(&path);
    assert_eq!(expected.len(), 35);
    for piece_bytes in [1, 700, 5_000, 1 << 20] {
        let (got, count) = in_pieces(&path, piece_bytes);
        assert_eq!(got, expected, "pieces of {piece_bytes} bytes");
        assert!(piece_bytes < 5_000 || count <= 8, "{count} pieces");
    }
}

#[test]
fn a_line_that_is_not_utf8_is_named_in_the_whole_input() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("archive.crosstalk");
    let mut bytes = PARTS[0].repeat(3).into_bytes();
    bytes.extend_from_slice(b"caf\xe9\n");
    std::fs::write(&path, &bytes).unwrap();
    let lines = PARTS[0].matches('\n').count() * 3 + 1;
    let input = Input::File(path.clone());
    let error = pieces(&input, None, &ReadOptions::default(), 10)
        .unwrap()
        .find_map(Result::err)
        .unwrap();
    assert!(
        error.to_string().contains(&format!(
            ":{lines}:4: not UTF-8 text: byte 0xE9 is not UTF-8"
        )),
        "{error}"
    );
}

/// The head kept to tell what an input is: its first 4,096 characters,
/// however many bytes each takes.
#[test]
fn the_head_is_the_first_4096_characters() {
    for text in [
        String::new(),
        "a".repeat(4096),
        "a".repeat(5000),
        "é".repeat(3000),
        format!("{}€{}", "a".repeat(4095), "b".repeat(10)),
        format!("{}😀", "a".repeat(4096)),
    ] {
        let expected: String = text.chars().take(4096).collect();
        assert_eq!(super::head_of(&text), expected, "{} bytes", text.len());
    }
}

/// Read ahead on another thread, an input gives the same pieces in the
/// same order as read in turn, its error in its place; one that holds no
/// message still says why once read through; and a reader dropped early
/// lets go of a thread still reading.
#[test]
fn reading_ahead_gives_what_reading_in_turn_gives() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("archive.crosstalk");
    let mut bytes = PARTS[..3].concat().repeat(40).into_bytes();
    bytes.extend_from_slice(b"caf\xe9\n");
    std::fs::write(&path, &bytes).unwrap();
    let input = Input::File(path.clone());
    let describe = |item: Result<Item, InputError>| match item {
        Ok(Item::Piece(piece)) => format!(
            "{} {:?}",
            piece.first_line,
            piece.messages.iter().map(summary).collect::<Vec<_>>()
        ),
        Ok(Item::Skipped(source, why)) => format!("skipped {} {why}", source.name),
        Err(e) => format!("error {e}"),
    };
    let options = ReadOptions::default();
    let in_turn: Vec<String> = pieces(&input, None, &options, 512)
        .unwrap()
        .map(describe)
        .collect();
    let ahead: Vec<String> = pieces(&input, None, &options, 512)
        .unwrap()
        .ahead()
        .unwrap()
        .map(describe)
        .collect();
    assert!(in_turn.len() > 10, "{} pieces", in_turn.len());
    assert!(in_turn.last().unwrap().starts_with("error"), "{in_turn:?}");
    assert_eq!(ahead, in_turn);

    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "nothing to read here\n".repeat(200)).unwrap();
    let input = Input::File(notes);
    let mut ahead = pieces(&input, None, &options, 512)
        .unwrap()
        .ahead()
        .unwrap();
    let holds_none = |item: Result<Item, InputError>| match item.unwrap() {
        Item::Piece(piece) => piece.messages.is_empty(),
        Item::Skipped(..) => true,
    };
    assert!(ahead.by_ref().all(holds_none));
    let why = ahead.read_through().why_no_message().to_string();
    let in_turn = {
        let mut all = pieces(&input, None, &options, 512).unwrap();
        all.by_ref().for_each(drop);
        all.why_no_message().to_string()
    };
    assert_eq!(why, in_turn);

    // Taken once and dropped: nothing waits for the thread still reading.
    let input = Input::File(path);
    let mut ahead = pieces(&input, None, &options, 512)
        .unwrap()
        .ahead()
        .unwrap();
    assert!(ahead.next().is_some());
    drop(ahead);
}
