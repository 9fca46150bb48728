//! The arguments of the commands that read and write messages: validate, primer, compose, convert, inspect, thread, poll, config, schema, id, tokens.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::{InputArgs, ReportArgs};
use crate::operations::ProtocolSpec;

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

    /// Exit 0 when the inputs hold no message at all (an empty folder, a
    /// glob that matches nothing, every file skipped). Without it such a
    /// run fails with NO-INPUT: a gate that checked nothing has not passed.
    #[arg(long)]
    pub allow_empty: bool,

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
    #[arg(long, value_name = "BYTES", default_value_t = crate::operations::DEFAULT_MAX_MESSAGE_BYTES)]
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

    /// Who the assistant writes as in the example. With --reply-to it is
    /// by default the receiver of the envelope answered (needed when that
    /// went to several: then one of them).
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
    pub kind: Option<crate::operations::composing::Kind>,

    /// The protocol version to write (same as PROTOCOL@VERSION).
    #[arg(long = "version", value_name = "VERSION")]
    pub version: Option<String>,

    /// Sender: a name or address (CLAUDE, claude://session/abc), or for HSP
    /// a DID. With --reply-to it is by default the receiver of the message
    /// answered; when you answer as yourself, say who you are (--from HUMAN).
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

    /// Crosstalk: end the envelope with a `hash:` line (the CRC-32 of the
    /// envelope up to `sig:`, as the upstream proposes), so a reader can
    /// tell a paste that was cut or edited.
    #[arg(long)]
    pub hash: bool,

    #[command(flatten)]
    pub hsp: HspComposeArgs,
}

// The payload fields of `compose hsp`; ids, timestamps, the pattern and a
// conventional topic are filled in when not given.
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

    /// Tags, comma-separated (fact, belief, capability, discovery-query;
    /// discovery: the capabilities it announces).
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

    /// task-result: success, failure, in_progress, queued or rejected;
    /// heartbeat: healthy (the default), degraded or unhealthy.
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
    #[arg(long, value_name = "BYTES", default_value_t = crate::operations::DEFAULT_MAX_MESSAGE_BYTES)]
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
#[command(defer = true)]
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
#[command(defer = true)]
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
#[command(defer = true)]
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

    /// Give every Crosstalk envelope of FILE (`-` for stdin, `clipboard:`)
    /// a fresh `message` id instead, keeping its thread and parent, and
    /// print them once they validate: for an assistant's follow-up message
    /// that reused or invented an id. A signed envelope is refused (its
    /// signature covers the id: sign it again after).
    #[arg(long, value_name = "FILE", conflicts_with = "count")]
    pub reissue: Option<std::path::PathBuf>,
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
