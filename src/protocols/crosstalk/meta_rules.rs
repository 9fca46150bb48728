//! The rules for `meta:` blocks: key spelling, and the values of the baseline
//! namespaces routing, privacy, attachments and error.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

use super::address;
use super::parse::ParsedEnvelope;
use crate::diag::{Diagnostic, Pos};
use crate::model::MetaBlock;

/// The error taxonomy of crosstalk-1.1 "Error Codes".
pub const ERROR_CODES: [&str; 8] = [
    "E-ROUTE",
    "E-CONSENT",
    "E-FORMAT",
    "E-TOO-LARGE",
    "E-PERM",
    "E-UNSUPPORTED",
    "E-TIMEOUT",
    "E-RATE",
];

/// Standard keys whose values the spec lists as a closed set. Other values
/// are warned about, not rejected: unknown values must not break relaying.
pub const CLOSED_VALUES: [(&str, &str, &[&str]); 5] = [
    ("routing", "X-Priority", &["high", "normal", "low"]),
    (
        "routing",
        "X-Delivery",
        &["copy_paste", "http", "email", "file"],
    ),
    (
        "routing",
        "X-Policy",
        &["no_third_party", "ok_to_cache", "pii_redacted"],
    ),
    ("privacy", "PII", &["present", "redacted", "none"]),
    (
        "privacy",
        "Scope",
        &["general", "pii", "medical", "financial"],
    ),
];

/// One entry of a meta block and where its key is.
struct Entry<'a> {
    key: &'a str,
    value: &'a str,
    at: Pos,
}

impl Entry<'_> {
    /// Where the value starts (after `Key: `).
    fn value_pos(&self) -> Pos {
        self.at.right(self.key.chars().count() + 2)
    }

    fn value_len(&self) -> usize {
        self.value.chars().count()
    }
}

pub fn check(parsed: &ParsedEnvelope, now: DateTime<Utc>, diags: &mut Vec<Diagnostic>) {
    let env = &parsed.envelope;
    for (block, (ns_at, key_positions)) in env.meta.iter().zip(&parsed.locations.meta) {
        check_namespace(block, *ns_at, diags);
        let entries: Vec<Entry> = block
            .entries
            .iter()
            .zip(key_positions)
            .map(|((key, value), at)| Entry {
                key,
                value,
                at: *at,
            })
            .collect();
        for (i, e) in entries.iter().enumerate() {
            check_key(e, &entries[..i], &block.namespace, diags);
            check_closed_value(&block.namespace, e, diags);
            match block.namespace.as_str() {
                "routing" => check_routing(e, diags),
                "privacy" => check_privacy(e, now, diags),
                "attachments" => check_attachment(e, diags),
                "error" => check_error_entry(e, diags),
                _ => {} // unknown namespaces are kept, never judged
            }
        }
    }
    if env.intent.as_deref() == Some("ERROR") {
        check_error_envelope(parsed, diags);
    }
}

fn check_namespace(block: &MetaBlock, at: Pos, diags: &mut Vec<Diagnostic>) {
    let ns = &block.namespace;
    let ok = ns
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c));
    if !ns.is_empty() && !ok {
        diags.push(
            Diagnostic::warning(
                "CT-META-NAMESPACE",
                format!("meta namespace `{ns}` should be lower case (e.g. custom-yourorg)"),
            )
            .at(at, ns.chars().count()),
        );
    }
}

/// crosstalk-1.1 "META Block Specification": keys are case-sensitive, PascalCase or X- prefixed.
fn check_key(e: &Entry, earlier: &[Entry], namespace: &str, diags: &mut Vec<Diagnostic>) {
    if !is_pascal_or_x(e.key) {
        diags.push(
            Diagnostic::warning(
                "CT-META-KEY",
                format!("meta key `{}` is neither PascalCase nor X-prefixed", e.key),
            )
            .at(e.at, e.key.chars().count())
            .with_hint("write keys like `Consent-ID` or `X-Route`"),
        );
    }
    if earlier.iter().any(|x| x.key == e.key) {
        diags.push(
            Diagnostic::warning(
                "CT-META-DUPLICATE",
                format!("key `{}` appears twice in meta block `{namespace}`", e.key),
            )
            .at(e.at, e.key.chars().count()),
        );
    }
}

fn is_pascal_or_x(key: &str) -> bool {
    if let Some(rest) = key.strip_prefix("X-") {
        return !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    }
    key.split('-').all(|part| {
        part.starts_with(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit())
            && part.chars().all(|c| c.is_ascii_alphanumeric())
    })
}

