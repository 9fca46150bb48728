#!/usr/bin/env python3
"""MQTT 5 between aiproto and clients nobody here wrote, through Mosquitto:

- `mosquitto_rr` (Mosquitto's own MQTT 5 request/response client) asks an
  aiproto agent speaking MQTT 5 (`AIPROTO_MQTT_VERSION=5`), and gets its
  TaskResult on the response topic;
- a paho-mqtt MQTT 5 responder that knows nothing of HSP callbacks answers
  `aiproto request --mqtt-version 5` on the request's response topic with
  its correlation data copied, as the MQTT 5 spec's request/response
  pattern says (§4.10); paho reads what aiproto's request carried;
- paho publishes with binary correlation data and a response topic, and
  `aiproto recv --format json` shows them.

usage: mqtt5_clients.py AIPROTO_BINARY
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

import aiproto_agent

binary = sys.argv[1]
home = tempfile.mkdtemp()
env = dict(os.environ, AIPROTO_HOME=home, NO_COLOR="1")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def aiproto(*args, stdin=None, extra_env=None):
    return subprocess.run([binary, *args], input=stdin, capture_output=True, text=True,
                          env=dict(env, **(extra_env or {})), timeout=60)


def task_request(to, callback):
    out = aiproto("compose", "hsp", "task-request", "--from", "did:hsp:boss", "--to", to,
                  "--capability-id", "translate", "--param", "text=Hello", "--callback", callback)
    assert out.returncode == 0, out.stderr
    return out.stdout


def paho5(name):
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name,
                         protocol=mqtt.MQTTv5)
    return client


port = free_port()
conf = os.path.join(home, "mosquitto.conf")
with open(conf, "w") as f:
    f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\n")
broker = subprocess.Popen(["mosquitto", "-c", conf], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", port), 0.2).close()
        break
    except OSError:
        time.sleep(0.05)
url = f"mqtt://127.0.0.1:{port}"

try:
    # 1. mosquitto_rr asks an aiproto agent that speaks MQTT 5.
    agent = aiproto_agent.start(binary, url, dict(env, AIPROTO_MQTT_VERSION="5"), lifetime=60)
    request = task_request(aiproto_agent.AGENT, "hsp/results/rr")
    request_id = json.loads(request)["message_id"]
    rr = subprocess.run(["mosquitto_rr", "-V", "5", "-h", "127.0.0.1", "-p", str(port),
                         "-t", f"hsp/agents/{aiproto_agent.AGENT}", "-e", "hsp/results/rr",
                         "-m", request.strip(), "-W", "20"],
                        capture_output=True, text=True, timeout=30)
    try:
        answer = json.loads(rr.stdout)
    except ValueError:
        answer = {}
    check(rr.returncode == 0 and answer.get("correlation_id") == request_id
          and answer.get("message_type", "").startswith("HSP::TaskResult_v"),
          f"mosquitto_rr gets the aiproto agent's TaskResult on its response topic ({rr.stdout[:80]!r} {rr.stderr.strip()!r})")
    aiproto_agent.stop(agent)

    # 2. A paho MQTT 5 responder answers aiproto request by the spec's pattern.
    seen = {}
    subscribed = threading.Event()

    def on_connect(client, userdata, flags, reason, properties):
        client.subscribe("hsp/agents/did:hsp:paho", qos=1)

    def on_subscribe(client, userdata, mid, reasons, properties):
        subscribed.set()

    def on_message(client, userdata, message):
        props = message.properties
        seen["response_topic"] = getattr(props, "ResponseTopic", None)
        seen["correlation"] = getattr(props, "CorrelationData", None)
        seen["content_type"] = getattr(props, "ContentType", None)
        seen["format"] = getattr(props, "PayloadFormatIndicator", None)
        reply = aiproto("compose", "hsp", "--reply-to", "-", "--from", "did:hsp:paho",
                        "--status", "success", "--result", '{"text": "Bonjour"}',
                        stdin=message.payload.decode())
        answer_props = Properties(PacketTypes.PUBLISH)
        if seen["correlation"] is not None:
            answer_props.CorrelationData = seen["correlation"]
        client.publish(seen["response_topic"], reply.stdout.strip(), qos=1,
                       properties=answer_props)

    responder = paho5("paho-responder")
    responder.on_connect = on_connect
    responder.on_subscribe = on_subscribe
    responder.on_message = on_message
    responder.connect("127.0.0.1", port)
    responder.loop_start()
    subscribed.wait(10)
    request = task_request("did:hsp:paho", "hsp/results/boss")
    request_id = json.loads(request)["message_id"]
    path = os.path.join(home, "request.json")
    with open(path, "w") as f:
        f.write(request)
    out = aiproto("request", "--mqtt-version", "5", "--via", url, "--timeout", "20", path)
    try:
        result = json.loads(out.stdout)
    except ValueError:
        result = {}
    check(out.returncode == 0 and result.get("payload", {}).get("payload", {}).get("text") == "Bonjour",
          f"aiproto request takes the paho responder's answer ({out.returncode}, {out.stderr.strip()!r})")
    check(seen.get("response_topic") == "hsp/results/boss",
          f"paho reads the response topic: {seen.get('response_topic')!r}")
    check(seen.get("correlation") == request_id.encode(),
          f"paho reads the correlation data: {seen.get('correlation')!r}")
    check(seen.get("content_type") == "application/json" and seen.get("format") == 1,
          f"paho reads the content type and UTF-8 format: {seen.get('content_type')!r} {seen.get('format')!r}")
    responder.loop_stop()
    responder.disconnect()

    # 3. Properties paho sets, as aiproto recv shows them.
    recv = subprocess.Popen([binary, "recv", "--mqtt-version", "5", "--via", f"{url}/plain/x",
                             "--count", "1", "--timeout", "20", "--format", "json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = recv.stderr.readline()
    check("subscribed" in line, f"recv over MQTT 5 subscribes ({line.strip()!r})")
    publisher = paho5("paho-publisher")
    publisher.connect("127.0.0.1", port)
    publisher.loop_start()
    props = Properties(PacketTypes.PUBLISH)
    props.ResponseTopic = "plain/answers"
    props.CorrelationData = b"\x00\xff"
    props.MessageExpiryInterval = 600
    info = publisher.publish("plain/x", request.strip(), qos=1, properties=props)
    info.wait_for_publish(10)
    out, _ = recv.communicate(timeout=30)
    try:
        got = json.loads(out.splitlines()[0])["mqtt5"]
    except (ValueError, IndexError, KeyError):
        got = {}
    check(got.get("response_topic") == "plain/answers" and got.get("correlation_data_hex") == "00ff"
          and 0 < got.get("expiry_seconds", 0) <= 600,
          f"aiproto recv shows paho's properties: {got}")
    publisher.loop_stop()
    publisher.disconnect()
finally:
    broker.terminate()
    broker.wait()

if failures:
    sys.exit(f"{len(failures)} MQTT 5 check(s) failed")
print("all MQTT 5 checks passed")
