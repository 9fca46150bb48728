//! Property tests: canonical text survives parse → render byte for byte,
//! generated envelopes survive render → parse, paste damage changes nothing,
//! and no input at all makes the reader panic.

use proptest::prelude::*;

use super::envelope::Envelope;
use super::{parse_all, read, render};
use crate::model::MetaBlock;

fn value() -> impl Strategy<Value = String> {
    "[A-Za-z0-9][A-Za-z0-9 ._:/→@-]{0,24}".prop_map(|s| s.trim().to_string())
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Z][A-Z0-9_-]{0,10}",
        "(claude|chatgpt|human)://[a-z]{1,6}/[a-z0-9]{1,8}",
        "email:[a-z]{1,5}@[a-z]{1,5}\\.com"
    ]
}

fn meta_block() -> impl Strategy<Value = MetaBlock> {
    let key = prop_oneof![
        "[A-Z][a-zA-Z0-9]{0,8}(-[A-Z][a-z]{0,4})?",
        "X-[A-Za-z]{1,6}"
    ];
    (
        "[a-z][a-z0-9-]{0,10}",
        prop::collection::vec((key, value()), 0..4),
    )
        .prop_map(|(namespace, entries)| MetaBlock { namespace, entries })
}

fn body() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        Just(String::new()),
        "[ \t]{0,3}[^\r\n]{0,40}".prop_map(|s| s.to_string())
    ];
    (prop::collection::vec(line, 0..6), "[^\r\n\t ][^\r\n]{0,30}").prop_map(|(mut lines, last)| {
        lines.push(last.trim_end().to_string());
        let text = lines.join("\n");
        text.trim_end().to_string()
    })
}

prop_compose! {
    fn envelope()(
        sender in name(),
        receiver in name(),
        headers in prop::collection::vec(prop::option::of(value()), 7),
        extra in prop::collection::vec(("x-[a-z]{1,6}", value()), 0..2),
        meta in prop::collection::vec(meta_block(), 0..3),
        body in prop::option::of(body()),
        sig in prop::option::of(prop_oneof![Just("none".to_string()), "ed25519:pkid=[a-z]{1,8};sig=[A-Za-z0-9+/]{4,12}"]),
    ) -> Envelope {
        let mut env = Envelope { sender, receiver, version_token: "v1".into(), extra_headers: extra, meta, body, sig, ..Envelope::default() };
        for (name, value) in super::envelope::HEADER_ORDER.iter().zip(headers) {
            if let Some(slot) = env.header_mut(name) {
                *slot = value;
            }
        }
        env
    }
}

proptest! {
    #![proptest_config(crate::proptest_config::config(512))]

    #[test]
    fn parse_of_render_is_the_envelope(env in envelope()) {
        let text = render(&env);
        let parsed = parse_all(&text);
        prop_assert_eq!(parsed.len(), 1);
        prop_assert_eq!(&parsed[0].envelope, &env);
        prop_assert!(parsed[0].diagnostics.iter().all(|d| !d.is_error()), "{:?}", parsed[0].diagnostics);
    }

    #[test]
    fn render_of_parse_is_byte_identical_for_canonical_text(env in envelope()) {
        let canonical = render(&env);
        let again = render(&parse_all(&canonical)[0].envelope);
        prop_assert_eq!(again, canonical);
    }

    #[test]
    fn paste_damage_does_not_change_the_envelope(env in envelope(), crlf: bool, quote: bool, fence: bool, ascii_arrow: bool) {
        let mut text = render(&env);
        if ascii_arrow {
            text = text.replacen('→', "->", 1);
        }
        if quote {
            text = text.lines().map(|l| if l.is_empty() { ">\n".to_string() } else { format!("> {l}\n") }).collect();
        }
        if fence {
            text = format!("Here you go:\n```\n{text}```\nThanks!\n");
        }
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        let parsed = parse_all(&text);
        prop_assert_eq!(parsed.len(), 1);
        prop_assert_eq!(&parsed[0].envelope, &env);
    }

    #[test]
    fn any_text_is_read_without_panicking(text in "(\\[\\[|\\]\\]|→|->| v1|\n|  |\t|> |body: \\||meta: |sig: |[A-Za-z:|]{1,5}){0,60}") {
        let _ = read(&text, chrono::Utc::now());
    }

    #[test]
    fn arbitrary_unicode_is_read_without_panicking(text in "\\PC{0,200}") {
        let _ = read(&text, chrono::Utc::now());
    }
}
