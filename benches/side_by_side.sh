#!/usr/bin/env bash
# The rows of the speed issue that one process answers, interleaved with
# their peers (benches/interleaved.py): start-up (`--version`, one small
# file, sign, verify), 2,000 files, and the 100,000-line JSON Lines corpus
# against the plain jsonschema loop. Prints medians and ratios.
# usage: [BIN=path/to/aiproto] bash benches/side_by_side.sh [ROUNDS]
#   ROUNDS  rounds of the small commands (150; the corpus gets a tenth)
# Needs: jsonschema-cli (cargo install --locked jsonschema-cli), minisign;
# the loop is built from ../shared/bench/rust-jsonl. A missing peer's rows
# are left out with a note.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
shared="$(cd "${AIPROTO_SHARED:-../shared}/bench" && pwd)"
WORK="${WORK:-${TMPDIR:-/tmp}/aiproto-bench}"
rounds=${1:-150}
mkdir -p "$WORK"
[ -f "$WORK/data/corpus.jsonl" ] || python3 "$shared/gen_corpus.py" --out "$WORK/data" > /dev/null
if [ -z "${BIN:-}" ]; then cargo build --release --quiet; fi
bin=${BIN:-$root/target/release/aiproto}
data=$WORK/data
schema=$data/hsp_envelope.schema.json
run=(python3 "$root/benches/interleaved.py")

# A key that signs for the small file's sender, and a minisign key pair.
export AIPROTO_HOME="$WORK/home-side"
rm -rf "$AIPROTO_HOME" "$WORK/side.key" "$WORK/side.pub"
sender=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["sender_ai_id"])' "$data/tiny/one.json")
"$bin" keygen -q --id bench --signs-for "$sender" > /dev/null
cp "$data/tiny/one.json" "$WORK/side.json"
"$bin" sign -q --detached --key bench "$WORK/side.json"

small=("aiproto-version=$bin --version"
       "aiproto-one-file=$bin validate -q $data/tiny/one.json"
       "aiproto-sign=$bin sign -q --detached --key bench $WORK/side.json"
       "aiproto-verify=$bin verify -q --signature $WORK/side.json.minisig $WORK/side.json")
ratios=()
if command -v jsonschema-cli > /dev/null; then
    small+=("jsonschema-cli-version=$(command -v jsonschema-cli) --version"
            "jsonschema-cli-one-file=$(command -v jsonschema-cli) validate --assert-format -d 2020 $schema -i $data/tiny/one.json")
    ratios+=(--ratio aiproto-version/jsonschema-cli-version --ratio aiproto-one-file/jsonschema-cli-one-file)
else
    echo "note: no jsonschema-cli on PATH: its rows are left out" >&2
fi
if command -v minisign > /dev/null; then
    minisign -G -W -p "$WORK/side.pub" -s "$WORK/side.key" > /dev/null
    minisign -S -m "$WORK/side.json" -s "$WORK/side.key" -x "$WORK/side.m.minisig" > /dev/null
    small+=("minisign-sign=$(command -v minisign) -S -m $WORK/side.json -s $WORK/side.key -x $WORK/side.m2.minisig"
            "minisign-verify=$(command -v minisign) -V -q -m $WORK/side.json -p $WORK/side.pub -x $WORK/side.m.minisig")
    ratios+=(--ratio aiproto-sign/minisign-sign --ratio aiproto-verify/minisign-verify)
else
    echo "note: no minisign on PATH: its rows are left out" >&2
fi
echo "== start-up, $rounds rounds"
"${run[@]}" "$rounds" "${small[@]}" "${ratios[@]}"

echo "== 2,000 files, $((rounds / 3)) rounds"
files=("aiproto-files=$bin validate -q $data/files")
ratios=()
if command -v jsonschema-cli > /dev/null; then
    # jsonschema-cli takes the names the shell would give it.
    names=$(cd "$data" && printf "$data/%s " files/*.json)
    files+=("jsonschema-cli-files=$(command -v jsonschema-cli) validate --assert-format -d 2020 $schema -i $names")
    ratios+=(--ratio aiproto-files/jsonschema-cli-files)
fi
"${run[@]}" $((rounds / 3)) "${files[@]}" "${ratios[@]}"

echo "== 100,000 lines of JSON Lines, $((rounds / 10)) rounds"
loop="$WORK/rust-jsonl/target/release/rs-validate-jsonl"
if [ ! -x "$loop" ]; then
    rm -rf "$WORK/rust-jsonl" && cp -r "$shared/rust-jsonl" "$WORK/rust-jsonl"
    (cd "$WORK/rust-jsonl" && cargo build --release --quiet) || echo "note: the loop did not build" >&2
fi
lines=("aiproto-jsonl=$bin validate -q $data/corpus.jsonl")
ratios=()
if [ -x "$loop" ]; then
    lines+=("loop-jsonl=$loop $schema $data/corpus.jsonl")
    ratios+=(--ratio aiproto-jsonl/loop-jsonl)
fi
"${run[@]}" $((rounds / 10)) "${lines[@]}" "${ratios[@]}"
