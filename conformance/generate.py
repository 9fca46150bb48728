#!/usr/bin/env python3
"""Writes aiproto's conformance kit: the vector files under vectors/ and one
manifest per protocol (hsp.toml, crosstalk.toml, csdl.toml, msp.toml, a2a.toml).

Every vector's verdict (`expect`), spec section and level are decided here,
from the specs, never from aiproto's output. aiproto is run only to sign the
signature vectors and to record its finding codes beside each vector (for
implementations that report codes); when its verdict differs from the one
decided here, the generator stops and names the vectors.

usage: conformance/generate.py AIPROTO_BINARY   (run from the repository root)
       conformance/generate.py AIPROTO_BINARY --check   (exit 1 if anything would change)
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

KIT_VERSION = "2"
ROOT = pathlib.Path(__file__).resolve().parent.parent
KIT = ROOT / "conformance"
OUT = KIT / "vectors"

HSP_SECTIONS = {
    # file-name prefix: (section in 0.1, section in 1.0)
    "ack": ("HSP 0.1 §4.3 Message Acknowledgements (ACKs/NACKs)", "HSP 1.0 §2.1 Message Envelope"),
    "nack": ("HSP 0.1 §4.3 Message Acknowledgements (ACKs/NACKs)", "HSP 1.0 §2.1 Message Envelope"),
    "acknowledgement": ("HSP 0.1 §4.3 Message Acknowledgements (ACKs/NACKs)", "HSP 1.0 §2.1 Message Envelope"),
    "negative-acknowledgement": ("HSP 0.1 §4.3 Message Acknowledgements (ACKs/NACKs)", "HSP 1.0 §2.1 Message Envelope"),
    "error": ("HSP 0.1 §4.3 Message Acknowledgements (ACKs/NACKs)", "HSP 1.0 §2.1 Message Envelope"),
    "belief": ("HSP 0.1 §3.2 Belief", "HSP 1.0 §3 Core Payload Types"),
    "opinion": ("HSP 0.1 §3.2 Belief", "HSP 1.0 §3 Core Payload Types"),
    "capability": ("HSP 0.1 §3.3 CapabilityAdvertisement", "HSP 1.0 §3.1 Capability Advertisement"),
    "discovery": ("HSP 0.1 §5.1 AI Registration & Discovery", "HSP 1.0 §2.2 Communication Patterns"),
    "heartbeat": ("HSP 0.1 §5.1 AI Registration & Discovery", "HSP 1.0 §2.2 Communication Patterns"),
    "envelope": ("HSP 0.1 §4.2 HSP Message Envelope", "HSP 1.0 §2.1 Message Envelope"),
    "environmental-state": ("HSP 0.1 §3.6 EnvironmentalState / ContextUpdate", "HSP 1.0 §3 Core Payload Types"),
    "context-update": ("HSP 0.1 §3.6 EnvironmentalState / ContextUpdate", "HSP 1.0 §3 Core Payload Types"),
    "fact": ("HSP 0.1 §3.1 Fact / Assertion", "HSP 1.0 §3.4 Fact"),
    "facts": ("HSP 0.1 §3.1 Fact / Assertion", "HSP 1.0 §3.4 Fact"),
    "state-sync": ("HSP 0.1 §3.7 AIStateSynchronization", "HSP 1.0 §3 Core Payload Types"),
    "task-request": ("HSP 0.1 §3.4 TaskRequest", "HSP 1.0 §3.2 Task Request"),
    "task-result": ("HSP 0.1 §3.5 TaskResult", "HSP 1.0 §3.3 Task Result"),
    "unknown-type": ("HSP 0.1 §7 Future Considerations & Versioning", "HSP 1.0 §2.1 Message Envelope"),
}

# Readings that are aiproto's decisions where the spec leaves room (docs/hsp.md).
HSP_DECISIONS = {
    "envelope-type-version-mismatch",
    "environmental-state-observed-not-utc",
    "opinion-created-not-utc",
    "belief-holder-not-a-did",
    "envelope-recipient-neither-did-nor-topic",
    "ack-without-correlation-id",
    "task-result-response-without-correlation-id",
    "unknown-type-is-a-warning",
    "task-request-names-no-capability",
}

CT_DECISIONS = {
    "parent-brace-not-a-placeholder",
    "template-placeholders",
    "meta-value-on-two-lines",
    "stray-line",
    "lowercase-intent",
}

CT_SECTIONS = {
    "attachment": "Crosstalk 1.1 META Block Specification: meta: attachments",
    "consent": "Crosstalk 1.1 META Block Specification: meta: privacy",
    "expires": "Crosstalk 1.1 META Block Specification: meta: privacy",
    "duplicate": "Crosstalk 1.1 Core Grammar Changes",
    "error": "Crosstalk 1.1 Error Taxonomy",
    "header": "Crosstalk 1.1 Core Grammar Changes",
    "lowercase": "Crosstalk 1.1 Intent Registry v1.1",
    "unknown-intent": "Crosstalk 1.1 Intent Registry v1.1",
    "missing-intent": "Crosstalk 1.1 Core Grammar Changes",
    "message-id": "Crosstalk 1.1 ID Format: ULID or UUIDv7",
    "parent": "Crosstalk 1.1 ID Format: ULID or UUIDv7",
    "missing-message-id": "Crosstalk 1.1 New Required Headers",
    "meta": "Crosstalk 1.1 META Block Specification",
    "missing-body": "Crosstalk 1.1 Core Grammar Changes",
    "missing-end": "Crosstalk 1.1 Core Grammar Changes",
    "reply-to": "Crosstalk 1.1 Addressing Scheme",
    "sig": "Crosstalk 1.1 Security Considerations: Signature Format",
    "stray": "Crosstalk 1.1 Core Grammar Changes",
    "template": "Crosstalk 1.1 Core Grammar Changes",
}


class Kit:
    def __init__(self):
        self.vectors = {"hsp": [], "crosstalk": [], "csdl": [], "msp": [], "a2a": []}
        self.files = {}  # path relative to ROOT -> bytes, for generated files
        self.ids_taken = set()  # message ids of the accepted vectors so far

    def add(self, protocol, name, file, *, version, section, level, expect, about, kind="message", key=None,
            answer=None):
        assert level in ("mandatory", "recommended", "decision"), level
        assert expect in ("accept", "reject"), expect
        ids = {v["id"] for v in self.vectors[protocol]}
        vid = f"{protocol}/{name}"
        assert vid not in ids, vid
        entry = {
            "id": vid,
            "kind": kind,
            "file": str(file),
            "version": version,
            "section": section,
            "level": level,
            "expect": expect,
            "about": about,
        }
        if key:
            entry["key"] = str(key)
        if answer:
            entry["answer"] = answer
        if kind == "damage" or (expect == "accept" and kind != "signature" and protocol in ("crosstalk", "hsp")):
            entry["file"] = self.with_unused_ids(protocol, name, str(file), copy=kind == "damage",
                                                 fresh=expect == "accept")
        self.vectors[protocol].append(entry)

    def with_unused_ids(self, protocol, name, file, copy, fresh):
        """A receiver refuses a message id it took before with other content;
        an accepted vector that reuses an id (a damaged copy of an example,
        say) is written again under vectors/ with fresh ids. Damages are
        always copied, so that the kit does not depend on tests/."""
        data = self.files.get(file) or (ROOT / file).read_bytes()
        utf16 = data[:2] in (b"\xff\xfe", b"\xfe\xff")
        text = data.decode("utf-16") if utf16 else data.decode("utf-8", errors="replace")
        pattern = r"(?im)^\W*message:\s*([0-9A-Za-z-]{20,})" if protocol == "crosstalk" else r'"message_id":\s*"([^"]+)"'
        ids = sorted(set(re.findall(pattern, text)))
        reused = [i for i in ids if i in self.ids_taken] if fresh else []
        if fresh:
            self.ids_taken.update(ids)
        if not reused and not copy:
            return file
        for old in reused:
            new = unique_ulid() if protocol == "crosstalk" else unique_uuid7()
            self.ids_taken.add(new)
            if utf16:
                data = data.replace(old.encode("utf-16-le"), new.encode("utf-16-le"))
            else:
                data = data.replace(old.encode(), new.encode())
        path = pathlib.Path("conformance/vectors") / protocol / f"{name}{pathlib.Path(file).suffix}"
        self.files[str(path)] = data
        return str(path)

    def generated(self, protocol, name, ext, content, **kw):
        if protocol == "hsp" and isinstance(content, str):
            content = fresh_hsp_ids(content)
        path = pathlib.Path("conformance/vectors") / protocol / f"{name}.{ext}"
        self.files[str(path)] = content if isinstance(content, bytes) else content.encode()
        self.add(protocol, name, str(path), **kw)


def fresh_hsp_ids(text):
    """Gives each HSP envelope in `text` (an object, or JSON Lines) a fresh
    message_id where it has a string one; text that is not JSON stays as is."""
    def renamed(m):
        if isinstance(m, dict) and isinstance(m.get("message_id"), str):
            m["message_id"] = unique_uuid7()
        return m
    try:
        return dumps(renamed(json.loads(text)))
    except json.JSONDecodeError:
        pass
    try:
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError:
        return text
    if not lines:
        return text
    return "".join(json.dumps(renamed(m)) + "\n" for m in lines)


def section_for(prefixes, name, default):
    best = ""
    for p in prefixes:
        if name.startswith(p) and len(p) > len(best):
            best = p
    return prefixes[best] if best else default


def dumps(value):
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- HSP

def batch_of(path):
    """How a file holding several HSP messages holds them ("3 HSP messages
    as JSON Lines", "2 HSP messages in a JSON array"), or None for one."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix in (".jsonl", ".ndjson"):
        n = sum(1 for line in text.splitlines() if line.strip())
        return f"{n} HSP messages as JSON Lines" if n > 1 else None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    if isinstance(value, list) and len(value) > 1:
        return f"{len(value)} HSP messages in a JSON array"
    return None


def hsp(kit):
    for version in ("0.1", "1.0"):
        for path in sorted((ROOT / "examples/hsp/valid" / version).iterdir()):
            name = path.stem
            sec = section_for(HSP_SECTIONS, name, (None, None))[0 if version == "0.1" else 1]
            batch = batch_of(path)
            if batch:
                # HSP sends one message per MQTT publish or HTTP POST: a file
                # (or a POST) holding several is aiproto's reading, not the spec's.
                kit.add("hsp", f"{version}/{name}", path.relative_to(ROOT), version=version, section=sec,
                        level="decision", expect="accept",
                        about=f"the example `{path.name}`, a batch of {batch}: HSP sends one message per "
                              f"publish or POST, so taking a batch is aiproto's decision")
                continue
            kit.add("hsp", f"{version}/{name}", path.relative_to(ROOT), version=version, section=sec,
                    level="decision" if name in HSP_DECISIONS else "mandatory", expect="accept",
                    about=f"the example `{path.name}`, a well-formed HSP {version} message")
    for path in sorted((ROOT / "examples/hsp/invalid").iterdir()):
        name = path.stem
        try:
            version = json.loads(path.read_text()).get("hsp_envelope_version", "0.1")
        except json.JSONDecodeError:
            version = "0.1"
        sec = section_for(HSP_SECTIONS, name, (None, None))[0 if version == "0.1" else 1]
        kit.add("hsp", f"invalid/{name}", path.relative_to(ROOT), version=version, section=sec,
                level="decision" if name in HSP_DECISIONS else "mandatory", expect="reject",
                about="the invalid example `" + path.name + "`: " + name.replace("-", " "))

    # Required fields, removed one at a time from a valid base of each type.
    schemas = ROOT / "schemas/hsp"
    bases = {
        "0.1": {
            "fact": "fact-envelope-example", "belief": "belief", "opinion": "opinion",
            "capability_advertisement": "capability-advertisement", "task_request": "task-request",
            "task_result": "task-result", "environmental_state": "environmental-state",
            "acknowledgement": "acknowledgement", "negative_acknowledgement": "negative-acknowledgement",
            "error": "error", "heartbeat": "heartbeat", "capability_discovery_response": "capability-discovery-response",
            "ai_state_synchronization": "state-sync-chunks",
        },
        "1.0": {
            "fact": "fact", "capability_advertisement": "capability-advertisement",
            "task_request": "task-request", "task_result": "task-result",
        },
    }
    for version, types in bases.items():
        envelope_required = json.loads((schemas / version / "envelope.schema.json").read_text())["required"]
        base = json.loads((ROOT / "examples/hsp/valid" / version / f"{types['fact']}.json").read_text())
        for field in envelope_required:
            m = json.loads(json.dumps(base))
            del m[field]
            kit.generated("hsp", f"{version}/envelope-without-{field}", "json", dumps(m), version=version,
                          section=HSP_SECTIONS["envelope"][0 if version == "0.1" else 1], level="mandatory",
                          expect="reject", about=f"a Fact whose envelope lacks `{field}`, which every envelope carries")
        for field in ("message_id", "sender_ai_id", "message_type", "timestamp_sent"):
            m = json.loads(json.dumps(base))
            m[field] = 42
            kit.generated("hsp", f"{version}/envelope-{field}-is-a-number", "json", dumps(m), version=version,
                          section=HSP_SECTIONS["envelope"][0 if version == "0.1" else 1], level="mandatory",
                          expect="reject", about=f"`{field}` holds a number where the envelope wants a string")
        m = json.loads(json.dumps(base))
        m["communication_pattern"] = "gossip"
        kit.generated("hsp", f"{version}/envelope-pattern-unknown", "json", dumps(m), version=version,
                      section=HSP_SECTIONS["envelope"][0 if version == "0.1" else 1], level="mandatory",
                      expect="reject", about="a communication pattern the spec does not list")
        m = json.loads(json.dumps(base))
        m["payload"] = "a fact, as text"
        kit.generated("hsp", f"{version}/envelope-payload-is-text", "json", dumps(m), version=version,
                      section=HSP_SECTIONS["envelope"][0 if version == "0.1" else 1], level="mandatory",
                      expect="reject", about="a payload that is a string, not an object")
        m = json.loads(json.dumps(base))
        m["x_vendor_trace"] = "abc"
        kit.generated("hsp", f"{version}/envelope-extra-field", "json", dumps(m), version=version,
                      section=HSP_SECTIONS["envelope"][0 if version == "0.1" else 1], level="decision",
                      expect="accept", about="an envelope field the spec does not name travels as an extension")
        for type_name, example in types.items():
            schema = json.loads((schemas / version / f"{type_name}.schema.json").read_text())
            msg = json.loads((ROOT / "examples/hsp/valid" / version / f"{example}.json").read_text())
            if isinstance(msg, list):
                msg = msg[0]
            sec = section_for(HSP_SECTIONS, example, (None, None))[0 if version == "0.1" else 1]
            for field in schema.get("required", []):
                if field not in msg["payload"]:
                    continue
                m = json.loads(json.dumps(msg))
                del m["payload"][field]
                kit.generated("hsp", f"{version}/{type_name.replace('_', '-')}-without-{field.replace('_', '-')}", "json",
                              dumps(m), version=version, section=sec, level="mandatory", expect="reject",
                              about=f"a {type_name.replace('_', ' ')} payload without its required `{field}`")

    base = (ROOT / "examples/hsp/valid/1.0/fact.json").read_text()
    sec = HSP_SECTIONS["envelope"][1]
    kit.generated("hsp", "json/truncated", "json", base[: len(base) // 2], version="1.0", section=sec,
                  level="mandatory", expect="reject", about="a message cut off halfway: not JSON")
    kit.generated("hsp", "json/empty-file", "json", "", version="1.0", section=sec, level="mandatory",
                  expect="reject", about="an empty input holds no message")
    kit.generated("hsp", "json/top-level-string", "json", '"HSP::Fact_v1.0"\n', version="1.0", section=sec,
                  level="mandatory", expect="reject", about="a JSON string where an envelope object belongs")
    kit.generated("hsp", "json/empty-object", "json", "{}\n", version="1.0", section=sec, level="mandatory",
                  expect="reject", about="an object with none of the envelope's fields")
    dup = base.replace('"message_id":', '"message_id": "018f4a6e-8c1b-7d2a-9e3f-0000000000ff",\n  "message_id":', 1)
    kit.generated("hsp", "json/duplicate-key", "json", dup.encode(), version="1.0", section=sec, level="decision",
                  expect="reject", about="`message_id` given twice: readers would disagree on which one counts")
    kit.generated("hsp", "json/not-utf8", "json", base.encode().replace(b"example fact", b"example f\xe4ct"),
                  version="1.0", section=sec, level="mandatory", expect="reject",
                  about="a Latin-1 byte inside a string: JSON text is UTF-8")
    lines = "".join(json.dumps(json.loads(base)) + "\n" for _ in range(1))
    m = json.loads(base)
    m["message_id"] = "018f4a6e-8c1b-7d2a-9e3f-000000000017"
    lines += json.dumps(m) + "\n"
    kit.generated("hsp", "json/json-lines-two-facts", "jsonl", lines, version="1.0", section=sec, level="decision",
                  expect="accept", about="a batch of 2 HSP messages as JSON Lines, one per line: taking a batch "
                        "is aiproto's decision")
    bad = json.loads(base)
    bad["payload"]["confidence_score"] = 2
    kit.generated("hsp", "json/json-lines-second-bad", "jsonl", json.dumps(json.loads(base)) + "\n" + json.dumps(bad) + "\n",
                  version="1.0", section=HSP_SECTIONS["fact"][1], level="decision", expect="reject",
                  about="a batch of 2 HSP messages as JSON Lines whose second carries a confidence of 2: one bad "
                        "message fails the batch (a bad score alone is mandatory: hsp/1.0/fact-confidence-1.0001; "
                        "taking a batch is aiproto's decision)")
    for score, expect in ((0, "accept"), (1, "accept"), (-0.1, "reject"), (1.0001, "reject")):
        m = json.loads(base)
        m["payload"]["confidence_score"] = score
        kit.generated("hsp", f"1.0/fact-confidence-{score}", "json", dumps(m), version="1.0",
                      section=HSP_SECTIONS["fact"][1], level="mandatory", expect=expect,
                      about=f"a confidence score of {score}: scores lie in [0, 1]")
    for stamp, expect, level in (("2024-07-05T14:00:00.123456Z", "accept", "mandatory"),
                                 ("2024-07-05T14:00:00+00:00", "accept", "decision"),
                                 ("2024-13-05T14:00:00Z", "reject", "mandatory"),
                                 ("yesterday", "reject", "mandatory")):
        m = json.loads(base)
        m["timestamp_sent"] = stamp
        safe = stamp.replace(":", "").replace("+", "plus").replace(".", "_")
        kit.generated("hsp", f"1.0/timestamp-{safe}", "json", dumps(m), version="1.0", section=sec, level=level,
                      expect=expect, about=f"timestamp_sent `{stamp}`: an ISO 8601 / RFC 3339 date-time in UTC")


def hsp_agent(kit):
    """Scenarios for a live HSP agent over MQTT (`aiproto conformance mqtt`).
    Each file is the probe; the grader gives it fresh ids, its own sender,
    the agent as recipient and its own callback topic before publishing it
    to `hsp/agents/<agent>`. `answer` says what must come back."""
    fact = json.loads((ROOT / "examples/hsp/valid/1.0/fact.json").read_text())
    fact["qos_parameters"] = {"priority": "medium", "requires_ack": True}
    fact0 = json.loads((ROOT / "examples/hsp/valid/0.1/fact-envelope-example.json").read_text())
    fact0["qos_parameters"] = {"priority": "medium", "requires_ack": True}
    bad = json.loads(json.dumps(fact))
    bad["payload"]["confidence_score"] = 1.5
    task = json.loads((ROOT / "examples/hsp/valid/1.0/task-request.json").read_text())
    task["qos_parameters"] = {"priority": "medium", "requires_ack": False}
    ack_sec = "HSP 0.1 §4.3 Message Acknowledgements (ACKs/NACKs)"
    for name, content, expect, answer, level, section, about in (
        ("ack-when-asked-1.0", dumps(fact), "accept", "ack", "mandatory", ack_sec,
         "a 1.0 Fact asking for an ACK: answered with an ACK naming it in correlation_id"),
        ("ack-when-asked-0.1", dumps(fact0), "accept", "ack", "mandatory", ack_sec,
         "a 0.1 Fact asking for an ACK: answered with an ACK naming it in correlation_id"),
        ("nack-for-invalid", dumps(bad), "reject", "nack", "recommended", ack_sec,
         "a Fact with a confidence of 1.5 asking for an ACK: a NACK says why; an ACK would take it"),
        ("no-reply-to-garbage", "{\"hsp_envelope_version\": \"1.0\", \"message_id\": ", "reject", "silence",
         "recommended", "HSP 0.1 §6 Network & Transport Considerations",
         "a message cut off mid-JSON: nothing to answer, so no reply at all"),
        ("survives-garbage", b"\x00\xff\xfe binary noise, not a message\n" * 64, "reject", "survive", "mandatory",
         "HSP 0.1 §6 Network & Transport Considerations",
         "binary noise, then a Fact asking for an ACK: the agent is still there and answers it"),
        ("task-result", dumps(task), "accept", "task-result", "mandatory", "HSP 1.0 §3.3 Task Result",
         "a TaskRequest for the agent's capability: a TaskResult on the callback topic, for its request_id, "
         "with the request's message_id as correlation_id, from the agent"),
    ):
        path = pathlib.Path("conformance/vectors/hsp/agent") / f"{name}.json"
        kit.files[str(path)] = content if isinstance(content, bytes) else content.encode()
        kit.add("hsp", f"agent/{name}", str(path), kind="agent", version="0.1" if name.endswith("0.1") else "1.0",
                section=section, level=level, expect=expect, about=about, answer=answer)


# ---------------------------------------------------------------- Crosstalk

CT_BASE = [
    ("user", "kalle"), ("session", "2025-10-09T16Z abc123"), ("thread", "01J9J3D3M6A4M3WQX8G1ZQ0S7K"),
    ("parent", "01J9J3DBC4N7P2Q3R5S7T9W1V2"), ("message", "01J9J3DF8WQ0R2T4V6X8Z0B2D4"),
    ("context", "api-design"), ("intent", "REQUEST"),
]


CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_serial = [0]


def unique_ulid():
    """A fresh ULID for each generated envelope, so that a receiver which
    refuses a reused id with other content (as it should) is not graded down."""
    _serial[0] += 1
    n, tail = _serial[0], ""
    for _ in range(4):
        tail = CROCKFORD[n % 32] + tail
        n //= 32
    return "01J9J3DF8WQ0R2T4V6X8Z0" + tail


def unique_uuid7():
    """A fresh UUIDv7-shaped message_id for each generated HSP message."""
    _serial[0] += 1
    return f"018f4a6e-8c1b-7d2a-9e3f-{0x100000 + _serial[0]:012x}"


def envelope(headers=CT_BASE, *, sender="claude://session/abc", receiver="chatgpt://thread/xyz",
             meta="", body="Which pagination style should the events API use?", sig="sig: none", end="[[END]]"):
    base_id = dict(CT_BASE)["message"]
    headers = [(k, unique_ulid() if k == "message" and v == base_id else v) for k, v in headers]
    out = [f"[[{sender}→{receiver} v1]]"] + [f"{k}: {v}" for k, v in headers]
    if meta:
        out += ["", meta.strip("\n"), ""]
    out += ["body: |"] + ["  " + line if line else "" for line in body.split("\n")]
    if sig:
        out.append(sig)
    if end:
        out.append(end)
    return "\n".join(out) + "\n"


def with_header(name, value, headers=CT_BASE):
    return [(k, value if k == name else v) for k, v in headers]


def crosstalk(kit, aiproto):
    for path in sorted((ROOT / "examples/crosstalk/valid").iterdir()):
        version = "1.0" if path.name.startswith("v1_0") else "1.1"
        kit.add("crosstalk", f"valid/{path.stem}", path.relative_to(ROOT), version=version,
                section=f"Crosstalk 1.1 {'Core Grammar Changes' if version == '1.0' else 'Intent Registry v1.1'}",
                level="mandatory", expect="accept", about=f"the example `{path.name}`")
    for path in sorted((ROOT / "examples/crosstalk/invalid").iterdir()):
        name = path.stem
        kit.add("crosstalk", f"invalid/{name}", path.relative_to(ROOT), version="1.1",
                section=section_for(CT_SECTIONS, name, "Crosstalk 1.1 Core Grammar Changes"),
                level="decision" if name in CT_DECISIONS else "mandatory", expect="reject",
                about="the invalid example `" + path.name + "`: " + name.replace("-", " "))
    damage = ROOT / "tests/fixtures/chat-damage"
    for path in sorted(damage.iterdir()):
        if path.suffix in (".expected",) or path.name == "README.md":
            continue
        expected = (damage / f"{path.stem}.expected").read_text().split()
        # What a reader cannot repair without guessing (docs/crosstalk.md): the
        # lost end, a legacy 8-bit save, a look-alike letter, and the three
        # damages that are only diagnosed (joined lines, table cells, HTML source).
        refused = path.stem in ("cut-off", "latin1-save", "ansi-arrow", "cyrillic-intent", "html-source", "lines-joined",
                                "markdown-table") or any(c in ("CT-END-MISSING", "INPUT-NOT-UTF8") for c in expected)
        diagnosed_only = path.stem in ("html-source", "lines-joined", "markdown-table")
        kit.add("crosstalk", f"damage/{path.stem}", path.relative_to(ROOT), kind="damage", version="1.1",
                section="Crosstalk 1.1 Transport Bindings: Copy-Paste (Reference Implementation)",
                level="decision" if diagnosed_only else "recommended" if not refused else "mandatory",
                expect="reject" if refused else "accept",
                about="an envelope as a chat UI or editor leaves it (" + path.stem.replace("-", " ") + ")"
                      + ("; what was lost cannot be repaired" if refused else "; read with the repairs named"))

    core = ["REQUEST", "RESPOND", "ESCALATE", "HANDOFF", "POLL", "ACK", "NACK", "BROADCAST", "CLOSE"]
    for intent in core:
        kit.generated("crosstalk", f"intent/{intent.lower()}", "crosstalk",
                      envelope(with_header("intent", intent)), version="1.1",
                      section="Crosstalk 1.1 Intent Registry v1.1: Core Intents", level="mandatory",
                      expect="accept", about=f"a 1.1 envelope with the core intent {intent}")
    kit.generated("crosstalk", "intent/revoke-unsigned", "crosstalk", envelope(with_header("intent", "REVOKE")),
                  version="1.1", section="Crosstalk 1.1 Intent Registry v1.1: Core Intents", level="decision",
                  expect="accept", about="an unsigned REVOKE is a well-formed envelope (with a warning); acting on it "
                                         "needs a verified signature (signed/revoke)")
    for intent in ("QUESTION", "ANSWER", "STATUS", "PATCH", "NOTE"):
        kit.generated("crosstalk", f"intent/legacy-{intent.lower()}", "crosstalk",
                      envelope(with_header("intent", intent)), version="1.1",
                      section="Crosstalk 1.1 Intent Registry v1.1: Legacy Intents", level="mandatory",
                      expect="accept", about=f"the legacy intent {intent}: deprecated but still read")
    for intent in ("SHOUT", "Request", "REQUEST_V2", ""):
        kit.generated("crosstalk", f"intent/not-registered-{intent.lower() or 'empty'}", "crosstalk",
                      envelope(with_header("intent", intent)), version="1.1",
                      section="Crosstalk 1.1 Intent Registry v1.1", level="mandatory" if intent != "Request" else "decision",
                      expect="reject", about=f"`intent: {intent}` is not in the registry")
    errors = ["E-ROUTE", "E-CONSENT", "E-FORMAT", "E-TOO-LARGE", "E-PERM", "E-UNSUPPORTED", "E-TIMEOUT", "E-RATE"]
    for code in errors:
        kit.generated("crosstalk", f"error/{code.lower()}", "crosstalk",
                      envelope(with_header("intent", "ERROR"), meta=f"meta: error\nCode: {code}\nReason: what went wrong\nOriginal-Intent: REQUEST",
                               body="The request could not be handled."),
                      version="1.1", section="Crosstalk 1.1 Error Taxonomy: Error Codes", level="mandatory",
                      expect="accept", about=f"an ERROR envelope with the taxonomy's code {code}")
    kit.generated("crosstalk", "error/code-outside-taxonomy", "crosstalk",
                  envelope(with_header("intent", "ERROR"), meta="meta: error\nCode: E-OOPS\nReason: what went wrong"),
                  version="1.1", section="Crosstalk 1.1 Error Taxonomy: Error Codes", level="mandatory",
                  expect="reject", about="an ERROR envelope whose code the taxonomy lacks")

    # Headers removed one at a time from a 1.1 envelope.
    required = {"intent": "mandatory", "message": "mandatory"}
    for name, _ in CT_BASE:
        headers = [(k, v) for k, v in CT_BASE if k != name]
        expect = "reject" if name in required else "accept"
        level = required.get(name, "recommended" if name in ("thread", "parent") else "decision")
        kit.generated("crosstalk", f"header/without-{name}", "crosstalk", envelope(headers), version="1.1",
                      section="Crosstalk 1.1 New Required Headers" if name in ("thread", "parent", "message") else "Crosstalk 1.1 Core Grammar Changes",
                      level=level, expect=expect,
                      about=f"a 1.1 envelope without `{name}:`" + ("" if expect == "reject" else " (optional)"))
    v10 = [(k, v) for k, v in CT_BASE if k not in ("thread", "parent", "message")]
    kit.generated("crosstalk", "header/v1_0-without-ids", "crosstalk", envelope(with_header("intent", "QUESTION", v10)),
                  version="1.0", section="Crosstalk 1.1 Migration from v1.0 to v1.1: Backward Compatibility",
                  level="mandatory", expect="accept", about="a 1.0 envelope: no thread, parent or message ids")
    for name, value in (("message", "01J9J3DF8WQ0R2T4V6X8Z0B2D"), ("message", "018c8e5a-3b2f-4890-abcd-ef1234567890"),
                        ("message", "not-an-id"), ("thread", "01J9J3D3M6A4M3WQX8G1ZQ0S7!")):
        kit.generated("crosstalk", f"id/{name}-{value.lower().replace('!', 'bang')}", "crosstalk",
                      envelope(with_header(name, value)), version="1.1",
                      section="Crosstalk 1.1 ID Format: ULID or UUIDv7", level="mandatory", expect="reject",
                      about=f"`{name}: {value}` is neither a ULID nor a UUIDv7")
    for name, value in (("message", "018c8e5a-3b2f-7890-abcd-ef1234567890"), ("message", "01ARZ3NDEKTSV4RRFFQ69G5FAV")):
        kit.generated("crosstalk", f"id/{name}-{value.lower()}", "crosstalk", envelope(with_header(name, value)),
                      version="1.1", section="Crosstalk 1.1 ID Format: ULID or UUIDv7", level="mandatory",
                      expect="accept", about=f"`{name}: {value}` is a valid {'UUIDv7' if '-' in value else 'ULID'}")
    own = unique_ulid()
    kit.generated("crosstalk", "id/parent-is-self", "crosstalk",
                  envelope(with_header("message", own, with_header("parent", own))), version="1.1",
                  section="Crosstalk 1.1 New Required Headers: Threading Headers", level="decision", expect="reject",
                  about="a message that names itself as its parent")

    for addr in ("human://support.acme.com/queue/billing", "human://dr.smith@clinic.example/inbox",
                 "claude://session/abc123", "claude://session/abc123?model=opus", "claude://code/workspace-id",
                 "chatgpt://thread/xyz789", "chatgpt://thread/xyz789?workspace=default",
                 "email:support@example.com", "tel:+1-555-0100", "mcp://tool@host", "matrix://server/room",
                 "slack://workspace/channel", "CLAUDE", "BROTHER"):
        safe = addr.replace("://", "-").replace(":", "-").replace("/", "-").replace("?", "-").replace("=", "-").replace("@", "-at-").replace("+", "").lower()
        kit.generated("crosstalk", f"address/{safe}", "crosstalk", envelope(receiver=addr), version="1.1",
                      section="Crosstalk 1.1 Addressing Scheme" + (": Name Resolution" if "/" not in addr and ":" not in addr else ""),
                      level="mandatory", expect="accept", about=f"an envelope addressed to `{addr}`")
    for addr, why in (("claude://", "no authority"), ("{receiver}", "a template placeholder")):
        safe = "no-authority" if why == "no authority" else "placeholder"
        kit.generated("crosstalk", f"address/bad-{safe}", "crosstalk", envelope(receiver=addr), version="1.1",
                      section="Crosstalk 1.1 Addressing Scheme", level="mandatory" if safe == "no-authority" else "decision",
                      expect="reject", about=f"a receiver `{addr}`: {why}")
    routing = "meta: routing\nX-Route: claude://session/abc → chatgpt://thread/xyz\nX-Reply-To: claude://session/abc\nX-Priority: high"
    privacy = "meta: privacy\nPII: redacted\nConsent: explicit_yes_2025-10-09T16:00Z\nScope: general"
    attach = "meta: attachments\nA1: application/pdf;name=report.pdf;digest=sha256:" + "ab" * 32
    for name, meta in (("routing", routing), ("privacy", privacy), ("routing-and-privacy", routing + "\n\n" + privacy),
                       ("community-namespace", "meta: x-acme\nTicket: 4411")):
        kit.generated("crosstalk", f"meta/{name}", "crosstalk", envelope(meta=meta), version="1.1",
                      section="Crosstalk 1.1 META Block Specification", level="mandatory" if "community" not in name else "recommended",
                      expect="accept", about=f"a 1.1 envelope with a `{name}` meta block")
    for consent in ("explicit_yes", "explicit_no", "implicit", "sure"):
        kit.generated("crosstalk", f"meta/consent-{consent}", "crosstalk",
                      envelope(meta=f"meta: privacy\nPII: none\nConsent: {consent}\nScope: general"), version="1.1",
                      section="Crosstalk 1.1 META Block Specification: meta: privacy", level="mandatory",
                      expect="reject" if consent == "sure" else "accept", about=f"Consent `{consent}`")
    for prio in ("low", "normal", "high", "urgent"):
        kit.generated("crosstalk", f"meta/priority-{prio}", "crosstalk",
                      envelope(meta=f"meta: routing\nX-Priority: {prio}"), version="1.1",
                      section="Crosstalk 1.1 META Block Specification: meta: routing", level="decision",
                      expect="accept", about=f"X-Priority `{prio}`: the spec lists no values, any word is read")
    kit.generated("crosstalk", "meta/attachment", "crosstalk", envelope(meta=attach), version="1.1",
                  section="Crosstalk 1.1 META Block Specification: meta: attachments", level="recommended",
                  expect="accept", about="an attachment line with name, sha256 digest and size")
    kit.generated("crosstalk", "grammar/body-not-indented", "crosstalk",
                  envelope().replace("  Which pagination", "Which pagination"), version="1.1",
                  section="Crosstalk 1.1 Core Grammar Changes", level="decision", expect="accept",
                  about="a body line without the two-space indent: read as body, named as a repair")
    kit.generated("crosstalk", "grammar/two-envelopes", "crosstalk", envelope() + "\n" + envelope(),
                  version="1.1", section="Crosstalk 1.1 Transport Bindings: File", level="mandatory", expect="accept",
                  about="a file holding two envelopes, one after the other")
    kit.generated("crosstalk", "grammar/no-envelope", "txt", "Just a chat message, no envelope here.\n", version="1.1",
                  section="Crosstalk 1.1 Transport Bindings: Copy-Paste (Reference Implementation)", level="mandatory",
                  expect="reject", about="text without any envelope holds no message")
    kit.generated("crosstalk", "grammar/body-then-text-after-end", "txt",
                  "Sure, here it is:\n\n" + envelope() + "\nLet me know if you need more.\n", version="1.1",
                  section="Crosstalk 1.1 Transport Bindings: Copy-Paste (Reference Implementation)", level="mandatory",
                  expect="accept", about="an envelope between chat prose, as an assistant answers")
    kit.generated("crosstalk", "grammar/crlf-line-ends", "crosstalk", envelope().replace("\n", "\r\n"), version="1.1",
                  section="Crosstalk 1.1 Transport Bindings: Copy-Paste (Reference Implementation)", level="mandatory",
                  expect="accept", about="an envelope saved with CRLF line ends")
    kit.generated("crosstalk", "grammar/ascii-arrow", "crosstalk", envelope().replace("→", "->", 1), version="1.1",
                  section="Crosstalk 1.1 Core Grammar Changes", level="decision", expect="accept",
                  about="`->` typed for the arrow: read, named as a repair")
    signatures(kit, aiproto)


def run(cmd, **kw):
    done = subprocess.run(cmd, capture_output=True, **kw)
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))}: exit {done.returncode}: {done.stderr.decode()}")
    return done


