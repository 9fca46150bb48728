//! Mosquitto's password file, read and written by the built-in broker:
//! `name:$7$ITERATIONS$SALT$HASH` lines (PBKDF2-HMAC-SHA512, base64), and
//! the older `name:$6$SALT$HASH` (SHA-512 of the password and salt), so a
//! file made by `mosquitto_passwd` works here and one made here works there.

use std::collections::HashMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// The iterations `aiproto broker passwd` writes (mosquitto_passwd's
/// default is 101; more makes a stolen file slower to guess from).
pub const ITERATIONS: u32 = 10_000;

#[derive(Debug, Clone)]
enum Hash {
    Sha512 {
        salt: Vec<u8>,
        hash: Vec<u8>,
    },
    Pbkdf2 {
        iterations: u32,
        salt: Vec<u8>,
        hash: Vec<u8>,
    },
}

/// The accounts of a password file.
#[derive(Debug, Clone, Default)]
pub struct Passwords {
    accounts: HashMap<String, Hash>,
}

impl Passwords {
    /// Reads a password file's text; an error names the line.
    pub fn parse(text: &str) -> Result<Passwords, String> {
        let mut accounts = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let why = |what: &str| format!("line {}: {what}", n + 1);
            let (name, stored) = line
                .split_once(':')
                .ok_or_else(|| why("expected `name:$7$…` (a line of mosquitto_passwd)"))?;
            if name.trim().is_empty() {
                return Err(why("an account without a name"));
            }
            let hash = parse_hash(stored).ok_or_else(|| {
                why("the password is not hashed ($7$ or $6$): write the file with `aiproto broker passwd` or mosquitto_passwd")
            })?;
            if accounts.insert(name.to_string(), hash).is_some() {
                return Err(why(&format!(
                    "the account `{name}` again: which password holds? Keep one line per account"
                )));
            }
        }
        Ok(Passwords { accounts })
    }

    pub fn len(&self) -> usize {
        self.accounts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.accounts.is_empty()
    }

    /// Whether `password` is the account's password (an unknown account
    /// costs the same hashing, so timing does not tell accounts apart).
    pub fn verify(&self, name: &str, password: &str) -> bool {
        let nobody = Hash::Pbkdf2 {
            iterations: ITERATIONS,
            salt: vec![0; 12],
            hash: Vec::new(),
        };
        let known = self.accounts.get(name);
        let hash = known.unwrap_or(&nobody);
        let computed = match hash {
            Hash::Sha512 { salt, .. } => sha512(password.as_bytes(), salt),
            Hash::Pbkdf2 {
                iterations, salt, ..
            } => pbkdf2(password.as_bytes(), salt, *iterations),
        };
        let expected = match hash {
            Hash::Sha512 { hash, .. } | Hash::Pbkdf2 { hash, .. } => hash,
        };
        known.is_some() && constant_time_eq(&computed, expected)
    }
}

/// A password file line for `name` with a fresh salt.
pub fn entry(name: &str, password: &str) -> Result<String, String> {
    if name.is_empty() || name.contains(':') || name.contains(char::is_control) {
        return Err(format!(
            "`{name}`: an account name has no `:` or control characters"
        ));
    }
    let mut salt = [0u8; 12];
    getrandom::fill(&mut salt).map_err(|e| e.to_string())?;
    let hash = pbkdf2(password.as_bytes(), &salt, ITERATIONS);
    Ok(format!(
        "{name}:$7${ITERATIONS}${}${}",
        STANDARD.encode(salt),
        STANDARD.encode(hash)
    ))
}

/// `text` (a password file) with `line`'s account added or replaced.
pub fn with_entry(text: &str, line: &str) -> String {
    let name = line.split_once(':').map_or(line, |(n, _)| n);
    let mut out: String = text
        .lines()
        .filter(|l| l.split_once(':').map(|(n, _)| n) != Some(name))
        .map(|l| format!("{l}\n"))
        .collect();
    out.push_str(line);
    out.push('\n');
    out
}

fn parse_hash(stored: &str) -> Option<Hash> {
    let decode = |s: &str| STANDARD.decode(s).ok();
    let parts: Vec<&str> = stored.split('$').collect();
    match parts.as_slice() {
        ["", "6", salt, hash] => Some(Hash::Sha512 {
            salt: decode(salt)?,
            hash: decode(hash)?,
        }),
        ["", "7", iterations, salt, hash] => Some(Hash::Pbkdf2 {
            iterations: iterations.parse().ok().filter(|i| *i > 0)?,
            salt: decode(salt)?,
            hash: decode(hash)?,
        }),
        _ => None,
    }
}

fn sha512(password: &[u8], salt: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    let mut hasher = sha2::Sha512::new();
    hasher.update(password);
    hasher.update(salt);
    hasher.finalize().to_vec()
}

fn pbkdf2(password: &[u8], salt: &[u8], iterations: u32) -> Vec<u8> {
    let mut out = [0u8; 64];
    pbkdf2::pbkdf2_hmac::<sha2_0_10::Sha512>(password, salt, iterations, &mut out);
    out.to_vec()
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines written by mosquitto_passwd 2.0.11 (`-b pw alice s3cret`) and
    /// by an older one ($6$).
    const MOSQUITTO: &str = "alice:$7$101$DQ7Oxu9tV5P6eSIl$m4LIuFM9/ldBmhyFzJEJbp8WVNr9UxvRW/k8loDjZ2gu8m3N65C1s8VXK43IWQY2NTJwp4JmBMjMcwUywvoGiQ==\n";

    #[test]
    fn mosquitto_passwd_lines_verify() {
        let p = Passwords::parse(MOSQUITTO).unwrap();
        assert!(p.verify("alice", "s3cret"));
        assert!(!p.verify("alice", "s3cret "));
        assert!(!p.verify("mallory", "s3cret"));
        let salt = b"0123456789ab";
        let six = format!(
            "bob:$6${}${}\n",
            STANDARD.encode(salt),
            STANDARD.encode(sha512(b"hunter2", salt))
        );
        assert!(Passwords::parse(&six).unwrap().verify("bob", "hunter2"));
    }

    #[test]
    fn written_entries_verify_and_replace_the_old_one() {
        let line = entry("carol", "pa:ss").unwrap();
        assert!(line.starts_with("carol:$7$10000$"), "{line}");
        let text = with_entry(MOSQUITTO, &line);
        let again = with_entry(&text, &entry("carol", "new").unwrap());
        let p = Passwords::parse(&again).unwrap();
        assert_eq!(p.len(), 2);
        assert!(p.verify("carol", "new") && !p.verify("carol", "pa:ss"));
        assert!(p.verify("alice", "s3cret"));
        assert!(entry("a:b", "x").is_err());
    }

    #[test]
    fn a_plain_text_password_is_refused_with_its_line() {
        let why = Passwords::parse("# accounts\nalice:s3cret\n").unwrap_err();
        assert!(why.starts_with("line 2:"), "{why}");
    }
}
