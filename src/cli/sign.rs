//! `aiproto sign`: sign every message of a file with a keystore key, all
//! or nothing, reading the input piece by piece (bounded memory).

use std::io::Write;

use super::args::{GlobalArgs, SigFormat, SignArgs};
use super::common;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::input::{self, Input};
use crate::operations::{Found, Protocol, ReadOptions, ReadValue as Value};
use crate::sign::composed::{Composed, Known, Mine};
use crate::sign::keystore::Keystore;
use crate::sign::message::{SigForm, Signer};
use crate::splice::{Replacement, splice};

pub fn run(args: &SignArgs, g: &GlobalArgs) -> CmdResult {
    let store = Keystore::open().map_err(|e| CliError::new(ExitStatus::Usage, e))?;
    let (key, entry) = store.own_signer(&args.key).map_err(CliError::usage)?;
    if args.detached {
        return sign_detached(args, &key, g);
    }
    if args.in_place
        && args
            .path
            .as_ref()
            .is_none_or(|p| p.as_os_str() == "-" || p.as_os_str() == crate::input::CLIPBOARD)
    {
        return Err(CliError::usage("-i rewrites a file: give its PATH")
            .with_hint("to sign what is on the clipboard: aiproto sign clipboard: --key ID | aiproto send --via clipboard"));
    }
    // Both passes read a private copy: what was checked is what is signed,
    // even if the file is written to in between.
    let input = match common::input_of(args.path.as_deref())? {
        Input::Stdin => input::spool_stdin()?,
        other => input::spool_file(other)?,
    };
    let name = input.name();
    let mut signer = Signer {
        key: &key,
        key_id: &args.key,
        entry: &entry,
        form: match args.sig_format {
            SigFormat::Keyed => SigForm::Keyed,
            SigFormat::Jws => SigForm::Jws,
        },
        with_public_key: !args.no_public_key,
        alone: false,
    };
    // With --only-mine, an envelope is the person's when its text is one
    // they composed here, and its sender one the key signs for.
    let known = match (args.only_mine, Composed::open()) {
        (true, Some(ledger)) => ledger.known().map_err(|e| {
            CliError::usage(format!(
                "cannot read the composed messages in {}: {e}",
                crate::sign::composed::FILE
            ))
        })?,
        _ => Known::default(),
    };
    let (count, mine, not_composed) = check(&input, &signer, &known, args.only_mine)?;
    signer.alone = count == 1;
    // Signed into a temporary file (beside the file for `-i`), then moved
    // into place or copied to stdout: nothing is written when a message
    // cannot be signed, and memory stays bounded by a piece.
    let dir = match (&args.path, args.in_place) {
        (Some(path), true) => path.parent().filter(|p| !p.as_os_str().is_empty()),
        _ => None,
    };
    let mut tmp = match dir {
        Some(dir) => tempfile::NamedTempFile::new_in(dir)?,
        None => tempfile::NamedTempFile::new()?,
    };
    let mut out = std::io::BufWriter::new(tmp.as_file_mut());
    let mut first = true;
    common::each_piece(&input, None, &ReadOptions::default(), &mut |piece| {
        // Each message's lines and its signed form, for an in-place rewrite
        // that keeps the text around the messages.
        let mut replacements = Vec::new();
        for found in &piece.messages {
            let left = args.only_mine
                && mine_to_sign(&signer, &known, found, &piece.source.text) != Mine::Yes;
            let signed = if left {
                // Another sender's message, left as it is.
                (!args.in_place).then(|| message_text(&piece.source.text, piece.first_line, found))
            } else {
                signer
                    .sign(found)
                    .map_err(|e| CliError::usage(format!("{}:{}: {e}", name, found.line)))?
            };
            let Some(signed) = signed else { continue };
            if args.in_place {
                replacements.push(Replacement {
                    first_line: found.line.saturating_sub(piece.first_line),
                    last_line: found.end_line.saturating_sub(piece.first_line),
                    text: signed,
                });
            } else {
                if !first && found.protocol == Protocol::Crosstalk {
                    out.write_all(b"\n")?;
                }
                out.write_all(signed.as_bytes())?;
                first = false;
            }
        }
        if args.in_place {
            out.write_all(splice(&piece.source.text, replacements).as_bytes())?;
        }
        Ok(())
    })?;
    out.flush()?;
    drop(out);
    match (&args.path, args.in_place) {
        (Some(path), true) => {
            // A file written to while it was being signed is not replaced:
            // its new text would be lost, and it was not checked.
            if !unchanged(path, &input)? {
                return Err(CliError::new(
                    ExitStatus::Invalid,
                    anyhow::anyhow!(
                        "{} changed while it was being signed: nothing written",
                        path.display()
                    ),
                )
                .with_hint("sign it again once nothing else writes to it"));
            }
            // The file keeps its permissions (a temporary file is private).
            std::fs::set_permissions(tmp.path(), std::fs::metadata(path)?.permissions())?;
            tmp.persist(path).map_err(|e| e.error)?;
            if !g.quiet {
                eprintln!("aiproto: signed {mine} message(s) in {}", path.display());
            }
        }
        _ => {
            let mut signed = tmp.reopen()?;
            std::io::copy(&mut signed, &mut std::io::stdout().lock())?;
        }
    }
    if args.only_mine && !g.quiet && mine + not_composed < count {
        eprintln!(
            "aiproto: left {} message(s) of other senders unsigned (`{}` signs for {})",
            count - mine - not_composed,
            args.key,
            entry.allowed()
        );
    }
    if not_composed > 0 {
        eprintln!(
            "aiproto: warning: left {not_composed} message(s) unsigned that claim a sender `{}` signs for but were not composed here (`aiproto compose`, the desk): an envelope is yours by what you wrote, not by the name it claims; sign one you did write alone, without --only-mine",
            args.key
        );
    }
    Ok(ExitStatus::Ok)
}

