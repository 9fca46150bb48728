#!/usr/bin/env bash
# MSP and CSDL token figures on the shipped corpora (a benchmark, not a
# test): for every prose message in examples/msp/prose, the offline
# pipeline's compression ratio (wire-form signal / original tokens) and the
# judge's verdict, by length band, with the failures by kind; for every
# valid CSDL example, compact against expanded tokens.
#
# With AIPROTO_EMBEDDING_MODEL_DIR set to an all-MiniLM-L6-v2 folder, the
# spec's judge decides (and the encoder picks the least detailed signal it
# passes); without it, the lexical judge.
# Usage: bash benches/msp_corpus.sh [--encoding cl100k_base] [--full]
set -euo pipefail
cd "$(dirname "$0")/.."
encoding=o200k_base
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --encoding) encoding="$2"; shift ;;
        --full) extra+=(--full) ;;
    esac
    shift
done
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet
fi
bin=${BIN:-target/release/aiproto}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for f in examples/msp/prose/*.txt; do
    # The exit code is the judge's verdict; here every run is recorded.
    "$bin" msp pipeline --format json --encoding "$encoding" "${extra[@]}" "@$f" >> "$out" || [ $? -eq 1 ]
done
python3 - "$out" "$encoding" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
judge = rows[0]["judge"]["judged_by"]
print(f"MSP offline pipeline, {len(rows)} messages ({sys.argv[2]}), {judge['method']} judge"
      + (f" ({judge.get('model')})" if judge.get("model") else "") + ":")
bands = [(0, 60), (60, 200), (200, 500), (500, 10**9)]
print(f"  {'original tokens':<16} {'n':>3} {'median ratio':>12} {'max ratio':>9} {'passed':>7} {'median similarity':>17}")
for lo, hi in bands:
    b = [r for r in rows if lo <= r["metrics"]["original_tokens"] < hi]
    if not b:
        continue
    ratio = [r["metrics"]["compression_ratio"] for r in b]
    name = f"{lo}-{hi - 1}" if hi < 10**9 else f"{lo}+"
    print(f"  {name:<16} {len(b):>3} {statistics.median(ratio):>12.2f} {max(ratio):>9.2f} "
          f"{sum(r['judge']['passed'] for r in b):>3}/{len(b):<3} {statistics.median(r['judge']['similarity_score'] for r in b):>17.3f}")
# The issue's goals pool the bands: every message from 60 tokens, from 200.
for lo in (60, 200):
    b = [r for r in rows if r["metrics"]["original_tokens"] >= lo]
    if b:
        ratio = [r["metrics"]["compression_ratio"] for r in b]
        print(f"  {str(lo) + ' and more':<16} {len(b):>3} {statistics.median(ratio):>12.2f} {max(ratio):>9.2f} "
              f"{sum(r['judge']['passed'] for r in b):>3}/{len(b):<3}")
passed = sum(r["judge"]["passed"] for r in rows)
print(f"  passed at the threshold: {passed}/{len(rows)} ({100 * passed / len(rows):.0f}%)")
kinds = {}
for r in rows:
    for issue in r["judge"]["issues"]:
        kind = issue.split(":")[0].split(" (")[0]
        kinds.setdefault(kind, []).append(r["original_text"][:50].replace("\n", " "))
for kind, texts in sorted(kinds.items()):
    print(f"  failures, {kind}: {len(texts)}")
    for t in texts:
        print(f"    - {t}…")
lat = [r["metrics"]["latency_ms"] for r in rows]
print(f"  latency: median {statistics.median(lat):.1f} ms per message (encode, decode, judge)")
PY
echo "CSDL compact against expanded ($encoding):"
"$bin" tokens --compare --encoding "$encoding" examples/csdl/valid | tail -1
