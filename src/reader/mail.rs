//! A saved mail read as the text it carries, as `git mailinfo` reads a
//! patch back out of the mail `git format-patch` wrote: when the text is an
//! RFC 5322 message whose body is transfer-encoded (quoted-printable,
//! base64) or in several parts, its plain-text parts, decoded. A mail in
//! 8bit or 7bit with one text part needs nothing: the envelope is in it as
//! written, below the mail's headers. A `format=flowed` part (RFC 3676:
//! Apple Mail, Thunderbird) is unflowed: soft line breaks joined again and
//! the space a client stuffed before a line taken out, so the text is the
//! one the sender wrote and a signature over it still verifies.

use mail_parser::{MessageParser, MimeHeaders};

/// The decoded text parts of a transfer-encoded or multipart mail, joined
/// by a blank line; `None` for any other text.
pub fn decoded(text: &str) -> Option<String> {
    if !needs_decoding(text) {
        return None;
    }
    let message = MessageParser::default().parse(text.as_bytes())?;
    let parts: Vec<String> = message
        .text_bodies()
        .filter(|part| {
            part.content_type().is_none_or(|t| {
                t.ctype().eq_ignore_ascii_case("text")
                    && t.subtype().is_none_or(|s| s.eq_ignore_ascii_case("plain"))
            })
        })
        .filter_map(|part| {
            let text = part.text_contents()?;
            let flowed = part.content_type().and_then(|t| {
                let attribute = |name: &str| {
                    t.attributes()?
                        .iter()
                        .find(|a| a.name.eq_ignore_ascii_case(name))
                        .map(|a| a.value.to_ascii_lowercase())
                };
                (attribute("format").as_deref() == Some("flowed"))
                    .then(|| attribute("delsp").as_deref() == Some("yes"))
            });
            Some(match flowed {
                Some(delsp) => unflowed(text, delsp),
                None => text.to_string(),
            })
        })
        .collect();
    if parts.is_empty() {
        return None;
    }
    Some(parts.join("\n\n"))
}

/// Whether `text` starts with mail headers (up to the first blank line)
/// that say its body is encoded or in parts (then [`decoded`] reads it).
pub fn needs_decoding(text: &str) -> bool {
    // JSON, or anything else whose first line is no header, is no mail: the
    // common case, answered without walking the text (a JSON file's first
    // line may be all of it).
    if text.starts_with(['{', '[', ' ', '\t']) {
        return false;
    }
    let first = text.lines().next().unwrap_or_default();
    if !first.contains(':') {
        return false;
    }
    let mut headers = 0;
    let mut encoded = false;
    // The header ends at the first blank line.
    for line in text.lines().take_while(|l| !l.is_empty()) {
        if line.starts_with([' ', '\t']) {
            continue; // a folded header's continuation
        }
        let Some((name, value)) = line.split_once(':') else {
            return false; // not a mail: a line that is no header
        };
        if name.is_empty() || name.contains(char::is_whitespace) {
            return false;
        }
        headers += 1;
        let value = value.trim().to_ascii_lowercase();
        match name.to_ascii_lowercase().as_str() {
            "content-transfer-encoding" => {
                encoded |= value.starts_with("quoted-printable") || value.starts_with("base64");
            }
            "content-type" => {
                let flowed = value
                    .split(';')
                    .skip(1)
                    .any(|p| p.trim().replace('"', "") == "format=flowed");
                encoded |= value.starts_with("multipart/") || flowed;
            }
            _ => {}
        }
    }
    headers >= 2 && encoded
}

/// A `format=flowed` text as its sender wrote it (RFC 3676 §4.2): a line
/// that ends with a space (a soft break) is joined with the next one of the
/// same quote depth, that space removed too with `DelSp=yes`; the space a
/// client stuffed before a line that began with a space, `>` or `From ` is
/// taken out; `-- ` (a signature separator) is never flowed.
fn unflowed(text: &str, delsp: bool) -> String {
    let mut out = String::with_capacity(text.len());
    // The paragraph being joined: its quote depth and text so far.
    let mut open: Option<(usize, String)> = None;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let depth = line.bytes().take_while(|b| *b == b'>').count();
        let content = &line[depth..];
        let content = content.strip_prefix(' ').unwrap_or(content);
        let soft = content.ends_with(' ') && content != "-- ";
        let content = if soft && delsp {
            &content[..content.len() - 1]
        } else {
            content
        };
        match &mut open {
            Some((d, joined)) if *d == depth => joined.push_str(content),
            Some(_) => {
                if let Some((d, joined)) = open.take() {
                    push_line(&mut out, d, &joined);
                }
                open = Some((depth, content.to_string()));
            }
            None => open = Some((depth, content.to_string())),
        }
        if !soft && let Some((d, joined)) = open.take() {
            push_line(&mut out, d, &joined);
        }
    }
    if let Some((d, joined)) = open.take() {
        push_line(&mut out, d, &joined);
    }
    // `split` gave one line more than the text has line ends.
    let one_too_many = if text.ends_with('\n') {
        out.ends_with("\n\n")
    } else {
        out.ends_with('\n')
    };
    if one_too_many {
        out.pop();
    }
    out
}