def signatures(kit, aiproto):
    """Signed vectors, made with aiproto in a throw-away home. Keys are random, so
    once made they are kept: a run reuses the committed files of vectors/signed/."""
    made = ROOT / "conformance/vectors/signed"
    if not (made / "alice.pub").exists():
        made.mkdir(parents=True, exist_ok=True)
        home = tempfile.mkdtemp()
        env = dict(os.environ, AIPROTO_HOME=home)
        run([aiproto, "keygen", "--id", "alice@example.com", "--signs-for", "alice@example.com",
             "--signs-for", "did:hsp:alice"], env=env)
        run([aiproto, "keygen", "--id", "mallory@example.com", "--signs-for", "alice@example.com",
             "--signs-for", "did:hsp:alice"], env=env)
        (made / "alice.pub").write_bytes(run([aiproto, "keys", "export", "alice@example.com"], env=env).stdout)

        def sign(text, ext, key="alice@example.com"):
            src = pathlib.Path(home) / f"unsigned.{ext}"
            src.write_text(text)
            return run([aiproto, "sign", "--key", key, str(src)], env=env).stdout.decode()

        ct = envelope(sender="alice@example.com", headers=with_header("intent", "REQUEST"))
        good = sign(ct, "crosstalk")
        (made / "crosstalk-good.crosstalk").write_text(good)
        (made / "crosstalk-body-altered.crosstalk").write_text(good.replace("pagination", "paging", 1))
        (made / "crosstalk-intent-altered.crosstalk").write_text(good.replace("intent: REQUEST", "intent: BROADCAST", 1))
        (made / "crosstalk-other-key.crosstalk").write_text(sign(ct, "crosstalk", "mallory@example.com"))
        (made / "crosstalk-revoke.crosstalk").write_text(
            sign(envelope(sender="alice@example.com", headers=with_header("intent", "REVOKE"),
                          body="Withdraw consent for thread 01J9J3D3M6A4M3WQX8G1ZQ0S7K."), "crosstalk"))
        fact = json.loads((ROOT / "examples/hsp/valid/1.0/fact.json").read_text())
        fact["sender_ai_id"] = "did:hsp:alice"
        hgood = sign(dumps(fact), "json")
        (made / "hsp-good.json").write_text(hgood)
        m = json.loads(hgood)
        m["payload"]["confidence_score"] = 0.1
        (made / "hsp-payload-altered.json").write_text(dumps(m))
        m = json.loads(hgood)
        m["recipient_ai_id"] = "hsp/knowledge/facts/other"
        (made / "hsp-recipient-altered.json").write_text(dumps(m))
        (made / "hsp-other-key.json").write_text(sign(dumps(fact), "json", "mallory@example.com"))
        shutil.rmtree(home)
    key = pathlib.Path("conformance/vectors/signed/alice.pub")
    sec_ct = "Crosstalk 1.1 Security Considerations: Signature Format"
    sec_hsp = "HSP 0.1 §5.3 Trust Establishment & Management"
    for proto, name, ext, expect, level, section, about in (
        ("crosstalk", "good", "crosstalk", "accept", "mandatory", sec_ct, "an envelope signed by the key given"),
        ("crosstalk", "body-altered", "crosstalk", "reject", "mandatory", sec_ct, "a signed envelope whose body was changed after signing"),
        ("crosstalk", "intent-altered", "crosstalk", "reject", "mandatory", sec_ct, "a signed envelope whose intent was changed after signing"),
        ("crosstalk", "other-key", "crosstalk", "reject", "mandatory", sec_ct, "an envelope signed by another key than the one given"),
        ("crosstalk", "revoke", "crosstalk", "accept", "mandatory", "Crosstalk 1.1 Intent Registry v1.1: Core Intents", "a REVOKE signed by the key given"),
        ("hsp", "good", "json", "accept", "decision", sec_hsp, "an HSP envelope signed in security_parameters by the key given"),
        ("hsp", "payload-altered", "json", "reject", "decision", sec_hsp, "a signed HSP envelope whose payload was changed after signing"),
        ("hsp", "recipient-altered", "json", "reject", "decision", sec_hsp, "a signed HSP envelope whose recipient was changed after signing"),
        ("hsp", "other-key", "json", "reject", "decision", sec_hsp, "an HSP envelope signed by another key than the one given"),
    ):
        kit.add(proto, f"signed/{name}", pathlib.Path("conformance/vectors/signed") / f"{proto}-{name}.{ext}",
                kind="signature", key=key, version="1.1" if proto == "crosstalk" else "1.0",
                section=section, level=level, expect=expect, about=about)
    for proto, file, version in (("crosstalk", "examples/crosstalk/valid/v1_1-request-routing.crosstalk", "1.1"),
                                 ("hsp", "examples/hsp/valid/1.0/fact.json", "1.0")):
        kit.add(proto, "signed/unsigned", pathlib.Path(file), kind="signature", key=key, version=version,
                section=sec_ct if proto == "crosstalk" else sec_hsp, level="mandatory",
                expect="reject", about="a valid message that carries no signature: nothing to verify is not a pass")


