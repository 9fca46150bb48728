//! Every command-line argument of aiproto, in one place. Doc comments are the
//! help text: the first line for `-h`, the rest for `--help`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::output::{ColorChoice, Format};
use crate::protocols::ProtocolSpec;

/// Compose, validate, convert and send AI-agent protocol messages.
///
/// aiproto reads AI Crosstalk envelopes ([[A→B v1]] … [[END]]) from files,
/// stdin or whole pasted chat transcripts, checks them against the spec, and
/// writes new ones. Exit codes: 0 ok, 1 invalid message, 2 usage error or
/// unreadable input, 3 transport failure, 4 timeout.
#[derive(Debug, Parser)]
#[command(
    name = "aiproto",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// When to color output: auto (terminal, NO_COLOR unset), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Output for people (human) or programs (json: one JSON object per line).
    #[arg(long, global = true, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// Print only findings and data: no summary lines.
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Also report messages that have no findings.
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check messages against their protocol; the exit code is the verdict.
    ///
    /// Reads files, directories (walked for .crosstalk, .aict, .txt, .md, .json,
    /// .jsonl) or stdin, finds every message (also inside pasted transcripts,
    /// code fences and > quotes) and reports each finding as
    /// path:line:col: error[CODE]: message. Exit 0 when all are valid, 1 when
    /// any is invalid, 2 when an input cannot be read.
    ///
    /// Example: aiproto validate --format json inbox/
    Validate(ValidateArgs),

    /// Write a new message, or a reply to one.
    ///
    /// Example: aiproto compose crosstalk --from CLAUDE --to CHATGPT --intent REQUEST --body "Review this?"
    ///
    /// Reply: aiproto compose crosstalk --reply-to question.crosstalk --body "Looks good"
    Compose(Box<ComposeArgs>),

    /// Rewrite messages in another protocol version (or the canonical form).
    ///
    /// --to crosstalk@1.1 migrates 1.0 envelopes: missing thread and message
    /// ids are generated, legacy intents mapped (QUESTION→REQUEST, …).
    /// --to crosstalk@1.0 goes back; what 1.0 cannot hold (ids, meta blocks) is
    /// listed on stderr. --canonical rewrites in canonical form, same version.
    Convert(ConvertArgs),

    /// Show messages in a readable form: who, thread, intent, meta, body, signature.
    Inspect(InspectArgs),

    /// Draw the conversation tree of many envelopes from their parent links.
    ///
    /// Orphans (a parent that is not among the inputs) are reported as
    /// warnings; cycles and duplicate message ids make the exit code 1.
    Thread(ThreadArgs),

    /// Work with POLL envelopes and their answers.
    #[command(subcommand)]
    Poll(PollCommand),

    /// List or print the embedded JSON Schemas (the published contract).
    ///
    /// Example: aiproto schema show hsp/1.0/envelope > envelope.schema.json
    #[command(subcommand)]
    Schema(SchemaCommand),

    /// Print fresh message ids (ULID by default).
    Id(IdArgs),

    /// Deliver messages to a destination (`--via file:PATH` appends to a .crosstalk file).
    ///
    /// Each message is sent as written, ids kept. file: appends under an
    /// exclusive lock and flushes to disk, so concurrent writers never
    /// interleave or lose an envelope.
    Send(SendArgs),

    /// Print a shell completion script.
    ///
    /// Example: aiproto completions bash > /etc/bash_completion.d/aiproto
    Completions(CompletionsArgs),
}

#[derive(Debug, Args)]
pub struct InputArgs {
    /// Files or directories to read; `-` or nothing reads stdin.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Read as this protocol instead of detecting it (NAME[@VERSION]).
    #[arg(short, long, value_name = "NAME[@VERSION]")]
    pub protocol: Option<ProtocolSpec>,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Treat warnings as errors.
    #[arg(long)]
    pub strict: bool,

    /// HSP: accept what the upstream implementation sends (missing envelope
    /// fields, integer timestamps, ids that are not DIDs), each as a warning.
    #[arg(long, conflicts_with = "strict")]
    pub lenient: bool,

    /// The largest single message (a JSON document or one JSON Lines line)
    /// that is read; larger ones are reported as HSP-TOO-LARGE.
    #[arg(long, value_name = "BYTES", default_value_t = crate::protocols::DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_message_bytes: usize,
}

#[derive(Debug, Args)]
pub struct ComposeArgs {
    /// Protocol to write, NAME[@VERSION] (crosstalk writes 1.1 unless @1.0).
    #[arg(value_name = "PROTOCOL", default_value = "crosstalk")]
    pub protocol: ProtocolSpec,

    /// Sender name or address (CLAUDE, claude://session/abc).
    #[arg(long, value_name = "ADDRESS", required_unless_present = "reply_to")]
    pub from: Option<String>,

    /// Receiver name or address.
    #[arg(long, value_name = "ADDRESS", required_unless_present = "reply_to")]
    pub to: Option<String>,

