"""An HSP worker's handler for `aiproto recv --exec`: reads one TaskRequest
on stdin and writes its TaskResult, made by `aiproto compose --reply-to`,
on stdout (recv publishes it to the request's callback address).

What it answers is steered by the request's parameters `text`, as the
A2A TCK steers a server under test through the message it sends:
  "fail"    a failure, with error code E-ASKED and a message
  "reject"  a rejection
  "slow"    success after three seconds (time to cancel it)
  "big"     success with 12345678901234567890123 and 0.90 in the result,
            written as such (beyond a double, and a trailing zero)
anything else: success, the parameters echoed as the result, plus the
A2A message id the bridge passed through (payload.a2a_message).

A message whose A2A messageId starts with one of the A2A TCK's prefixes
(its scenarios/*.feature, a2a-tck 357c4a8) is answered as the scenario
says, in A2A terms: a TaskResult whose payload is {"a2a": {...}} (state,
artifacts, statusMessage, message; see docs/a2a.md).

Usage: python3 hsp_task_handler.py AIPROTO DID [DELAY]  (seconds before answering)
"""

import json
import subprocess
import sys
import time


def compose(aiproto, did, request, *args):
    done = subprocess.run(
        [aiproto, "compose", "hsp", "--reply-to", "-", "--from", did, *args],
        input=request,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def text_part(text):
    return {"text": text}


FILE = {"raw": "R2VuZXJhdGVkIGZpbGUgY29udGVudA==", "filename": "output.txt", "mediaType": "text/plain"}
FILE_URL = {"url": "https://example.com/output.txt", "filename": "output.txt", "mediaType": "text/plain"}


def agent_message(text):
    return {"messageId": f"agent-{time.time_ns()}", "role": "ROLE_AGENT", "parts": [text_part(text)]}


def artifact(part, artifact_id="artifact-1"):
    return {"artifactId": artifact_id, "parts": [part]}


# The TCK's scenarios, longest prefix first.
SCENARIOS = [
    ("tck-complete-task", lambda: {"state": "TASK_STATE_COMPLETED", "statusMessage": agent_message("Hello from TCK")}),
    ("tck-artifact-text", lambda: {"artifacts": [artifact(text_part("Generated text content"))]}),
    ("tck-artifact-file-url", lambda: {"artifacts": [artifact(FILE_URL)]}),
    ("tck-artifact-file", lambda: {"artifacts": [artifact(FILE)]}),
    ("tck-artifact-data", lambda: {"artifacts": [artifact({"data": {"key": "value", "count": 42}})]}),
    ("tck-message-response", lambda: {"message": agent_message("Direct message response")}),
    ("tck-input-required", lambda: {"state": "TASK_STATE_INPUT_REQUIRED", "statusMessage": agent_message("More input, please")}),
    ("tck-reject-task", lambda: {"state": "TASK_STATE_REJECTED", "statusMessage": agent_message("rejected")}),
    ("tck-stream-001", lambda: {"artifacts": [artifact(text_part("Stream hello from TCK"))]}),
    ("tck-stream-002", lambda: {"state": "TASK_STATE_COMPLETED"}),
    ("tck-stream-003", lambda: {"artifacts": [artifact(text_part("Stream task lifecycle"))]}),
    ("tck-stream-ordering-001", lambda: {"artifacts": [artifact(text_part("Ordered output"))]}),
    ("tck-stream-artifact-text", lambda: {"artifacts": [artifact(text_part("Streamed text content"))]}),
    ("tck-stream-artifact-file", lambda: {"artifacts": [artifact(FILE)]}),
    (
        "tck-stream-artifact-chunked",
        lambda: {"artifacts": [artifact(text_part("chunk-1 "), "chunked"), artifact(text_part("chunk-2"), "chunked")]},
    ),
]


def scenario(message_id):
    """The TCK scenario a message id asks for, in A2A terms, or None."""
    if message_id.startswith("test-resubscribe-message-id"):
        time.sleep(8)
        return {"state": "TASK_STATE_COMPLETED"}
    for prefix, answer in sorted(SCENARIOS, key=lambda s: -len(s[0])):
        if message_id.startswith(prefix):
            return answer()
    return None


def main():
    aiproto, did = sys.argv[1], sys.argv[2]
    time.sleep(float(sys.argv[3]) if len(sys.argv) > 3 else 0)
    request = sys.stdin.read()
    payload = json.loads(request)["payload"]
    parameters = payload.get("parameters", {})
    text = parameters.get("text") if isinstance(parameters, dict) else None
    message_id = (payload.get("a2a_message") or {}).get("messageId") or ""
    asked = scenario(message_id)
    if asked is not None:
        out = compose(aiproto, did, request, "--status", "success", "--result", json.dumps({"a2a": asked}))
    elif text == "fail":
        out = compose(aiproto, did, request, "--status", "failure", "--error-code", "E-ASKED", "--reason", "asked to fail")
    elif text == "reject":
        out = compose(aiproto, did, request, "--status", "rejected", "--error-code", "E-NO", "--reason", "not my kind of task")
    else:
        if text == "slow":
            time.sleep(3)
        result = {"echo": parameters, "by": did, "a2a_message_id": payload.get("a2a_message", {}).get("messageId")}
        if text == "big":
            result = {"n": "__BIG__", "x": "__DECIMAL__"}
        out = compose(aiproto, did, request, "--status", "success", "--result", json.dumps(result))
        out = out.replace('"__BIG__"', "12345678901234567890123").replace('"__DECIMAL__"', "0.90")
    sys.stdout.write(out)


if __name__ == "__main__":
    main()
