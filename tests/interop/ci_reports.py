#!/usr/bin/env python3
"""The CI reports of `aiproto validate` and `verify`, read by the tools CI
systems use, and compared with aiproto's own `--format json` verdicts:

- SARIF: the official SARIF 2.1.0 schema (python-jsonschema), Microsoft's
  SARIF Multitool `validate` (no error-level result), and sarif-tools;
- JUnit XML: junitparser;
- GitHub workflow commands: their documented grammar and escaping;
- GitLab code quality: the fields GitLab reads.

The run happens in a scratch repository: messages of every protocol, valid
and broken, a README, a binary file, names with spaces, commas and
non-ASCII letters.

usage: ci_reports.py AIPROTO_BINARY REPO_ROOT SARIF_MULTITOOL SARIF_SCHEMA
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import jsonschema
import junitparser
from sarif import loader as sarif_loader

binary = os.path.abspath(sys.argv[1])
root = pathlib.Path(sys.argv[2]).resolve()
multitool = sys.argv[3]
sarif_schema = json.loads(pathlib.Path(sys.argv[4]).read_text())

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def run(args, cwd, env=None):
    full_env = dict(os.environ, NO_COLOR="1")
    full_env.pop("AIPROTO_REPORT", None)
    full_env.update(env or {})
    return subprocess.run([binary, *args], cwd=cwd, env=full_env, capture_output=True)


def scratch_repository(into):
    """Messages of every protocol, broken ones and files that are none."""
    shutil.copytree(root / "examples" / "crosstalk" / "valid", into / "messages" / "crosstalk")
    shutil.copytree(root / "examples" / "crosstalk" / "invalid", into / "messages" / "broken")
    shutil.copytree(root / "examples" / "hsp" / "invalid", into / "messages" / "hsp-broken")
    for protocol in ("hsp", "csdl", "msp"):
        for path in sorted((root / "examples" / protocol / "valid").rglob("*.json"))[:3]:
            shutil.copy(path, into / "messages" / f"{protocol}-{path.name}")
    odd = into / "messages" / "a reply, réponse.crosstalk"
    odd.write_text((root / "examples" / "crosstalk" / "invalid" / "unknown-intent.crosstalk").read_text())
    (into / "README.md").write_text("# A project\n\nNo message here.\n")
    (into / "messages" / "blob.json").write_bytes(b"\x00\xff\xfe binary")
    return ["messages", "README.md"]


with tempfile.TemporaryDirectory() as tmp:
    repo = pathlib.Path(tmp)
    inputs = scratch_repository(repo)

    # aiproto's own verdicts: the reference every report is compared with.
    reference = run(["validate", "--format", "json", *inputs], repo)
    rows = [json.loads(line) for line in reference.stdout.decode().splitlines()]
    findings = [(r, d) for r in rows for d in r["errors"] + r["warnings"]]
    check(reference.returncode == 1, f"validate exits 1 on broken messages, got {reference.returncode}")
    check(len(rows) > 20 and any(r["valid"] for r in rows), "the scratch repository has valid and invalid messages")

    outputs = {}
    for fmt in ("sarif", "junit", "github", "gitlab"):
        done = run(["validate", "--format", fmt, *inputs], repo)
        check(done.returncode == reference.returncode, f"--format {fmt} exits as json does ({done.returncode})")
        outputs[fmt] = done.stdout
        (repo / f"report.{fmt}").write_bytes(done.stdout)

    # SARIF: the schema, Microsoft's validator, sarif-tools.
    sarif = json.loads(outputs["sarif"])
    errors = sorted(jsonschema.Draft7Validator(sarif_schema).iter_errors(sarif), key=str)
    check(not errors, f"SARIF matches the 2.1.0 schema: {[e.message for e in errors[:3]]}")
    validation = repo / "validation.sarif"
    tool = subprocess.run(
        [multitool, "validate", str(repo / "report.sarif"), "-o", str(validation)],
        env=dict(os.environ, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT="1"),
        capture_output=True,
    )
    check(tool.returncode == 0, f"the SARIF Multitool ran: {tool.stdout.decode()[-400:]}")
    if validation.exists():
        verdicts = json.loads(validation.read_text())["runs"][0].get("results", [])
        bad = [r for r in verdicts if r.get("level", "warning") == "error"]
        check(not bad, f"the SARIF Multitool finds no error: {[r['ruleId'] for r in bad]}")
    loaded = sarif_loader.load_sarif_file(str(repo / "report.sarif"))
    check(loaded.get_result_count() == len(findings),
          f"sarif-tools counts {loaded.get_result_count()} results, json {len(findings)}")
    run0 = sarif["runs"][0]
    rules = run0["tool"]["driver"]["rules"]
    for result in run0["results"]:
        check(rules[result["ruleIndex"]]["id"] == result["ruleId"], f"ruleIndex of {result['ruleId']}")
        check(rules[result["ruleIndex"]]["shortDescription"]["text"], f"{result['ruleId']} has help text")
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        check(location.get("uriBaseId") == "SRCROOT" and not location["uri"].startswith("/"),
              f"a relative location: {location}")
    # Columns in code points, as aiproto counts them.
    check(run0["columnKind"] == "unicodeCodePoints", "columnKind")

    # JUnit: a test case per message (or per input without one), failures for the invalid.
    xml = junitparser.JUnitXml.fromfile(str(repo / "report.junit"))
    cases = [(suite.name, case) for suite in xml for case in suite]
    check(len(cases) == len(rows), f"junitparser reads {len(cases)} test cases, json has {len(rows)} verdicts")
    failed = [case for _, case in cases if not case.is_passed]
    check(len(failed) == sum(not r["valid"] for r in rows),
          f"{len(failed)} failing test cases for {sum(not r['valid'] for r in rows)} invalid verdicts")
    check({name for name, _ in cases} == {r["source"] for r in rows}, "a test suite per input, named by its path")
    for case in failed:
        result = case.result[0]
        check(result.type and result.text and result.type in result.text, f"a failure names its code: {case.name}")

    # GitHub: `::LEVEL key=value,…::message`, escaped as the runner unescapes.
    grammar = re.compile(r"^::(error|warning|notice) ((?:[a-zA-Z]+=[^,:]*)(?:,[a-zA-Z]+=[^,:]*)*)::(.*)$")
    unescape_data = lambda s: s.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
    unescape_prop = lambda s: unescape_data(s.replace("%3A", ":").replace("%2C", ","))
    annotations = []
    for line in outputs["github"].decode().splitlines():
        m = grammar.match(line)
        check(m is not None, f"a workflow command: {line[:120]}")
        if not m:
            continue
        props = dict(p.split("=", 1) for p in m.group(2).split(","))
        props = {k: unescape_prop(v) for k, v in props.items()}
        if m.group(1) != "notice" or "file" in props:
            check((repo / props["file"]).exists(), f"the file of an annotation exists: {props['file']}")
        annotations.append((m.group(1), props, unescape_data(m.group(3))))
    shown = [a for a in annotations if a[0] != "notice"]
    check(len(shown) == len(findings), f"{len(shown)} annotations for {len(findings)} findings")
    # The same findings, in the order of each message's findings (JSON
    # lists a message's errors before its warnings).
    place = lambda source, line, column, code: (source, int(line or 0), int(column or 0), code)
    shown.sort(key=lambda a: place(a[1]["file"], a[1].get("line"), a[1].get("col"), a[1]["title"]))
    ordered = sorted(findings, key=lambda f: place(f[0]["source"], f[1]["line"], f[1]["column"], f[1]["code"]))
    for (level, props, message), (row, d) in zip(shown, ordered):
        check(props["title"] == d["code"], f"title {props['title']} is the code {d['code']}")
        check(props["file"] == row["source"], f"file {props['file']} is {row['source']}")
        if d["line"] > 0:
            check(props["line"] == str(d["line"]) and props["col"] == str(d["column"]),
                  f"{d['code']} at {props.get('line')}:{props.get('col')}, json {d['line']}:{d['column']}")
        check(message.startswith(d["message"]), f"the message of {d['code']}")

    # GitLab code quality.
    issues = json.loads(outputs["gitlab"])
    check(len(issues) == len(findings), f"{len(issues)} GitLab issues for {len(findings)} findings")
    check(len({i["fingerprint"] for i in issues}) == len(issues), "fingerprints are unique")
    for issue in issues:
        check(set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"},
              f"the fields GitLab reads: {sorted(issue)}")
        check(issue["severity"] in {"info", "minor", "major", "critical", "blocker"}, issue["severity"])
        check((repo / issue["location"]["path"]).exists(), f"path {issue['location']['path']}")
        check(isinstance(issue["location"]["lines"]["begin"], int), "lines.begin")
    again = json.loads(run(["validate", "--format", "gitlab", *inputs], repo).stdout)
    check([i["fingerprint"] for i in again] == [i["fingerprint"] for i in issues], "fingerprints are stable")

    # --report and AIPROTO_REPORT: people read stdout, CI reads the files.
    human = run(["validate", *inputs], repo)
    both = run(["validate", "--report", "sarif:out.sarif", "--report", "junit:out.xml", *inputs], repo)
    check(both.stdout == human.stdout and both.returncode == human.returncode, "--report leaves stdout as it was")
    check(json.loads((repo / "out.sarif").read_text())["runs"][0]["results"] == run0["results"],
          "--report sarif writes what --format sarif prints")
    check((repo / "out.xml").read_bytes() == outputs["junit"], "--report junit writes what --format junit prints")
    env = run(["validate", *inputs], repo, env={"AIPROTO_REPORT": "gitlab:env.json,github:env.txt"})
    check((repo / "env.json").read_bytes() == outputs["gitlab"], "AIPROTO_REPORT gitlab")
    check((repo / "env.txt").read_bytes() == outputs["github"], "AIPROTO_REPORT github")

    # verify: the same reports, a test case per message, and one failing
    # case for an input without any message (the run fails for it).
    signed = run(["verify", "--format", "junit", "messages/crosstalk", "README.md"], repo)
    suites = junitparser.JUnitXml.fromstring(signed.stdout)
    verified = {(s.name, c.is_passed) for s in suites for c in s}
    check(signed.returncode == 1 and len(verified) > 1, "verify --format junit")
    check(("README.md", False) in verified, f"the input without a message is a failing case: {verified}")

    # conformance: a parser that accepts everything, graded in each report.
    graded = {fmt: run(["conformance", "parser", "-p", "msp", "--format", fmt, "--", "true"], repo)
              for fmt in ("json", "sarif", "junit")}
    records = [json.loads(line) for line in graded["json"].stdout.splitlines()][:-1]
    failed = [r for r in records if not r["passed"]]
    check(graded["sarif"].returncode == 1 and failed, "conformance grades an accept-everything parser down")
    (repo / "conformance.sarif").write_bytes(graded["sarif"].stdout)
    conf = json.loads(graded["sarif"].stdout)
    errors = sorted(jsonschema.Draft7Validator(sarif_schema).iter_errors(conf), key=str)
    check(not errors, f"conformance SARIF matches the 2.1.0 schema: {[e.message for e in errors[:3]]}")
    validation = repo / "conformance-validation.sarif"
    subprocess.run([multitool, "validate", str(repo / "conformance.sarif"), "-o", str(validation)],
                   env=dict(os.environ, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT="1"), capture_output=True)
    if validation.exists():
        bad = [r for r in json.loads(validation.read_text())["runs"][0].get("results", [])
               if r.get("level", "warning") == "error"]
        check(not bad, f"the SARIF Multitool finds no error in the conformance log: {[r['ruleId'] for r in bad]}")
    else:
        check(False, "the SARIF Multitool validated the conformance log")
    check(sarif_loader.load_sarif_file(str(repo / "conformance.sarif")).get_result_count() == len(failed),
          "sarif-tools counts a result per failed vector")
    cases = [c for suite in junitparser.JUnitXml.fromstring(graded["junit"].stdout) for c in suite]
    check(len(cases) == len(records), f"junitparser reads {len(cases)} conformance cases, json has {len(records)} vectors")
    check(sum(not c.is_passed for c in cases) == len(failed), "a failing JUnit case per failed vector")

if failures:
    print(f"{len(failures)} check(s) failed", file=sys.stderr)
    sys.exit(1)
print(f"CI reports: {len(rows)} verdicts, {len(findings)} findings; SARIF, JUnit, GitHub and GitLab agree")
