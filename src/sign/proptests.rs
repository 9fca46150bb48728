//! Property tests: a signed envelope with any single header, meta line or
//! body line added, duplicated or moved after `sig:` never verifies; a
//! signed JSON message with any number changed in its last digit never
//! verifies (or could not be signed in the first place).

use proptest::prelude::*;

use super::claim;
use super::key::{Algorithm, SigningKey};
use super::keystore::KnownKey;
use super::message::{SigForm, Signer, verify_found};
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

/// An HSP task request whose parameters hold `literal` as a number.
fn task_request(literal: &str) -> String {
    format!(
        r#"{{"hsp_envelope_version": "1.0", "message_id": "018f4a70-0000-7000-8000-00000000b001", "correlation_id": null, "sender_ai_id": "did:hsp:agent_A", "recipient_ai_id": "did:hsp:agent_B", "timestamp_sent": "2024-07-05T14:00:00Z", "message_type": "HSP::TaskRequest_v1.0", "protocol_version": "1.0", "communication_pattern": "request", "qos_parameters": {{"priority": "medium", "requires_ack": false}}, "payload": {{"request_id": "018f4a70-0000-7000-8000-000000000001", "requester_ai_id": "did:hsp:agent_A", "capability_id_filter": "did:hsp:x", "parameters": {{"amount": {literal}}}, "callback_address": "hsp/results/agent_A"}}}}"#
    )
}

/// A JSON number literal: an integer or a decimal, of any length, with an
/// optional exponent.
fn number_literal() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        "[1-9][0-9]{0,24}",
        prop::option::of("[0-9]{1,20}"),
        prop::option::of(-30i32..30),
    )
        .prop_map(|(negative, int, frac, exp)| {
            let mut s = String::new();
            if negative {
                s.push('-');
            }
            s.push_str(&int);
            if let Some(frac) = frac {
                s.push('.');
                s.push_str(&frac);
            }
            if let Some(exp) = exp {
                s.push_str(&format!("e{exp}"));
            }
            s
        })
}

proptest! {
    #![proptest_config(crate::proptest_config::config(256))]

    #[test]
    fn any_number_changed_in_its_last_digit_fails_verify_or_was_never_signed(
        literal in number_literal(),
        bump in 1u8..10,
    ) {
        let key = key();
        let entry = KnownKey::new("signer", key.public_key()).signing_for(vec!["did:hsp:*".into()]);
        let signer = Signer {
            key: &key,
            key_id: "signer",
            entry: &entry,
            form: SigForm::Keyed,
            with_public_key: true,
            alone: false,
        };
        let found = Protocol::Hsp.read(&task_request(&literal), &ReadOptions::default());
        prop_assert_eq!(found.len(), 1);
        let Ok(Some(signed)) = signer.sign(&found[0]) else {
            // Refused at sign: a number a double cannot hold as written.
            return Ok(());
        };
        let trust = Trust::List(vec![entry.clone()]);
        let read = Protocol::Hsp.read(&signed, &ReadOptions::default());
        prop_assert!(verify_found(&read[0], &trust).is_ok(), "{}", signed);
        // The number as the signed text shows it (the signer writes the
        // JSON again), its last mantissa digit changed.
        let at = signed.find("\"amount\":").expect("the amount") + "\"amount\":".len();
        let shown = &signed[at..at + signed[at..].find('}').expect("its end")];
        let mantissa_end = shown.find(['e', 'E']).unwrap_or(shown.len());
        let last = shown.as_bytes()[mantissa_end - 1] - b'0';
        let mut changed = shown.to_string();
        changed.replace_range(
            mantissa_end - 1..mantissa_end,
            &((last + bump) % 10).to_string(),
        );
        let tampered = format!("{}{changed}{}", &signed[..at], &signed[at + shown.len()..]);
        prop_assert_ne!(&tampered, &signed);
        let read = Protocol::Hsp.read(&tampered, &ReadOptions::default());
        prop_assert!(
            verify_found(&read[0], &trust).is_err(),
            "{} (shown as {}) changed to {} still verifies", literal, shown, changed
        );
    }
}

/// The senders the key sequences below use: names, their look-alikes
/// (Greek capital alpha for A, lower case), patterns and nothing.
const SENDERS: [&str; 8] = ["ALICE", "BOB", "alice", "\u{391}LICE", "*", "A*", "?", ""];

/// One of three fixed keys.
fn nth_key(i: usize) -> SigningKey {
    let seed = u8::try_from(i + 1).unwrap_or(1);
    SigningKey::from_secret(Algorithm::Ed25519, vec![seed; 32]).expect("a 32-byte ed25519 seed")
}

