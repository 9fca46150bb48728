#!/usr/bin/env bash
# Whether two builds of aiproto say the same thing, byte for byte, about the
# benchmark corpus: a speed change must not change a finding. Runs
# `validate` in both output formats (JSON lines and the human report) over
# the 100,000-line JSON Lines corpus, the 2,000 files, the Crosstalk archive
# and, where ../shared has it, the conformance set; compares each pair and
# prints the first lines that differ.
# usage: bash benches/same_findings.sh OLD_BIN NEW_BIN
# Exit 0 when every pair is identical, 1 when one differs, 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
    echo "usage: bash benches/same_findings.sh OLD_BIN NEW_BIN (two aiproto executables)" >&2
    exit 2
fi
old=$1 new=$2
shared="$(cd "${AIPROTO_SHARED:-../shared}" && pwd)"
WORK="${WORK:-${TMPDIR:-/tmp}/aiproto-bench}"
[ -f "$WORK/data/corpus.jsonl" ] || python3 "$shared/bench/gen_corpus.py" --out "$WORK/data" > /dev/null
out="$WORK/same-findings"
rm -rf "$out" && mkdir -p "$out"
inputs=("$WORK/data/corpus.jsonl" "$WORK/data/files" "$WORK/data/crosstalk.txt")
[ -d "$shared/conformance" ] && inputs+=("$shared/conformance")
differ=0
for input in "${inputs[@]}"; do
    for format in json human; do
        name="$(basename "$input").$format"
        for build in old new; do
            bin=$old; [ "$build" = new ] && bin=$new
            # Findings go to stdout, the summary and notes to stderr: both
            # are compared, and the exit code with them.
            set +e
            "$bin" validate --format "$format" "$input" > "$out/$name.$build.out" 2> "$out/$name.$build.err"
            echo "exit $?" >> "$out/$name.$build.err"
            set -e
        done
        same=1
        for stream in out err; do
            if ! cmp -s "$out/$name.old.$stream" "$out/$name.new.$stream"; then
                same=0 differ=1
                echo "DIFFERENT: validate --format $format $input (std$stream)"
                diff "$out/$name.old.$stream" "$out/$name.new.$stream" | head -n 6
            fi
        done
        if [ "$same" = 1 ]; then
            echo "same: validate --format $format $(basename "$input") ($(wc -l < "$out/$name.new.out") lines)"
        fi
    done
done
exit "$differ"
