#!/usr/bin/env python3
"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit
(`pre-commit try-repo` against this checkout) in a scratch git repository:
passing files pass, a broken envelope fails the hook and is named, files
that hold no message (a package.json) are skipped, and AIPROTO_REPORT makes
a hook write a SARIF report.

`aiproto-validate-system` runs the binary given; `aiproto-validate` (the
`language: rust` hook) has pre-commit build aiproto from this checkout with
`cargo install`, here with an unoptimised release profile to keep CI short.

usage: pre_commit_hooks.py AIPROTO_BINARY REPO_ROOT [--skip-build]
"""
import json
import os
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


# Each hook runs as one process: split among several, they would all write
# the one AIPROTO_REPORT file at once (a corrupt report, seen in CI).
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

    if build:
        # The `language: rust` hook: pre-commit builds aiproto itself.
        fast = {
            "CARGO_PROFILE_RELEASE_OPT_LEVEL": "0",
            "CARGO_PROFILE_RELEASE_LTO": "false",
            "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "256",
            "CARGO_PROFILE_RELEASE_DEBUG": "false",
            "PRE_COMMIT_HOME": str(pathlib.Path(tmp) / "cache"),
        }
        code, out = try_repo(repo, "aiproto-validate", fast)
        check(code == 1 and "messages/broken.crosstalk:7:9: error[CT-INTENT-UNKNOWN]" in out,
              f"the rust hook builds aiproto and fails on the broken envelope (exit {code}):\n{out[-1500:]}")

if failures:
    print(f"{len(failures)} check(s) failed", file=sys.stderr)
    sys.exit(1)
print("pre-commit: the hooks pass valid messages, fail broken ones and skip the rest")
