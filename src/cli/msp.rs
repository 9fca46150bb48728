//! `aiproto msp`: encode, decode, judge and the whole pipeline, with the
//! backend chosen from flags, the environment and `config.toml`.

use std::io::Write;
use std::time::Duration;

use serde::Serialize;

use super::args::{BackendArgs, BackendKind, GlobalArgs, MspCommand};
use crate::config::{self, MspConfig};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::input::Input;
use crate::operations::read::Source;
use crate::operations::{Document, Protocol, ProtocolSpec, ReadOptions, ReadValue};
use crate::output::{self, Format, Painter, SourceLines, Stream};
use crate::prose::backend::{self, Backend, ErrorKind, MspError};
use crate::prose::offline::Offline;
use crate::prose::pairs;
use crate::prose::pipeline::{self, Settings};
use crate::prose::remote::{Remote, RemoteConfig};

const DEFAULT_THRESHOLD: f64 = 0.80;
const DEFAULT_STYLE: &str = "professional";

pub fn run(cmd: &MspCommand, g: &GlobalArgs) -> CmdResult {
    let cfg = config::load()
        .map_err(|e| CliError::usage(e).with_hint("see the [msp] table in docs/msp.md"))?
        .msp;
    match cmd {
        MspCommand::Encode(a) => {
            let backend = backend(&a.backend, &cfg)?;
            let text = read_text(a.text.as_deref())?;
            let aim = threshold(cfg.threshold)?;
            let (signal, verdict) =
                backend::encode_checked(backend.as_ref(), &text, aim).map_err(failure)?;
            let json = if a.full {
                signal.to_json()
            } else {
                signal.to_wire()
            };
            // Counted as written: the exact bytes that go out, compact
            // unless asked pretty (--pretty, or people reading a terminal).
            let pretty = a.pretty
                || (g.format == Format::Human
                    && std::io::IsTerminal::is_terminal(&std::io::stdout()));
            let pipeline::Written {
                text: written,
                metrics: m,
            } = pipeline::written(&json, &text, pretty, a.encoding);
            // A signal whose decoding the judge fails loses meaning: never
            // written as if it kept it. One that does not compress costs
            // more than the prose.
            let fails = verdict.filter(|v| !v.passed);
            if m.compresses && fails.is_none() {
                std::io::stdout().lock().write_all(written.as_bytes())?;
                return Ok(ExitStatus::Ok);
            }
            let mut why = Vec::new();
            if let Some(v) = &fails {
                why.push(format!(
                    "no signal of this prose has a decoding the judge passes (best similarity {:.3} < {aim:.2}): it loses meaning",
                    v.similarity_score
                ));
            }
            if !m.compresses {
                why.push(format!(
                    "the signal has {} tokens, the prose {} ({}): the signal does not compress",
                    m.signal_tokens, m.original_tokens, a.encoding
                ));
            }
            let why = why.join("; and ");
            if a.if_smaller {
                eprintln!("aiproto: {why}, nothing written; send the prose");
            } else {
                std::io::stdout().lock().write_all(written.as_bytes())?;
                let advice = if m.compresses {
                    "send the prose"
                } else {
                    "sending the prose costs fewer tokens"
                };
                eprintln!(
                    "aiproto: {why}; {advice} (--if-smaller writes only a smaller signal that passes the judge)"
                );
            }
            Ok(ExitStatus::Invalid)
        }
        MspCommand::Decode(a) => {
            let backend = backend(&a.backend, &cfg)?;
            let style = a
                .style
                .clone()
                .or(cfg.style.clone())
                .unwrap_or(DEFAULT_STYLE.into());
            let Some(signals) = read_signals(a.path.as_deref(), g)? else {
                return Ok(ExitStatus::Invalid);
            };
            let mut out = std::io::stdout().lock();
            for signal in &signals {
                let text = backend::decode(backend.as_ref(), signal, &style).map_err(failure)?;
                match g.format {
                    Format::Json => output::write_json_line(
                        &mut out,
                        &Decoded {
                            decoded_text: &text,
                            trace_id: signal.get("trace_id").and_then(|t| t.as_str()),
                        },
                    )?,
                    Format::Human => writeln!(out, "{text}")?,
                }
            }
            Ok(ExitStatus::Ok)
        }
        MspCommand::Judge(a) => {
            let threshold = threshold(a.threshold.or(cfg.threshold))?;
            if let Some(path) = &a.pairs {
                let (name, pairs) = read_pairs(path)?;
                let backend = backend(&a.backend, &cfg)?;
                return judge_pairs(backend.as_ref(), &name, &pairs, threshold, g);
            }
            let (Some(original), Some(decoded)) = (&a.original, &a.decoded) else {
                return Err(CliError::usage(
                    "give ORIGINAL and DECODED, or --pairs FILE",
                ));
            };
            let backend = backend(&a.backend, &cfg)?;
            let (original, decoded) = read_two(original, decoded)?;
            let result = backend::judge(backend.as_ref(), &original, &decoded, threshold)
                .map_err(failure)?;
            match g.format {
                Format::Json => output::write_json_line(&mut std::io::stdout().lock(), &result)?,
                Format::Human => {
                    let p = Painter::new(g.color, Stream::Stdout);
                    let line = verdict(&p, &result, threshold);
                    writeln!(std::io::stdout().lock(), "{line}")?;
                }
            }
            Ok(if result.passed {
                ExitStatus::Ok
            } else {
                ExitStatus::Invalid
            })
        }
        MspCommand::Pipeline(a) => {
            let backend = backend(&a.backend, &cfg)?;
            let settings = Settings {
                style: a
                    .style
                    .clone()
                    .or(cfg.style.clone())
                    .unwrap_or(DEFAULT_STYLE.into()),
                threshold: threshold(a.threshold.or(cfg.threshold))?,
                encoding: a.encoding,
                full: a.full,
            };
            let text = read_text(a.text.as_deref())?;
            let result = pipeline::process(backend.as_ref(), &text, &settings).map_err(failure)?;
            match g.format {
                Format::Json => output::write_json_line(&mut std::io::stdout().lock(), &result)?,
                Format::Human => {
                    let p = Painter::new(g.color, Stream::Stdout);
                    let m = &result.metrics;
                    let mut out = std::io::stdout().lock();
                    writeln!(out, "{}", p.bold("signal"))?;
                    writeln!(out, "{}", pretty(&result.signal))?;
                    writeln!(out, "{}", p.bold("decoded"))?;
                    writeln!(out, "{}", result.decoded_text)?;
                    writeln!(out, "{}", verdict(&p, &result.judge, settings.threshold))?;
                    if !m.compresses {
                        writeln!(
                            out,
                            "{}",
                            p.warning("the signal does not compress: it has no fewer tokens than the prose, so send the prose")
                        )?;
                    }
                    writeln!(
                        out,
                        "tokens: {} original, {} signal, {} decoded ({}); compression {:.2}; {:.1} ms",
                        m.original_tokens,
                        m.signal_tokens,
                        m.decoded_tokens,
                        settings.encoding,
                        m.compression_ratio,
                        m.latency_ms
                    )?;
                }
            }
            Ok(if result.judge.passed && result.metrics.compresses {
                ExitStatus::Ok
            } else {
                ExitStatus::Invalid
            })
        }
    }
}

