//! Reads the lines of one envelope (found by `extract`) into an [`Envelope`],
//! reporting syntax problems with their line and column.

use std::borrow::Cow;

use super::envelope::{Envelope, HEADER_ORDER, Locations};
use super::extract::{self, Block, Line};
use super::repair::{self, Repairs};
use super::sig_line::ALGORITHMS;
use crate::chars;
use crate::diag::{Diagnostic, Pos};
use crate::model::MetaBlock;

/// An envelope read from a source, with where its parts are and what was wrong.
#[derive(Debug, Clone)]
pub struct ParsedEnvelope {
    pub envelope: Envelope,
    pub locations: Locations,
    pub diagnostics: Vec<Diagnostic>,
    /// 1-based line numbers of the header line and the last line.
    pub start_line: usize,
    pub end_line: usize,
    /// Whether the envelope ends with its own `[[END]]` line; one that does
    /// not was cut off, and is never written out as if whole.
    pub complete: bool,
    /// Whether the body came from the upstream `response: |` reply shape.
    pub legacy_response: bool,
    /// The body lines as written, indentation included (the detached JWS
    /// form of the canonicalization appendix signs them so).
    pub body_raw: Option<String>,
    /// Whether it was quoted (`> `) in the text it was read from.
    pub quoted: bool,
    /// Whether its lines were joined into one: nothing in it can be told
    /// apart, so it is one finding and no checks.
    pub lines_joined: bool,
    /// With a `hash:` line: the hash of the lines as they came (see `check`).
    pub raw_hash: Option<String>,
}

enum State {
    Headers,
    Meta,
    Body { unindented: bool },
    AfterBody,
}

/// Parses one block of envelope lines.
pub fn parse_block(block: &Block<'_>) -> ParsedEnvelope {
    let first = &block.lines[0];
    let last = &block.lines[block.lines.len() - 1];
    let mut p = Parser {
        env: Envelope::default(),
        loc: Locations::default(),
        diags: Vec::new(),
        repairs: block.repairs.clone(),
        body_lines: Vec::new(),
        discard_body: false,
        nested_depth: 0,
        last_line_chars: 0,
        legacy_response: false,
        body_raw: None,
    };
    if let Some((head, rest)) = extract::joined_header(first.text.trim_end()) {
        let mut joined = p.joined(first, head, rest);
        joined.quoted = block.quoted;
        return joined;
    }
    p.header_line(first);
    let mut state = State::Headers;
    let rest = &block.lines[1..];
    for (i, line) in rest.iter().enumerate() {
        let is_last = i + 1 == rest.len();
        if is_last && block.terminated {
            p.loc.end = line.pos(0);
            break;
        }
        state = p.line(line, state, rest.get(i + 1));
    }
    p.finish_body();
    let raw_hash = p.env.hash.as_ref().and_then(|_| raw_hash(block, p.loc.sig));
    p.diags
        .extend(std::mem::take(&mut p.repairs).into_diagnostics());
    if !block.terminated {
        let end = last.pos(last.text.chars().count());
        p.loc.end = end;
        p.diags.push(
            Diagnostic::error(
                "CT-END-MISSING",
                "envelope is not closed by an [[END]] line",
            )
            .at(end, 1)
            .with_hint(
                "the envelope was cut off (the chat UI stopped, or the copy missed the end): \
                 copy the whole reply again, down to its [[END]] line",
            ),
        );
    }
    // The upstream 1.0 reply shape names no intent: it is an answer, and is
    // read (and written again) as `intent: RESPOND` with a `body:`.
    if p.legacy_response && p.env.intent.is_none() {
        p.env.intent = Some(crate::model::Intent::Respond.as_str().to_string());
    }
    ParsedEnvelope {
        envelope: p.env,
        locations: p.loc,
        diagnostics: p.diags,
        start_line: first.number,
        end_line: last.number,
        complete: block.terminated,
        legacy_response: p.legacy_response,
        body_raw: p.body_raw,
        quoted: block.quoted,
        lines_joined: false,
        raw_hash,
    }
}

