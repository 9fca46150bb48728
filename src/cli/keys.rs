//! `aiproto keygen` and `aiproto keys`: the keystore from the command line.

use std::io::Write;

use super::args::{GlobalArgs, KeyFormat, KeygenArgs, KeysCommand};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::output::{self, Painter, Stream};
use crate::sign::key::PublicKey;
use crate::sign::keystore::{self, Keystore, KnownKey, StoreError};

/// Keystore problems (a missing key, an existing one, a corrupt file) are usage errors.
fn store_error(e: StoreError) -> CliError {
    CliError::new(ExitStatus::Usage, e)
}

pub fn keygen(args: &KeygenArgs, g: &GlobalArgs) -> CmdResult {
    let store = Keystore::open().map_err(store_error)?;
    let public = store
        .generate(&args.id, args.algorithm, args.force, &args.signs_for)
        .map_err(store_error)?;
    let line = KnownKey {
        id: args.id.clone(),
        key: public.clone(),
        signs_for: args.signs_for.clone(),
    }
    .to_line();
    std::io::stdout()
        .lock()
        .write_all(format!("{line}\n").as_bytes())?;
    if !g.quiet {
        eprintln!(
            "aiproto: new {} key `{}` ({}) in {}",
            public.algorithm.name(),
            args.id,
            public.fingerprint(),
            keystore::home().map_or_else(String::new, |h| h.display().to_string())
        );
    }
    Ok(ExitStatus::Ok)
}

pub fn run(cmd: &KeysCommand, g: &GlobalArgs) -> CmdResult {
    let store = Keystore::open().map_err(store_error)?;
    let mut out = std::io::stdout().lock();
    match cmd {
        KeysCommand::List => {
            let p = Painter::new(g.color, Stream::Stdout);
            for (kind, keys) in [("own", store.own_keys()), ("pinned", store.known_keys())] {
                for k in keys.map_err(store_error)? {
                    writeln!(
                        out,
                        "{:<8} {:<32} {:<10} {}  signs for {}",
                        p.dim(kind),
                        p.bold(&output::escape_controls(&k.id)),
                        k.key.algorithm.name(),
                        k.key.fingerprint(),
                        output::escape_controls(&k.allowed())
                    )?;
                }
            }
        }
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
            out.write_all(text.as_bytes())?;
        }
        KeysCommand::Import { file } => {
            let keys = keystore::read_key_lines(file).map_err(store_error)?;
            for k in &keys {
                store
                    .pin(&k.id, k.key.clone(), &k.signs_for)
                    .map_err(store_error)?;
            }
            eprintln!("aiproto: pinned {} key(s)", keys.len());
        }
        KeysCommand::Trust { id, key, signs_for } => {
            let text = std::fs::read_to_string(key).unwrap_or_else(|_| key.clone());
            let (public, from_line) = parse_any_public(&text)
                .map_err(|why| CliError::usage(format!("cannot read the key: {why}")))?;
            let signs_for = if signs_for.is_empty() {
                from_line
            } else {
                signs_for.clone()
            };
            store
                .pin(id, public.clone(), &signs_for)
                .map_err(store_error)?;
            eprintln!(
                "aiproto: pinned `{id}` ({} {})",
                public.algorithm.name(),
                public.fingerprint()
            );
        }
        KeysCommand::ApplyRevoke { path } => return apply_revoke(&store, path),
        KeysCommand::Forget { id } => {
            if store.is_own(id).map_err(store_error)? {
                return Err(CliError::usage(format!(
                    "`{id}` is your own key, not a key pinned for someone else; `keys forget` only removes pinned keys"
                ))
                .with_hint(
                    "your private key stays in the keystore's keys/ folder; to replace it: aiproto keygen --id ID --force",
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

/// A public key in any encoding `keys export` writes: a keystore line (with
/// the senders it signs for), PEM, raw base64, or minisign's public key.
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

/// `keys apply-revoke`: each REVOKE of a key, once its own signature checks
/// out, marks that key revoked in the keystore.
fn apply_revoke(store: &Keystore, path: &std::path::Path) -> CmdResult {
    use crate::input::Input;
    use crate::protocols::{ReadOptions, Value};
    use crate::sign::trust::{Trust, verify};
    let doc = crate::reader::read(
        &Input::File(path.to_path_buf()),
        None,
        &ReadOptions::default(),
    )?;
    let trust = Trust::Store {
        store: store.clone(),
        tofu: false,
    };
    let mut applied = 0;
    for found in &doc.messages {
        let Value::Crosstalk(parsed) = &found.value else {
            continue;
        };
        let env = &parsed.envelope;
        if env.intent.as_deref() != Some("REVOKE") {
            continue;
        }
        let at = format!("{}:{}", doc.source.name, found.line);
        let (claim, input) = crate::sign::claim::crosstalk_signed(parsed).map_err(|e| {
            CliError::new(
                ExitStatus::Invalid,
                anyhow::anyhow!("{at}: the REVOKE is not signed: {e}"),
            )
        })?;
        let signer = verify(&claim, &input, &trust, Some(env.sender.as_str())).map_err(|e| {
            CliError::new(
                ExitStatus::Invalid,
                anyhow::anyhow!("{at}: the REVOKE's signature is not accepted: {e}"),
            )
        })?;
        let block = env.meta_block("revocation");
        let kind = block.and_then(|b| b.get("Type")).unwrap_or("");
        if !kind.eq_ignore_ascii_case("key") {
            return Err(CliError::new(
                ExitStatus::Invalid,
                anyhow::anyhow!(
                    "{at}: this REVOKE withdraws `{kind}`, not a key (meta: revocation / Type: key)"
                ),
            ));
        }
        let id = block
            .and_then(|b| b.get("Key-ID"))
            .unwrap_or(&signer.key_id)
            .to_string();
        let key = store
            .trusted(&id)
            .map_err(store_error)?
            .ok_or_else(|| store_error(StoreError::Unknown(id.clone())))?;
        store.revoke(&id, &key).map_err(store_error)?;
        eprintln!(
            "aiproto: revoked `{id}` ({}), on the word of `{}`",
            key.fingerprint(),
            signer.key_id
        );
        applied += 1;
    }
    if applied == 0 {
        return Err(CliError::new(
            ExitStatus::Invalid,
            anyhow::anyhow!("{}: no REVOKE envelope", doc.source.name),
        ));
    }
    Ok(ExitStatus::Ok)
}
