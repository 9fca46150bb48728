//! `aiproto keygen` and `aiproto keys`: the keystore from the command line.
//! Trust is granted here, by the person: what a file says a key may do is
//! shown, never taken.

use std::io::Write;

use super::args::{GlobalArgs, KeyFormat, KeygenArgs, KeysCommand};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::input::Input;
use crate::operations::read;
use crate::operations::{ReadOptions, ReadValue as Value};
use crate::output::{self, Painter, Stream, escape_controls};
use crate::sign::key::PublicKey;
use crate::sign::key_line::format_date;
use crate::sign::keystore::{self, Keystore, KnownKey, Origin, StoreError};
use crate::sign::statement;

/// Keystore problems (a missing key, an existing one, a corrupt file) are usage errors.
fn store_error(e: StoreError) -> CliError {
    CliError::new(ExitStatus::Usage, e)
}

fn invalid(message: String) -> CliError {
    CliError::new(ExitStatus::Invalid, anyhow::anyhow!(message))
}

pub fn keygen(args: &KeygenArgs, g: &GlobalArgs) -> CmdResult {
    let store = Keystore::open().map_err(store_error)?;
    if let Some(id) = &args.rotate {
        return rotate(&store, id, args, g);
    }
    let id = args.id.as_deref().unwrap_or_default();
    let public = store
        .generate(
            id,
            args.algorithm,
            args.force,
            &args.signs_for,
            args.expires,
        )
        .map_err(store_error)?;
    if let Some(path) = &args.revocation {
        let key = store.signing_key(id).map_err(store_error)?;
        write_private(
            path,
            &statement::revocation(&key, &public, "key lost or stolen"),
        )?;
    }
    std::io::stdout()
        .lock()
        .write_all(format!("{}\n", public.to_line()).as_bytes())?;
    if !g.quiet {
        eprintln!(
            "aiproto: new {} key `{id}` ({}) in {}",
            public.key.algorithm.name(),
            public.key.fingerprint(),
            keystore::home().map_or_else(String::new, |h| h.display().to_string())
        );
        if args.force {
            eprintln!(
                "aiproto: the key it replaces is kept as retired; peers were told nothing (`keygen --rotate` writes them a transition statement)"
            );
        }
        if let Some(path) = &args.revocation {
            eprintln!(
                "aiproto: its revocation is in {}: keep it safe and away from the key",
                path.display()
            );
        }
    }
    Ok(ExitStatus::Ok)
}

/// `keygen --rotate ID`: the statement goes to stdout, for the peers.
fn rotate(store: &Keystore, id: &str, args: &KeygenArgs, g: &GlobalArgs) -> CmdResult {
    let (old_key, old, new) = store.rotate(id, args.expires).map_err(store_error)?;
    let text = statement::transition(&old_key, &old, &new.key);
    if let Some(path) = &args.revocation {
        let key = store.signing_key(id).map_err(store_error)?;
        write_private(
            path,
            &statement::revocation(&key, &new, "key lost or stolen"),
        )?;
    }
    std::io::stdout().lock().write_all(text.as_bytes())?;
    if !g.quiet {
        eprintln!(
            "aiproto: `{id}` rotated: {} (retired, still verifies what it signed) → {}",
            old.key.fingerprint(),
            new.key.fingerprint()
        );
        eprintln!(
            "aiproto: send the statement above to your peers: aiproto keys apply-transition FILE"
        );
    }
    Ok(ExitStatus::Ok)
}

/// Writes a file only its owner can read (a revocation is as precious as the key).
fn write_private(path: &std::path::Path, text: &str) -> Result<(), CliError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .map_err(|e| CliError::usage(format!("cannot write {}: {e}", path.display())))?;
    file.write_all(text.as_bytes())?;
    Ok(())
}