/// The pairs of a `--pairs` file; a line that is not a pair, or a file
/// with none, is an error naming it (exit 1).
fn read_pairs(path: &std::path::Path) -> Result<(String, Vec<pairs::Pair>), CliError> {
    let (name, text) = if path.as_os_str() == "-" {
        ("<stdin>".to_string(), read_stdin()?)
    } else {
        let source = Input::File(path.to_path_buf()).read()?;
        (source.name, source.text)
    };
    let invalid = |message: String| CliError::new(ExitStatus::Invalid, anyhow::anyhow!(message));
    let read = pairs::read(&text).map_err(|e| invalid(format!("{name}:{e}; nothing judged")))?;
    if read.is_empty() {
        return Err(invalid(format!("{name}: no pair to judge")).with_hint(
            "one {\"original\": \"…\", \"decoded\": \"…\"} object a line; a run that judged nothing has not passed",
        ));
    }
    Ok((name, read))
}

/// Judges every pair in one run: a verdict a line, in the file's order,
/// then a count on stderr. Exit 1 if any pair fails.
fn judge_pairs(
    backend: &dyn Backend,
    name: &str,
    pairs: &[pairs::Pair],
    threshold: f64,
    g: &GlobalArgs,
) -> CmdResult {
    let texts: Vec<(&str, &str)> = pairs
        .iter()
        .map(|p| (p.original.as_str(), p.decoded.as_str()))
        .collect();
    let results = backend::judge_all(backend, &texts, threshold).map_err(failure)?;
    let p = Painter::new(g.color, Stream::Stdout);
    let mut out = std::io::stdout().lock();
    for (pair, result) in pairs.iter().zip(&results) {
        match g.format {
            Format::Json => output::write_json_line(
                &mut out,
                &JudgedPair {
                    source: name,
                    line: pair.line,
                    id: pair.id.as_ref(),
                    result,
                },
            )?,
            Format::Human => writeln!(
                out,
                "{name}:{}: {}",
                pair.line,
                verdict(&p, result, threshold)
            )?,
        }
    }
    out.flush()?;
    let failed = results.iter().filter(|r| !r.passed).count();
    if !g.quiet {
        eprintln!(
            "aiproto: judged {} pair(s) of {name}: {} passed, {failed} failed",
            results.len(),
            results.len() - failed
        );
    }
    Ok(if failed == 0 {
        ExitStatus::Ok
    } else {
        ExitStatus::Invalid
    })
}

