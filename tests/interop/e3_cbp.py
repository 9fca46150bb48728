#!/usr/bin/env python3
"""E3's own CBP encoder (vendored in tests/interop/upstream/e3_cbp, MIT)
writes frames; aiproto reads them and must agree with E3's own decoder.

Usage: e3_cbp.py AIPROTO_BINARY

What is checked, each against E3's code run here offline:
- plain, LZ4, deduplicated and delta frames of E3's agent messages, in one
  stream: aiproto decodes every field E3's CBPDecoder decodes (type,
  sender, receiver, content, metadata, timestamp, message_id, priority),
  `validate` passes, and `convert --to csdl` writes CSDL 1.0 messages that
  validate with no E3 shape left;
- a delta whose base E3's DeltaEncoder names (a hash of a dict no frame
  carries): aiproto reads the changed fields and warns, CSDL-CBP-DELTA;
- a frame with one payload byte changed: E3's decoder raises "CRC
  mismatch", aiproto says CSDL-CBP-CRC and exits 1; a cut stream is
  CSDL-CBP-FRAME;
- E3's own test message, whose type "handoff" is not one of CBP's
  types: E3's encoder sends it as a request; aiproto refuses the JSON form
  (CSDL-UNMAPPED) instead of guessing.
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "upstream"))

import msgpack  # noqa: E402
import xxhash  # noqa: E402

from e3_cbp.cbp_protocol import (  # noqa: E402
    CBPDecoder,
    CBPEncoder,
    CBPMessage,
    DeltaEncoder,
    SemanticRegistry,
)

BIN = sys.argv[1]
FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)


def aiproto(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True)


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def codes_of(text):
    """The finding codes of `validate --format json` output."""
    return [d["code"] for r in json_lines(text) for d in r.get("errors", []) + r.get("warnings", [])]


# E3's message shapes, as its agents send them (test_compression_layers.py,
# the swarm's T/C/R answers carried as content).
MESSAGES = [
    {
        "type": "req",
        "sender": "analyzer",
        "receiver": "strategist",
        "priority": "high",
        "message_id": 1001,
        "timestamp": 1764151200,
        "content": {"task": "analyze auth", "target": "auth-service", "confidence": 0.8},
        "metadata": {"correlation_id": "task-12345"},
    },
    {
        "type": "res",
        "sender": "strategist",
        "receiver": "critic",
        "priority": "normal",
        "message_id": 1002,
        "timestamp": 1764151260,
        "content": {
            "strategies": ["rotate tokens every 15 minutes"] * 12,
            "reasoning": "Sessions last 24 hours; " * 20,
            "key_factors": ["jwt", "session", "mfa"],
        },
        "metadata": {"correlation_id": "task-12345", "round": 2},
    },
]


def compact_hash(encoder, message):
    """The registry hash E3 stores a message's payload under."""
    compact = encoder._to_compact(CBPMessage.from_dict(message))
    return xxhash.xxh64(msgpack.packb(compact, use_bin_type=True)).intdigest()


