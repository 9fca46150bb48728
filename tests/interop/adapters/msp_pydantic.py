#!/usr/bin/env python3
"""A conformance adapter: reads an MSP file with the spec's own pydantic
model (`MinimalSignal`, extra fields forbidden; the copy in msp_wire.py).
Exit 0 when the signal validates, 1 when not (pydantic's reason on stderr).

usage: msp_pydantic.py FILE
"""
import importlib.util
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("msp_wire", HERE.parent / "msp_wire.py")
wire = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wire)

try:
    wire.MinimalSignal.model_validate_json(pathlib.Path(sys.argv[1]).read_bytes())
except Exception as e:  # pydantic's ValidationError
    print(" / ".join(str(e).splitlines()[:2]) or type(e).__name__, file=sys.stderr)
    sys.exit(1)
