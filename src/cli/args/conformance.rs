//! Arguments of `aiproto conformance`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use crate::conformance::vectors::Level;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ConformanceCommand {
    /// List the kit's vectors, or write them out for another implementation (--out DIR).
    ///
    /// DIR gets one file per vector (named by its id), the public keys of the
    /// signature vectors under keys/, and manifest.json: for each vector its
    /// id, kind, file, key, protocol version, spec section, level, expected
    /// verdict (accept or reject), aiproto's finding codes and what it is about.
    ///
    /// Example: aiproto conformance vectors --protocol crosstalk --out ct-kit/
    Vectors(ConformanceVectorsArgs),

    /// Grade a parser: run COMMAND on every message and damage vector.
    ///
    /// In COMMAND, `{}` is replaced by the vector's file (without it the
    /// vector comes on stdin), `{protocol}` and `{version}` by what it is
    /// written in. --adapter exit (the default): exit 0 accepts, 1 refuses,
    /// anything else (another status, a signal, no answer within --timeout)
    /// is no verdict. --adapter json: COMMAND prints one JSON object per
    /// message with a boolean `valid` and, optionally, `errors`/`warnings`
    /// (codes, or objects with a `code`) — what `aiproto validate --format
    /// json` prints. Exit 0 when every mandatory vector passed, 1 otherwise.
    ///
    /// Example: aiproto conformance parser --protocol hsp -- python3 my_parser.py {}
    ///
    /// Example: aiproto conformance parser --adapter json --codes -- aiproto validate --format json -p {protocol} {}
    Parser(ConformanceRunArgs),

    /// Grade a signature verifier: run COMMAND on every signature vector.
    ///
    /// As `parser`, with `{key}` replaced by the vector's public key (a
    /// keystore line: `ID ALGORITHM BASE64`): exit 0 means the signature
    /// verifies with that key, 1 that it does not.
    ///
    /// Example: aiproto conformance verifier -- aiproto verify --pubkey {key} {}
    Verifier(ConformanceRunArgs),

    /// Grade an HTTP receiver: POST every vector of its protocol to URL.
    ///
    /// The protocol comes from the URL's path (/crosstalk/receive, /hsp or
    /// /message) or --protocol. A vector the spec accepts must be taken (2xx)
    /// and acknowledged in the protocol (an envelope for Crosstalk; for HSP
    /// an ACK whose correlation_id is the message's id); one it refuses must
    /// be refused (4xx) with the protocol's error (an ERROR envelope with a
    /// Code:, an HSP NACK or Error with an error_code). Vectors are posted
    /// one at a time, in the kit's order; 429 answers are waited out.
    ///
    /// Example: aiproto conformance http http://127.0.0.1:8080/crosstalk/receive
    Http(ConformanceHttpArgs),

    /// Grade a live HSP agent over MQTT: probe it on `hsp/agents/<AGENT>`.
    ///
    /// Each probe goes out with fresh ids, a sender of its own and its own
    /// callback topic, once the grader listens there: a Fact asking for an
    /// ACK (0.1 and 1.0) must be answered with an ACK whose correlation_id
    /// names it, on `hsp/agents/<sender>`; an invalid Fact asking for one
    /// with a NACK, never an ACK; a message cut off mid-JSON with nothing at
    /// all (anything the agent publishes on `hsp/#` in the --timeout counts);
    /// binary noise must not stop it answering the next Fact; with
    /// --capability, a TaskRequest for it must bring a TaskResult on the
    /// callback topic, for its request_id, correlated, from the agent. Each
    /// probe waits at most --timeout.
    ///
    /// Example: aiproto conformance mqtt mqtt://127.0.0.1 --agent did:hsp:worker --capability translate
    Mqtt(ConformanceMqttArgs),
}

// Which vectors a command takes.
#[derive(Debug, Clone, Args)]
pub struct VectorSelectArgs {
    /// Only the vectors of this protocol; repeatable.
    #[arg(long = "protocol", short = 'p', value_name = "NAME", value_parser = ["hsp", "crosstalk", "csdl", "msp", "a2a"])]
    pub protocols: Vec<String>,

    /// Only the vectors of this level: mandatory (what the spec requires),
    /// recommended (what it recommends, and the copy-paste repairs), decision
    /// (aiproto's reading where the spec is vague); repeatable.
    #[arg(long = "level", value_enum, value_name = "LEVEL")]
    pub levels: Vec<Level>,