    /// Intent, e.g. REQUEST, RESPOND, BROADCAST, POLL, ERROR (a reply defaults to RESPOND).
    #[arg(long, required_unless_present = "reply_to")]
    pub intent: Option<String>,

    /// Topic of the conversation (`context:` header).
    #[arg(long)]
    pub context: Option<String>,

    /// The human on whose behalf the message is sent (`user:` header).
    #[arg(long)]
    pub user: Option<String>,

    /// Session, "<UTC time> <short id>"; generated when not given.
    #[arg(long)]
    pub session: Option<String>,

    /// Thread id to continue; a new ULID otherwise.
    #[arg(long)]
    pub thread: Option<String>,

    /// Id of the message answered (`parent:` header).
    #[arg(long)]
    pub parent: Option<String>,

    /// Meta entry NAMESPACE.Key=Value; repeat for more (blocks keep first-seen order).
    #[arg(long = "meta", value_name = "NS.Key=Value")]
    pub meta: Vec<String>,

    /// Message text; see also --body-file, or pipe it on stdin.
    #[arg(long, conflicts_with = "body_file")]
    pub body: Option<String>,

    /// Read the message text from a file (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    pub body_file: Option<PathBuf>,

    /// Answer the first envelope in FILE: same thread and context, parent set,
    /// sender and receiver swapped.
    #[arg(long, value_name = "FILE")]
    pub reply_to: Option<PathBuf>,

    /// For --intent ERROR: the error code written to `meta: error`.
    #[arg(long, value_enum)]
    pub error_code: Option<ErrorCode>,

    /// For --intent ERROR: why it failed (`Reason:` in `meta: error`).
    #[arg(long)]
    pub reason: Option<String>,

    /// Make ids UUIDv7 instead of ULID.
    #[arg(long)]
    pub uuid7: bool,
}

/// The Crosstalk error taxonomy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ErrorCode {
    /// Routing failed, destination unreachable.
    #[value(name = "E-ROUTE")]
    ERoute,
    /// Consent denied or expired.
    #[value(name = "E-CONSENT")]
    EConsent,
    /// Malformed envelope.
    #[value(name = "E-FORMAT")]
    EFormat,
    /// Message exceeds size limits.
    #[value(name = "E-TOO-LARGE")]
    ETooLarge,
    /// Permission denied.
    #[value(name = "E-PERM")]
    EPerm,
    /// Feature not supported.
    #[value(name = "E-UNSUPPORTED")]
    EUnsupported,
    /// Response timeout.
    #[value(name = "E-TIMEOUT")]
    ETimeout,
    /// Rate limit exceeded.
    #[value(name = "E-RATE")]
    ERate,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ERoute => "E-ROUTE",
            ErrorCode::EConsent => "E-CONSENT",
            ErrorCode::EFormat => "E-FORMAT",
            ErrorCode::ETooLarge => "E-TOO-LARGE",
            ErrorCode::EPerm => "E-PERM",
            ErrorCode::EUnsupported => "E-UNSUPPORTED",
            ErrorCode::ETimeout => "E-TIMEOUT",
            ErrorCode::ERate => "E-RATE",
        }
    }
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Target protocol and version, NAME[@VERSION] (e.g. crosstalk@1.0).
    #[arg(
        long,
        value_name = "NAME[@VERSION]",
        required_unless_present = "canonical"
    )]
    pub to: Option<ProtocolSpec>,

    /// Rewrite in canonical form, keeping each message's version.
    #[arg(long)]
    pub canonical: bool,

    /// Fail (exit 1, nothing written) if anything would be lost.
    #[arg(long)]
    pub strict: bool,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Args)]
pub struct ThreadArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Subcommand)]
pub enum PollCommand {
    /// Tally the RESPONDs to each POLL by answer, and list who has not answered.
    ///
    /// An answer is the `Answer:` of a `meta: poll` block, else the first
    /// non-empty body line. The expected respondents are `Recipients:` in the
    /// POLL's `meta: poll`, else its receiver(s) split on commas.
    Collate(PollArgs),
}

#[derive(Debug, Args)]
pub struct PollArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Subcommand)]
pub enum SchemaCommand {
    /// Name and title of every embedded schema.
    List,
    /// Print one schema, e.g. `hsp/0.1/fact` or `aiproto/validate-report`.
    Show {
        /// The schema's name as `schema list` prints it.
        name: String,
    },
}

#[derive(Debug, Args)]
pub struct IdArgs {
    /// UUIDv7 instead of ULID.
    #[arg(long)]
    pub uuid7: bool,

    /// How many ids to print.
    #[arg(short = 'n', long = "count", default_value_t = 1, value_name = "N")]
    pub count: usize,
}

#[derive(Debug, Args)]
pub struct SendArgs {
    /// The message file to send (`-` or nothing for stdin).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// Destination: file:PATH (appends), or - for stdout.
    #[arg(long, value_name = "URI")]
    pub via: String,

    /// Send even if the message has errors.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