fn check_closed_value(namespace: &str, e: &Entry, diags: &mut Vec<Diagnostic>) {
    let Some((_, _, allowed)) = CLOSED_VALUES
        .iter()
        .find(|(ns, k, _)| *ns == namespace && *k == e.key)
    else {
        return;
    };
    if !allowed.contains(&e.value) {
        diags.push(
            Diagnostic::warning(
                "CT-META-VALUE",
                format!(
                    "{} `{}` is not one of {}",
                    e.key,
                    e.value,
                    allowed.join(" | ")
                ),
            )
            .at(e.value_pos(), e.value_len()),
        );
    }
}

fn check_routing(e: &Entry, diags: &mut Vec<Diagnostic>) {
    let addresses: Vec<&str> = match e.key {
        "X-Route" => address::route_hops(e.value),
        "X-Reply-To" => vec![e.value.trim()],
        _ => return,
    };
    for hop in addresses {
        if let Err(why) = address::check(hop) {
            diags.push(
                Diagnostic::error(
                    "CT-ROUTE-INVALID",
                    format!("{} address `{hop}`: {why}", e.key),
                )
                .at(e.value_pos(), e.value_len()),
            );
        }
    }
}

fn check_privacy(e: &Entry, now: DateTime<Utc>, diags: &mut Vec<Diagnostic>) {
    match e.key {
        "Consent" => {
            let (kind, when) = ["explicit_yes", "explicit_no", "implicit"]
                .iter()
                .find_map(|k| e.value.strip_prefix(k).map(|rest| (*k, rest)))
                .unwrap_or(("", e.value));
            let when_ok = when.is_empty()
                || when
                    .strip_prefix('_')
                    .is_some_and(|t| parse_timestamp(t).is_some());
            if kind.is_empty() || !when_ok {
                diags.push(
                    Diagnostic::error("CT-PRIVACY-CONSENT", format!("Consent `{}` is not explicit_yes, explicit_no or implicit (optionally _<timestamp>)", e.value))
                        .at(e.value_pos(), e.value_len())
                        .with_hint("e.g. `Consent: explicit_yes_2025-10-09T16:00Z`"),
                );
            }
        }
        "Expires" => match parse_timestamp(e.value) {
            None => diags.push(
                Diagnostic::error(
                    "CT-PRIVACY-EXPIRES",
                    format!("Expires `{}` is not an ISO 8601 timestamp", e.value),
                )
                .at(e.value_pos(), e.value_len())
                .with_hint("e.g. `Expires: 2025-10-10T16:00Z`"),
            ),
            Some(t) if t < now => diags.push(
                Diagnostic::warning(
                    "CT-PRIVACY-EXPIRED",
                    format!("consent expired at {}", t.format("%Y-%m-%d %H:%M UTC")),
                )
                .at(e.value_pos(), e.value_len()),
            ),
            Some(_) => {}
        },
        _ => {}
    }
}

/// ISO 8601 as people write it in envelopes: RFC 3339, or shortened to
/// minutes (`2025-10-09T16:00Z`), hours (`2025-10-09T16Z`) or a date.
pub fn parse_timestamp(s: &str) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    let s = s.strip_suffix('Z')?;
    let minutes = NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M")
        .or_else(|_| NaiveDateTime::parse_from_str(&format!("{s}:00"), "%Y-%m-%dT%H:%M"));
    if let Ok(t) = minutes {
        return Some(t.and_utc());
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc())
}

