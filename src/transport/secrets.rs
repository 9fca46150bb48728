//! Credentials for brokers, mail and HTTP peers, kept off the command line
//! (where `ps` shows them) and out of every message aiproto prints.
//!
//! Where a user name and password come from, first found first:
//! 1. the URL's own `user:password@` (still accepted, never printed);
//! 2. `AIPROTO_USERNAME` and `AIPROTO_PASSWORD` in the environment, for the
//!    one host named in `AIPROTO_CREDENTIALS_HOST`;
//! 3. the credentials file: `AIPROTO_CREDENTIALS`, else `credentials` in
//!    aiproto's home (`~/.config/aiproto`). Its lines are netrc's:
//!    `machine HOST login USER password PASS`, and like ssh's keys it is
//!    refused when others can read it.
//!
//! Credentials are always bound to a host: a password is never sent to a
//! host it was not given for (netrc's `default` entry is not read), since
//! aiproto posts to peers the messages name.

use std::path::{Path, PathBuf};

/// The environment variables.
pub const USERNAME_ENV: &str = "AIPROTO_USERNAME";
pub const PASSWORD_ENV: &str = "AIPROTO_PASSWORD";
pub const HOST_ENV: &str = "AIPROTO_CREDENTIALS_HOST";
pub const FILE_ENV: &str = "AIPROTO_CREDENTIALS";

/// A user name and password.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub user: String,
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Credentials({}, ***)", self.user)
    }
}

/// The credentials for `host` when its URL carries none: from the
/// environment, else the credentials file. An unsafe or unreadable file
/// is an error that names it.
pub fn for_host(host: &str) -> Result<Option<Credentials>, String> {
    if let (Ok(user), Ok(password), Ok(for_host)) = (
        std::env::var(USERNAME_ENV),
        std::env::var(PASSWORD_ENV),
        std::env::var(HOST_ENV),
    ) && for_host.eq_ignore_ascii_case(host)
    {
        return Ok(Some(Credentials { user, password }));
    }
    let Some(path) = file() else {
        return Ok(None);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    refuse_open(&path)?;
    Ok(find(&text, host))
}

fn file() -> Option<PathBuf> {
    match std::env::var_os(FILE_ENV).filter(|p| !p.is_empty()) {
        Some(path) => Some(PathBuf::from(path)),
        None => crate::home::home().map(|h| h.join("credentials")),
    }
}

/// A credentials file others can read (or write) is not used.
fn refuse_open(path: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .permissions()
            .mode()
            & 0o777;
        if mode & 0o077 != 0 {
            return Err(format!(
                "{}: permissions {mode:o} let others read these passwords, so it is not used; run: chmod 600 {}",
                path.display(),
                path.display()
            ));
        }
    }
    Ok(())
}

/// The `machine` entry for `host` (a `default` entry is not used).
fn find(text: &str, host: &str) -> Option<Credentials> {
    let mut tokens = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(str::split_whitespace);
    let mut entries: Vec<(Option<String>, Option<String>, Option<String>)> = Vec::new();
    while let Some(token) = tokens.next() {
        match token {
            "machine" => entries.push((tokens.next().map(str::to_string), None, None)),
            // Ends the entry before it; its login is never used.
            "default" => entries.push((None, None, None)),
            "login" => {
                if let Some(e) = entries.last_mut() {
                    e.1 = tokens.next().map(str::to_string);
                }
            }
            "password" => {
                if let Some(e) = entries.last_mut() {
                    e.2 = tokens.next().map(str::to_string);
                }
            }
            _ => {}
        }
    }
    let pick = |wanted: Option<&str>| {
        entries.iter().find_map(|(machine, user, password)| {
            (machine.as_deref() == wanted).then(|| {
                Some(Credentials {
                    user: user.clone()?,
                    password: password.clone().unwrap_or_default(),
                })
            })?
        })
    };
    pick(Some(host))
}

/// A URL's host, and whether the URL carries its own user name.
pub fn host_of(url: &str) -> Option<(String, bool)> {
    let rest = url.split_once("://")?.1;
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((_, h)) => (true, h),
        None => (false, authority),
    };
    let host = match hostport.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => hostport.rsplit_once(':').map_or(hostport, |(h, _)| h),
    };
    Some((host.to_string(), userinfo))
}

/// A URL as it may be shown: a password in it replaced by `***`.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            format!("{scheme}://{user}:***@{host}{path}")
        }
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show_in_a_url() {
        assert_eq!(
            redact("smtps://bob:s3cret@mail.example.com:465/x?tls=required"),
            "smtps://bob:***@mail.example.com:465/x?tls=required"
        );
        assert_eq!(
            redact("http://127.0.0.1:8080/hsp"),
            "http://127.0.0.1:8080/hsp"
        );
        assert_eq!(redact("mqtt://bob@h"), "mqtt://bob:***@h");
        assert!(
            !format!(
                "{:?}",
                Credentials {
                    user: "u".into(),
                    password: "p4ss".into()
                }
            )
            .contains("p4ss")
        );
    }

    #[test]
    fn netrc_entries_by_host_and_never_a_default() {
        let text = "# brokers\nmachine broker.example login agent password s3cret\ndefault login anon password x\n";
        assert_eq!(
            find(text, "broker.example"),
            Some(Credentials {
                user: "agent".into(),
                password: "s3cret".into()
            })
        );
        assert_eq!(find(text, "other"), None);
        assert_eq!(find("machine a login u password p", "b"), None);
    }

    #[test]
    fn a_file_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("credentials");
        std::fs::write(&path, "default login u password p\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(refuse_open(&path).unwrap_err().contains("chmod 600"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(refuse_open(&path).is_ok());
    }
}
