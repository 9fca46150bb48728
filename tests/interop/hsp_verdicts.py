#!/usr/bin/env python3
"""Independent check of the published HSP schemas: validates every file in
examples/hsp/ with the Python `jsonschema` package (draft 2020-12, $refs
resolved from schemas/hsp/) and compares each verdict with `aiproto validate`.

usage: hsp_verdicts.py AIPROTO_BINARY [REPO_ROOT]
"""
import json
import pathlib
import subprocess
import sys

import jsonschema
import referencing

binary = sys.argv[1]
root = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else ".")

resources = []
for path in sorted((root / "schemas" / "hsp").glob("*/*.schema.json")):
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    resources.append((schema["$id"], referencing.Resource.from_contents(schema)))
registry = referencing.Registry().with_resources(resources)


def version_of(message):
    for field in ("hsp_envelope_version", "protocol_version"):
        if message.get(field) in ("0.1", "1.0"):
            return message[field]
    return "0.1"


def third_party(text):
    """One verdict per message: parse as an object, an array or JSON Lines."""
    try:
        doc = json.loads(text)
        messages = doc if isinstance(doc, list) else [doc]
    except json.JSONDecodeError:
        try:
            messages = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError:
            return [False]
    verdicts = []
    for m in messages:
        if not isinstance(m, dict):
            verdicts.append(False)
            continue
        uri = f"https://aiproto.dev/schemas/hsp/{version_of(m)}/envelope.schema.json"
        validator = jsonschema.Draft202012Validator({"$ref": uri}, registry=registry)
        verdicts.append(validator.is_valid(m))
    return verdicts


disagreements = 0
files = sorted(p for p in (root / "examples" / "hsp").rglob("*") if p.is_file())
for path in files:
    out = subprocess.run([binary, "validate", "-p", "hsp", "--format", "json", str(path)], capture_output=True, text=True)
    ours = [json.loads(line)["valid"] for line in out.stdout.splitlines()]
    theirs = third_party(path.read_text())
    if ours != theirs:
        disagreements += 1
        print(f"DISAGREE {path}: aiproto {ours}, python-jsonschema {theirs}")
print(f"hsp verdicts: {len(files)} files, {disagreements} disagreements")
sys.exit(1 if disagreements else 0)
