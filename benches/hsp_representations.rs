//! What a borrowed reading of HSP JSON Lines could save, measured: the
//! parse into a `serde_json::Value` against serde's parse that builds
//! nothing (the floor of any reading, borrowed or not), and the schema
//! check compiled into aiproto against jsonschema's run-time validator
//! (the one a custom representation such as a borrowed tree would use).
//!
//! `cargo bench --bench hsp_representations [-- FILE]` reads FILE (HSP 0.1
//! JSON Lines, e.g. the `corpus.jsonl` of `../shared/bench/gen_corpus.py`)
//! or, without one, the valid 0.1 examples repeated to 20,000 lines. One
//! core, best of five runs, milliseconds per 100,000 messages.

use std::time::{Duration, Instant};

use aiproto::protocols::hsp::{Version, compiled, schemas};
use serde_json::Value;

fn examples_repeated(count: usize) -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hsp/valid/0.1");
    let mut one: Vec<String> = std::fs::read_dir(dir)
        .expect("examples/hsp/valid/0.1")
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter_map(|t| serde_json::from_str::<Value>(&t).ok())
        .map(|v| v.to_string())
        .collect();
    one.sort();
    one.iter().cycle().take(count).cloned().collect()
}

fn best_of(runs: usize, mut f: impl FnMut() -> usize) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut count = 0;
    for _ in 0..runs {
        let start = Instant::now();
        count = f();
        best = best.min(start.elapsed());
    }
    (best, count)
}

/// Prints the time per 100,000 messages, and returns it.
fn report(label: &str, lines: usize, (time, count): (Duration, usize)) -> f64 {
    let per_100k = time.as_secs_f64() * 1e3 * 100_000.0 / lines as f64;
    println!("{label:<44} {per_100k:>8.1} ms per 100,000  ({count} of {lines})");
    per_100k
}

fn main() {
    let lines: Vec<String> = match std::env::args().nth(1).filter(|a| !a.starts_with('-')) {
        Some(path) => std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{path}: {e}"))
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect(),
        None => examples_repeated(20_000),
    };
    let n = lines.len();
    let values: Vec<Value> = lines
        .iter()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    report(
        "parse into serde_json::Value",
        n,
        best_of(5, || {
            lines
                .iter()
                .filter(|l| serde_json::from_str::<Value>(l).is_ok())
                .count()
        }),
    );
    report(
        "parse building nothing (IgnoredAny)",
        n,
        best_of(5, || {
            lines
                .iter()
                .filter(|l| serde_json::from_str::<serde::de::IgnoredAny>(l).is_ok())
                .count()
        }),
    );
    let built = report(
        "schema compiled into aiproto, over a Value",
        n,
        best_of(5, || {
            values
                .iter()
                .filter(|v| compiled::is_valid(Version::V0_1, v))
                .count()
        }),
    );
    let runtime = schemas::envelope_validator(Version::V0_1);
    let at_run_time = report(
        "jsonschema's run-time validator, over a Value",
        n,
        best_of(5, || values.iter().filter(|v| runtime.is_valid(v)).count()),
    );
    println!(
        "the run-time validator takes {:.2}× the compiled check's time",
        at_run_time / built
    );
}
