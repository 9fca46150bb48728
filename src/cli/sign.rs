//! `aiproto sign`: sign every message of a file with a keystore key.

use std::io::Write;

use super::args::{GlobalArgs, SigFormat, SignArgs};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::protocols::Value;
use crate::sign::claim;
use crate::sign::keystore::Keystore;
use crate::splice::{Replacement, splice};

pub fn run(args: &SignArgs, g: &GlobalArgs) -> CmdResult {
    let store = Keystore::open().map_err(|e| CliError::new(ExitStatus::Usage, e))?;
    let key = store
        .signing_key(&args.key)
        .map_err(|e| CliError::new(ExitStatus::Usage, e))?;
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
    let doc = super::common::read_one(args.path.as_deref())?;
    if let Some(bad) = doc.messages.iter().find(|f| !f.is_valid(false)) {
        eprintln!(
            "aiproto: error: {}:{}: the message is invalid, nothing signed (see `aiproto validate`)",
            doc.source.name, bad.line
        );
        return Ok(ExitStatus::Invalid);
    }
    let with_pk = !args.no_public_key;
    let mut out = String::new();
    // Each message's lines and its signed form, for an in-place rewrite
    // that keeps the text around the messages.
    let mut replacements = Vec::new();
    for found in &doc.messages {
        let before = out.len();
        match &found.value {
            Value::Crosstalk(parsed) => {
                let mut parsed = (**parsed).clone();
                match args.sig_format {
                    SigFormat::Keyed => {
                        claim::sign_crosstalk(&mut parsed.envelope, &key, &args.key, with_pk)
                    }
                    SigFormat::Jws => claim::sign_crosstalk_jws(&mut parsed, &key, &args.key)
                        .map_err(CliError::usage)?,
                }
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&crate::protocols::crosstalk::render(&parsed.envelope));
            }
            Value::Hsp(Some(m)) => {
                let mut json = m.json.clone();
                claim::sign_hsp(&mut json, &key, &args.key, with_pk);
                push_json(&mut out, &json, doc.messages.len() == 1);
            }
            Value::Hsp(None) => {}
            Value::Csdl(Some(d)) => {
                let json = claim::sign_csdl(&d.json, &key, &args.key, with_pk).map_err(|e| {
                    CliError::usage(format!("{}:{}: {e}", doc.source.name, found.line))
                })?;
                push_json(&mut out, &json, doc.messages.len() == 1);
            }
            Value::Csdl(None) => {}
            Value::Msp(_) => {
                return Err(CliError::usage(format!(
                    "{}: an MSP signal cannot carry a signature (its schema is closed)",
                    doc.source.name
                ))
                .with_hint("sign the file as a whole: aiproto sign --detached"));
            }
        }
        let signed = out[before..].trim_start_matches('\n');
        if !signed.is_empty() {
            replacements.push(Replacement {
                first_line: found.line,
                last_line: found.end_line,
                text: signed.to_string(),
            });
        }
    }
    match (&args.path, args.in_place) {
        (Some(path), true) => {
            let rewritten = splice(&doc.source.text, replacements);
            let tmp = path.with_extension("aiproto-tmp");
            std::fs::write(&tmp, rewritten).and_then(|()| std::fs::rename(&tmp, path))?;
            if !g.quiet {
                eprintln!(
                    "aiproto: signed {} message(s) in {}",
                    doc.messages.len(),
                    path.display()
                );
            }
        }
        _ => std::io::stdout().lock().write_all(out.as_bytes())?,
    }
    Ok(ExitStatus::Ok)
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

/// A signed JSON message: pretty when it is the input's only one, else one
/// line (JSON Lines).
fn push_json(out: &mut String, json: &serde_json::Value, alone: bool) {
    // Serialising a serde_json::Value cannot fail.
    let text = if alone {
        serde_json::to_string_pretty(json)
    } else {
        serde_json::to_string(json)
    };
    out.push_str(&text.unwrap_or_default());
    out.push('\n');
}
