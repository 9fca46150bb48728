//! What an MSP backend does — encode prose, decode a signal, compare two
//! texts — and the spec's error classes, shared by the offline and the
//! remote backends.

use serde::Serialize;
use serde_json::Value;

use crate::protocols::msp::{Intent, MinimalSignal};

/// The spec's error classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    Encoder,
    Decoder,
    Judge,
    RateLimit,
}

impl ErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Encoder => "EncoderError",
            ErrorKind::Decoder => "DecoderError",
            ErrorKind::Judge => "JudgeError",
            ErrorKind::RateLimit => "RateLimitError",
        }
    }
}

/// A failure of one pipeline stage.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}: {message}", kind.name())]
pub struct MspError {
    pub kind: ErrorKind,
    pub message: String,
}

/// The spec's message for empty prose given to the encoder.
pub const EMPTY_INPUT: &str = "Input cannot be empty";

impl MspError {
    /// Whether the input itself was the problem (empty prose), not a backend.
    pub fn is_empty_input(&self) -> bool {
        self.kind == ErrorKind::Encoder && self.message == EMPTY_INPUT
    }

    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        MspError {
            kind,
            message: message.into(),
        }
    }
}

/// Sentence embeddings of texts, in order: how a sentence model guides
/// [`Backend::candidates_guided`].
pub type Embed<'a> = dyn Fn(&[&str]) -> Result<Vec<Vec<f32>>, MspError> + 'a;

/// An encoder, a decoder and a similarity measure.
pub trait Backend {
    /// Prose → signal. The text is never empty (see [`encode`]).
    fn encode_text(&self, text: &str) -> Result<MinimalSignal, MspError>;
    /// Signals for a text from the least to the most detail, for a judge
    /// to choose among (by default the one [`Backend::encode_text`] gives).
    fn candidates(&self, text: &str) -> Result<Vec<MinimalSignal>, MspError> {
        Ok(vec![self.encode_text(text)?])
    }
    /// [`Backend::candidates`] chosen with the help of the judge's sentence
    /// model (`embed` gives texts' embeddings); by default, without it.
    fn candidates_guided(&self, text: &str, embed: &Embed) -> Result<Vec<MinimalSignal>, MspError> {
        let _ = embed;
        self.candidates(text)
    }
    /// Signal (1.0 or 2.0, as JSON) → prose in a style.
    fn decode_signal(&self, signal: &Value, style: &str) -> Result<String, MspError>;
    /// How alike two texts are in meaning, in [0, 1].
    fn similarity(&self, a: &str, b: &str) -> Result<f64, MspError>;
    /// [`Backend::similarity`] of each pair, in order; a backend that can
    /// compute many at once (a local model's batches) does so.
    fn similarities(&self, pairs: &[(&str, &str)]) -> Result<Vec<f64>, MspError> {
        pairs.iter().map(|(a, b)| self.similarity(a, b)).collect()
    }
    /// Which measure [`Backend::similarity`] is.
    fn judged_by(&self) -> JudgedBy;
    /// The intent a text reads as, for the judge: its cue reading here; a
    /// backend with a sentence model reads a text without a cue word from
    /// its meaning ([`super::intent`]), as its encoder did.
    fn intent_of(&self, text: &str) -> Result<Intent, MspError> {
        Ok(super::cues::intent_of(text))
    }
    /// Whether encoding, decoding and judging run here, at no cost per
    /// call (no model service to pay or wait for): then even a single
    /// candidate signal is judged before it goes out.
    fn runs_here(&self) -> bool {
        false
    }
}

/// The measure behind a judgement, as output says it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgedBy {
    /// `embeddings` (a sentence-embedding model) or `lexical` (the offline
    /// word-overlap measure).
    pub method: &'static str,
    /// The embedding model's name (a folder's name, or a server's model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Where it ran: a model folder, or a server's API root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
}

impl JudgedBy {
    pub fn lexical() -> Self {
        JudgedBy {
            method: "lexical",
            model: None,
            location: None,
        }
    }

    pub fn embeddings(model: String, location: String) -> Self {
        JudgedBy {
            method: "embeddings",
            model: Some(model),
            location: Some(location),
        }
    }
}

impl std::fmt::Display for JudgedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.model, &self.location) {
            (Some(m), Some(l)) => write!(f, "{} judge, {m} ({l})", self.method),
            (Some(m), None) => write!(f, "{} judge, {m}", self.method),
            _ => write!(f, "{} judge", self.method),
        }
    }
}

/// Empty prose, refused as the spec refuses it.
fn refuse_empty(text: &str) -> Result<(), MspError> {
    if text.trim().is_empty() {
        return Err(MspError::new(ErrorKind::Encoder, EMPTY_INPUT));
    }
    Ok(())
}

/// Encodes prose, refusing empty input as the spec does.
pub fn encode(backend: &dyn Backend, text: &str) -> Result<MinimalSignal, MspError> {
    refuse_empty(text)?;
    backend.encode_text(text)
}