/// A message's lines as they are in the text read (a piece of the input
/// that starts after `first_line` lines).
fn message_text(text: &str, first_line: usize, found: &Found) -> String {
    let from = found.line.saturating_sub(first_line + 1);
    let to = found.end_line.saturating_sub(first_line + 1).max(from);
    let mut out: String = text
        .lines()
        .skip(from)
        .take(to + 1 - from)
        .collect::<Vec<_>>()
        .join("\n");
    out.push('\n');
    out
}

/// Whether the file at `path` still holds the bytes of `copy`, the private
/// copy both passes read.
fn unchanged(path: &std::path::Path, copy: &Input) -> std::io::Result<bool> {
    use std::io::Read;
    let mut now = std::io::BufReader::new(std::fs::File::open(path)?);
    let mut then = copy.open().map_err(std::io::Error::other)?;
    let (mut a, mut b) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        let n = now.read(&mut a)?;
        if n == 0 {
            return Ok(then.read(&mut b[..1])? == 0);
        }
        if then.read_exact(&mut b[..n]).is_err() || a[..n] != b[..n] {
            return Ok(false);
        }
    }
}

/// Whether `--only-mine` signs `found`, read from `text`.
fn mine_to_sign(signer: &Signer, known: &Known, found: &Found, text: &str) -> Mine {
    if signer.not_mine(found).is_some() {
        Mine::OtherSender
    } else if found.written(text).is_some_and(|t| known.holds(&t)) {
        Mine::Yes
    } else {
        Mine::NotComposedHere
    }
}

