//! From arrivals to messages: each arrival is read into its messages, each
//! message is handed on once, and they are counted.
//!
//! "Once" has two sides. A source read again and again (a watched
//! clipboard, a followed file) shows what it held before each time, so a
//! message whose canonical text was seen is skipped. A stream delivers at
//! least once: after a reconnect an MQTT broker sends again what was not
//! acknowledged, and a publisher sends again what the broker did not
//! acknowledge, so a message whose id was seen is skipped (a message
//! without an id is always handed on).

use std::collections::{HashSet, VecDeque};

use crate::input::Source;
use crate::protocols::{Found, ReadOptions};
use crate::reader::Document;
use crate::transport::{
    Answer, Arrival, Ended, Listen, Properties, Publication, Transport, TransportError,
};

/// How many ids or texts are remembered to spot a redelivery; redeliveries
/// come within the window of unacknowledged messages (1,024 at most from
/// aiproto, a broker's in-flight queue), far fewer than this.
const REMEMBERED: usize = 100_000;

/// One message handed on.
pub struct Received<'a> {
    /// Where it came from (a topic, a path, `<clipboard>`, `<stdin>`).
    pub origin: &'a str,
    /// The MQTT topic it arrived on.
    pub topic: Option<&'a str>,
    /// The message as read (`None`: no known protocol in the arrival).
    pub found: Option<&'a Found>,
    /// Its text as its sender wrote it ([`Found::written`]), or the text as
    /// it came when it cannot be read or was cut off.
    pub text: &'a str,
    /// The whole arrival it was found in (for the lines of a finding), or
    /// the piece of a long input.
    pub arrival: &'a str,
    /// Lines before `arrival` (in the input a piece was cut from; 0 for an arrival).
    pub first_line: usize,
    /// What an MQTT 5 publisher said beside it.
    pub properties: Option<&'a Properties>,
    /// Its id came before with other content: another message under the
    /// same id (another sender's, or an edited one), handed on as well.
    pub other_content: bool,
}

/// Counts what was handed on and what was skipped as a repeat.
pub struct Inbox {
    count: Option<usize>,
    handed_on: usize,
    repeats: usize,
    /// Messages handed on whose id came before with other content.
    other_content: usize,
    /// Arrivals of a stream that held nothing (or only white space).
    empty: usize,
    /// Snapshot texts, and `protocol:id<TAB>digest` of stream messages.
    seen: Remembered,
    /// `protocol:id` of every stream message handed on.
    ids: Remembered,
    /// Ids an older state file holds without a digest: any content under
    /// them counts as a repeat, as it did when they were written.
    legacy: HashSet<String>,
    /// The state file the ids of a stream are appended to, once taken.
    state: Option<std::io::BufWriter<std::fs::File>>,
}

impl Inbox {
    /// An inbox that says stop after `count` messages.
    pub fn new(count: Option<usize>) -> Inbox {
        Inbox {
            count,
            handed_on: 0,
            repeats: 0,
            other_content: 0,
            empty: 0,
            seen: Remembered::default(),
            ids: Remembered::default(),
            legacy: HashSet::new(),
            state: None,
        }
    }

