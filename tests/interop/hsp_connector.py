#!/usr/bin/env python3
"""The upstream HSP code against aiproto: its connector's HTTP sending
code against `aiproto serve`, and its payload types against what `aiproto
compose hsp` writes.

Unified-AI-Project's `ExternalConnector` (vendored unchanged in
tests/interop/upstream/) probes `GET /health` in `connect()` and POSTs an
HSP envelope as JSON to `/message` in `send()`, each taking 200 as success.
Driven here over loopback: connect succeeds while serve runs and fails once
it stopped; a valid TaskRequest is taken (stored in the inbox) and a
broken envelope refused (send() is False, nothing stored); a retry of the
same message is acknowledged again without a second copy.

The upstream's `types.py` (vendored unchanged too) defines the Heartbeat,
Discovery and Error payloads the spec lacks, as TypedDicts: pydantic
validates, strictly, every such payload aiproto composes (and the shipped
examples), and the envelopes' communication patterns against its Literal.

Usage: hsp_connector.py AIPROTO_BIN REPO_ROOT
"""

import asyncio
import importlib.util
import json
import logging
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def load_connector(repo):
    path = repo / "tests/interop/upstream/unified_ai_external_connector.py"
    spec = importlib.util.spec_from_file_location("external_connector", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # Its warnings carry tracebacks for the refusals this test provokes.
    logging.getLogger("external_connector").setLevel(logging.ERROR)
    return module.ExternalConnector


def start_serve(binary, inbox):
    serve = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0", "--inbox", str(inbox)],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 20
    while time.time() < deadline:
        line = serve.stderr.readline()
        found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if found:
            return serve, int(found.group(1))
    serve.kill()
    raise SystemExit("aiproto serve did not start")


async def main(binary, repo):
    ExternalConnector = load_connector(repo)
    request = json.loads((repo / "examples/hsp/valid/0.1/task-request.json").read_text())
    broken = dict(request)
    del broken["sender_ai_id"]
    with tempfile.TemporaryDirectory() as work:
        inbox = Path(work) / "inbox"
        serve, port = start_serve(binary, inbox)
        try:
            connector = ExternalConnector(ai_id="did:hsp:ai_alpha", broker_address="127.0.0.1", broker_port=port)
            check(await connector.connect(), "connect(): GET /health answers 200")
            check(await connector.send(request), "send(): a valid TaskRequest POSTed to /message is taken (200)")
            stored = sorted(p.name for p in inbox.iterdir())
            check(stored == [request["message_id"] + ".json"], f"it is in the inbox under its id ({stored})")
            check(await connector.send(request), "send() again: the retry is acknowledged (200)")
            check(len(list(inbox.iterdir())) == 1, "and not stored twice")
            check(not await connector.send(broken), "send(): an envelope without sender_ai_id is refused")
            check(len(list(inbox.iterdir())) == 1, "and not stored")
        finally:
            serve.terminate()
            serve.wait(timeout=20)
        check(not await connector.connect(), "connect() fails once serve stopped")


def check_payload_types(binary, repo):
    from pydantic import TypeAdapter

    spec = importlib.util.spec_from_file_location(
        "hsp_types", repo / "tests/interop/upstream/unified_ai_hsp_types.py"
    )
    types = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(types)
    composed = {
        "Heartbeat": ["heartbeat", "--from", "did:hsp:ai_gamma", "--status", "degraded"],
        "Discovery": ["discovery", "--from", "did:hsp:ai_gamma", "--tags", "translate,summarize"],
        "Error": ["error", "--from", "did:hsp:ai_gamma", "--to", "did:hsp:ai_alpha",
                  "--correlation-id", "018f4a6e-8c1b-7d2a-9e3f-00000000a001",
                  "--error-code", "processing_failed", "--reason", "the model timed out"],
    }
    adapters = {
        "Heartbeat": TypeAdapter(types.HSPHeartbeatPayload),
        "Discovery": TypeAdapter(types.HSPDiscoveryPayload),
        "Error": TypeAdapter(types.HSPErrorPayload),
    }
    pattern = TypeAdapter(types.HSPMessageEnvelope.__annotations__["communication_pattern"])
    for name, args in composed.items():
        for version in ["hsp@0.1", "hsp@1.0"]:
            out = subprocess.run([binary, "compose", version, *args], capture_output=True, text=True)
            check(out.returncode == 0, f"compose {version} {args[0]} exits 0 ({out.stderr.strip()})")
            if out.returncode != 0:
                continue
            envelope = json.loads(out.stdout)
            check(envelope["message_type"].startswith(f"HSP::{name}_v"), f"{name}: message_type {envelope['message_type']}")
            try:
                adapters[name].validate_python(envelope["payload"], strict=True)
                pattern.validate_python(envelope["communication_pattern"], strict=True)
                check(True, f"{version} {name}: the upstream's HSP{name}Payload takes aiproto's payload")
            except Exception as e:
                check(False, f"{version} {name}: the upstream refuses it: {e}")
    for name, stem in [("Heartbeat", "heartbeat"), ("Discovery", "discovery"), ("Error", "error")]:
        example = json.loads((repo / f"examples/hsp/valid/0.1/{stem}.json").read_text())
        try:
            adapters[name].validate_python(example["payload"], strict=True)
            check(True, f"examples/hsp/valid/0.1/{stem}.json: the upstream takes its payload")
        except Exception as e:
            check(False, f"examples/hsp/valid/0.1/{stem}.json: the upstream refuses it: {e}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2])))
    check_payload_types(sys.argv[1], Path(sys.argv[2]))
    if failures:
        print(f"hsp_connector: {failures} check(s) failed")
        sys.exit(1)
    print("hsp_connector: the upstream connector and payload types agree with aiproto")
