#!/usr/bin/env bash
# The MiniLM judge's cost on one core (a benchmark, not a test): model load
# time, and embeddings per second for a short sentence and for a text cut at
# 256 word pieces, beside the NumPy forward pass of
# tests/interop/minilm_numpy.py and ONNX Runtime (benches/minilm_onnx.py, the
# way users deploy MiniLM) in the same run; and the similarities of both
# judges on the same pairs, which must agree to 1e-4.
# Usage: AIPROTO_EMBEDDING_MODEL_DIR=DIR bash benches/msp_judge_speed.sh [--install]
#   --install  pip installs onnxruntime, onnx, tokenizers and numpy into $WORK/ort-venv
set -euo pipefail
cd "$(dirname "$0")/.."
model=${AIPROTO_EMBEDDING_MODEL_DIR:?set AIPROTO_EMBEDDING_MODEL_DIR to an all-MiniLM-L6-v2 folder}
WORK="${WORK:-${TMPDIR:-/tmp}/aiproto-bench}"
venv="$WORK/ort-venv"
if [ "${1:-}" = --install ]; then
    python3 -m venv "$venv" && "$venv/bin/pip" install -q onnxruntime onnx tokenizers numpy
fi
ort=()
[ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import onnxruntime, onnx, tokenizers' 2> /dev/null \
    && ort=("$venv/bin/python" "$PWD/benches/minilm_onnx.py" "$model" --onnx "$WORK/all-MiniLM-L6-v2.onnx")
rm -f "$WORK/all-MiniLM-L6-v2.onnx"
[ ${#ort[@]} -eq 0 ] || "${ort[@]}" --judge a b > /dev/null  # writes the graph, once
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
    -n numpy-load+1-long "$one python3 tests/interop/minilm_numpy.py $model < $work/long.json" \
    ${ort:+-n ort-load+2-short "$one ${ort[*]} --judge '$short' 'Deploy the API to production today'"} \
    ${ort:+-n ort-load+2-long "$one ${ort[*]} --judge @$work/long.txt @$work/long2.txt"} > /dev/null
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
if "ort-load+2-long" in r:
    ort_each = (r["ort-load+2-long"] - r["ort-load+2-short"]) / 2
    print(f"  ONNX Runtime: load ≈ {r['ort-load+2-short'] * 1000:.0f} ms ({r['load+2-short'] / r['ort-load+2-short']:.2f}× for aiproto's "
          f"whole judge of a short pair); a 256-piece text ≈ {ort_each * 1000:.0f} ms more "
          f"(aiproto/ONNX Runtime per long text: {long_each / ort_each:.2f}×)")
PY
[ ${#ort[@]} -gt 0 ] || { echo "ONNX Runtime: not installed (run with --install)"; exit 0; }

# Throughput on both cores, 128 texts of 8 to 120 words: ONNX Runtime in
# batches of 16 and 32, longest first (as sentence-transformers orders a
# list), timed around its runs only; aiproto's `msp judge --pairs` over the
# same 128 texts as 64 pairs, one process, its load time (a judge of one
# short pair) taken off.
python3 -c 'import random; random.seed(7); w="deploy pipeline cluster staging failed release API region churn report review budget owner deadline".split(); [print(" ".join(random.choice(w) for _ in range(random.randint(8, 120)))) for _ in range(128)]' > "$work/texts.txt"
python3 -c '
import json, sys
t = open(sys.argv[1]).read().split("\n")[:128]
for i in range(0, 128, 2): print(json.dumps({"original": t[i], "decoded": t[i + 1]}))' "$work/texts.txt" > "$work/pairs.jsonl"
for batch in 16 32; do
    echo -n "ONNX Runtime, 2 threads, batches of $batch: "; "${ort[@]}" --threads 2 --throughput "$work/texts.txt" --batch $batch
done
hyperfine -i --warmup 1 --runs 5 --export-json "$work/p.json" \
    -n load "$bin msp judge -q --embedding-model-dir $model 'Deploy the API' 'Deploy the API now'" \
    -n pairs "$bin msp judge -q --embedding-model-dir $model --pairs $work/pairs.jsonl" > /dev/null
python3 - "$work/p.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
whole, load = r["pairs"]["mean"], r["load"]["mean"]
print(f"aiproto msp judge --pairs, 2 cores: 128 texts in {whole:.3f} s, the process whole "
      f"({128 / whole:.1f} texts/s); {whole - load:.3f} s without its load: {128 / (whole - load):.1f} texts/s")
PY

# The same pairs through both judges: similarities equal to 1e-4.
"${ort[0]}" tests/interop/judge_onnx.py "$bin" "$model"