    /// Remembers the ids taken in `path` (one `protocol:id` line each),
    /// those of earlier runs included: a message whose id is there is not
    /// taken again. The file keeps the last 100,000 ids.
    pub fn remembering(mut self, path: &std::path::Path) -> std::io::Result<Inbox> {
        use std::io::Write;
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e),
        };
        let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        let kept = &lines[lines.len().saturating_sub(REMEMBERED)..];
        for line in kept {
            // Keys written before ids were compared as ids (a ULID or a
            // UUID in any case) are read the way they are now made.
            let comparable = |key: &str| match key.split_once(':') {
                Some((protocol, id)) => id_key(protocol, id),
                None => key.to_string(),
            };
            match line.rsplit_once('\t') {
                Some((key, digest)) if digest.len() == 64 => {
                    let key = comparable(key);
                    self.seen.first_time(format!("{key}\t{digest}"));
                    self.ids.first_time(key);
                }
                _ => {
                    self.legacy.insert(comparable(line));
                }
            }
        }
        if kept.len() < lines.len() {
            // Written whole again, without the ids past the window.
            let tmp = path.with_extension("tmp");
            std::fs::write(&tmp, kept.join("\n") + "\n")?;
            std::fs::rename(&tmp, path)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        file.flush()?;
        self.state = Some(std::io::BufWriter::new(file));
        Ok(self)
    }

    /// Messages handed on so far.
    pub fn handed_on(&self) -> usize {
        self.handed_on
    }

    /// Messages of a stream skipped because they came before (same id,
    /// same content).
    pub fn redeliveries(&self) -> usize {
        self.repeats
    }

    /// Messages handed on although their id came before with other content
    /// (another sender's message under the same id, or an edited one).
    pub fn other_content(&self) -> usize {
        self.other_content
    }

    /// Arrivals that held nothing (an empty MQTT payload, which also clears
    /// a retained message): no message, not handed on, not counted.
    pub fn empty_arrivals(&self) -> usize {
        self.empty
    }

    /// Receives from `transport` and calls `each` with every new message;
    /// what it returns is published in answer.
    pub fn receive(
        &mut self,
        transport: &mut dyn Transport,
        listen: &Listen,
        mut each: impl FnMut(Received<'_>) -> anyhow::Result<Vec<Publication>>,
    ) -> Result<Ended, TransportError> {
        if self.count == Some(0) {
            return Ok(Ended::Stopped);
        }
        transport.receive(listen, &mut |arrival| self.take(&arrival, &mut each))
    }

    /// Reads one arrival and hands on its messages not seen before, for a
    /// caller that looks at the arrival first (a face that refuses one over
    /// its size limit before reading it).
    pub fn arrival(
        &mut self,
        arrival: &Arrival<'_>,
        mut each: impl FnMut(Received<'_>) -> anyhow::Result<Vec<Publication>>,
    ) -> anyhow::Result<Answer> {
        if self.count.is_some_and(|n| self.handed_on >= n) {
            return Ok(Answer {
                stop: true,
                ..Answer::default()
            });
        }
        self.take(arrival, &mut each)
    }

    /// Reads an input once, piece by piece (`reader::pieces`: bounded
    /// memory whatever its size), as a stream: each new message handed to
    /// `each`; what it returns to publish is dropped (no broker here).
    pub fn receive_input(
        &mut self,
        input: &crate::input::Input,
        listen: &Listen,
        mut each: impl FnMut(Received<'_>) -> anyhow::Result<Vec<Publication>>,
    ) -> Result<Ended, TransportError> {
        use crate::reader::pieces::{self, Item};
        if self.count == Some(0) {
            return Ok(Ended::Stopped);
        }
        let options = ReadOptions::default();
        let mut all = pieces::pieces(input, None, &options, pieces::PIECE_BYTES)?;
        for item in &mut all {
            if listen.is_stopped() {
                return Ok(Ended::Interrupted);
            }
            let Item::Piece(piece) = item? else {
                break;
            };
            let arrival = Arrival {
                origin: &piece.source.name,
                topic: None,
                text: &piece.source.text,
                snapshot: false,
                properties: None,
            };
            let answer = self
                .hand_on(&arrival, piece.first_line, &piece.messages, &mut each)
                .map_err(TransportError::Handler)?;
            if answer.stop {
                return Ok(Ended::Stopped);
            }
        }
        Ok(Ended::Exhausted)
    }

    fn take(
        &mut self,
        arrival: &Arrival<'_>,
        each: &mut impl FnMut(Received<'_>) -> anyhow::Result<Vec<Publication>>,
    ) -> anyhow::Result<Answer> {
        let doc = Document::from_source(
            Source {
                name: arrival.origin.to_string(),
                text: arrival.text.to_string(),
            },
            None,
            &ReadOptions::default(),
        );
        // The text the messages were read from (a byte-order mark dropped,
        // a saved mail decoded): their places and bytes are in it.
        let read = Arrival {
            text: &doc.source.text,
            ..*arrival
        };
        self.hand_on(&read, 0, &doc.messages, each)
    }

    /// Hands on the messages read from an arrival (whose first line is line
    /// `first_line + 1` of what it was cut from) that were not seen before.
    fn hand_on(
        &mut self,
        arrival: &Arrival<'_>,
        first_line: usize,
        messages: &[Found],
        each: &mut impl FnMut(Received<'_>) -> anyhow::Result<Vec<Publication>>,
    ) -> anyhow::Result<Answer> {
        let mut answer = Answer::default();
        let whole = [arrival.text.to_string()];
        let blank = arrival.text.trim().is_empty();
        if messages.is_empty() && !arrival.snapshot && blank {
            self.empty += 1;
        }
        let unread = (messages.is_empty() && !arrival.snapshot && !blank).then_some(&whole);
        let texts = messages
            .iter()
            .map(|found| (Some(found), text_of(found, arrival.text, first_line)))
            .chain(unread.into_iter().flatten().map(|t| (None, t.clone())));
        for (found, text) in texts {
            // A stream message is a repeat when its id came with the same
            // content; under a seen id, other content is handed on too, and said.
            let mut other_content = false;
            let mut remembered = None;
            let key = match (arrival.snapshot, found.and_then(Found::id)) {
                (true, _) => Some(text.clone()),
                (false, Some(id)) => {
                    let protocol = found.map_or("", |f| f.protocol.name());
                    let (id, digest) = super::same_message::keyed(id, &text);
                    let id_key = id_key(protocol, &id);
                    let digest: String = digest.iter().map(|b| format!("{b:02x}")).collect();
                    let key = format!("{id_key}\t{digest}");
                    if self.legacy.contains(&id_key) {
                        self.repeats += 1;
                        continue;
                    }
                    other_content = self.ids.contains(&id_key) && !self.seen.contains(&key);
                    remembered = Some((id_key, key.clone()));
                    Some(key)
                }
                (false, None) => None,
            };
            if let Some(key) = key
                && !self.seen.first_time(key)
            {
                self.repeats += usize::from(!arrival.snapshot);
                continue;
            }
            if let Some((id_key, _)) = &remembered {
                self.ids.first_time(id_key.clone());
            }
            self.other_content += usize::from(other_content);
            answer.publish.extend(each(Received {
                origin: arrival.origin,
                topic: arrival.topic,
                found,
                text: &text,
                arrival: arrival.text,
                first_line,
                properties: arrival.properties,
                other_content,
            })?);
            if let (Some(state), Some((_, key))) = (&mut self.state, &remembered) {
                use std::io::Write;
                // Taken: remembered before the next message is looked at.
                writeln!(state, "{key}").and_then(|()| state.flush())?;
            }
            self.handed_on += 1;
            if self.count.is_some_and(|n| self.handed_on >= n) {
                answer.stop = true;
                break;
            }
        }
        Ok(answer)
    }
}

/// How a stream message's id is remembered: `protocol:id`, the id as
/// compared ([`super::same_message`]), kept to one line of the state file.
fn id_key(protocol: &str, id: &str) -> String {
    let id = crate::ids::comparable(id);
    format!("{protocol}:{}", id.replace(['\n', '\r', '\t'], " "))
}

/// A message as its sender wrote it ([`Found::written`]), or its own lines
/// of the arrival when it cannot be written (broken JSON, a cut-off
/// envelope: passed on as they came, not lost and not repaired). The
/// arrival's first line is line `first_line + 1` of the message's numbering.
fn text_of(found: &Found, arrival: &str, first_line: usize) -> String {
    found.written(arrival).unwrap_or_else(|| {
        let first = found.line.saturating_sub(first_line + 1);
        let count = found.end_line.max(found.line) + 1 - found.line.max(1);
        let mut text: String = arrival
            .lines()
            .skip(first)
            .take(count.max(1))
            .collect::<Vec<_>>()
            .join("\n");
        text.push('\n');
        text
    })
}

/// The last [`REMEMBERED`] keys, oldest forgotten first.
#[derive(Default)]
struct Remembered {
    keys: HashSet<String>,
    order: VecDeque<String>,
}

impl Remembered {
    fn contains(&self, key: &str) -> bool {
        self.keys.contains(key)
    }

    /// True the first time `key` is offered (among the ones remembered).
    fn first_time(&mut self, key: String) -> bool {
        if self.keys.contains(&key) {
            return false;
        }
        if self.order.len() == REMEMBERED
            && let Some(old) = self.order.pop_front()
        {
            self.keys.remove(&old);
        }
        self.order.push_back(key.clone());
        self.keys.insert(key);
        true
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A transport that delivers fixed arrivals: (text, whether a snapshot).
    pub(crate) struct Fixed<S: AsRef<str>>(pub Vec<(S, bool)>);

    impl<S: AsRef<str>> Transport for Fixed<S> {
        fn send(
            &mut self,
            _: &[crate::transport::Outgoing],
            _: &mut dyn FnMut(&str) -> std::io::Result<()>,
        ) -> Result<(), TransportError> {
            Ok(())
        }

        fn receive(
            &mut self,
            _: &Listen,
            on_arrival: &mut crate::transport::OnArrival<'_>,
        ) -> Result<Ended, TransportError> {
            for (text, snapshot) in &self.0 {
                let answer = on_arrival(Arrival {
                    origin: "t",
                    topic: None,
                    text: text.as_ref(),
                    snapshot: *snapshot,
                    properties: None,
                })
                .map_err(TransportError::Handler)?;
                if answer.stop {
                    return Ok(Ended::Stopped);
                }
            }
            Ok(Ended::Exhausted)
        }
    }

    const FACT: &str =
        r#"{"intent":"REPORT","target":"x","trace_id":"6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f"}"#;
    const OTHER: &str =
        r#"{"intent":"REPORT","target":"y","trace_id":"0b9f3a8e-2c4d-4e6f-8a1b-3c5d7e9f1a2b"}"#;
    const NO_ID: &str = r#"{"intent":"REPORT","target":"z"}"#;

    fn received(arrivals: Vec<(&'static str, bool)>, count: Option<usize>) -> (Vec<String>, Inbox) {
        let mut inbox = Inbox::new(count);
        let mut texts = Vec::new();
        inbox
            .receive(&mut Fixed(arrivals), &Listen::default(), |r| {
                texts.push(r.text.trim_end().to_string());
                Ok(Vec::new())
            })
            .unwrap();
        (texts, inbox)
    }

    /// What a receiver remembering in `state` (a fresh `--state` run)
    /// hands on of `arrivals`, as `pick` sees each, and the inbox after.
    fn received_with_state<T>(
        state: &std::path::Path,
        arrivals: Vec<(&'static str, bool)>,
        pick: impl Fn(&Received<'_>) -> T,
    ) -> (Vec<T>, Inbox) {
        let mut inbox = Inbox::new(None).remembering(state).unwrap();
        let mut got = Vec::new();
        inbox
            .receive(&mut Fixed(arrivals), &Listen::default(), |r| {
                got.push(pick(&r));
                Ok(Vec::new())
            })
            .unwrap();
        (got, inbox)
    }

    #[test]
    fn a_redelivered_message_is_handed_on_once() {
        let (texts, inbox) = received(vec![(FACT, false), (OTHER, false), (FACT, false)], None);
        assert_eq!(texts.len(), 2);
        assert_eq!(inbox.redeliveries(), 1);
    }

    #[test]
    fn messages_without_an_id_are_all_handed_on() {
        let (texts, _) = received(vec![(NO_ID, false), (NO_ID, false)], None);
        assert_eq!(texts.len(), 2);
    }

    #[test]
    fn a_snapshot_hands_on_only_what_is_new() {
        let both =
            "{\"intent\":\"REPORT\",\"target\":\"z\"}\n{\"intent\":\"REPORT\",\"target\":\"w\"}\n";
        let (texts, inbox) = received(vec![(NO_ID, true), (both, true)], None);
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert_eq!(inbox.redeliveries(), 0);
    }

    #[test]
    fn the_count_stops_in_the_middle_of_an_arrival() {
        let both = format!("{FACT}\n{OTHER}\n");
        let both: &'static str = Box::leak(both.into_boxed_str());
        let (texts, _) = received(vec![(both, false), (NO_ID, false)], Some(1));
        assert_eq!(texts.len(), 1);
    }

    #[test]
    fn what_no_protocol_reads_is_passed_on_as_it_came() {
        let (texts, _) = received(vec![("hello there", false), ("{\"broken\": ", false)], None);
        assert_eq!(texts, ["hello there", "{\"broken\":"]);
    }

    #[test]
    fn the_oldest_keys_are_forgotten_first() {
        let mut r = Remembered::default();
        for i in 0..=REMEMBERED {
            assert!(r.first_time(i.to_string()));
        }
        assert!(r.first_time("0".into()));
        assert!(!r.first_time(REMEMBERED.to_string()));
    }

    #[test]
    fn a_state_file_keeps_the_ids_taken_across_runs() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("taken");
        let first = |arrivals| {
            let (got, inbox) = received_with_state(&state, arrivals, |r| r.text.to_string());
            (got.len(), inbox.redeliveries())
        };
        assert_eq!(first(vec![(FACT, false)]), (1, 0));
        // A restarted receiver: the replay is not taken, the new one is.
        assert_eq!(first(vec![(FACT, false), (OTHER, false)]), (1, 1));
        assert_eq!(std::fs::read_to_string(&state).unwrap().lines().count(), 2);
    }

    /// Mallory's message under the id of Alice's, first: Alice's real one
    /// is not dropped as a repeat, and both say so; a true redelivery of
    /// either is still skipped, across restarts too.
    #[test]
    fn other_content_under_a_seen_id_is_handed_on_and_said() {
        let squat: &'static str =
            Box::leak(FACT.replace("\"x\"", "\"pay mallory\"").into_boxed_str());
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("taken");
        let run = |arrivals| {
            let (got, inbox) = received_with_state(&state, arrivals, |r| {
                (r.text.trim_end().to_string(), r.other_content)
            });
            (got, inbox.redeliveries(), inbox.other_content())
        };
        let (got, repeats, other) = run(vec![(squat, false), (FACT, false), (FACT, false)]);
        assert_eq!(got, [(squat.to_string(), false), (FACT.to_string(), true)]);
        assert_eq!((repeats, other), (1, 1));
        // Restarted: both are known, neither is taken again.
        let (got, repeats, _) = run(vec![(FACT, false), (squat, false)]);
        assert!(got.is_empty(), "{got:?}");
        assert_eq!(repeats, 2);
    }

    /// A UUID (or ULID) is one id in any case, here as in an archive: the
    /// same message with its id retyped in capitals is a redelivery, in
    /// this run and after a restart, another message under it is other
    /// content, and a state file written before ids were compared so still
    /// keeps the ids it holds.
    #[test]
    fn an_id_in_other_capitals_is_the_same_id() {
        let shouted: &'static str = Box::leak(
            FACT.replace(
                "6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f",
                "6F1C1B8E-1D2A-4C3B-9E4F-5A6B7C8D9E0F",
            )
            .into_boxed_str(),
        );
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("taken");
        let run = |arrivals| {
            let (got, inbox) = received_with_state(&state, arrivals, |r| r.other_content);
            (got, inbox.redeliveries())
        };
        // The same message: a redelivery, skipped, in this run and after.
        assert_eq!(run(vec![(FACT, false), (shouted, false)]), (vec![false], 1));
        assert_eq!(run(vec![(shouted, false), (FACT, false)]), (vec![], 2));
        // Another message under the id in capitals: handed on, and said.
        let other: &'static str = Box::leak(shouted.replace("\"x\"", "\"y\"").into_boxed_str());
        assert_eq!(run(vec![(other, false)]), (vec![true], 0));
        // A state file of raw ids, the capitals as they came.
        std::fs::write(&state, "msp:6F1C1B8E-1D2A-4C3B-9E4F-5A6B7C8D9E0F\n").unwrap();
        assert_eq!(run(vec![(FACT, false)]), (vec![], 1));
    }

    /// A state file an older aiproto wrote (ids without a digest) keeps
    /// its promise: those ids are not taken again, whatever their content.
    #[test]
    fn an_older_state_file_still_keeps_its_ids() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("taken");
        std::fs::write(&state, "msp:6f1c1b8e-1d2a-4c3b-9e4f-5a6b7c8d9e0f\n").unwrap();
        let mut inbox = Inbox::new(None).remembering(&state).unwrap();
        let mut got = 0;
        inbox
            .receive(
                &mut Fixed(vec![(FACT, false), (OTHER, false)]),
                &Listen::default(),
                |_| {
                    got += 1;
                    Ok(Vec::new())
                },
            )
            .unwrap();
        assert_eq!((got, inbox.redeliveries()), (1, 1));
    }
}