pub fn run(cmd: &KeysCommand, g: &GlobalArgs) -> CmdResult {
    let store = Keystore::open().map_err(store_error)?;
    match cmd {
        KeysCommand::List => list(&store, g)?,
        KeysCommand::Export { id, encoding } => {
            let (entry, _) = store
                .trusted_entry(id)
                .map_err(store_error)?
                .ok_or_else(|| store_error(StoreError::Unknown(id.clone())))?;
            let key = entry.key.clone();
            let text = match encoding {
                KeyFormat::Line => entry.to_line() + "\n",
                KeyFormat::Pem => key.to_pem(),
                KeyFormat::Raw => key.to_base64() + "\n",
                KeyFormat::Minisign => {
                    crate::sign::detached::minisign_public_text(&key).map_err(CliError::usage)?
                }
            };
            std::io::stdout().lock().write_all(text.as_bytes())?;
        }
        KeysCommand::Import {
            file,
            signs_for,
            replace,
        } => {
            let keys = keystore::read_key_lines(file).map_err(store_error)?;
            for k in &keys {
                let mut entry =
                    KnownKey::new(k.id.clone(), k.key.clone()).signing_for(signs_for.clone());
                // What narrows a key is taken; what widens it is not.
                entry.expires = k.expires;
                entry.retired = k.retired;
                suggested_only(&k.id, &k.signs_for, signs_for);
                if *replace {
                    say_shared(&store, &entry)?;
                }
                store.pin(entry, *replace).map_err(store_error)?;
                announce(&k.id, &k.key, *replace);
            }
            eprintln!("aiproto: pinned {} key(s)", keys.len());
        }
        KeysCommand::Trust {
            id,
            key,
            signs_for,
            may_revoke,
            replace,
        } => {
            let text = std::fs::read_to_string(key).unwrap_or_else(|_| key.clone());
            let (public, from_line) = parse_any_public(&text)
                .map_err(|why| CliError::usage(format!("cannot read the key: {why}")))?;
            suggested_only(id, &from_line, signs_for);
            let mut entry =
                KnownKey::new(id.clone(), public.clone()).signing_for(signs_for.clone());
            entry.revokers = may_revoke.clone();
            if *replace {
                say_shared(&store, &entry)?;
            }
            store.pin(entry, *replace).map_err(store_error)?;
            announce(id, &public, *replace);
        }
        KeysCommand::ApplyRevoke { path } => return apply_revoke(&store, path),
        KeysCommand::Unrevoke { id } => {
            let gone = store.unrevoke(id).map_err(store_error)?;
            if gone.is_empty() {
                return Err(CliError::usage(format!(
                    "`{id}` has no revocation to withdraw"
                )));
            }
            for r in gone {
                eprintln!(
                    "aiproto: withdrew the revocation of `{id}` ({}): its signatures verify again",
                    r.fingerprint
                );
            }
        }
        KeysCommand::ApplyTransition { path } => return apply_transition(&store, path),
        KeysCommand::Forget { id } => {
            if store.is_own(id).map_err(store_error)? {
                return Err(CliError::usage(format!(
                    "`{id}` is your own key, not a key pinned for someone else; `keys forget` only removes pinned keys"
                ))
                .with_hint(
                    "your private key stays in the keystore's keys/ folder; to replace it: aiproto keygen --rotate ID",
                ));
            }
            if !store.forget(id).map_err(store_error)? {
                return Err(store_error(StoreError::Unknown(id.clone())));
            }
            eprintln!("aiproto: forgot the pinned key of `{id}`");
        }
    }
    Ok(ExitStatus::Ok)
}

/// A sender another key already signs for, which `entry` will sign for too
/// (`--replace`; refused without): both keys named, with fingerprints.
fn say_shared(store: &Keystore, entry: &KnownKey) -> Result<(), CliError> {
    if let Some((sender, bound, _)) = store.bound_elsewhere(entry).map_err(store_error)? {
        eprintln!(
            "aiproto: `{}` is signed for by `{}` ({}); with --replace, `{}` ({}) signs for it too",
            escape_controls(&sender),
            escape_controls(&bound.id),
            bound.key.fingerprint(),
            escape_controls(&entry.id),
            entry.key.fingerprint()
        );
    }
    Ok(())
}

