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
    /// A generated envelope (its canonical text is `render` of it).
    pub(crate) fn envelope()(
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
        let _ = read(&text, chrono::Utc::now(), usize::MAX);
    }

    #[test]
    fn arbitrary_unicode_is_read_without_panicking(text in "\\PC{0,200}") {
        let _ = read(&text, chrono::Utc::now(), usize::MAX);
    }

    #[test]
    fn chat_ui_damage_reads_back_with_each_repair_reported(
        env in envelope(),
        damage in damage(),
    ) {
        let (text, expected) = damage.apply(&render(&env));
        let doc = crate::reader::Document::from_source(
            crate::input::Source { name: "t".into(), text: text.clone() },
            None,
            &crate::protocols::ReadOptions::default(),
        );
        prop_assert_eq!(doc.messages.len(), 1, "{}", text);
        let found = &doc.messages[0];
        let crate::protocols::Value::Crosstalk(parsed) = &found.value else {
            return Err(TestCaseError::fail("not read as Crosstalk"));
        };
        prop_assert_eq!(&parsed.envelope, &env, "{}", text);
        for &code in &expected {
            prop_assert!(
                found.diagnostics.iter().any(|d| d.code == code && !d.is_error()),
                "{} not reported for\n{}\n{:?}", code, text, found.diagnostics
            );
        }
        prop_assert!(!found.is_valid(true) || expected.is_empty(), "--strict accepts a repaired envelope");
    }

    #[test]
    fn an_envelope_cut_before_its_end_is_an_error(env in envelope(), cut in any::<prop::sample::Index>()) {
        let text = render(&env);
        let lines: Vec<&str> = text.lines().collect();
        // Cut after any line before [[END]] (the header line at least).
        let keep = 1 + cut.index(lines.len() - 1);
        let cut_text = lines[..keep].join("\n") + "\n";
        let found = crate::protocols::Protocol::Crosstalk.read(&cut_text, &crate::protocols::ReadOptions::default());
        prop_assert_eq!(found.len(), 1);
        prop_assert!(found[0].diagnostics.iter().any(|d| d.code == "CT-END-MISSING" && d.is_error()));
        prop_assert!(!found[0].is_complete());
        prop_assert_eq!(found[0].canonical(), None, "a cut-off envelope is never rendered whole");
    }
}

/// What chat UIs, editors and people do to a pasted envelope.
#[derive(Debug, Clone)]
struct Damage {
    bom: bool,
    header_markdown: Option<&'static str>,
    end_markdown: Option<&'static str>,
    nbsp_in_structure: bool,
    zero_width_in_structure: bool,
    nbsp_indentation: bool,
    lost_indentation: bool,
    crlf: bool,
    quote: bool,
    fence: bool,
    title_case: bool,
    bulleted: bool,
    /// Split in two parts, each in its own code block.
    in_parts: bool,
}

fn damage() -> impl Strategy<Value = Damage> {
    let markdown = prop::option::of(prop::sample::select(vec![
        "**{}**", "### {}", "`{}`", "- {}", "__{}__",
    ]));
    (
        (any::<bool>(), markdown.clone(), markdown),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
        any::<bool>(),
    )
        .prop_map(
            |(
                (bom, header_markdown, end_markdown),
                (nbsp_in_structure, zero_width_in_structure, nbsp_indentation, lost_indentation),
                (crlf, quote, fence, title_case, bulleted),
                in_parts,
            )| Damage {
                bom,
                header_markdown,
                end_markdown,
                nbsp_in_structure,
                zero_width_in_structure,
                nbsp_indentation,
                lost_indentation,
                crlf,
                quote,
                fence,
                title_case,
                bulleted,
                in_parts,
            },
        )
}