# ---------------------------------------------------------------- CSDL

def csdl(kit):
    for kind, expect in (("valid", "accept"), ("invalid", "reject")):
        for path in sorted((ROOT / "examples/csdl" / kind).iterdir()):
            name = path.stem
            sec = ("CSDL 1.0 Agent Messages" if name.startswith("message") or name.startswith("agent")
                   else "CSDL 1.0 Memory Operations" if name.startswith("memory")
                   else "CSDL 1.0 Workflow Definitions" if name.startswith("workflow")
                   else "CSDL 1.0 Function Definitions" if name.startswith("function") or name.startswith("tool")
                   else "CSDL 1.0 Class Definitions" if name.startswith("class")
                   else "CSDL 1.0 Extensions")
            level = "decision" if name.startswith("e3_") or "as_printed" in name or name == "unknown_dialect" else "mandatory"
            kit.add("csdl", f"{kind}/{name}", path.relative_to(ROOT), version="1.0", section=sec, level=level,
                    expect=expect, about=f"the {kind} example `{path.name}`")
    for path in sorted((ROOT / "examples/csdl/e3").iterdir()):
        kit.add("csdl", f"e3/{path.stem}", path.relative_to(ROOT), version="1.0",
                section="CSDL 1.0 Extensions", level="decision", expect="accept",
                about=f"a message in a shape E3's code writes (`{path.name}`), read as a CSDL 1.0 message")
    # E3's binary CBP frames, damaged: a flipped payload byte (its CRC no
    # longer matches), a cut last frame, and a first frame without its magic.
    cbp = (ROOT / "examples/csdl/e3/agents.cbp").read_bytes()
    flipped = bytearray(cbp)
    flipped[0x24] ^= 0x20
    for name, data, about in (
        ("crc-mismatch", bytes(flipped), "a frame whose payload changed after its CRC-16 was computed"),
        ("cut", cbp[:-5], "frames whose last one is cut short"),
        ("no-magic", b"\x00" + cbp[1:], "frames whose first lacks the CB 50 magic"),
    ):
        path = pathlib.Path("conformance/vectors/csdl/cbp") / f"{name}.cbp"
        kit.files[str(path)] = data
        kit.add("csdl", f"cbp/{name}", str(path), version="1.0", section="CSDL 1.0 Extensions", level="decision",
                expect="reject", about=about + " (E3's CBP, read by decision)")
    base = json.loads((ROOT / "examples/csdl/valid/agent_message.json").read_text())
    for intent in ("request", "response", "notify", "query", "error"):
        m = dict(base, intent=intent)
        kit.generated("csdl", f"message/intent-{intent}", "json", dumps(m), version="1.0",
                      section="CSDL 1.0 Agent Messages: Intent Types", level="mandatory", expect="accept",
                      about=f"an agent message with the intent `{intent}`")
    for intent in ("REQUEST", "command", ""):
        m = dict(base, intent=intent)
        kit.generated("csdl", f"message/intent-bad-{intent.lower() or 'empty'}", "json", dumps(m), version="1.0",
                      section="CSDL 1.0 Agent Messages: Intent Types", level="mandatory" if intent != "REQUEST" else "decision",
                      expect="reject", about=f"an agent message with the intent `{intent}`, which the table lacks")
    for field in ("from", "to", "intent"):
        m = {k: v for k, v in base.items() if k != field}
        kit.generated("csdl", f"message/without-{field}", "json", dumps(m), version="1.0",
                      section="CSDL 1.0 Agent Messages: Structure", level="mandatory", expect="reject",
                      about=f"an agent message without `{field}`")
    for cx, expect in ((0, "accept"), (1, "accept"), (1.5, "reject"), (-1, "reject")):
        m = dict(base, cx=cx)
        kit.generated("csdl", f"message/cx-{cx}", "json", dumps(m), version="1.0",
                      section="CSDL 1.0 Core Types", level="mandatory", expect=expect,
                      about=f"a confidence `cx` of {cx}: confidences lie in [0, 1]")
    store = json.loads((ROOT / "examples/csdl/valid/memory_store.json").read_text())
    for cat in ("working", "episodic", "semantic", "procedural", "gossip"):
        m = json.loads(json.dumps(store))
        m["m"]["category"] = cat
        kit.generated("csdl", f"memory/category-{cat}", "json", dumps(m), version="1.0",
                      section="CSDL 1.0 Memory Operations: Memory Categories", level="mandatory",
                      expect="reject" if cat == "gossip" else "accept", about=f"a store in the category `{cat}`")
    m = dict(store, op="forget")
    kit.generated("csdl", "memory/op-unknown", "json", dumps(m), version="1.0", section="CSDL 1.0 Memory Operations",
                  level="mandatory", expect="reject", about="a memory operation other than store or retrieve")
    kit.generated("csdl", "json/truncated", "json", dumps(base)[:40], version="1.0", section="CSDL 1.0 Validation",
                  level="mandatory", expect="reject", about="a message cut off: not JSON")
    kit.generated("csdl", "json/element-type-unknown", "json", dumps(dict(base, t="gadget")), version="1.0",
                  section="CSDL 1.0 Validation", level="mandatory", expect="reject", about="an element type `t` CSDL lacks")
    kit.generated("csdl", "json/not-an-object", "json", "[1, 2, 3]\n", version="1.0", section="CSDL 1.0 Validation",
                  level="mandatory", expect="reject", about="an array where a CSDL element belongs")