/// A file's `signs-for=` is a suggestion: say what it asked and what was stored.
fn suggested_only(id: &str, from_file: &[String], given: &[String]) {
    if from_file.is_empty() || from_file == given {
        return;
    }
    let stored = if given.is_empty() {
        format!("`{}` only", escape_controls(id))
    } else {
        escape_controls(&given.join(", ")).to_string()
    };
    eprintln!(
        "aiproto: the file says `{}` signs for {}; stored for {stored} (grant more with --signs-for)",
        escape_controls(id),
        escape_controls(&from_file.join(", "))
    );
}

fn announce(id: &str, key: &PublicKey, replace: bool) {
    let verb = if replace {
        "pinned (replacing any earlier key)"
    } else {
        "pinned"
    };
    eprintln!(
        "aiproto: {verb} `{}` ({} {})",
        escape_controls(id),
        key.algorithm.name(),
        key.fingerprint()
    );
}

/// `keys list`: every key the keystore holds, one line each.
fn list(store: &Keystore, g: &GlobalArgs) -> Result<(), CliError> {
    let p = Painter::new(g.color, Stream::Stdout);
    let mut out = std::io::stdout().lock();
    let mut rows: Vec<(KnownKey, Origin)> = Vec::new();
    rows.extend(
        store
            .own_keys()
            .map_err(store_error)?
            .into_iter()
            .map(|k| (k, Origin::Own)),
    );
    rows.extend(
        store
            .retired_own_keys()
            .map_err(store_error)?
            .into_iter()
            .map(|k| (k, Origin::Own)),
    );
    rows.extend(
        store
            .known_keys()
            .map_err(store_error)?
            .into_iter()
            .map(|k| (k, Origin::Pinned)),
    );
    for (k, origin) in &rows {
        let (k, origin) = (k, *origin);
        let revoked = store.revoked(&k.key).map_err(store_error)?;
        let kind = match (origin, &revoked, k.is_current()) {
            (_, Some(_), _) => "revoked",
            (Origin::Own, None, true) => "own",
            (Origin::Own, None, false) => "own-old",
            (Origin::Pinned, None, true) => "pinned",
            (Origin::Pinned, None, false) => "retired",
        };
        let mut notes = Vec::new();
        if let Some(r) = &revoked {
            let mut note = "revoked".to_string();
            if let Some(at) = r.at {
                note.push_str(&format!(" {}", format_date(at)));
            }
            if let Some(by) = &r.by {
                note.push_str(&format!(" by {}", escape_controls(by)));
            }
            notes.push(note);
        }
        if let Some(at) = k.retired {
            notes.push(format!("retired {}", format_date(at)));
        }
        if let Some(at) = k.expires {
            notes.push(format!("expires {}", format_date(at)));
        }
        if !k.revokers.is_empty() {
            notes.push(format!(
                "may be revoked by {}",
                escape_controls(&k.revokers.join(", "))
            ));
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("  ({})", notes.join("; "))
        };
        writeln!(
            out,
            "{:<8} {:<32} {:<10} {}  signs for {}{notes}",
            p.dim(kind),
            p.bold(&output::escape_controls(&k.id)),
            k.key.algorithm.name(),
            k.key.fingerprint(),
            output::escape_controls(&k.allowed())
        )?;
    }
    // Revocations whose key is pinned no more (replaced, forgotten) or never
    // was: they still hold, and say so.
    let listed: Vec<String> = rows.iter().map(|(k, _)| k.key.fingerprint()).collect();
    for r in store.revocations().map_err(store_error)? {
        if listed.contains(&r.fingerprint) {
            continue;
        }
        let mut note = String::from("revoked");
        if let Some(at) = r.at {
            note.push_str(&format!(" {}", format_date(at)));
        }
        if let Some(by) = &r.by {
            note.push_str(&format!(" by {}", escape_controls(by)));
        }
        writeln!(
            out,
            "{:<8} {:<32} {:<10} {}  signs for nobody  ({note}; not pinned)",
            p.dim("revoked"),
            p.bold(&output::escape_controls(&r.id)),
            "",
            r.fingerprint,
        )?;
    }
    Ok(())
}

