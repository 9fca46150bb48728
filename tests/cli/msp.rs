//! `aiproto msp` with the offline backend, MSP validation, and `tokens`.

use predicates::str::contains;
use serde_json::Value;

use super::{aiproto, home, json_lines, repo};

fn stdout_json(out: &[u8]) -> Value {
    serde_json::from_slice(out).expect("stdout is one JSON value")
}

#[test]
fn encode_prints_a_valid_signal() {
    let dir = home();
    let out = aiproto(dir.path())
        .args(["msp", "encode", "--format", "json"])
        .write_stdin("Please review the deployment checklist for the payments API by Friday. This is urgent.")
        .assert()
        // Two short sentences: the signal has more tokens (said, exit 1).
        .code(1)
        .get_output()
        .stdout
        .clone();
    let signal = stdout_json(&out);
    assert_eq!(signal["intent"], "EVALUATE");
    assert_eq!(signal["target"], "deployment checklist");
    assert_eq!(signal["params"]["deadline"], "Friday");
    assert_eq!(signal["priority"], "high");
    // What encode writes, validate accepts.
    let file = dir.path().join("signal.json");
    std::fs::write(&file, &out).unwrap();
    aiproto(dir.path())
        .arg("validate")
        .arg(&file)
        .assert()
        .success();
}

#[test]
fn empty_prose_is_refused_as_the_spec_says() {
    let dir = home();
    aiproto(dir.path())
        .args(["msp", "encode", "   "])
        .assert()
        .code(1)
        .stderr(contains("EncoderError: Input cannot be empty"));
}

#[test]
fn decode_names_intent_and_target_and_refuses_invalid_signals() {
    let dir = home();
    aiproto(dir.path())
        .args(["msp", "decode"])
        .arg(repo("examples/msp/valid/full.json"))
        .assert()
        .success()
        .stdout(contains("Please analyze Q3 churn in the EU region."))
        .stdout(contains("Priority: high."));
    aiproto(dir.path())
        .args(["msp", "decode"])
        .arg(repo("examples/msp/invalid/extra_field.json"))
        .assert()
        .code(1)
        .stderr(contains("error[MSP-UNKNOWN-FIELD]"))
        .stderr(contains("DecoderError: Invalid signal schema"));
    aiproto(dir.path())
        .args(["msp", "decode", "-"])
        .write_stdin("{\"intent\": \"QUERY\", \"target\": ")
        .assert()
        .code(1)
        .stderr(contains("<stdin>:1:"))
        .stderr(contains("error[MSP-JSON]"));
}