impl Damage {
    /// The damaged text, and the repair codes that must be reported. A
    /// damage that cannot apply to this envelope (no body to unindent) is skipped.
    fn apply(&self, canonical: &str) -> (String, Vec<&'static str>) {
        let mut expected = Vec::new();
        let mut lines: Vec<String> = canonical.lines().map(str::to_string).collect();
        let body_start = lines.iter().position(|l| l == "body: |").map(|i| i + 1);
        let sig = lines
            .iter()
            .position(|l| l.starts_with("sig:"))
            .unwrap_or(lines.len() - 1);
        let body = body_start.map_or(0..0, |b| b..sig);
        // Lost indentation reads back only for a body whose lines carry no
        // indentation of their own and look like nothing else.
        let plain_body = !body.is_empty()
            && lines[body.clone()].iter().all(|l| {
                let c = l.strip_prefix("  ").unwrap_or("");
                !c.is_empty()
                    && !c.starts_with(|ch: char| {
                        ch.is_whitespace()
                            || crate::chars::is_invisible(ch)
                            || ch == '>'
                            || ch == '#'
                            || ch == '-'
                            || ch == '*'
                            || ch == '`'
                            || ch == '_'
                            || ch == '~'
                            || ch == '['
                            || ch == '+'
                            || ch == '•'
                    })
                    && !c.contains(':')
                    && !c.contains("[[")
                    && !c.contains("->")
                    && !c.contains('→')
            });
        if self.lost_indentation && plain_body {
            for l in &mut lines[body.clone()] {
                *l = l[2..].to_string();
            }
            expected.push("CT-BODY-INDENT");
        } else if self.nbsp_indentation && !body.is_empty() {
            let mut any = false;
            for l in &mut lines[body.clone()] {
                if let Some(rest) = l.strip_prefix("  ")
                    && !rest.starts_with([' ', '\t'])
                    && !rest.starts_with(crate::chars::is_unicode_space)
                {
                    *l = format!("\u{a0}\u{a0}{rest}");
                    any = true;
                }
            }
            if any {
                expected.push("CT-REPAIR-INDENT");
            }
        }
        let header_lines = 1..body_start.map_or(sig, |b| b - 1);
        if self.nbsp_in_structure {
            // Between the header line's route and its version token.
            lines[0] = lines[0].replacen(" v1]]", "\u{a0}v1]]", 1);
            expected.push("CT-REPAIR-SPACE");
        }
        if self.zero_width_in_structure {
            let target = header_lines
                .clone()
                .find(|&i| lines[i].contains(": ") && !lines[i].starts_with(char::is_uppercase))
                .unwrap_or(sig);
            if target < lines.len() && lines[target].contains(':') {
                lines[target] = lines[target].replacen(':', "\u{200b}:", 1);
                expected.push("CT-REPAIR-INVISIBLE");
            }
        }
        if self.title_case {
            // The header names, `body: |` and `sig:`, as a chat capitalises them.
            let mut any = false;
            let names: Vec<usize> = header_lines
                .clone()
                .chain(body_start.map(|b| b - 1))
                .chain(std::iter::once(sig))
                .collect();
            for i in names {
                let Some((name, _)) = lines[i].split_once(':') else {
                    continue;
                };
                let known = super::envelope::HEADER_ORDER.contains(&name)
                    || ["body", "sig"].contains(&name);
                if known {
                    let mut chars = name.chars();
                    let first = chars
                        .next()
                        .map(|c| c.to_ascii_uppercase())
                        .unwrap_or_default();
                    lines[i] = format!("{first}{}{}", chars.as_str(), &lines[i][name.len()..]);
                    any = true;
                }
            }
            if any {
                expected.push("CT-REPAIR-CASE");
            }
        }
        if let Some(wrap) = self.header_markdown {
            lines[0] = wrap.replace("{}", &lines[0]);
            expected.push("CT-REPAIR-MARKDOWN");
        }
        if let Some(wrap) = self.end_markdown {
            let last = lines.len() - 1;
            lines[last] = wrap.replace("{}", &lines[last]);
            expected.push("CT-REPAIR-MARKDOWN");
        }
        // Before a body line that is not blank (blank lines at a break
        // belong to the break): the first part's code block closes, a
        // marker, the second part's opens.
        let break_at = (body.start + 1..body.end).find(|&i| !lines[i].trim().is_empty());
        if self.in_parts
            && !self.bulleted
            && !self.lost_indentation
            && let Some(at) = break_at
        {
            for (n, line) in ["```", "", "**Part 2/2 (continued)**", "", "```"]
                .iter()
                .enumerate()
            {
                lines.insert(at + n, (*line).to_string());
            }
            expected.push("CT-REPAIR-JOIN");
        }
        if self.bulleted {
            // Every line a Markdown list item, as a chat renders a list.
            for l in &mut lines {
                *l = if l.is_empty() {
                    "-".into()
                } else {
                    format!("- {l}")
                };
            }
            expected.push("CT-REPAIR-MARKDOWN");
        }
        let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        if self.quote {
            text = text
                .lines()
                .map(|l| {
                    if l.is_empty() {
                        ">\n".to_string()
                    } else {
                        format!("> {l}\n")
                    }
                })
                .collect();
        }
        if self.fence {
            text = format!("Here you go:\n```\n{text}```\nThanks!\n");
        }
        if self.crlf {
            text = text.replace('\n', "\r\n");
        }
        if self.bom {
            text.insert(0, crate::chars::BOM);
            expected.push("INPUT-BOM");
        }
        (text, expected)
    }
}
