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
# Interleaved rounds, so a noisy machine slows every format alike; wall
# time by the driver's clock, peak memory by /usr/bin/time.
python3 - "$bin" "$runs" <<'PY'
import statistics, subprocess, sys, time
binary, runs = sys.argv[1], int(sys.argv[2])
formats = ["json", "human", "github", "sarif", "junit", "gitlab"]
walls = {f: [] for f in formats}
peaks = {f: 0 for f in formats}
for _ in range(runs):
    for f in formats:
        start = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-f", "%M", binary, "validate", "--format", f, "files"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        walls[f].append(time.perf_counter() - start)
        peaks[f] = max(peaks[f], int(done.stderr.strip().splitlines()[-1]))
base = statistics.median(walls["json"])
print(f"validate of 2,000 HSP files, {runs} interleaved runs each (median wall, peak RSS)")
print(f"{'format':8} {'wall ms':>8} {'ratio':>7} {'peak MB':>8}")
for f in formats:
    wall = statistics.median(walls[f])
    print(f"{f:8} {wall * 1000:8.1f} {wall / base:7.3f} {peaks[f] / 1024:8.1f}")
PY
