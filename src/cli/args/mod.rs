//! Every command-line argument of aiproto: the commands and the flags every
//! command shares here, each group's own in a file of its own. Doc comments
//! are the help text: the first line for `-h`, the rest for `--help`. They
//! are written for the terminal, not for rustdoc: `NAME[@VERSION]` and
//! `[[END]]` there are text, not links.
#![allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::private_intra_doc_links
)]

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::operations::ProtocolSpec;
use crate::output::{ColorChoice, Format, FormatChoice};

mod conformance;
mod faces;
mod keys;
mod messages;
mod msp;
mod network;

pub use conformance::*;
pub use faces::*;
pub use keys::*;
pub use messages::*;
pub use msp::*;
pub use network::*;

/// Compose, validate, convert and send AI-agent protocol messages.
///
/// aiproto reads AI Crosstalk envelopes ([[A→B v1]] … [[END]]) from files,
/// stdin or whole pasted chat transcripts, HSP JSON envelopes, CSDL
/// documents, MSP signals and A2A messages, tasks and Agent Cards, checks
/// them against their specs, writes new ones, and sends them. Exit codes: 0 ok, 1 invalid message, 2 usage error or
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

// `defer`: a subcommand's arguments are built only when it is the one run,
// so `--version` or `validate` does not pay for building every other
// command (here and on each nested subcommand enum). A deferred build
// applies a flattened `Args` struct's doc comment as the subcommand's about,
// after the variant's own; those structs therefore carry `//` comments, and
// the checked-in completions and man page (tests/cli/completions.rs) show
// any about that changes.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Check messages against their protocol; the exit code is the verdict.
    ///
    /// Reads files, directories (walked for .crosstalk, .aict, .txt, .md, .eml,
    /// .json, .jsonl, .ndjson and .cbp files, honouring .gitignore; files there that hold no
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
    /// Any protocol to any other: --to hsp, crosstalk, csdl, msp or a2a,
    /// with @VERSION for a version (hsp@0.1, crosstalk@1.0, msp@2.0). Fields
    /// the target has no place for travel in its extension slot (meta: hsp,
    /// x_crosstalk, m.hsp, an A2A object's metadata), so converting back
    /// gives the original; what the
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

    /// Print fresh message ids (ULID by default), or give the envelopes of
    /// a text fresh ones (--reissue).
    ///
    /// Example: aiproto id --reissue clipboard: | aiproto send --via file:project.crosstalk
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

    /// Run an MQTT 3.1.1 broker in this process (no other software needed).
    ///
    /// Listens until SIGINT or SIGTERM. Beyond loopback it needs accounts
    /// (--passwords, a Mosquitto password file: `aiproto broker passwd`)
    /// and takes topic rules (--acl, a Mosquitto ACL file) and TLS
    /// (--tls-cert, --tls-key). It keeps no message across restarts: for
    /// that, MQTT 5 or clustering, point the same mqtt:// URIs at Mosquitto
    /// or another broker.
    ///
    /// Example: aiproto broker --listen 0.0.0.0:8883 --passwords broker.passwd --acl broker.acl --tls-cert cert.pem --tls-key key.pem
    Broker(BrokerArgs),

    /// Receive messages over HTTP: POST /crosstalk/receive and /hsp (or /message).
    ///
    /// /message is where the upstream HSP connector (Unified-AI-Project)
    /// posts; GET /health answers 200 while the server runs.
    ///
    /// Each request is validated, stored in --inbox under a name made from
    /// its id, and answered 200 with an ACK (or what --exec CMD prints, given
    /// the message on stdin); 400 with an ERROR (E-FORMAT) for an invalid
    /// message, 413 (E-TOO-LARGE) over --max-bytes, 429 (E-RATE) over
    /// --rate. SIGINT or SIGTERM stop it after the request in hand.
    ///
    /// Example: aiproto serve --listen 127.0.0.1:8080 --inbox inbox/
    Serve(ServeArgs),

    /// Serve aiproto's tools to an AI assistant over MCP (stdio or HTTP).
    ///
    /// A Model Context Protocol server that a host (Claude Desktop, Claude
    /// Code, an IDE agent) starts as a subprocess, or, with --listen, that
    /// hosts and agents reach at http://ADDR:PORT/mcp (Streamable HTTP,
    /// revisions 2026-07-28 and 2025-11-25; every request carries the
    /// bearer token printed at start; Host and Origin are checked, loopback
    /// only unless --allow-remote): tools validate, inspect,
    /// compose, convert, sign, verify, thread and poll_collate; the
    /// Crosstalk primer as a prompt; the JSON Schemas, protocol summaries
    /// and the --archive as resources. Tools read and write files only
    /// inside the --root directories (symlinks out of them refused), take
    /// at most --max-bytes, and never return a private key. send and recv
    /// (file archive, HTTP, MQTT) exist only with --allow-network: a pasted
    /// text must not make an assistant publish.
    ///
    /// Example: aiproto mcp --root ~/relay --archive ~/relay/project.crosstalk
    ///
    /// Example: aiproto mcp --root ~/relay --listen 127.0.0.1:8765
    Mcp(McpArgs),

    /// A2A 1.0: serve the HSP agents of an MQTT network to A2A clients.
    ///
    /// `a2a serve` is a bridge: one A2A agent whose Agent Card
    /// (/.well-known/agent-card.json) lists a skill for each capability
    /// the HSP agents advertise on the broker now. Each A2A message
    /// becomes an HSP TaskRequest to the skill's agent (its text or data
    /// part as the parameters, the whole message as payload.a2a_message);
    /// the TaskResult becomes the task's state, artifact and status
    /// message. JSON-RPC at /jsonrpc, HTTP+JSON under /rest, streams as
    /// server-sent events; every request needs the bearer token printed
    /// at start and `A2A-Version: 1.0`. See docs/a2a.md.
    ///
    /// Example: aiproto a2a serve --listen 127.0.0.1:8080 --via mqtt://127.0.0.1:1883
    #[command(subcommand)]
    A2a(A2aCommand),

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
    /// Bind the key to the sender it signs for (--signs-for), keep a
    /// revocation for the day it is lost (--revocation), and rotate it
    /// rather than replace it (--rotate): the old key stays for the
    /// messages it signed, and a transition statement signed by it tells
    /// your peers to trust the new one.
    ///
    /// Example: aiproto keygen --id alice@example.com --signs-for HUMAN --revocation alice.revoke
    ///
    /// Example: aiproto keygen --rotate alice@example.com > alice.transition
    Keygen(KeygenArgs),

    /// List, export, import, trust and forget keys; apply revocations and
    /// key transitions.
    ///
    /// Trust is granted by you, on the command line: an imported file never
    /// decides whom its keys sign for, nor replaces a key you already
    /// trust. The whole model: docs/signing.md.
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

    /// Grade an implementation of the four protocols against aiproto's test
    /// vectors: a parser, a signature verifier, an HTTP receiver or a live
    /// HSP agent over MQTT.
    ///
    /// The kit (421 vectors) names for each vector the spec section it tests,
    /// its level — mandatory, recommended, or decision (aiproto's documented
    /// reading where the spec is vague) — and the verdict a conforming reader
    /// gives. A run prints the compliance per protocol ("mandatory 160/160")
    /// and, with --format, the JSON, SARIF, JUnit, GitHub or GitLab report;
    /// it exits 0 only when every mandatory vector passed. The adapter
    /// contract: docs/conformance.md.
    ///
    /// Example: aiproto conformance parser --protocol hsp -- ./my-hsp-check {}
    #[command(subcommand)]
    Conformance(ConformanceCommand),

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
    /// .aict, .txt, .md, .eml for crosstalk; .json, .jsonl, .ndjson and .cbp,
    /// CSDL's binary frames, for the others).
    #[arg(short, long, value_name = "NAME[@VERSION]")]
    pub protocol: Option<ProtocolSpec>,

    /// Directory walks take only files matching GLOB (gitignore syntax,
    /// relative to the directory walked; `!GLOB` leaves files out); repeatable.
    #[arg(long = "glob", short = 'g', value_name = "GLOB")]
    pub globs: Vec<String>,

    /// Directory walks leave out files and directories matching GLOB; repeatable.
    #[arg(long = "exclude", value_name = "GLOB")]
    pub excludes: Vec<String>,

    /// Every file without a message of any protocol is skipped instead of
    /// reported as NO-MESSAGE: named ones (for hooks that pass file names)
    /// and, in walks, also `.crosstalk`/`.aict`/`.cbp` files and empty
    /// JSON, which a walk otherwise reports. Broken JSON is still reported.
    #[arg(long)]
    pub skip_non_messages: bool,

    /// Directory walks also read what .gitignore, .ignore and
    /// .git/info/exclude name (as ripgrep's --no-ignore): for a gate that
    /// must see every file.
    #[arg(long)]
    pub no_ignore: bool,

    /// Directory walks also read hidden files and folders (names starting
    /// with a dot; a .git folder is never read).
    #[arg(long)]
    pub hidden: bool,
}

impl InputArgs {
    /// How directories named among the paths are walked.
    pub fn walk_options(&self) -> crate::input::WalkOptions {
        use crate::operations::Protocol;
        crate::input::WalkOptions {
            no_ignore: self.no_ignore,
            hidden: self.hidden,
            globs: self.globs.clone(),
            excludes: self.excludes.clone(),
            extensions: self.protocol.map(|spec| match spec.protocol {
                Protocol::Crosstalk => &crate::input::TEXT_EXTENSIONS[..],
                Protocol::Hsp | Protocol::Csdl | Protocol::Msp | Protocol::A2a => {
                    &crate::input::JSON_EXTENSIONS[..]
                }
            }),
        }
    }
}

// `--report FORMAT:FILE`: a CI report written to a file besides what is printed.
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

    /// Several aiproto runs started by one parent process (pre-commit, or
    /// xargs splitting a long file list) write one report holding all
    /// their results, merged under a file lock, instead of each replacing
    /// it. On whenever PRE_COMMIT is set (pre-commit sets it for its
    /// hooks) or AIPROTO_REPORT_SESSION is: runs with the same
    /// AIPROTO_REPORT_SESSION=NAME are one session whatever started them.
    #[arg(long)]
    pub merge_reports: bool,
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
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
