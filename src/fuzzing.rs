//! The properties the fuzz targets in `fuzz/` check, one function per
//! target. Each takes arbitrary bytes and panics when aiproto breaks a
//! promise on them; `tests/fuzz_regressions.rs` replays every input the
//! fuzzers found through the same functions.

use crate::convert::promise;
use crate::model::Message;
use crate::prose::offline;
use crate::protocols::{Found, Protocol, ReadOptions, Value};
use crate::{json_locate, poll, thread};

/// A fuzz target's property: panics when a promise is broken on the input.
pub type Target = fn(&[u8]);

/// Every fuzz target by name, as `fuzz/fuzz_targets/<name>.rs` calls it.
pub const TARGETS: [(&str, Target); 8] = [
    ("read_any", read_any),
    ("crosstalk_canonical", crosstalk_canonical),
    ("convert_promise", convert_promise),
    ("msp_encode", msp_encode),
    ("signatures", signatures),
    ("thread_and_poll", thread_and_poll),
    ("pieces_like_whole", pieces_like_whole),
    ("cbp_frames", cbp_frames),
];

/// Inputs larger than this are skipped by the costly targets: the fuzzer
/// looks for shapes, not sizes (sizes have their own tests).
const COSTLY_INPUT: usize = 8 * 1024;

fn text_of(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

fn options() -> ReadOptions {
    ReadOptions {
        max_message_bytes: 1 << 20,
        ..ReadOptions::default()
    }
}

/// Any text read as every protocol: no panic, and every message found can
/// be rendered, mapped to the model and located (the first line, taken as
/// a JSON Pointer, is located in the rest).
pub fn read_any(data: &[u8]) {
    let text = text_of(data);
    let options = options();
    let _ = Protocol::detect(&text);
    for &protocol in Protocol::ALL {
        for found in protocol.read(&text, &options) {
            let _ = (found.canonical(), found.to_message(), found.id());
            let _ = found.is_valid(true);
            for d in &found.diagnostics {
                assert!(d.line >= 1 && d.column >= 1, "{d:?}");
            }
        }
    }
    hsp_verdicts_agree(&text, &options);
    if let Some((pointer, rest)) = text.split_once('\n') {
        let at = json_locate::locate(rest, pointer);
        assert!(at <= rest.len());
        let _ = json_locate::line_column(rest, at);
    }
}

/// HSP read for its verdicts only (as `validate` reads) finds what a
/// full read finds, with the same ids; and the schema check compiled into
/// the binary gives the run-time validator's verdict on every object.
fn hsp_verdicts_agree(text: &str, options: &ReadOptions) {
    let thin = ReadOptions {
        verdicts_only: true,
        ..*options
    };
    let full = Protocol::Hsp.read(text, options);
    let verdicts = Protocol::Hsp.read(text, &thin);
    assert_eq!(full.len(), verdicts.len());
    for (a, b) in full.iter().zip(&verdicts) {
        assert_eq!(a.diagnostics, b.diagnostics);
        assert_eq!(a.id(), b.id());
    }
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        use crate::protocols::hsp::{Version, compiled, schemas};
        for version in [Version::V0_1, Version::V1_0] {
            assert_eq!(
                compiled::is_valid(version, &value),
                schemas::envelope_validator(version).is_valid(&value),
                "HSP {} schema verdicts differ",
                version.as_str()
            );
        }
    }
}

/// Any bytes after a CBP frame's magic and version decode into JSON lines,
/// one per frame read and each with the frame's facts; read as CSDL, every
/// finding has a place and every valid message keeps `convert`'s promise.
pub fn cbp_frames(data: &[u8]) {
    use crate::protocols::csdl::upstream::cbp;
    if data.len() > COSTLY_INPUT {
        return;
    }
    let mut bytes = cbp::MAGIC.to_vec();
    bytes.push(1);
    bytes.extend_from_slice(data);
    let text = cbp::to_text(&bytes, 1 << 16);
    for line in text.lines() {
        let value: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(
            value.get("cbp").is_some(),
            "a line without its frame: {line}"
        );
    }
    for found in Protocol::Csdl.read(&text, &options()) {
        for d in &found.diagnostics {
            assert!(d.line >= 1 && d.column >= 1, "{d:?}");
        }
        if found.is_valid(false)
            && let Err(e) = promise::check_message(&found)
        {
            panic!("{e}");
        }
    }
}

