#!/usr/bin/env python3
"""Runs the same hearth command with two (or more) binaries, interleaved, several rounds.

For a shared, noisy machine (docs/performance.md#measuring-on-a-shared-machine): each round
runs every binary once, alternating which goes first, and the report gives the median and the
range of the wall time, the CPU time (user + system, far less sensitive to other load than the
wall time) and the maximum resident set size (not affected by load) of each.

    scripts/bench-ab.py --rounds 7 --bin before=/tmp/hearth-main --bin after=.build/release/hearth \\
        -- run leaderboard-rebuild --data /tmp/d --now 2026-11-18T12:00:00Z --log-level error

`--setup CMD` runs a shell command before every run (e.g. restoring a data directory so that
each run is a first run); it is not timed.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile


def run_once(binary, args, setup):
    if setup:
        subprocess.run(setup, shell=True, check=True)
    subprocess.run(["sync"], check=True)
    with tempfile.NamedTemporaryFile("r") as out:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", out.name, binary] + args,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        wall, user, system, rss = out.read().split()[-4:]
    if p.returncode not in (0, 2):
        raise SystemExit(f"{binary} {' '.join(args)}: exit {p.returncode}")
    last = p.stdout.decode().strip().splitlines()[-1:] or [""]
    return float(wall), float(user) + float(system), int(rss) / 1024, last[0]


def summary(values):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", action="append", required=True, help="name=path")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--setup", help="shell command run (untimed) before every run")
    ap.add_argument("--json", help="write the raw figures here")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    bins = [b.split("=", 1) for b in a.bin]
    results = {name: [] for name, _ in bins}
    for r in range(a.rounds):
        order = bins if r % 2 == 0 else list(reversed(bins))
        for name, path in order:
            results[name].append(run_once(path, args, a.setup))
    print(f"{' '.join(args)}  ({a.rounds} rounds, interleaved; load average {os.getloadavg()[0]:.1f})")
    print(f"{'binary':<10} {'wall s: median (range)':<24} {'CPU s: median (range)':<24} {'max RSS MiB':<24} last line")
    for name, _ in bins:
        rs = results[name]
        print(f"{name:<10} {summary([x[0] for x in rs]):<24} {summary([x[1] for x in rs]):<24} {summary([x[2] for x in rs]):<24} {rs[-1][3]}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f)


if __name__ == "__main__":
    main()
