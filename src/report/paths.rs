//! Input names as CI tools expect them: relative to the working directory,
//! with `/` between parts.

use std::path::{Path, PathBuf};

/// `source` relative to `cwd` when it is a path under it (`./a` → `a`,
/// `/work/repo/a` → `a` in `/work/repo`); other names (`<stdin>`, a path
/// elsewhere) as they are.
pub fn relative_to(source: &str, cwd: Option<&Path>) -> String {
    let path = Path::new(source);
    let relative: PathBuf = match cwd {
        Some(cwd) if path.is_absolute() => match path.strip_prefix(cwd) {
            Ok(rest) => rest.to_path_buf(),
            Err(_) => return source.to_string(),
        },
        _ => path.to_path_buf(),
    };
    let parts: Vec<String> = relative
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        return source.to_string();
    }
    if relative.is_absolute() {
        // A path outside the working directory stays absolute.
        return source.to_string();
    }
    parts.join("/")
}

/// `source` relative to the process's working directory.
pub fn relative(source: &str) -> String {
    relative_to(source, std::env::current_dir().ok().as_deref())
}

/// A relative path as a URI reference: every byte but the unreserved ones
/// and `/` percent-encoded (RFC 3986).
pub fn uri_reference(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
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
    }
}
