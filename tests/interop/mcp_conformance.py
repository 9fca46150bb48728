#!/usr/bin/env python3
"""`aiproto mcp --listen` graded by the official MCP conformance suite
(`@modelcontextprotocol/conformance`, npm), once per protocol revision,
against the committed baseline of expected failures (empty).

The server runs with `--conformance-fixtures` (the suite's test tools,
resources and prompts beside aiproto's own) behind its bearer token; the
suite cannot send headers, so a loopback proxy (mcp_token_proxy.py) adds
the token and passes Host and Origin through. The proxy's own origin is
allowed with `--allow-origin`, as a person fronting the server would.

The run fails when the suite exits non-zero (a failure not in the
baseline), or when a scenario the revision requires did not run, or ran
with a check not passed.

usage: mcp_conformance.py AIPROTO_BINARY CONFORMANCE_BINARY REPO_ROOT
"""
import glob
import json
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time

binary = os.path.abspath(sys.argv[1])
suite = sys.argv[2]
repo = pathlib.Path(sys.argv[3]).resolve()
baseline = repo / "tests/interop/mcp-conformance-baseline.yaml"
REVISIONS = ["2025-11-25", "2026-07-28"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port):
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on {port}")


def required(revision):
    """The server scenarios the revision requires (scored), from the suite."""
    listed = subprocess.run([suite, "list", "--server", "--requirements", revision],
                            capture_output=True, text=True, check=True).stdout
    names, inside = [], False
    for line in listed.splitlines():
        if line.startswith("Server scenarios"):
            inside = True
        elif inside and line.strip().startswith("- "):
            names.append(line.strip()[2:].strip())
        elif inside and line.strip() and not line.startswith(" "):
            inside = False
    return names


work = pathlib.Path(tempfile.mkdtemp(prefix="aiproto-mcp-conformance-"))
(work / "root").mkdir()
token_file = work / "token"
token_file.write_text(os.urandom(24).hex() + "\n")
server_port, proxy_port = free_port(), free_port()
server = subprocess.Popen(
    [binary, "mcp", "--root", str(work / "root"), "--listen", f"127.0.0.1:{server_port}",
     "--token-file", str(token_file), "--conformance-fixtures",
     "--allow-origin", f"http://127.0.0.1:{proxy_port}", "--allow-origin", f"http://localhost:{proxy_port}"],
    stdout=subprocess.DEVNULL, stderr=open(work / "server.log", "w"))
proxy = subprocess.Popen(
    [sys.executable, str(repo / "tests/interop/mcp_token_proxy.py"), str(proxy_port),
     f"http://127.0.0.1:{server_port}", str(token_file)],
    stdout=subprocess.DEVNULL, stderr=open(work / "proxy.log", "w"))
failed = False
try:
    wait_listening(server_port)
    wait_listening(proxy_port)
    for revision in REVISIONS:
        scenarios = required(revision)
        out = work / revision
        run = subprocess.run(
            [suite, "server", "--url", f"http://127.0.0.1:{proxy_port}/mcp", "--requirements", revision,
             "--expected-failures", str(baseline), "-o", str(out)],
            capture_output=True, text=True, timeout=900)
        text = run.stdout + run.stderr
        summary = [l for l in text.splitlines() if l.startswith("Total:") or "Baseline" in l or "Unexpected" in l]
        passed, missing, bad = 0, [], []
        for name in scenarios:
            found = sorted(glob.glob(str(out / f"server-{name}-*" / "checks.json")))
            if not found:
                missing.append(name)
                continue
            checks = json.load(open(found[-1]))
            failing = [c["id"] for c in checks if c["status"] not in ("SUCCESS", "INFO", "SKIPPED")]
            if failing or not checks:
                bad.append(f"{name}: {', '.join(failing) or 'no checks'}")
            else:
                passed += 1
        print(f"== revision {revision}: {passed} of {len(scenarios)} required server scenarios pass; "
              f"suite exit {run.returncode}")
        for line in summary:
            print("  " + line.replace("\x1b[32m", "").replace("\x1b[31m", "").replace("\x1b[0m", ""))
        for name in missing:
            print(f"  FAIL: {name} did not run")
        for line in bad:
            print(f"  FAIL: {line}")
        for line in text.splitlines():
            if line.startswith("✗") and line[2:].split(":")[0] not in scenarios:
                print("  not scored for this revision (extension or pending): " + line[2:])
        if run.returncode != 0 or missing or bad or not scenarios:
            failed = True
            print(text[-3000:])
finally:
    proxy.terminate()
    server.terminate()
    proxy.wait()
    server.wait()

if failed:
    print("the MCP conformance suite found failures outside the baseline")
    sys.exit(1)
print("mcp: every server scenario of revisions " + " and ".join(REVISIONS) + " passes (baseline empty)")
