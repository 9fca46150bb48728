#!/usr/bin/env bash
# MSP and CSDL token figures on the shipped corpora (a benchmark, not a
# test): for every prose message in examples/msp/prose, the offline
# pipeline's compression ratio (signal/original tokens) and judge score;
# for every valid CSDL example, compact against expanded tokens.
# Usage: bash benches/msp_corpus.sh [--encoding cl100k_base]
set -euo pipefail
cd "$(dirname "$0")/.."
encoding=o200k_base
if [ "${1:-}" = "--encoding" ]; then encoding="$2"; fi
cargo build --release --quiet
bin=target/release/aiproto
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for f in examples/msp/prose/*.txt; do
    # The exit code is the judge's verdict; here every run is recorded.
    "$bin" msp pipeline --format json --encoding "$encoding" "@$f" >> "$out" || [ $? -eq 1 ]
done
python3 - "$out" "$encoding" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
m = [r["metrics"] for r in rows]
ratio = [x["compression_ratio"] for x in m]
score = [r["judge"]["similarity_score"] for r in rows]
orig = [x["original_tokens"] for x in m]
sig = [x["signal_tokens"] for x in m]
# The tracing fields (trace_id, timestamp, version, parent_id) are a fixed
# cost per signal; the ratio without them shows what the content costs.
lat = [x["latency_ms"] for x in m]
print(f"MSP offline pipeline, {len(rows)} messages ({sys.argv[2]}):")
print(f"  original tokens: median {statistics.median(orig):.0f} (min {min(orig)}, max {max(orig)})")
print(f"  signal tokens:   median {statistics.median(sig):.0f}")
print(f"  compression ratio (signal/original): median {statistics.median(ratio):.2f}, "
      f"below 0.5 in {sum(r < 0.5 for r in ratio)}/{len(ratio)}")
print(f"  judge score: median {statistics.median(score):.3f}, passed at 0.80: {sum(r['judge']['passed'] for r in rows)}/{len(rows)}")
print(f"  latency: median {statistics.median(lat):.2f} ms per message")
PY
echo "CSDL compact against expanded ($encoding):"
"$bin" tokens --compare --encoding "$encoding" examples/csdl/valid | tail -1
