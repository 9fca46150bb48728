//! Property tests of the writing path: a message that is only moved — read
//! by `recv` or `relay`, POSTed to `serve` (its `--exec` handler, its
//! `--inbox`), appended to an archive, sent to stdout — is written byte for
//! byte as it was read: big integers, `1.50`, `-0`, escapes, key order and
//! the spaces inside a line kept. Re-serialising is a conversion.

use proptest::prelude::*;

use super::archive;
use super::binding::Binding;
use super::handler::Handler;
use super::inbox::Inbox;
use super::inbox::tests::Fixed;
use super::stored::Quota;
use crate::input::{Input, Source};
use crate::protocols::ReadOptions;
use crate::reader::Document;
use crate::transport::Listen;
use crate::transport::server::Exchange;

/// Spaces and tabs between tokens: what a person or a peer's serialiser
/// puts inside a line.
fn gap() -> impl Strategy<Value = String> {
    "[ \t]{0,2}"
}

/// A JSON number as a peer may write it, a double's limits included.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("12345678901234567890123".to_string()),
        Just("1.50".to_string()),
        Just("-0".to_string()),
        Just("-0.0".to_string()),
        Just("1E+2".to_string()),
        Just("0.1e-7".to_string()),
        Just("9007199254740993".to_string()),
        "-?(0|[1-9][0-9]{0,25})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,2})?",
    ]
}

/// A JSON string with escapes a serialiser would write otherwise.
fn string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-zA-Z0-9 ]",
        Just("\\u00e9".to_string()),
        Just("\\ud83d\\ude00".to_string()),
        Just("\\/".to_string()),
        Just("\\n".to_string()),
        Just("é".to_string()),
        Just("😀".to_string()),
        Just("\\\"".to_string()),
    ];
    prop::collection::vec(piece, 0..6).prop_map(|pieces| format!("\"{}\"", pieces.concat()))
}

/// Any JSON value, on one line, with gaps between its tokens.
fn value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        number(),
        string(),
        Just("true".to_string()),
        Just("null".to_string())
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (prop::collection::vec((gap(), inner.clone()), 0..3)).prop_map(|items| {
                let items: Vec<String> =
                    items.into_iter().map(|(g, v)| format!("{g}{v}")).collect();
                format!("[{}]", items.join(","))
            }),
            (prop::collection::vec(("[a-z]{1,4}", gap(), inner), 0..3)).prop_map(|pairs| {
                let pairs: Vec<String> = pairs
                    .into_iter()
                    .enumerate()
                    .map(|(i, (k, g, v))| format!("\"{k}{i}\":{g}{v}"))
                    .collect();
                format!("{{{}}}", pairs.join(","))
            }),
        ]
    })
}

/// A valid HSP 0.1 Fact on one line: its fields in any order, extension
/// fields of any value, any gaps, its confidence written any way.
fn hsp_fact() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(value(), 0..3),
        prop_oneof![Just("0.90"), Just("1"), Just("0.5e0"), Just("1.0")],
        any::<u64>(),
        prop::collection::vec(gap(), 24),
    )
        .prop_map(|(extras, confidence, seed, gaps)| {
            let mut fields = vec![
                r#""hsp_envelope_version":"0.1""#.to_string(),
                format!(r#""message_id":"018f4a6e-8c1b-7d2a-9e3f-{:012x}""#, seed >> 16),
                r#""sender_ai_id":"did:hsp:ai_alpha""#.to_string(),
                r#""recipient_ai_id":"did:hsp:ai_beta""#.to_string(),
                r#""timestamp_sent":"2024-07-05T14:00:00Z""#.to_string(),
                r#""message_type":"HSP::Fact_v0.1""#.to_string(),
                r#""protocol_version":"0.1""#.to_string(),
                r#""communication_pattern":"publish""#.to_string(),
                format!(
                    r#""payload":{{"id":"fact-1","statement_type":"natural_language","statement_nl":"The sky is blue","source_ai_id":"did:hsp:ai_alpha","timestamp_created":"2024-07-05T14:00:00Z","confidence_score":{confidence}}}"#
                ),
            ];
            fields.extend(
                extras
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| format!("\"x_ext{i}\":{v}")),
            );
            // A shuffle from the seed: any key order.
            let mut order: Vec<usize> = (0..fields.len()).collect();
            let mut state = seed | 1;
            for i in (1..order.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                order.swap(i, (state % (i as u64 + 1)) as usize);
            }
            let joined: Vec<String> = order
                .iter()
                .zip(gaps.iter().cycle())
                .map(|(i, g)| format!("{g}{}", fields[*i]))
                .collect();
            format!("{{{}}}\n", joined.join(","))
        })
}

