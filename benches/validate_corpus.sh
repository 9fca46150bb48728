#!/usr/bin/env bash
# End-to-end speed of `aiproto validate` on the shared benchmark corpus:
# the 10,000-envelope Crosstalk file, and one small file (start-up included).
# Needs python3 and ../shared/bench; uses hyperfine when it is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${AIPROTO_SHARED:-../shared}/bench"
data="${TMPDIR:-/tmp}/aiproto-bench"
python3 "$shared/gen_corpus.py" --out "$data" -n 1000 --files 10 --crosstalk 10000 > /dev/null
cargo build --release --quiet
bin=target/release/aiproto
corpus="$data/crosstalk.txt"
small=examples/crosstalk/valid/v1_1-request-routing.crosstalk
bytes=$(wc -c < "$corpus")

echo "corpus: $corpus ($bytes bytes, 10,000 envelopes)"
cargo bench --quiet --bench crosstalk_parse -- "$corpus"
if command -v hyperfine > /dev/null; then
    hyperfine --warmup 3 -N -i "$bin validate -q $corpus" "$bin validate -q --format json $corpus" "$bin validate -q $small"
else
    for cmd in "$bin validate -q $corpus" "$bin validate -q $small"; do
        start=$(date +%s%N)
        for _ in 1 2 3 4 5 6 7 8 9 10; do $cmd > /dev/null 2>&1 || true; done
        end=$(date +%s%N)
        echo "$cmd: $(( (end - start) / 10000000 )) ms per run (mean of 10)"
    done
fi