/// One verdict of `judge --pairs --format json`: where the pair was
/// written and its `id` if it had one, then the judgement's fields.
#[derive(Serialize)]
struct JudgedPair<'a> {
    source: &'a str,
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a serde_json::Value>,
    #[serde(flatten)]
    result: &'a backend::JudgeResult,
}

#[derive(Serialize)]
struct Decoded<'a> {
    decoded_text: &'a str,
    trace_id: Option<&'a str>,
}

/// The judgement in one line: passed, or failed with each reason (a
/// similarity below the threshold, a changed polarity or intent).
fn verdict(p: &Painter, judge: &backend::JudgeResult, threshold: f64) -> String {
    let score = judge.similarity_score;
    if judge.passed {
        return format!(
            "{}: similarity {score:.3} ≥ {threshold:.2} ({})",
            p.good("passed"),
            judge.judged_by
        );
    }
    let comparison = if score >= threshold { "≥" } else { "<" };
    let mut line = format!(
        "{}: similarity {score:.3} {comparison} {threshold:.2} ({})",
        p.error("failed"),
        judge.judged_by
    );
    for issue in &judge.issues {
        // The drift is said by the comparison already.
        if !issue.starts_with("Semantic drift") {
            line.push_str("; ");
            line.push_str(issue);
        }
    }
    if score < threshold {
        line.push_str(" (semantic drift)");
    }
    line
}

fn threshold(t: Option<f64>) -> Result<f64, CliError> {
    let t = t.unwrap_or(DEFAULT_THRESHOLD);
    if (0.0..=1.0).contains(&t) {
        Ok(t)
    } else {
        Err(CliError::usage(format!(
            "--threshold {t} is not between 0 and 1"
        )))
    }
}

