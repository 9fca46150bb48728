//! The remote backend: any OpenAI-compatible server. Chat completions in
//! JSON mode encode, plain chat completions decode, `/embeddings` judges.
//! Every request passes the client-side rate limiter and is retried with
//! backoff on 429 (honouring `Retry-After`), 5xx and connection failures.

use std::time::Duration;

use serde_json::{Value, json};

use super::backend::{Backend, ErrorKind, JudgedBy, MspError, cosine};
use super::offline;
use super::rate::RateLimiter;
use crate::protocols::msp::MinimalSignal;

/// How to reach the server.
#[derive(Debug, Clone)]
pub struct RemoteConfig {
    /// The API root, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    pub model: String,
    /// The embeddings model; `None` judges offline (the server has none).
    pub embedding_model: Option<String>,
    pub api_key: Option<String>,
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub retries: u32,
    /// The first backoff; it doubles at each retry.
    pub backoff: Duration,
    pub rpm: u32,
}

/// An OpenAI-compatible client.
pub struct Remote {
    config: RemoteConfig,
    agent: ureq::Agent,
    limiter: RateLimiter,
}

const ENCODER_PROMPT: &str = "You turn an agent's message into a minimal signal. \
Reply with one JSON object with these fields and nothing else: \
intent (one of ANALYZE, GENERATE, EVALUATE, TRANSFORM, QUERY, RESPOND, DELEGATE, REPORT), \
target (what the message is about, a short string), \
params (the key parameters, an object), \
constraints (requirements, an array of strings), \
state (current state, an object), \
priority (one of low, medium, high, critical). \
Keep only what the receiver needs.";

fn decoder_prompt(style: &str) -> String {
    format!(
        "You turn a minimal signal (JSON) back into a message for an agent. \
Write complete, coherent prose in a {style} style that carries every field of the signal, \
and add nothing that is not in it. Reply with the message only."
    )
}

/// Most a reply body may be.
const MAX_REPLY: u64 = 16 * 1024 * 1024;
/// Longest wait a `Retry-After` is obeyed for, and the longest backoff.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);

impl Remote {
    pub fn new(config: RemoteConfig) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(config.timeout))
            .build()
            .into();
        let limiter = RateLimiter::new(config.rpm);
        Remote {
            config,
            agent,
            limiter,
        }
    }

    /// POSTs JSON to `path` under the base URL; the reply as JSON.
    fn post(&self, path: &str, body: &Value, kind: ErrorKind) -> Result<Value, MspError> {
        let url = format!("{}/{path}", self.config.base_url.trim_end_matches('/'));
        let body = body.to_string();
        let mut attempt = 0;
        loop {
            self.limiter.acquire();
            let mut request = self
                .agent
                .post(&url)
                .header("Content-Type", "application/json");
            if let Some(key) = &self.config.api_key {
                request = request.header("Authorization", format!("Bearer {key}"));
            }
            // Doubling from --backoff, at most as long as the longest Retry-After.
            let backoff = self
                .config
                .backoff
                .checked_mul(2u32.saturating_pow(attempt))
                .map_or(MAX_RETRY_AFTER, |b| b.min(MAX_RETRY_AFTER));
            let retry = attempt < self.config.retries;
            attempt += 1;
            let mut response = match request.send(&body) {
                Ok(r) => r,
                Err(ureq::Error::Timeout(_)) => {
                    return Err(MspError::new(
                        kind,
                        format!(
                            "LLM service did not answer within {} s ({url}; --timeout)",
                            self.config.timeout.as_secs_f64()
                        ),
                    ));
                }
                Err(_) if retry => {
                    std::thread::sleep(backoff);
                    continue;
                }
                Err(e) => {
                    return Err(MspError::new(
                        kind,
                        format!("LLM service unavailable ({url}): {e}"),
                    ));
                }
            };
            let status = response.status().as_u16();
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(|s| Duration::from_secs_f64(s).min(MAX_RETRY_AFTER));
            let text = response
                .body_mut()
                .with_config()
                .limit(MAX_REPLY)
                .read_to_string()
                .map_err(|e| MspError::new(kind, format!("reading the reply of {url}: {e}")))?;
            match status {
                200..=299 => {
                    return serde_json::from_str(&text).map_err(|e| {
                        MspError::new(
                            kind,
                            format!(
                                "Failed to parse LLM response: the reply of {url} is not JSON ({e})"
                            ),
                        )
                    });
                }
                429 if retry => std::thread::sleep(retry_after.unwrap_or(backoff)),
                429 => {
                    return Err(MspError::new(
                        ErrorKind::RateLimit,
                        format!(
                            "rate limited by {url} (HTTP 429) after {attempt} attempts; lower --rpm or retry later"
                        ),
                    ));
                }
                500..=599 if retry => std::thread::sleep(backoff),
                _ => {
                    return Err(MspError::new(
                        kind,
                        format!(
                            "LLM service unavailable: {url} answered HTTP {status}{}",
                            error_detail(&text)
                        ),
                    ));
                }
            }
        }
    }

    /// One chat completion; the reply's text.
    fn chat(
        &self,
        system: &str,
        user: &str,
        json_mode: bool,
        kind: ErrorKind,
    ) -> Result<String, MspError> {
        let mut body = json!({
            "model": self.config.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        });
        if json_mode {
            body["response_format"] = json!({"type": "json_object"});
        }
        let reply = self.post("chat/completions", &body, kind)?;
        reply
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| {
                MspError::new(
                    kind,
                    "Failed to parse LLM response: no choices[0].message.content in the reply",
                )
            })
    }
}

