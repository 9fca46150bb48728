//! `aiproto verify`: every message must carry a good signature from a trusted key.

use std::io::{BufWriter, Write};

use super::args::{GlobalArgs, InputArgs, VerifyArgs};
use super::common;
use super::reports::{Reports, input_verdict, message_verdict};
use crate::diag::{Diagnostic, Pos, Severity};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::output::{self, Format, Painter, Stream, escape_controls};
use crate::records::verify::VerifyRecord;
use crate::report::Finding;
use crate::sign::key::PublicKey;
use crate::sign::keystore::{self, Keystore};
use crate::sign::message;
use crate::sign::trust::Trust;

fn trust_of(args: &VerifyArgs) -> Result<Trust, CliError> {
    if let Some(path) = &args.pubkey {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display())))?;
        let (key, _) = super::keys::parse_any_public(&text)
            .map_err(|why| CliError::usage(format!("{}: {why}", path.display())))?;
        return Ok(Trust::Key(key));
    }
    if let Some(path) = &args.trusted_keys {
        return Ok(Trust::List(
            keystore::read_key_lines(path).map_err(CliError::usage)?,
        ));
    }
    Ok(Trust::Store {
        store: Keystore::open().map_err(CliError::usage)?,
        tofu: args.tofu,
    })
}

pub fn run(args: &VerifyArgs, g: &GlobalArgs) -> CmdResult {
    let trust = trust_of(args)?;
    if let Some(signature) = &args.signature {
        return verify_detached(args, signature, &trust, g);
    }
    let mut reports = Reports::open(g, &args.report, "verify")?;
    // An input without any message fails the run: the reports say so too.
    let mut empty: Vec<(String, Diagnostic)> = Vec::new();
    // A trust gate sees what git hides: a message in an ignored or hidden
    // file is verified like any other, unless the person asks walks to
    // skip them (`.git` is never read).
    let input = InputArgs {
        no_ignore: args.input.no_ignore || !args.respect_ignore,
        hidden: args.input.hidden || !args.respect_ignore,
        ..args.input.clone()
    };
    let (inputs, mut skipped) = common::gather(&input)?;
    let p = Painter::new(g.color, Stream::Stdout);
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut status = ExitStatus::Ok;
    let mut checked = 0usize;
    let fresh = message::Freshness {
        max_age: args.max_age,
        strict: args.strict,
        now: chrono::Utc::now(),
    };
    let files = inputs.len();
    // `--require-signed-from`: who must sign, and what each sender gave.
    let policy = SignPolicy::new(&args.require_signed_from);
    let mut by_sender = std::collections::BTreeMap::<String, Tally>::new();
    let read_status = common::each_message_of(
        inputs,
        &input,
        &Default::default(),
        &mut |name, how, why| match how.code() {
            Some(code) => {
                let d = Diagnostic::error(code, why).at(Pos::new(1, 1), 1);
                empty.push((name.to_string(), d));
            }
            None => skipped.push(crate::input::Skipped {
                path: name.into(),
                is_dir: false,
                why: crate::input::SkipReason::NoMessage,
            }),
        },
        &mut |source, found| {
            checked += 1;
            let result = message::verify_fresh(found, &trust, &fresh);
            let sender = found.to_message().and_then(|m| m.sender);
            let required = must_sign(policy.as_ref(), sender.as_deref());
            let allowed_unsigned =
                !required && matches!(&result, Err(e) if e.code() == "SIG-UNSIGNED");
            if result.is_err() && !allowed_unsigned {
                status = status.max(ExitStatus::Invalid);
            }
            if policy.is_some() {
                let tally = by_sender
                    .entry(sender.unwrap_or_else(|| "(no sender)".into()))
                    .or_default();
                tally.required |= required;
                match (&result, allowed_unsigned) {
                    (Ok(_), _) => tally.verified += 1,
                    (Err(_), true) => tally.unsigned += 1,
                    (Err(_), false) => tally.failed += 1,
                }
            }
            if reports.any() {
                let finding = result
                    .as_ref()
                    .err()
                    .filter(|_| !allowed_unsigned)
                    .map(|e| {
                        Diagnostic::error(e.code(), e.to_string()).at(Pos::new(found.line, 1), 1)
                    });
                let findings = finding
                    .iter()
                    .map(|d| Finding {
                        diagnostic: d,
                        severity: Severity::Error,
                    })
                    .collect();
                let verdict = message_verdict(source, found, finding.is_none(), findings, 0);
                reports.verdict(&verdict)?;
                if reports.stdout.is_some() {
                    return Ok(());
                }
            }
            match g.format {
                Format::Json => {
                    let mut report = VerifyRecord::new(source, found, &result);
                    report.allowed_unsigned = allowed_unsigned;
                    output::write_json_line(&mut out, &report)?;
                }
                Format::Human if allowed_unsigned => writeln!(
                    out,
                    "{}: unsigned, allowed ({} is not among --require-signed-from)",
                    p.bold(&format!("{}:{}", escape_controls(source), found.line)),
                    escape_controls(
                        &found
                            .to_message()
                            .and_then(|m| m.sender)
                            .unwrap_or_else(|| "a message without a sender".into())
                    )
                )?,
                Format::Human => match &result {
                    Ok(v) => {
                        let pinned = match (v.pinned_now, v.retired) {
                            (true, _) => " — key pinned on first use",
                            (false, true) => {
                                " — a retired key, in force when the message was dated"
                            }
                            (false, false) => "",
                        };
                        let sender = match (&v.sender, v.bound) {
                            (Some(s), true) => format!(" for {}", escape_controls(s)),
                            (Some(s), false) => {
                                format!(
                                    " for {} (not bound: --pubkey checks the signature only)",
                                    escape_controls(s)
                                )
                            }
                            (None, _) => String::new(),
                        };
                        writeln!(
                            out,
                            "{}: {} signed by {}{sender} ({} {}){pinned}",
                            p.bold(&format!("{}:{}", escape_controls(source), found.line)),
                            p.good("ok"),
                            escape_controls(&v.key_id),
                            v.algorithm,
                            v.fingerprint
                        )?;
                        if let Some(warning) = &v.warning {
                            writeln!(
                                out,
                                "{}: {}[SIG-FUTURE]: {} (--strict refuses it)",
                                p.bold(&format!("{}:{}", escape_controls(source), found.line)),
                                p.warning("warning"),
                                escape_controls(warning)
                            )?;
                        }
                        if let Some(note) = &v.note {
                            writeln!(
                                out,
                                "{}: note: {}",
                                p.bold(&format!("{}:{}", escape_controls(source), found.line)),
                                escape_controls(note)
                            )?;
                        }
                    }
                    Err(e) => writeln!(
                        out,
                        "{}: {}[{}]: {}",
                        p.bold(&format!("{}:{}", escape_controls(source), found.line)),
                        p.error("error"),
                        e.code(),
                        escape_controls(&e.to_string())
                    )?,
                },
            }
            Ok(())
        },
    )?;
    for (source, d) in &empty {
        reports.verdict(&input_verdict(source, d))?;
        if g.format == Format::Json && reports.stdout.is_none() {
            let record = VerifyRecord::input(source, d.code, d.message.clone());
            output::write_json_line(&mut out, &record)?;
        }
    }
    status = status.max(read_status);
    common::note_skipped(g, &skipped);
    if let Some(policy) = &policy {
        if !g.quiet && !by_sender.is_empty() {
            let each: Vec<String> = by_sender.iter().map(|(s, t)| t.describe(s)).collect();
            eprintln!("aiproto: by sender: {}", each.join("; "));
        }
        // A rule that nothing met proves nothing: an archive without any
        // message of the senders who must sign is not a verified one.
        let required_seen = by_sender.values().any(|t| t.required);
        if checked > 0 && !required_seen && !args.allow_empty {
            eprintln!(
                "aiproto: error: no message from {} in the inputs: nothing that must be signed was verified (--allow-empty accepts that)",
                policy.names()
            );
            status = status.max(ExitStatus::Invalid);
        }
    }
    if checked == 0 && status == ExitStatus::Ok && !args.allow_empty {
        let why = common::looked_at(&input, files, 0, &skipped);
        let source = super::common::nothing_source(&input);
        let d = Diagnostic::error("NO-INPUT", why.clone()).at(Pos::new(1, 1), 1);
        reports.verdict(&input_verdict(&source, &d))?;
        match g.format {
            _ if reports.stdout.is_some() => {}
            Format::Json => output::write_json_line(
                &mut out,
                &VerifyRecord::input(&source, "NO-INPUT", why.clone()),
            )?,
            Format::Human => writeln!(
                out,
                "{}: {}[NO-INPUT]: {}",
                p.bold(&escape_controls(&source)),
                p.error("error"),
                escape_controls(&why)
            )?,
        }
        status = ExitStatus::Invalid;
    }
    out.flush()?;
    reports.finish()?;
    Ok(status)
}