/// A stage's failure: exit 3, or 1 when the input itself is the problem.
fn failure(e: MspError) -> CliError {
    let input_problem = e.is_empty_input();
    let status = if input_problem {
        ExitStatus::Invalid
    } else {
        ExitStatus::Transport
    };
    let hint = match e.kind {
        ErrorKind::RateLimit => Some("lower --rpm, or wait and run again"),
        _ if input_problem => Some("give the prose as an argument, @PATH, or on stdin"),
        _ => None,
    };
    let err = CliError::new(status, e);
    match hint {
        Some(h) => err.with_hint(h),
        None => err,
    }
}

/// The backend from flags (and their environment variables), then the
/// config file, then the defaults; judged by a local sentence model when a
/// model folder is configured.
fn backend(args: &BackendArgs, cfg: &MspConfig) -> Result<Box<dyn Backend>, CliError> {
    let inner = stages(args, cfg)?;
    match args
        .embedding_model_dir
        .as_ref()
        .or(cfg.embedding_model_dir.as_ref())
    {
        Some(dir) => with_model(inner, dir),
        None => Ok(inner),
    }
}

#[cfg(feature = "minilm")]
fn with_model(
    inner: Box<dyn Backend>,
    dir: &std::path::Path,
) -> Result<Box<dyn Backend>, CliError> {
    use crate::prose::embedding::{SentenceModel, WithEmbeddings};
    let model = SentenceModel::load(dir).map_err(|e| {
        CliError::usage(format!("the embedding model cannot be loaded: {e}")).with_hint(
            "give a sentence-transformers folder (config.json, model.safetensors, tokenizer.json); see docs/msp.md",
        )
    })?;
    Ok(Box::new(WithEmbeddings { inner, model }))
}

#[cfg(not(feature = "minilm"))]
fn with_model(_: Box<dyn Backend>, dir: &std::path::Path) -> Result<Box<dyn Backend>, CliError> {
    Err(CliError::usage(format!(
        "an embedding model folder is configured ({}), but this aiproto was built without the `minilm` feature",
        dir.display()
    ))
    .with_hint("build with the default features: cargo install --path . (or --features minilm)"))
}

/// The backend that encodes and decodes.
fn stages(args: &BackendArgs, cfg: &MspConfig) -> Result<Box<dyn Backend>, CliError> {
    let kind = args.backend.or(cfg.backend).unwrap_or(BackendKind::Offline);
    let (base, model, embedding, key_vars): (&str, &str, Option<&str>, &[&str]) = match kind {
        BackendKind::Offline => return Ok(Box::new(Offline)),
        BackendKind::Openai => (
            "https://api.openai.com/v1",
            "gpt-4o-mini",
            Some("text-embedding-3-small"),
            &["AIPROTO_LLM_API_KEY"],
        ),
        BackendKind::Groq => (
            "https://api.groq.com/openai/v1",
            "llama-3.3-70b-versatile",
            None,
            &["GROQ_API_KEY", "AIPROTO_LLM_API_KEY"],
        ),
    };
    let base_url = args
        .base_url
        .clone()
        .or(cfg.base_url.clone())
        .unwrap_or(base.into());
    let api_key = key_vars
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|k| !k.trim().is_empty()));
    let is_default_host = base_url == base;
    if api_key.is_none() && is_default_host {
        return Err(CliError::usage(format!(
            "no API key for {base_url}: set {}",
            key_vars.join(" or ")
        ))
        .with_hint(
            "a local OpenAI-compatible server needs no key: --base-url http://127.0.0.1:PORT/v1",
        ));
    }
    let timeout = args.timeout.or(cfg.timeout).unwrap_or(60.0);
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(CliError::usage(format!(
            "--timeout {timeout} must be a positive number of seconds"
        )));
    }
    let embedding_model = match kind {
        BackendKind::Groq => args.embedding_model.clone().or(cfg.embedding_model.clone()),
        _ => args
            .embedding_model
            .clone()
            .or(cfg.embedding_model.clone())
            .or(embedding.map(str::to_string)),
    };
    Ok(Box::new(Remote::new(RemoteConfig {
        base_url,
        model: args
            .model
            .clone()
            .or(cfg.model.clone())
            .unwrap_or(model.into()),
        embedding_model,
        api_key,
        timeout: Duration::from_secs_f64(timeout),
        retries: args.retries.or(cfg.retries).unwrap_or(3),
        backoff: Duration::from_millis(500),
        rpm: args.rpm.or(cfg.rpm).unwrap_or(30),
    })))
}

