#!/usr/bin/env python3
"""The round trip of one HSP TaskRequest over Mosquitto on 127.0.0.1: a
paho-mqtt worker answers every request on hsp/agents/did:hsp:worker with a
TaskResult on its callback topic. Timed, in one run, as a user would run
them (a process each, connect included): `aiproto request` against the same
exchange written with paho-mqtt (subscribe to the callback, publish the
request, wait for the correlated result).

usage: python3 benches/request_roundtrip.py AIPROTO_BINARY [RUNS]
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid

import paho.mqtt.client as mqtt

binary = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
port = 18851
work = tempfile.mkdtemp()
conf = os.path.join(work, "mosquitto.conf")
open(conf, "w").write(f"listener {port} 127.0.0.1\nallow_anonymous true\n")
broker = subprocess.Popen(["mosquitto", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.5)


def on_request(client, _u, msg):
    request = json.loads(msg.payload)
    result = {
        "hsp_envelope_version": "1.0", "message_id": str(uuid.uuid4()),
        "correlation_id": request["message_id"], "sender_ai_id": "did:hsp:worker",
        "recipient_ai_id": request["payload"]["callback_address"],
        "timestamp_sent": "2026-01-01T00:00:00Z", "message_type": "HSP::TaskResult_v1.0",
        "protocol_version": "1.0", "communication_pattern": "response",
        "payload": {"result_id": str(uuid.uuid4()), "request_id": request["payload"]["request_id"],
                    "executing_ai_id": "did:hsp:worker", "status": "success", "payload": {"ok": True},
                    "timestamp_completed": "2026-01-01T00:00:00Z"},
    }
    client.publish(request["payload"]["callback_address"], json.dumps(result), qos=1)


worker = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="worker")
worker.on_message = on_request
worker.connect("127.0.0.1", port)
worker.subscribe("hsp/agents/did:hsp:worker", qos=1)
worker.loop_start()
time.sleep(0.3)

env = dict(os.environ, AIPROTO_HOME=work)
task = subprocess.run(
    [binary, "compose", "hsp", "task-request", "--from", "did:hsp:boss", "--to", "did:hsp:worker",
     "--capability-id", "translate", "--param", "text=Hello", "--callback", "hsp/results/boss"],
    env=env, capture_output=True, check=True, text=True).stdout
path = os.path.join(work, "task.json")
open(path, "w").write(task)

PAHO = r'''
import json, sys, threading, paho.mqtt.client as mqtt
request = json.load(open(sys.argv[1])); done = threading.Event()
def on_message(c, u, m):
    r = json.loads(m.payload)
    if r.get("correlation_id") == request["message_id"]:
        print(m.payload.decode()); done.set()
def on_subscribe(c, u, mid, codes, props):
    c.publish("hsp/agents/did:hsp:worker", json.dumps(request), qos=1)
c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
c.on_message = on_message; c.on_subscribe = on_subscribe
c.connect("127.0.0.1", int(sys.argv[2])); c.subscribe("hsp/results/boss", qos=1)
c.loop_start(); ok = done.wait(10); c.disconnect(); c.loop_stop(); sys.exit(0 if ok else 4)
'''


def timed(command):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]


try:
    ours = timed([binary, "request", "--via", f"mqtt://127.0.0.1:{port}", "--timeout", "10", path])
    paho = timed([sys.executable, "-c", PAHO, path, str(port)])
    print(f"aiproto request: {ours * 1000:.1f} ms median of {runs}")
    print(f"paho-mqtt requester (python3): {paho * 1000:.1f} ms median of {runs}")
    print(f"ratio: {ours / paho:.2f}x")
finally:
    worker.loop_stop()
    broker.terminate()