/// `--require-signed-from`: the senders whose messages must be signed.
struct SignPolicy(Vec<String>);

impl SignPolicy {
    /// `None` when no sender is named: then every message must be signed.
    fn new(senders: &[String]) -> Option<SignPolicy> {
        let named: Vec<String> = senders
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        (!named.is_empty()).then_some(SignPolicy(named))
    }

    fn names(&self) -> String {
        self.0.join(", ")
    }
}

/// Whether a message from `sender` must be signed: every one without a
/// policy, else one whose sender the policy names, in any case and through
/// any look-alike or invisible character (an unsigned `[[Human→…]]` or
/// `[[HUMΑN→…]]` is not let through as someone else's).
fn must_sign(policy: Option<&SignPolicy>, sender: Option<&str>) -> bool {
    policy.is_none_or(|p| {
        sender.is_some_and(|s| {
            let key = crate::chars::identity_key(s);
            p.0.iter().any(|n| crate::chars::identity_key(n) == key)
        })
    })
}

/// What one sender's messages gave.
#[derive(Debug, Default)]
struct Tally {
    /// The sender is one that must sign.
    required: bool,
    verified: usize,
    unsigned: usize,
    failed: usize,
}

impl Tally {
    fn describe(&self, sender: &str) -> String {
        let mut parts = Vec::new();
        if self.verified > 0 {
            parts.push(format!("{} verified", self.verified));
        }
        if self.unsigned > 0 {
            parts.push(format!("{} unsigned (allowed)", self.unsigned));
        }
        if self.failed > 0 {
            parts.push(format!("{} failed", self.failed));
        }
        let must = if self.required { ", must sign" } else { "" };
        format!("{}{must}: {}", escape_controls(sender), parts.join(", "))
    }
}

