#!/usr/bin/env python3
"""aiproto recv as a receiving agent for paho-mqtt agents: a burst of HSP
messages that each ask for an ACK, published at once by paho at QoS 0, 1
and 2, must be printed whole by `aiproto recv --as did:hsp:beta`, and (at
QoS 1 and 2) every ACK must reach the sender's paho subscriber. Run on the
built-in broker and on Mosquitto. Prints the time with ACKs beside
`--no-ack` on the same burst (a figure, not a pass/fail bound).

usage: mqtt_paho.py AIPROTO_BINARY [REPO_ROOT]
"""
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

import paho.mqtt.client as mqtt

binary = sys.argv[1]
root = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else ".")
BURST = 1000
home = tempfile.mkdtemp()
env = dict(os.environ, AIPROTO_HOME=home, NO_COLOR="1")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port):
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


def burst_messages():
    fact = json.loads((root / "examples/hsp/valid/0.1/facts.jsonl").read_text().splitlines()[0])
    fact["qos_parameters"]["requires_ack"] = True
    fact["recipient_ai_id"] = "did:hsp:beta"
    out = []
    for i in range(BURST):
        fact["message_id"] = f"paho-{i:06d}"
        out.append(json.dumps(fact))
    return out


def start_recv(port, qos, extra):
    recv = subprocess.Popen(
        [binary, "recv", "--via", f"mqtt://127.0.0.1:{port}/hsp/agents/did:hsp:beta",
         "--qos", str(qos), "--count", str(BURST), "--timeout", "120", "--format", "json", *extra],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = recv.stderr.readline()
    if "subscribed" not in line:
        raise SystemExit(f"recv did not subscribe: {line}")
    threading.Thread(target=recv.stderr.read, daemon=True).start()
    return recv


def paho_client(name):
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name)
    client.max_queued_messages_set(0)
    return client


def run(port, qos, ack):
    acks = []
    done = threading.Event()
    inbox = paho_client(f"alpha-inbox-{qos}-{ack}")

    def on_message(_c, _u, msg):
        acks.append(json.loads(msg.payload))
        if len(acks) == BURST:
            done.set()

    inbox.on_message = on_message
    inbox.connect("127.0.0.1", port)
    inbox.subscribe("hsp/agents/did:hsp:ai_alpha", qos=max(qos, 1))
    inbox.loop_start()
    time.sleep(0.3)
    recv = start_recv(port, qos, ["--as", "did:hsp:beta"] if ack else ["--no-ack"])
    sender = paho_client(f"alpha-{qos}-{ack}")
    sender.connect("127.0.0.1", port)
    sender.loop_start()
    started = time.monotonic()
    infos = [sender.publish("hsp/agents/did:hsp:beta", m, qos=qos) for m in burst_messages()]
    for info in infos:
        info.wait_for_publish(60)
    out, _ = recv.communicate(timeout=150)
    elapsed = time.monotonic() - started
    printed = len(out.splitlines())
    if recv.returncode != 0 or printed != BURST:
        raise SystemExit(f"QoS {qos}, ack={ack}: recv exited {recv.returncode} after printing {printed} of {BURST}")
    if ack and qos > 0:
        if not done.wait(30):
            raise SystemExit(f"QoS {qos}: {len(acks)} of {BURST} ACKs reached the sender")
        if any(a["sender_ai_id"] != "did:hsp:beta" or "Acknowledgement" not in a["message_type"] for a in acks):
            raise SystemExit(f"QoS {qos}: an ACK not from did:hsp:beta: {acks[0]}")
    sender.loop_stop()
    inbox.loop_stop()
    return elapsed


def brokers():
    port = free_port()
    yield "built-in", port, subprocess.Popen(
        [binary, "broker", "--listen", f"127.0.0.1:{port}"], env=env, stderr=subprocess.DEVNULL)
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if os.path.exists(mosquitto):
        port = free_port()
        conf = pathlib.Path(home) / "mosquitto.conf"
        conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n")
        yield "mosquitto", port, subprocess.Popen(
            [mosquitto, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        raise SystemExit("mosquitto is not installed (.ci/run installs it)")


for name, port, broker in brokers():
    try:
        wait_port(port)
        for qos in (0, 1, 2):
            with_ack = run(port, qos, True)
            without = run(port, qos, False)
            print(f"{name} QoS {qos}: {BURST} printed and acknowledged in {with_ack:.2f} s, "
                  f"{without:.2f} s with --no-ack ({with_ack / without:.2f}x)")
    finally:
        broker.terminate()
        broker.wait()
shutil.rmtree(home, ignore_errors=True)
