#!/usr/bin/env python3
"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit
(`pre-commit try-repo` against this checkout) in a scratch git repository:
passing files pass, a broken envelope fails the hook and is named, files
that hold no message (a package.json) are skipped, AIPROTO_REPORT makes
a hook write a SARIF report, and 6,000 files that pre-commit splits among
several runs (one after the other, or at once) make one SARIF and one JUnit
report holding every file's result.

`aiproto-validate-system` runs the binary given; `aiproto-validate` (the
`language: rust` hook) has pre-commit build aiproto from this checkout with
`cargo install`. Here that build is given `--debug --locked` and the
checkout's own target directory (a `cargo` on PATH that adds them), so it
reuses the dependencies `cargo test` built (the same versions, the same
profile) and compiles only aiproto again: the step takes 71 s in CI, where
building every dependency with the release profile took 455 s of two cores.

usage: pre_commit_hooks.py AIPROTO_BINARY REPO_ROOT [--skip-build]
"""
import json
import os
import xml.etree.ElementTree
import pathlib
import shutil
import subprocess
import sys
import tempfile

binary = pathlib.Path(sys.argv[1]).resolve()
root = pathlib.Path(sys.argv[2]).resolve()
build = "--skip-build" not in sys.argv
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def try_repo(repo, hook, env_extra=None):
    env = dict(os.environ, PATH=f"{binary.parent}:{os.environ['PATH']}", NO_COLOR="1")
    env.pop("AIPROTO_REPORT", None)
    env.update(env_extra or {})
    done = subprocess.run(
        ["pre-commit", "try-repo", str(root), hook, "--all-files", "--color", "never"],
        cwd=repo, env=env, capture_output=True, text=True,
    )
    return done.returncode, done.stdout + done.stderr


# Each hook is require_serial: aiproto checks on every core already (the
# reports are one however the parts run: checked below).
hooks = (root / ".pre-commit-hooks.yaml").read_text().split("\n- id: ")[1:]
for hook in hooks:
    check("require_serial: true" in hook, f"hook {hook.split()[0]} is require_serial")

with tempfile.TemporaryDirectory() as tmp:
    repo = pathlib.Path(tmp) / "project"
    (repo / "messages").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "CI")
    for name in ("v1_1-request-routing.crosstalk", "v1_1-ack-nack.crosstalk"):
        shutil.copy(root / "examples" / "crosstalk" / "valid" / name, repo / "messages" / name)
    shutil.copy(root / "examples" / "hsp" / "valid" / "0.1" / "belief.json", repo / "messages" / "belief.json")
    (repo / "package.json").write_text('{"name": "project", "version": "1.0.0"}\n')
    (repo / "README.md").write_text("# project\n")
    git(repo, "add", "-A")

    code, out = try_repo(repo, "aiproto-validate-system")
    check(code == 0 and "Passed" in out, f"valid messages pass (exit {code}):\n{out[-600:]}")

    broken = (root / "examples" / "crosstalk" / "invalid" / "unknown-intent.crosstalk").read_text()
    (repo / "messages" / "broken.crosstalk").write_text(broken)
    git(repo, "add", "-A")
    code, out = try_repo(repo, "aiproto-validate-system", {"AIPROTO_REPORT": "sarif:aiproto.sarif"})
    check(code == 1 and "Failed" in out, f"a broken envelope fails the hook (exit {code})")
    check("messages/broken.crosstalk:7:9: error[CT-INTENT-UNKNOWN]" in out, f"the finding is named:\n{out[-800:]}")
    check("package.json" not in out, "package.json is skipped, not reported")
    report = repo / "aiproto.sarif"
    check(report.exists(), "AIPROTO_REPORT made the hook write a SARIF report")
    if report.exists():
        results = json.loads(report.read_text())["runs"][0]["results"]
        check([r["ruleId"] for r in results] == ["CT-INTENT-UNKNOWN"], f"the report holds the finding: {results}")

    # 6,000 files: more than one command line, so pre-commit runs aiproto
    # several times. Every run's results end up in the one SARIF and the one
    # JUnit report, read by sarif-tools and junitparser.
    from sarif import loader as sarif_loader
    import junitparser

    many = pathlib.Path(tmp) / "many"
    (many / "messages").mkdir(parents=True)
    git(many, "init", "-q")
    valid = (root / "examples" / "crosstalk" / "valid" / "v1_1-request-routing.crosstalk").read_text()
    total = 6000
    for i in range(total):
        text = broken if i in (17, 5999) else valid
        (many / "messages" / f"message-{i:05}.crosstalk").write_text(text)
    git(many, "add", "-A")
    reports = "sarif:aiproto.sarif,junit:aiproto.xml"

    def read_reports(where):
        results = sarif_loader.load_sarif_file(str(many / "aiproto.sarif")).get_result_count()
        cases = sum(len(list(suite)) for suite in junitparser.JUnitXml.fromfile(str(many / "aiproto.xml")))
        return results, cases

    code, out = try_repo(many, "aiproto-validate-system", {"AIPROTO_REPORT": reports})
    runs = out.count("- hook id:")
    check(code == 1, f"the broken envelopes fail the hook (exit {code})")
    results, cases = read_reports("try-repo")
    check(results == 2, f"the SARIF holds both findings of every run: {results}")
    check(cases == total, f"the JUnit holds a case per file: {cases} of {total}")

    # The same hook without require_serial: pre-commit runs its parts at
    # once, and they still write one report.
    (many / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n"
        "  - id: parallel\n    name: aiproto validate in parallel\n"
        "    entry: aiproto validate --skip-non-messages --allow-empty\n"
        "    language: system\n    files: \\.crosstalk$\n    require_serial: false\n"
    )
    git(many, "add", "-A")
    env = dict(os.environ, PATH=f"{binary.parent}:{os.environ['PATH']}", NO_COLOR="1",
               AIPROTO_REPORT=reports)
    done = subprocess.run(["pre-commit", "run", "--all-files", "--color", "never"], cwd=many, env=env,
                          capture_output=True, text=True)
    check(done.returncode == 1, f"the parallel hook fails (exit {done.returncode}):\n{done.stdout[-600:]}{done.stderr[-600:]}")
    results, cases = read_reports("parallel")
    check(results == 2, f"parallel parts: the SARIF holds both findings: {results}")
    check(cases == total, f"parallel parts: the JUnit holds a case per file: {cases} of {total}")
    sarif = json.loads((many / "aiproto.sarif").read_text())
    check(len(sarif["runs"]) == 1, "one SARIF run (GitHub refuses several runs of one tool and category)")

    if build:
        # The `language: rust` hook: pre-commit builds aiproto itself.
        shim = pathlib.Path(tmp) / "cargo-shim"
        shim.mkdir()
        real_cargo = shutil.which("cargo")
        (shim / "cargo").write_text(
            "#!/bin/sh\n"
            f'if [ "$1" = install ]; then shift; exec "{real_cargo}" install --debug --locked "$@"; fi\n'
            f'exec "{real_cargo}" "$@"\n')
        (shim / "cargo").chmod(0o755)
        fast = {
            "PATH": f"{shim}:{os.environ['PATH']}",
            # CI gives it a target directory of its own, seeded with the
            # test build's dependencies, so that it runs beside `cargo test`.
            "CARGO_TARGET_DIR": os.environ.get("AIPROTO_PRE_COMMIT_TARGET_DIR", str(root / "target")),
            "PRE_COMMIT_HOME": str(pathlib.Path(tmp) / "cache"),
        }
        code, out = try_repo(repo, "aiproto-validate", fast)
        check(code == 1 and "messages/broken.crosstalk:7:9: error[CT-INTENT-UNKNOWN]" in out,
              f"the rust hook builds aiproto and fails on the broken envelope (exit {code}):\n{out[-1500:]}")

if failures:
    print(f"{len(failures)} check(s) failed", file=sys.stderr)
    sys.exit(1)
print("pre-commit: the hooks pass valid messages, fail broken ones and skip the rest; "
      "6,000 files split among several runs make one SARIF and one JUnit report")
