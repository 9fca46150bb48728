#!/usr/bin/env bash
# The MiniLM judge's cost on one core (a benchmark, not a test): model load
# time, and embeddings per second for a short sentence and for a text cut at
# 256 word pieces, beside the NumPy forward pass of
# tests/interop/minilm_numpy.py in the same run.
# Usage: AIPROTO_EMBEDDING_MODEL_DIR=DIR bash benches/msp_judge_speed.sh
set -euo pipefail
cd "$(dirname "$0")/.."
model=${AIPROTO_EMBEDDING_MODEL_DIR:?set AIPROTO_EMBEDDING_MODEL_DIR to an all-MiniLM-L6-v2 folder}
cargo build --release --quiet
bin=$PWD/target/release/aiproto
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
short="Deploy the API to production now"
python3 -c 'print(" ".join(["The deployment pipeline failed again on the staging cluster."] * 40))' > "$work/long.txt"
# A second long text: the judge embeds two different texts (it remembers,
# and does not embed again, a text it has just embedded).
python3 -c 'print(" ".join(["The release pipeline failed once more on the staging cluster."] * 40))' > "$work/long2.txt"
python3 -c 'import json,sys; print(json.dumps([sys.argv[1]]))' "$short" > "$work/short.json"
python3 -c 'import json; print(json.dumps([open("'"$work"'/long.txt").read()]))' > "$work/long.json"
# One core, and one worker thread (candle otherwise starts one per CPU).
one="env RAYON_NUM_THREADS=1 taskset -c 0"
hyperfine -i --warmup 2 --runs 10 --export-json "$work/h.json" \
    -n load+2-short "$one $bin msp judge --embedding-model-dir $model '$short' 'Deploy the API to production today'" \
    -n load+2-long "$one $bin msp judge --embedding-model-dir $model @$work/long.txt @$work/long2.txt" \
    -n numpy-load+1-short "$one python3 tests/interop/minilm_numpy.py $model < $work/short.json" \
    -n numpy-load+1-long "$one python3 tests/interop/minilm_numpy.py $model < $work/long.json" > /dev/null
python3 - "$work/h.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
print("MiniLM judge, one core (mean of 10 runs):")
for name, secs in r.items():
    print(f"  {name:<20} {secs * 1000:8.1f} ms")
# judge embeds twice; a judge on the same short pair is close to the load time.
long_each = (r["load+2-long"] - r["load+2-short"]) / 2
print(f"  aiproto: load ≈ {r['load+2-short'] * 1000:.0f} ms; a 256-piece text ≈ {long_each * 1000:.0f} ms more "
      f"(≈ {1 / long_each:.0f} long embeddings/s)" if long_each > 0 else "")
np_long = r["numpy-load+1-long"] - r["numpy-load+1-short"]
if np_long > 0 and long_each > 0:
    print(f"  NumPy reference: a 256-piece text ≈ {np_long * 1000:.0f} ms more ({np_long / long_each:.1f}× aiproto)")
PY