/// The `hash:` of an envelope's lines as they came (prefixes and line ends
/// taken off, the header line as read), from its header line to its `sig:`
/// line: the upstream computes it over the text as written, which a
/// layout other than the canonical one changes.
fn raw_hash(block: &Block<'_>, sig: Option<Pos>) -> Option<String> {
    let sig_line = sig?.line;
    let lines: Vec<&str> = block
        .lines
        .iter()
        .take_while(|l| l.number <= sig_line)
        .map(|l| &*l.text)
        .collect();
    Some(super::render::hash_of(&lines.join("\n")))
}

impl Parser {
    /// The envelope of a header line that holds the whole envelope, its
    /// line breaks lost: the route read, and one finding naming the cause.
    fn joined(mut self, line: &Line<'_>, head: &str, rest: &str) -> ParsedEnvelope {
        let header = Line {
            text: Cow::Borrowed(head),
            ..line.clone()
        };
        self.header_line(&header);
        let names: Vec<String> = rest
            .split_whitespace()
            .filter_map(|word| word.strip_suffix(':'))
            .filter(|name| HEADER_ORDER.contains(name) || ["meta", "body", "sig"].contains(name))
            .map(|name| format!("`{name}:`"))
            .collect();
        let mut follows = if names.is_empty() {
            "more of the envelope".to_string()
        } else {
            names.join(", ")
        };
        if rest.contains("[[END]]") {
            follows.push_str(" and [[END]]");
        }
        let at = line.pos(head.chars().count());
        self.diags.push(
            Diagnostic::error(
                "CT-LINES-JOINED",
                format!(
                    "the envelope's line breaks were lost: {follows} follow the header on this line"
                ),
            )
            .at(at, rest.trim_end().chars().count())
            .with_hint(
                "a chat UI or editor joined the lines into one; copy the envelope again from the \
                 chat's code block or copy button, which keeps its lines",
            ),
        );
        ParsedEnvelope {
            envelope: self.env,
            locations: self.loc,
            diagnostics: self.diags,
            start_line: line.number,
            end_line: line.number,
            complete: false,
            legacy_response: false,
            body_raw: None,
            quoted: false,
            lines_joined: true,
            raw_hash: None,
        }
    }
}

struct Parser {
    env: Envelope,
    loc: Locations,
    diags: Vec<Diagnostic>,
    /// What chat UIs did to the text, undone.
    repairs: Repairs,
    /// Each body line's content and the line as written.
    body_lines: Vec<(String, String)>,
    body_raw: Option<String>,
    /// Set while reading a second body, which is reported and dropped.
    discard_body: bool,
    /// How deep inside example envelopes of an unindented body.
    nested_depth: usize,
    /// The length of the last body line as written, in characters.
    last_line_chars: usize,
    legacy_response: bool,
}

/// Character offset of a byte offset within a line's text.
fn char_offset(text: &str, byte: usize) -> usize {
    text[..byte].chars().count()
}

impl Parser {
    fn header_line(&mut self, line: &Line<'_>) {
        let text = line.text.trim_end();
        self.loc.header_line = line.pos(0);
        let inner = &text[2..text.len() - 2];
        let malformed = |msg: &str| {
            Diagnostic::error("CT-HEADER-MALFORMED", msg.to_string())
                .at(line.pos(0), text.chars().count())
                .with_hint("the first line must look like [[SENDER→RECEIVER v1]]")
        };
        let Some((route, version)) = inner.rsplit_once(' ') else {
            self.diags
                .push(malformed("header line has no version token (v1)"));
            self.split_route(inner, line, 2);
            return;
        };
        self.env.version_token = version.to_string();
        if !matches!(version, "v1" | "v1.0" | "v1.1") {
            let at = line.pos(2 + char_offset(inner, route.len() + 1));
            self.diags.push(
                Diagnostic::error(
                    "CT-HEADER-VERSION",
                    format!("unsupported protocol version `{version}`"),
                )
                .at(at, version.chars().count())
                .with_hint("aiproto reads v1 envelopes (Crosstalk 1.0 and 1.1)"),
            );
        }
        if !self.split_route(route, line, 2) {
            // `?` (or U+FFFD) where the arrow was: saved in an 8-bit
            // encoding that has no → (Notepad's "ANSI", Windows-1252).
            let lossy = route
                .find(['?', '\u{FFFD}'])
                .filter(|i| *i > 0 && *i + 1 < route.len());
            let d = match lossy {
                Some(_) => malformed(
                    "header line has `?` where the arrow → belongs: the text was saved in an 8-bit encoding that has no → (Notepad's \"ANSI\", Windows-1252), which lost it",
                )
                .with_hint("save the file as UTF-8 and copy the envelope again, or write the arrow as ->"),
                None => malformed("header line has no arrow between sender and receiver"),
            };
            self.diags.push(d);
        }
    }