    /// Only the vectors with this id, whose id matches this glob
    /// (`hsp/1.0/*`), or whose spec section holds this text (`§4.3`,
    /// `acknowledgements`); repeatable. Reruns one failure, or one section.
    #[arg(long = "only", value_name = "ID|GLOB|SECTION")]
    pub only: Vec<String>,
}

// A graded run against a baseline of known failures.
#[derive(Debug, Clone, Args)]
pub struct BaselineArgs {
    /// The vectors the implementation is known to fail (one id a line, `#`
    /// comments): the run then fails only on a change — a mandatory
    /// failure the file does not list, or a listed vector that passes now.
    #[arg(long, value_name = "FILE")]
    pub expected_failures: Option<PathBuf>,

    /// Write the ids of the vectors that failed to FILE: the baseline for
    /// --expected-failures (a first run in CI writes it, the next read it).
    #[arg(long, value_name = "FILE")]
    pub write_expected_failures: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ConformanceVectorsArgs {
    #[command(flatten)]
    pub select: VectorSelectArgs,

    /// Write the vectors and manifest.json into DIR (created; refused if it
    /// holds other files).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// How the implementation's answer is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AdapterChoice {
    /// Exit 0 accepts, 1 refuses.
    Exit,
    /// One JSON object per message with `valid`, `errors`, `warnings`.
    Json,
}

#[derive(Debug, Args)]
pub struct ConformanceRunArgs {
    #[command(flatten)]
    pub select: VectorSelectArgs,

    /// How COMMAND's answer is read.
    #[arg(long, value_enum, default_value_t = AdapterChoice::Exit)]
    pub adapter: AdapterChoice,

    /// Also grade the finding codes: every code aiproto reports on a vector
    /// must be among COMMAND's (needs --adapter json; for implementations
    /// that use aiproto's codes).
    #[arg(long)]
    pub codes: bool,

    /// Seconds COMMAND may take on one vector; past them it is stopped with
    /// everything it started, and the vector fails.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub timeout: f64,

    /// How many vectors run at once [default: the number of cores].
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    #[command(flatten)]
    pub baseline: BaselineArgs,

    /// The implementation's command and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ConformanceHttpArgs {
    /// The receiver's URL, path included (e.g. http://127.0.0.1:8080/hsp).
    pub url: String,

    /// The protocol the URL receives: crosstalk or hsp (default: from the path).
    #[arg(long, short = 'p', value_name = "NAME", value_parser = ["crosstalk", "hsp"])]
    pub protocol: Option<String>,

    /// Only the vectors of this level; repeatable.
    #[arg(long = "level", value_enum, value_name = "LEVEL")]
    pub levels: Vec<Level>,

    /// Only the vectors with this id, glob over ids, or section text; repeatable.
    #[arg(long = "only", value_name = "ID|GLOB|SECTION")]
    pub only: Vec<String>,

    #[command(flatten)]
    pub baseline: BaselineArgs,

    /// Seconds to wait for each answer.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub timeout: f64,
}

#[derive(Debug, Args)]
pub struct ConformanceMqttArgs {
    /// The broker: mqtt(s)://[user:pass@]host[:port] (a topic is ignored).
    pub broker: String,

    /// The agent's id (a DID); probes go to `hsp/agents/<AGENT>`.
    #[arg(long, value_name = "DID")]
    pub agent: String,

    /// A capability the agent offers: also grade its TaskResults (without
    /// it, the TaskRequest probe is left out, and said so).
    #[arg(long, value_name = "ID")]
    pub capability: Option<String>,

    /// Only the probes of this level; repeatable.
    #[arg(long = "level", value_enum, value_name = "LEVEL")]
    pub levels: Vec<Level>,

    /// Only the probes with this id, glob over ids, or section text; repeatable.
    #[arg(long = "only", value_name = "ID|GLOB|SECTION")]
    pub only: Vec<String>,

    #[command(flatten)]
    pub baseline: BaselineArgs,

    /// Seconds each probe waits for its answer (and listens for silence).
    #[arg(long, value_name = "SECS", default_value_t = 5.0)]
    pub timeout: f64,

    /// mqtts://: a PEM file of CA certificates to trust besides the system's.
    #[arg(long, value_name = "PEM")]
    pub cafile: Option<PathBuf>,
}
