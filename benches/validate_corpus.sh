#!/usr/bin/env bash
# aiproto validate side by side with the tools a user would pick instead, in
# one run, on the shared benchmark corpus (../shared/bench/gen_corpus.py):
#   - 100,000 HSP envelopes as JSON Lines (99 MB)
#   - the first 2,000 of them as one file each
#   - one tiny file (start-up)
#   - 10,000 Crosstalk envelopes (aiproto only: nothing else reads them)
# usage: bash benches/validate_corpus.sh [--install] [--quick]
#   --install  pip/npm installs of the peers into $WORK (needs the registries)
# Peers: jq (parse floor), ajv (library loop over JSON Lines, and ajv-cli on
# the files), check-jsonschema; each is skipped with a note when absent.
# Writes $WORK/results/*.json (hyperfine) and prints a table.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
shared="$(cd "${AIPROTO_SHARED:-../shared}/bench" && pwd)"
WORK="${WORK:-${TMPDIR:-/tmp}/aiproto-bench}"
install=0 quick=0
for a in "$@"; do case $a in --install) install=1 ;; --quick) quick=1 ;; *) echo "unknown argument $a" >&2; exit 2 ;; esac; done
mkdir -p "$WORK/results"
runs=5; [ "$quick" = 1 ] && runs=2

if [ "$install" = 1 ]; then
    command -v hyperfine > /dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine jq; }
    python3 -m venv "$WORK/venv" && "$WORK/venv/bin/pip" install -q 'check-jsonschema==0.39.0'
    mkdir -p "$WORK/npm" && (cd "$WORK/npm" && { [ -f package.json ] || npm init -y > /dev/null; } && npm install -q --no-audit --no-fund ajv-cli@5.0.0 ajv-formats@3 ajv@8)
fi
command -v hyperfine > /dev/null || { echo "hyperfine is needed (run with --install)" >&2; exit 1; }

python3 "$shared/gen_corpus.py" --out "$WORK/data" > /dev/null
cargo build --release --quiet
bin="$root/target/release/aiproto"
cd "$WORK/data"
schema=hsp_envelope.schema.json

hf() { # id command [runs]: without a shell, unless the command needs one for a glob
    local shell=(-N)
    case $2 in *'*'*) shell=() ;; esac
    hyperfine "${shell[@]}" -i --style none --runs "${3:-$runs}" --warmup 1 --export-json "$WORK/results/$1.json" "$2" > /dev/null
    echo "$1" >> "$WORK/results/ran"
}
: > "$WORK/results/ran"
hf aiproto_jsonl "$bin validate -q corpus.jsonl"
hf aiproto_jsonl_json "$bin validate --format json corpus.jsonl"
hf aiproto_jsonl_lenient "$bin validate -q --lenient corpus.jsonl"
hf aiproto_dir "$bin validate -q files"
# One process that does little: start-up is most of it (more runs, as
# each takes milliseconds).
small_runs=60; [ "$quick" = 1 ] && small_runs=10
hf aiproto_tiny "$bin validate -q tiny/one.json" "$small_runs"
hf aiproto_version_tiny "$bin --version" "$small_runs"
hf aiproto_crosstalk "$bin validate -q crosstalk.txt"
command -v jq > /dev/null && hf jq_jsonl "jq -c . corpus.jsonl" && hf jq_tiny "jq -c . tiny/one.json"
ajv_dir="$WORK/npm/node_modules"
if [ -d "$ajv_dir/ajv-cli" ]; then
    cp "$shared/ajv_validate_jsonl.js" "$WORK/ajv_validate_jsonl.js"
    hf ajv_lib_jsonl "node $WORK/ajv_validate_jsonl.js $schema corpus.jsonl"
    hf ajvcli_dir "$ajv_dir/.bin/ajv validate -s $schema -d files/*.json --spec=draft2020 -c ajv-formats"
    hf ajvcli_tiny "$ajv_dir/.bin/ajv validate -s $schema -d tiny/one.json --spec=draft2020 -c ajv-formats"
fi
# The plain loop a Rust user would write (serde_json + the jsonschema
# crate, one core), and jsonschema-cli, built from crates.io.
if [ "$install" = 1 ] || [ ! -x "$WORK/rust-jsonl/target/release/rs-validate-jsonl" ]; then
    rm -rf "$WORK/rust-jsonl" && cp -r "$shared/rust-jsonl" "$WORK/rust-jsonl"
    (cd "$WORK/rust-jsonl" && cargo build --release --quiet) || echo "note: the rust-jsonl loop did not build" >&2