    /// Splits `SENDER→RECEIVER` (or `->`); returns false when there is no arrow.
    fn split_route(&mut self, route: &str, line: &Line<'_>, offset: usize) -> bool {
        let arrow = [
            route.find('→').map(|i| (i, '→'.len_utf8())),
            route.find("->").map(|i| (i, 2)),
        ]
        .into_iter()
        .flatten()
        .min_by_key(|(i, _)| *i);
        let Some((at, len)) = arrow else {
            return false;
        };
        let sender = &route[..at];
        let receiver = &route[at + len..];
        self.loc.sender =
            line.pos(offset + char_offset(route, sender.len() - sender.trim_start().len()));
        self.loc.receiver = line.pos(offset + char_offset(route, at + len));
        self.env.sender = sender.trim().to_string();
        self.env.receiver = receiver.trim().to_string();
        for (name, value, at) in [
            ("sender", &self.env.sender, self.loc.sender),
            ("receiver", &self.env.receiver, self.loc.receiver),
        ] {
            if value.is_empty() {
                self.diags.push(
                    Diagnostic::error(
                        "CT-HEADER-MALFORMED",
                        format!("header line has an empty {name}"),
                    )
                    .at(at, 1),
                );
            }
        }
        true
    }

    fn line(&mut self, line: &Line<'_>, mut state: State, next: Option<&Line<'_>>) -> State {
        if let State::Body { unindented } = state {
            // A body that lost its indentation is read as it stands (a line
            // still indented was indented deeper). An example envelope in
            // it (see `extract`) may have its own `sig:` line: only the
            // outer one ends the body.
            if unindented && (self.nested_depth > 0 || !extract::is_sig_line(&line.text)) {
                if extract::is_header(&line.text) {
                    self.nested_depth += 1;
                } else if line.text.trim() == "[[END]]" {
                    self.nested_depth = self.nested_depth.saturating_sub(1);
                }
                self.body_lines
                    .push((line.text.to_string(), line.text.to_string()));
                return State::Body { unindented };
            }
            if let Some((content, odd)) = indented_content(&line.text) {
                if let Some(c) = odd {
                    self.repairs.note(
                        "CT-REPAIR-INDENT",
                        chars::describe(c),
                        line.pos(0),
                        1,
                        format!(
                            "{} used as body indentation, read as a space",
                            chars::describe(c)
                        ),
                    );
                }
                self.body_lines
                    .push((content.into_owned(), line.text.to_string()));
                self.last_line_chars = line.text.chars().count();
                return State::Body { unindented };
            }
            if !unindented && self.body_line_wrapped(line) {
                return State::Body { unindented };
            }
            self.finish_body();
            state = State::AfterBody;
        }
        if let State::Meta = state
            && let Some(entry) = self.meta_entry_line(line)
        {
            self.meta_entry(&entry);
            return State::Meta;
        }
        let cleaned = self.clean(line);
        let line = &cleaned;
        match state {
            State::Meta if line.text.trim().is_empty() => State::Headers,
            State::Meta => self.top_level(line, State::Headers, next),
            other => self.top_level(line, other, next),
        }
    }

