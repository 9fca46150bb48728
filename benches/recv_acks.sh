#!/usr/bin/env bash
# A burst of N HSP messages that each ask for an ACK, published at once by
# mosquitto_pub -l (QoS 1) through one Mosquitto on 127.0.0.1, and the time
# until each receiver has printed all N, in one run: mosquitto_sub -C N,
# aiproto recv --no-ack, and aiproto recv --as DID (publishing N ACKs).
# usage: bash benches/recv_acks.sh [N]   (needs mosquitto, mosquitto-clients)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-5000}
PORT=${PORT:-18841}
WORK="${WORK:-${TMPDIR:-/tmp}/aiproto-bench}"
mkdir -p "$WORK"
bin=${BIN:-$PWD/target/release/aiproto}
[ -n "${BIN:-}" ] || cargo build --release --quiet
python3 - "$N" > "$WORK/acks.jsonl" <<'PY'
import json, sys
fact = json.loads(open("examples/hsp/valid/0.1/facts.jsonl").readline())
fact["qos_parameters"]["requires_ack"] = True
fact["recipient_ai_id"] = "did:hsp:beta"
for i in range(int(sys.argv[1])):
    fact["message_id"] = f"bench-{i:07d}"
    print(json.dumps(fact))
PY
printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\n' "$PORT" > "$WORK/mosquitto.conf"
mosquitto -c "$WORK/mosquitto.conf" > "$WORK/mosquitto.log" 2>&1 &
broker=$!
trap 'kill $broker 2>/dev/null || true' EXIT
sleep 0.5
topic=hsp/agents/did:hsp:beta
run() { # name command… (prints every message on stdout, stops after N)
    local name=$1; shift
    "$@" > "$WORK/out" 2> "$WORK/err" &
    local receiver=$!
    sleep 1
    local t0; t0=$(date +%s.%N)
    mosquitto_pub -h 127.0.0.1 -p "$PORT" -q 1 -t "$topic" -l < "$WORK/acks.jsonl"
    wait "$receiver" || true
    local t1; t1=$(date +%s.%N)
    printf '%-28s %6.2f s  printed %d/%d\n' "$name" "$(echo "$t1 - $t0" | bc -l)" \
        "$(grep -c . "$WORK/out" || true)" "$N"
}
run mosquitto_sub mosquitto_sub -h 127.0.0.1 -p "$PORT" -q 1 -t "$topic" -C "$N" -W 120
run "aiproto recv --no-ack" "$bin" recv --via "mqtt://127.0.0.1:$PORT/$topic" --no-ack --count "$N" --timeout 120
run "aiproto recv --as (ACKs)" "$bin" recv --via "mqtt://127.0.0.1:$PORT/$topic" --as did:hsp:beta --count "$N" --timeout 120