# ---------------------------------------------------------------- MSP

def msp(kit):
    for kind, expect in (("valid", "accept"), ("invalid", "reject")):
        for path in sorted((ROOT / "examples/msp" / kind).iterdir()):
            # version_2.json is an MSP 2.0 signal (the upstream's later model):
            # reading it is aiproto's decision, the 1.0 spec does not define it.
            v2 = path.stem == "version_2"
            kit.add("msp", f"{kind}/{path.stem}", path.relative_to(ROOT), version="2.0" if v2 else "1.0",
                    section="MSP 1.0 Components and Interfaces: MSP Schema", level="decision" if v2 else "mandatory",
                    expect=expect, about=f"the {kind} example `{path.name}`"
                    + (", an MSP 2.0 signal read beside 1.0" if v2 else ""))
    full = json.loads((ROOT / "examples/msp/valid/full.json").read_text())
    sec = "MSP 1.0 Components and Interfaces: MSP Schema"
    for intent in ("ANALYZE", "GENERATE", "EVALUATE", "TRANSFORM", "QUERY", "RESPOND", "DELEGATE", "REPORT"):
        kit.generated("msp", f"intent-{intent.lower()}", "json", dumps(dict(full, intent=intent)), version="1.0",
                      section=sec, level="mandatory", expect="accept", about=f"a signal with the intent {intent}")
    for intent in ("analyze", "SUMMARIZE", ""):
        kit.generated("msp", f"intent-bad-{intent.lower() or 'empty'}", "json", dumps(dict(full, intent=intent)),
                      version="1.0", section=sec, level="mandatory", expect="reject",
                      about=f"the intent `{intent}` is not one of the eight")
    for prio in ("low", "medium", "high", "critical", "urgent"):
        kit.generated("msp", f"priority-{prio}", "json", dumps(dict(full, priority=prio)), version="1.0",
                      section=sec, level="mandatory", expect="reject" if prio == "urgent" else "accept",
                      about=f"the priority `{prio}`")
    for field in ("intent", "target"):
        kit.generated("msp", f"without-{field}", "json", dumps({k: v for k, v in full.items() if k != field}),
                      version="1.0", section=sec, level="mandatory", expect="reject",
                      about=f"a signal without `{field}`, which has no default")
    for field in ("version", "params", "constraints", "state", "priority", "trace_id", "timestamp", "parent_id"):
        kit.generated("msp", f"without-{field}", "json", dumps({k: v for k, v in full.items() if k != field}),
                      version="1.0", section=sec, level="mandatory", expect="accept",
                      about=f"a signal without `{field}`, which has a default")
    for field, value in (("target", 42), ("params", ["a"]), ("constraints", "one rule"), ("state", "done"),
                         ("trace_id", 7), ("parent_id", 3), ("timestamp", "soon")):
        kit.generated("msp", f"wrong-type-{field.replace('_', '-')}", "json", dumps(dict(full, **{field: value})),
                      version="1.0", section=sec, level="mandatory", expect="reject",
                      about=f"`{field}` of the wrong type ({json.dumps(value)})")
    kit.generated("msp", "extra-field-note", "json", dumps(dict(full, note="hi")), version="1.0", section=sec,
                  level="mandatory", expect="reject", about="an extra field: the schema forbids any")
    kit.generated("msp", "target-empty", "json", dumps(dict(full, target="")), version="1.0",
                  section="MSP 1.0 Components and Interfaces: MSP Schema", level="decision",
                  expect="accept", about="an empty target is a valid string (as pydantic reads it), named by a warning")
    kit.generated("msp", "json-truncated", "json", dumps(full)[:60], version="1.0",
                  section="MSP 1.0 Correctness Properties: Property 8: MSP JSON Round-Trip", level="mandatory",
                  expect="reject", about="a signal cut off: not JSON")