/// A complete Crosstalk envelope, rendered canonically, reads back as one
/// envelope that renders to the same text.
pub fn crosstalk_canonical(data: &[u8]) {
    let text = text_of(data);
    for found in Protocol::Crosstalk.read(&text, &options()) {
        let Some(canonical) = found.canonical() else {
            continue;
        };
        let again = Protocol::Crosstalk.read(&canonical, &options());
        let [one] = again.as_slice() else {
            panic!(
                "{} envelopes read from the canonical form:\n{canonical}",
                again.len()
            );
        };
        assert_eq!(
            one.canonical().as_deref(),
            Some(canonical.as_str()),
            "render(parse(x)) != x"
        );
    }
}

/// Every valid message converts to every protocol and back as `convert`
/// promises ([`promise::check_message`]).
pub fn convert_promise(data: &[u8]) {
    if data.len() > COSTLY_INPUT {
        return;
    }
    let text = text_of(data);
    let Some(protocol) = Protocol::detect(&text) else {
        return;
    };
    for found in protocol.read(&text, &options()) {
        if found.is_valid(false)
            && let Err(e) = promise::check_message(&found)
        {
            panic!("{e}");
        }
    }
}

/// The offline MSP encoder turns any text into a valid signal, and its
/// decoder and similarity take any signal and text.
pub fn msp_encode(data: &[u8]) {
    if data.len() > COSTLY_INPUT {
        return;
    }
    let text = text_of(data);
    let signal = offline::encode(&text);
    // The compact wire form reads back as the signal.
    let wire = signal.to_wire();
    assert_eq!(
        crate::protocols::msp::MinimalSignal::from_json(&wire)
            .ok()
            .as_ref(),
        Some(&signal),
        "{wire}"
    );
    let json = signal.to_json();
    let written = json.to_string();
    let read = promise::read(&written, Protocol::Msp);
    let [one] = read.as_slice() else {
        panic!("the encoded signal is not one message: {written}");
    };
    assert!(
        one.is_valid(false),
        "invalid signal ({}): {written}",
        promise::errors(one)
    );
    let decoded = offline::decode(&json, "plain");
    let score = offline::similarity(&text, &decoded);
    assert!((0.0..=1.0).contains(&score), "similarity {score}");
}

/// An Agent Card's signing input: under every reading it is RFC 8785
/// canonical JSON without `signatures` (what a verifier would accept as
/// one), and its signatures are read or refused, never a panic.
fn a2a_card(card: &serde_json::Value) {
    use crate::protocols::a2a::signing_input::{self, Reading};
    for reading in Reading::ALL {
        if let Ok(bytes) = signing_input::signing_input(card, reading) {
            assert_eq!(
                signing_input::check_presented(&bytes),
                Ok(()),
                "{} reading",
                reading.name()
            );
        }
    }
    let _ = crate::sign::card::card_claims(card);
}

/// Signature lines and the claims signed in every protocol: any text,
/// no panic.
pub fn signatures(data: &[u8]) {
    let text = text_of(data);
    for line in text.lines().take(64) {
        let _ = crate::protocols::crosstalk::sig_line::parse(line);
    }
    for &protocol in Protocol::ALL {
        for found in protocol.read(&text, &options()) {
            match &found.value {
                Value::Crosstalk(parsed) => {
                    let _ = crate::sign::claim::crosstalk_signed(parsed);
                    let _ = crate::sign::claim::crosstalk_input(&parsed.envelope);
                }
                Value::Hsp(Some(m)) => {
                    let _ = crate::sign::claim::hsp_claim(&m.json);
                }
                Value::Csdl(Some(d)) => {
                    let _ = crate::sign::claim::csdl_claim(&d.json);
                }
                Value::A2a(Some(d)) => a2a_card(&d.json),
                _ => {}
            }
        }
    }
}

