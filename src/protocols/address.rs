//! Addresses across protocols: HSP wants DIDs (or `hsp/…` topics), Crosstalk
//! wants its own address grammar, CSDL takes any string. Each mapping here
//! is undone by [`plain`], so an address survives any chain of conversions.

use crate::protocols::crosstalk::address as crosstalk_address;
use crate::protocols::hsp::checks::{is_did, is_topic};

/// The DID method aiproto writes for a name that is not a DID (`CLAUDE` →
/// `did:aiproto:CLAUDE`); [`plain`] turns it back into the name.
const DID_PREFIX: &str = "did:aiproto:";
/// The Crosstalk spelling of an HSP topic (`topic:hsp/knowledge/facts`).
const TOPIC_PREFIX: &str = "topic:";

/// The address as its owner wrote it: `did:aiproto:` names that aiproto
/// wrote decoded, other addresses unchanged. A `did:aiproto:` address that
/// [`to_hsp_ai_id`] would not have written (`did:aiproto:read/xyz`) is
/// somebody's own and stays as it is.
pub fn plain(address: &str) -> String {
    address
        .strip_prefix(DID_PREFIX)
        .and_then(|encoded| {
            let name = percent_decode(encoded)?;
            (percent_encode(&name) == encoded).then_some(name)
        })
        .unwrap_or_else(|| address.to_string())
}

/// An HSP `sender_ai_id`: a DID as it is, anything else as a `did:aiproto:` name.
pub fn to_hsp_ai_id(address: &str) -> String {
    if is_did(address) {
        address.to_string()
    } else {
        format!("{DID_PREFIX}{}", percent_encode(address))
    }
}

/// An HSP `recipient_ai_id`: a DID or topic as it is (a Crosstalk
/// `topic:hsp/…` unwrapped), anything else as a `did:aiproto:` name.
pub fn to_hsp_address(address: &str) -> String {
    let topic = address.strip_prefix(TOPIC_PREFIX).unwrap_or(address);
    if is_topic(topic) {
        topic.to_string()
    } else {
        to_hsp_ai_id(address)
    }
}

/// A Crosstalk address (or comma-separated list of them, as a header line
/// may name several receivers) for a model address; `None` when it cannot be one.
pub fn to_crosstalk(address: &str) -> Option<String> {
    let plain = plain(address);
    let candidate = if is_topic(&plain) {
        format!("{TOPIC_PREFIX}{plain}")
    } else {
        plain
    };
    candidate
        .split(',')
        .all(|part| crosstalk_address::check(part).is_ok())
        .then_some(candidate)
}

/// Everything but ASCII letters, digits, `.`, `_` and `-` as `%XX`: what a
/// DID's method-specific id may hold, and reversible.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"._-".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_dids_and_come_back() {
        for name in [
            "CLAUDE",
            "dr-smith",
            "kalle@home",
            "Zoë",
            "human://kalle",
            "a%b",
        ] {
            let did = to_hsp_ai_id(name);
            assert!(is_did(&did), "{did}");
            assert_eq!(plain(&did), name);
        }
        assert_eq!(to_hsp_ai_id("did:key:abc"), "did:key:abc");
        // Not written by aiproto: kept as it is.
        for own in [
            "did:aiproto:read/xyz",
            "did:aiproto:a%2fb",
            "did:aiproto:%zz",
        ] {
            assert_eq!(plain(own), own);
        }
    }

    #[test]
    fn topics_travel_through_crosstalk() {
        let ct = to_crosstalk("hsp/knowledge/facts").unwrap();
        assert_eq!(ct, "topic:hsp/knowledge/facts");
        assert_eq!(to_hsp_address(&ct), "hsp/knowledge/facts");
        assert_eq!(
            to_crosstalk("did:aiproto:CLAUDE").as_deref(),
            Some("CLAUDE")
        );
        assert_eq!(
            to_crosstalk("did:key:z6Mk").as_deref(),
            Some("did:key:z6Mk")
        );
        assert_eq!(to_crosstalk("two words"), None);
        assert_eq!(to_crosstalk("did:aiproto:A%2CB").as_deref(), Some("A,B"));
    }
}
