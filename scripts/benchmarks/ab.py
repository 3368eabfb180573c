"""`ab`: the same hearth command with several binaries, interleaved."""
import argparse
import collections
import os
import subprocess

from .common import interleaved, load, median_range, timed, variant_option


def options(p):
    variant_option(p, required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--setup", help="shell command run (untimed) before every run")
    p.add_argument("args", nargs=argparse.REMAINDER)


def run(a):
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    named = [b.split("=", 1) for b in a.variant]
    results = collections.defaultdict(list)
    for r in range(a.rounds):
        for name, path in interleaved(named, r):
            if a.setup:
                subprocess.run(a.setup, shell=True, check=True)
            os.sync()
            wall, cpu, rss, out = timed([path] + args)
            results[name].append((wall, cpu, rss, (out.strip().splitlines() or [""])[-1]))
    print(f"{' '.join(args)}  ({a.rounds} rounds, interleaved; load average {load():.1f})")
    print(f"{'binary':<10} {'wall s: median (range)':<24} {'CPU s: median (range)':<24} {'max RSS MiB':<24} last line")
    for name, _ in named:
        rs = results[name]
        print(f"{name:<10} {median_range([x[0] for x in rs]):<24} {median_range([x[1] for x in rs]):<24} {median_range([x[2] for x in rs]):<24} {rs[-1][3]}")