#[test]
fn judge_exit_code_is_the_verdict() {
    let dir = home();
    aiproto(dir.path())
        .args(["msp", "judge", "deploy the api now", "deploy the api now"])
        .assert()
        .success()
        .stdout(contains("passed: similarity 1.000"));
    let out = aiproto(dir.path())
        .args([
            "msp",
            "judge",
            "--format",
            "json",
            "deploy the api",
            "bake a cake",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let judge = stdout_json(&out);
    assert_eq!(judge["passed"], false);
    assert!(
        judge["issues"][0]
            .as_str()
            .unwrap()
            .starts_with("Semantic drift detected")
    );
    aiproto(dir.path())
        .args(["msp", "judge", "--threshold", "1.5", "a", "b"])
        .assert()
        .code(2);
}

#[test]
fn pipeline_json_has_the_spec_field_names() {
    let dir = home();
    let text = "Translate the onboarding guide into French before the Paris office opens on Monday. \
                Keep the product names in English. Only translate the first three chapters.";
    let out = aiproto(dir.path())
        .args([
            "msp",
            "pipeline",
            "--format",
            "json",
            "--threshold",
            "0.1",
            text,
        ])
        .assert()
        // Judged a pass, but the signal does not compress: exit 1.
        .code(1)
        .get_output()
        .stdout
        .clone();
    let r = stdout_json(&out);
    for key in [
        "original_text",
        "signal",
        "decoded_text",
        "judge",
        "metrics",
        "trace_id",
        "timestamp",
    ] {
        assert!(r.get(key).is_some(), "no {key} in {r}");
    }
    let m = &r["metrics"];
    let ratio = m["signal_tokens"].as_f64().unwrap() / m["original_tokens"].as_f64().unwrap();
    assert!((m["compression_ratio"].as_f64().unwrap() - ratio).abs() < 1e-12);
    assert_eq!(r["trace_id"], r["signal"]["trace_id"]);
    assert_eq!(r["signal"]["intent"], "TRANSFORM");
    assert_eq!(r["signal"]["params"]["language"], "French");
}

#[test]
fn msp_2_signals_are_recognised_by_version() {
    let dir = home();
    let out = aiproto(dir.path())
        .args(["validate", "--format", "json"])
        .arg(repo("examples/msp/valid/version_2.json"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows = json_lines(&out);
    assert_eq!(rows[0]["protocol"], "msp");
    assert_eq!(rows[0]["version"], "2.0");
    let file = dir.path().join("v2.json");
    std::fs::write(
        &file,
        r#"{"version": "2.0", "intent": "REPORT", "target": "x", "params": {}}"#,
    )
    .unwrap();
    aiproto(dir.path())
        .arg("validate")
        .arg(&file)
        .assert()
        .code(1)
        .stdout(contains("`params` is not a field of an MSP 2.0 signal"));
}

#[test]
fn tokens_counts_inputs_and_compares_forms() {
    let dir = home();
    let out = aiproto(dir.path())
        .args(["tokens", "--format", "json", "-"])
        .write_stdin("hello world")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        json_lines(&out)[0],
        serde_json::json!({"source": "<stdin>", "encoding": "o200k_base", "tokens": 2})
    );
    let out = aiproto(dir.path())
        .args([
            "tokens",
            "--compare",
            "--format",
            "json",
            "--encoding",
            "cl100k_base",
        ])
        .arg(repo(
            "examples/csdl/valid/function_search_knowledge_base.json",
        ))
        .arg(repo("examples/msp/valid/full.json"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows = json_lines(&out);
    assert_eq!(rows[0]["protocol"], "csdl");
    assert_eq!(rows[0]["forms"][0]["form"], "compact");
    assert_eq!(rows[1]["protocol"], "msp");
    assert_eq!(rows[1]["forms"][1]["form"], "prose");
    assert!(rows.iter().all(|r| r["encoding"] == "cl100k_base"));
    aiproto(dir.path())
        .args(["tokens", "--encoding", "gpt2", "-"])
        .write_stdin("x")
        .assert()
        .code(2)
        .stderr(contains("unknown encoding"));
}

/// A sentence and its negation are close in any similarity measure; the
/// judge fails them whatever the score, and says why.
#[test]
fn the_judge_fails_a_changed_polarity_intent_or_added_fact_whatever_the_similarity() {
    let h = home();
    let out = aiproto(h.path())
        .args(["msp", "judge", "--format", "json", "--threshold", "0.1"])
        .args([
            "Deploy the API to production now",
            "Do not deploy the API to production",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let verdict: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(verdict["passed"], false);
    let issues = verdict["issues"].to_string();
    assert!(issues.contains("Polarity changed"), "{issues}");
    assert_eq!(verdict["judged_by"]["method"], "lexical");

    let out = aiproto(h.path())
        .args(["msp", "judge", "--threshold", "0.1"])
        .args(["Review the design doc", "Report on the design doc"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(
        line.contains("Intent changed: the original reads as EVALUATE"),
        "{line}"
    );

    // A decoding that says more than the original: a deadline and a table
    // it never named.
    let out = aiproto(h.path())
        .args(["msp", "judge", "--threshold", "0.1"])
        .args([
            "Deploy the billing API at 14:00.",
            "Deploy the billing API at 14:00, then drop orders_v2 at 16:00.",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(
        line.contains("Fact added: the time `16:00` is not in the original")
            && line.contains("Fact added: the name `orders_v2`"),
        "{line}"
    );
}

#[test]
fn an_argument_that_names_a_file_is_prose_with_a_warning() {
    let h = home();
    std::fs::write(
        h.path().join("notes.txt"),
        "Review the design doc by Friday\n",
    )
    .unwrap();
    let out = aiproto(h.path())
        .current_dir(h.path())
        .args(["msp", "encode", "notes.txt"])
        .output()
        .unwrap();
    assert!(
        out.status.code() == Some(1) && !out.stdout.is_empty(),
        "{out:?}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("give @notes.txt"));
}

/// A pipeline record names its prose: the signal is compared with it, not
/// with what the decoder makes of the signal.
#[test]
fn tokens_compare_a_pipeline_record_with_its_original_prose() {
    let h = home();
    let out = aiproto(h.path())
        .args(["msp", "pipeline", "--format", "json"])
        .arg("Review the design doc and report back by Friday with the risks you see")
        .output()
        .unwrap();
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let path = h.path().join("record.json");
    std::fs::write(&path, &out.stdout).unwrap();
    let compared = aiproto(h.path())
        .args([
            "tokens",
            "--compare",
            "--format",
            "json",
            path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(compared.status.code(), Some(0));
    let line: serde_json::Value = serde_json::from_slice(&compared.stdout).unwrap();
    assert_eq!(line["forms"][0]["form"], "signal");
    assert_eq!(
        line["forms"][0]["tokens"],
        record["metrics"]["signal_tokens"]
    );
    assert_eq!(line["forms"][1]["form"], "original");
    assert_eq!(
        line["forms"][1]["tokens"],
        record["metrics"]["original_tokens"]
    );
}

/// The all-MiniLM-L6-v2 folder of `AIPROTO_TEST_MINILM_DIR` (see
/// `prose::embedding`'s tests); `None` skips, saying why.
fn minilm_dir() -> Option<String> {
    let dir = std::env::var("AIPROTO_TEST_MINILM_DIR").ok();
    if dir.is_none() {
        assert!(
            std::env::var_os("AIPROTO_REQUIRE_MINILM").is_none(),
            "AIPROTO_REQUIRE_MINILM is set but AIPROTO_TEST_MINILM_DIR is not"
        );
        eprintln!("skipped: set AIPROTO_TEST_MINILM_DIR to an all-MiniLM-L6-v2 folder");
    }
    dir
}

#[test]
fn the_minilm_judge_says_it_decided_and_still_fails_a_negation() {
    let Some(model) = minilm_dir() else { return };
    let h = home();
    // MiniLM scores the negation above the threshold; the polarity check fails it.
    let out = aiproto(h.path())
        .args([
            "msp",
            "judge",
            "--format",
            "json",
            "--embedding-model-dir",
            &model,
        ])
        .args([
            "Deploy the API to production now",
            "Do not deploy the API to production",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let verdict = stdout_json(&out.stdout);
    let score = verdict["similarity_score"].as_f64().unwrap();
    assert!((0.80..0.90).contains(&score), "{verdict}");
    assert_eq!(verdict["judged_by"]["method"], "embeddings");
    assert_eq!(verdict["judged_by"]["location"], model.as_str());
    assert!(verdict["issues"].to_string().contains("Polarity changed"));

    // The same model from config.toml, and from the environment.
    std::fs::write(
        h.path().join("config.toml"),
        format!("[msp]\nembedding_model_dir = {model:?}\n"),
    )
    .unwrap();
    let judge = |cmd: &mut assert_cmd::Command| {
        let out = cmd
            .args(["msp", "judge", "--format", "json"])
            .args(["The weather is lovely today.", "It's so sunny outside!"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "0.666 is below 0.80");
        stdout_json(&out.stdout)["similarity_score"]
            .as_f64()
            .unwrap()
    };
    // The sentence-transformers documentation's figure for this pair.
    assert!((judge(&mut aiproto(h.path())) - 0.6660).abs() < 1e-4);
    let other = home();
    let from_env = judge(aiproto(other.path()).env("AIPROTO_EMBEDDING_MODEL_DIR", &model));
    assert!((from_env - 0.6660).abs() < 1e-4);

    let out = aiproto(h.path())
        .args(["msp", "judge"])
        .args(["The weather is lovely today.", "It's so sunny outside!"])
        .output()
        .unwrap();
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(line.contains("embeddings judge"), "{line}");
}

#[test]
fn a_model_folder_that_is_not_one_is_a_usage_error_naming_it() {
    let h = home();
    let out = aiproto(h.path())
        .args(["msp", "judge", "--embedding-model-dir"])
        .arg(h.path().join("no-such-model"))
        .args(["a", "b"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no-such-model") && err.contains("not a directory"),
        "{err}"
    );

    std::fs::create_dir(h.path().join("empty")).unwrap();
    let out = aiproto(h.path())
        .args(["msp", "pipeline", "--embedding-model-dir"])
        .arg(h.path().join("empty"))
        .arg("Review the design doc by Friday")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("config.json"), "{err}");
}

/// A signal whose decoding the judge fails is never written as if it
/// passed: "The deploy failed." decodes to "Report on deploy. Failed.",
/// which the judge scores below 0.80; `encode` says so and exits 1, and
/// `--if-smaller` writes nothing.
#[test]
fn a_signal_the_judge_fails_is_said_and_not_written_as_if_it_passed() {
    let h = home();
    aiproto(h.path())
        .args(["msp", "encode", "--if-smaller", "The deploy failed."])
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains(
            "no signal of this prose has a decoding the judge passes",
        ));
    aiproto(h.path())
        .args(["msp", "encode", "The deploy failed."])
        .assert()
        .code(1)
        .stderr(contains("it loses meaning"));
}

/// A signal that does not compress is said, and exits 1; `--if-smaller`
/// writes nothing then, and writes a signal only when it has fewer tokens
/// than the prose (counted here with the same tokenizer).
#[test]
fn a_signal_larger_than_its_prose_is_said_and_if_smaller_writes_only_smaller() {
    let h = home();
    let short = "Is the build green?";
    aiproto(h.path())
        .args(["msp", "encode", "--if-smaller", short])
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("does not compress, nothing written"));
    aiproto(h.path())
        .args(["msp", "encode", short])
        .assert()
        .code(1)
        .stdout(contains("\"intent\""))
        .stderr(contains("sending the prose costs fewer tokens"));
    let out = aiproto(h.path())
        .args(["msp", "pipeline", "--format", "json", short])
        .assert()
        .code(1);
    let result = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(result["metrics"]["compresses"], false);
    let long = repo("examples/msp/prose/53_long_incident_report.txt");
    let out = aiproto(h.path())
        .args(["msp", "encode", "--if-smaller"])
        .arg(format!("@{}", long.display()))
        .assert()
        .code(0);
    let signal = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let prose = std::fs::read_to_string(&long).unwrap();
    let count = |text: &str| {
        let out = aiproto(h.path())
            .args([
                "tokens",
                "--encoding",
                "o200k_base",
                "--format",
                "json",
                "-",
            ])
            .write_stdin(text.to_string())
            .assert()
            .code(0);
        json_lines(&out.get_output().stdout)[0]["tokens"]
            .as_u64()
            .unwrap()
    };
    let compact: serde_json::Value = serde_json::from_str(&signal).unwrap();
    assert!(count(&compact.to_string()) < count(&prose), "{signal}");
}

/// `judge --pairs`: a verdict a line in the file's order, each naming its
/// line; exit 1 when one fails; a file with nothing to judge, or a line
/// that is not a pair, judges nothing and says where.
#[test]
fn judge_pairs_gives_a_verdict_a_line_and_never_passes_on_nothing() {
    let h = home();
    let pairs = h.path().join("pairs.jsonl");
    std::fs::write(
        &pairs,
        concat!(
            "{\"original\": \"deploy the api now\", \"decoded\": \"deploy the api now\"}\n",
            "\n",
            "{\"id\": \"b\", \"original\": \"Deploy at 14:00\", \"decoded\": \"Deploy at 16:00\"}\n",
            "{\"original\": \"review the budget\", \"decoded\": \"review the budget\"}\n",
        ),
    )
    .unwrap();
    let out = aiproto(h.path())
        .args(["msp", "judge", "--format", "json", "--pairs"])
        .arg(&pairs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "the changed time fails");
    let verdicts = json_lines(&out.stdout);
    let lines: Vec<_> = verdicts
        .iter()
        .map(|v| v["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [1, 3, 4]);
    let passed: Vec<_> = verdicts.iter().map(|v| v["passed"] == true).collect();
    assert_eq!(passed, [true, false, true]);
    assert!(
        verdicts[1]["issues"].to_string().contains("14:00"),
        "{}",
        verdicts[1]
    );
    assert!(
        verdicts
            .iter()
            .all(|v| v["source"].as_str().unwrap().ends_with("pairs.jsonl"))
    );
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(
        summary.contains("judged 3 pair(s)") && summary.contains("2 passed, 1 failed"),
        "{summary}"
    );

    // The same judgement as one pair at a time.
    let alone = aiproto(h.path())
        .args([
            "msp",
            "judge",
            "--format",
            "json",
            "Deploy at 14:00",
            "Deploy at 16:00",
        ])
        .output()
        .unwrap();
    let alone = stdout_json(&alone.stdout);
    assert_eq!(alone["similarity_score"], verdicts[1]["similarity_score"]);
    assert_eq!(alone["issues"], verdicts[1]["issues"]);

    // Human lines name the file and the line; all passing exits 0.
    aiproto(h.path())
        .args(["msp", "judge", "--pairs", "-"])
        .write_stdin("{\"original\": \"a b c\", \"decoded\": \"a b c\"}\n")
        .assert()
        .code(0)
        .stdout(contains("<stdin>:1: passed: similarity 1.000"));

    // Nothing to judge is not a pass.
    aiproto(h.path())
        .args(["msp", "judge", "--pairs", "-"])
        .write_stdin("\n  \n")
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("<stdin>: no pair to judge"));

    // A line that is not a pair: named with its column, nothing judged.
    aiproto(h.path())
        .args(["msp", "judge", "--pairs", "-"])
        .write_stdin(
            "{\"original\": \"a\", \"decoded\": \"a\"}\n{\"original\": \"a\", \"decoded\": 5}\n",
        )
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains(
            "<stdin>:2:30: invalid type: integer `5`, expected a string",
        ))
        .stderr(contains("nothing judged"));

    // The texts and --pairs do not mix.
    aiproto(h.path())
        .args(["msp", "judge", "a", "b", "--pairs"])
        .arg(&pairs)
        .assert()
        .code(2);
}

/// `judge --pairs` with MiniLM: the batched, shared-out embeddings give
/// each pair the similarity it gets judged alone, whichever batch its
/// texts fall in and however often a text repeats.
#[test]
fn judge_pairs_with_minilm_matches_each_pair_judged_alone() {
    let Some(model) = minilm_dir() else { return };
    let h = home();
    let long = "The deployment pipeline failed again on the staging cluster. ".repeat(40);
    let texts = [
        (
            "Deploy the API to production now",
            "Do not deploy the API to production",
        ),
        ("The weather is lovely today.", "It's so sunny outside!"),
        (long.as_str(), "The pipeline failed on staging."),
        ("Deploy the API to production now", "Ship the API to prod"),
        ("", "Something"),
    ];
    let mut file = String::new();
    for (original, decoded) in texts.iter().cycle().take(40) {
        file.push_str(&serde_json::json!({"original": original, "decoded": decoded}).to_string());
        file.push('\n');
    }
    // Forty more texts of other lengths: the five pairs above are spread
    // over several batches of the run, computed on both cores.
    let words = "review the budget before the release of the staging cluster";
    for i in 0..20 {
        let text = |n: usize| {
            words
                .split(' ')
                .cycle()
                .skip(i)
                .take(n)
                .collect::<Vec<_>>()
                .join(" ")
        };
        let pair = serde_json::json!({"original": text(3 + i * 7), "decoded": text(5 + i * 3)});
        file.push_str(&pair.to_string());
        file.push('\n');
    }
    let out = aiproto(h.path())
        .args([
            "msp",
            "judge",
            "--format",
            "json",
            "--embedding-model-dir",
            &model,
            "--pairs",
            "-",
        ])
        .write_stdin(file)
        .output()
        .unwrap();
    let verdicts = json_lines(&out.stdout);
    assert_eq!(
        verdicts.len(),
        60,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (i, (original, decoded)) in texts.iter().enumerate() {
        let alone = aiproto(h.path())
            .args([
                "msp",
                "judge",
                "--format",
                "json",
                "--embedding-model-dir",
                &model,
            ])
            .args([original, decoded])
            .output()
            .unwrap();
        let alone = stdout_json(&alone.stdout)["similarity_score"]
            .as_f64()
            .unwrap();
        for verdict in verdicts[..40].iter().skip(i).step_by(texts.len()) {
            let batched = verdict["similarity_score"].as_f64().unwrap();
            assert!(
                (batched - alone).abs() < 1e-5,
                "pair {i}: {batched} against {alone}"
            );
        }
    }
}

/// A variable set but empty (`AIPROTO_EMBEDDING_MODEL_DIR=` in a CI file)
/// is unset, as most tools read one: the judge in use is the next in line
/// (here the lexical one), not a usage error. A flag given an empty value
/// on the command line is still one.
#[test]
fn an_empty_environment_variable_counts_as_unset() {
    let h = home();
    let text = "Deploy the billing API to production on Friday.";
    let out = aiproto(h.path())
        .env("AIPROTO_EMBEDDING_MODEL_DIR", "")
        .env("AIPROTO_LLM_BACKEND", "")
        .args(["msp", "judge", text, text])
        .output()
        .unwrap();
    let line = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{line}");
    assert!(line.contains("lexical judge"), "{line}");
    let out = aiproto(h.path())
        .args(["msp", "judge", "--embedding-model-dir=", text, text])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The tokens of what aiproto writes, counted by `aiproto tokens`.
fn tokens(h: &std::path::Path, text: &[u8]) -> u64 {
    let out = aiproto(h)
        .args(["tokens", "--format", "json", "-"])
        .write_stdin(text.to_vec())
        .assert()
        .success();
    json_lines(&out.get_output().stdout)[0]["tokens"]
        .as_u64()
        .unwrap()
}

/// `--if-smaller` keeps its promise for the bytes written: piped, the
/// signal is one compact line; asked pretty, it is counted pretty — on
/// the repository's two reports whose compact signal is smaller than the
/// prose and whose indented one is larger (they once went out indented,
/// larger than the prose, with exit 0).
#[test]
fn if_smaller_counts_the_bytes_it_writes() {
    let h = home();
    for name in ["54_long_task_brief.txt", "72_report_cost_spike.txt"] {
        let prose = std::fs::read(repo(&format!("examples/msp/prose/{name}"))).unwrap();
        let prose_tokens = tokens(h.path(), &prose);
        let out = aiproto(h.path())
            .args(["msp", "encode", "--if-smaller", "-"])
            .write_stdin(prose.clone())
            .assert()
            .success();
        let written = out.get_output().stdout.clone();
        assert_eq!(
            written.iter().filter(|b| **b == b'\n').count(),
            1,
            "{name}: one line"
        );
        assert!(tokens(h.path(), &written) < prose_tokens, "{name}");
        // Pretty, the same signal no longer saves tokens: nothing written, exit 1.
        let out = aiproto(h.path())
            .args(["msp", "encode", "--if-smaller", "--pretty", "-"])
            .write_stdin(prose.clone())
            .assert()
            .code(1);
        assert!(out.get_output().stdout.is_empty(), "{name}");
        assert!(
            String::from_utf8_lossy(&out.get_output().stderr).contains("does not compress"),
            "{name}"
        );
    }
}

/// A text with no cue word is read from its meaning when a model is
/// given, and the judge reads the original the same way: the round trip of
/// a hand-off that says "hand … over" passes as DELEGATE, where the cues
/// alone call it a REPORT.
#[test]
fn a_text_without_a_cue_word_is_read_from_its_meaning_with_the_model() {
    let Some(dir) = minilm_dir() else { return };
    let h = home();
    let text = "Hand the invoice reconciliation over to the finance agent.";
    let intent = |model: bool| {
        let mut cmd = aiproto(h.path());
        cmd.args(["msp", "pipeline", "--format", "json", text]);
        if model {
            cmd.args(["--embedding-model-dir", &dir]);
        }
        let out = cmd.output().unwrap();
        let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(record["judge"]["passed"], true, "{record}");
        record["signal"]["intent"].as_str().unwrap().to_string()
    };
    assert_eq!(intent(false), "REPORT");
    assert_eq!(intent(true), "DELEGATE");
}
