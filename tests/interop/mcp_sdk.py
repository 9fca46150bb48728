#!/usr/bin/env python3
"""`aiproto mcp` driven by the official MCP Python SDK (`mcp` on PyPI) over
stdio and over Streamable HTTP (`--listen`, with the bearer token), as a
host would drive it: initialize, list the tools, prompts and resources,
call every tool with good and bad input, and compare each answer with the
command line's `--format json` output for the same input. Every scenario
runs on both transports. Also measures the round-trip time of a `validate`
call, and checks that the HTTP face refuses a client without the token.

usage: mcp_sdk.py AIPROTO_BINARY REPO_ROOT
"""
import anyio
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

binary = os.path.abspath(sys.argv[1])
repo = pathlib.Path(sys.argv[2]).resolve()
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def cli(*args, cwd, home, stdin=None):
    run = subprocess.run(
        [binary, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "AIPROTO_HOME": home, "NO_COLOR": "1"},
    )
    return run


def lines(stdout):
    return [json.loads(l) for l in stdout.splitlines() if l.strip()]


def structured(result):
    return result.structured_content


TOKEN = "sdk-test-token-" + os.urandom(12).hex()


async def session_run(root, home, extra, body, handshake="initialize", transport="stdio", token=TOKEN):
    async def talk(read, write):
        async with ClientSession(read, write) as session:
            if handshake == "discover":
                # The 2026-07-28 revision: no initialize, the server is discovered.
                init = await session.discover()
            else:
                init = await session.initialize()
            await body(session, init)

    if transport == "stdio":
        params = StdioServerParameters(
            command=binary,
            args=["mcp", "--root", str(root), *extra],
            cwd=str(root),
            env={**os.environ, "AIPROTO_HOME": home},
        )
        async with stdio_client(params) as (read, write):
            await talk(read, write)
        return
    server = subprocess.Popen(
        [binary, "mcp", "--root", str(root), *extra, "--listen", "127.0.0.1:0"],
        cwd=str(root), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "AIPROTO_HOME": home, "AIPROTO_MCP_TOKEN": TOKEN},
    )
    try:
        url = server.stdout.readline().strip()
        check(url.startswith("http://127.0.0.1:") and url.endswith("/mcp"), f"the URL on stdout: {url}")
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with client, streamable_http_client(url, http_client=client) as streams:
            await talk(streams[0], streams[1])
    finally:
        server.terminate()
        server.wait()


