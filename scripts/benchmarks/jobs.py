"""`jobs` (and `JOB`): every job, or those named, dry (`plan`), first real run and steady run
(`run` again at the same T) beside its read floor, on each backend and size; one table per
backend and size, rows also in WORK/bench-results.json."""
import collections
import json
import os
import statistics
import subprocess
import sys

from . import postgres
from .common import NOW, backends, bins, data_options, interleaved, load, log
from .data import pristine
from .store import Store

MODES = ("dry", "first", "steady")
SIZES = "10000,100000"


def options(p):
    data_options(p, users=None)
    p.add_argument("--jobs", default="", help="only these (comma-separated)")
    p.add_argument("--rounds", type=int, default=1, help="fresh data and every mode, this many times (medians)")
    p.add_argument("--fresh", action="store_true", help="fresh data before every job (default: the jobs run in turn on the same data)")
    p.add_argument("--modes", default="dry,first,steady", help="which runs (dry alone needs no copy of the seed; without first, the rounds repeat on the same data, each job run once unmeasured before them)")


def job_list(a, seed):
    out = subprocess.run([a.bin, "list", "--data", seed, "--format", "json"], capture_output=True, text=True, check=True, cwd=a.work).stdout
    return {j["job"]: j for j in json.loads(out)}


def read_floor(a, data, reads):
    subprocess.run([a.bench_bin, "read-floor", data, "--collections", reads], capture_output=True)  # warms the page cache
    out = subprocess.run([a.bench_bin, "read-floor", data, "--collections", reads], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["seconds"]


def run_modes(a, store, name):
    """dry (`plan`), first (`run` over the data as loaded) and steady (`run` again at the
    same T: the state of a job that runs on a schedule); those of --modes."""
    row = {"documentsRead": 0}
    for mode in a.modes:
        wall, cpu, rss, out = store.timed("plan" if mode == "dry" else "run", name, "--now", NOW, "--format", "json", "--log-level", "error")
        summary = ""
        if out.strip().startswith("{"):
            summary = json.loads(out)["summary"]["line"]
        row[mode] = {"seconds": wall, "cpu": round(cpu, 2), "rss": round(rss, 1), "summary": summary}
        if mode == "first":  # the first run's record (a dry run leaves none; the steady run's would tie on start time)
            hist = json.loads(store.hearth("history", name, "--limit", "1", "--format", "json").stdout or "[]")
            row["documentsRead"] = hist[0]["counts"]["documentsRead"] if hist else 0
    return row


def run(a):
    """`scripts/bench.py jobs …`, or `scripts/bench.py JOB …` (a.only: that job, 10,000 users by default)."""
    bins(a)
    a.modes = [m for m in MODES if m in a.modes.split(",")]
    a.users = a.users or ("10000" if a.only else SIZES)
    results = []
    with postgres.server(a.backend in ("postgres", "both")) as pg:
        for users in [int(s) for s in a.users.split(",")]:
            results += measure_size(a, users, pg)
    with open(os.path.join(a.work, "bench-results.json"), "w") as f:
        json.dump(results, f, indent=2)
    print_tables(a, results)


def measure_size(a, users, pg):
    seed = pristine(a, users, a.busy)
    jobs = job_list(a, seed)
    wanted = [a.only] if a.only else [j for j in jobs if not a.jobs or j in a.jobs.split(",")]
    for j in wanted:
        if j not in jobs:
            sys.exit(f"unknown job {j}; jobs: {', '.join(jobs)}")
    stores = {b: Store(a, b, users, seed, pg) for b in backends(a)}
    # Only a first run needs fresh data: without one (--modes dry,steady) the rounds
    # repeat on the same data, each job brought up to date once, unmeasured.
    fresh_each = "first" in a.modes and (a.rounds > 1 or a.fresh)
    for s in stores.values():
        s.load()
    results = []
    for name in wanted:
        floors, rows = measure_job(a, stores, seed, name, jobs[name], fresh_each, name == wanted[0])
        for b, rs in rows.items():
            results.append({"users": users, "backend": b, "job": name, "floor": floors, "runs": rs, "load": load(),
                            "importSeconds": stores[b].import_seconds, "importRSS": stores[b].import_rss})
            med = {m: statistics.median(x[m]["seconds"] for x in rs) for m in a.modes}
            log(f"{users:>7} {b:<8} {name:<22} floor {statistics.median(floors):.2f}s  "
                + "  ".join(f"{m} {med[m]:.3f}s" for m in a.modes)
                + f"  rss {max(x[m]['rss'] for x in rs for m in a.modes):.0f} MiB  load {load():.1f}")
    return results


def measure_job(a, stores, seed, name, job, fresh_each, first_job):
    """--rounds rounds of one job on every store, the backends' order alternating; the read
    floor over the seed itself (read-floor only reads). The first job's first round runs on
    the data as loaded."""
    floors = []
    rows = {b: [] for b in stores}
    if "steady" in a.modes and "first" not in a.modes:
        for s in stores.values():
            s.timed("run", name, "--now", NOW, "--log-level", "error")
    for r in range(a.rounds):
        if fresh_each and (r > 0 or not first_job):
            for s in stores.values():
                s.load()
        floors.append(read_floor(a, seed, ",".join(job.get("reads", []))))
        for b in interleaved(stores, r):
            rows[b].append(run_modes(a, stores[b], name))
    return floors, rows


def medians(runs):
    return {m: (statistics.median(x[m]["seconds"] for x in runs) if m in runs[0] else None) for m in MODES}


def cell(v, f=None):
    # Three decimals under a second: the short jobs' ratios need milliseconds.
    return (f or ("{:.3f}" if v < 1 else "{:.2f}")).format(v) if v is not None else "—"


def print_tables(a, results):
    by = collections.OrderedDict()
    for r in results:
        by.setdefault((r["users"], r["backend"]), []).append(r)
    dirs = {(r["users"], r["job"]): r for r in results if r["backend"] == "dir"}
    for (users, backend), rows in by.items():
        label = "data directory" if backend == "dir" else "PostgreSQL"
        imp = rows[0]["importSeconds"]
        print(f"\n### {users:,} users, {label}\n")
        modes = "" if a.modes == list(MODES) else " --modes " + ",".join(a.modes)
        print(f"`scripts/bench.py jobs --backend {'both' if a.backend == 'both' else backend} --users {users}{modes}`"
              f"{' --busy' if a.busy else ''}; {a.rounds} round(s), medians; load average {rows[-1]['load']:.1f}"
              + (f"; `data import` {imp:.1f} s, peak RSS {rows[0]['importRSS']:.0f} MiB" if imp else "") + "\n")
        ratio = backend == "postgres" and any((users, r["job"]) in dirs for r in rows)
        head = "| job | docs read | floor (s) | dry (s) | first (s) | steady (s) | dry / floor | steady / floor | peak RSS dry / first (MiB) |"
        rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
        if ratio:
            head += " dry, first, steady ÷ directory |"
            rule += "---|"
        print(head + " first run |")
        print(rule + "---|")
        for r in rows:
            print(table_row(r, dirs.get((users, r["job"])) if ratio else False))


def table_row(r, d):
    """One job's row; `d`: its row on the data directory (None: none measured), or False
    where the table has no ratio column."""
    med = medians(r["runs"])
    floor = statistics.median(r["floor"])
    rss = [max(x[m]["rss"] for x in r["runs"]) if m in r["runs"][0] else None for m in ("dry", "first")]

    def over(t):
        return f"{t / floor:.2f}" if floor >= 0.01 and t is not None else "—"
    line = (f"| {r['job']} | {cell(r['runs'][0]['documentsRead'] or None, '{:,}')} | {floor:.2f} | {cell(med['dry'])} | {cell(med['first'])} | "
            f"{cell(med['steady'])} | {over(med['dry'])} | {over(med['steady'])} | {cell(rss[0], '{:.0f}')} / {cell(rss[1], '{:.0f}')} |")
    if d is not False:
        dm = medians(d["runs"]) if d else {m: None for m in MODES}
        line += " " + ", ".join(f"{med[m] / dm[m]:.2f}×" if med[m] is not None and dm[m] else "—" for m in MODES) + " |"
    first = r["runs"][0].get("first") or r["runs"][0].get("dry")
    return line + f" {first['summary']} |"