def main():
    registry = SemanticRegistry()
    encoder = CBPEncoder(registry=registry)
    decoder = CBPDecoder(registry=registry)
    frames, expected = [], []
    for message in MESSAGES:
        frame, _ = encoder.encode(message)
        frames.append(frame)
    # The first message again: E3 sends its hash (deduplication).
    again, metrics = encoder.encode(MESSAGES[0])
    check(metrics.used_dedup, "E3 deduplicated the repeated message")
    frames.append(again)
    check(any(CBPDecoder(registry=registry).decode(f)[1].used_lz4 for f in frames),
          "E3 compressed the long message with LZ4")
    # A delta against the first message's registry hash.
    base = compact_hash(encoder, MESSAGES[0])
    delta = {"type": "fbk", "sender": "critic", "receiver": "analyzer",
             "content": {"critique": "token rotation missing"}, "timestamp": 1764151320}
    frame, _ = encoder.encode(delta, delta_base=base)
    frames.append(frame)
    for frame in frames:
        expected.append(decoder.decode(frame)[0].to_dict())

    with tempfile.TemporaryDirectory() as tmp:
        stream = os.path.join(tmp, "agents.cbp")
        with open(stream, "wb") as f:
            f.write(b"".join(frames))
        run = aiproto("validate", "--format", "json", stream)
        records = json_lines(run.stdout)
        codes = codes_of(run.stdout)
        check(run.returncode == 0, f"validate of E3's stream exits 0 (got {run.returncode}: {run.stderr.strip()[:300]})")
        check(len(records) == len(frames), f"one record per frame ({len(records)} of {len(frames)})")
        check(codes == ["CSDL-UPSTREAM"] * len(frames), f"only the shape is said ({codes})")

        run = aiproto("inspect", "--format", "json", stream)
        seen = json_lines(run.stdout)
        check(len(seen) == len(frames), "inspect shows every frame")
        for i, (record, want) in enumerate(zip(seen, expected)):
            doc = record["document"]
            check(record.get("shape") == "cbp-message", f"frame {i + 1} is named a CBP message")
            kept = doc["metadata"]["e3"]
            got = {
                "type": kept["type"],
                "sender": doc.get("from"),
                "receiver": doc.get("to"),
                "content": doc["value"],
                "metadata": kept.get("metadata", {}),
                "priority": kept["priority"],
                "message_id": int(doc["metadata"]["id"]) if "id" in doc["metadata"] else None,
            }
            want_fields = {k: want[k] for k in got}
            if i == len(frames) - 1:
                # E3's decoder leaves a delta unmerged; aiproto merges it
                # over its base: the delta's own fields must be there.
                check(kept["cbp"]["delta"]["merged"] is True, "the delta was merged over its base")
                check(got["content"]["critique"] == want["content"]["critique"]
                      and got["content"]["task"] == MESSAGES[0]["content"]["task"],
                      "the merged delta holds the base's and its own content")
                check(got["type"] == want["type"] and got["sender"] == want["sender"],
                      "the delta's own type and sender")
                continue
            check(got == want_fields, f"frame {i + 1} decodes as E3 decodes it: {got} / {want_fields}")
            stamp = doc["metadata"].get("timestamp")
            check(stamp is not None and stamp.endswith("Z"), f"frame {i + 1}'s Unix time is an RFC 3339 timestamp ({stamp})")

        run = aiproto("convert", "--to", "csdl", stream)
        check(run.returncode == 0, f"convert --to csdl exits 0 ({run.stderr.strip()[:200]})")
        spec = os.path.join(tmp, "spec.jsonl")
        with open(spec, "w") as f:
            f.write(run.stdout)
        run = aiproto("validate", "--format", "json", spec)
        codes = codes_of(run.stdout)
        check(run.returncode == 0 and "CSDL-UPSTREAM" not in codes,
              f"the converted stream is CSDL 1.0 and valid ({run.returncode}, {codes})")

        # A delta against what E3's DeltaEncoder names as base: the hash of
        # a dict as the sender built it, which no frame carries.
        deltas = DeltaEncoder(registry=SemanticRegistry())
        deltas.compute_delta(MESSAGES[0])
        dict_hash = xxhash.xxh64(msgpack.packb(MESSAGES[0], use_bin_type=True)).intdigest()
        lone, _ = CBPEncoder(registry=SemanticRegistry()).encode(delta, delta_base=dict_hash)
        path = os.path.join(tmp, "delta.cbp")
        with open(path, "wb") as f:
            f.write(lone)
        run = aiproto("validate", "--format", "json", path)
        codes = codes_of(run.stdout)
        check("CSDL-CBP-DELTA" in codes and run.returncode == 0,
              f"an unresolved delta is read with a warning ({run.returncode}, {codes})")

        # One payload byte changed: both decoders refuse it.
        damaged = bytearray(frames[0])
        damaged[-1] ^= 0x01
        try:
            CBPDecoder(registry=SemanticRegistry()).decode(bytes(damaged))
            e3_says = "accepted"
        except ValueError as e:
            e3_says = str(e)
        path = os.path.join(tmp, "damaged.cbp")
        with open(path, "wb") as f:
            f.write(bytes(damaged) + frames[1])
        run = aiproto("validate", "--format", "json", path)
        codes = codes_of(run.stdout)
        check(e3_says == "CRC mismatch", f"E3's decoder refuses the changed frame ({e3_says})")
        check(run.returncode == 1 and "CSDL-CBP-CRC" in codes,
              f"aiproto refuses it too, and reads the next frame ({run.returncode}, {codes})")
        path = os.path.join(tmp, "cut.cbp")
        with open(path, "wb") as f:
            f.write(frames[0] + frames[1][:-5])
        run = aiproto("validate", "--format", "json", path)
        codes = codes_of(run.stdout)
        check(run.returncode == 1 and "CSDL-CBP-FRAME" in codes, f"a cut stream is refused ({codes})")

        # E3's own test message: "handoff" is no CBP type.
        handoff = {"type": "handoff", "sender": "analyzer", "receiver": "strategist",
                   "priority": "high", "content": {"analysis": {"risk_level": "high"}}}
        sent = CBPDecoder(registry=registry).decode(CBPEncoder(registry=registry,
                                                               use_dedup=False).encode(handoff)[0])[0]
        check(sent.to_dict()["type"] == "req", "E3 sends the \"handoff\" message as a request")
        path = os.path.join(tmp, "handoff.json")
        with open(path, "w") as f:
            json.dump(handoff, f)
        run = aiproto("validate", "--format", "json", path)
        codes = codes_of(run.stdout)
        check(run.returncode == 1 and "CSDL-UNMAPPED" in codes,
              f"aiproto refuses the unknown type instead of guessing ({codes})")

    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("E3's CBP frames: every check passed")


main()