A2A_SECTIONS = {
    "Message": "A2A 1.0 §4.1.4 Message",
    "Task": "A2A 1.0 §4.1.1 Task",
    "AgentCard": "A2A 1.0 §4.4.1 AgentCard",
    "Part": "A2A 1.0 §4.1.6 Part",
    "JSON-RPC": "A2A 1.0 §9 JSON-RPC Protocol Binding",
    "Naming": "A2A 1.0 §5.5 JSON Field Naming Convention",
    "Timestamps": "A2A 1.0 §5.6.1 Timestamps",
    "Versions": "A2A 1.0 §3.6 Versioning",
}


def a2a(kit):
    """A2A 1.0 documents: the examples, then each object's required fields,
    enums, part contents, names, timestamps and the JSON-RPC envelope, one
    change at a time from a valid base."""
    sections = {"agent-card": "AgentCard", "send-message": "JSON-RPC", "stream": "Task", "task-completed": "Task",
                "card-without-skills": "AgentCard", "part-with-two-contents": "Part", "snake-case-fields": "Naming",
                "state-after-completed": "Task", "state-as-number": "Task", "timestamp-with-offset": "Timestamps",
                "unknown-method": "JSON-RPC", "version-0-3-message": "Versions"}
    for kind, expect in (("valid", "accept"), ("invalid", "reject")):
        for path in sorted((ROOT / "examples/a2a" / kind).iterdir()):
            kit.add("a2a", f"{kind}/{path.stem}", path.relative_to(ROOT), version="1.0",
                    section=A2A_SECTIONS[sections[path.stem]], level="mandatory", expect=expect,
                    about=f"the {kind} example `{path.name}`")
    message = {"messageId": "0197a3a8-0000-7000-8000-000000000001", "role": "ROLE_USER",
               "parts": [{"text": "What is the weather in Lisbon today?"}]}
    sec = A2A_SECTIONS["Message"]
    for role in ("ROLE_USER", "ROLE_AGENT"):
        kit.generated("a2a", f"message/role-{role.lower()}", "json", dumps(dict(message, role=role)), version="1.0",
                      section=sec, level="mandatory", expect="accept", about=f"a message with the role {role}")
    for role in ("user", "ROLE_UNSPECIFIED", "ROLE_SYSTEM"):
        kit.generated("a2a", f"message/role-bad-{role.lower()}", "json", dumps(dict(message, role=role)),
                      version="1.0", section=sec, level="mandatory", expect="reject",
                      about=f"the role `{role}` is not a role of A2A 1.0")
    for field in ("messageId", "role", "parts"):
        kit.generated("a2a", f"message/without-{field}", "json",
                      dumps({k: v for k, v in message.items() if k != field}), version="1.0", section=sec,
                      level="mandatory", expect="reject", about=f"a message without `{field}`, which is required")
    kit.generated("a2a", "message/parts-empty", "json", dumps(dict(message, parts=[])), version="1.0", section=sec,
                  level="mandatory", expect="reject", about="a message with no part: `parts` is required")
    psec = A2A_SECTIONS["Part"]
    for name, part in (("text", {"text": "hi"}), ("data", {"data": {"n": 1}}),
                       ("url", {"url": "https://example.com/a.txt", "mediaType": "text/plain"}),
                       ("raw", {"raw": "aGk=", "filename": "hi.txt", "mediaType": "text/plain"})):
        kit.generated("a2a", f"part/{name}", "json", dumps(dict(message, parts=[part])), version="1.0",
                      section=psec, level="mandatory", expect="accept", about=f"a message with a `{name}` part")
    for name, part in (("empty", {}), ("text-and-data", {"text": "hi", "data": {}}),
                       ("metadata-only", {"metadata": {"k": "v"}})):
        kit.generated("a2a", f"part/bad-{name}", "json", dumps(dict(message, parts=[part])), version="1.0",
                      section=psec, level="mandatory", expect="reject",
                      about="a part must be exactly one of text, raw, url and data")
    task = json.loads((ROOT / "examples/a2a/valid/task-completed.json").read_text())
    tsec = A2A_SECTIONS["Task"]
    for state in ("SUBMITTED", "WORKING", "COMPLETED", "FAILED", "CANCELED", "REJECTED", "INPUT_REQUIRED",
                  "AUTH_REQUIRED"):
        t = dict(task, status=dict(task["status"], state=f"TASK_STATE_{state}"))
        kit.generated("a2a", f"task/state-{state.lower().replace('_', '-')}", "json", dumps(t), version="1.0",
                      section=tsec, level="mandatory", expect="accept", about=f"a task in the state TASK_STATE_{state}")
    for state in ("completed", "TASK_STATE_DONE", "TASK_STATE_UNSPECIFIED"):
        t = dict(task, status=dict(task["status"], state=state))
        kit.generated("a2a", f"task/state-bad-{state.lower().replace('_', '-')}", "json", dumps(t), version="1.0",
                      section=tsec, level="mandatory", expect="reject",
                      about=f"`{state}` is not a task state of A2A 1.0")
    for field in ("id", "status"):
        kit.generated("a2a", f"task/without-{field}", "json", dumps({k: v for k, v in task.items() if k != field}),
                      version="1.0", section=tsec, level="mandatory", expect="reject",
                      about=f"a task without `{field}`, which is required")
    kit.generated("a2a", "task/artifact-without-parts", "json",
                  dumps(dict(task, artifacts=[{"artifactId": "a"}])), version="1.0", section=tsec, level="mandatory",
                  expect="reject", about="an artifact without `parts`, which is required")
    card = json.loads((ROOT / "examples/a2a/valid/agent-card.json").read_text())
    csec = A2A_SECTIONS["AgentCard"]
    for field in ("name", "description", "supportedInterfaces", "version", "capabilities", "defaultInputModes",
                  "defaultOutputModes", "skills"):
        kit.generated("a2a", f"card/without-{field}", "json", dumps({k: v for k, v in card.items() if k != field}),
                      version="1.0", section=csec, level="mandatory", expect="reject",
                      about=f"an Agent Card without `{field}`, which is required")
    skill = card["skills"][0]
    for field in ("id", "name", "description", "tags"):
        c = dict(card, skills=[{k: v for k, v in skill.items() if k != field}])
        kit.generated("a2a", f"card/skill-without-{field}", "json", dumps(c), version="1.0", section=csec,
                      level="mandatory", expect="reject", about=f"a skill without `{field}`, which is required")
    nsec = A2A_SECTIONS["Naming"]
    kit.generated("a2a", "naming/message-id-snake-case", "json",
                  dumps({"message_id": message["messageId"], "role": "ROLE_USER", "parts": message["parts"]}),
                  version="1.0", section=nsec, level="mandatory", expect="reject",
                  about="`message_id`: A2A JSON names fields in camelCase")
    rsec = A2A_SECTIONS["JSON-RPC"]
    call = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    kit.generated("a2a", "jsonrpc/send-message", "json", dumps(call), version="1.0", section=rsec,
                  level="mandatory", expect="accept", about="a SendMessage call")
    for method, params in (("GetTask", {"id": "t"}), ("CancelTask", {"id": "t"}), ("ListTasks", {}),
                           ("SubscribeToTask", {"id": "t"})):
        kit.generated("a2a", f"jsonrpc/{method}", "json", dumps(dict(call, method=method, params=params)),
                      version="1.0", section=rsec, level="mandatory", expect="accept", about=f"a {method} call")
    kit.generated("a2a", "jsonrpc/version-1-0", "json", dumps(dict(call, jsonrpc="1.0")), version="1.0",
                  section=rsec, level="mandatory", expect="reject", about="JSON-RPC `1.0`: A2A speaks 2.0")
    kit.generated("a2a", "jsonrpc/get-task-without-id", "json", dumps(dict(call, method="GetTask", params={})),
                  version="1.0", section=rsec, level="mandatory", expect="reject",
                  about="GetTask params without the task's `id`")
    kit.generated("a2a", "jsonrpc/method-0-3", "json", dumps(dict(call, method="message/send")), version="1.0",
                  section=A2A_SECTIONS["Versions"], level="mandatory", expect="reject",
                  about="`message/send` is A2A 0.3's name of SendMessage: read as 0.3, not as 1.0")
    kit.generated("a2a", "json/truncated", "json", dumps(message)[:50], version="1.0", section=sec,
                  level="mandatory", expect="reject", about="a message cut off: not JSON")


