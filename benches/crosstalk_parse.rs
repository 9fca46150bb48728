//! Throughput of the Crosstalk reader: find + parse + check, on one core.
//!
//! `cargo bench --bench crosstalk_parse [-- FILE]` reads FILE (e.g. the
//! `crosstalk.txt` of `../shared/bench/gen_corpus.py`) or, without one,
//! generates 10,000 envelopes in memory. Prints MB/s and envelopes/s for
//! parsing alone and for parsing with every check, best of five runs.

use std::time::{Duration, Instant};

use aiproto::protocols::crosstalk;

fn generated_corpus(count: usize) -> String {
    let mut out = String::new();
    for i in 0..count {
        let id = aiproto::ids::new_ulid();
        out.push_str(&format!(
            "[[CLAUDE→CHATGPT v1]]\nuser: kalle\nsession: 2025-10-09T16Z abc{:03}\nthread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K\nparent: 01J9J3DBC4N7P2Q3R5S7T9W1V2\nmessage: {id}\ncontext: bench\nintent: REQUEST\n\nmeta: routing\nX-Priority: high\nX-Reply-To: claude://session/abc\n\nbody: |\n  Message number {i} in the benchmark corpus.\n  It has a second line, and a third one\n  with a little more text to look like prose.\nsig: none\n[[END]]\n\n",
            i % 1000
        ));
    }
    out
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

fn report(label: &str, bytes: usize, (time, count): (Duration, usize)) {
    let secs = time.as_secs_f64();
    println!(
        "{label:<22} {count:>6} envelopes  {:>8.1} MB/s  {:>10.0} envelopes/s  ({:.2} ms)",
        bytes as f64 / secs / 1e6,
        count as f64 / secs,
        secs * 1e3
    );
}

fn main() {
    let path = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let text = match &path {
        Some(p) => std::fs::read_to_string(p).unwrap_or_else(|e| panic!("cannot read {p}: {e}")),
        None => generated_corpus(10_000),
    };
    println!(
        "corpus: {} ({:.1} MB)",
        path.as_deref().unwrap_or("generated, 10,000 envelopes"),
        text.len() as f64 / 1e6
    );
    let now = chrono::Utc::now();
    report(
        "extract + parse",
        text.len(),
        best_of(5, || crosstalk::parse_all(&text).len()),
    );
    report(
        "extract + parse + check",
        text.len(),
        best_of(5, || crosstalk::read(&text, now, usize::MAX).len()),
    );
}
