//! A saved mail read as the text it carries, as `git mailinfo` reads a
//! patch back out of the mail `git format-patch` wrote: when the text is an
//! RFC 5322 message whose body is transfer-encoded (quoted-printable,
//! base64) or in several parts, its plain-text parts, decoded. A mail in
//! 8bit or 7bit with one text part needs nothing: the envelope is in it as
//! written, below the mail's headers.

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
        .filter_map(|part| part.text_contents().map(str::to_string))
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
    // common case, answered without walking the text.
    let first = text.lines().next().unwrap_or_default();
    if first.starts_with(['{', '[', ' ', '\t']) || !first.contains(':') {
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
            "content-type" => encoded |= value.starts_with("multipart/"),
            _ => {}
        }
    }
    headers >= 2 && encoded
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
}