# ---------------------------------------------------------------- writing

def toml_value(v):
    return json.dumps(v, ensure_ascii=False)


def manifest(protocol, vectors):
    out = [f"# aiproto conformance kit {KIT_VERSION}: {protocol} vectors. Written by conformance/generate.py;",
           "# edit the generator, not this file. The format: conformance/README.md.", "",
           f'kit = "{KIT_VERSION}"', f'protocol = "{protocol}"', ""]
    for v in vectors:
        out.append("[[vector]]")
        for k in ("id", "kind", "file", "key", "answer", "version", "section", "level", "expect", "codes", "warnings", "about"):
            if k in v:
                out.append(f"{k} = {toml_value(v[k])}")
        out.append("")
    return "\n".join(out)


def observe(aiproto, v):
    """aiproto's verdict and codes on one vector."""
    path = ROOT / v["file"]
    cmd = [aiproto, "validate", "--format", "json", "-p", v["id"].split("/")[0], str(path)]
    if v["kind"] == "signature":
        cmd = [aiproto, "verify", "--format", "json", "--pubkey", str(ROOT / v["key"]), str(path)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, AIPROTO_HOME=tempfile.gettempdir() + "/aiproto-kit-home"))
    records = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    errors, warnings = [], []
    for r in records:
        for e in r.get("errors", []):
            errors.append(e["code"])
        for w in r.get("warnings", []):
            warnings.append(w["code"])
    return ("accept" if out.returncode == 0 else "reject"), sorted(set(errors)), sorted(set(warnings)), out.returncode


