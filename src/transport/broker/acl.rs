//! Mosquitto's ACL file, read by the built-in broker: which account may
//! read (subscribe to) and write (publish to) which topics.
//!
//! The format is Mosquitto's: `topic [read|write|readwrite|deny] TOPIC`
//! lines before any `user` line apply to clients without an account; after
//! `user NAME`, to that account; `pattern [ACCESS] TOPIC` lines apply to
//! every client with `%u` (the account) and `%c` (the client id) put in. A
//! `deny` rule wins over every grant; nothing granted is denied.

use std::collections::HashMap;

/// What a rule grants (or, `Deny`, takes away).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    ReadWrite,
    Deny,
}

#[derive(Debug, Clone)]
struct Rule {
    access: Access,
    topic: String,
}

/// The rules of one ACL file.
#[derive(Debug, Clone, Default)]
pub struct Acl {
    anonymous: Vec<Rule>,
    users: HashMap<String, Vec<Rule>>,
    patterns: Vec<Rule>,
}

impl Acl {
    /// Reads an ACL file's text; an error names the line.
    pub fn parse(text: &str) -> Result<Acl, String> {
        let mut acl = Acl::default();
        let mut user: Option<String> = None;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (keyword, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let rest = rest.trim();
            match keyword {
                "user" if !rest.is_empty() => user = Some(rest.to_string()),
                "topic" | "pattern" => {
                    let rule = rule(rest).map_err(|e| format!("line {}: {e}", n + 1))?;
                    if keyword == "pattern" {
                        acl.patterns.push(rule);
                    } else if let Some(user) = &user {
                        acl.users.entry(user.clone()).or_default().push(rule);
                    } else {
                        acl.anonymous.push(rule);
                    }
                }
                _ => {
                    return Err(format!(
                        "line {}: expected `user NAME`, `topic [read|write|readwrite|deny] TOPIC` or `pattern …`, found `{line}`",
                        n + 1
                    ));
                }
            }
        }
        Ok(acl)
    }

    /// Whether `user` (`None`: no account) on client `client` may
    /// subscribe to `filter`: every topic it matches must be readable, and
    /// no topic it matches denied. A shared subscription
    /// (`$share/GROUP/FILTER`) is judged by its filter.
    pub fn may_subscribe(&self, user: Option<&str>, client: &str, filter: &str) -> bool {
        let filter = shared_filter(filter);
        self.judge(
            user,
            client,
            |rule| covers(&rule, filter),
            |rule| intersects(&rule, filter),
            Access::Read,
        )
    }

    /// Whether `user` on client `client` may publish to `topic`.
    pub fn may_publish(&self, user: Option<&str>, client: &str, topic: &str) -> bool {
        self.judge(
            user,
            client,
            |rule| covers(&rule, topic),
            |rule| covers(&rule, topic),
            Access::Write,
        )
    }

    fn judge(
        &self,
        user: Option<&str>,
        client: &str,
        granted_by: impl Fn(String) -> bool,
        denied_by: impl Fn(String) -> bool,
        needed: Access,
    ) -> bool {
        let own = match user {
            Some(user) => self.users.get(user).map_or(&[][..], Vec::as_slice),
            None => &self.anonymous,
        };
        let patterns = self
            .patterns
            .iter()
            .filter_map(|rule| Some((rule.access, substitute(&rule.topic, user, client)?)));
        let rules: Vec<(Access, String)> = own
            .iter()
            .map(|rule| (rule.access, rule.topic.clone()))
            .chain(patterns)
            .collect();
        if rules
            .iter()
            .any(|(access, topic)| *access == Access::Deny && denied_by(topic.clone()))
        {
            return false;
        }
        rules.iter().any(|(access, topic)| {
            (*access == needed || *access == Access::ReadWrite) && granted_by(topic.clone())
        })
    }
}