    /// A line of a meta block that is an entry (not blank, not the start of
    /// a header, body or another block), with its key cleaned. The value is
    /// kept exactly as written: it may carry any text.
    fn meta_entry_line<'l>(&mut self, line: &'l Line<'_>) -> Option<Line<'l>> {
        let raw: &'l str = &line.text;
        // The key, the colon and the spaces after it are structure; the
        // value from its first visible character on is kept as written.
        let key_end = raw.find(':').map_or(raw.len(), |colon| {
            let value = &raw[colon + 1..];
            colon + 1 + value.len()
                - value
                    .trim_start_matches(|c: char| c == ' ' || chars::is_unicode_space(c))
                    .len()
        });
        let mut repairs = Repairs::default();
        let key = repair::clean(&raw[..key_end], false, |o| line.pos(o), &mut repairs);
        let text: Cow<'l, str> = match &key.text {
            Cow::Borrowed(_) => Cow::Borrowed(raw),
            Cow::Owned(clean_key) => Cow::Owned(format!("{clean_key}{}", &raw[key_end..])),
        };
        if text.trim().is_empty() || starts_top_level(&text) {
            return None;
        }
        self.repairs.merge(repairs);
        Some(Line {
            text,
            number: line.number,
            indent: line.indent,
            removed: key.removed,
        })
    }

    /// A structural line with Unicode spaces read as spaces and invisible
    /// characters removed, and a header name a chat capitalised
    /// (`Session:`, `Body: |`) read in lower case (each reported).
    fn clean<'l>(&mut self, line: &'l Line<'_>) -> Line<'l> {
        let cleaned = repair::clean(&line.text, false, |o| line.pos(o), &mut self.repairs);
        let text = match capitalised_header(&cleaned.text) {
            Some(name) => {
                let lower = name.to_ascii_lowercase();
                self.repairs.note(
                    "CT-REPAIR-CASE",
                    String::new(),
                    line.pos(0),
                    name.chars().count(),
                    format!("header name `{name}` read as `{lower}` (header names are lower case)"),
                );
                Cow::Owned(format!("{lower}{}", &cleaned.text[name.len()..]))
            }
            None => cleaned.text,
        };
        Line {
            text,
            number: line.number,
            indent: line.indent,
            removed: cleaned.removed,
        }
    }

    /// Whether `line` continues a `sig:` line that was hard-wrapped (a mail
    /// client at 72 or 76 columns, which breaks at the only space, after
    /// `sig:`, or inside a long value): one unbroken run of printable
    /// characters — a signature value holds no space, and its key id may
    /// hold any character but `;` and `=` (`you@example.com`, `#team`) —
    /// right after a signature that is not `none`, and not `[[END]]`. It is
    /// joined to the value and the repair named.
    fn sig_continued(&mut self, line: &Line<'_>) -> bool {
        let piece = line.text.trim();
        let Some(sig) = self.env.sig.as_mut() else {
            return false;
        };
        let signature_chars = |c: char| !c.is_whitespace() && !c.is_control();
        if sig == "none"
            || piece.is_empty()
            || piece.starts_with("[[")
            || !piece.chars().all(signature_chars)
        {
            return false;
        }
        sig.push_str(piece);
        self.repairs.note(
            "CT-REPAIR-WRAP",
            String::new(),
            line.pos(0),
            piece.chars().count(),
            "the sig: line was hard-wrapped (by a mail client?): its continuation is joined back"
                .into(),
        );
        true
    }

    /// Whether `line`, not indented inside an indented body, continues the
    /// body line before it that a mail client hard-wrapped: that line was
    /// long and this line's first word would not have fitted after it at
    /// 66 columns, the narrowest wrap mail clients use. It is joined back
    /// with the space the wrap took, and the repair named. A line that can
    /// end the body (`name: value`, `sig:`, `[[END]]`) is never joined.
    fn body_line_wrapped(&mut self, line: &Line<'_>) -> bool {
        let text = &*line.text;
        let first_word = text
            .split_whitespace()
            .next()
            .map_or(0, |w| w.chars().count());
        let ends_body = starts_top_level(text)
            || capitalised_header(text).is_some()
            || text.split_once(':').is_some_and(|(k, _)| is_header_name(k))
            || extract::is_sig_line(text)
            || text.trim_end() == "[[END]]";
        if text.trim().is_empty()
            || text.starts_with(char::is_whitespace)
            || ends_body
            || self.discard_body
            || self.last_line_chars < 40
            || self.last_line_chars + 1 + first_word <= 66
        {
            return false;
        }
        let Some((content, raw)) = self.body_lines.last_mut() else {
            return false;
        };
        for joined in [content, raw] {
            joined.push(' ');
            joined.push_str(text);
        }
        self.last_line_chars = text.chars().count();
        self.repairs.note(
            "CT-REPAIR-WRAP",
            "body".into(),
            line.pos(0),
            text.chars().count(),
            "a body line was hard-wrapped (by a mail client?): this continuation is joined back to it with a space".into(),
        );
        true
    }

    fn meta_entry(&mut self, line: &Line<'_>) {
        let text = &*line.text;
        let (Some(block), Some((_, keys))) = (self.env.meta.last_mut(), self.loc.meta.last_mut())
        else {
            return;
        };
        if text.starts_with([' ', '\t']) {
            self.diags.push(
                Diagnostic::error(
                    "CT-META-MULTILINE",
                    "meta values are single lines; this continuation line is not allowed",
                )
                .at(line.pos(0), text.chars().count())
                .with_hint("put the whole value on the Key: line, or move long text into the body"),
            );
            return;
        }
        match text.split_once(':') {
            Some((key, value)) if !key.is_empty() && !key.contains(char::is_whitespace) => {
                block
                    .entries
                    .push((key.to_string(), value.trim().to_string()));
                keys.push(line.pos(0));
            }
            _ => self.diags.push(
                Diagnostic::error(
                    "CT-META-LINE",
                    format!("expected `Key: value` in meta block `{}`", block.namespace),
                )
                .at(line.pos(0), text.chars().count()),
            ),
        }
    }

    fn top_level(&mut self, line: &Line<'_>, state: State, next: Option<&Line<'_>>) -> State {
        let text = &*line.text;
        if text.trim().is_empty() {
            return state;
        }
        // A `sig:` line a mail client hard-wrapped: its continuation is
        // joined back (the signature is one unbroken value).
        if self.sig_continued(line) {
            return state;
        }
        // The upstream's proposed `hash:` line, after `sig:` (checked in `check`).
        if let Some(value) = text.strip_prefix("hash:") {
            if self.env.hash.is_some() {
                self.duplicate(line, "hash");
            }
            let value_pos = line.pos(5 + (value.len() - value.trim_start().len()));
            self.env.hash = Some(value.trim().to_string());
            self.loc.hash = Some(value_pos);
            return state;
        }
        // The signature closes the envelope: what follows it (but [[END]])
        // would be read without being signed.
        if self.env.sig.is_some() {
            self.diags.push(
                Diagnostic::error(
                    "CT-AFTER-SIG",
                    "this line comes after the sig: line; only [[END]] may follow the signature",
                )
                .at(line.pos(0), text.trim_end().chars().count())
                .with_hint(
                    "a header or body line belongs above sig:; if a mail client wrapped a long line \
                     here, send signed envelopes as an attachment or in a code block",
                ),
            );
        }
        if let Some((key, value)) = text.split_once(':')
            && RC1_FIELDS.contains(&key)
        {
            self.env
                .extra_headers
                .push((key.to_string(), value.trim().to_string()));
            self.diags.push(
                Diagnostic::warning(
                    "CT-RC1-FIELD",
                    format!(
                        "`{key}` is a field the 1.1-rc1 roadmap proposes, not one of the 1.1 spec: kept as is"
                    ),
                )
                .at(line.pos(0), key.chars().count())
                .with_hint("kept through convert and relay; a 1.1 reader may not know it"),
            );
            return state;
        }
        let Some((key, rest)) = text.split_once(':').filter(|(k, _)| is_header_name(k)) else {
            self.diags.push(
                Diagnostic::error(
                    "CT-LINE-UNEXPECTED",
                    "unexpected line: expected a `name: value` header, `meta:`, `body: |`, `sig:` or [[END]]",
                )
                .at(line.pos(0), text.trim_end().chars().count()),
            );
            return state;
        };
        let value = rest.trim();
        let value_pos = line.pos(char_offset(
            text,
            key.len() + 1 + (rest.len() - rest.trim_start().len()),
        ));
        let after_body = matches!(state, State::AfterBody);
        match key {
            "meta" => {
                if value.is_empty() {
                    self.diags.push(
                        Diagnostic::error("CT-META-NAMESPACE", "meta block has no namespace")
                            .at(line.pos(0), text.chars().count())
                            .with_hint("write `meta: <namespace>`, e.g. `meta: routing`"),
                    );
                }
                self.env.meta.push(MetaBlock::new(value));
                self.loc.meta.push((value_pos, Vec::new()));
                State::Meta
            }
            "body" | "response" => self.body_start(line, key, value, value_pos, next),
            "sig" => {
                if self.env.sig.is_some() {
                    self.duplicate(line, key);
                }
                self.env.sig = Some(value.to_string());
                self.loc.sig = Some(value_pos);
                State::AfterBody
            }
            _ => {
                if let Some(name) = HEADER_ORDER.iter().find(|h| **h == key) {
                    if self.env.header(name).is_some() {
                        self.duplicate(line, key);
                    } else if let Some(slot) = self.env.header_mut(name) {
                        *slot = Some(value.to_string());
                        self.loc.headers.push((name, value_pos));
                    }
                    if after_body {
                        self.diags.push(
                            Diagnostic::warning(
                                "CT-HEADER-ORDER",
                                format!("header `{key}` comes after the body"),
                            )
                            .at(line.pos(0), key.chars().count())
                            .with_hint("headers belong between the [[…]] line and `body: |`"),
                        );
                    }
                } else {
                    self.env
                        .extra_headers
                        .push((key.to_string(), value.to_string()));
                    self.diags.push(
                        Diagnostic::warning(
                            "CT-HEADER-UNKNOWN",
                            format!("unknown header `{key}` (kept as is)"),
                        )
                        .at(line.pos(0), key.chars().count()),
                    );
                }
                state
            }
        }
    }

    fn body_start(
        &mut self,
        line: &Line<'_>,
        key: &str,
        value: &str,
        value_pos: Pos,
        next: Option<&Line<'_>>,
    ) -> State {
        if self.env.body.is_some() {
            self.duplicate(line, key);
            self.discard_body = true;
            return State::Body { unindented: false };
        }
        self.loc.body = Some(line.pos(0));
        if key == "response" {
            self.legacy_response = true;
            self.diags.push(
                Diagnostic::warning(
                    "CT-LEGACY-RESPONSE",
                    "`response: |` is the upstream 1.0 reply shape; read as the body",
                )
                .at(line.pos(0), key.len())
                .with_hint("write `intent: RESPOND` and `body: |` instead"),
            );
        }
        if !matches!(value, "|" | "|-" | "|+") {
            self.diags.push(
                Diagnostic::warning(
                    "CT-BODY-INLINE",
                    "body written on one line; expected `body: |` and an indented block",
                )
                .at(value_pos, value.chars().count()),
            );
            self.env.body = Some(value.to_string());
            return State::AfterBody;
        }
        self.env.body = Some(String::new());
        let unindented = next.is_some_and(|n| {
            indented_content(&n.text).is_none()
                && !extract::is_sig_line(&n.text)
                && n.text.trim_end() != "[[END]]"
        });
        if let Some(n) = next.filter(|_| unindented) {
            self.diags.push(
                Diagnostic::warning(
                    "CT-BODY-INDENT",
                    "body lines are not indented; read up to the sig: line",
                )
                .at(n.pos(0), 1)
                .with_hint("indent every body line by two spaces"),
            );
        }
        State::Body { unindented }
    }

    fn duplicate(&mut self, line: &Line<'_>, key: &str) {
        self.diags.push(
            Diagnostic::error(
                "CT-HEADER-DUPLICATE",
                format!("`{key}` appears more than once; the first is kept"),
            )
            .at(line.pos(0), key.chars().count()),
        );
    }

    /// Moves collected body lines into the envelope, dropping trailing blank lines.
    fn finish_body(&mut self) {
        if std::mem::take(&mut self.discard_body) {
            self.body_lines.clear();
            return;
        }
        if self.body_lines.is_empty() {
            return;
        }
        while self
            .body_lines
            .last()
            .is_some_and(|(l, _)| l.trim().is_empty())
        {
            self.body_lines.pop();
        }
        let (contents, raws): (Vec<String>, Vec<String>) =
            std::mem::take(&mut self.body_lines).into_iter().unzip();
        if let Some(body) = self.env.body.as_mut().filter(|b| b.is_empty()) {
            *body = contents.join("\n");
            self.body_raw = Some(raws.join("\n"));
        }
    }
}

