//! Input names as CI tools expect them: relative to the working directory,
//! with `/` between parts.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

/// `source` relative to `cwd` when it is a path under it (`./a` → `a`,
/// `/work/repo/a` → `a` in `/work/repo`); other names (`<stdin>`, a path
/// elsewhere) as they are.
pub fn relative_to(source: &str, cwd: Option<&Path>) -> String {
    let path = Path::new(source);
    let relative = match cwd {
        Some(cwd) if path.is_absolute() => path.strip_prefix(cwd).unwrap_or(path),
        _ => path,
    };
    let parts: Vec<String> = relative
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    // Nothing left (`.`), or a path outside the working directory: as given.
    if parts.is_empty() || relative.is_absolute() {
        return source.to_string();
    }
    parts.join("/")
}

/// `source` relative to the process's working directory (looked up once).
pub fn relative(source: &str) -> String {
    static CWD: OnceLock<Option<PathBuf>> = OnceLock::new();
    relative_to(
        source,
        CWD.get_or_init(|| std::env::current_dir().ok()).as_deref(),
    )
}

/// A relative path as a URI reference: every byte but the unreserved ones
/// and `/` percent-encoded (RFC 3986); a name escaped because it is not
/// UTF-8 ([`crate::path_names`]) as the bytes it stands for.
pub fn uri_reference(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in crate::path_names::bytes(path).iter() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_made_relative_to_the_working_directory() {
        let cwd = Path::new("/work/repo");
        assert_eq!(
            relative_to("./messages/a.json", Some(cwd)),
            "messages/a.json"
        );
        assert_eq!(
            relative_to("/work/repo/messages/a.json", Some(cwd)),
            "messages/a.json"
        );
        assert_eq!(
            relative_to("/elsewhere/a.json", Some(cwd)),
            "/elsewhere/a.json"
        );
        assert_eq!(relative_to("<stdin>", Some(cwd)), "<stdin>");
        assert_eq!(relative_to("a.json", None), "a.json");
    }

    #[test]
    fn uri_references_escape_what_a_uri_cannot_hold() {
        assert_eq!(uri_reference("messages/a b.json"), "messages/a%20b.json");
        assert_eq!(uri_reference("<stdin>"), "%3Cstdin%3E");
        assert_eq!(uri_reference("réponse.crosstalk"), "r%C3%A9ponse.crosstalk");
        // A name that is not UTF-8, as aiproto writes it: its own bytes.
        #[cfg(unix)]
        assert_eq!(uri_reference("caf\\xE9 \\\\.json"), "caf%E9%20%5C.json");
    }
}
