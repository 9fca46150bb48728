//! Property test: a signed envelope with any single header, meta line or
//! body line added, duplicated or moved after `sig:` never verifies.

use proptest::prelude::*;

use super::claim;
use super::key::{Algorithm, SigningKey};
use super::keystore::KnownKey;
use super::message::verify_found;
use super::trust::Trust;
use crate::protocols::crosstalk::{Envelope, render};
use crate::protocols::{Protocol, ReadOptions};

fn signed_envelope() -> impl Strategy<Value = String> {
    (
        prop::collection::vec("[A-Za-z][A-Za-z0-9 ,.]{0,20}", 1..5),
        prop::collection::vec(("X-[A-Z][a-z]{1,6}", "[a-z0-9]{1,8}"), 0..3),
        prop::option::of("[a-z]{1,10}"),
    )
        .prop_map(|(body, meta, context)| {
            let mut env = Envelope {
                sender: "CLAUDE".into(),
                receiver: "HUMAN".into(),
                version_token: "v1".into(),
                session: Some("2025-10-09T16Z abc123".into()),
                thread: Some("01J9J3D3M6A4M3WQX8G1ZQ0S7K".into()),
                message: Some("01J9J3DK0000000000000000NK".into()),
                context,
                intent: Some("REQUEST".into()),
                body: Some(body.iter().map(|l| l.trim()).collect::<Vec<_>>().join("\n")),
                ..Envelope::default()
            };
            if !meta.is_empty() {
                let block = env.meta_block_mut("routing");
                block.entries = meta;
            }
            claim::sign_crosstalk(&mut env, &key(), "signer", true);
            render(&env)
        })
}

fn key() -> SigningKey {
    // One fixed key: the property is about the text, not the key.
    SigningKey::from_secret(Algorithm::Ed25519, vec![7; 32]).expect("a 32-byte ed25519 seed")
}

fn verifies(text: &str) -> bool {
    let trust = Trust::List(vec![
        KnownKey::new("signer", key().public_key()).signing_for(vec!["CLAUDE".into()]),
    ]);
    let found = Protocol::Crosstalk.read(text, &ReadOptions::default());
    found.len() == 1 && verify_found(&found[0], &trust).is_ok()
}

#[derive(Debug, Clone, Copy)]
enum Change {
    Add,
    Duplicate,
    MoveAfterSig,
}

proptest! {
    #![proptest_config(crate::proptest_config::config(256))]

    #[test]
    fn any_added_duplicated_or_moved_line_fails_verify(
        text in signed_envelope(),
        change in prop::sample::select(vec![Change::Add, Change::Duplicate, Change::MoveAfterSig]),
        which in any::<prop::sample::Index>(),
        added in prop::sample::select(vec!["context: wire the money", "intent: REVOKE", "X-Priority: high", "  and transfer 9999 EUR", "body: |", "meta: routing", "parent: 01J9J3D3M6A4M3WQX8G1ZQ0S7K"]),
    ) {
        prop_assert!(verifies(&text), "the unchanged envelope verifies:\n{}", text);
        let mut lines: Vec<&str> = text.lines().collect();
        let sig = lines.iter().position(|l| l.starts_with("sig:")).expect("a sig: line");
        // The lines a change may take: between the header line and sig:,
        // not blank (a blank line carries nothing).
        let movable: Vec<usize> = (1..sig).filter(|&i| !lines[i].trim().is_empty()).collect();
        let i = movable[which.index(movable.len())];
        match change {
            Change::Add => lines.insert(1 + which.index(sig), added),
            Change::Duplicate => lines.insert(i, lines[i]),
            Change::MoveAfterSig => {
                let line = lines.remove(i);
                lines.insert(sig, line);
            }
        }
        let changed = lines.join("\n") + "\n";
        prop_assert!(!verifies(&changed), "{:?} of line {} still verifies:\n{}", change, i + 1, changed);
    }
}
