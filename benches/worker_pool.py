#!/usr/bin/env python3
"""A worker pool's throughput through Mosquitto on 127.0.0.1: N HSP facts
published at QoS 1 by `aiproto send`, taken by 1 or 3 `aiproto recv
--share workers` (each printing what it takes), over MQTT 3.1.1 and 5.
Timed from the first publish to the last message printed by the pool, and
checked: every message taken once. A figure for docs/performance.md, run
beside the same burst to one `mosquitto_sub`, in one run.

usage: python3 benches/worker_pool.py AIPROTO_BINARY [N]
"""
import json
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import time

binary = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
work = tempfile.mkdtemp()
env = dict(os.environ, AIPROTO_HOME=work, NO_COLOR="1")
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
conf = os.path.join(work, "mosquitto.conf")
with open(conf, "w") as f:
    # No queue limit: Mosquitto's default of 1,000 drops the rest of a burst.
    f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\n")
broker = subprocess.Popen(["mosquitto", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.5)

base = json.load(open(os.path.join(root, "examples/hsp/valid/1.0/fact.json")))
facts = os.path.join(work, "facts.jsonl")


def write_facts(run):
    with open(facts, "w") as out:
        for i in range(count):
            base["message_id"] = f"pool-{run}-{i:07d}"
            base["recipient_ai_id"] = "hsp/pool/tasks"
            out.write(json.dumps(base) + "\n")


def pool(workers, version, run):
    write_facts(run)
    url = f"mqtt://127.0.0.1:{port}/hsp/pool/tasks"
    share = ["--share", "workers"] if workers > 1 else []
    procs = []
    for _ in range(workers):
        p = subprocess.Popen([binary, "recv", "--via", url, *share, "--mqtt-version", version,
                              "--qos", "1", "--no-ack", "--timeout", "120", "--format", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        if "subscribed" not in p.stderr.readline().decode():
            sys.exit("a worker did not subscribe")
        procs.append(p)
    started = time.time()
    subprocess.run([binary, "send", facts, "--via", url, "--qos", "1", "--mqtt-version", version],
                   check=True, capture_output=True, env=env)
    # Each worker prints a line per message; read them as they come.
    sel = selectors.DefaultSelector()
    for p in procs:
        os.set_blocking(p.stdout.fileno(), False)
        sel.register(p.stdout, selectors.EVENT_READ)
    ids, shares, last = set(), [0] * workers, started
    while len(ids) < count and time.time() - started < 120:
        for key, _ in sel.select(timeout=1):
            chunk = key.fileobj.read() or b""
            i = [p.stdout for p in procs].index(key.fileobj)
            for line in chunk.splitlines():
                ids.add(json.loads(json.loads(line)["message"])["message_id"])
                shares[i] += 1
            last = time.time()
    for p in procs:
        p.terminate()
        p.wait()
    took = last - started
    return took, len(ids), shares


def mosquitto_sub_alone(run):
    write_facts(run)
    sub = subprocess.Popen(["mosquitto_sub", "-p", str(port), "-t", "hsp/pool/tasks", "-q", "1",
                            "-C", str(count)], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    started = time.time()
    subprocess.run([binary, "send", facts, "--via", f"mqtt://127.0.0.1:{port}/hsp/pool/tasks", "--qos", "1"],
                   check=True, capture_output=True, env=env)
    sub.wait(timeout=120)
    return time.time() - started


try:
    print(f"{count} HSP facts at QoS 1, published by one `aiproto send`, Mosquitto on loopback")
    print("| consumers | MQTT | time | messages/s | taken (each worker) |")
    print("| --- | --- | --- | --- | --- |")
    took = mosquitto_sub_alone(0)
    print(f"| one `mosquitto_sub` | 3.1.1 | {took:.2f} s | {count / took:,.0f} | {count} |")
    run = 1
    for workers in (1, 3):
        for version in ("3.1.1", "5"):
            took, taken, shares = pool(workers, version, run)
            run += 1
            name = "one `recv`" if workers == 1 else f"{workers} `recv --share`"
            print(f"| {name} | {version} | {took:.2f} s | {taken / took:,.0f} | {taken} ({', '.join(map(str, shares))}) |")
            if taken != count:
                print(f"LOST: {count - taken} of {count}")
finally:
    broker.terminate()
    broker.wait()
