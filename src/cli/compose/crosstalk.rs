//! `aiproto compose crosstalk`: a new envelope, or a reply to one, that passes `validate`.

use std::io::{IsTerminal, Read};
use std::path::Path;

use crate::cli::args::{ComposeArgs, GlobalArgs, HspComposeArgs};
use crate::cli::common;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::ids::{self, IdKind};
use crate::input::Input;
use crate::output::escape_controls as esc;
use crate::protocols::crosstalk::meta_rules::ERROR_CODES;
use crate::protocols::crosstalk::{self, Envelope, Version, reply};
use crate::protocols::{Protocol, ProtocolSpec};

pub fn run(args: &ComposeArgs, spec: ProtocolSpec, g: &GlobalArgs) -> CmdResult {
    let version = crosstalk::Version::parse(spec.version_or_default()).unwrap_or(Version::V1_1);
    if args.reply_to.is_none()
        && (args.from.is_none() || args.to.is_none() || args.intent.is_none())
    {
        return Err(
            CliError::usage("compose crosstalk needs --from, --to and --intent")
                .with_hint("or answer an envelope with --reply-to FILE"),
        );
    }
    if args.hsp != HspComposeArgs::default() {
        return Err(CliError::usage(
            "the HSP payload flags are for `compose hsp`",
        ));
    }
    let id_kind = if args.uuid7 {
        IdKind::UuidV7
    } else {
        IdKind::Ulid
    };
    let (mut env, original_intent) = match &args.reply_to {
        Some(path) => reply_skeleton(path, args, g.quiet)?,
        None => (Envelope::default(), None),
    };
    env.version_token = "v1".into();
    apply_overrides(&mut env, args);
    if env.session.is_none() {
        env.session = Some(ids::new_session());
    }
    match version {
        Version::V1_1 => {
            env.message = Some(ids::new_id(id_kind));
            env.thread.get_or_insert_with(|| ids::new_id(id_kind));
        }
        Version::V1_0 => {
            if env.thread.is_some() || env.parent.is_some() || !args.meta.is_empty() {
                return Err(
                    CliError::usage("Crosstalk 1.0 has no thread, parent or meta blocks")
                        .with_hint("compose crosstalk@1.1 (the default) to use them"),
                );
            }
        }
    }
    add_meta(&mut env, &args.meta)?;
    add_error_block(&mut env, args, original_intent.as_deref())?;
    let body = read_body(args)?;
    env.body = Some(match (body.is_empty(), env.intent.as_deref()) {
        (false, _) => body,
        // An ERROR explains itself: its reason is a fine body.
        (true, Some("ERROR")) => args
            .reason
            .clone()
            .unwrap_or_else(|| "The message could not be processed.".into()),
        (true, _) => {
            return Err(CliError::usage("the message body is empty")
                .with_hint("give --body TEXT, --body-file FILE, or pipe the text on stdin"));
        }
    });
    env.sig = Some("none".into());

    super::emit_checked(&crosstalk::render(&env), Protocol::Crosstalk, g)
}

/// The reply to an envelope of a file, stdin or the clipboard (the last
/// one, or the one `--pick` names): see [`reply::skeleton`]. Says on stderr
/// which envelope it answers. Also returns the original's intent, for
/// `Original-Intent` in an ERROR reply.
fn reply_skeleton(
    path: &Path,
    args: &ComposeArgs,
    quiet: bool,
) -> Result<(Envelope, Option<String>), CliError> {
    let source = common::input_of(Some(path))?.read()?;
    let envelopes = crosstalk::parse_all(&source.text);
    let invalid = |e: reply::ReplyError| {
        CliError::new(ExitStatus::Invalid, anyhow::anyhow!("{}: {e}", source.name))
    };
    let (index, original) = reply::pick(&envelopes, args.pick.as_deref()).map_err(|e| match e {
        reply::ReplyError::NoEnvelope => invalid(e),
        e => CliError::usage(format!("{}: {e}", source.name)),
    })?;
    let env = &original.envelope;
    if !quiet {
        eprintln!(
            "aiproto: answering envelope {} of {} in {} (line {}, {}→{}{})",
            index + 1,
            envelopes.len(),
            source.name,
            original.start_line,
            esc(&env.sender),
            esc(&env.receiver),
            env.message
                .as_deref()
                .map_or_else(String::new, |m| format!(", message {}", esc(m)))
        );
    }
    if !original.complete {
        eprintln!(
            "aiproto: warning: {}:{}: the envelope answered was cut off before its [[END]] line",
            source.name, original.start_line
        );
    }
    if env.message.is_none() {
        eprintln!(
            "aiproto: warning: {}: the original has no `message` id, so the reply has no `parent`",
            source.name
        );
    }
    let reply = reply::skeleton(env, args.from.as_deref()).map_err(|e| {
        let receivers = reply::receivers(env).join(" | ");
        CliError::usage(format!("{}: {e}", source.name))
            .with_hint(format!("add --from <{receivers}>"))
    })?;
    Ok((reply, env.intent.clone()))
}

