"""`floors`: a job's real run against the read floor (steady) or read + write floor
(`--first`), several binaries interleaved per round, on the data directory only."""
import collections
import json
import os
import subprocess

from .common import NOW, bins, data_options, interleaved, load, median_range, timed, variant_option
from .data import fresh_copy, pristine
from .jobs import job_list, read_floor


def options(p):
    data_options(p, backend=False)
    p.add_argument("--job", required=True)
    variant_option(p, required=True)
    p.add_argument("--first", action="store_true", help="first runs on fresh copies, against read + write floor")
    p.add_argument("--rounds", type=int, default=5)


def write_floor(a, seed, data, writes):
    fresh_copy(seed, data)
    out = subprocess.run([a.bench_bin, "write-floor", data, "--collections", writes], capture_output=True, text=True, check=True).stdout
    fresh_copy(seed, data)
    return json.loads(out.strip().splitlines()[-1])["seconds"]


def run(a):
    bins(a)
    seed = pristine(a, int(a.users), a.busy)
    data = os.path.join(a.work, f"floors-{a.users}")
    jobs = job_list(a, seed)
    reads = ",".join(jobs[a.job].get("reads", []))
    writes = ",".join(jobs[a.job].get("writes", []))
    named = [b.split("=", 1) for b in a.variant]
    rows = collections.defaultdict(list)
    fresh_copy(seed, data)
    if not a.first:  # steady: a first run brings the copy up to date
        subprocess.run([named[0][1], "run", a.job, "--data", data, "--now", NOW, "--log-level", "error"], check=True, stdout=subprocess.DEVNULL)
    for r in range(a.rounds):
        write = 0.0
        if a.first:
            write = write_floor(a, seed, data, writes)
            rows["write floor"].append(write)
        f1 = read_floor(a, data, reads)
        rows["read floor"].append(f1)
        for name, path in interleaved(named, r):
            if a.first:
                fresh_copy(seed, data)
            os.sync()
            wall, cpu, rss, _ = timed([path, "run", a.job, "--data", data, "--now", NOW, "--log-level", "error"])
            rows[name].append(wall)
            rows[name + " ratio"].append(wall / (f1 + write))
            rows[name + " cpu"].append(cpu)
            rows[name + " rss"].append(rss)
    print(f"{a.job} {'first' if a.first else 'steady'} run at {a.users} users, {a.rounds} rounds, load average {load():.1f} "
          f"(`scripts/bench.py floors --job {a.job}{' --first' if a.first else ''}`)")
    for k, v in rows.items():
        print(f"  {k:<28} {median_range(v, 3)}")