/// What `recv` and `relay` hand on of `text`: read as a stream (a file,
/// stdin) and as one arrival (an MQTT payload, a clipboard's text).
fn received(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let input = Input::Text(Source {
        name: "<stdin>".into(),
        text: text.into(),
    });
    Inbox::new(None)
        .receive_input(&input, &Listen::default(), |r| {
            out.push(r.text.to_string());
            Ok(Vec::new())
        })
        .expect("read");
    Inbox::new(None)
        .receive(&mut Fixed(vec![(text, false)]), &Listen::default(), |r| {
            out.push(r.text.to_string());
            Ok(Vec::new())
        })
        .expect("received");
    out
}

/// What `serve` hands its `--exec` handler (which echoes it), stores in
/// its `--inbox` and hands on, for one POST of `text` to `/hsp`.
fn served(text: &str) -> Vec<String> {
    let dir = tempfile::tempdir().expect("tempdir");
    let handler = Handler {
        command: "cat".into(),
        timeout: std::time::Duration::from_secs(30),
    };
    let quota = Quota::of(dir.path(), 1 << 30, 1000).expect("quota");
    let binding = Binding::new(Some((dir.path().to_path_buf(), quota)), Some(handler));
    let mut out = Vec::new();
    let answer = binding.handle("/hsp", text.to_string(), &mut |t| {
        out.push(t);
        Ok(())
    });
    assert_eq!(answer.status, 200, "{}", answer.body);
    // The handler's reply is what it read.
    out.push(answer.body.clone());
    for entry in std::fs::read_dir(dir.path()).expect("inbox") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            out.push(std::fs::read_to_string(path).expect("stored"));
        }
    }
    out
}

/// What an archive holds once `text` is appended to it `times` times (a
/// message with an id is added once).
fn archived(text: &str, times: usize) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("a.jsonl");
    for _ in 0..times {
        let input = Input::Text(Source {
            name: "<stdin>".into(),
            text: text.into(),
        });
        archive::append(&path, &[input]).expect("appended");
    }
    std::fs::read_to_string(&path).expect("archive")
}

/// What `send --via -` writes of `text`.
fn sent(text: &str) -> Vec<String> {
    let source = Source {
        name: "<stdin>".into(),
        text: text.into(),
    };
    let doc = Document::from_source(source, None, &ReadOptions::default());
    doc.messages
        .iter()
        .filter_map(|f| f.written(&doc.source.text))
        .collect()
}

proptest! {
    #![proptest_config(crate::proptest_config::config(64))]

    #[test]
    fn json_messages_are_written_as_they_came(line in hsp_fact()) {
        let doc = Document::from_source(
            Source { name: "t".into(), text: line.clone() },
            None,
            &ReadOptions::default(),
        );
        prop_assert!(doc.messages.len() == 1 && doc.messages[0].is_valid(false),
            "not a valid message: {line}\n{:?}", doc.messages.first().map(|f| &f.diagnostics));
        for (path, got) in received(&line).into_iter().map(|t| ("recv", t))
            .chain(sent(&line).into_iter().map(|t| ("send", t)))
            .chain(std::iter::once(("archive", archived(&line, 2))))
        {
            prop_assert_eq!(&got, &line, "{} rewrote the message", path);
        }
        let served = served(&line);
        prop_assert_eq!(served.len(), 3);
        for got in served {
            prop_assert_eq!(&got, &line, "serve rewrote the message");
        }
    }

    #[test]
    fn crosstalk_envelopes_are_written_as_they_came(
        env in crate::protocols::crosstalk::proptests::envelope()
    ) {
        let text = crate::protocols::crosstalk::render(&env);
        for got in received(&text).into_iter()
            .chain(sent(&text))
            .chain(std::iter::once(archived(&text, 1)))
        {
            prop_assert_eq!(&got, &text);
        }
    }
}

