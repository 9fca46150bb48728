#!/usr/bin/env python3
"""Grades every implementation the conformance kit can run here, and keeps
docs/conformance.md honest: aiproto in each mode (validate as a parser,
verify as a verifier, serve over both HTTP bindings) must pass every
vector; the upstream implementations — the two envelope parsers of
ai-crosstalk (Node), Unified-AI-Project's HSP types and payload schemas and
the MSP spec's pydantic model (Python) — are graded, and their grades must be the ones the
table in docs/conformance.md publishes (between the `grades` markers).
`--write` rewrites that table from this run.

usage: conformance_upstream.py AIPROTO_BIN REPO_ROOT [--write]
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import aiproto_agent

binary, repo = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
write = "--write" in sys.argv
interop = repo / "tests/interop"
home = tempfile.mkdtemp()
env = dict(os.environ, AIPROTO_HOME=home, NO_COLOR="1")


def grade(name, args):
    out = subprocess.run([binary, "conformance", *args[:1], "--format", "json", *args[1:]],
                         capture_output=True, text=True, env=env, cwd=repo)
    if out.returncode not in (0, 1):
        sys.exit(f"{name}: aiproto conformance exited {out.returncode}: {out.stderr}")
    records = [json.loads(line) for line in out.stdout.splitlines()]
    summary = records[-1]
    assert summary["record"] == "summary", summary
    failed = [r for r in records[:-1] if not r["passed"]]
    return summary, failed


def cell(c):
    return f"{c['passed']}/{c['total']}" if c["total"] else "—"


rows = []
failures = 0


def graded(name, protocol_filter, args, must_pass):
    global failures
    summary, failed = grade(name, args)
    for p in summary["protocols"]:
        if protocol_filter and p["protocol"] != protocol_filter:
            continue
        rows.append(f"| {name} | {p['protocol']} | {cell(p['mandatory'])} | {cell(p['recommended'])} "
                    f"| {cell(p['decision'])} | {p['compliance']} |")
    if must_pass and failed:
        failures += 1
        for r in failed[:20]:
            print(f"FAIL {name}: {r['id']}: {r.get('why')}", file=sys.stderr)
    print(f"{name}: {summary['passed']}/{summary['vectors']} vectors", file=sys.stderr)
    return failed


me = str(pathlib.Path(binary).resolve())
graded("aiproto validate (parser, --codes)", None,
       ["parser", "--adapter", "json", "--codes", "--", me, "validate", "--format", "json", "-p", "{protocol}", "{}"], True)
graded("aiproto verify (verifier)", None, ["verifier", "--", me, "verify", "--pubkey", "{key}", "{}"], True)

serve = subprocess.Popen([me, "serve", "--listen", "127.0.0.1:0", "--inbox", os.path.join(home, "inbox")],
                         stderr=subprocess.PIPE, text=True, env=env)
try:
    line = serve.stderr.readline()
    url = re.search(r"http://\S+", line).group(0)
    for route, protocol in (("crosstalk/receive", "crosstalk"), ("hsp", "hsp")):
        graded(f"aiproto serve (http /{route})", protocol, ["http", f"{url}/{route}"], True)
finally:
    serve.terminate()
    serve.wait()

# aiproto as an HSP agent: `recv` (ACKs, NACKs) and a worker answering
# TaskRequests with `compose hsp task-result` and `send`, on the built-in broker.
broker = subprocess.Popen([me, "broker", "--listen", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True, env=env)
try:
    line = broker.stderr.readline()
    port = re.search(r"127\.0\.0\.1:(\d+)", line).group(1)
    agent = aiproto_agent.start(me, f"mqtt://127.0.0.1:{port}", env, lifetime=300)
    try:
        graded("aiproto recv + compose worker (mqtt agent)", None,
               ["mqtt", f"mqtt://127.0.0.1:{port}", "--agent", "did:hsp:worker", "--capability", "echo"], True)
    finally:
        aiproto_agent.stop(agent)
finally:
    broker.terminate()
    broker.wait()

ct = interop / "upstream/ai_crosstalk"
upstream_failures = {}
upstream_failures["ai-crosstalk envelope.js parse"] = graded(
    "ai-crosstalk `envelope.js parse` (Node)", None, ["parser", "-p", "crosstalk", "--", "node", str(ct / "envelope.js"), "parse"], False)
upstream_failures["ai-crosstalk tmp/bin/envelope.js parse"] = graded(
    "ai-crosstalk `tmp/bin/envelope.js parse` (Node)", None,
    ["parser", "-p", "crosstalk", "--", "node", str(ct / "tmp-bin-envelope.cjs"), "parse"], False)
upstream_failures["Unified-AI-Project HSP types"] = graded(
    "Unified-AI-Project HSP types (pydantic, strict)", None,
    ["parser", "-p", "hsp", "--", sys.executable, str(interop / "adapters/hsp_upstream_types.py"), "{}"], False)
upstream_failures["Unified-AI-Project HSP schemas"] = graded(
    "Unified-AI-Project payload schemas (python-jsonschema)", None,
    ["parser", "-p", "hsp", "--", sys.executable, str(interop / "adapters/hsp_upstream_schemas.py"), "{}"], False)
upstream_failures["MSP MinimalSignal"] = graded(
    "MSP spec's `MinimalSignal` (pydantic)", None,
    ["parser", "-p", "msp", "--", sys.executable, str(interop / "adapters/msp_pydantic.py"), "{}"], False)

table = "\n".join(["| implementation | protocol | mandatory | recommended | decision | compliance |",
                   "| --- | --- | --- | --- | --- | --- |", *rows])
doc = repo / "docs/conformance.md"
text = doc.read_text()
start, end = "<!-- grades:start -->\n", "<!-- grades:end -->"
published = text.split(start, 1)[1].split(end, 1)[0].strip() if start in text else None
if write:
    text = text.split(start, 1)[0] + start + table + "\n" + end + text.split(end, 1)[1]
    doc.write_text(text)
    details = {name: [(r["id"], r["code"], r["level"]) for r in failed] for name, failed in upstream_failures.items()}
    (pathlib.Path(tempfile.gettempdir()) / "conformance-upstream-failures.json").write_text(json.dumps(details, indent=1))
elif published != table:
    print("docs/conformance.md publishes other grades than this run measured:\n" + table, file=sys.stderr)
    failures += 1
print(table)
sys.exit(1 if failures else 0)
