"""What the HSP conformance adapters share: reading the vector's file as
HSP messages (one object, an array of them, or JSON Lines), the type name
a message_type carries, and refusing with a reason (exit 1, the reason on
stderr, as `aiproto conformance parser` reads it)."""
import json
import pathlib
import sys


def refuse(why):
    print(why, file=sys.stderr)
    sys.exit(1)


def read_messages(path):
    """The messages of the file at `path`; refuses what is not UTF-8 JSON."""
    try:
        text = pathlib.Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        refuse(f"not UTF-8: {e}")
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


def type_name(message_type):
    """`Fact` for `HSP::Fact_v0.1` (the spec's spelling) or `HSP.Fact_v0.1`
    (where the upstream's connector writes it)."""
    kind = str(message_type or "")
    for prefix in ("HSP::", "HSP."):
        kind = kind.removeprefix(prefix)
    return kind.rsplit("_v", 1)[0]