/// Encodes prose as tightly as the backend's own judge allows: among its
/// candidates (least to most detail), the first whose decoding passes
/// [`judge`] at `aim`, polarity and intent kept; when none does, the one
/// scored highest. The encoder checks its work with the judge's measure.
pub fn encode_judged(
    backend: &dyn Backend,
    text: &str,
    aim: f64,
) -> Result<MinimalSignal, MspError> {
    encode_checked(backend, text, aim).map(|(signal, _)| signal)
}

/// [`encode_judged`], with the verdict on the signal chosen when the
/// backend gave candidates to judge (`None`: one signal, not judged here).
/// A verdict that did not pass means no candidate did: the signal loses
/// meaning, and must not go out as if it kept it.
pub fn encode_checked(
    backend: &dyn Backend,
    text: &str,
    aim: f64,
) -> Result<(MinimalSignal, Option<JudgeResult>), MspError> {
    refuse_empty(text)?;
    let mut candidates = backend.candidates(text)?;
    if candidates.len() <= 1 && !backend.runs_here() {
        let signal = candidates
            .pop()
            .ok_or_else(|| MspError::new(ErrorKind::Encoder, "the encoder gave no signal"))?;
        return Ok((signal, None));
    }
    let mut best: Option<(JudgeResult, usize)> = None;
    for (i, signal) in candidates.iter().enumerate() {
        let decoded = decode(backend, &signal.to_wire(), "professional")?;
        let verdict = judge(backend, text, &decoded, aim)?;
        if verdict.passed {
            return Ok((candidates.swap_remove(i), Some(verdict)));
        }
        if best
            .as_ref()
            .is_none_or(|(b, _)| verdict.similarity_score >= b.similarity_score)
        {
            best = Some((verdict, i));
        }
    }
    match best {
        Some((verdict, i)) => Ok((candidates.swap_remove(i), Some(verdict))),
        None => Err(MspError::new(
            ErrorKind::Encoder,
            "the encoder gave no signal",
        )),
    }
}

/// Decodes a signal, refusing an empty result as the spec does.
pub fn decode(backend: &dyn Backend, signal: &Value, style: &str) -> Result<String, MspError> {
    let text = backend.decode_signal(signal, style)?;
    if text.trim().is_empty() {
        return Err(MspError::new(
            ErrorKind::Decoder,
            "Decoder produced empty output",
        ));
    }
    Ok(text)
}

/// The judge's verdict, with the spec's field names.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeResult {
    pub passed: bool,
    pub confidence: f64,
    pub similarity_score: f64,
    pub issues: Vec<String>,
    /// Which measure computed the similarity (not in the spec's model).
    pub judged_by: JudgedBy,
}

/// Judges whether `decoded` keeps the meaning of `original`: a similarity
/// at or above `threshold`, and (whatever the similarity) the same
/// polarity and the same intent ([`super::meaning`]) and every number,
/// time, date and name kept ([`super::facts`]).
pub fn judge(
    backend: &dyn Backend,
    original: &str,
    decoded: &str,
    threshold: f64,
) -> Result<JudgeResult, MspError> {
    let score = backend.similarity(original, decoded)?;
    verdict(backend, score, original, decoded, threshold)
}

/// [`judge`] of each `(original, decoded)` pair, in order, the
/// similarities computed together ([`Backend::similarities`]).
pub fn judge_all(
    backend: &dyn Backend,
    pairs: &[(&str, &str)],
    threshold: f64,
) -> Result<Vec<JudgeResult>, MspError> {
    let scores = backend.similarities(pairs)?;
    if scores.len() != pairs.len() {
        return Err(MspError::new(
            ErrorKind::Judge,
            format!(
                "Failed to compute embeddings: {} similarities for {} pairs",
                scores.len(),
                pairs.len()
            ),
        ));
    }
    pairs
        .iter()
        .zip(scores)
        .map(|((original, decoded), score)| verdict(backend, score, original, decoded, threshold))
        .collect()
}

/// The judgement of a pair whose similarity is `score`.
fn verdict(
    backend: &dyn Backend,
    score: f64,
    original: &str,
    decoded: &str,
    threshold: f64,
) -> Result<JudgeResult, MspError> {
    if !score.is_finite() {
        return Err(MspError::new(
            ErrorKind::Judge,
            "Failed to compute embeddings",
        ));
    }
    let score = score.clamp(0.0, 1.0);
    let mut issues = Vec::new();
    if score < threshold {
        issues.push(format!(
            "Semantic drift detected (similarity {score:.3} is below the threshold {threshold:.2})"
        ));
    }
    issues.extend(super::meaning::polarity_issue(original, decoded));
    issues.extend(super::meaning::intent_issue(
        backend.intent_of(original)?,
        backend.intent_of(decoded)?,
    ));
    issues.extend(super::facts::fact_issues(original, decoded));
    Ok(JudgeResult {
        passed: issues.is_empty(),
        confidence: score,
        similarity_score: score,
        issues,
        judged_by: backend.judged_by(),
    })
}

/// Cosine similarity of two vectors (0 when either is all zeros).
pub fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f64 = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| x * x).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}
