#!/usr/bin/env bash
# Peak memory (resident set, /usr/bin/time -v) and wall time of every
# command that reads many messages, on the shared corpus's 100,000 HSP
# envelopes (99 MB) and, with --large, the same ten times over (1 GB).
# usage: bash benches/memory.sh [--large]
set -euo pipefail
cd "$(dirname "$0")/.."
shared="$(cd "${AIPROTO_SHARED:-../shared}/bench" && pwd)"
WORK="${WORK:-${TMPDIR:-/tmp}/aiproto-bench}"
[ -f "$WORK/data/corpus.jsonl" ] || python3 "$shared/gen_corpus.py" --out "$WORK/data" > /dev/null
cargo build --release --quiet
bin=$PWD/target/release/aiproto
export AIPROTO_HOME="$WORK/home-memory"
rm -rf "$AIPROTO_HOME" && "$bin" keygen -q --id bench > /dev/null
inputs=("$WORK/data/corpus.jsonl")
if [ "${1:-}" = --large ]; then
    big="$WORK/data/corpus-1g.jsonl"
    [ -f "$big" ] || for _ in $(seq 10); do cat "$WORK/data/corpus.jsonl"; done > "$big"
    inputs+=("$big")
fi
echo "| command | input | wall | peak memory |"
echo "|---|---|---|---|"
for input in "${inputs[@]}"; do
    box="$WORK/memory-box.jsonl"; rm -f "$box"
    for cmd in \
        "validate -q" "convert --to csdl" "convert --to crosstalk" "inspect -q" "verify -q" \
        "tokens -q" "thread -q" "poll collate" "send -q --force --via -" \
        "send -q --force --via file:$box"; do
        label=${cmd%% -q*}; label=${label%% --via file:*}
        # shellcheck disable=SC2086
        /usr/bin/time -f "%e %M" "$bin" $cmd "$input" > /dev/null 2> "$WORK/memory.err" || true
        read -r wall kb < <(tail -1 "$WORK/memory.err")
        printf '| %s | %s | %s s | %d MB |\n' "$label" "$(basename "$input")" "$wall" $((kb / 1024))
    done
    /usr/bin/time -f "%e %M" sh -c "'$bin' relay -q --from - --to - < '$input'" > /dev/null 2> "$WORK/memory.err" || true
    read -r wall kb < <(tail -1 "$WORK/memory.err")
    printf '| relay (stdin) | %s | %s s | %d MB |\n' "$(basename "$input")" "$wall" $((kb / 1024))
done