/// One unflowed line, with its quote depth as `> ` marks.
fn push_line(out: &mut String, depth: usize, text: &str) {
    if depth > 0 {
        out.extend(std::iter::repeat_n('>', depth));
        if !text.is_empty() {
            out.push(' ');
        }
    }
    out.push_str(text);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENVELOPE: &str = "[[HUMAN→CLAUDE v1]]\nsession: 2025-10-09T16Z abc123\nbody: |\n  Please review.\nsig: ed25519:pkid=HUMAN;sig=U181pC0qJ+c23CrJs8FYgMbUCFnyql+/cM02oDKIkovPbEC1LJ7xzbqC6DzR1iVQ7ZBCXcz98NEj6dcChJYqBg==\n[[END]]\n";

    #[test]
    fn quoted_printable_and_base64_bodies_are_decoded() {
        let qp = "From: a@example.com\nTo: b@example.com\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n[[HUMAN=E2=86=92CLAUDE v1]]\nsession: 2025-10-09T16Z abc123\nbody: |\n  Please review.\nsig: ed25519:pkid=3DHUMAN;sig=3DU181pC0qJ+c23CrJs8FYgMbUCFnyql+/cM02oDKIkov=\nPbEC1LJ7xzbqC6DzR1iVQ7ZBCXcz98NEj6dcChJYqBg=3D=3D\n[[END]]\n";
        assert_eq!(decoded(qp).unwrap(), ENVELOPE);
        use base64::Engine;
        let b64 = format!(
            "From: a@example.com\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n{}\n",
            base64::engine::general_purpose::STANDARD.encode(ENVELOPE)
        );
        assert_eq!(decoded(&b64).unwrap(), ENVELOPE);
    }

    #[test]
    fn a_multipart_mail_gives_its_plain_text_part() {
        let mail = format!(
            "From: a@example.com\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=\"XX\"\n\n--XX\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n{ENVELOPE}\n--XX\nContent-Type: text/html\n\n<p>html</p>\n--XX--\n"
        );
        let text = decoded(&mail).unwrap();
        assert!(text.starts_with(ENVELOPE), "{text}");
        assert!(!text.contains("<p>"));
    }

    #[test]
    fn other_texts_are_left_alone() {
        assert!(decoded(ENVELOPE).is_none());
        let eight_bit =
            format!("From: a@example.com\nContent-Transfer-Encoding: 8bit\n\n{ENVELOPE}");
        assert!(decoded(&eight_bit).is_none());
        assert!(decoded("Subject: hi\nnot a header line\n\nbody").is_none());
    }

    /// A signed envelope as Thunderbird and Apple Mail send it with
    /// `format=flowed`: the long `sig:` line broken after its space, every
    /// body line (two spaces first) stuffed with one more.
    #[test]
    fn a_flowed_mail_is_read_as_its_sender_wrote_it() {
        let sig = "ed25519:pkid=HUMAN;sig=U181pC0qJ+c23CrJs8FYgMbUCFnyql+/cM02oDKIkovPbEC1LJ7xzbqC6DzR1iVQ7ZBCXcz98NEj6dcChJYqBg==";
        let body = format!(
            "[[HUMAN→CLAUDE v1]]\r\nsession: 2025-10-09T16Z abc123\r\nbody: |\r\n   Please review.\r\nsig: \r\n{sig}\r\n[[END]]\r\n"
        );
        for (delsp, flowed) in [
            ("", body.clone()),
            ("; delsp=yes", body.replace("sig: \r\n", "sig:  \r\n")),
        ] {
            let mail = format!(
                "From: a@example.com\r\nTo: b@example.com\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8; format=flowed{delsp}\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{flowed}"
            );
            assert!(needs_decoding(&mail));
            assert_eq!(decoded(&mail).unwrap(), ENVELOPE, "{delsp}");
        }
    }

    #[test]
    fn unflowing_keeps_hard_breaks_quotes_and_the_signature_separator() {
        assert_eq!(unflowed("a \nb\nc\n", false), "a b\nc\n");
        assert_eq!(unflowed("a \nb", true), "ab");
        assert_eq!(
            unflowed("> one \n> two\n>> deeper\n", false),
            "> one two\n>> deeper\n"
        );
        assert_eq!(unflowed("text\n-- \nsig\n", false), "text\n-- \nsig\n");
        assert_eq!(
            unflowed(" From here\n  indented\n", false),
            "From here\n indented\n"
        );
        assert_eq!(unflowed("a\n\nb\n", false), "a\n\nb\n");
    }
}