/// An envelope from `sender`, signed by key `i` under the id `k<i>`, its
/// public key included (what `verify --tofu` pins).
fn from_sender(sender: &str, i: usize) -> String {
    let mut env = Envelope {
        sender: sender.into(),
        receiver: "HUMAN".into(),
        version_token: "v1".into(),
        thread: Some("01J9J3D3M6A4M3WQX8G1ZQ0S7K".into()),
        message: Some("01J9J3DK0000000000000000NK".into()),
        intent: Some("REQUEST".into()),
        body: Some("Pay 10 EUR.".into()),
        ..Envelope::default()
    };
    claim::sign_crosstalk(&mut env, &nth_key(i), &format!("k{i}"), true);
    render(&env)
}

/// What a person or a peer does to the keystore: a `verify --tofu` of a
/// message from any sender, `keys trust ID KEY --signs-for NAME`, `keys
/// revoke`, `keys forget`. Never `--replace` or a pattern in `--signs-for`:
/// with those the person widens a key's scope on purpose (docs/signing.md).
#[derive(Debug, Clone)]
enum KeyOp {
    Tofu(usize, &'static str),
    Trust(usize, &'static str),
    Revoke(usize),
    Forget(usize),
}

fn key_op() -> impl Strategy<Value = KeyOp> {
    let sender = prop::sample::select(SENDERS.to_vec());
    let name = prop::sample::select(SENDERS[..4].to_vec());
    prop_oneof![
        3 => (0..3usize, sender).prop_map(|(i, s)| KeyOp::Tofu(i, s)),
        2 => (0..3usize, name).prop_map(|(i, s)| KeyOp::Trust(i, s)),
        1 => (0..3usize).prop_map(KeyOp::Revoke),
        1 => (0..3usize).prop_map(KeyOp::Forget),
    ]
}

proptest! {
    #![proptest_config(crate::proptest_config::config(48))]

    /// Whatever sequence of first uses, trusts, revocations and forgets
    /// runs, no sender is verified by two keys, a revoked key verifies
    /// nothing, and a pattern or an empty sender is never verified.
    #[test]
    fn no_key_sequence_lets_two_keys_speak_for_one_sender_or_a_revoked_one_speak(
        ops in prop::collection::vec(key_op(), 1..10),
    ) {
        use super::keystore::Keystore;
        let home = tempfile::tempdir().expect("a temporary folder");
        let store = Keystore::at(home.path());
        let mut revoked = std::collections::HashSet::new();
        for op in &ops {
            match op {
                KeyOp::Tofu(i, sender) => {
                    let found = Protocol::Crosstalk.read(&from_sender(sender, *i), &ReadOptions::default());
                    let trust = Trust::Store { store: Keystore::at(home.path()), tofu: true };
                    if let Some(found) = found.first() {
                        let _ = verify_found(found, &trust);
                    }
                }
                KeyOp::Trust(i, sender) => {
                    let entry = KnownKey::new(format!("k{i}"), nth_key(*i).public_key())
                        .signing_for(vec![(*sender).to_string()]);
                    let _ = store.pin(entry, false);
                }
                KeyOp::Revoke(i) => {
                    store
                        .revoke(&format!("k{i}"), &nth_key(*i).public_key(), "HUMAN")
                        .expect("a revocation is written");
                    revoked.insert(*i);
                }
                KeyOp::Forget(i) => {
                    let _ = store.forget(&format!("k{i}"));
                }
            }
            for sender in SENDERS {
                let speaking: Vec<usize> = (0..3)
                    .filter(|i| {
                        let found = Protocol::Crosstalk.read(&from_sender(sender, *i), &ReadOptions::default());
                        let trust = Trust::Store { store: Keystore::at(home.path()), tofu: false };
                        found.first().is_some_and(|f| verify_found(f, &trust).is_ok())
                    })
                    .collect();
                prop_assert!(
                    speaking.len() <= 1,
                    "after {:?}: keys {:?} all verify for `{}`", op, speaking, sender
                );
                prop_assert!(
                    speaking.iter().all(|i| !revoked.contains(i)),
                    "after {:?}: revoked key {:?} verifies for `{}`", op, speaking, sender
                );
                let pattern = sender.is_empty() || sender.contains(['*', '?']);
                prop_assert!(
                    !pattern || speaking.is_empty(),
                    "after {:?}: key {:?} verifies for the pattern `{}`", op, speaking, sender
                );
            }
        }
    }
}