async def main():
    work = pathlib.Path(tempfile.mkdtemp(prefix="aiproto-mcp-"))
    home = tempfile.mkdtemp(prefix="aiproto-mcp-home-")
    root = work / "project"
    root.mkdir()
    for name in ["v1_1-poll-and-answers.crosstalk", "v1_1-request-routing.crosstalk", "v1_1-respond.crosstalk"]:
        shutil.copy(repo / "examples/crosstalk/valid" / name, root / name)
    shutil.copy(repo / "examples/crosstalk/pasted/chat-transcript.md", root / "transcript.md")
    shutil.copy(repo / "examples/hsp/valid/1.0/task-request.json", root / "task-request.json")
    request = (root / "v1_1-request-routing.crosstalk").read_text()
    cut = request.replace("[[END]]", "")
    (root / "cut.crosstalk").write_text(cut)
    (work / "outside.crosstalk").write_text(request)
    os.symlink(work / "outside.crosstalk", root / "escape.crosstalk")
    assert cli("keygen", "-q", "--id", "claude-key", "--signs-for", "claude://session/abc", cwd=root, home=home).returncode == 0

    async def default_server(session, init):
        check(init.server_info.name == "aiproto", f"server name {init.server_info.name}")
        print("protocol version:", init.protocol_version)
        tools = {t.name: t for t in (await session.list_tools()).tools}
        check(sorted(tools) == ["compose", "convert", "inspect", "poll_collate", "sign", "thread", "validate", "verify"],
              f"tools with --allow-signing, without --allow-network: {sorted(tools)}")
        check(not tools["sign"].annotations.read_only_hint and "Speaks as the person" in tools["sign"].description,
              "sign says it speaks as the person and is not read-only")
        check(all(t.description and t.input_schema.get("type") == "object" for t in tools.values()),
              "every tool has a description and an object input schema")
        prompts = (await session.list_prompts()).prompts
        check([p.name for p in prompts] == ["crosstalk_primer"], f"prompts {[p.name for p in prompts]}")
        resources = (await session.list_resources()).resources
        uris = {str(r.uri) for r in resources}
        check("aiproto://protocols/msp" in uris and "aiproto://schemas/aiproto/validate-report" in uris,
              f"resources {sorted(uris)[:5]}")
        schema = await session.read_resource("aiproto://schemas/hsp/1.0/fact")
        check(json.loads(schema.contents[0].text).get("$schema"), "a schema resource is a JSON Schema")

        # validate: every input, against `validate --format json`.
        for name in ["v1_1-poll-and-answers.crosstalk", "transcript.md", "cut.crosstalk", "task-request.json"]:
            want = lines(cli("validate", "--format", "json", name, cwd=root, home=home).stdout)
            got = await session.call_tool("validate", {"path": name})
            check(not got.is_error, f"validate {name}: no tool error")
            check(structured(got)["messages"] == want, f"validate {name}: same verdicts as the CLI")
        got = await session.call_tool("validate", {"path": "cut.crosstalk"})
        codes = [e["code"] for m in structured(got)["messages"] for e in m["errors"]]
        check(structured(got)["valid"] is False and codes, f"a cut-off envelope is invalid: {codes}")
        got = await session.call_tool("validate", {"text": "\u00a0[[CLAUDE→GPT v1]]\nintent: INFORM\n---\nhi\n[[END]]\n", "strict": True})
        check(structured(got)["valid"] is False, "strict turns a repair into an error")
        bad = await session.call_tool("validate", {"text": "x", "path": "y"})
        check(bad.is_error, "text and path together are a tool error")

        # inspect, thread, poll_collate, verify: the CLI's records.
        for tool, args, command in [
            ("inspect", {"path": "transcript.md"}, ["inspect", "--format", "json", "transcript.md"]),
            ("verify", {"path": "v1_1-respond.crosstalk"}, ["verify", "--format", "json", "v1_1-respond.crosstalk"]),
        ]:
            want = lines(cli(*command, cwd=root, home=home).stdout)
            got = await session.call_tool(tool, args)
            check(structured(got)["messages"] == want, f"{tool}: same records as the CLI")
        want = lines(cli("thread", "--format", "json", "v1_1-poll-and-answers.crosstalk", cwd=root, home=home).stdout)
        got = await session.call_tool("thread", {"paths": ["v1_1-poll-and-answers.crosstalk"]})
        check(structured(got)["records"] == want, "thread: same records as the CLI")
        want = lines(cli("poll", "collate", "--format", "json", "v1_1-poll-and-answers.crosstalk", cwd=root, home=home).stdout)
        got = await session.call_tool("poll_collate", {"texts": [(root / "v1_1-poll-and-answers.crosstalk").read_text()]})
        check([{**p, "source": "x"} for p in structured(got)["polls"]] == [{**p, "source": "x"} for p in want],
              "poll_collate: same collation as the CLI")
        got = await session.call_tool("poll_collate", {"texts": [request]})
        check(got.is_error, "poll_collate without a POLL is a tool error")

        # convert: the CLI's text and loss report.
        run = cli("convert", "--to", "hsp", "--format", "json", "v1_1-request-routing.crosstalk", cwd=root, home=home)
        got = await session.call_tool("convert", {"path": "v1_1-request-routing.crosstalk", "to": "hsp"})
        message = structured(got)["messages"][0]
        # The same message, but for the time it was written (a generated field).
        unstamped = lambda text: {k: v for k, v in json.loads(text).items() if k != "timestamp_sent"}
        check(unstamped(message["text"]) == unstamped(run.stdout), "convert: same message as the CLI")
        check(message["dropped"] == lines(run.stderr)[0]["dropped"] if run.stderr.strip() else message["dropped"] == [],
              "convert: same losses as the CLI")
        strict = await session.call_tool("convert", {"path": "v1_1-request-routing.crosstalk", "to": "msp", "strict": True})
        lossy = await session.call_tool("convert", {"path": "v1_1-request-routing.crosstalk", "to": "msp"})
        check(strict.is_error == bool(structured(lossy)["messages"][0]["dropped"]), "strict refuses only a lossy conversion")
        got = await session.call_tool("convert", {"path": "cut.crosstalk", "to": "hsp"})
        check(got.is_error, "an invalid message is not converted")

        # compose: a reply in the thread; the CLI gives the same route, thread and parent.
        reply = await session.call_tool("compose", {"protocol": "crosstalk", "reply_to": request, "body": "Done."})
        check(not reply.is_error, f"compose reply: {reply.content}")
        r = structured(reply)
        cli_reply = cli("compose", "crosstalk", "--reply-to", "v1_1-request-routing.crosstalk", "--body", "Done.",
                        cwd=root, home=home).stdout
        cli_model = lines(cli("inspect", "--format", "json", "-", cwd=root, home=home, stdin=cli_reply).stdout)[0]["message"]
        check((r["thread"], r["parent"]) == (cli_model["thread"], cli_model["parent"]), "compose: thread and parent as the CLI's")
        check(r["text"].splitlines()[0] == cli_reply.splitlines()[0], "compose: the route as the CLI's")
        hsp = await session.call_tool("compose", {"protocol": "hsp", "kind": "fact", "from": "did:hsp:a",
                                                  "payload": {"statement_nl": "The sky is blue.", "confidence_score": 0.9}})
        check(not hsp.is_error and json.loads(structured(hsp)["text"])["payload"]["statement_nl"] == "The sky is blue.",
              f"compose hsp fact: {hsp.content}")
        answer = await session.call_tool("compose", {"protocol": "hsp", "kind": "task-result", "from": "did:hsp:b",
                                                     "reply_to": (root / "task-request.json").read_text(),
                                                     "payload": {"status": "success", "payload": {"ok": True}}})
        check(not answer.is_error, f"compose hsp task-result: {answer.content}")
        original = json.loads((root / "task-request.json").read_text())
        check(json.loads(structured(answer)["text"]).get("correlation_id") == original["message_id"],
              "a TaskResult correlates with its request")
        bad = await session.call_tool("compose", {"protocol": "hsp", "kind": "nonsense", "from": "did:hsp:a"})
        check(bad.is_error, "an unknown HSP kind is a tool error")

        # sign and verify with the keystore: the signer is bound to the sender.
        signed = await session.call_tool("sign", {"path": "v1_1-request-routing.crosstalk", "key": "claude-key"})
        check(not signed.is_error, f"sign: {signed.content}")
        s = structured(signed)
        check("PRIVATE" not in json.dumps(s), "no private key in a result")
        verdict = await session.call_tool("verify", {"text": s["text"]})
        v = structured(verdict)["messages"][0]
        check(v["valid"] and v["key_id"] == "claude-key" and v["sender"] == "claude://session/abc" and v["bound"],
              f"verify: signer, sender, bound: {v}")
        cli_v = lines(cli("verify", "--format", "json", "-", cwd=root, home=home, stdin=s["text"]).stdout)[0]
        check({**cli_v, "source": ""} == {**v, "source": ""}, "verify: the CLI's verdict")
        tampered = s["text"].replace("intent: REQUEST", "intent: INFORM")
        bad = await session.call_tool("verify", {"text": tampered})
        check(structured(bad)["valid"] is False, "a tampered envelope does not verify")
        bad = await session.call_tool("sign", {"text": request, "key": "nobody"})
        check(bad.is_error, "an unknown key is a tool error")

        # The sandbox.
        for path in ["../outside.crosstalk", str(work / "outside.crosstalk"), "escape.crosstalk", "/etc/passwd"]:
            got = await session.call_tool("validate", {"path": path})
            check(got.is_error, f"{path} is refused")

        # The primer prompt, filled for a reply.
        prompt = await session.get_prompt("crosstalk_primer", {"reply_to": request})
        text = prompt.messages[0].content.text
        check("[[chatgpt://thread/xyz→claude://session/abc v1]]" in text and "parent: 01J9J3DBC4N7P2Q3R5S7T9W1V2" in text,
              "the primer shows the reply's envelope to fill")

        # Round-trip time of a validate call.
        times = []
        for _ in range(200):
            start = time.perf_counter()
            await session.call_tool("validate", {"text": request})
            times.append(time.perf_counter() - start)
        times.sort()
        # What an assistant without the server does: one process per check.
        spawns = []
        for _ in range(200):
            start = time.perf_counter()
            cli("validate", "-q", "-", cwd=root, home=home, stdin=request)
            spawns.append(time.perf_counter() - start)
        spawns.sort()
        median, spawned = statistics.median(times), statistics.median(spawns)
        print(f"validate round trip: median {median * 1000:.2f} ms, "
              f"p95 {times[int(len(times) * 0.95)] * 1000:.2f} ms ({len(times)} calls, {len(request)} bytes); "
              f"`aiproto validate -` as a new process: median {spawned * 1000:.2f} ms ({spawned / median:.1f}x)")

    for transport in ["stdio", "http"]:
        print(f"== over {transport}")
        await session_run(root, home, ["--allow-signing"], default_server, transport=transport)

    async def networked(session, init):
        tools = {t.name for t in (await session.list_tools()).tools}
        check({"send", "recv"} <= tools, "send and recv with --allow-network")
        check("sign" not in tools, "sign only with --allow-signing")
        try:
            got = await session.call_tool("sign", {"text": request, "key": "claude-key"})
            refused = got.is_error
        except Exception as error:  # the SDK raises the server's "no tool sign"
            refused = "sign" in str(error)
        check(refused, "an unlisted sign is refused")
        (root / ".bashrc").write_text("# shell\n")
        got = await session.call_tool("send", {"text": request, "via": "file:.bashrc"})
        check(got.is_error and (root / ".bashrc").read_text() == "# shell\n",
              "send appends to no file but message files and the archive")
        for expected in [1, 0]:
            got = await session.call_tool("send", {"text": request, "via": "file:archive.crosstalk"})
            check(not got.is_error and structured(got)["appended"] == expected, f"send to the archive appends {expected}")
        got = await session.call_tool("send", {"text": cut, "via": "file:archive.crosstalk"})
        check(got.is_error, "a cut-off envelope is not sent")
        got = await session.call_tool("send", {"text": request, "via": "-"})
        check(got.is_error, "stdout (the MCP channel) is refused")
        archive = await session.read_resource("aiproto://archive")
        check(archive.contents[0].text.count("[[END]]") == 1, "the archive resource holds the message once")
        got = await session.call_tool("recv", {"via": "file:archive.crosstalk", "count": 1, "timeout_seconds": 2})
        check(not got.is_error and len(structured(got)["messages"]) == 1, f"recv reads the archive: {got.content}")

    for transport in ["stdio", "http"]:
        (root / "archive.crosstalk").unlink(missing_ok=True)
        await session_run(root, home, ["--allow-network", "--archive", str(root / "archive.crosstalk")], networked,
                          transport=transport)

    async def current_revision(session, discovered):
        check("2026-07-28" in discovered.supported_versions, f"revisions {discovered.supported_versions}")
        got = await session.call_tool("validate", {"text": request})
        check(session.protocol_version == "2026-07-28", f"spoke {session.protocol_version}")
        check(not got.is_error and structured(got)["valid"], "validate under the current revision")
        print("discovered revisions:", discovered.supported_versions)

    for transport in ["stdio", "http"]:
        await session_run(root, home, [], current_revision, handshake="discover", transport=transport)

    # Without the right token the SDK's client gets nowhere: its first
    # request is answered 401 (seen here with a plain HTTP client).
    async def never(session, init):
        check(False, "a session opened with a wrong token")
    try:
        await session_run(root, home, [], never, transport="http", token="wrong-" + TOKEN)
    except BaseException as error:  # the SDK raises the refusal inside a task group
        print("a wrong token, as the SDK reports it:", repr(error)[:160])
    else:
        check(False, "a wrong token was let in")
    server = subprocess.Popen([binary, "mcp", "--root", str(root), "--listen", "127.0.0.1:0"], cwd=str(root),
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env={**os.environ, "AIPROTO_HOME": home, "AIPROTO_MCP_TOKEN": TOKEN})
    try:
        url = server.stdout.readline().strip()
        request_ = urllib.request.Request(url, method="POST", data=b"{}", headers={
            "Authorization": "Bearer wrong-" + TOKEN, "Content-Type": "application/json"})
        try:
            urllib.request.urlopen(request_, timeout=10)
            check(False, "a wrong token got 2xx")
        except urllib.error.HTTPError as refused:
            check(refused.code == 401 and "Bearer" in refused.headers.get("WWW-Authenticate", ""),
                  f"a wrong token: {refused.code} {refused.headers.get('WWW-Authenticate')}")
    finally:
        server.terminate()
        server.wait()

    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("mcp: the Python SDK's answers match the command line's")


anyio.run(main)
