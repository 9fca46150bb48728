#!/usr/bin/env python3
"""The upstream HSP connector's own HTTP code against `aiproto serve`.

Unified-AI-Project's `ExternalConnector` (vendored unchanged in
tests/interop/upstream/) probes `GET /health` in `connect()` and POSTs an
HSP envelope as JSON to `/message` in `send()`, each taking 200 as success.
Driven here over loopback: connect succeeds while serve runs and fails once
it stopped; a valid TaskRequest is taken (stored in the inbox) and a
broken envelope refused (send() is False, nothing stored); a retry of the
same message is acknowledged again without a second copy.

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


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2])))
    if failures:
        print(f"hsp_connector: {failures} check(s) failed")
        sys.exit(1)
    print("hsp_connector: the upstream connector's HTTP code and aiproto serve agree")
