//! Characters that chat UIs and editors slip into text without anyone seeing
//! them: how to recognise them, and how to name them in a finding
//! (`U+200B ZERO WIDTH SPACE`, `U+0410 CYRILLIC CAPITAL LETTER A, which looks like A`).

mod skeleton;

/// The byte-order mark, which some editors and clipboards put at the start of text.
pub const BOM: char = '\u{feff}';

/// Space characters other than the ASCII space and tab: a chat UI turns
/// spaces into these (most often U+00A0 NO-BREAK SPACE, from `&nbsp;`).
pub fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// Invisible format characters that carry no text of their own: zero-width
/// spaces and joiners, word joiners, the soft hyphen, stray byte-order
/// marks, and the direction marks and overrides that reorder what is shown.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | BOM
    )
}

/// `U+200B ZERO WIDTH SPACE`.
pub fn describe(c: char) -> String {
    match unicode_names2::name(c) {
        Some(name) => format!("U+{:04X} {name}", c as u32),
        None => format!("U+{:04X}", c as u32),
    }
}

/// The ASCII text a character imitates (UTS #39 confusables), when it is
/// not ASCII itself: `а` (Cyrillic) → `a`, `Ο` (Greek) → `O`.
pub fn lookalike(c: char) -> Option<String> {
    if c.is_ascii() {
        return None;
    }
    let skeleton = skeleton::skeleton(c.encode_utf8(&mut [0; 4]));
    (skeleton.is_ascii() && !skeleton.trim().is_empty()).then_some(skeleton)
}

/// Whether a character is invisible, a non-ASCII space, or looks like an
/// ASCII character it is not: the ones a reader cannot see in a value.
pub fn is_deceptive(c: char) -> bool {
    is_invisible(c) || is_unicode_space(c) || lookalike(c).is_some() || c.is_control()
}

/// A note naming each deceptive character of a value, for a finding about
/// it: `it holds U+0410 CYRILLIC CAPITAL LETTER A (looks like "A") at
/// character 1`. `None` when the value holds none.
pub fn explain(value: &str) -> Option<String> {
    let found: Vec<String> = value
        .chars()
        .enumerate()
        .filter(|(_, c)| is_deceptive(*c))
        .take(3)
        .map(|(i, c)| {
            let looks = lookalike(c)
                .filter(|_| !is_unicode_space(c))
                .map_or_else(String::new, |a| format!(", which looks like `{a}`"));
            format!("{}{looks} at character {}", describe(c), i + 1)
        })
        .collect();
    (!found.is_empty()).then(|| format!("it holds {}", found.join("; ")))
}

/// `message`, followed by [`explain`]'s note on `value` when there is one.
pub fn with_explanation(message: String, value: &str) -> String {
    match explain(value) {
        Some(note) => format!("{message} ({note})"),
        None => message,
    }
}

/// Why an identity (a sender, receiver or key id) could pass for another:
/// it holds invisible characters, control characters or non-ASCII spaces,
/// or mixes scripts with a letter that looks like an ASCII one (`аlice`
/// with a Cyrillic `а`). A name wholly in one script (`Алиса`) is not
/// flagged. `None` when it is plain.
pub fn lookalike_identity(id: &str) -> Option<String> {
    use unicode_security::MixedScript;
    let hidden = id
        .chars()
        .any(|c| is_invisible(c) || is_unicode_space(c) || c.is_control());
    let mixed = !id.is_single_script() && id.chars().any(|c| lookalike(c).is_some());
    (hidden || mixed).then(|| explain(id).unwrap_or_else(|| "mixes scripts".into()))
}

/// What an identity is taken for by a reader: invisible characters and
/// non-ASCII spaces dropped, each look-alike read as what it imitates
/// (UTS #39 skeleton), letters in lower case. `HUMAN`, `Human`, `HUMΑN`
/// (a Greek Α) and `HU\u{200B}MAN` are one.
pub fn identity_key(id: &str) -> String {
    let visible: String = id
        .chars()
        .filter(|c| !is_invisible(*c) && !is_unicode_space(*c))
        .collect();
    // In lower case first: the skeleton of `m` is `rn`, of `M` is `M`.
    skeleton::skeleton(&visible.trim().to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_invisible_and_space_characters() {
        assert_eq!(describe('\u{200b}'), "U+200B ZERO WIDTH SPACE");
        assert_eq!(describe('\u{a0}'), "U+00A0 NO-BREAK SPACE");
        assert!(is_invisible('\u{200b}') && is_invisible('\u{ad}') && is_invisible(BOM));
        assert!(is_unicode_space('\u{a0}') && !is_unicode_space(' '));
        // An emoji's joiner is content in a body, but it is invisible.
        assert!(is_invisible('\u{200d}'));
    }

    #[test]
    fn names_lookalike_letters() {
        assert_eq!(lookalike('\u{410}').as_deref(), Some("A"));
        assert_eq!(lookalike('A'), None);
        assert_eq!(lookalike('é'), None);
        let note = explain("\u{410}CK").unwrap();
        assert!(note.contains("U+0410 CYRILLIC CAPITAL LETTER A"), "{note}");
        assert!(note.contains("looks like `A`"), "{note}");
        assert_eq!(explain("ACK"), None);
        assert_eq!(explain("Zürich"), None);
    }

    #[test]
    fn lookalike_identities_are_told_apart_from_names_in_one_script() {
        assert!(lookalike_identity("\u{430}lice").is_some());
        assert!(lookalike_identity("al\u{200b}ice").is_some());
        assert_eq!(lookalike_identity("alice@example.com"), None);
        assert_eq!(
            lookalike_identity("\u{410}\u{43b}\u{438}\u{441}\u{430}"),
            None
        );
        assert_eq!(lookalike_identity("did:hsp:ai_delta"), None);
    }

    #[test]
    fn an_identity_is_one_whatever_its_case_look_alikes_or_invisible_characters() {
        let key = identity_key("HUMAN");
        for same in ["Human", "HUM\u{391}N", "HU\u{200B}MAN", " human "] {
            assert_eq!(identity_key(same), key, "{same:?}");
        }
        assert_ne!(identity_key("HUMANS"), key);
    }
}
