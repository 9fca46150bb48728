//! Helpers shared by the subcommands that work on many messages at once.

use std::io::Write;

use super::args::{GlobalArgs, InputArgs};
use crate::diag::Diagnostic;
use crate::exit::{CliError, ExitStatus};
use std::path::Path;

use crate::input::{self, Input, Pass, SkipReason, Skipped, Source};
use crate::operations::read::{self, Document, Piece};
use crate::operations::{Found, ReadOptions};
use crate::output::{self, Painter, SourceLines, Stream};
use crate::transport::clipboard;

pub use crate::operations::read::NoMessage;

/// Reads every input piece by piece ([`read::each_message`]) and hands
/// each message to `each` with its input's name, in order. An input that
/// gives no message is handed to `no_message` with how and why, and the
/// run goes on: one without any message and one that is not text make the
/// status 1, one that cannot be read 2; they and messages that cannot be
/// read at all (JSON syntax errors, status 1) are also said on stderr.
pub fn each_message(
    args: &InputArgs,
    options: &ReadOptions,
    no_message: &mut dyn FnMut(&str, NoMessage, &str),
    each: &mut dyn FnMut(&str, &Found) -> Result<(), CliError>,
) -> Result<ExitStatus, CliError> {
    each_message_of(inputs(args)?, args, options, no_message, each)
}

/// [`each_message`] over inputs already gathered.
pub fn each_message_of(
    inputs: Vec<Input>,
    args: &InputArgs,
    options: &ReadOptions,
    no_message: &mut dyn FnMut(&str, NoMessage, &str),
    each: &mut dyn FnMut(&str, &Found) -> Result<(), CliError>,
) -> Result<ExitStatus, CliError> {
    let mut status = ExitStatus::Ok;
    let mut failed = |name: &str, how: NoMessage, why: String| {
        if how != NoMessage::PassedOver {
            eprintln!("aiproto: error: {name}: {why}");
        }
        no_message(name, how, &why);
        status = status.max(match how {
            NoMessage::PassedOver => ExitStatus::Ok,
            NoMessage::Empty | NoMessage::NotText => ExitStatus::Invalid,
            NoMessage::Unreadable => ExitStatus::Usage,
        });
    };
    let mut unreadable = ExitStatus::Ok;
    read::each_message(
        inputs,
        args.protocol,
        options,
        &mut failed,
        &mut |name, found| {
            unreadable = unreadable.max(note_unreadable(name, found));
            each(name, found)
        },
    )?;
    Ok(status.max(unreadable))
}

/// Reads one input piece by piece and hands each piece to `each`, in
/// order (see [`read::each_piece`]).
pub fn each_piece(
    input: &Input,
    protocol: Option<crate::operations::ProtocolSpec>,
    options: &ReadOptions,
    each: &mut dyn FnMut(&Piece) -> Result<(), CliError>,
) -> Result<Option<String>, CliError> {
    read::each_piece(input, protocol, options, each)
}

/// Says on stderr that a message cannot be read at all (status 1), if so.
fn note_unreadable(name: &str, found: &Found) -> ExitStatus {
    if !found.value.is_unreadable() {
        return ExitStatus::Ok;
    }
    let why = found
        .diagnostics
        .first()
        .map_or("unreadable", |d| d.message.as_str());
    eprintln!(
        "aiproto: error: {name}:{}: not a readable message: {why}",
        found.line
    );
    ExitStatus::Invalid
}

/// The inputs named on the command line: files and directories (walked),
/// `-` or nothing for stdin, and [`input::CLIPBOARD`] for the system clipboard.
pub fn inputs(args: &InputArgs) -> Result<Vec<Input>, CliError> {
    Ok(gather(args)?.0)
}

/// [`inputs`], with what the directory walks passed over.
pub fn gather(args: &InputArgs) -> Result<(Vec<Input>, Vec<Skipped>), CliError> {
    let walk = args.walk_options();
    let mut inputs = Vec::new();
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for path in &args.paths {
        if path.as_os_str() == input::CLIPBOARD {
            if !files.is_empty() {
                inputs.extend(input::expand(
                    &std::mem::take(&mut files),
                    &walk,
                    &mut skipped,
                )?);
            }
            inputs.push(clipboard()?);
        } else {
            files.push(path.clone());
        }
    }
    if !files.is_empty() || inputs.is_empty() {
        inputs.extend(input::expand(&files, &walk, &mut skipped)?);
    }
    if args.skip_non_messages {
        for input in &mut inputs {
            match input {
                Input::File(path) => *input = Input::Walked(std::mem::take(path), Pass::Any),
                Input::Walked(_, pass) => *pass = Pass::Any,
                _ => {}
            }
        }
    }
    Ok((inputs, skipped))
}

