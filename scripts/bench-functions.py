#!/usr/bin/env python3
"""Benchmark a command job beside the same work done by a compiled-in job (docs/performance.md#command-jobs).

Writes a data directory of GIGS gigs (one in ten past its deadline) and 1,000 users, then,
several times each on a fresh copy: `hearth plan` and `hearth run` of functions/expire_gigs.py
(Python, a command job) and of its Swift twin (`hearth-bench run-twin`, the same rule through
the same runner). Prints the median wall time with its range and the peak RSS of each.

    swift build -c release && python3 scripts/bench-functions.py [--gigs 100000] [--reps 3]
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_data(path, gigs):
    os.makedirs(path + "/gigs")
    os.makedirs(path + "/users")
    for u in range(1000):
        with open(f"{path}/users/u{u:05d}.json", "w") as f:
            json.dump({"name": f"User {u}", "fcmTokens": [f"tok-{u:05d}"]}, f, indent=2)
    for g in range(gigs):
        expired = g % 10 == 0
        doc = {"title": f"Gig {g}", "description": "Help wanted for a few hours a week around classes.",
               "status": "active", "postedBy": f"u{g % 3000:05d}", "postedAt": "2026-11-10T09:00:00.000Z",
               "expiresAt": "2026-11-17T00:00:00.000Z" if expired else "2026-12-17T00:00:00.000Z"}
        with open(f"{path}/gigs/g{g:06d}.json", "w") as f:
            json.dump(doc, f, indent=2)


def timed(cmd, cwd):
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out.stderr[-2000:]}")
    seconds, kib = out.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kib) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gigs", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--bin", default=ROOT + "/.build/release")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="hearth-bench-fn-")
    try:
        pristine = work + "/pristine"
        write_data(pristine, a.gigs)
        with open(work + "/hearth.toml", "w") as f:
            f.write(f"""dataDir = "data"
[notifications]
types = ["gig_expired"]
[jobs.expire-gigs]
command = ["python3", "{ROOT}/functions/expire_gigs.py"]
reads = ["gigs", "users"]
writes = ["gigs", "notifications"]
schedule = "0 * * * *"
timeout = "1h"
""")
        now = "2026-11-18T12:00:00Z"
        variants = {
            "command job (Python)": lambda dry: [a.bin + "/hearth", "plan" if dry else "run", "expire-gigs", "--config", "hearth.toml", "--now", now, "--limit", "0"],
            "compiled-in twin (Swift)": lambda dry: [a.bin + "/hearth-bench", "run-twin", "--config", "hearth.toml", "--now", now] + (["--dry-run"] if dry else []),
        }
        results = {}
        for rep in range(a.reps):
            for name, cmd in variants.items():
                for dry in (True, False):
                    shutil.rmtree(work + "/data", ignore_errors=True)
                    subprocess.run(["cp", "-a", pristine, work + "/data"], check=True)
                    subprocess.run(["sync"], check=True)
                    results.setdefault((name, dry), []).append(timed(cmd(dry), work))
        print(f"{a.gigs:,} gigs + 1,000 users read, {a.gigs // 10:,} gigs expired (updated), {a.reps} runs each:")
        print("| job | plan: median (range) | run: median (range) | peak RSS (run) |")
        print("|---|---|---|---|")
        for name in variants:
            cells = []
            for dry in (True, False):
                t = [r[0] for r in results[(name, dry)]]
                cells.append(f"{statistics.median(t):.2f} s ({min(t):.2f}–{max(t):.2f})")
            rss = max(r[1] for r in results[(name, False)])
            print(f"| {name} | {cells[0]} | {cells[1]} | {rss:.0f} MiB |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
