//! `aiproto compose crosstalk`: a new envelope, or a reply to one, that passes `validate`.

use std::io::{IsTerminal, Read};
use std::path::Path;

use crate::cli::args::{ComposeArgs, GlobalArgs, HspComposeArgs};
use crate::cli::common;
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::ids::IdKind;
use crate::input::Input;
use crate::operations::composing::{
    self, CrosstalkVersion as Version, EnvelopeError as ComposeError, Fields, ReplyBase, ReplyError,
};
use crate::operations::{Protocol, ProtocolSpec, read};

pub fn run(args: &ComposeArgs, spec: ProtocolSpec, g: &GlobalArgs) -> CmdResult {
    let version = Version::parse(spec.version_or_default()).unwrap_or(Version::V1_1);
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
    let base = match &args.reply_to {
        Some(path) => Some(reply_base(path, args, g.quiet)?),
        None => None,
    };
    let mut fields = Fields {
        from: args.from.clone(),
        to: args.to.clone(),
        intent: args.intent.clone(),
        context: args.context.clone(),
        user: args.user.clone(),
        session: args.session.clone(),
        thread: args.thread.clone(),
        parent: args.parent.clone(),
        meta: args.meta.clone(),
        error_code: args.error_code.clone(),
        reason: args.reason.clone(),
        body: String::new(),
    };
    // The body is read only once the rest is known to make a message.
    if base.is_some() || (fields.from.is_some() && fields.to.is_some() && fields.intent.is_some()) {
        fields.body = read_body(args)?;
    }
    let mut env =
        composing::compose_envelope(base.as_ref(), &fields, version, id_kind, composing::flag)
            .map_err(usage)?;
    if args.hash {
        // Rendering writes the hash of what it writes.
        env.hash = Some(String::new());
    }
    super::emit_checked(&composing::render_envelope(&env), Protocol::Crosstalk, g)
}

fn usage(e: ComposeError) -> CliError {
    let error = CliError::usage(e.message);
    match e.hint {
        Some(hint) => error.with_hint(hint),
        None => error,
    }
}

/// The reply to an envelope of a file, stdin or the clipboard (the last
/// one, or the one `--pick` names): see [`compose::reply_base`]. Says on
/// stderr which envelope it answers.
fn reply_base(path: &Path, args: &ComposeArgs, quiet: bool) -> Result<ReplyBase, CliError> {
    let source = read::read_text(&common::input_of(Some(path))?)?;
    let envelopes = composing::parse_all(&source.text);
    let base = composing::reply_base(&envelopes, args.pick.as_deref(), args.from.as_deref())
        .map_err(|(e, receivers)| match (e, receivers) {
            (e @ ReplyError::NoEnvelope, _) => {
                CliError::new(ExitStatus::Invalid, anyhow::anyhow!("{}: {e}", source.name))
            }
            (e, Some(receivers)) => CliError::usage(format!("{}: {e}", source.name))
                .with_hint(format!("add --from <{receivers}>")),
            (e, None) => CliError::usage(format!("{}: {e}", source.name)),
        })?;
    let env = &base.original;
    if !quiet {
        common::say_answered(&source.name, &envelopes, base.index);
    }
    if !base.complete {
        eprintln!(
            "aiproto: warning: {}:{}: the envelope answered was cut off before its [[END]] line",
            source.name, base.line
        );
    }
    if env.message.is_none() {
        eprintln!(
            "aiproto: warning: {}: the original has no `message` id, so the reply has no `parent`",
            source.name
        );
    }
    Ok(base)
}

fn read_body(args: &ComposeArgs) -> Result<String, CliError> {
    let reply_on_stdin = args.reply_to.as_ref().is_some_and(|p| p.as_os_str() == "-");
    if let Some(body) = &args.body {
        return Ok(body.clone());
    }
    if let Some(path) = &args.body_file {
        let input = if path.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::File(path.clone())
        };
        return Ok(input.read()?.text);
    }
    if reply_on_stdin {
        return Err(CliError::usage(
            "the envelope answered came on stdin, so the reply's body cannot",
        )
        .with_hint("give the body with --body TEXT or --body-file FILE"));
    }
    if !std::io::stdin().is_terminal() {
        let mut text = String::new();
        std::io::stdin()
            .lock()
            .read_to_string(&mut text)
            .map_err(|e| CliError::usage(format!("cannot read the body from stdin: {e}")))?;
        return Ok(text);
    }
    Err(CliError::usage("no message body")
        .with_hint("give --body TEXT, --body-file FILE, or pipe the text on stdin"))
}
