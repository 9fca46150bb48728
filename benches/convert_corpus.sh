#!/usr/bin/env bash
# aiproto convert side by side with what a user would write instead: a jq
# program that maps HSP fields onto a CSDL message (no checks, no loss
# report, no way back). On the shared corpus (../shared/bench/gen_corpus.py):
# 100,000 HSP envelopes as JSON Lines (99 MB; about 9% invalid, which
# aiproto reports and does not convert).
# Then the memory each needs: peak resident set (/usr/bin/time) for the
# 99 MB corpus, a 200 MB Crosstalk archive (the corpus's 10,000 envelopes
# 32 times over, validated and converted to HSP), and with --large a
# 1 GB JSON Lines stream (the corpus 10 times over).
# usage: bash benches/convert_corpus.sh [--quick] [--large]
set -euo pipefail
cd "$(dirname "$0")/.."
shared="$(cd "${AIPROTO_SHARED:-../shared}/bench" && pwd)"
WORK="${WORK:-${TMPDIR:-/tmp}/aiproto-bench}"
runs=3; large=false
for arg in "$@"; do
    case $arg in --quick) runs=1 ;; --large) large=true ;; esac
done
command -v hyperfine > /dev/null || { echo "hyperfine is needed (apt-get install hyperfine jq)" >&2; exit 1; }
mkdir -p "$WORK/results"
[ -f "$WORK/data/corpus.jsonl" ] || python3 "$shared/gen_corpus.py" --out "$WORK/data" > /dev/null
cargo build --release --quiet
bin=$PWD/target/release/aiproto
corpus="$WORK/data/corpus.jsonl"
jq_map='{t:"message", from:.sender_ai_id, to:.recipient_ai_id,
  intent:(if .communication_pattern=="request" then "request"
          elif .communication_pattern=="response" then "response" else "notify" end),
  v:.payload, m:{id:.message_id, parent:.correlation_id, timestamp:.timestamp_sent}}'
hyperfine --runs "$runs" --warmup 1 -i --export-json "$WORK/results/convert.json" \
    -n "aiproto convert --to csdl" "$bin convert --to csdl $corpus > /dev/null 2>&1" \
    -n "aiproto convert --to crosstalk" "$bin convert --to crosstalk $corpus > /dev/null 2>&1" \
    -n "jq field mapping" "jq -c '$jq_map' $corpus > /dev/null"
for target in csdl crosstalk; do
    /usr/bin/time -f "aiproto convert --to $target: %M KB resident" \
        "$bin" convert --to "$target" "$corpus" > /dev/null 2> "$WORK/results/convert-$target.err" || true
    tail -1 "$WORK/results/convert-$target.err"
done
/usr/bin/time -f "jq field mapping: %M KB resident" jq -c "$jq_map" "$corpus" > /dev/null

archive="$WORK/data/archive200.crosstalk"
[ -f "$archive" ] || for _ in $(seq 32); do cat "$WORK/data/crosstalk.txt"; done > "$archive"
peak() { # label, command…: wall time and peak memory of one run
    local label=$1; shift
    /usr/bin/time -f "$label: %e s, %M KB resident" "$@" > /dev/null 2> "$WORK/results/peak.err" || true
    tail -1 "$WORK/results/peak.err"
}
peak "aiproto validate, 200 MB Crosstalk archive" "$bin" validate -q "$archive"
peak "aiproto convert --to hsp, 200 MB Crosstalk archive" "$bin" convert --to hsp "$archive"
if $large; then
    big="$WORK/data/corpus-1g.jsonl"
    [ -f "$big" ] || for _ in $(seq 10); do cat "$corpus"; done > "$big"
    peak "aiproto convert --to csdl, 1 GB JSON Lines" "$bin" convert --to csdl "$big"
    peak "jq field mapping, 1 GB JSON Lines" jq -c "$jq_map" "$big"
fi