/// A public key in any encoding `keys export` writes: a keystore line (with
/// the senders it says it signs for), PEM, raw base64, or minisign's public key.
pub fn parse_any_public(text: &str) -> Result<(PublicKey, Vec<String>), String> {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("");
    if let Ok(known) = KnownKey::parse(line) {
        return Ok((known.key, known.signs_for));
    }
    PublicKey::parse_text(text)
        .or_else(|why| crate::sign::detached::parse_minisign_public(text).ok_or(why))
        .map(|key| (key, Vec::new()))
}

/// The Crosstalk envelopes of a statement file, each with its place.
fn statements(
    path: &std::path::Path,
) -> Result<Vec<(String, crate::operations::composing::ParsedEnvelope)>, CliError> {
    let doc = read::read(
        &Input::File(path.to_path_buf()),
        None,
        &ReadOptions::default(),
    )?;
    Ok(doc
        .messages
        .iter()
        .filter_map(|found| match &found.value {
            Value::Crosstalk(parsed) => Some((
                format!("{}:{}", doc.source.name, found.line),
                (**parsed).clone(),
            )),
            _ => None,
        })
        .collect())
}

/// `keys apply-revoke`: a REVOKE of a key is applied when it is signed by
/// that key (a revocation certificate), or by a key the person named as a
/// revoker of it; anyone else's word revokes nothing.
fn apply_revoke(store: &Keystore, path: &std::path::Path) -> CmdResult {
    let mut applied = 0;
    for (at, parsed) in statements(path)? {
        let env = &parsed.envelope;
        if env.intent.as_deref() != Some("REVOKE") {
            continue;
        }
        let (claim, input) = crate::sign::claim::crosstalk_signed(&parsed)
            .map_err(|e| invalid(format!("{at}: the REVOKE is not signed: {e}")))?;
        let block = env.meta_block("revocation");
        let kind = block.and_then(|b| b.get("Type")).unwrap_or("");
        if !kind.eq_ignore_ascii_case("key") {
            return Err(invalid(format!(
                "{at}: this REVOKE withdraws `{kind}`, not a key (meta: revocation / Type: key)"
            )));
        }
        let target = block
            .and_then(|b| b.get("Key-ID"))
            .unwrap_or(&claim.key_id)
            .to_string();
        let entries = store.entries_for(&target).map_err(store_error)?;
        if entries.is_empty() {
            // A revocation certificate for a key not pinned here (yet): kept
            // when the key it carries signed it, so that key never verifies
            // here, whenever it comes (as OpenPGP honours one before the key).
            let presented = claim.public_key.as_ref().filter(|k| {
                target == claim.key_id
                    && k.algorithm == claim.algorithm
                    && k.verify(&input, &claim.signature)
            });
            let Some(presented) = presented else {
                return Err(store_error(StoreError::Unknown(target)));
            };
            store
                .revoke(&target, presented, &target)
                .map_err(store_error)?;
            eprintln!(
                "aiproto: revoked `{}` ({}) on its own word before it was pinned here: it will never verify",
                escape_controls(&target),
                presented.fingerprint()
            );
            applied += 1;
            continue;
        }
        // Signed by the key it revokes?
        let own_word = entries.iter().find(|(e, _)| {
            e.key.algorithm == claim.algorithm && e.key.verify(&input, &claim.signature)
        });
        let (revoked, by) = match own_word {
            Some((entry, _)) => (entry.clone(), target.clone()),
            None => {
                let (current, _) = entries
                    .iter()
                    .find(|(e, _)| e.is_current())
                    .unwrap_or(&entries[0]);
                if !current.revokers.contains(&claim.key_id) {
                    return Err(invalid(format!(
                        "{at}: `{}` may not revoke `{target}`: a key is revoked by its own signature, or by a key you named with `aiproto keys trust {target} KEY --may-revoke ID`; nothing revoked",
                        escape_controls(&claim.key_id)
                    )));
                }
                let trust = crate::sign::trust::Trust::Store {
                    store: store.clone(),
                    tofu: false,
                };
                let signer =
                    crate::sign::trust::verify(&claim, &input, &trust, None).map_err(|e| {
                        invalid(format!("{at}: the REVOKE's signature is not accepted: {e}"))
                    })?;
                (current.clone(), signer.key_id)
            }
        };
        store
            .revoke(&target, &revoked.key, &by)
            .map_err(store_error)?;
        eprintln!(
            "aiproto: revoked `{target}` ({}), on the word of `{by}`",
            revoked.key.fingerprint()
        );
        applied += 1;
    }
    if applied == 0 {
        return Err(invalid(format!("{}: no REVOKE envelope", path.display())));
    }
    Ok(ExitStatus::Ok)
}

