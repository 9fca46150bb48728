#!/usr/bin/env python3
"""`aiproto mcp` under the MCP Inspector's CLI mode
(`@modelcontextprotocol/inspector` from npm): the tools listed with and
without `--allow-network`, tools called, the prompt and the resources read.
Prints each Inspector command and a short answer: the transcript of a session.

With a second Inspector (v2, whose CLI sends headers), the same over
Streamable HTTP: `aiproto mcp --listen` with a bearer token, tools/list and
a tools/call of every tool through `--transport http --header`.

usage: mcp_inspector.py INSPECTOR_BINARY AIPROTO_BINARY REPO_ROOT [INSPECTOR_V2_BINARY]
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

inspector = sys.argv[1]
binary = os.path.abspath(sys.argv[2])
repo = pathlib.Path(sys.argv[3]).resolve()
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


root = pathlib.Path(tempfile.mkdtemp(prefix="aiproto-inspector-"))
home = tempfile.mkdtemp(prefix="aiproto-inspector-home-")
shutil.copy(repo / "examples/crosstalk/valid/v1_1-respond.crosstalk", root / "respond.crosstalk")
request = (repo / "examples/crosstalk/valid/v1_1-request-routing.crosstalk").read_text()
(root / "cut.crosstalk").write_text(request.replace("[[END]]", ""))


def inspect(*args, server=()):
    command = [inspector, "--cli", "-e", f"AIPROTO_HOME={home}", binary, "mcp", *server, *args]
    # A long argument (an envelope) is shown as the file it came from.
    shown_args = [a.split("=")[0] + '="$(cat request.crosstalk)"' if "\n" in a else a for a in args]
    shown = " ".join(["mcp-inspector --cli aiproto mcp", *server, *shown_args])
    run = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=60)
    check(run.returncode == 0, f"{shown}: exit {run.returncode}: {run.stderr[-500:]}")
    answer = json.loads(run.stdout) if run.returncode == 0 else {}
    print(f"$ {shown}")
    return answer


tools = inspect("--method", "tools/list")
names = sorted(t["name"] for t in tools.get("tools", []))
print("  tools:", ", ".join(names))
check("send" not in names and "validate" in names, f"tools without --allow-network: {names}")

tools = inspect("--method", "tools/list", server=["--allow-network"])
names = sorted(t["name"] for t in tools.get("tools", []))
print("  tools:", ", ".join(names))
check({"send", "recv"} <= set(names), f"tools with --allow-network: {names}")

got = inspect("--method", "tools/call", "--tool-name", "validate", "--tool-arg", "path=respond.crosstalk")
print("  valid:", got.get("structuredContent", {}).get("valid"))
check(got.get("structuredContent", {}).get("valid") is True, "respond.crosstalk is valid")

got = inspect("--method", "tools/call", "--tool-name", "validate", "--tool-arg", "path=cut.crosstalk")
errors = [e["code"] for m in got.get("structuredContent", {}).get("messages", []) for e in m["errors"]]
print("  valid:", got.get("structuredContent", {}).get("valid"), "errors:", ", ".join(errors))
check(got.get("structuredContent", {}).get("valid") is False and errors, "a cut-off envelope is invalid")

got = inspect("--method", "tools/call", "--tool-name", "inspect", "--tool-arg", "path=../../etc/passwd")
print("  isError:", got.get("isError"), "—", got.get("content", [{}])[0].get("text"))
check(got.get("isError") is True, "a path with .. is refused")

got = inspect("--method", "tools/call", "--tool-name", "compose", "--tool-arg", "protocol=crosstalk",
              "--tool-arg", f"reply_to={request}", "--tool-arg", "body=Cursor pagination.")
reply = got.get("structuredContent", {})
print("  thread:", reply.get("thread"), "parent:", reply.get("parent"))
check(reply.get("parent") == "01J9J3DBC4N7P2Q3R5S7T9W1V2", "the reply's parent is the request")

prompts = inspect("--method", "prompts/list")
print("  prompts:", ", ".join(p["name"] for p in prompts.get("prompts", [])))
check([p["name"] for p in prompts.get("prompts", [])] == ["crosstalk_primer"], "the primer prompt")

resources = inspect("--method", "resources/list")
uris = [r["uri"] for r in resources.get("resources", [])]
print(f"  {len(uris)} resources, e.g.", ", ".join(uris[:3]))
check("aiproto://protocols/crosstalk" in uris, "the Crosstalk summary is a resource")

summary = inspect("--method", "resources/read", "--uri", "aiproto://protocols/crosstalk")
text = summary.get("contents", [{}])[0].get("text", "")
print("  first line:", text.splitlines()[0] if text else "")
check("[[END]]" in text, "the summary explains the envelope")


def over_http(inspector2):
    """Every tool called through the Inspector v2 CLI over HTTP."""
    token = "inspector-token-" + os.urandom(12).hex()
    assert subprocess.run([binary, "keygen", "-q", "--id", "k1", "--signs-for", "claude://session/abc"], cwd=root,
                          env={**os.environ, "AIPROTO_HOME": home}).returncode == 0
    server = subprocess.Popen(
        [binary, "mcp", "--root", str(root), "--allow-network", "--allow-signing", "--listen", "127.0.0.1:0",
         "--archive", str(root / "archive.crosstalk")],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "AIPROTO_HOME": home, "AIPROTO_MCP_TOKEN": token})
    url = server.stdout.readline().strip()
    shutil.copy(repo / "examples/crosstalk/valid/v1_1-poll-and-answers.crosstalk", root / "poll.crosstalk")

    def call(*args, header=f"Authorization: Bearer {token}"):
        command = [inspector2, "--cli", "--transport", "http", "--server-url", url, "--header", header, *args]
        shown = " ".join(["mcp-inspector --cli --transport http --server-url", url,
                          '--header "Authorization: Bearer $TOKEN"',
                          *[a.split("=")[0] + "=…" if "\n" in a else a for a in args]])
        run = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=90)
        print(f"$ {shown}")
        return run

    try:
        run = call("--method", "tools/list")
        check(run.returncode == 0, f"tools/list over HTTP: exit {run.returncode}: {run.stderr[-400:]}")
        tools = json.loads(run.stdout).get("tools", []) if run.returncode == 0 else []
        names = sorted(t["name"] for t in tools)
        print("  tools:", ", ".join(names))
        check(len(names) == 10 and all(t.get("outputSchema") for t in tools),
              f"ten tools, each with an output schema: {names}")
        calls = {
            "validate": ["path=respond.crosstalk"],
            "inspect": ["path=respond.crosstalk"],
            "compose": ["protocol=crosstalk", f"reply_to={request}", "body=Over HTTP."],
            "convert": ["path=respond.crosstalk", "to=hsp"],
            "sign": [f"text={request}", "key=k1"],
            "verify": ["path=respond.crosstalk"],
            "thread": ['paths=["respond.crosstalk"]'],
            "poll_collate": ['paths=["poll.crosstalk"]'],
            "send": [f"text={request}", "via=file:archive.crosstalk"],
            "recv": ["via=file:archive.crosstalk", "count=1", "timeout_seconds=2"],
        }
        for tool, args in calls.items():
            run = call("--method", "tools/call", "--tool-name", tool, *[x for a in args for x in ("--tool-arg", a)])
            answer = json.loads(run.stdout) if run.returncode == 0 and run.stdout.strip() else {}
            content = answer.get("structuredContent") or {}
            print(f"  {tool}: isError={answer.get('isError')} keys={sorted(content)[:5]}")
            check(run.returncode == 0 and "content" in answer, f"{tool} over HTTP: {run.stderr[-300:]}")
            check(answer.get("isError") is False, f"{tool} over HTTP answers: {answer}"[:400])
        run = call("--method", "tools/list", header="Authorization: Bearer wrong")
        check(run.returncode != 0, "the Inspector with a wrong token is refused")
        print("  with a wrong token: exit", run.returncode)
    finally:
        server.terminate()
        server.wait()


if len(sys.argv) > 4:
    over_http(sys.argv[4])

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("mcp: the Inspector lists and calls every kind of thing aiproto offers")
