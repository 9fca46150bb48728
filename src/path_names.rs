//! File names in findings and reports, losslessly: a path that is UTF-8
//! and holds no backslash is written as it is; any other is escaped, a
//! byte that is not UTF-8 as `\xHH` and a backslash as `\\`, so that the
//! exact bytes can be had back (a SARIF URI percent-encodes them) instead
//! of a U+FFFD that names no file.

use std::borrow::Cow;
use std::path::Path;

/// The name of `path` in findings and reports.
pub fn name(path: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = path.as_os_str().as_bytes();
        match std::str::from_utf8(bytes) {
            Ok(text) if !text.contains('\\') => text.to_string(),
            _ => escape(bytes),
        }
    }
    #[cfg(not(unix))]
    {
        path.display().to_string()
    }
}

/// `\` as `\\`, a byte that is not part of UTF-8 text as `\xHH`.
fn escape(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 8);
    while !bytes.is_empty() {
        let (good, rest) = match std::str::from_utf8(bytes) {
            Ok(text) => (text, &bytes[bytes.len()..]),
            Err(e) => {
                let (good, rest) = bytes.split_at(e.valid_up_to());
                // Safe: `valid_up_to` ends the valid prefix.
                (std::str::from_utf8(good).unwrap_or_default(), rest)
            }
        };
        out.push_str(&good.replace('\\', "\\\\"));
        if let Some((bad, after)) = rest.split_first() {
            out.push_str(&format!("\\x{bad:02X}"));
            bytes = after;
        } else {
            bytes = rest;
        }
    }
    out
}

/// The bytes a name stands for: [`name`] undone (a name without a
/// backslash is its own bytes).
pub fn bytes(name: &str) -> Cow<'_, [u8]> {
    if !cfg!(unix) || !name.contains('\\') {
        return Cow::Borrowed(name.as_bytes());
    }
    let raw = name.as_bytes();
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\\' {
            if raw.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if raw.get(i + 1) == Some(&b'x')
                && let Some(byte) = raw
                    .get(i + 2..i + 4)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(byte);
                i += 4;
                continue;
            }
        }
        out.push(raw[i]);
        i += 1;
    }
    Cow::Owned(out)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn names_keep_every_byte() {
        for raw in [
            &b"messages/a.crosstalk"[..],
            b"r\xC3\xA9ponse.crosstalk",
            b"caf\xE9.crosstalk",
            b"a\\b\xFF\xFE\\x41.json",
            b"\\xZZ",
        ] {
            let path = Path::new(std::ffi::OsStr::from_bytes(raw));
            let shown = name(path);
            assert_eq!(&*bytes(&shown), raw, "{shown}");
        }
        assert_eq!(
            name(Path::new(std::ffi::OsStr::from_bytes(b"caf\xE9.json"))),
            "caf\\xE9.json"
        );
        assert_eq!(name(Path::new("a b/réponse.json")), "a b/réponse.json");
    }
}
