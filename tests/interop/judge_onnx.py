#!/usr/bin/env python3
"""aiproto's MiniLM judge against ONNX Runtime, the way users deploy the
model (benches/minilm_onnx.py: the graph built from the same safetensors,
Hugging Face's tokenizers reading tokenizer.json): the same pairs must get
the same similarity, to 1e-4. Pairs of generated prose of 8 to 120 words
(some cut at 256 word pieces), accents and CJK, and the near-misses the
judge exists for.

Usage: judge_onnx.py AIPROTO_BIN MODEL_DIR
Needs: pip install onnxruntime onnx tokenizers numpy
"""

import json
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benches"))
import minilm_onnx  # noqa: E402


def pairs():
    rng = random.Random(7)
    words = ("deploy pipeline cluster staging failed release API region churn report "
             "review budget owner deadline").split()
    prose = [" ".join(rng.choice(words) for _ in range(rng.randint(8, 400))) for _ in range(30)]
    out = list(zip(prose[0::2], prose[1::2]))
    out += [
        ("Deploy at 14:00", "Deploy at 16:00"),
        ("The deploy failed.", "Please transform failed."),
        ("Déployez l'API — naïve café, 東京 office, ½ done", "Deploy the API: cafe, Tokyo office, half done"),
        ("Do not deploy the API to production", "Deploy the API to production"),
        ("", "Something"),
    ]
    return out


def main():
    binary, model = sys.argv[1], sys.argv[2]
    judge = minilm_onnx.Judge(model, threads=2)
    worst, failures = 0.0, []
    # One at a time: the near-misses and a few long pairs (each run loads
    # the model again); every pair goes through the --pairs run below.
    for a, b in pairs()[:3] + pairs()[-5:]:
        run = subprocess.run(
            [binary, "msp", "judge", "--format", "json", "--embedding-model-dir", model, a, b],
            capture_output=True, text=True,
        )
        ours = json.loads(run.stdout)["similarity_score"]
        first, second = judge.embed([a, b])
        theirs = float(first @ second)
        worst = max(worst, abs(ours - theirs))
        if abs(ours - theirs) > 1e-4:
            failures.append(f"{a[:40]!r} ~ {b[:40]!r}: aiproto {ours:.6f}, ONNX Runtime {theirs:.6f}")
    # The same pairs in one run (`--pairs`): batched by length, a batch a core.
    lines = "".join(json.dumps({"original": a, "decoded": b}) + "\n" for a, b in pairs())
    run = subprocess.run(
        [binary, "msp", "judge", "--format", "json", "--embedding-model-dir", model, "--pairs", "-"],
        input=lines, capture_output=True, text=True,
    )
    batched = [json.loads(l)["similarity_score"] for l in run.stdout.splitlines()]
    if len(batched) != len(pairs()):
        failures.append(f"--pairs gave {len(batched)} verdicts for {len(pairs())} pairs: {run.stderr}")
    for (a, b), ours in zip(pairs(), batched):
        first, second = judge.embed([a, b])
        theirs = float(first @ second)
        worst = max(worst, abs(ours - theirs))
        if abs(ours - theirs) > 1e-4:
            failures.append(f"--pairs {a[:40]!r} ~ {b[:40]!r}: aiproto {ours:.6f}, ONNX Runtime {theirs:.6f}")
    print(f"aiproto's judge against ONNX Runtime, {len(pairs())} pairs in one --pairs run, 8 of them one at a time too: "
          f"largest difference {worst:.2e}")
    for f in failures:
        print("  " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