/// A rule's `[ACCESS] TOPIC`. As Mosquitto reads it, a first word that is
/// no access is an error, never part of the topic: `topic dney hsp/…`
/// (deny misspelt) would otherwise grant the topic `dney hsp/…` and lose
/// the deny.
fn rule(rest: &str) -> Result<Rule, String> {
    let (access, topic) = match rest.split_once(char::is_whitespace) {
        Some((word, topic)) => {
            let access = match word {
                "read" => Access::Read,
                "write" => Access::Write,
                "readwrite" => Access::ReadWrite,
                "deny" => Access::Deny,
                other => {
                    return Err(format!(
                        "`{other}` is no access (read, write, readwrite or deny); a topic holds no space"
                    ));
                }
            };
            (access, topic.trim())
        }
        None => (Access::ReadWrite, rest),
    };
    if topic.is_empty() {
        return Err("a rule without a topic".into());
    }
    Ok(Rule {
        access,
        topic: topic.to_string(),
    })
}

/// A pattern's topic with `%u` and `%c` put in; `None` when it names the
/// account of a client without one, or a value that would act as a
/// wildcard or another level (`+`, `#`, `/`), as Mosquitto refuses them.
fn substitute(topic: &str, user: Option<&str>, client: &str) -> Option<String> {
    let unsafe_value = |v: &str| v.contains(['+', '#', '/']);
    let mut out = topic.to_string();
    if topic.contains("%u") {
        let user = user.filter(|u| !unsafe_value(u))?;
        out = out.replace("%u", user);
    }
    if topic.contains("%c") {
        if unsafe_value(client) {
            return None;
        }
        out = out.replace("%c", client);
    }
    Some(out)
}

/// The filter of a shared subscription (`$share/GROUP/a/b` → `a/b`).
pub(super) fn shared_filter(filter: &str) -> &str {
    filter
        .strip_prefix("$share/")
        .and_then(|rest| rest.split_once('/'))
        .map_or(filter, |(_, inner)| inner)
}

/// Whether every topic `filter` matches is matched by the rule's `pattern`
/// (for a topic without wildcards: whether the pattern matches it).
pub(super) fn covers(pattern: &str, filter: &str) -> bool {
    let mut p = pattern.split('/');
    let mut f = filter.split('/');
    loop {
        match (p.next(), f.next()) {
            (Some("#"), _) => return true,
            (Some("+"), Some(level)) if level != "#" => {}
            (Some(a), Some(b)) if a == b && b != "+" && b != "#" => {}
            (None, None) => return true,
            _ => return false,
        }
    }
}

