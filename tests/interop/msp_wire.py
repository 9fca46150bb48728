#!/usr/bin/env python3
"""The compact MSP wire form against the upstream's own model: every signal
`aiproto msp encode` writes for the shipped prose is read by the spec's
pydantic `MinimalSignal` (extra fields forbidden), and that reading says the
same as aiproto's: each field written is read unchanged, each left out is
the spec's default, and aiproto decodes the wire form and pydantic's full
dump of it to the same prose.

Usage: msp_wire.py AIPROTO_BIN REPO_ROOT
"""

import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Literal, Optional
from uuid import uuid4

from pydantic import BaseModel, Field


class MinimalSignal(BaseModel):
    """The MSP 1.0 model as the spec (protocol.py) writes it."""

    model_config = {"extra": "forbid"}
    version: str = "1.0"
    intent: Literal["ANALYZE", "GENERATE", "EVALUATE", "TRANSFORM", "QUERY", "RESPOND", "DELEGATE", "REPORT"]
    target: str
    params: Dict[str, Any] = Field(default_factory=dict)
    constraints: List[str] = Field(default_factory=list)
    state: Dict[str, Any] = Field(default_factory=dict)
    priority: Literal["low", "medium", "high", "critical"] = "medium"
    trace_id: str = Field(default_factory=lambda: str(uuid4()))
    timestamp: datetime = Field(default_factory=datetime.utcnow)
    parent_id: Optional[str] = None


DEFAULTS = {"version": "1.0", "params": {}, "constraints": [], "state": {}, "priority": "medium", "parent_id": None}


def run(bin_, *args, stdin=None):
    out = subprocess.run([bin_, *args], input=stdin, capture_output=True, text=True)
    # `msp encode` exits 1 when the signal does not compress (and says so):
    # the signal is still written, and still read here.
    compressed_or_said = out.returncode == 1 and "does not compress" in out.stderr
    if out.returncode != 0 and not compressed_or_said:
        sys.exit(f"{' '.join(args)}: exit {out.returncode}: {out.stderr}")
    return out.stdout


def main():
    bin_, root = sys.argv[1], Path(sys.argv[2])
    prose = sorted((root / "examples/msp/prose").glob("*.txt"))
    checked = 0
    for path in prose:
        wire_text = run(bin_, "msp", "encode", "--format", "json", f"@{path}").strip()
        wire = json.loads(wire_text)
        signal = MinimalSignal.model_validate_json(wire_text)
        for key, value in wire.items():
            read = getattr(signal, key)
            if key == "timestamp":
                expected = datetime.fromtimestamp(value, tz=timezone.utc) if isinstance(value, int) else read
                assert read == expected, (path.name, read, value)
            else:
                assert read == value, (path.name, key, read, value)
        for key, default in DEFAULTS.items():
            if key not in wire:
                assert getattr(signal, key) == default, (path.name, key)
        assert "trace_id" in wire and "timestamp" in wire, path.name
        full = signal.model_dump_json()
        assert run(bin_, "msp", "decode", "-", stdin=wire_text) == run(bin_, "msp", "decode", "-", stdin=full), path.name
        checked += 1
    # aiproto's own full form is read by pydantic too.
    full = run(bin_, "msp", "encode", "--full", "--format", "json", f"@{prose[0]}")
    MinimalSignal.model_validate_json(full)
    print(f"msp wire form: {checked} signals read by pydantic as aiproto reads them")


if __name__ == "__main__":
    main()
