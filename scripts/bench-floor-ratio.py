#!/usr/bin/env python3
"""A job's run against the read floor (and, for a first run, the write floor), interleaved.

Issue 17's ratios (docs/performance.md#reads-at-the-floor-writes-at-the-disks-pace-issue-17):
each round measures the floors and runs every binary once (alternating which goes first), so
that the ratios compare runs made under the same load of this shared machine. Prints, per
round and then as median (range), the wall time of each floor and each binary, the binaries'
CPU time (user + system) and max RSS, and each binary's ratio to the floor(s) of its round.

Steady run (nothing to write), on a data directory a first run has already brought up to date:

    scripts/bench-floor-ratio.py --rounds 7 --bench .build/release/hearth-bench \\
        --bin before=/tmp/hearth-main --bin after=.build/release/hearth \\
        --data /tmp/steady20k --collections users,transactions --job leaderboard-rebuild

    ratio = run / single-thread read floor (`read-floor`), also given against the all-core
    floor (`read-floor --threads 0`).

First run (`--first SEED`): before every run and every write floor, DATA is replaced by a
fresh copy of SEED (not timed): `cp -al`, hard links, which is enough because a commit (and the
write floor) replaces each file it writes by a rename and never writes into one, so SEED is
never changed; then `sync`.

    scripts/bench-floor-ratio.py --rounds 5 ... --data /tmp/first20k --first /tmp/seed20k \\
        --write-collections users

    ratio = run / (single-thread read floor + write floor of the collections the run rewrites).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile

NOW = "2026-11-18T12:00:00Z"


def fresh(seed, data):
    if os.path.exists(data):
        shutil.rmtree(data)
    subprocess.run(["cp", "-al", seed, data], check=True)
    subprocess.run(["sync"], check=True)


def timed(cmd):
    with tempfile.NamedTemporaryFile("r") as out:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", out.name] + cmd,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        wall, user, system, rss = out.read().split()[-4:]
    if p.returncode not in (0, 2):
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}")
    return float(wall), float(user) + float(system), int(rss) / 1024, p.stdout.decode()


def floor(bench, kind, data, collections, extra=()):
    _, _, _, out = timed([bench, kind, data, "--collections", collections, *extra])
    return json.loads(out.strip().splitlines()[-1])["seconds"]


def summary(values):
    s = sorted(values)
    return f"{statistics.median(s):.3f} ({s[0]:.3f}–{s[-1]:.3f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bench", required=True, help="hearth-bench binary (the floors)")
    ap.add_argument("--bin", action="append", required=True, help="NAME=PATH of a hearth binary")
    ap.add_argument("--data", required=True)
    ap.add_argument("--collections", default="users,transactions", help="the job's own collections (read floor)")
    ap.add_argument("--job", default="leaderboard-rebuild")
    ap.add_argument("--first", metavar="SEED", help="first runs: DATA is a fresh copy of SEED before each run")
    ap.add_argument("--write-collections", default="users", help="what a first run rewrites (write floor)")
    a = ap.parse_args()
    bins = [b.split("=", 1) for b in a.bin]
    rows = {k: [] for k in ["floor1", "floorN", "write"] + [n for n, _ in bins]}
    ratios = {n: [] for n, _ in bins}
    ratiosN = {n: [] for n, _ in bins}
    cpu = {n: [] for n, _ in bins}
    rss = {n: [] for n, _ in bins}
    for r in range(a.rounds):
        load = os.getloadavg()[0]
        if a.first:
            fresh(a.first, a.data)
            w = floor(a.bench, "write-floor", a.data, a.write_collections)
            rows["write"].append(w)
            fresh(a.first, a.data)
        f1 = floor(a.bench, "read-floor", a.data, a.collections)
        fN = floor(a.bench, "read-floor", a.data, a.collections, ["--threads", "0"])
        rows["floor1"].append(f1)
        rows["floorN"].append(fN)
        order = bins if r % 2 == 0 else list(reversed(bins))
        line = [f"round {r + 1} (load {load:.1f}): read floor {f1:.3f} s (all cores {fN:.3f})"]
        if a.first:
            line.append(f"write floor {w:.3f}")
        for name, path in order:
            if a.first:
                fresh(a.first, a.data)
            wall, c, m, _ = timed([path, "run", a.job, "--data", a.data, "--now", NOW, "--log-level", "error"])
            base = f1 + (rows["write"][-1] if a.first else 0)
            rows[name].append(wall)
            ratios[name].append(wall / base)
            ratiosN[name].append(wall / (fN + (rows["write"][-1] if a.first else 0)))
            cpu[name].append(c)
            rss[name].append(m)
            line.append(f"{name} {wall:.3f} s ({wall / base:.2f}×, cpu {c:.2f} s, {m:.0f} MiB)")
        print("; ".join(line), flush=True)
    print(f"\n{a.rounds} rounds, {a.job} {'first' if a.first else 'steady'} run, collections {a.collections}")
    print(f"read floor, one thread:  {summary(rows['floor1'])} s")
    print(f"read floor, all cores:   {summary(rows['floorN'])} s")
    if a.first:
        print(f"write floor ({a.write_collections}): {summary(rows['write'])} s")
    for name, _ in bins:
        print(f"{name}: wall {summary(rows[name])} s, cpu {summary(cpu[name])} s, max RSS {summary(rss[name])} MiB, "
              f"ratio {summary(ratios[name])} (all-core floor: {summary(ratiosN[name])})")


if __name__ == "__main__":
    main()
