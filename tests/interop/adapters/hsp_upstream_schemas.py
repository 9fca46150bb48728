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

SCHEMAS = pathlib.Path(__file__).resolve().parent.parent / "upstream/unified_ai_schemas"


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
    for m in messages(text):
        if not isinstance(m, dict):
            refuse("a message is not a JSON object")
        # `HSP::Fact_v0.1` in the spec, `HSP.Fact_v0.1` where the upstream's connector writes it.
        kind = str(m.get("message_type", ""))
        for prefix in ("HSP::", "HSP."):
            kind = kind.removeprefix(prefix)
        kind = kind.rsplit("_v", 1)[0]
        schema = SCHEMAS / f"HSP_{kind}_v0.1.schema.json"
        if kind and schema.is_file():
            try:
                jsonschema.validate(m.get("payload"), json.loads(schema.read_text()))
            except jsonschema.ValidationError as e:
                refuse(f"{schema.name}: {e.message}")


if __name__ == "__main__":
    main()