/// `--signature FILE.minisig`: a detached signature of one file's bytes. The
/// key is the `--pubkey`, or the trusted Ed25519 key whose minisign key
/// number the signature names.
fn verify_detached(
    args: &VerifyArgs,
    signature: &std::path::Path,
    trust: &Trust,
    g: &GlobalArgs,
) -> CmdResult {
    use crate::sign::detached;
    let [path] = args.input.paths.as_slice() else {
        return Err(CliError::usage(
            "--signature checks one file: give its PATH",
        ));
    };
    let sig_text = std::fs::read_to_string(signature)
        .map_err(|e| CliError::usage(format!("cannot read {}: {e}", signature.display())))?;
    let candidates: Vec<(String, PublicKey)> = match trust {
        Trust::Key(k) => vec![(String::new(), k.clone())],
        Trust::List(keys) => keys.iter().map(|k| (k.id.clone(), k.key.clone())).collect(),
        Trust::Store { store, .. } => {
            let mut all = store.own_keys().map_err(CliError::usage)?;
            all.extend(store.known_keys().map_err(CliError::usage)?);
            all.into_iter().map(|k| (k.id, k.key)).collect()
        }
    };
    let number = minisign::SignatureBox::from_string(&sig_text)
        .ok()
        .and_then(|b| b.keynum().get(..8).map(<[u8]>::to_vec));
    let mut last_error = String::from("no trusted Ed25519 key matches the signature's key number");
    for (id, key) in candidates {
        let matches_number = matches!(trust, Trust::Key(_))
            || number.as_deref() == Some(&detached::keynum(&key)[..]);
        if key.algorithm != crate::sign::key::Algorithm::Ed25519 || !matches_number {
            continue;
        }
        if let Trust::Store { store, .. } = trust
            && store.revoked(&key).map_err(CliError::usage)?.is_some()
        {
            last_error = format!("the key of `{id}` ({}) was revoked", key.fingerprint());
            continue;
        }
        let file = std::fs::File::open(path)
            .map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display())))?;
        match detached::verify(&key, &sig_text, std::io::BufReader::new(file)) {
            Ok(comment) => {
                if !g.quiet {
                    let who = if id.is_empty() {
                        key.fingerprint()
                    } else {
                        format!("{id} ({})", key.fingerprint())
                    };
                    println!("{}: ok signed by {who} — {comment}", path.display());
                }
                return Ok(ExitStatus::Ok);
            }
            Err(e) => last_error = e.to_string(),
        }
    }
    println!("{}: error[SIG-BAD]: {last_error}", path.display());
    Ok(ExitStatus::Invalid)
}
