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


def main():
    aiproto, did = sys.argv[1], sys.argv[2]
    time.sleep(float(sys.argv[3]) if len(sys.argv) > 3 else 0)
    request = sys.stdin.read()
    payload = json.loads(request)["payload"]
    parameters = payload.get("parameters", {})
    text = parameters.get("text") if isinstance(parameters, dict) else None
    if text == "fail":
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