/// Prose from an argument, `@PATH`, or stdin (`-` or nothing).
fn read_text(arg: Option<&str>) -> Result<String, CliError> {
    match arg {
        None | Some("-") => read_stdin(),
        Some(a) => match a.strip_prefix('@') {
            Some(path) => read_file(path),
            None => {
                if !a.contains('\n') && std::path::Path::new(a).is_file() {
                    eprintln!(
                        "aiproto: warning: `{a}` is read as the text itself; a file of that name exists: to read the file, give @{a}"
                    );
                }
                Ok(a.to_string())
            }
        },
    }
}

fn read_two(a: &str, b: &str) -> Result<(String, String), CliError> {
    if a == "-" && b == "-" {
        return Err(CliError::usage(
            "only one of ORIGINAL and DECODED can be read from stdin",
        ));
    }
    Ok((read_text(Some(a))?, read_text(Some(b))?))
}

fn read_stdin() -> Result<String, CliError> {
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        return Err(CliError::usage("no text given")
            .with_hint("pass it as an argument, @PATH, or pipe it in"));
    }
    Ok(Input::Stdin.read()?.text)
}

/// A file's text; not UTF-8 is an error naming its line and column.
fn read_file(path: &str) -> Result<String, CliError> {
    Ok(Input::File(path.into()).read()?.text)
}

/// Reads and checks every signal of an input (an object, an array, JSON
/// Lines). Findings go to stderr; `None` means one is invalid (the spec's
/// "Invalid signal schema") and none is decoded.
fn read_signals(
    path: Option<&std::path::Path>,
    g: &GlobalArgs,
) -> Result<Option<Vec<serde_json::Value>>, CliError> {
    let (name, text) = match path {
        Some(p) if p.as_os_str() != "-" => {
            let source = Input::File(p.to_path_buf()).read()?;
            (source.name, source.text)
        }
        _ => ("<stdin>".to_string(), read_stdin()?),
    };
    if text.trim().is_empty() {
        return Err(CliError::new(
            ExitStatus::Invalid,
            anyhow::anyhow!("{name}: the input is empty"),
        ));
    }
    // The one reading path, told the input is MSP: a byte-order mark
    // dropped, a saved mail decoded, as `validate -p msp` reads it.
    let msp = ProtocolSpec {
        protocol: Protocol::Msp,
        version: None,
    };
    let doc = Document::from_source(Source { name, text }, Some(msp), &ReadOptions::default());
    let name = &doc.source.name;
    let p = Painter::new(g.color, Stream::Stderr);
    let lines = SourceLines::new(&doc.source.text);
    let mut err = std::io::stderr().lock();
    let mut signals = Vec::new();
    let mut invalid = false;
    for found in &doc.messages {
        let errors: Vec<_> = found.diagnostics.iter().filter(|d| d.is_error()).collect();
        for d in &errors {
            let shown = output::format_diagnostic(&p, name, lines.get(d.line), d, false);
            write!(err, "{shown}")?;
        }
        match &found.value {
            ReadValue::Msp(Some(signal)) if errors.is_empty() => signals.push(signal.json.clone()),
            _ => invalid = true,
        }
    }
    if invalid {
        writeln!(
            err,
            "aiproto: error: DecoderError: Invalid signal schema ({name}); nothing decoded"
        )?;
        return Ok(None);
    }
    Ok(Some(signals))
}

/// The signal as `msp encode` writes it, newline included: one compact
/// line, or indented when `pretty`.
fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}