/// What a run looked at, for the finding that says it read no message:
/// the paths, the globs and excludes of its walks, how many files were
/// read, and what the walks passed over and why.
pub fn looked_at(
    args: &InputArgs,
    files: usize,
    passed_over: usize,
    skipped: &[Skipped],
) -> String {
    let paths: Vec<String> = if args.paths.is_empty() {
        vec!["stdin".into()]
    } else {
        args.paths.iter().map(|p| p.display().to_string()).collect()
    };
    let mut out = format!(
        "no message was checked: {} gave {files} file(s) to read",
        paths.join(", ")
    );
    if passed_over > 0 {
        out.push_str(&format!(
            ", and {passed_over} passed over as holding no message"
        ));
    }
    if let Some(counts) = skip_counts(skipped) {
        out.push_str(&format!("; the walks passed over {counts}"));
    }
    if !args.globs.is_empty() {
        out.push_str(&format!(
            "; walks take only --glob {} (relative to the folder walked)",
            args.globs.join(", ")
        ));
    }
    if !args.excludes.is_empty() {
        out.push_str(&format!("; --exclude {}", args.excludes.join(", ")));
    }
    out.push_str(
        " (-v names every file passed over). A run that checked nothing has not passed: --allow-empty accepts it",
    );
    out
}

/// `4 entries (1 hidden, 3 in ignore files)`, or `None` for nothing.
pub fn skip_counts(skipped: &[Skipped]) -> Option<String> {
    if skipped.is_empty() {
        return None;
    }
    let mut counts: std::collections::BTreeMap<SkipReason, usize> = Default::default();
    for s in skipped {
        *counts.entry(s.why).or_default() += 1;
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(why, n)| format!("{n} {}", why.short()))
        .collect();
    Some(format!(
        "{} file(s) or folder(s) ({})",
        skipped.len(),
        parts.join(", ")
    ))
}

/// Says on stderr what the walks passed over: with `-v` each path and
/// why, else a count (nothing under `-q`).
pub fn note_skipped(g: &GlobalArgs, skipped: &[Skipped]) {
    if g.verbose {
        for s in skipped {
            let slash = if s.is_dir {
                "/ and everything in it"
            } else {
                ""
            };
            eprintln!(
                "aiproto: note: {}{slash}: not read, {}",
                output::escape_controls(&crate::path_names::name(&s.path)),
                s.why.describe()
            );
        }
    } else if !g.quiet
        && let Some(counts) = skip_counts(skipped)
    {
        eprintln!("aiproto: note: the walks passed over {counts}; -v names them");
    }
}

/// `--require-signed`: the keystore's trusted keys (nothing pinned), else none.
pub fn required_signatures(require: bool) -> Result<Option<crate::sign::trust::Trust>, CliError> {
    if !require {
        return Ok(None);
    }
    Ok(Some(crate::sign::trust::Trust::Store {
        store: crate::sign::keystore::Keystore::open().map_err(CliError::usage)?,
        tofu: false,
    }))
}

/// The bearer token for an A2A agent: `--token-file`'s first line, else
/// `AIPROTO_A2A_TOKEN`, else none.
pub fn a2a_token(file: Option<&std::path::Path>) -> Result<Option<String>, CliError> {
    if let Some(file) = file {
        let text = std::fs::read_to_string(file)
            .map_err(|e| CliError::usage(format!("--token-file {}: {e}", file.display())))?;
        let token = text.lines().next().unwrap_or_default().trim().to_string();
        if token.is_empty() {
            return Err(CliError::usage(format!(
                "--token-file {}: its first line is empty",
                file.display()
            )));
        }
        return Ok(Some(token));
    }
    Ok(std::env::var("AIPROTO_A2A_TOKEN")
        .ok()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty()))
}

/// The check an A2A agent's card must pass when a signed one is asked
/// for: a signature by a keystore key trusted for the card's name.
pub fn signed_card_check() -> Result<crate::transport::a2a::CardCheck, CliError> {
    let trust = required_signatures(true)?
        .ok_or_else(|| CliError::usage("a signed Agent Card needs the keystore"))?;
    Ok(crate::operations::sending::signed_card_check(trust))
}

/// The name a NO-INPUT finding is reported under: the first path given.
pub fn nothing_source(input: &InputArgs) -> String {
    input
        .paths
        .first()
        .map_or_else(|| "<stdin>".into(), |p| p.display().to_string())
}