fn apply_overrides(env: &mut Envelope, args: &ComposeArgs) {
    let set = |slot: &mut String, v: &Option<String>| {
        if let Some(v) = v {
            *slot = v.clone();
        }
    };
    set(&mut env.sender, &args.from);
    set(&mut env.receiver, &args.to);
    for (slot, value) in [
        (&mut env.intent, &args.intent),
        (&mut env.context, &args.context),
        (&mut env.user, &args.user),
        (&mut env.session, &args.session),
        (&mut env.thread, &args.thread),
        (&mut env.parent, &args.parent),
    ] {
        if value.is_some() {
            slot.clone_from(value);
        }
    }
}

/// `--meta ns.Key=Value`, grouped by namespace in first-seen order.
fn add_meta(env: &mut Envelope, entries: &[String]) -> Result<(), CliError> {
    for entry in entries {
        let parsed = entry
            .split_once('=')
            .and_then(|(path, value)| path.split_once('.').map(|(ns, key)| (ns, key, value)))
            .filter(|(ns, key, _)| !ns.is_empty() && !key.is_empty());
        let Some((ns, key, value)) = parsed else {
            return Err(
                CliError::usage(format!("--meta `{entry}` is not NAMESPACE.Key=Value"))
                    .with_hint("e.g. --meta routing.X-Priority=high"),
            );
        };
        if value.contains('\n') {
            return Err(CliError::usage(format!(
                "--meta `{ns}.{key}`: meta values are single lines"
            )));
        }
        env.meta_block_mut(ns)
            .entries
            .push((key.to_string(), value.to_string()));
    }
    Ok(())
}

fn add_error_block(
    env: &mut Envelope,
    args: &ComposeArgs,
    original_intent: Option<&str>,
) -> Result<(), CliError> {
    let is_error = env.intent.as_deref() == Some("ERROR");
    match (is_error, args.error_code.as_deref()) {
        (false, None) => Ok(()),
        (false, Some(_)) => Err(CliError::usage("--error-code needs --intent ERROR")),
        (true, None) => Err(CliError::usage("--intent ERROR needs --error-code")
            .with_hint("e.g. --error-code E-FORMAT --reason \"…\"")),
        (true, Some(code)) if !ERROR_CODES.contains(&code) => Err(CliError::usage(format!(
            "--error-code {code} is not in the Crosstalk taxonomy ({})",
            ERROR_CODES.join(", ")
        ))),
        (true, Some(code)) => {
            env.set_error(code, args.reason.as_deref(), original_intent);
            Ok(())
        }
    }
}

fn read_body(args: &ComposeArgs) -> Result<String, CliError> {
    let reply_on_stdin = args.reply_to.as_ref().is_some_and(|p| p.as_os_str() == "-");
    let raw = if let Some(body) = &args.body {
        body.clone()
    } else if let Some(path) = &args.body_file {
        let input = if path.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::File(path.clone())
        };
        input.read()?.text
    } else if reply_on_stdin {
        return Err(CliError::usage(
            "the envelope answered came on stdin, so the reply's body cannot",
        )
        .with_hint("give the body with --body TEXT or --body-file FILE"));
    } else if !std::io::stdin().is_terminal() {
        let mut text = String::new();
        std::io::stdin()
            .lock()
            .read_to_string(&mut text)
            .map_err(|e| CliError::usage(format!("cannot read the body from stdin: {e}")))?;
        text
    } else {
        return Err(CliError::usage("no message body")
            .with_hint("give --body TEXT, --body-file FILE, or pipe the text on stdin"));
    };
    Ok(normalize_body(&raw))
}

/// LF line ends, no trailing blank lines: what the envelope can carry
/// exactly. Spaces at the end of the last line are the author's and stay
/// (the upstream canonicalization keeps them).
fn normalize_body(raw: &str) -> String {
    let text = raw.replace("\r\n", "\n");
    let mut lines: Vec<&str> = text.split('\n').collect();
    while lines.len() > 1 && lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}