fi
[ "$install" = 1 ] && ! command -v jsonschema-cli > /dev/null && cargo install --locked --quiet jsonschema-cli
loop="$WORK/rust-jsonl/target/release/rs-validate-jsonl"
if [ -x "$loop" ]; then
    hf rustloop_jsonl "$loop $schema corpus.jsonl"
fi
if command -v jsonschema-cli > /dev/null; then
    hf jscli_dir "jsonschema-cli validate --assert-format -d 2020 $schema -i files/*.json"
    hf jscli_tiny "jsonschema-cli validate --assert-format -d 2020 $schema -i tiny/one.json" "$small_runs"
    hf jscli_version_tiny "jsonschema-cli --version" "$small_runs"
fi
if [ -x "$WORK/venv/bin/check-jsonschema" ]; then
    hf cjs_dir "$WORK/venv/bin/check-jsonschema --schemafile $schema files/*.json"
    hf cjs_tiny "$WORK/venv/bin/check-jsonschema --schemafile $schema tiny/one.json"
fi

# Signing and verifying one small file, one process each, beside minisign.
export AIPROTO_HOME="$WORK/home"
rm -rf "$AIPROTO_HOME" "$WORK/m.key" "$WORK/m.pub"
# The key signs for the tiny file's sender (a key signs for its own id only
# unless told otherwise).
sender=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["sender_ai_id"])' tiny/one.json)
"$bin" keygen -q --id bench --signs-for "$sender" > /dev/null
cp tiny/one.json "$WORK/one.json"
"$bin" sign -q --detached --key bench "$WORK/one.json"
"$bin" sign --key bench tiny/one.json > "$WORK/one.signed.json"
hf aiproto_sign_tiny "$bin sign -q --detached --key bench $WORK/one.json" "$small_runs"
hf aiproto_verify_tiny "$bin verify -q --signature $WORK/one.json.minisig $WORK/one.json" "$small_runs"
hf aiproto_verifymsg_tiny "$bin verify -q $WORK/one.signed.json" "$small_runs"
if command -v minisign > /dev/null; then
    minisign -G -W -p "$WORK/m.pub" -s "$WORK/m.key" > /dev/null
    hf minisign_sign_tiny "minisign -S -m $WORK/one.json -s $WORK/m.key -x $WORK/m.minisig" "$small_runs"
    hf minisign_verify_tiny "minisign -V -q -m $WORK/one.json -p $WORK/m.pub -x $WORK/m.minisig" "$small_runs"
fi

python3 - "$WORK" <<'PY'
import json, os, sys
work = sys.argv[1]
data = os.path.join(work, "data")
size = lambda p: os.path.getsize(os.path.join(data, p))
jsonl = size("corpus.jsonl"); files = sum(size("files/" + f) for f in os.listdir(os.path.join(data, "files")))
workloads = {
    "jsonl": ("100,000 HSP envelopes, JSON Lines", 100_000, jsonl),
    "dir": ("2,000 HSP files", 2_000, files),
    "tiny": ("1 tiny file (one process)", 1, size("tiny/one.json")),
    "crosstalk": ("10,000 Crosstalk envelopes", 10_000, size("crosstalk.txt")),
}
print("| tool | workload | median | msgs/s | MB/s |\n|---|---|---|---|---|")
for run_id in open(os.path.join(work, "results", "ran")).read().split():
    r = json.load(open(os.path.join(work, "results", run_id + ".json")))["results"][0]
    key = next(k for k in workloads if k in run_id)
    label, n, b = workloads[key]
    median = r["median"]
    tool = run_id.rsplit("_" + key, 1)[0] + run_id.split(key, 1)[1]
    print(f"| {tool} | {label} | {median*1000:.1f} ms | {n/median:,.0f} | {b/median/1e6:.1f} |")

# The ratios issue 18 asks for: aiproto's wall time over its peer's, same run.
def median(run_id):
    path = os.path.join(work, "results", run_id + ".json")
    return json.load(open(path))["results"][0]["median"] if os.path.exists(path) else None
print()
for ours, peer, what in [
    ("aiproto_jsonl", "rustloop_jsonl", "validate 100,000 lines / plain jsonschema loop"),
    ("aiproto_dir", "jscli_dir", "validate 2,000 files / jsonschema-cli"),
    ("aiproto_tiny", "jscli_tiny", "validate 1 file / jsonschema-cli"),
    ("aiproto_version_tiny", "jscli_version_tiny", "--version / jsonschema-cli"),
    ("aiproto_sign_tiny", "minisign_sign_tiny", "sign 1 file / minisign"),
    ("aiproto_verify_tiny", "minisign_verify_tiny", "verify 1 file / minisign"),
]:
    a, b = median(ours), median(peer)
    if a and b:
        print(f"{what}: {a / b:.2f}x ({a*1000:.1f} ms vs {b*1000:.1f} ms)")
PY