def main():
    aiproto = sys.argv[1]
    check = "--check" in sys.argv
    kit = Kit()
    hsp(kit)
    hsp_agent(kit)
    crosstalk(kit, aiproto)
    csdl(kit)
    msp(kit)
    a2a(kit)
    if not check:
        if OUT.exists():
            keep = OUT / "signed"
            for child in OUT.iterdir():
                if child != keep:
                    shutil.rmtree(child) if child.is_dir() else child.unlink()
    written = {}
    for rel, data in kit.files.items():
        written[rel] = data
        if not check:
            (ROOT / rel).parent.mkdir(parents=True, exist_ok=True)
            (ROOT / rel).write_bytes(data)
    disagreements = []
    for protocol, vectors in kit.vectors.items():
        for v in vectors:
            if check and v["file"] in written:
                tmp = ROOT / v["file"]
                if not tmp.exists() or tmp.read_bytes() != written[v["file"]]:
                    print(f"{v['file']}: would change", file=sys.stderr)
                    sys.exit(1)
            if v["kind"] == "agent":
                continue  # graded live over MQTT, not by a reader
            verdict, errors, warnings, rc = observe(aiproto, v)
            if rc not in (0, 1):
                disagreements.append(f"{v['id']}: aiproto exited {rc}")
            if verdict != v["expect"]:
                disagreements.append(f"{v['id']}: decided {v['expect']}, aiproto {verdict} {errors}")
            v["codes"] = errors
            v["warnings"] = warnings
        text = manifest(protocol, vectors)
        target = KIT / f"{protocol}.toml"
        if check:
            if not target.exists() or target.read_text() != text:
                print(f"{target}: would change", file=sys.stderr)
                sys.exit(1)
        else:
            target.write_text(text)
    for d in disagreements:
        print(d, file=sys.stderr)
    total = sum(len(v) for v in kit.vectors.values())
    print(f"{total} vectors: " + ", ".join(f"{p} {len(v)}" for p, v in kit.vectors.items()), file=sys.stderr)
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
