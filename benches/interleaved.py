#!/usr/bin/env python3
"""Runs commands in turn, round after round, and prints each one's median
wall and CPU time, and each ratio to a peer.

Interleaving (a, b, c, a, b, c, ...) rather than running each command many
times back to back means every command meets the machine as a user or a
script running different commands meets it: a small peer's pages are not
kept hot by its own previous run, and a busy minute slows every command
alike rather than whichever ran then.

usage: interleaved.py ROUNDS NAME=COMMAND... [--ratio OURS/PEER]...
  NAME=COMMAND  a name for the row, then the command (split like a shell
                line, no globbing; leading VAR=value words set the
                environment)
  --ratio A/B   also print A's median over B's (names given above)
"""
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time


def parse(argv):
    if len(argv) < 2 or not argv[0].isdigit():
        sys.exit(__doc__)
    rounds, commands, ratios = int(argv[0]), [], []
    rest = iter(argv[1:])
    for arg in rest:
        if arg == "--ratio":
            ours, _, peer = next(rest).partition("/")
            ratios.append((ours, peer))
            continue
        name, _, line = arg.partition("=")
        words = shlex.split(line)
        env = dict(os.environ)
        while words and "=" in words[0] and not words[0].startswith(("/", ".")):
            key, _, value = words.pop(0).partition("=")
            env[key] = value
        commands.append((name, words, env))
    return rounds, commands, ratios


def main():
    rounds, commands, ratios = parse(sys.argv[1:])
    wall = {name: [] for name, _, _ in commands}
    cpu = {name: [] for name, _, _ in commands}
    for _ in range(rounds):
        for name, words, env in commands:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(words, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wall[name].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(after.ru_utime - before.ru_utime
                             + after.ru_stime - before.ru_stime)
    print(f"| command | median | p25–p75 | CPU (median) |\n|---|---|---|---|")
    for name, _, _ in commands:
        w = sorted(wall[name])
        print(f"| {name} | {statistics.median(w) * 1000:.2f} ms "
              f"| {w[len(w) // 4] * 1000:.2f}–{w[3 * len(w) // 4] * 1000:.2f} ms "
              f"| {statistics.median(cpu[name]) * 1000:.2f} ms |")
    for ours, peer in ratios:
        if ours in wall and peer in wall:
            a, b = statistics.median(wall[ours]), statistics.median(wall[peer])
            print(f"{ours} / {peer}: {a / b:.2f}x ({a * 1000:.2f} ms vs {b * 1000:.2f} ms)")


if __name__ == "__main__":
    main()