/// The content of an indented body line (two spaces or a tab removed), or an
/// empty line; `None` for a line that is not part of an indented body.
fn body_content(text: &str) -> Option<&str> {
    if let Some(rest) = text.strip_prefix("  ").or_else(|| text.strip_prefix('\t')) {
        return Some(rest);
    }
    text.trim().is_empty().then_some("")
}

/// [`body_content`], where non-breaking (or other Unicode) spaces in the
/// indentation count as spaces; also gives the first such character.
fn indented_content(text: &str) -> Option<(Cow<'_, str>, Option<char>)> {
    match repair::indentation(text) {
        Some((respaced, odd)) => {
            body_content(&respaced).map(|c| (Cow::Owned(c.to_string()), Some(odd)))
        }
        None => body_content(text).map(|c| (Cow::Borrowed(c), None)),
    }
}

/// The header fields the upstream's 1.1-rc1 roadmap proposes (upper case,
/// as it writes them): read, kept as extra headers and named.
const RC1_FIELDS: &[&str] = &[
    "VERSION",
    "CAPS",
    "ID",
    "CORRELATION-ID",
    "THREAD-ID",
    "PARENT-ID",
    "CAUSED-BY",
    "TIMESTAMP",
    "TTL",
    "NONCE",
    "REPLAY-WINDOW",
    "DIGEST",
    "PREV",
    "CONSENT-ID",
    "CODE",
    "IDEMPOTENCY-KEY",
    "RETRY",
    "LANG",
    "RETENTION",
];

