#!/usr/bin/env python3
"""Growth of aiproto's cost on hostile input shapes.

Each shape is generated at a base size and at 10x and 100x it, run through
the release binary, and timed with its peak memory (GNU time). Linear cost
shows as time and memory growing about 10x per row. Run from the
repository root after `cargo build --release`:

    python3 benches/growth.py [--scale 0.1] [--bin target/release/aiproto]
"""

import argparse
import json
import os
import subprocess
import tempfile

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def ulid(n):
    """A distinct ULID for each number."""
    s = ""
    for _ in range(16):
        s = ALPHABET[n % 32] + s
        n //= 32
    return "01J9J3D3M6" + s


def envelope(msg, parent=None, body="x", intent="RESPOND", sender="A", meta=""):
    head = f"[[{sender}→B v1]]\nthread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K\n"
    if parent:
        head += f"parent: {parent}\n"
    return f"{head}message: {msg}\nintent: {intent}\n{meta}body: |\n  {body}\nsig: none\n[[END]]\n\n"


def thread_chain(n):
    return "".join(envelope(ulid(i), ulid(i - 1) if i else None) for i in range(n))


def cycle_below_chain(n):
    a, b = ulid(10**9), ulid(10**9 + 1)
    out = [envelope(a, b), envelope(b, a)]
    out += [envelope(ulid(i), ulid(i + 1) if i + 1 < n else a) for i in range(n)]
    return "".join(out)


def csdl_ring(n):
    steps = [{"id": f"s{i}", "action": "f", "next": f"s{(i + 1) % n}"} for i in range(n)]
    return json.dumps({"t": "workflow", "n": "ring", "s": steps})


def csdl_conditionals(n):
    steps = [
        {
            "id": f"c{i}",
            "action": "conditional",
            "condition": "{{c%d.ok}}" % ((i * 7919) % n),
            "true_next": f"c{(i * 31 + 1) % n}",
            "false_next": f"c{(i * 17 + 3) % n}",
            "a": {"x": "{{c%d.v}}" % ((i * 13 + 5) % n)},
        }
        for i in range(n)
    ]
    return json.dumps({"t": "workflow", "n": "cond", "s": steps})


def hsp_array(n):
    with open("examples/hsp/valid/1.0/task-request.json") as f:
        one = json.dumps(json.load(f))
    return "[\n" + ",\n".join([one] * n) + "\n]\n"


def one_long_line(n):
    # Many findings on one line: each names its column.
    return json.dumps([{"hsp_envelope_version": "1.0", "message_id": f"m{i}"} for i in range(n)])


def poll_replies(n):
    poll = envelope(ulid(0), None, "Which one?", "POLL", "ASKER", "meta: poll\nOptions: a, b\n\n")
    return poll + "".join(envelope(ulid(i + 1), ulid(0), "a" if i % 2 else "b", "RESPOND", f"V{i}") for i in range(n))


def broken_json_lines(n):
    return '{"hsp_envelope_version": "1.0", "message_id": }\n' * n


SHAPES = [
    # (name, generator, base size, command)
    ("thread: parent chain", thread_chain, 250, ["thread"]),
    ("thread --format json: parent chain", thread_chain, 250, ["thread", "--format", "json"]),
    ("thread: 2-cycle below a chain", cycle_below_chain, 250, ["thread"]),
    ("validate: CSDL workflow ring", csdl_ring, 400, ["validate"]),
    ("validate: CSDL conditionals with templates", csdl_conditionals, 200, ["validate"]),
    ("validate: top-level HSP array", hsp_array, 600, ["validate"]),
    ("validate: one line, many findings", one_long_line, 300, ["validate"]),
    ("poll collate: one POLL, many replies", poll_replies, 1000, ["poll", "collate"]),
    ("validate: broken JSON Lines", broken_json_lines, 10000, ["validate"]),
]


def run(binary, args, path):
    with open(os.devnull, "w") as null:
        proc = subprocess.run(
            ["/usr/bin/time", "-f", "%e %M", binary, *args, path],
            stdout=null,
            stderr=subprocess.PIPE,
            text=True,
        )
    seconds, kb = proc.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kb), proc.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="target/release/aiproto")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every base size")
    args = parser.parse_args()
    print("| shape | n | input | time | peak memory | exit |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for name, generate, base, command in SHAPES:
            for factor in (1, 10, 100):
                n = max(1, int(base * factor * args.scale))
                path = os.path.join(tmp, "input")
                with open(path, "w") as f:
                    f.write(generate(n))
                size = os.path.getsize(path)
                seconds, kb, code = run(args.bin, command, path)
                print(f"| {name} | {n} | {size / 1e6:.2f} MB | {seconds:.2f} s | {kb / 1024:.0f} MB | {code} |")


if __name__ == "__main__":
    main()
