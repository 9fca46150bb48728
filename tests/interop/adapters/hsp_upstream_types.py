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
import pathlib
import sys

from pydantic import TypeAdapter

from hsp_input import read_messages, refuse, type_name

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


def main():
    envelope = TypeAdapter(types.HSPMessageEnvelope)
    for m in read_messages(sys.argv[1]):
        try:
            envelope.validate_python(m, strict=True)
            name = type_name(m["message_type"])
            if name in PAYLOADS:
                TypeAdapter(PAYLOADS[name]).validate_python(m["payload"], strict=True)
        except Exception as e:  # pydantic's ValidationError, or a message that is no object
            refuse(" / ".join(str(e).splitlines()[:2]) or type(e).__name__)


if __name__ == "__main__":
    main()
