#!/usr/bin/env python3
"""Hearth benchmark: every job, dry and real, over `hearth seed` data directories
at 1k, 10k and 100k users, with wall time, documents/s, peak RSS and the read floor (the time
to merely read the bytes of the collections the job reads, same reader, no parsing). Each job
runs three times: `plan` (dry), `run` (the first real run over the seeded data), `run` again
(the steady state of a scheduled job).

    scripts/bench.py [--sizes 1000,10000,100000] [--bin .build/release/hearth] [--work .bench-data]
                     [--backend directory|postgres]

With --backend postgres, $HEARTH_BENCH_PG is the URL of a PostgreSQL server's maintenance
database (e.g. postgresql://USER:PASSWORD@HOST/postgres): each size gets a fresh database
`hearth_bench_<users>` (dropped and recreated), `hearth migrate`, `hearth data import` of the
data directory, and the jobs run against it. The read floor stays the directory's. Real
directory runs change the data directory, so compare the backends from freshly seeded
directories (a separate --work for each).

Prints a Markdown table and writes bench-results.json. Data directories are seeded once and
reused (delete --work to reseed); real runs change them, as production runs would.
"""
import argparse, json, os, shutil, subprocess, sys, time

def timed(cmd):
    """Runs cmd under /usr/bin/time; returns (wall seconds, peak RSS MiB, stdout)."""
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, capture_output=True, text=True)
    last = r.stderr.strip().splitlines()[-1]
    wall, rss_kb = last.split()
    if r.returncode not in (0, 2):
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}")
    return float(wall), int(rss_kb) / 1024, r.stdout

def postgres_store(a, data, size):
    """A fresh database for `size` users holding the seeded documents; returns the options
    that point hearth at it (a config file beside the data directory, the URL in the env)."""
    admin = os.environ.get("HEARTH_BENCH_PG")
    if not admin:
        sys.exit("--backend postgres needs $HEARTH_BENCH_PG, the URL of the server's maintenance database")
    name = f"hearth_bench_{size}"
    subprocess.run(["psql", admin, "-qc", f"DROP DATABASE IF EXISTS {name}"], check=True)
    subprocess.run(["psql", admin, "-qc", f"CREATE DATABASE {name}"], check=True)
    base, _, _ = admin.rpartition("/")
    os.environ["HEARTH_BENCH_STORE"] = base + "/" + name
    config = os.path.abspath(data) + ".postgres.toml"
    with open(config, "w") as f:
        f.write(f'dataDir = "{os.path.abspath(data)}"\n[store]\nkind = "postgres"\nurlEnv = "HEARTH_BENCH_STORE"\n')
    where = ["--config", config]
    subprocess.run([a.bin, "migrate"] + where, check=True, stdout=subprocess.DEVNULL)
    wall, rss, _ = timed([a.bin, "data", "import", data] + where)
    print(f"imported {size} users into {name} in {wall:.1f}s (peak RSS {rss:.0f} MiB)", file=sys.stderr)
    return where

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--bin", default=".build/release/hearth")
    ap.add_argument("--bench-bin", dest="bench_bin", default="", help="hearth-bench (default: beside --bin)")
    ap.add_argument("--work", default=".bench-data")
    ap.add_argument("--now", default="2026-11-18T12:00:00Z")
    ap.add_argument("--jobs", default="")
    ap.add_argument("--backend", default="directory", choices=["directory", "postgres"])
    a = ap.parse_args()
    if not a.bench_bin:
        a.bench_bin = os.path.join(os.path.dirname(a.bin), "hearth-bench")
    os.makedirs(a.work, exist_ok=True)
    results = []
    for size in [int(s) for s in a.sizes.split(",")]:
        data = os.path.join(a.work, f"users-{size}")
        if not os.path.isdir(os.path.join(data, "users")):
            shutil.rmtree(data, ignore_errors=True)
            t0 = time.time()
            subprocess.run([a.bin, "seed", "--out", data, "--users", str(size), "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
            print(f"seeded {size} users in {time.time() - t0:.1f}s", file=sys.stderr)
        # Flush the seed's (and the previous runs') dirty pages first: a commit's syncfs would
        # otherwise wait for them and charge their write-back to the job.
        os.sync()
        where = ["--data", data]
        if a.backend == "postgres":
            where = postgres_store(a, data, size)
        jobs = json.loads(subprocess.run([a.bin, "list", "--format", "json"] + where, capture_output=True, text=True, check=True).stdout)
        wanted = [j for j in jobs if not a.jobs or j["job"] in a.jobs.split(",")]
        for job in wanted:
            name = job["job"]
            reads = ",".join(job.get("reads", []))
            subprocess.run([a.bench_bin, "read-floor", data, "--collections", reads], capture_output=True)  # warm the page cache
            floor = json.loads(subprocess.run([a.bench_bin, "read-floor", data, "--collections", reads], capture_output=True, text=True, check=True).stdout)
            row = {"users": size, "job": name, "floorSeconds": floor["seconds"], "files": floor["files"]}
            # dry: `hearth plan`; real: the first `hearth run` over the seeded data (it writes
            # everything the seed left to do, e.g. every user's rank); next: a second run at the
            # same instant, the steady state of a job that runs on a schedule.
            for mode in ("dry", "real", "next"):
                cmd = [a.bin, "plan" if mode == "dry" else "run", name, "--now", a.now, "--format", "json", "--log-level", "error"] + where
                os.sync()
                wall, rss, out = timed(cmd)
                hist = json.loads(subprocess.run([a.bin, "history", name, "--limit", "1", "--format", "json"] + where, capture_output=True, text=True, check=True).stdout)
                docs = hist[0]["counts"]["documentsRead"] if hist else 0
                summary = json.loads(out)["summary"]["line"] if out.strip().startswith("{") else ""
                row[mode] = {"seconds": wall, "peakRSSMiB": round(rss, 1), "documentsRead": docs,
                             "documentsPerSecond": round(docs / wall) if wall > 0 else None, "summary": summary}
            for mode in ("dry", "real", "next"):
                row[mode + "OverFloor"] = round(row[mode]["seconds"] / floor["seconds"], 2) if floor["seconds"] > 0 else None
            results.append(row)
            print(f"{size:>7} {name:<22} floor {floor['seconds']:.2f}s  dry {row['dry']['seconds']:.2f}s  real {row['real']['seconds']:.2f}s  "
                  f"next {row['next']['seconds']:.2f}s  rss {row['dry']['peakRSSMiB']} / {row['real']['peakRSSMiB']} MiB", file=sys.stderr)
    with open("bench-results.json" if a.backend == "directory" else "bench-results-postgres.json", "w") as f:
        json.dump(results, f, indent=2)
    print("| users | job | docs read | floor (s) | dry (s) | real, first (s) | real, next (s) | dry / floor | real / floor | next / floor | docs/s (dry) | peak RSS dry / real (MiB) | first real run |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        d = r["dry"]
        docs = r["real"]["documentsRead"]  # dry runs leave no run record; the real run read the same
        print(f"| {r['users']:,} | {r['job']} | {docs:,} | {r['floorSeconds']:.2f} | {d['seconds']:.2f} | "
              f"{r['real']['seconds']:.2f} | {r['next']['seconds']:.2f} | {r['dryOverFloor']} | {r['realOverFloor']} | {r['nextOverFloor']} | "
              f"{round(docs / d['seconds']) if d['seconds'] > 0 else 0:,} | {d['peakRSSMiB']} / {r['real']['peakRSSMiB']} | {r['real']['summary']} |")

if __name__ == "__main__":
    main()
