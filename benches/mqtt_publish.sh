#!/usr/bin/env bash
# Publishing 100,000 HSP envelopes through one Mosquitto broker on 127.0.0.1:
# aiproto send (all or nothing, and --each from stdin) against
# mosquitto_pub -l, at QoS 0 and QoS 1, in one run: a mosquitto_sub -C N
# counts what arrives (first publish → last message).
# Then the wall time of one single-message send against one mosquitto_pub.
# usage: [BIN=path/to/aiproto] bash benches/mqtt_publish.sh [N]   (needs mosquitto, mosquitto-clients, hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
shared="$(cd "${AIPROTO_SHARED:-../shared}/bench" && pwd)"
WORK="${WORK:-${TMPDIR:-/tmp}/aiproto-bench}"
N=${1:-100000}
PORT=${PORT:-18831}
mkdir -p "$WORK"
[ -f "$WORK/data/corpus.jsonl" ] || python3 "$shared/gen_corpus.py" --out "$WORK/data" > /dev/null
head -n "$N" "$WORK/data/corpus.jsonl" > "$WORK/pub.jsonl"
# BIN: another build of aiproto to measure (say, the one before a change).
if [ -z "${BIN:-}" ]; then cargo build --release --quiet; fi
bin=${BIN:-$PWD/target/release/aiproto}
# An unbounded broker (max_queued_messages 0): a slow subscriber loses nothing.
sed "s/^listener .*/listener $PORT 127.0.0.1/" "$shared/mosquitto-unbounded.conf" > "$WORK/mosquitto.conf"
mosquitto -c "$WORK/mosquitto.conf" > "$WORK/mosquitto.log" 2>&1 &
broker=$!
trap 'kill $broker 2>/dev/null || true' EXIT
sleep 0.5

run() { # name qos command…
    local name=$1 qos=$2; shift 2
    local topic="bench/$name/q$qos/$$"
    mosquitto_sub -h 127.0.0.1 -p "$PORT" -q "$qos" -t "$topic" -C "$N" -W 300 > "$WORK/recv" &
    local sub=$!
    sleep 0.7
    local t0; t0=$(date +%s.%N)
    "$@" "$topic" > /dev/null 2>&1 || true
    for ((w = 0; w < 300; w++)); do kill -0 "$sub" 2>/dev/null || break; sleep 0.1; done
    kill "$sub" 2>/dev/null || true
    wait "$sub" 2>/dev/null || true
    local t1; t1=$(date -r "$WORK/recv" +%s.%N)
    local got; got=$(grep -c . "$WORK/recv" || true)
    printf '%-14s QoS %s  %6.2f s  %8.0f msgs/s  received %d/%d\n' "$name" "$qos" \
        "$(echo "$t1 - $t0" | bc -l)" "$(echo "$got / ($t1 - $t0)" | bc -l)" "$got" "$N"
}
aiproto_pub() { "$bin" send --force --qos "$QOS" --via "mqtt://127.0.0.1:$PORT/$1" "$WORK/pub.jsonl"; }
# --each: checked and sent in turn (one reading; the check beside the publishing).
aiproto_each() { "$bin" send --each --force --qos "$QOS" --via "mqtt://127.0.0.1:$PORT/$1" < "$WORK/pub.jsonl"; }
mosquitto_pub_l() { mosquitto_pub -h 127.0.0.1 -p "$PORT" -q "$QOS" -t "$1" -l < "$WORK/pub.jsonl"; }
for QOS in 0 1; do
    export QOS
    run aiproto "$QOS" aiproto_pub
    run aiproto-each "$QOS" aiproto_each
    run mosquitto_pub "$QOS" mosquitto_pub_l
done
head -n 1 "$WORK/pub.jsonl" > "$WORK/one.json"
hyperfine --warmup 3 --runs 30 -N \
    "$bin send --qos 1 --via mqtt://127.0.0.1:$PORT/bench/one $WORK/one.json" \
    "mosquitto_pub -h 127.0.0.1 -p $PORT -q 1 -t bench/one -f $WORK/one.json" 2>&1 | grep -E "Benchmark|Time"