/// The one input a command works on: a file, `-` or nothing for stdin, or
/// [`input::CLIPBOARD`].
pub fn input_of(path: Option<&Path>) -> Result<Input, CliError> {
    Ok(match path {
        Some(p) if p.as_os_str() == input::CLIPBOARD => clipboard()?,
        Some(p) if p.as_os_str() != "-" => Input::File(p.to_path_buf()),
        _ => Input::Stdin,
    })
}

/// What is on the clipboard, as an input named `<clipboard>`.
fn clipboard() -> Result<Input, CliError> {
    // The same statuses as `recv --via clipboard`: nothing to read is 1.
    let text = clipboard::paste().map_err(|e| super::endpoints::failure(e.into()))?;
    Ok(Input::Text(Source {
        name: "<clipboard>".into(),
        text,
    }))
}

/// Reads the one input a command works on ([`input_of`]); an input
/// without any message is an error (exit 1).
pub fn read_one(path: Option<&Path>) -> Result<Document, CliError> {
    read::one(&input_of(path)?).map_err(|e| match e {
        read::ReadOneError::Input(e) => e.into(),
        e @ read::ReadOneError::NoMessage(..) => {
            CliError::new(ExitStatus::Invalid, anyhow::anyhow!("{e}"))
        }
    })
}

/// Prints a message's findings on stderr as `validate` does
/// (`path:line:col: error[code]: …` with the source line and a caret),
/// those that `which` picks. `source_text` is the text the message was
/// read from, whose first line is the input's line `first_line + 1`.
pub fn print_findings(
    g: &GlobalArgs,
    name: &str,
    (source_text, first_line): (&str, usize),
    found: &Found,
    which: impl Fn(&Diagnostic) -> bool,
) {
    let chosen: Vec<&Diagnostic> = found.diagnostics.iter().filter(|d| which(d)).collect();
    if chosen.is_empty() {
        return;
    }
    let painter = Painter::new(g.color, Stream::Stderr);
    let lines = SourceLines::new(source_text);
    let mut err = std::io::stderr().lock();
    for d in chosen {
        let _ = write!(
            err,
            "{}",
            output::format_diagnostic(
                &painter,
                name,
                d.line.checked_sub(first_line).and_then(|n| lines.get(n)),
                d,
                false
            )
        );
    }
}

/// An archive named on the command line, as an absolute path: its folder
/// must exist (the file is created on the first message kept).
pub fn archive_path(path: &Path) -> Result<std::path::PathBuf, CliError> {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    let folder = folder.map_or_else(std::env::current_dir, |f| f.canonicalize());
    let folder = folder
        .map_err(|e| CliError::usage(format!("--archive {}: its folder: {e}", path.display())))?;
    Ok(folder.join(path.file_name().unwrap_or_default()))
}

/// Says on stderr which envelope of `envelopes` (read from `name`) a reply
/// answers — where a pipe on stdout cannot hide it — and, when quoted
/// envelopes after it were passed over, that they were.
pub fn say_answered(
    name: &str,
    envelopes: &[crate::operations::composing::ParsedEnvelope],
    index: usize,
) {
    let Some(answered) = envelopes.get(index) else {
        return;
    };
    let env = &answered.envelope;
    let esc = output::escape_controls;
    let message = env
        .message
        .as_deref()
        .map_or_else(String::new, |m| format!(", message {}", esc(m)));
    eprintln!(
        "aiproto: answering envelope {} of {} in {} (line {}, {}→{}{message})",
        index + 1,
        envelopes.len(),
        name,
        answered.start_line,
        esc(&env.sender),
        esc(&env.receiver),
    );
    let quoted_after = envelopes[index + 1..].iter().filter(|e| e.quoted).count();
    if quoted_after > 0 {
        eprintln!(
            "aiproto: note: {quoted_after} quoted (`> `) envelope(s) after it were passed over: a reply's own envelopes come before what it quotes (--pick N answers another)"
        );
    }
}

/// A listening face's bearer token: from `file`'s first line, else the
/// environment variable `env`, else a new one (and whether aiproto made it).
pub fn bearer_token(file: Option<&std::path::Path>, env: &str) -> Result<(String, bool), CliError> {
    use crate::transport::bearer;
    if let Some(file) = file {
        let text = std::fs::read_to_string(file)
            .map_err(|e| CliError::usage(format!("--token-file {}: {e}", file.display())))?;
        let token =
            bearer::checked_token(&text, &file.display().to_string()).map_err(CliError::usage)?;
        return Ok((token, false));
    }
    if let Ok(text) = std::env::var(env) {
        let token = bearer::checked_token(&text, env).map_err(CliError::usage)?;
        return Ok((token, false));
    }
    let token = bearer::random_secret().map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    Ok((token, true))
}
