#!/usr/bin/env python3
"""A conformance adapter: reads an HSP file as Unified-AI-Project's own
types (tests/interop/upstream/unified_ai_hsp_types.py) read it, with
pydantic. Each message (an object, an array of them, or JSON Lines) must be
an `HSPMessageEnvelope` and its payload the TypedDict its message_type
names. Exit 0 when every message passes, 1 when one does not (the reason on
stderr), as `aiproto conformance parser` expects.

usage: hsp_upstream_types.py FILE
"""
import importlib.util
import json
import pathlib
import sys

from pydantic import TypeAdapter

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("hsp_types", HERE.parent / "upstream/unified_ai_hsp_types.py")
types = importlib.util.module_from_spec(spec)
spec.loader.exec_module(types)

PAYLOADS = {
    "Fact": types.HSPFactPayload,
    "Opinion": types.HSPOpinionPayload,
    "CapabilityAdvertisement": types.HSPCapabilityAdvertisementPayload,
    "TaskRequest": types.HSPTaskRequestPayload,
    "TaskResult": types.HSPTaskResultPayload,
    "EnvironmentalState": types.HSPEnvironmentalStatePayload,
    "ContextUpdate": types.HSPEnvironmentalStatePayload,
    "Acknowledgement": types.HSPAcknowledgementPayload,
    "NegativeAcknowledgement": types.HSPNegativeAcknowledgementPayload,
    "Heartbeat": types.HSPHeartbeatPayload,
    "Discovery": types.HSPDiscoveryPayload,
    "Error": types.HSPErrorPayload,
}


def refuse(why):
    print(why, file=sys.stderr)
    sys.exit(1)


def messages(text):
    try:
        doc = json.loads(text)
        return doc if isinstance(doc, list) else [doc]
    except json.JSONDecodeError:
        pass
    try:
        found = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as e:
        refuse(f"not JSON: {e}")
    if not found:
        refuse("no message")
    return found


def main():
    try:
        text = pathlib.Path(sys.argv[1]).read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        refuse(f"not UTF-8: {e}")
    envelope = TypeAdapter(types.HSPMessageEnvelope)
    for m in messages(text):
        try:
            envelope.validate_python(m, strict=True)
            name = m["message_type"].split("::", 1)[-1].rsplit("_v", 1)[0]
            if name in PAYLOADS:
                TypeAdapter(PAYLOADS[name]).validate_python(m["payload"], strict=True)
        except Exception as e:  # pydantic's ValidationError, or a message that is no object
            refuse(" / ".join(str(e).splitlines()[:2]) or type(e).__name__)


if __name__ == "__main__":
    main()