/// A message spread over lines (pretty-printed) goes out on one line, every
/// token as written: JSON Lines and MQTT payloads hold one line each.
#[test]
fn a_message_over_several_lines_is_joined_with_its_tokens_kept() {
    let text = "{\n  \"hsp_envelope_version\": \"0.1\",\n  \"message_id\": \"018f4a6e-8c1b-7d2a-9e3f-000000000001\",\n  \"sender_ai_id\": \"did:hsp:a\",\n  \"recipient_ai_id\": \"did:hsp:b\",\n  \"timestamp_sent\": \"2024-07-05T14:00:00Z\",\n  \"message_type\": \"HSP::Fact_v0.1\",\n  \"protocol_version\": \"0.1\",\n  \"communication_pattern\": \"publish\",\n  \"x\": 12345678901234567890123,\n  \"payload\": {\"id\": \"f\", \"statement_type\": \"natural_language\", \"statement_nl\": \"s\", \"source_ai_id\": \"did:hsp:a\", \"timestamp_created\": \"2024-07-05T14:00:00Z\", \"confidence_score\": 0.90}\n}\n";
    let one_line = "{\"hsp_envelope_version\":\"0.1\",\"message_id\":\"018f4a6e-8c1b-7d2a-9e3f-000000000001\",\"sender_ai_id\":\"did:hsp:a\",\"recipient_ai_id\":\"did:hsp:b\",\"timestamp_sent\":\"2024-07-05T14:00:00Z\",\"message_type\":\"HSP::Fact_v0.1\",\"protocol_version\":\"0.1\",\"communication_pattern\":\"publish\",\"x\":12345678901234567890123,\"payload\":{\"id\":\"f\",\"statement_type\":\"natural_language\",\"statement_nl\":\"s\",\"source_ai_id\":\"did:hsp:a\",\"timestamp_created\":\"2024-07-05T14:00:00Z\",\"confidence_score\":0.90}}\n";
    for got in received(text).into_iter().chain(sent(text)) {
        assert_eq!(got, one_line);
    }
    assert_eq!(archived(text, 2), one_line);
}

/// A saved mail is read as the text it carries, and what recv hands on is
/// the message in it, not a line of the mail's encoding.
#[test]
fn a_message_in_a_quoted_printable_mail_is_handed_on_decoded() {
    let mail = "From: a@example.com\r\nTo: b@example.com\r\nSubject: fact\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n{\"hsp_envelope_version\":\"0.1\",\"message_id\":\"018f4a6e-8c1b-7d2a-9e3f-000000000002\",\"sender_ai_id\":\"did:hsp:a\",\"recipient_ai_id\":\"did:hsp:b\",\"timestamp_sent\":\"2024-07-05T14:00:00Z\",\"message_type\":\"HSP::Fact_v0.1\",\"protocol_version\":\"0.1\",\"communication_pattern\":\"publish\",\"payload\":{\"id\":\"f\",\"statement_type\":\"natural_language\",\"statement_nl\":\"caf=C3=A9\",\"source_ai_id\":\"did:hsp:a\",\"timestamp_created\":\"2024-07-05T14:00:00Z\",\"confidence_score\":0.90}}\r\n";
    let got = received(mail);
    assert_eq!(got.len(), 2);
    for text in got {
        assert!(text.contains("\"statement_nl\":\"café\""), "{text}");
        assert!(text.contains("0.90"), "{text}");
    }
}