/// ` (message)` from an OpenAI-style error body, or a short excerpt.
fn error_detail(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed
        .as_ref()
        .and_then(|v| v.pointer("/error/message").and_then(Value::as_str))
        .map(str::to_string)
        .unwrap_or_else(|| body.chars().take(200).collect());
    if message.trim().is_empty() {
        String::new()
    } else {
        format!(" ({})", message.trim())
    }
}

impl Backend for Remote {
    fn encode_text(&self, text: &str) -> Result<MinimalSignal, MspError> {
        let content = self.chat(ENCODER_PROMPT, text, true, ErrorKind::Encoder)?;
        let value: Value = serde_json::from_str(strip_fence(&content)).map_err(|e| {
            MspError::new(
                ErrorKind::Encoder,
                format!("Failed to parse LLM response: the model's reply is not JSON ({e})"),
            )
        })?;
        MinimalSignal::from_json(&value).map_err(|e| {
            MspError::new(
                ErrorKind::Encoder,
                format!("the model's signal is not a valid MinimalSignal: {e}"),
            )
        })
    }

    fn decode_signal(&self, signal: &Value, style: &str) -> Result<String, MspError> {
        let content = self.chat(
            &decoder_prompt(style),
            &signal.to_string(),
            false,
            ErrorKind::Decoder,
        )?;
        Ok(content.trim().to_string())
    }

    fn similarity(&self, a: &str, b: &str) -> Result<f64, MspError> {
        let Some(model) = &self.config.embedding_model else {
            return Ok(offline::similarity(a, b));
        };
        let reply = self.post(
            "embeddings",
            &json!({"model": model, "input": [a, b]}),
            ErrorKind::Judge,
        )?;
        let vectors: Vec<Vec<f64>> = reply
            .get("data")
            .and_then(Value::as_array)
            .map(|data| {
                let mut items: Vec<&Value> = data.iter().collect();
                items.sort_by_key(|d| d.get("index").and_then(Value::as_u64).unwrap_or(0));
                items
                    .iter()
                    .filter_map(|d| d.get("embedding").and_then(Value::as_array))
                    .map(|e| e.iter().filter_map(Value::as_f64).collect())
                    .collect()
            })
            .unwrap_or_default();
        match vectors.as_slice() {
            [x, y] if !x.is_empty() && x.len() == y.len() => Ok(cosine(x, y)),
            _ => Err(MspError::new(
                ErrorKind::Judge,
                "Failed to compute embeddings: the reply has no two embeddings of one size",
            )),
        }
    }

    fn judged_by(&self) -> JudgedBy {
        match &self.config.embedding_model {
            Some(model) => JudgedBy::embeddings(model.clone(), self.config.base_url.clone()),
            None => JudgedBy::lexical(),
        }
    }
}

/// A reply wrapped in a Markdown code fence, unwrapped.
fn strip_fence(text: &str) -> &str {
    let t = text.trim();
    t.strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .and_then(|r| r.strip_suffix("```"))
        .map_or(t, str::trim)
}