/// `keys apply-transition`: the statement must be signed by the old key,
/// which must be the key pinned for its id here.
fn apply_transition(store: &Keystore, path: &std::path::Path) -> CmdResult {
    let mut applied = 0;
    for (at, parsed) in statements(path)? {
        let Some(transition) = statement::read_transition(&parsed) else {
            continue;
        };
        let t = transition.map_err(|why| invalid(format!("{at}: {why}")))?;
        let (claim, input) = crate::sign::claim::crosstalk_signed(&parsed)
            .map_err(|e| invalid(format!("{at}: the key transition is not signed: {e}")))?;
        if !(t.old.algorithm == claim.algorithm && t.old.verify(&input, &claim.signature)) {
            return Err(invalid(format!(
                "{at}: the key transition of `{}` is not signed by the old key it names; nothing changed",
                escape_controls(&t.id)
            )));
        }
        let pinned = store.trusted_entry(&t.id).map_err(store_error)?;
        match pinned {
            Some((entry, false)) if entry.key == t.old => {}
            Some((_, true)) => {
                return Err(invalid(format!(
                    "{at}: `{}` is your own key: rotate it with `aiproto keygen --rotate`",
                    escape_controls(&t.id)
                )));
            }
            Some((entry, false)) if entry.key == t.new => {
                eprintln!(
                    "aiproto: `{}` already has the new key",
                    escape_controls(&t.id)
                );
                applied += 1;
                continue;
            }
            Some((entry, false)) => {
                return Err(invalid(format!(
                    "{at}: the statement's old key {} is not the key you trust for `{}` ({}); nothing changed",
                    t.old.fingerprint(),
                    escape_controls(&t.id),
                    entry.key.fingerprint()
                )));
            }
            None => {
                return Err(invalid(format!(
                    "{at}: you trust no key for `{}`: a transition only moves trust you gave the old key (`aiproto keys trust`)",
                    escape_controls(&t.id)
                )));
            }
        }
        if store.revoked(&t.old).map_err(store_error)?.is_some() {
            return Err(invalid(format!(
                "{at}: the old key of `{}` was revoked: its word no longer counts",
                escape_controls(&t.id)
            )));
        }
        store
            .transition(&t.id, &t.old, &t.new, t.at)
            .map_err(store_error)?;
        eprintln!(
            "aiproto: `{}` now signs with {} (the old key {} verifies what it signed before {})",
            escape_controls(&t.id),
            t.new.fingerprint(),
            t.old.fingerprint(),
            format_date(t.at)
        );
        applied += 1;
    }
    if applied == 0 {
        return Err(invalid(format!(
            "{}: no key transition statement (meta: {})",
            path.display(),
            statement::TRANSITION
        )));
    }
    Ok(ExitStatus::Ok)
}