/// The messages of any text as a conversation tree and as polls: every
/// message is in exactly one tree or cycle, and nothing panics.
pub fn thread_and_poll(data: &[u8]) {
    let text = text_of(data);
    let found: Vec<Found> = Protocol::detect(&text)
        .map(|p| p.read(&text, &options()))
        .unwrap_or_default();
    let messages: Vec<(Message, bool)> = found
        .iter()
        .filter_map(|f| Some((f.to_message()?, f.is_valid(false))))
        .collect();
    let mut names = thread::Names::default();
    let nodes: Vec<thread::Node> = messages
        .iter()
        .map(|(m, _)| thread::Node::of(m, String::new(), "fuzz", 1, &mut names))
        .collect();
    let forest = thread::build(&nodes);
    let mut placed = vec![0usize; nodes.len()];
    for &root in &forest.roots {
        for step in forest.walk(root) {
            if let thread::Step::Enter { node, .. } = step {
                placed[node] += 1;
            }
        }
    }
    for cycle in &forest.cycles {
        for &node in cycle {
            placed[node] += 1;
        }
    }
    // A node hanging below a cycle is in neither; none is in two.
    assert!(placed.iter().all(|&n| n <= 1), "a message placed twice");
    let located: Vec<poll::Located> = messages
        .iter()
        .map(|(m, valid)| poll::Located {
            message: m,
            source: "fuzz",
            line: 1,
            valid: *valid,
        })
        .collect();
    let _ = poll::collate(&located);
}

/// An input read piece by piece (`reader::pieces`; the first byte picks a
/// piece size of 1–256 bytes) gives what reading it whole gives: the same
/// messages, findings, places and spans.
pub fn pieces_like_whole(data: &[u8]) {
    use crate::input::{Input, Source};
    use crate::reader::{Document, pieces};
    let Some((&size, rest)) = data.split_first() else {
        return;
    };
    if rest.len() > COSTLY_INPUT {
        return;
    }
    let text = text_of(rest).into_owned();
    let options = options();
    let summary = |f: &Found| {
        let places = match &f.value {
            Value::Crosstalk(p) => format!("{:?}", p.locations),
            _ => String::new(),
        };
        let findings: Vec<_> = f
            .diagnostics
            .iter()
            .map(|d| (d.code, d.line, d.column, d.length))
            .collect();
        format!(
            "{} {}-{} {} {} {findings:?} {places} {:?}",
            f.index,
            f.line,
            f.end_line,
            f.protocol,
            f.version,
            f.span.map(|s| s.line_offset)
        )
    };
    let source = Source {
        name: "<stdin>".into(),
        text: text.clone(),
    };
    let whole: Vec<String> = Document::from_source(source, None, &options)
        .messages
        .iter()
        .map(summary)
        .collect();
    let reader = Box::new(std::io::Cursor::new(text.into_bytes()));
    let mut in_pieces = Vec::new();
    let items = pieces::pieces_from(
        &Input::Stdin,
        Some(reader),
        None,
        &options,
        size as usize + 1,
    )
    .expect("text in memory opens");
    for item in items {
        match item.expect("text in memory reads") {
            pieces::Item::Piece(piece) => in_pieces.extend(piece.messages.iter().map(summary)),
            pieces::Item::Skipped(..) => panic!("stdin is never skipped"),
        }
    }
    assert_eq!(in_pieces, whole);
}

#[cfg(test)]
mod tests {
    /// The pieces target holds on the examples, at several piece sizes
    /// (the fuzzer then looks further from the same seeds).
    #[test]
    fn pieces_like_whole_holds_on_the_examples() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/crosstalk");
        let mut seen = 0;
        for dir in ["valid", "invalid", "pasted"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap().flatten() {
                let text = std::fs::read(entry.path()).unwrap();
                for size in [0u8, 7, 60, 255] {
                    let mut data = vec![size];
                    data.extend_from_slice(&text);
                    super::pieces_like_whole(&data);
                }
                seen += 1;
            }
        }
        assert!(seen > 20);
    }
}
