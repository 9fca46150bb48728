//! The spec's pipeline: encode prose, decode the signal, judge the round
//! trip, and count tokens — with the spec's result field names.

use std::time::Instant;

use serde::Serialize;

use super::backend::{self, Backend, JudgeResult, MspError};
use crate::tokens::Encoding;

/// Token counts, the compression ratio and the time taken.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PipelineMetrics {
    pub original_tokens: usize,
    /// Tokens of the signal as sent, one line of JSON.
    pub signal_tokens: usize,
    pub decoded_tokens: usize,
    /// signal_tokens / original_tokens (below 1 saves tokens).
    pub compression_ratio: f64,
    /// Whether the signal has fewer tokens than the prose: when not,
    /// sending the prose is cheaper (not in the spec's model).
    pub compresses: bool,
    pub latency_ms: f64,
}

/// Everything one run produced.
#[derive(Debug, Clone, Serialize)]
pub struct PipelineResult {
    pub original_text: String,
    /// The signal as sent: the wire form, or every field with `full`.
    pub signal: serde_json::Value,
    pub decoded_text: String,
    pub judge: JudgeResult,
    pub metrics: PipelineMetrics,
    pub trace_id: String,
    pub timestamp: String,
}

/// How to run the pipeline.
#[derive(Debug, Clone)]
pub struct Settings {
    pub style: String,
    pub threshold: f64,
    pub encoding: Encoding,
    /// Every field on the wire instead of the compact form.
    pub full: bool,
}

/// Runs encode → decode → judge on a text.
pub fn process(
    backend: &dyn Backend,
    text: &str,
    settings: &Settings,
) -> Result<PipelineResult, MspError> {
    let start = Instant::now();
    let signal = backend::encode_judged(backend, text, settings.threshold)?;
    let sent = if settings.full {
        signal.to_json()
    } else {
        signal.to_wire()
    };
    let decoded = backend::decode(backend, &sent, &settings.style)?;
    let judge = backend::judge(backend, text, &decoded, settings.threshold)?;
    let latency_ms = start.elapsed().as_secs_f64() * 1000.0;
    let metrics = metrics(
        text,
        &sent.to_string(),
        &decoded,
        settings.encoding,
        latency_ms,
    );
    Ok(PipelineResult {
        original_text: text.to_string(),
        trace_id: signal.trace_id.clone(),
        timestamp: signal.to_json()["timestamp"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        signal: sent,
        decoded_text: decoded,
        judge,
        metrics,
    })
}

/// A signal as it goes out: its exact text — one compact line, or
/// indented when `pretty` — and the counts of those bytes against the
/// prose's. `metrics.compresses` is the promise `msp encode --if-smaller`
/// keeps: the bytes written cost fewer tokens than the prose.
pub struct Written {
    pub text: String,
    pub metrics: PipelineMetrics,
}

/// The signal `json` as written for `prose` ([`Written`]).
pub fn written(json: &serde_json::Value, prose: &str, pretty: bool, encoding: Encoding) -> Written {
    let mut text = if pretty {
        serde_json::to_string_pretty(json).unwrap_or_default()
    } else {
        json.to_string()
    };
    text.push('\n');
    let metrics = metrics(prose, &text, "", encoding, 0.0);
    Written { text, metrics }
}

/// The metrics of one round trip. Token counts are at least 1 (an input is
/// never empty), so the ratio is always defined.
pub fn metrics(
    original: &str,
    signal: &str,
    decoded: &str,
    encoding: Encoding,
    latency_ms: f64,
) -> PipelineMetrics {
    let original_tokens = encoding.count(original).max(1);
    let signal_tokens = encoding.count(signal).max(1);
    let decoded_tokens = encoding.count(decoded).max(1);
    PipelineMetrics {
        original_tokens,
        signal_tokens,
        decoded_tokens,
        compression_ratio: signal_tokens as f64 / original_tokens as f64,
        compresses: signal_tokens < original_tokens,
        latency_ms,
    }
}