/// The first pass: every message valid and one the key may sign (or, with
/// `only_mine`, left alone), or nothing is signed. Returns how many
/// messages there are, how many will be signed, and how many were left
/// because they claim a sender the key signs for but were not composed here.
fn check(
    input: &Input,
    signer: &Signer,
    known: &Known,
    only_mine: bool,
) -> Result<(usize, usize, usize), CliError> {
    let name = input.name();
    let mut count = 0;
    let mut mine = 0;
    let mut not_composed = 0;
    let mut bad = None;
    let mut refused: Option<(usize, String)> = None;
    let mut signal = false;
    let none = common::each_piece(input, None, &ReadOptions::default(), &mut |piece| {
        for found in &piece.messages {
            count += 1;
            if bad.is_none() && !found.is_valid(false) {
                bad = Some(found.line);
            }
            signal |= matches!(found.value, Value::Msp(_));
            let not_mine = signer.not_mine(found);
            if only_mine {
                match mine_to_sign(signer, known, found, &piece.source.text) {
                    Mine::Yes => {}
                    Mine::OtherSender => continue,
                    Mine::NotComposedHere => {
                        not_composed += 1;
                        continue;
                    }
                }
            }
            mine += 1;
            let why = not_mine.or_else(|| {
                crate::sign::message::not_coverable(found)
                    .err()
                    .map(|e| e.to_string())
            });
            if let (None, Some(why)) = (&refused, why) {
                refused = Some((found.line, why));
            }
        }
        Ok(())
    })?;
    if let Some(why) = none {
        return Err(CliError::new(
            ExitStatus::Invalid,
            anyhow::anyhow!("{name}: {why}"),
        ));
    }
    if let Some(line) = bad {
        return Err(CliError::new(
            ExitStatus::Invalid,
            anyhow::anyhow!(
                "{name}:{line}: the message is invalid, nothing signed (see `aiproto validate`)"
            ),
        ));
    }
    if signal {
        return Err(CliError::usage(format!(
            "{name}: an MSP signal cannot carry a signature (its schema is closed)"
        ))
        .with_hint("sign the file as a whole: aiproto sign --detached"));
    }
    if let Some((line, why)) = refused {
        return Err(CliError::usage(format!("{name}:{line}: {why}")));
    }
    if mine == 0 && not_composed > 0 {
        return Err(CliError::usage(format!(
            "{name}: {not_composed} message(s) claim a sender `{}` signs for, but none was composed here (`aiproto compose`, the desk): nothing signed",
            signer.key_id
        ))
        .with_hint("with --only-mine an envelope is yours by what you wrote, not by the name it claims: sign one you did write alone, without --only-mine"));
    }
    if mine == 0 {
        return Err(CliError::usage(format!(
            "{name}: no message whose sender `{}` signs for ({}): nothing signed",
            signer.key_id,
            signer.entry.allowed()
        )));
    }
    Ok((count, mine, not_composed))
}

/// `--detached`: the file's bytes, signed into `PATH.minisig`.
fn sign_detached(args: &SignArgs, key: &crate::sign::key::SigningKey, g: &GlobalArgs) -> CmdResult {
    let Some(path) = &args.path else {
        return Err(CliError::usage("--detached signs a file: give its PATH"));
    };
    let file = std::fs::File::open(path)
        .map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display())))?;
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let comment = format!("file:{name}\tkey:{}", args.key);
    let signature = crate::sign::detached::sign(key, std::io::BufReader::new(file), &comment)
        .map_err(CliError::usage)?;
    let mut out_path = path.clone().into_os_string();
    out_path.push(".minisig");
    std::fs::write(&out_path, signature)?;
    if !g.quiet {
        eprintln!(
            "aiproto: wrote {}",
            std::path::Path::new(&out_path).display()
        );
    }
    Ok(ExitStatus::Ok)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_file_written_to_after_its_copy_was_taken_is_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("reply.crosstalk");
        let text = "x".repeat(200_000);
        std::fs::write(&path, &text).unwrap();
        let copy = crate::input::spool_file(crate::input::Input::File(path.clone())).unwrap();
        assert!(super::unchanged(&path, &copy).unwrap());
        for changed in [
            format!("{text}y"),
            text[..199_999].to_string(),
            format!("y{}", &text[1..]),
        ] {
            std::fs::write(&path, changed).unwrap();
            assert!(!super::unchanged(&path, &copy).unwrap());
        }
    }
}
