//! `meta: audit` hops: what a relay adds to each envelope it moves, so the
//! route can be audited (`Hop-N: <relay> <time> sha256:<digest of the envelope as received>`).

use chrono::{DateTime, SecondsFormat, Utc};
use sha2::{Digest, Sha256};

use super::envelope::Envelope;

const NAMESPACE: &str = "audit";

/// `sha256:<hex>` of a text.
pub fn digest(text: &str) -> String {
    let hash = Sha256::digest(text.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Why a hop was not added.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HopError {
    #[error("the envelope is signed: a hop would break its signature")]
    Signed,
    #[error("Crosstalk 1.0 has no meta blocks")]
    Version1_0,
}

/// Appends the next `Hop-N` entry to the envelope's `meta: audit` block.
pub fn add_hop(
    env: &mut Envelope,
    relay: &str,
    at: DateTime<Utc>,
    received_digest: &str,
) -> Result<(), HopError> {
    if env.sig.as_deref().is_some_and(|s| s != "none") {
        return Err(HopError::Signed);
    }
    if env.version() == super::Version::V1_0 {
        return Err(HopError::Version1_0);
    }
    let block = env.meta_block_mut(NAMESPACE);
    let next = block
        .entries
        .iter()
        .filter_map(|(k, _)| k.strip_prefix("Hop-")?.parse::<u32>().ok())
        .max()
        .unwrap_or(0)
        + 1;
    block.entries.push((
        format!("Hop-{next}"),
        format!(
            "{relay} {} {received_digest}",
            at.to_rfc3339_opts(SecondsFormat::Secs, true)
        ),
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::crosstalk::{parse_all, render};

    const ENV: &str = "[[A→B v1]]\nthread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K\nmessage: 01J9J3DBC4N7P2Q3R5S7T9W1V2\nintent: REQUEST\n\nmeta: audit\nHop-1: claude://session/abc\n\nbody: |\n  hi\nsig: none\n[[END]]\n";

    #[test]
    fn hops_are_numbered_after_the_last() {
        let mut env = parse_all(ENV).remove(0).envelope;
        let at = DateTime::parse_from_rfc3339("2026-01-02T03:04:05Z")
            .unwrap()
            .to_utc();
        add_hop(&mut env, "relay-1", at, &digest(ENV)).unwrap();
        let text = render(&env);
        assert!(
            text.contains(
                "Hop-1: claude://session/abc\nHop-2: relay-1 2026-01-02T03:04:05Z sha256:"
            ),
            "{text}"
        );
        assert_eq!(
            digest("abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn signed_envelopes_are_left_as_they_are() {
        let signed = ENV.replace("sig: none", "sig: ed25519:pkid=a;sig=AAAA");
        let mut env = parse_all(&signed).remove(0).envelope;
        assert_eq!(
            add_hop(&mut env, "r", Utc::now(), "sha256:00"),
            Err(HopError::Signed)
        );
    }
}