/// Whether some topic is matched by both `pattern` and `filter`.
fn intersects(pattern: &str, filter: &str) -> bool {
    let mut p = pattern.split('/');
    let mut f = filter.split('/');
    loop {
        match (p.next(), f.next()) {
            (Some("#"), _) | (_, Some("#")) => return true,
            (Some("+"), Some(_)) | (Some(_), Some("+")) => {}
            (Some(a), Some(b)) if a == b => {}
            (None, None) => return true,
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "\
# anyone may read the public facts
topic read hsp/public/#

user alice
topic readwrite hsp/tasks/#
topic deny hsp/tasks/secret/#

pattern read hsp/agents/%u/#
pattern write hsp/results/%c
";

    #[test]
    fn each_account_gets_its_own_rules_and_the_patterns() {
        let acl = Acl::parse(FILE).unwrap();
        // Without an account: the public facts, read only.
        assert!(acl.may_subscribe(None, "c1", "hsp/public/#"));
        assert!(acl.may_subscribe(None, "c1", "hsp/public/+/x"));
        assert!(!acl.may_publish(None, "c1", "hsp/public/x"));
        assert!(!acl.may_subscribe(None, "c1", "#"));
        assert!(!acl.may_subscribe(None, "c1", "hsp/agents/alice/#"));
        // alice: her inbox by pattern, the tasks but the secret ones.
        assert!(acl.may_subscribe(Some("alice"), "c1", "hsp/agents/alice/#"));
        assert!(!acl.may_subscribe(Some("alice"), "c1", "hsp/agents/bob/#"));
        assert!(!acl.may_subscribe(Some("alice"), "c1", "hsp/agents/+/#"));
        assert!(acl.may_publish(Some("alice"), "c1", "hsp/tasks/a"));
        assert!(!acl.may_publish(Some("alice"), "c1", "hsp/tasks/secret/a"));
        // A filter reaching into a denied branch is refused whole.
        assert!(!acl.may_subscribe(Some("alice"), "c1", "hsp/tasks/#"));
        assert!(acl.may_subscribe(Some("alice"), "c1", "hsp/tasks/open/#"));
        assert!(acl.may_subscribe(Some("alice"), "c1", "$share/workers/hsp/tasks/open/#"));
        // %c: the client id; one that holds a wildcard or a level matches nothing.
        assert!(acl.may_publish(Some("bob"), "worker-1", "hsp/results/worker-1"));
        assert!(!acl.may_publish(Some("bob"), "worker-1", "hsp/results/worker-2"));
        assert!(!acl.may_publish(Some("bob"), "#", "hsp/results/#"));
        assert!(!acl.may_subscribe(Some("a/b"), "c", "hsp/agents/a/b/#"));
    }

    #[test]
    fn a_line_that_is_no_rule_is_named() {
        let why = Acl::parse("user alice\ntopic\n").unwrap_err();
        assert!(why.starts_with("line 2:"), "{why}");
        let why = Acl::parse("allow all\n").unwrap_err();
        assert!(why.contains("`allow all`"), "{why}");
    }

    /// A misspelt access word fails the file, as Mosquitto's "Invalid topic
    /// access type", instead of granting a topic that begins with it.
    #[test]
    fn a_misspelt_access_is_an_error_not_a_grant() {
        for word in ["dney", "Deny", "reed", "rw"] {
            let file = format!("user bob\ntopic {word} hsp/agents/did:hsp:alice/#\n");
            let why = Acl::parse(&file).unwrap_err();
            assert!(
                why.starts_with("line 2:") && why.contains(&format!("`{word}` is no access")),
                "{why}"
            );
            let why = Acl::parse(&format!("pattern {word} hsp/agents/%u/#\n")).unwrap_err();
            assert!(why.starts_with("line 1:"), "{why}");
        }
        // One word alone is a topic, granted read and write.
        let acl = Acl::parse("user bob\ntopic hsp/results/bob\n").unwrap();
        assert!(acl.may_publish(Some("bob"), "c", "hsp/results/bob"));
    }

    /// The inbox rule docs/transports.md gives, taken from the page as
    /// written: each account reads its own DID inbox and no other.
    #[test]
    fn the_documented_inbox_rule_works_for_did_inboxes() {
        let page = include_str!("../../../docs/transports.md");
        let rule = page
            .split('`')
            .find(|s| s.starts_with("pattern read hsp/agents/"))
            .expect("the docs give an inbox rule");
        let acl = Acl::parse(&format!("{rule}\n")).unwrap();
        assert!(acl.may_subscribe(Some("alice"), "c", "hsp/agents/did:hsp:alice"));
        assert!(acl.may_subscribe(Some("alice"), "c", "hsp/agents/did:hsp:alice/#"));
        assert!(!acl.may_subscribe(Some("alice"), "c", "hsp/agents/did:hsp:bob"));
        assert!(!acl.may_subscribe(Some("alice"), "c", "hsp/agents/+"));
        assert!(!acl.may_subscribe(None, "c", "hsp/agents/did:hsp:alice"));
    }

    #[test]
    fn coverage_and_overlap_of_filters() {
        assert!(covers("a/#", "a"));
        assert!(covers("a/+/c", "a/+/c"));
        assert!(!covers("a/b", "a/+"));
        assert!(!covers("a/+", "a/#"));
        assert!(intersects("a/#", "#"));
        assert!(intersects("a/b", "+/b"));
        assert!(!intersects("a/b", "a/c"));
    }
}
