#!/usr/bin/env bash
# The cost of the CI report formats: `validate` of the 2,000-file benchmark
# set (../shared/bench/gen_corpus.py, 10% invalid) in each --format, side by
# side in one run, as ratios to --format json, with peak memory.
# usage: bash benches/report_formats.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
shared="$(cd "${AIPROTO_SHARED:-../shared}/bench" && pwd)"
WORK="${WORK:-${TMPDIR:-/tmp}/aiproto-bench-formats}"
runs="${1:-15}"
mkdir -p "$WORK"
[ -d "$WORK/data/files" ] || python3 "$shared/gen_corpus.py" --out "$WORK/data" -n 2000 --files 2000 --crosstalk 0 > /dev/null
cargo build --release --quiet
bin="$PWD/target/release/aiproto"
cd "$WORK/data"
formats=(json human github sarif junit gitlab)
# Interleaved rounds, so a noisy machine slows every format alike.
for ((r = 0; r < runs; r++)); do
    for f in "${formats[@]}"; do
        /usr/bin/time -f "$f %e %M" -a -o "$WORK/times" "$bin" validate --format "$f" files > /dev/null 2>&1 || true
    done
done
python3 - "$WORK/times" "$runs" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("Command")]
by = {}
for f, wall, rss in rows:
    by.setdefault(f, []).append((float(wall), int(rss)))
base = statistics.median(w for w, _ in by["json"])
print(f"validate of 2,000 HSP files, {sys.argv[2]} interleaved runs each (median wall, peak RSS)")
print(f"{'format':8} {'wall s':>8} {'ratio':>7} {'peak MB':>8}")
for f, xs in by.items():
    wall = statistics.median(w for w, _ in xs)
    print(f"{f:8} {wall:8.3f} {wall / base:7.2f} {max(r for _, r in xs) / 1024:8.1f}")
PY
rm -f "$WORK/times"
