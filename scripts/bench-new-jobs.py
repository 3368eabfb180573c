#!/usr/bin/env python3
"""Benchmark of gift-settle, report-triage, xp-leaderboard and friend-notify at 100k users
(issue 18), beside a leaderboard-rebuild of the same users for comparison.

    swift build -c release && python3 scripts/bench-new-jobs.py [--users 100000] [--work .bench-data]

Seeds a data directory with `hearth seed --users N --seed 7` (reused when present), then
prepares it once (marker `.bench-new-jobs-prepared`; `--prepare-only` stops there, so that
fresh copies of the prepared directory can be measured, e.g. with `cp -al`):

- every pending gift the seed wrote is removed, and 50,000 pending gifts are written
  (`transactions/bench-gift-NNNNNN`: random users, 1-50 points, created in the 6 hours before
  T, so later gifts spend points received earlier in the run);
- the seed's reports are replaced by 100,000 reports over 10,000 items (5,000 trades, 5,000
  users), random reporters and reasons, created in the 2 days before T;
- the seed's XP history is replaced by 200,000 xpTransactions (random users and sources,
  created in the 60 days before T).

Then (marker `.bench-new-jobs`: a measured directory's gifts are settled, so it is refused
the second time), for each job, measures the read floor of the collections the job declares
it reads (`hearth-bench read-floor`: the same reader, no parsing; page cache warmed by a first
pass) on one thread, as issue 17 defines the floor, and on every core (`--threads 0`), and
three runs under `/usr/bin/time -v` after a `sync`: `plan` (dry), the first real `run`, and a
second `run` at the same T. Prints a Markdown table (wall and CPU time, peak RSS, ratios to
both floors, the run's summary) and writes bench-new-jobs.json.
"""
import argparse, json, os, random, re, shutil, subprocess, sys, time

NOW = "2026-11-18T12:00:00Z"
NOW_S = 1795003200  # NOW in Unix seconds


