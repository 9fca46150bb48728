#!/usr/bin/env python3
"""A conformance adapter: checks an HSP file with the payload schemas
Unified-AI-Project ships (tests/interop/upstream/unified_ai_schemas/), as
python-jsonschema applies them by default (draft-07, formats not
asserted). Each message (an object, an array of them, or JSON Lines) must
be a JSON object; a message whose type has an upstream schema (Fact,
CapabilityAdvertisement, TaskRequest, TaskResult, Acknowledgement; by name,
whatever the version) must have a payload that schema accepts. The upstream
has no schema for the envelope or the other types: those pass. Exit 0 when
every message passes, 1 when one does not (the reason on stderr).

usage: hsp_upstream_schemas.py FILE
"""
import json
import pathlib
import sys

import jsonschema

from hsp_input import read_messages, refuse, type_name

SCHEMAS = pathlib.Path(__file__).resolve().parent.parent / "upstream/unified_ai_schemas"


def main():
    for m in read_messages(sys.argv[1]):
        if not isinstance(m, dict):
            refuse("a message is not a JSON object")
        kind = type_name(m.get("message_type"))
        schema = SCHEMAS / f"HSP_{kind}_v0.1.schema.json"
        if kind and schema.is_file():
            try:
                jsonschema.validate(m.get("payload"), json.loads(schema.read_text()))
            except jsonschema.ValidationError as e:
                refuse(f"{schema.name}: {e.message}")


if __name__ == "__main__":
    main()