/// Lines that end a meta block without a blank line before them.
fn starts_top_level(text: &str) -> bool {
    ["meta:", "body:", "sig:", "response:"]
        .iter()
        .any(|k| text.starts_with(k))
        // Capitalised by a chat: `Body: |` and a `Sig:` line end a meta
        // block too; other capitalised names (`Body: json`) are meta keys.
        || capitalised_body_or_sig(text)
        || HEADER_ORDER
            .iter()
            .any(|h| text.strip_prefix(h).is_some_and(|r| r.starts_with(':')))
}

/// `Body: |`, or a `Sig:` line holding `none` or `ALGORITHM:…`, whatever the
/// case of the name.
fn capitalised_body_or_sig(text: &str) -> bool {
    let Some((name, value)) = text.split_once(':') else {
        return false;
    };
    let value = value.trim();
    (name.eq_ignore_ascii_case("body") && value == "|")
        || (name.eq_ignore_ascii_case("sig")
            && (value == "none"
                || ALGORITHMS
                    .iter()
                    .any(|a| value.starts_with(&format!("{a}:")))))
}

/// The name of a line's header when a chat capitalised it: `Session` of
/// `Session: …`, `BODY` of `BODY: |`; `None` when the line has none, or
/// writes it in lower case already.
fn capitalised_header(text: &str) -> Option<&str> {
    let (key, _) = text.split_once(':')?;
    if key.is_empty() || is_header_name(key) || !key.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let lower = key.to_ascii_lowercase();
    let known = HEADER_ORDER.contains(&lower.as_str())
        || ["meta", "body", "sig", "response"].contains(&lower.as_str());
    known.then_some(key)
}

/// Header names are lowercase words (`user`, `x-trace`); PascalCase keys belong to meta blocks.
fn is_header_name(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}