def iso(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def timed(cmd):
    """Runs cmd under /usr/bin/time -v; returns (wall seconds, CPU seconds, peak RSS MiB, stdout)."""
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if r.returncode not in (0, 2):
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr[-3000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", r.stderr).group(1)
    parts = [float(p) for p in wall.split(":")]
    seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    cpu = sum(float(re.search(rf"{k} time \(seconds\): (\S+)", r.stderr).group(1)) for k in ("User", "System"))
    return seconds, cpu, rss_kb / 1024, r.stdout


def write(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


def prepare(data, users, gifts, reports, items, xp):
    rng = random.Random(18)
    width = max(5, len(str(users)))
    uid = lambda i: "u" + str(i).zfill(width)

    t0 = time.time()
    removed = 0
    tx = os.path.join(data, "transactions")
    for name in os.listdir(tx):
        p = os.path.join(tx, name)
        with open(p) as f:
            text = f.read()
        if '"status": "pending"' in text:
            os.unlink(p)
            removed += 1
    for i in range(gifts):
        a = rng.randint(1, users)
        b = rng.randint(1, users - 1)
        b = b + 1 if b >= a else b
        write(os.path.join(tx, f"bench-gift-{i:06d}.json"), {
            "type": "gift", "fromUserId": uid(a), "toUserId": uid(b), "amount": rng.randint(1, 50),
            "message": "Thanks!", "status": "pending", "createdAt": iso(NOW_S - rng.randint(60, 6 * 3600)),
        })
    print(f"gifts: removed the seed's {removed} pending, wrote {gifts} ({time.time() - t0:.0f}s)", file=sys.stderr)

    t0 = time.time()
    shutil.rmtree(os.path.join(data, "reports"), ignore_errors=True)
    os.makedirs(os.path.join(data, "reports"))
    half = items // 2
    targets = [("trade", f"trade-{uid(2 * k)}") for k in range(1, half + 1)] + [("user", uid(users - k)) for k in range(items - half)]
    for i in range(reports):
        kind, content = targets[rng.randrange(len(targets))]
        write(os.path.join(data, "reports", f"bench-report-{i:06d}.json"), {
            "reporterId": uid(rng.randint(1, users)), "contentId": content, "contentType": kind,
            "reason": rng.choice(["inappropriate", "spam", "harassment", "other"]), "details": "",
            "createdAt": iso(NOW_S - rng.randint(60, 2 * 86400)),
        })
    print(f"reports: wrote {reports} over {items} items ({time.time() - t0:.0f}s)", file=sys.stderr)

    t0 = time.time()
    shutil.rmtree(os.path.join(data, "xpTransactions"), ignore_errors=True)
    os.makedirs(os.path.join(data, "xpTransactions"))
    sources = [("trade_completed", 500), ("challenge_completed", 300), ("collaboration_completed", 400), ("achievement_unlocked", 100)]
    for i in range(xp):
        source, amount = rng.choice(sources)
        u = uid(rng.randint(1, users))
        write(os.path.join(data, "xpTransactions", f"bench-xp-{i:06d}.json"), {
            "userId": u, "amount": amount, "source": source, "sourceId": f"bench-{i}", "description": source,
            "createdAt": iso(NOW_S - rng.randint(60, 60 * 86400)),
        })
    print(f"xpTransactions: wrote {xp} ({time.time() - t0:.0f}s)", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=100000)
    ap.add_argument("--gifts", type=int, default=50000)
    ap.add_argument("--reports", type=int, default=100000)
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--xp", type=int, default=200000)
    ap.add_argument("--bin", default=".build/release/hearth")
    ap.add_argument("--bench-bin", dest="bench_bin", default="")
    ap.add_argument("--work", default=".bench-data")
    ap.add_argument("--jobs", default="leaderboard-rebuild,gift-settle,report-triage,xp-leaderboard,friend-notify")
    ap.add_argument("--prepare-only", dest="prepare_only", action="store_true")
    ap.add_argument("--data", default="", help="a prepared directory to measure (instead of WORK/new-jobs-USERS)")
    a = ap.parse_args()
    if not a.bench_bin:
        a.bench_bin = os.path.join(os.path.dirname(a.bin), "hearth-bench")
    data = a.data or os.path.join(a.work, f"new-jobs-{a.users}")
    marker = os.path.join(data, ".bench-new-jobs")
    prepared = os.path.join(data, ".bench-new-jobs-prepared")
    if os.path.exists(marker):
        sys.exit(f"{data} was benchmarked already (its gifts are settled): delete it to start again")
    if os.path.exists(prepared):
        pass
    elif not os.path.isdir(os.path.join(data, "users")):
        shutil.rmtree(data, ignore_errors=True)
        os.makedirs(a.work, exist_ok=True)
        t0 = time.time()
        subprocess.run([a.bin, "seed", "--out", data, "--users", str(a.users), "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
        print(f"seeded {a.users} users in {time.time() - t0:.0f}s", file=sys.stderr)
    if not os.path.exists(prepared):
        prepare(data, a.users, a.gifts, a.reports, a.items, a.xp)
        open(prepared, "w").close()
    if a.prepare_only:
        return
    open(marker, "w").close()
    print(f"load average before: {os.getloadavg()}", file=sys.stderr)

    jobs = {j["job"]: j for j in json.loads(subprocess.run([a.bin, "list", "--data", data, "--format", "json"], capture_output=True, text=True, check=True).stdout)}
    results = []
    for name in a.jobs.split(","):
        reads = ",".join(jobs[name].get("reads", []))
        subprocess.run([a.bench_bin, "read-floor", data, "--collections", reads, "--threads", "0"], capture_output=True)  # warm the page cache
        floor = json.loads(subprocess.run([a.bench_bin, "read-floor", data, "--collections", reads], capture_output=True, text=True, check=True).stdout)
        floor_all = json.loads(subprocess.run([a.bench_bin, "read-floor", data, "--collections", reads, "--threads", "0"], capture_output=True, text=True, check=True).stdout)
        row = {"job": name, "floorSeconds": floor["seconds"], "floorAllCoresSeconds": floor_all["seconds"], "files": floor["files"]}
        for mode in ("dry", "real", "next"):
            cmd = [a.bin, "plan" if mode == "dry" else "run", name, "--data", data, "--now", NOW, "--format", "json", "--log-level", "error"]
            os.sync()
            wall, cpu, rss, out = timed(cmd)
            hist = json.loads(subprocess.run([a.bin, "history", name, "--data", data, "--limit", "1", "--format", "json"], capture_output=True, text=True, check=True).stdout)
            docs = hist[0]["counts"]["documentsRead"] if hist else 0
            summary = json.loads(out)["summary"]["line"] if out.strip().startswith("{") else ""
            row[mode] = {"seconds": wall, "cpuSeconds": round(cpu, 2), "peakRSSMiB": round(rss, 1), "documentsRead": docs, "summary": summary,
                         "loadAverage": os.getloadavg()[0]}
            row[mode + "OverFloor"] = round(wall / floor["seconds"], 2) if floor["seconds"] > 0 else None
            row[mode + "OverAllCoresFloor"] = round(wall / floor_all["seconds"], 2) if floor_all["seconds"] > 0 else None
        results.append(row)
        print(f"{name:<20} floor {floor['seconds']:.2f}s / all cores {floor_all['seconds']:.2f}s ({floor['files']} files)  dry {row['dry']['seconds']:.2f}s  "
              f"real {row['real']['seconds']:.2f}s  next {row['next']['seconds']:.2f}s  rss {row['dry']['peakRSSMiB']} / {row['real']['peakRSSMiB']} MiB",
              file=sys.stderr)
    with open("bench-new-jobs.json", "w") as f:
        json.dump(results, f, indent=2)
    print(f"load average after: {os.getloadavg()}", file=sys.stderr)
    print("| job | files | floor 1 thread / all cores (s) | dry (s) | real, first (s) | real, next (s) | dry / floor | first / floor | next / floor "
          "| dry / all-core floor | CPU dry / first / next (s) | peak RSS dry / first (MiB) | first real run |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        print(f"| {r['job']} | {r['files']:,} | {r['floorSeconds']:.2f} / {r['floorAllCoresSeconds']:.2f} | {r['dry']['seconds']:.2f} | {r['real']['seconds']:.2f} | "
              f"{r['next']['seconds']:.2f} | {r['dryOverFloor']} | {r['realOverFloor']} | {r['nextOverFloor']} | {r['dryOverAllCoresFloor']} | "
              f"{r['dry']['cpuSeconds']} / {r['real']['cpuSeconds']} / {r['next']['cpuSeconds']} | "
              f"{r['dry']['peakRSSMiB']} / {r['real']['peakRSSMiB']} | {r['real']['summary']} |")


if __name__ == "__main__":
    main()
