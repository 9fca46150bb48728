//! UTS #39 skeletons (what a string is taken for once each look-alike is read
//! as what it imitates) from a table of offsets, which the loader leaves as
//! it is at start-up.
//!
//! unicode-security keeps the confusables as `(char, &[char])` pairs: 6,712
//! pointers that the loader relocates in every process, 39 pages of
//! `.data.rel.ro` written before `main` whether a command looks at a
//! character or not. The same mapping here is a sorted array of ranges with
//! offsets into one string, which needs no relocation; a test derives it
//! from unicode-security's own `skeleton` and holds the two to the same
//! answer for every character.

use unicode_normalization::UnicodeNormalization;

mod table;

/// The skeleton of `s`: its canonical decomposition, each character replaced
/// by its own skeleton, decomposed again (what
/// `unicode_security::skeleton` gives).
///
/// A character's skeleton is its prototype (default-ignorable ones have
/// none) decomposed; decomposing the joined skeletons once more gives the
/// decomposition of the joined prototypes, which is UTS #39's definition.
pub fn skeleton(s: &str) -> String {
    let mut mapped = String::with_capacity(s.len());
    for c in s.chars().nfd() {
        match of(c) {
            Some(skeleton) => mapped.push_str(skeleton),
            None => mapped.push(c),
        }
    }
    mapped.nfd().collect()
}

/// The skeleton of a decomposed character, when it is not the character.
fn of(c: char) -> Option<&'static str> {
    let i = table::RANGES
        .partition_point(|&(first, ..)| first <= c)
        .checked_sub(1)?;
    let (_, last, start, len) = table::RANGES[i];
    let start = usize::from(start);
    (c <= last).then(|| &table::SKELETONS[start..start + usize::from(len)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reference(s: &str) -> String {
        unicode_security::skeleton(s).collect()
    }

    fn all_characters() -> impl Iterator<Item = char> {
        (0..=0x10FFFF).filter_map(char::from_u32)
    }

    /// The table, written as `table.rs` is: each run of characters that
    /// are their own decomposition and share a skeleton other than
    /// themselves.
    fn generated() -> String {
        let mut ranges: Vec<(char, char, String)> = Vec::new();
        for c in all_characters() {
            let alone = c.to_string();
            if alone.nfd().ne(alone.chars()) {
                continue;
            }
            let skeleton = reference(&alone);
            if skeleton == alone {
                continue;
            }
            match ranges.last_mut() {
                Some((_, last, same)) if *same == skeleton && *last as u32 + 1 == c as u32 => {
                    *last = c;
                }
                _ => ranges.push((c, c, skeleton)),
            }
        }
        let mut skeletons = String::new();
        let mut rows = String::new();
        for (first, last, skeleton) in &ranges {
            let start = skeletons.find(skeleton.as_str()).unwrap_or_else(|| {
                skeletons.push_str(skeleton);
                skeletons.len() - skeleton.len()
            });
            rows.push_str(&format!(
                "    ('\\u{{{:x}}}', '\\u{{{:x}}}', {start}, {}),\n",
                *first as u32,
                *last as u32,
                skeleton.len()
            ));
        }
        let escaped: String = skeletons
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_string()
                } else {
                    format!("\\u{{{:x}}}", c as u32)
                }
            })
            .collect();
        format!(
            "//! Generated from unicode-security {} (Unicode {}.{}.{}) by\n\
             //! `AIPROTO_UPDATE_SKELETONS=1 cargo test --lib skeleton`: do not edit.\n\
             \n\
             /// First and last character of a run that shares a skeleton, and where\n\
             /// the skeleton is in [`SKELETONS`] (byte offset, byte length).\n\
             #[rustfmt::skip]\n\
             pub(super) static RANGES: [(char, char, u16, u8); {}] = [\n{rows}];\n\
             \n\
             /// The skeletons, one after another.\n\
             pub(super) static SKELETONS: &str = \"{escaped}\";\n",
            UNICODE_SECURITY_VERSION,
            unicode_security::UNICODE_VERSION.0,
            unicode_security::UNICODE_VERSION.1,
            unicode_security::UNICODE_VERSION.2,
            ranges.len(),
        )
    }

    /// The version in Cargo.lock that `table.rs` was generated from.
    const UNICODE_SECURITY_VERSION: &str = "0.1.3";

    #[test]
    fn the_table_is_generated_from_unicode_security() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/chars/skeleton/table.rs");
        let text = generated();
        if std::env::var_os("AIPROTO_UPDATE_SKELETONS").is_some() {
            std::fs::write(path, &text).unwrap();
        }
        assert!(
            std::fs::read_to_string(path).unwrap() == text,
            "{path} is out of date: regenerate it with AIPROTO_UPDATE_SKELETONS=1 cargo test --lib skeleton"
        );
    }

    #[test]
    fn every_character_has_unicode_security_s_skeleton() {
        for c in all_characters() {
            let alone = c.to_string();
            assert_eq!(skeleton(&alone), reference(&alone), "U+{:04X}", c as u32);
        }
    }

    /// Characters where the two steps meet: look-alikes, combining marks
    /// (reordered by decomposition), default-ignorable ones, precomposed
    /// letters, and plain ASCII.
    fn tricky() -> impl Strategy<Value = char> {
        prop_oneof![
            prop::sample::select(vec![
                'а',
                'О',
                'Α',
                'ο',
                'ｍ',
                'ℓ',
                '𝐀',
                'ǅ',
                'ﬁ',
                '\u{200b}',
                '\u{ad}',
                '\u{34f}',
                '\u{fe0f}',
                'é',
                'Å',
                'ḱ',
                '\u{301}',
                '\u{327}',
                '\u{316}',
                '\u{1ab0}',
                'm',
                'r',
                'n',
                'l',
                '1',
                'I',
                '|',
                ' ',
                '\u{a0}',
                'ß',
                'ǰ',
                '\u{e0001}',
            ]),
            any::<char>(),
        ]
    }

    proptest! {
        #![proptest_config(crate::proptest_config::config(512))]

        #[test]
        fn a_string_has_unicode_security_s_skeleton(
            chars in prop::collection::vec(tricky(), 0..12)
        ) {
            let s: String = chars.into_iter().collect();
            prop_assert_eq!(skeleton(&s), reference(&s));
        }
    }
}