/// crosstalk-1.1 `meta: attachments`: `A<N>: mime/type;name=<file>;digest=<algo>:<hex>`.
fn check_attachment(e: &Entry, diags: &mut Vec<Diagnostic>) {
    let bad = |msg: String| {
        Diagnostic::error("CT-ATTACH-INVALID", msg)
            .at(e.value_pos(), e.value_len())
            .with_hint("e.g. `A1: text/plain;name=summary.txt;digest=sha256:<64 hex digits>`")
    };
    let key_ok = e.key.strip_prefix('A').is_some_and(|n| {
        !n.is_empty() && !n.starts_with('0') && n.chars().all(|c| c.is_ascii_digit())
    });
    if !key_ok {
        diags.push(
            Diagnostic::warning(
                "CT-ATTACH-KEY",
                format!("attachment key `{}` should be A1, A2, …", e.key),
            )
            .at(e.at, e.key.chars().count()),
        );
    }
    let mut parts = e.value.split(';').map(str::trim);
    let mime = parts.next().unwrap_or("");
    let mime_ok = mime
        .split_once('/')
        .is_some_and(|(t, s)| is_token(t) && is_token(s));
    if !mime_ok {
        diags.push(bad(format!(
            "attachment `{}` does not start with a MIME type such as text/plain",
            e.value
        )));
        return;
    }
    let mut name = false;
    for part in parts {
        match part.split_once('=') {
            Some(("name", v)) => name = !v.is_empty(),
            Some(("digest", v)) => {
                if let Err(why) = check_digest(v) {
                    diags.push(bad(format!("attachment digest `{v}`: {why}")));
                }
            }
            Some(_) => {}
            None => diags.push(bad(format!(
                "attachment parameter `{part}` is not name=value"
            ))),
        }
    }
    if !name {
        diags.push(bad("attachment has no `name=`".to_string()));
    }
}

fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c))
}

fn check_digest(digest: &str) -> Result<(), String> {
    let Some((algo, hex)) = digest.split_once(':') else {
        return Err("expected <algo>:<hex>".into());
    };
    let expected = match algo {
        "sha256" | "sha3-256" | "blake3" | "blake2s" => 64,
        "sha384" => 96,
        "sha512" | "sha3-512" | "blake2b" => 128,
        "sha1" => 40,
        "md5" => 32,
        _ => return Err(format!("unknown digest algorithm `{algo}`")),
    };
    if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err("the digest is not hexadecimal".into());
    }
    if hex.len() != expected {
        return Err(format!(
            "a {algo} digest has {expected} hex digits, this one {}",
            hex.len()
        ));
    }
    Ok(())
}

fn check_error_entry(e: &Entry, diags: &mut Vec<Diagnostic>) {
    if e.key == "Code" && !ERROR_CODES.contains(&e.value) {
        diags.push(
            Diagnostic::error(
                "CT-ERROR-CODE",
                format!("error code `{}` is not in the taxonomy", e.value),
            )
            .at(e.value_pos(), e.value_len())
            .with_hint(format!("codes: {}", ERROR_CODES.join(", "))),
        );
    }
}

/// crosstalk-1.1 "Error Envelope Format": an ERROR carries `meta: error` with a `Code:`.
fn check_error_envelope(parsed: &ParsedEnvelope, diags: &mut Vec<Diagnostic>) {
    let at = parsed.locations.header("intent");
    match parsed.envelope.meta_block("error") {
        None => diags.push(
            Diagnostic::error(
                "CT-ERROR-META",
                "an ERROR envelope needs a `meta: error` block with a `Code:`",
            )
            .at(at, 5)
            .with_hint(
                "add `meta: error`, `Code: E-FORMAT`, `Reason: …` (or compose with --error-code)",
            ),
        ),
        Some(block) if block.get("Code").is_none() => diags.push(
            Diagnostic::error("CT-ERROR-META", "the `meta: error` block has no `Code:`").at(at, 5),
        ),
        Some(block) if block.get("Reason").is_none() => diags.push(
            Diagnostic::warning(
                "CT-ERROR-REASON",
                "the `meta: error` block has no `Reason:`",
            )
            .at(at, 5),
        ),
        Some(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_timestamp_shapes_of_the_spec() {
        for s in [
            "2025-10-10T16:00Z",
            "2025-10-09T16Z",
            "2025-10-10T16:00:00Z",
            "2025-10-10T16:00:00+02:00",
            "2025-10-10Z",
        ] {
            assert!(parse_timestamp(s).is_some(), "{s}");
        }
        assert!(parse_timestamp("tomorrow").is_none());
    }

    #[test]
    fn key_spelling() {
        for k in [
            "PII",
            "Consent-ID",
            "Original-Intent",
            "A1",
            "X-Route",
            "X-reply",
        ] {
            assert!(is_pascal_or_x(k), "{k}");
        }
        for k in ["consent", "X-", "Bad_Key", "camelCase-x"] {
            assert!(!is_pascal_or_x(k), "{k}");
        }
    }

    #[test]
    fn digests_are_checked_for_length() {
        assert!(check_digest(&format!("sha256:{}", "a".repeat(64))).is_ok());
        assert!(check_digest("sha256:abc123...").is_err());
        assert!(check_digest("crc32:00").is_err());
    }
}
