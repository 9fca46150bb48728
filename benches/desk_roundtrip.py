#!/usr/bin/env python3
"""What one paste costs on the desk, beside the terminal loop it replaces.

The desk answers `POST /api/read` with the verdict, the fields and the
signature state of every message in a paste. From a terminal the same
answer takes three processes: `aiproto validate`, `aiproto inspect` and
`aiproto verify` on the pasted text. Both are timed here in one run, on the
same transcript (two envelopes in chat prose), with the desk's peak memory.

usage: python3 benches/desk_roundtrip.py target/release/aiproto [CALLS]
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

REQUEST = """[[CLAUDE→CHATGPT v1]]
session: 2025-10-09T16Z abc123
thread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K
message: 01J9J3DBC4N7P2Q3R5S7T9W1V2
intent: REQUEST
body: |
  Please review the pagination patch.
sig: none
[[END]]
"""
TRANSCRIPT = f"Here is the request:\n\n```\n{REQUEST}```\n\nand again:\n\n" + REQUEST.replace(
    "W1V2", "W1V3"
)


def median_ms(samples):
    return statistics.median(samples) * 1000


def p95_ms(samples):
    return sorted(samples)[int(len(samples) * 0.95) - 1] * 1000


def main():
    binary = os.path.abspath(sys.argv[1])
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    home = tempfile.mkdtemp(prefix="desk-bench-home-")
    env = {**os.environ, "AIPROTO_HOME": home}
    desk = subprocess.Popen(
        [binary, "desk", "--listen", "127.0.0.1:0", "--archive", os.path.join(home, "a.crosstalk")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    url = desk.stdout.readline().strip()
    base, token = url.split("/#token=")
    body = json.dumps({"text": TRANSCRIPT}).encode()

    def read():
        request = urllib.request.Request(
            base + "/api/read",
            data=body,
            headers={"X-Aiproto-Token": token, "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request) as answer:
            assert len(json.load(answer)["messages"]) == 2

    for _ in range(10):
        read()
    desk_times = []
    for _ in range(calls):
        start = time.perf_counter()
        read()
        desk_times.append(time.perf_counter() - start)
    with open(f"/proc/{desk.pid}/status") as status:
        peak = next(l for l in status if l.startswith("VmHWM")).split()[1]
    desk.terminate()
    desk.wait()

    terminal_times = []
    for _ in range(max(calls // 3, 30)):
        start = time.perf_counter()
        for command in (["validate", "-"], ["inspect", "-"], ["verify", "-"]):
            subprocess.run(
                [binary, *command],
                input=TRANSCRIPT,
                text=True,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        terminal_times.append(time.perf_counter() - start)

    d, t = median_ms(desk_times), median_ms(terminal_times)
    print(f"desk POST /api/read     median {d:.2f} ms  p95 {p95_ms(desk_times):.2f} ms  ({calls} calls)")
    print(f"validate+inspect+verify median {t:.2f} ms  p95 {p95_ms(terminal_times):.2f} ms  (3 processes)")
    print(f"ratio: the desk answers a paste {t / d:.1f}x faster; desk peak RSS {int(peak) / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
