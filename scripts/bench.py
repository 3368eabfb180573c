#!/usr/bin/env python3
"""Hearth's benchmarks, one entry point (docs/performance.md). Release binaries first:
`swift build -c release --product hearth && swift build -c release --product hearth-bench`.

    scripts/bench.py jobs    [--backend dir|postgres|both] [--users 10000,100000] [--jobs a,b] [--busy]
                             [--rounds R] [--fresh] [--modes dry,first,steady]
    scripts/bench.py JOB     [--backend ...] [--users N] [--rounds R]     (one job, e.g. streak-reset)
    scripts/bench.py import  [--users 10000,100000] [--cold]              (`hearth data import`; --cold: page cache dropped first)
    scripts/bench.py feed-cost [--users 10000] [--rounds R] [--jobs a,b]   (the change feed's trigger on PostgreSQL)
    scripts/bench.py feed-sql  [--rows N] [--rounds R] [--bin HEARTH]   (the same, in SQL: COPY and upserts, function time)
    scripts/bench.py outbox  [--backend ...] [--users N] [--busy] [--rounds R] [--rebuild]
                                                (outbox deliver after gift-settle --no-deliver)
    scripts/bench.py floors  --job JOB --variant NAME=PATH ... [--first] [--rounds R]
                                                (a job against the read/write floor, interleaved)
    scripts/bench.py ab      --variant NAME=PATH ... [--rounds R] [--setup CMD] -- HEARTH-ARGS...
    scripts/bench.py push    [--count N]        (N FCM pushes through the outbox, nghttpd as FCM)
    scripts/bench.py idle    [--variant PATH ...] [--duration S] [--server] [--sections]
    scripts/bench.py functions [--gigs N] [--reps R]  (a command job beside its compiled-in twin)
    scripts/bench.py gigs    [--gigs N]         (gig-quality-score over generated gigs)
    scripts/bench.py commit-model ROOT LIST MODE SPLIT (a big commit's file work, in C)
    scripts/bench.py trigger [--backend ...] [--users 100000] [--count 200] [--burst 10000] [--trigger-delay 20ms] [--perf FILE] [--idle-only]
                                                (write → commit latency of triggered runs, a burst, idle cost)

Data: `hearth seed --users N --seed 7` into WORK/seed-N (default WORK=.bench-data), seeded once
and never written; every measurement runs on a copy (`cp -al`: the committer replaces files by
rename, so the pristine seed is never changed) or, on PostgreSQL, on a database imported from
it. `--busy` adds issue 18's workload to the seed (50,000 pending gifts, 100,000 reports over
10,000 items, 200,000 xpTransactions; WORK/seed-N-busy).

PostgreSQL: the bench starts its own throwaway server (initdb + pg_ctl in a temporary
directory, shared_buffers = 256MB, fsync on; as root it runs as the system user `hearthtest`,
created if missing, like Tests/HearthTestSupport/PostgresServer.swift), or uses the server whose
maintenance database $HEARTH_BENCH_PG names. Each size gets a fresh database, `hearth migrate`
and a timed `hearth data import`.

Every timed command runs under /usr/bin/time after a `sync`: wall seconds, CPU seconds, peak
RSS. A job's read floor is `hearth-bench read-floor` over the collections it declares it reads
(the same reader, no parsing, one thread, page cache warmed first). The load average is
printed with every table: this machine may be shared.
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import collections

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOW = "2026-11-18T12:00:00Z"
NOW_S = 1795003200  # NOW in Unix seconds
JOB_COMMANDS = {"jobs", "feed-cost", "feed-sql", "import", "outbox", "floors", "ab", "push", "idle", "functions", "gigs", "commit-model", "trigger"}


def log(message):
    print(message, file=sys.stderr, flush=True)


def load():
    return os.getloadavg()[0]


def timed(cmd, cwd=None, env=None, ok=(0, 2)):
    """Runs cmd under /usr/bin/time; returns (wall s, CPU s, peak RSS MiB, stdout). The wall
    time is this process's clock around the run (time's own %e has 10 ms steps, too coarse for
    a run of 20 ms); CPU and RSS are time's."""
    with tempfile.NamedTemporaryFile("r") as out:
        started = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", out.name] + cmd, cwd=cwd, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - started
        fields = out.read().split()[-4:]
    if p.returncode not in ok:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-3000:]}")
    _, user, system, rss = fields
    return wall, float(user) + float(system), int(rss) / 1024, p.stdout


def median_range(values, digits=2):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def bins(a):
    a.bin = os.path.abspath(a.bin)
    if not a.bench_bin:
        a.bench_bin = os.path.join(os.path.dirname(a.bin), "hearth-bench")
    for b in (a.bin, a.bench_bin):
        if not os.access(b, os.X_OK):
            sys.exit(f"{b} not found: swift build -c release --product hearth && swift build -c release --product hearth-bench")


# MARK: data

def iso(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


def make_busy(data, users, gifts=50000, reports=100000, items=10000, xp=200000):
    """Issue 18's workload over a seeded directory: the seed's pending gifts replaced by
    `gifts` random ones (1-50 points, created in the 6 hours before T), its reports by `reports`
    over `items` items, its XP history by `xp` xpTransactions (60 days)."""
    rng = random.Random(18)
    width = max(5, len(str(users)))
    uid = lambda i: "u" + str(i).zfill(width)
    tx = os.path.join(data, "transactions")
    for name in os.listdir(tx):
        p = os.path.join(tx, name)
        with open(p) as f:
            if '"status": "pending"' in f.read():
                os.unlink(p)
    for i in range(gifts):
        a = rng.randint(1, users)
        b = rng.randint(1, users - 1)
        b = b + 1 if b >= a else b
        write_json(os.path.join(tx, f"bench-gift-{i:06d}.json"), {
            "type": "gift", "fromUserId": uid(a), "toUserId": uid(b), "amount": rng.randint(1, 50),
            "message": "Thanks!", "status": "pending", "createdAt": iso(NOW_S - rng.randint(60, 6 * 3600))})
    shutil.rmtree(os.path.join(data, "reports"), ignore_errors=True)
    os.makedirs(os.path.join(data, "reports"))
    half = items // 2
    targets = [("trade", f"trade-{uid(2 * k)}") for k in range(1, half + 1)] + [("user", uid(users - k)) for k in range(items - half)]
    for i in range(reports):
        kind, content = targets[rng.randrange(len(targets))]
        write_json(os.path.join(data, "reports", f"bench-report-{i:06d}.json"), {
            "reporterId": uid(rng.randint(1, users)), "contentId": content, "contentType": kind,
            "reason": rng.choice(["inappropriate", "spam", "harassment", "other"]), "details": "",
            "createdAt": iso(NOW_S - rng.randint(60, 2 * 86400))})
    shutil.rmtree(os.path.join(data, "xpTransactions"), ignore_errors=True)
    os.makedirs(os.path.join(data, "xpTransactions"))
    sources = [("trade_completed", 500), ("challenge_completed", 300), ("collaboration_completed", 400), ("achievement_unlocked", 100)]
    for i in range(xp):
        source, amount = rng.choice(sources)
        write_json(os.path.join(data, "xpTransactions", f"bench-xp-{i:06d}.json"), {
            "userId": uid(rng.randint(1, users)), "amount": amount, "source": source, "sourceId": f"bench-{i}",
            "description": source, "createdAt": iso(NOW_S - rng.randint(60, 60 * 86400))})


def pristine(a, users, busy=False):
    """WORK/seed-N (or seed-N-busy): seeded once, never written."""
    os.makedirs(a.work, exist_ok=True)
    path = os.path.join(a.work, f"seed-{users}" + ("-busy" if busy else ""))
    done = os.path.join(path, ".bench-ready")
    if os.path.exists(done):
        return path
    shutil.rmtree(path, ignore_errors=True)
    t0 = time.time()
    subprocess.run([a.bin, "seed", "--out", path, "--users", str(users), "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
    if busy:
        make_busy(path, users)
    open(done, "w").close()
    log(f"seeded {users:,} users{' (busy)' if busy else ''} in {time.time() - t0:.0f} s")
    return path


def fresh_copy(source, target):
    """`target` as a copy of `source`: files hard-linked, `.hearth/` copied for real."""
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run(["cp", "-al", source, target], check=True)
    if os.path.isdir(os.path.join(source, ".hearth")):
        shutil.rmtree(os.path.join(target, ".hearth"))
        subprocess.run(["cp", "-a", os.path.join(source, ".hearth"), os.path.join(target, ".hearth")], check=True)
    os.sync()


# MARK: PostgreSQL

class Postgres:
    """A throwaway server (or $HEARTH_BENCH_PG's), databases created and dropped with psql."""

    def __init__(self):
        self.dir = None
        self.admin = os.environ.get("HEARTH_BENCH_PG")
        if self.admin:
            self.base = self.admin.rpartition("/")[0]
            return
        versions = sorted(int(v) for v in os.listdir("/usr/lib/postgresql") if v.isdigit()) if os.path.isdir("/usr/lib/postgresql") else []
        bindir = os.environ.get("PG_BIN") or (f"/usr/lib/postgresql/{versions[-1]}/bin" if versions else "")
        if not os.access(os.path.join(bindir, "initdb"), os.X_OK):
            sys.exit("PostgreSQL's initdb not found (scripts/install-deps installs it), or set $HEARTH_BENCH_PG")
        self.dir = tempfile.mkdtemp(prefix="hearth-bench-pg-")
        self.launcher = []
        if os.getuid() == 0:  # PostgreSQL refuses to run as root
            subprocess.run("id hearthtest >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin hearthtest", shell=True, check=True)
            shutil.chown(self.dir, "hearthtest")
            os.chmod(self.dir, 0o755)
            self.launcher = ["/usr/sbin/runuser", "-u", "hearthtest", "--"]
        self.pg_ctl = os.path.join(bindir, "pg_ctl")
        subprocess.run(self.launcher + [os.path.join(bindir, "initdb"), "-D", self.dir + "/db", "-U", "hearth", "--auth=trust", "-E", "UTF8", "--locale=C"],
                       check=True, stdout=subprocess.DEVNULL)
        self.port = random.randint(20000, 60000)
        options = f"-p {self.port} -k {self.dir} -c listen_addresses='' -c shared_buffers=256MB -c max_connections=100"
        subprocess.run(self.launcher + [self.pg_ctl, "-D", self.dir + "/db", "-o", options, "-l", self.dir + "/server.log", "-w", "-t", "120", "start"],
                       check=True, stdout=subprocess.DEVNULL)
        self.admin = f"postgresql://hearth@/postgres?host={self.dir}&port={self.port}"
        self.base = None
        log(f"PostgreSQL started in {self.dir} (port {self.port}, shared_buffers 256MB)")

    def url(self, name):
        if self.base:
            return self.base + "/" + name
        return f"postgresql://hearth@/{name}?host={self.dir}&port={self.port}"

    def sql(self, *statements):
        cmd = ["psql", self.admin, "-qX", "-v", "ON_ERROR_STOP=1"]
        for s in statements:
            cmd += ["-c", s]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, PGOPTIONS="-c client_min_messages=warning"))

    def database(self, name, template=None):
        self.sql(f"DROP DATABASE IF EXISTS {name}", f"CREATE DATABASE {name}" + (f" TEMPLATE {template} STRATEGY FILE_COPY" if template else ""), "CHECKPOINT")
        return self.url(name)

    def stop(self):
        if self.dir:
            subprocess.run(self.launcher + [self.pg_ctl, "-D", self.dir + "/db", "-m", "fast", "stop"], stdout=subprocess.DEVNULL)
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None


class Store:
    """Where a backend's runs go: `--data DIR`, or a config naming a PostgreSQL database."""

    def __init__(self, a, backend, users, seed, pg=None, label=""):
        self.a, self.backend, self.seed, self.users = a, backend, seed, users
        self.name = f"hearth_bench_{users}{label}"
        self.dir = os.path.join(a.work, f"run-{users}{label}")
        self.pg = pg
        self.import_seconds = self.import_cpu = self.import_rss = None
        if backend == "dir":
            self.args = ["--data", self.dir]
        else:
            self.config = os.path.join(a.work, f"pg-{users}{label}.toml")
            with open(self.config, "w") as f:  # the documented configuration: no dataDir
                f.write('[store]\nkind = "postgres"\nurlEnv = "HEARTH_BENCH_STORE"\n')
            self.args = ["--config", self.config]
            self.env = dict(os.environ, HEARTH_BENCH_STORE=pg.url(self.name))
            self.loaded = self.name + "_loaded"

    def env_for(self):
        return self.env if self.backend == "postgres" else None

    def load(self):
        """Fresh data: a copy of the seed, or a database imported from it (timed, once; later
        loads copy that database)."""
        if self.backend == "dir":
            if getattr(self.a, "modes", None) == ["dry"]:  # plans write nothing: they read the seed itself
                self.args = ["--data", self.seed]
                return
            fresh_copy(self.seed, self.dir)
            return
        if self.import_seconds is None:
            env = dict(os.environ, HEARTH_BENCH_STORE=self.pg.database(self.loaded))
            subprocess.run([self.a.bin, "migrate", "--config", self.config], check=True, stdout=subprocess.DEVNULL, env=env, cwd=self.a.work)
            os.sync()
            wall, cpu, rss, _ = timed([self.a.bin, "data", "import", self.seed, "--config", self.config], env=env, ok=(0,), cwd=self.a.work)
            self.import_seconds, self.import_cpu, self.import_rss = wall, cpu, rss
            log(f"imported {self.users:,} users into PostgreSQL in {wall:.1f} s (peak RSS {rss:.0f} MiB)")
            subprocess.run(["psql", self.pg.url(self.loaded), "-qXc", "VACUUM ANALYZE documents"], check=True)
        self.pg.database(self.name, template=self.loaded)

    # From WORK, never the repository: a ./Config/hearth.toml there would configure the
    # directory's runs (zones, command jobs) and not PostgreSQL's.
    def hearth(self, *args, check=True):
        return subprocess.run([self.a.bin] + list(args) + self.args, capture_output=True, text=True, check=check, env=self.env_for(), cwd=self.a.work)

    def timed(self, *args, ok=(0, 2)):
        os.sync()
        return timed([self.a.bin] + list(args) + self.args, env=self.env_for(), ok=ok, cwd=self.a.work)


def backends(a):
    return ["dir", "postgres"] if a.backend == "both" else [a.backend]


# MARK: jobs

MODES = ("dry", "first", "steady")


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


def cmd_jobs(a, only=None):
    bins(a)
    sizes = [int(s) for s in a.users.split(",")]
    pg = Postgres() if a.backend in ("postgres", "both") else None
    results = []
    try:
        for users in sizes:
            seed = pristine(a, users, a.busy)
            jobs = job_list(a, seed)
            wanted = [only] if only else [j for j in jobs if not a.jobs or j in a.jobs.split(",")]
            for j in wanted:
                if j not in jobs:
                    sys.exit(f"unknown job {j}; jobs: {', '.join(jobs)}")
            stores = {b: Store(a, b, users, seed, pg) for b in backends(a)}
            floor_dir = seed  # read-floor only reads
            # Only a first run needs fresh data: without one (--modes dry,steady) the rounds
            # repeat on the same data, each job brought up to date once, unmeasured.
            fresh_each = "first" in a.modes and (a.rounds > 1 or a.fresh)
            for s in stores.values():
                s.load()
            for name in wanted:
                floors = []
                rows = {b: [] for b in stores}
                if "steady" in a.modes and "first" not in a.modes:
                    for s in stores.values():
                        s.timed("run", name, "--now", NOW, "--log-level", "error")
                for r in range(a.rounds):
                    if fresh_each and (r > 0 or name != wanted[0]):
                        for s in stores.values():
                            s.load()
                    floors.append(read_floor(a, floor_dir, ",".join(jobs[name].get("reads", []))))
                    order = list(stores) if r % 2 == 0 else list(reversed(list(stores)))
                    for b in order:
                        rows[b].append(run_modes(a, stores[b], name))
                for b, rs in rows.items():
                    results.append({"users": users, "backend": b, "job": name, "floor": floors, "runs": rs, "load": load(),
                                    "importSeconds": stores[b].import_seconds, "importRSS": stores[b].import_rss})
                    med = {m: statistics.median(x[m]["seconds"] for x in rs) for m in a.modes}
                    log(f"{users:>7} {b:<8} {name:<22} floor {statistics.median(floors):.2f}s  "
                        + "  ".join(f"{m} {med[m]:.3f}s" for m in a.modes)
                        + f"  rss {max(x[m]['rss'] for x in rs for m in a.modes):.0f} MiB  load {load():.1f}")
    finally:
        if pg:
            pg.stop()
    with open(os.path.join(a.work, "bench-results.json"), "w") as f:
        json.dump(results, f, indent=2)
    print_job_tables(a, results)


def print_job_tables(a, results):
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
        def medians(runs):
            return {m: (statistics.median(x[m]["seconds"] for x in runs) if m in runs[0] else None) for m in MODES}

        def cell(v, f=None):
            # Three decimals under a second: the short jobs' ratios need milliseconds.
            return (f or ("{:.3f}" if v < 1 else "{:.2f}")).format(v) if v is not None else "—"
        for r in rows:
            med = medians(r["runs"])
            floor = statistics.median(r["floor"])
            rss = [max(x[m]["rss"] for x in r["runs"]) if m in r["runs"][0] else None for m in ("dry", "first")]
            over = lambda t: f"{t / floor:.2f}" if floor >= 0.01 and t is not None else "—"
            line = (f"| {r['job']} | {cell(r['runs'][0]['documentsRead'] or None, '{:,}')} | {floor:.2f} | {cell(med['dry'])} | {cell(med['first'])} | "
                    f"{cell(med['steady'])} | {over(med['dry'])} | {over(med['steady'])} | {cell(rss[0], '{:.0f}')} / {cell(rss[1], '{:.0f}')} |")
            if ratio:
                d = dirs.get((users, r["job"]))
                dm = medians(d["runs"]) if d else {m: None for m in MODES}
                line += " " + ", ".join(f"{med[m] / dm[m]:.2f}×" if med[m] is not None and dm[m] else "—" for m in MODES) + " |"
            first = r["runs"][0].get("first") or r["runs"][0].get("dry")
            print(line + f" {first['summary']} |")


# MARK: import

def cmd_import(a):
    bins(a)
    pg = Postgres()
    try:
        print("| users | documents | `data import` (s) | its CPU, user + system (s) | peak RSS (MiB) |")
        print("|---:|---:|---:|---:|---:|")
        for users in [int(s) for s in a.users.split(",")]:
            seed = pristine(a, users, a.busy)
            docs = int(subprocess.run(f"find {seed} -name '*.json' -not -path '*/.hearth/*' | wc -l", shell=True, capture_output=True, text=True).stdout)
            s = Store(a, "postgres", users, seed, pg)
            if a.cold:  # the seed's files out of the page cache, as after a reboot
                subprocess.run(["sync"], check=True)
                with open("/proc/sys/vm/drop_caches", "w") as f:
                    f.write("3\n")
            s.load()
            print(f"| {users:,} | {docs:,} | {s.import_seconds:.1f} | {s.import_cpu:.1f} | {s.import_rss:.0f} |")
        print(f"\nload average {load():.1f}")
    finally:
        pg.stop()


# MARK: feed-cost

def cmd_feed_cost(a):
    """What the change feed's triggers (migration 4, docs/triggers.md) add on PostgreSQL: per
    round, with the triggers on and off (`ALTER TABLE documents DISABLE TRIGGER USER`; the
    order alternates), a fresh database, `hearth migrate`, a timed `hearth data import` of the
    seed, then each job's first real run on that database (a big commit). Medians (range)."""
    bins(a)
    users = int(a.users.split(",")[0])
    seed = pristine(a, users, a.busy)
    jobs = [j for j in a.jobs.split(",") if j]
    pg = Postgres()
    figures = collections.defaultdict(list)
    try:
        config = os.path.join(a.work, f"pg-feed-{users}.toml")
        with open(config, "w") as f:
            f.write('[store]\nkind = "postgres"\nurlEnv = "HEARTH_BENCH_STORE"\n')
        for r in range(a.rounds):
            for state in (("on", "off") if r % 2 == 0 else ("off", "on")):
                for step in ["import"] + jobs:
                    # A fresh import before each job: every job's run is its first.
                    name = f"hearth_feed_{users}_{state}"
                    env = dict(os.environ, HEARTH_BENCH_STORE=pg.database(name))
                    subprocess.run([a.bin, "migrate", "--config", config], check=True, stdout=subprocess.DEVNULL, env=env, cwd=a.work)
                    if state == "off":
                        subprocess.run(["psql", pg.url(name), "-qXc", "ALTER TABLE documents DISABLE TRIGGER USER"], check=True)
                    os.sync()
                    w, c, m, _ = timed([a.bin, "data", "import", seed, "--config", config], env=env, ok=(0,), cwd=a.work)
                    if step == "import":
                        figures[(step, state)].append((w, c, m))
                        log(f"round {r + 1}, triggers {state}: data import {w:.2f} s")
                        continue
                    subprocess.run(["psql", pg.url(name), "-qXc", "VACUUM ANALYZE documents"], check=True)
                    os.sync()
                    w, c, m, out = timed([a.bin, "run", step, "--no-deliver", "--now", NOW, "--log-level", "error", "--config", config], env=env, cwd=a.work)
                    figures[(step, state)].append((w, c, m))
                    log(f"round {r + 1}, triggers {state}: run {step} {w:.2f} s: {out.strip().splitlines()[-1] if out.strip() else ''}")
    finally:
        pg.stop()
    print(f"`scripts/bench.py feed-cost --users {users} --rounds {a.rounds}{' --jobs ' + a.jobs if jobs else ''}`; load average {load():.1f}\n")
    print("| step | triggers | wall (s) | hearth's CPU (s) | hearth's peak RSS (MiB) |")
    print("|---|---|---:|---:|---:|")
    for step in ["import"] + jobs:
        for state in ("off", "on"):
            rows = figures[(step, state)]
            label = "`data import`" if step == "import" else f"`run {step}` (first)"
            print(f"| {label} | {state} | {median_range([x[0] for x in rows])} | {median_range([x[1] for x in rows])} | {median_range([x[2] for x in rows], 0)} |")


def cmd_feed_sql(a):
    """The change feed's triggers in SQL alone, no hearth process timed: per round, triggers on
    and off (alternating), a fresh database (`hearth migrate`), one `COPY` of N `users` rows of
    ~300 bytes (as `hearth data import` sends), then one transaction of N/500 `INSERT … ON
    CONFLICT DO UPDATE` of 500 rows rewriting them all (as a commit sends). Wall time of each
    through psql, and with the triggers on, the trigger function's own time from
    pg_stat_user_functions (track_functions = pl)."""
    a.bin = os.path.abspath(a.bin)
    pg = Postgres()
    rng = random.Random(7)
    rows = os.path.join(tempfile.mkdtemp(prefix="hearth-feed-sql-"), "rows.tsv")
    with open(rows, "w") as f:
        for i in range(a.rows):
            doc = '{"name": "user %d", "xp": %d, "level": %d, "friends": ["u%d", "u%d"], "createdAt": "2026-01-01T00:00:00Z", "bio": "%s"}' % (
                i, rng.randint(0, 99999), rng.randint(1, 50), rng.randint(0, 99999), rng.randint(0, 99999), "x" * 150)
            f.write(f"users\tu{i:07d}\t{doc}\t{i}\n")
    upserts = os.path.join(os.path.dirname(rows), "upserts.sql")
    with open(upserts, "w") as f:
        f.write("BEGIN;\n")
        for c in range(0, a.rows, 500):
            f.write("INSERT INTO documents (collection, id, raw, version) SELECT collection, id, raw || ' ', nextval('document_versions') "
                    f"FROM documents WHERE collection = 'users' AND id >= 'u{c:07d}' ORDER BY id LIMIT 500 "
                    "ON CONFLICT (collection, id) DO UPDATE SET raw = excluded.raw, version = excluded.version;\n")
        f.write("COMMIT;\n")
    config = os.path.join(os.path.dirname(rows), "pg.toml")
    with open(config, "w") as f:
        f.write('[store]\nkind = "postgres"\nurlEnv = "HEARTH_BENCH_STORE"\n')
    figures = collections.defaultdict(list)

    def psql(url, *args, options=""):
        start = time.monotonic()
        out = subprocess.run(["psql", url, "-qAtX", "-v", "ON_ERROR_STOP=1"] + list(args), check=True, capture_output=True, text=True,
                             env=dict(os.environ, PGOPTIONS=options)).stdout
        return time.monotonic() - start, out

    def function_ms(url):
        time.sleep(1.5)  # statistics reach the view within a second of the session's end
        return float(psql(url, "-c", "SELECT coalesce(sum(total_time), 0) FROM pg_stat_user_functions WHERE funcname = 'hearth_notify_documents'")[1] or 0)

    try:
        for r in range(a.rounds):
            for state in (("on", "off") if r % 2 == 0 else ("off", "on")):
                url = pg.database(f"hearth_feed_sql_{state}")
                subprocess.run([a.bin, "migrate", "--config", config], check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, HEARTH_BENCH_STORE=url))
                if state == "off":
                    psql(url, "-c", "ALTER TABLE documents DISABLE TRIGGER USER")
                w, _ = psql(url, "-c", f"\\copy documents (collection, id, raw, version) FROM '{rows}'", options="-c track_functions=pl")
                figures[("copy", state)].append(w)
                copy_ms = function_ms(url) if state == "on" else 0
                psql(url, "-c", "VACUUM ANALYZE documents")
                w, _ = psql(url, "-f", upserts, options="-c track_functions=pl")
                figures[("upsert", state)].append(w)
                if state == "on":
                    total = function_ms(url)
                    figures[("copy", "fn")].append(copy_ms / 1000)
                    figures[("upsert", "fn")].append((total - copy_ms) / 1000)
                log(f"round {r + 1}, triggers {state}: copy {figures[('copy', state)][-1]:.2f} s, upserts {figures[('upsert', state)][-1]:.2f} s")
    finally:
        pg.stop()
        shutil.rmtree(os.path.dirname(rows), ignore_errors=True)
    print(f"`scripts/bench.py feed-sql --rows {a.rows} --rounds {a.rounds}`; load average {load():.1f}\n")
    print("| step | wall, triggers off (s) | wall, triggers on (s) | the trigger function's time (s) |")
    print("|---|---:|---:|---:|")
    for step, label in (("copy", f"one `COPY` of {a.rows:,} rows"), ("upsert", f"{a.rows // 500:,} upserts of 500 rows, one transaction")):
        print(f"| {label} | {median_range(figures[(step, 'off')])} | {median_range(figures[(step, 'on')])} | {median_range(figures[(step, 'fn')], 3)} |")


# MARK: outbox

def cmd_outbox(a):
    """Per round and backend, on fresh data: `run gift-settle --no-deliver` (the settlement),
    then `outbox deliver` (no provider configured: pushes are dropped as the deliverer drops
    them); with --rebuild also `run leaderboard-rebuild` on fresh data, to compare the
    settlement with one rebuild of the same users (issue 18)."""
    bins(a)
    users = int(a.users.split(",")[0])
    seed = pristine(a, users, a.busy)
    pg = Postgres() if a.backend in ("postgres", "both") else None
    figures = collections.defaultdict(list)
    try:
        stores = {b: Store(a, b, users, seed, pg) for b in backends(a)}
        for r in range(a.rounds):
            for b in (list(stores) if r % 2 == 0 else list(reversed(list(stores)))):
                s = stores[b]
                s.load()
                s.hearth("plan", "leaderboard-rebuild", "--now", NOW, "--log-level", "error")  # the same pages cached for all three
                w, c, m, out = s.timed("run", "gift-settle", "--no-deliver", "--now", NOW, "--log-level", "error")
                figures[(b, "settle")].append((w, c, m))
                w, c, m, out = s.timed("outbox", "deliver", "--log-level", "error", ok=(0,))
                figures[(b, "deliver")].append((w, c, m))
                log(f"round {r + 1} {b}: outbox deliver {w:.2f} s: {out.strip().splitlines()[-1] if out.strip() else ''}")
                if a.rebuild:
                    s.load()
                    w, c, m, _ = s.timed("run", "leaderboard-rebuild", "--now", NOW, "--log-level", "error")
                    figures[(b, "rebuild")].append((w, c, m))
    finally:
        if pg:
            pg.stop()
    print(f"`scripts/bench.py outbox --backend {a.backend} --users {users}{' --busy' if a.busy else ''} --rounds {a.rounds}{' --rebuild' if a.rebuild else ''}`; load average {load():.1f}\n")
    print("| backend | step | wall (s) | CPU (s) | peak RSS (MiB) |")
    print("|---|---|---:|---:|---:|")
    for (b, step), xs in figures.items():
        print(f"| {b} | {step} | {median_range([x[0] for x in xs])} | {median_range([x[1] for x in xs])} | {median_range([x[2] for x in xs], 0)} |")


# MARK: floors and A/B

def cmd_floors(a):
    """A job's real run against the read floor (steady) or read + write floor (`--first`),
    several binaries interleaved per round, on the data directory only."""
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
            fresh_copy(seed, data)
            write = json.loads(subprocess.run([a.bench_bin, "write-floor", data, "--collections", writes], capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])["seconds"]
            rows["write floor"].append(write)
            fresh_copy(seed, data)
        f1 = read_floor(a, data, reads)
        rows["read floor"].append(f1)
        for name, path in (named if r % 2 == 0 else list(reversed(named))):
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


def cmd_ab(a):
    """The same hearth command with several binaries, interleaved."""
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    named = [b.split("=", 1) for b in a.variant]
    results = collections.defaultdict(list)
    for r in range(a.rounds):
        for name, path in (named if r % 2 == 0 else list(reversed(named))):
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


# MARK: push

def cmd_push(a):
    """N pushes through the whole FCM path: Debian's nghttpd (HTTP/2 + TLS on 127.0.0.1) serves
    the OAuth token and a static `messages:send` answer. Times the provider alone
    (`hearth-bench bench-push`), `plan` and `run notification-fanout` (queueing N pushes), and
    `outbox deliver`."""
    bins(a)
    if not shutil.which("nghttpd"):
        sys.exit("needs nghttpd (scripts/install-deps installs nghttp2-server)")
    n = a.count
    work = tempfile.mkdtemp(prefix="hearth-bench-push-")
    server = None
    try:
        subprocess.run(["python3", ROOT + "/Tests/Servers/make_test_ca.py", work + "/ca", "localhost", "127.0.0.1"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["python3", ROOT + "/Tests/Servers/make_push_credentials.py", work + "/creds"], check=True, stdout=subprocess.DEVNULL)
        os.makedirs(work + "/www/v1/projects/hearth-test")
        with open(work + "/www/token", "w") as f:
            f.write('{"access_token": "ya29.bench-access-token", "expires_in": 3599, "token_type": "Bearer"}')
        with open(work + "/www/v1/projects/hearth-test/messages:send", "w") as f:
            f.write('{"name": "projects/hearth-test/messages/0:1"}')
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        server = subprocess.Popen(["nghttpd", "-a", "127.0.0.1", "-d", work + "/www", str(port), work + "/ca/server.key", work + "/ca/server.pem"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if subprocess.run(["curl", "-s", "-o", "/dev/null", "--cacert", work + "/ca/ca.pem", f"https://localhost:{port}/token"]).returncode == 0:
                break
            time.sleep(0.1)
        data = work + "/data"
        for c in ("users", "notifications"):
            os.makedirs(os.path.join(data, c))
        for i in range(n):
            uid = "u%06d" % i
            write_json(os.path.join(data, "users", uid + ".json"),
                       {"name": "User %d" % i, "school": "MIT", "fcmTokens": ["bench-fcm-token-%06d-%s" % (i, "x" * 120)]})
            write_json(os.path.join(data, "notifications", "n%06d.json" % i),
                       {"userId": uid, "type": "gift_received", "title": "Gift received", "message": "Someone sent you %d points" % (i % 100 + 1),
                        "read": False, "createdAt": "2026-11-20T11:59:00.000Z", "actionUrl": "/gifts/t%d" % i})
        with open(work + "/hearth.toml", "w") as f:
            f.write(f'dataDir = "data"\n[http]\ncaFile = "{work}/ca/ca.pem"\n[outbox]\nconcurrency = 100\n[push]\nprovider = "fcm"\n'
                    f'[push.fcm]\nserviceAccountEnv = "BENCH_FCM_SA"\nendpoint = "https://localhost:{port}"\ntokenUri = "https://localhost:{port}/token"\n')
        env = {k: v for k, v in os.environ.items() if k != "BENCH_FCM_SA"}
        cfg = ["--config", work + "/hearth.toml"]
        now = "2026-11-20T12:00:00Z"
        print(f"push benchmark: {n:,} pushes, {os.cpu_count()} cores, nghttpd on 127.0.0.1:{port}; load average {load():.1f}")
        print("| step | wall (s) | pushes/s | CPU (s) | peak RSS (MiB) |")
        print("|---|---:|---:|---:|---:|")

        def row(label, cmd, env):
            wall, cpu, rss, out = timed(cmd, cwd=work, env=env, ok=(0,))
            print(f"| {label} | {wall:.2f} | {n / wall:,.0f} | {cpu:.2f} | {rss:.1f} |")
            return out
        row("FCM provider alone (no outbox)", [a.bench_bin, "bench-push", "--service-account", work + "/creds/service-account.json", "--endpoint",
                                               f"https://localhost:{port}", "--token-uri", f"https://localhost:{port}/token", "--ca-file", work + "/ca/ca.pem",
                                               "--count", str(n), "--concurrency", "100"], None)
        row("plan notification-fanout", [a.bin, "plan", "notification-fanout", "--now", now, "--limit", "3"] + cfg, env)
        row("run notification-fanout (queue)", [a.bin, "run", "notification-fanout", "--now", now, "--limit", "3"] + cfg, env)

        def pending():
            out = subprocess.run([a.bin, "outbox", "list", "--format", "json"] + cfg, cwd=work, capture_output=True, text=True, check=True).stdout
            return sum(1 for m in json.loads(out) if m["state"] == "pending")
        if pending() != n:
            sys.exit(f"expected {n} pending messages")
        row("outbox deliver (FCM)", [a.bin, "outbox", "deliver"] + cfg, dict(env, BENCH_FCM_SA=work + "/creds/service-account.json"))
        if pending() != 0:
            sys.exit("messages still pending after outbox deliver")
    finally:
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(work, ignore_errors=True)


# MARK: idle

def resident_sections(pid, exe):
    """Resident KB of each ELF section of `exe` in process `pid` (bit 63 of /proc/PID/pagemap)."""
    out = subprocess.run(["readelf", "-SW", exe], capture_output=True, text=True, check=True).stdout
    secs = []
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m and int(m.group(2), 16):
            off, size = int(m.group(3), 16), int(m.group(4), 16)
            secs.append((off, off + size, m.group(1)))
    page = os.sysconf("SC_PAGE_SIZE")
    resident, total = collections.Counter(), collections.Counter()
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for line in open(f"/proc/{pid}/maps"):
            fields = line.split()
            if len(fields) < 6 or os.path.realpath(fields[5]) != exe:
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            offset, perms = int(fields[2], 16), fields[1]
            pages = (end - start) // page
            pagemap.seek(start // page * 8)
            entries = pagemap.read(pages * 8)
            for i in range(pages):
                at = offset + i * page
                key = next((n for s, e, n in secs if s <= at < e), "(between sections)") + " " + perms
                total[key] += 1
                if struct.unpack_from("<Q", entries, i * 8)[0] >> 63:
                    resident[key] += 1
    kb = page // 1024
    for key, n in resident.most_common():
        print(f"    {n * kb:9,d} KB resident of {total[key] * kb:9,d} KB  {key}")


def proc_status(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def cmd_idle(a):
    """Idle `hearth daemon`s (each binary given, started together on copies of one 100-user
    seed, every job on a slot about a year away): CPU time and context switches over
    --duration seconds, VmRSS (anonymous + file), PSS; then SIGTERM, which must exit 0."""
    paths = [os.path.abspath(p) for p in (a.variant or [".build/release/hearth"])]
    work = tempfile.mkdtemp(prefix="hearth-bench-idle-")
    procs = []
    try:
        seed = work + "/seed"
        subprocess.run([paths[0], "seed", "--out", seed + "/data", "--users", "100"], check=True, stdout=subprocess.DEVNULL)
        day = time.gmtime(time.time() - 2 * 86400)
        jobs = json.loads(subprocess.run([paths[0], "list", "--data", "data", "--format", "json"], cwd=seed, capture_output=True, text=True, check=True).stdout)
        with open(seed + "/hearth.toml", "w") as f:
            f.write('dataDir = "data"\n')
            for j in jobs:
                f.write(f'[jobs.{j["job"]}]\nschedule = "0 12 {day.tm_mday} {day.tm_mon} *"\n')
            if a.server:
                f.write('[server]\nlisten = "127.0.0.1:0"\n')
        for i, path in enumerate(paths):
            shutil.copytree(seed, f"{work}/{i}")
            err = open(f"{work}/{i}/daemon.log", "w")
            procs.append(subprocess.Popen([path, "daemon", "--config", "hearth.toml"], cwd=f"{work}/{i}", stdout=subprocess.DEVNULL, stderr=err))
        time.sleep(2)  # start-up
        ticks = os.sysconf("SC_CLK_TCK")

        def cpu(pid):
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])

        def switches(pid):
            n = 0
            for t in os.listdir(f"/proc/{pid}/task"):
                try:
                    for line in open(f"/proc/{pid}/task/{t}/status"):
                        if "ctxt_switches" in line:
                            n += int(line.split()[1])
                except FileNotFoundError:
                    pass
            return n
        before = [(cpu(p.pid), switches(p.pid)) for p in procs]
        time.sleep(a.duration)
        print(f"idle daemons: {len(jobs)} jobs on a slot about a year away, over {a.duration} s; load average {load():.1f}")
        print("| binary | CPU (s) | context switches | VmRSS (MiB) | anonymous / files (MiB) | PSS (MiB) | threads | SIGTERM |")
        print("|---|---:|---:|---:|---|---:|---:|---|")
        rows = []
        for (c0, s0), p, path in zip(before, procs, paths):
            pss = 0
            for line in open(f"/proc/{p.pid}/smaps_rollup"):
                if line.startswith("Pss:"):
                    pss = int(line.split()[1])
            rows.append([path, (cpu(p.pid) - c0) / ticks, switches(p.pid) - s0, proc_status(p.pid, "VmRSS") / 1024,
                         f"{proc_status(p.pid, 'RssAnon') / 1024:.1f} / {proc_status(p.pid, 'RssFile') / 1024:.1f}", pss / 1024,
                         len(os.listdir(f"/proc/{p.pid}/task"))])
            if a.sections:
                print(f"  resident sections of {path}:", file=sys.stderr)
                resident_sections(p.pid, os.path.realpath(path))
        for p, r in zip(procs, rows):
            p.send_signal(signal.SIGTERM)
            code = p.wait(timeout=30)
            print(f"| {r[0]} | {r[1]:.2f} | {r[2]} | {r[3]:.1f} | {r[4]} | {r[5]:.1f} | {r[6]} | exit {code} |")
        procs = []
    finally:
        for p in procs:
            p.kill()
        shutil.rmtree(work, ignore_errors=True)


# MARK: functions

def cmd_functions(a):
    """A command job (functions/expire_gigs.py) beside its compiled-in Swift twin
    (`hearth-bench run-twin`): GIGS gigs (one in ten past its deadline) and 1,000 users."""
    bins(a)
    work = tempfile.mkdtemp(prefix="hearth-bench-fn-")
    try:
        data = work + "/pristine"
        os.makedirs(data + "/gigs")
        os.makedirs(data + "/users")
        for u in range(1000):
            write_json(f"{data}/users/u{u:05d}.json", {"name": f"User {u}", "fcmTokens": [f"tok-{u:05d}"]})
        for g in range(a.gigs):
            write_json(f"{data}/gigs/g{g:06d}.json", {
                "title": f"Gig {g}", "description": "Help wanted for a few hours a week around classes.", "status": "active",
                "postedBy": f"u{g % 3000:05d}", "postedAt": "2026-11-10T09:00:00.000Z",
                "expiresAt": "2026-11-17T00:00:00.000Z" if g % 10 == 0 else "2026-12-17T00:00:00.000Z"})
        with open(work + "/hearth.toml", "w") as f:
            f.write(f'dataDir = "data"\n[notifications]\ntypes = ["gig_expired"]\n[jobs.expire-gigs]\ncommand = ["python3", "{ROOT}/functions/expire_gigs.py"]\n'
                    'reads = ["gigs", "users"]\nwrites = ["gigs", "notifications"]\nschedule = "0 * * * *"\ntimeout = "1h"\n')
        variants = {
            "command job (Python)": lambda dry: [a.bin, "plan" if dry else "run", "expire-gigs", "--config", "hearth.toml", "--now", NOW, "--limit", "0"],
            "compiled-in twin (Swift)": lambda dry: [a.bench_bin, "run-twin", "--config", "hearth.toml", "--now", NOW] + (["--dry-run"] if dry else []),
        }
        results = collections.defaultdict(list)
        for _ in range(a.reps):
            for name, cmd in variants.items():
                for dry in (True, False):
                    shutil.rmtree(work + "/data", ignore_errors=True)
                    subprocess.run(["cp", "-a", data, work + "/data"], check=True)
                    os.sync()
                    wall, _, rss, _ = timed(cmd(dry), cwd=work, ok=(0,))
                    results[(name, dry)].append((wall, rss))
        print(f"{a.gigs:,} gigs + 1,000 users read, {a.gigs // 10:,} gigs expired (updated), {a.reps} runs each; load average {load():.1f}")
        print("| job | plan (s) | run (s) | peak RSS, run (MiB) |")
        print("|---|---|---|---:|")
        for name in variants:
            print(f"| {name} | {median_range([r[0] for r in results[(name, True)]])} | {median_range([r[0] for r in results[(name, False)]])} | "
                  f"{max(r[1] for r in results[(name, False)]):.0f} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


# MARK: gigs

def write_gigs(data, n):
    """`n` gigs from a small deterministic generator: every component level and penalty of the
    built-in rubric occurs, ~4% repeat an earlier gig's title and company, ~5% are closed or
    deleted."""
    from datetime import datetime, timedelta, timezone
    os.makedirs(os.path.join(data, "gigs"), exist_ok=True)
    rng = random.Random(1)
    t = datetime(2026, 11, 18, 12, tzinfo=timezone.utc)
    words = ("join our friendly team and help students every day while learning useful skills "
             "in a flexible environment that fits your class schedule").split()
    titles = ["Barista, morning shift", "Research assistant", "URGENT HIRING NOW: BARISTA", "Tutor", "Cook",
              "Front desk assistant at the rec center", "Delivery driver", "Lab technician (chemistry)",
              "Weekend event staff", "Dog walker needed for two friendly labradors near campus"]
    companies = ["Badger Brew", "UW Psychology", "", "QuickShip", "Rec Sports", "Camp Lakeside", "Fetch Media"]
    stamp = lambda d: d.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    for i in range(1, n + 1):
        if i > 10 and rng.random() < 0.04:
            k = rng.randint(1, i - 1)
            title, company = titles[k % len(titles)] + " #%d" % k, companies[k % len(companies)]
        else:
            title, company = titles[i % len(titles)] + " #%d" % i, companies[i % len(companies)]
        desc = " ".join(words[j % len(words)] for j in range(rng.choice([5, 14, 15, 39, 40, 79, 80, 120, 300])))
        r = rng.random()
        if r < 0.03:
            desc += " Call (608) 555-0199 or write jobs@example.com"
        elif r < 0.06:
            desc += " Earn $$ fast!!!"
        g = {"title": title, "description": desc, "company": company,
             "location": rng.choice(["Madison, WI", "Madison, WI", ""]), "isRemote": rng.random() < 0.2}
        p = i % 3
        if p == 0:
            g["payMin"], g["payMax"] = rng.randint(12, 18), rng.randint(18, 25)
        elif p == 1:
            g["compensation"] = rng.choice(["$15/hour", "Competitive", "DOE"])
        g["postedAt"] = stamp(t - timedelta(days=rng.randint(0, 45), seconds=rng.randint(0, 86399)))
        if rng.random() < 0.1:
            g["expiresAt"] = stamp(t + timedelta(days=rng.randint(-10, 10)))
        g["source"] = rng.choice(["internal", "indeed", "handshake"])
        if g["source"] != "internal":
            g["externalUrl"] = rng.choice(["https://jobs.example.com/%d" % i, "http://jobs.example.com/%d" % i, "https://localhost/%d" % i])
        g["status"] = "closed" if rng.random() < 0.03 else "deleted" if rng.random() < 0.02 else "active"
        g["postedBy"] = "employer-%d" % (i % 50)
        with open(os.path.join(data, "gigs", "gig-%05d.json" % i), "w") as f:
            json.dump(g, f, indent=2, ensure_ascii=False)
            f.write("\n")


def cmd_gigs(a):
    """gig-quality-score over GIGS generated gigs: a dry run, the real run, a second run."""
    bins(a)
    work = tempfile.mkdtemp(prefix="hearth-bench-gigs-")
    try:
        data = work + "/data"
        write_gigs(data, a.gigs)
        print(f"gig-quality-score over {a.gigs:,} gigs, T={NOW}, {os.cpu_count()} cores; load average {load():.1f}")
        print("| run | wall (s) | gigs/s | peak RSS (MiB) | summary |")
        print("|---|---:|---:|---:|---|")
        for label, verb in (("dry run (plan)", "plan"), ("real run", "run"), ("second run", "run")):
            os.sync()
            wall, _, rss, out = timed([a.bin, verb, "gig-quality-score", "--data", data, "--now", NOW, "--limit", "0"], ok=(0,))
            summary = next((l for l in reversed(out.splitlines()) if re.match(r"^(Plan|Applied):|^No changes\.", l)), "")
            print(f"| {label} | {wall:.2f} | {a.gigs / wall:,.0f} | {rss:.1f} | {summary} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


# MARK: commit model

COMMIT_MODEL_C = r"""
/* The file work of a big staged commit, alone: no Hearth code, no JSON. LIST: one line per
 * file, "u DIR/NAME" (replace) or "c DIR/NAME" (create), relative to ROOT; two threads, lines
 * [0, SPLIT) on one, the rest on the other. MODE 0: every file through a temp file beside it
 * (lstat, open O_CREAT|O_EXCL, fstat, write 420 bytes, close), syncfs, every temp renamed over
 * its target, syncfs: what Hearth's committer does. MODE 2: the same for replaced files; a
 * created file is written after the first syncfs as an O_TMPFILE linked in with linkat. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct { char kind; char *path; } item;
static item *items;
static int count, mode;
static const char *root;
static char bytes[420];

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void die(const char *what, const char *path) { fprintf(stderr, "%s %s: %s\n", what, path, strerror(errno)); exit(1); }

typedef struct { int lo, hi, phase; } range;

static void *work(void *arg) {
    range *r = arg;
    char full[4096], temp[8300], dir[4096];
    for (int i = r->lo; i < r->hi; i++) {
        item *it = &items[i];
        const char *slash = strrchr(it->path, '/');
        snprintf(full, sizeof full, "%s/%s", root, it->path);
        snprintf(dir, sizeof dir, "%s/%.*s", root, (int)(slash - it->path), it->path);
        snprintf(temp, sizeof temp, "%s/.%s.hearth-tmp", dir, slash + 1);
        int created_late = mode == 2 && it->kind == 'c';
        if (r->phase == 0) {
            if (created_late) continue;
            struct stat st;
            lstat(full, &st);
            int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
            if (fd < 0) die("create", temp);
            fstat(fd, &st);
            if (write(fd, bytes, sizeof bytes) != sizeof bytes) die("write", temp);
            close(fd);
        } else if (created_late) {
            int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0640);
            if (fd < 0) die("O_TMPFILE in", dir);
            if (write(fd, bytes, sizeof bytes) != sizeof bytes) die("write", full);
            char proc[64];
            snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
            if (linkat(AT_FDCWD, proc, AT_FDCWD, full, AT_SYMLINK_FOLLOW) != 0) die("linkat", full);
            close(fd);
        } else if (rename(temp, full) != 0) {
            die("rename", temp);
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: commit-model ROOT LIST MODE SPLIT\n"); return 64; }
    root = argv[1];
    mode = atoi(argv[3]);
    int split = atoi(argv[4]);
    memset(bytes, 'x', sizeof bytes);
    FILE *list = fopen(argv[2], "r");
    if (!list) die("open", argv[2]);
    char line[4096];
    int capacity = 1024;
    items = malloc(capacity * sizeof *items);
    while (fgets(line, sizeof line, list)) {
        line[strcspn(line, "\n")] = 0;
        if (strlen(line) < 3) continue;
        if (count == capacity) items = realloc(items, (capacity *= 2) * sizeof *items);
        items[count].kind = line[0];
        items[count].path = strdup(line + 2);
        count++;
    }
    double t0 = now();
    for (int phase = 0; phase < 2; phase++) {
        pthread_t a, b;
        range ra = {0, split, phase}, rb = {split, count, phase};
        pthread_create(&a, NULL, work, &ra);
        pthread_create(&b, NULL, work, &rb);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        double t1 = now();
        int fd = open(root, O_RDONLY | O_DIRECTORY);
        if (fd < 0 || syncfs(fd) != 0) die("syncfs", root);
        close(fd);
        double t2 = now();
        printf("%s: %.2f s, syncfs %.2f s\n", phase == 0 ? "temp files" : "renames and links", t1 - t0, t2 - t1);
        t0 = t2;
    }
    return 0;
}
"""


def cmd_commit_model(a):
    """Compiles the C model above and runs it (it rewrites the files under ROOT: use a copy)."""
    work = tempfile.mkdtemp(prefix="hearth-commit-model-")
    try:
        with open(work + "/commit-model.c", "w") as f:
            f.write(COMMIT_MODEL_C)
        subprocess.run(["cc", "-O2", "-o", work + "/commit-model", work + "/commit-model.c", "-lpthread"], check=True)
        subprocess.run([work + "/commit-model", a.root, a.list, str(a.mode), str(a.split)], check=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# MARK: command line

# MARK: trigger

class Inotify:
    """The few inotify calls the trigger bench needs, through ctypes (no pip package)."""
    MOVED_TO, CLOSE_WRITE = 0x80, 0x08

    def __init__(self, folder):
        import ctypes
        self.libc = ctypes.CDLL("libc.so.6", use_errno=True)
        self.fd = self.libc.inotify_init1(0)
        if self.libc.inotify_add_watch(self.fd, folder.encode(), self.MOVED_TO | self.CLOSE_WRITE) < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch " + folder)
        self.buffered = []

    def names(self, timeout):
        """Names of files renamed into the folder or closed after writing, waiting up to `timeout` s."""
        import select
        if not self.buffered:
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                return []
            data = os.read(self.fd, 1 << 20)
            i = 0
            while i < len(data):
                _, _, _, length = struct.unpack_from("iIII", data, i)
                self.buffered.append(data[i + 16:i + 16 + length].split(b"\0", 1)[0].decode())
                i += 16 + length
        out, self.buffered = self.buffered, []
        return out

    def close(self):
        os.close(self.fd)


class LibPQ:
    """An app's connection to PostgreSQL through libpq (ctypes): statements and LISTEN."""

    def __init__(self, url):
        import ctypes
        import ctypes.util
        pq = ctypes.CDLL(ctypes.util.find_library("pq") or "libpq.so.5")
        pq.PQconnectdb.restype = ctypes.c_void_p
        pq.PQexec.restype = ctypes.c_void_p
        pq.PQexec.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        pq.PQgetvalue.restype = ctypes.c_char_p
        pq.PQgetvalue.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        pq.PQntuples.argtypes = [ctypes.c_void_p]
        pq.PQresultStatus.argtypes = [ctypes.c_void_p]
        pq.PQresultErrorMessage.restype = ctypes.c_char_p
        pq.PQresultErrorMessage.argtypes = [ctypes.c_void_p]
        pq.PQclear.argtypes = [ctypes.c_void_p]
        pq.PQnotifies.restype = ctypes.c_void_p
        pq.PQnotifies.argtypes = [ctypes.c_void_p]
        pq.PQconsumeInput.argtypes = [ctypes.c_void_p]
        pq.PQsocket.argtypes = [ctypes.c_void_p]
        pq.PQfreemem.argtypes = [ctypes.c_void_p]
        pq.PQstatus.argtypes = [ctypes.c_void_p]
        self.pq, self.conn = pq, pq.PQconnectdb(url.encode())
        if pq.PQstatus(self.conn) != 0:
            sys.exit(f"cannot connect to {url}")

    def close(self):
        import ctypes
        self.pq.PQfinish.argtypes = [ctypes.c_void_p]
        self.pq.PQfinish(self.conn)
        self.conn = None

    def query(self, sql):
        r = self.pq.PQexec(self.conn, sql.encode())
        if self.pq.PQresultStatus(r) not in (1, 2):  # PGRES_COMMAND_OK, PGRES_TUPLES_OK
            message = self.pq.PQresultErrorMessage(r).decode()
            self.pq.PQclear(r)
            raise RuntimeError(f"{sql[:80]}: {message}")
        rows = [self.pq.PQgetvalue(r, i, 0).decode() for i in range(self.pq.PQntuples(r))]
        self.pq.PQclear(r)
        return rows

    def wait_notify(self, timeout):
        """True when a notification arrived within `timeout` s (all pending ones are consumed)."""
        import select
        got = False
        deadline = time.monotonic() + timeout
        while True:
            self.pq.PQconsumeInput(self.conn)
            while True:
                n = self.pq.PQnotifies(self.conn)
                if not n:
                    break
                self.pq.PQfreemem(n)
                got = True
            left = deadline - time.monotonic()
            if got or left <= 0:
                return got
            select.select([self.pq.PQsocket(self.conn)], [], [], left)


def quote(text):
    return "'" + text.replace("'", "''") + "'"


def cmd_trigger(a):
    """Write-to-commit latency of triggered runs with a daemon running (docs/triggers.md#what-it-costs):
    a pending gift written into `transactions` (a rename on a data directory, an INSERT on
    PostgreSQL) until its document says `completed`, one at a time, --count times; the same for
    a message until its conversation's `lastMessage` shows it; then --burst gifts from 4
    writers within one second, until all are settled; the daemon's CPU per one-gift run and its
    resident memory when idle, with triggers on and off."""
    users = int(a.users.split(",")[0])
    seed = pristine(a, users)
    pg = Postgres() if a.backend in ("postgres", "both") else None
    try:
        for backend in backends(a):
            trigger_round(a, backend, users, seed, pg)
    finally:
        if pg:
            pg.stop()


def trigger_round(a, backend, users, seed, pg):
    if a.daemons > 1 and backend != "postgres":
        sys.exit("--daemons: only daemons on one PostgreSQL database share a store; use --backend postgres")
    store = Store(a, backend, users, seed, pg, label="_trigger")
    store.load()
    cfg = os.path.join(a.work, f"trigger-{backend}.toml")
    jobs = json.loads(subprocess.run([a.bin, "list", "--data", seed, "--format", "json"], capture_output=True, text=True, check=True, cwd=a.work).stdout)

    # Both jobs' slots are two days ago (as in `idle`): only writes start runs, so neither the
    # latencies nor the idle figures include a scheduled full run.
    day = time.gmtime(time.time() - 2 * 86400)
    far = f"0 12 {day.tm_mday} {day.tm_mon} *"

    def config(triggers, schedule=far):
        with open(cfg, "w") as f:
            if backend == "dir":
                f.write(f'dataDir = "{store.dir}"\n')
            else:
                f.write('[store]\nkind = "postgres"\nurlEnv = "HEARTH_BENCH_STORE"\n')
            for j in jobs:
                if j["job"] in ("gift-settle", "conversation-sync"):
                    f.write(f'[jobs.{j["job"]}]\nschedule = "{schedule}"\ntriggerDelay = "{a.trigger_delay}"\n' + ("" if triggers else "triggers = []\n"))
                else:
                    f.write(f'[jobs.{j["job"]}]\nenabled = false\n')

    env = store.env_for()
    users_ids = sorted(n[:-5] for n in os.listdir(os.path.join(seed, "users")) if n.endswith(".json"))[:200]
    conversations = []
    for n in sorted(os.listdir(os.path.join(seed, "conversations"))):
        c = json.load(open(os.path.join(seed, "conversations", n)))
        if isinstance(c.get("participantIds"), list) and len(c["participantIds"]) >= 2:
            conversations.append((n[:-5], c["participantIds"]))
        if len(conversations) >= 50:
            break

    def gift(i, label):
        giver, taker = users_ids[(2 * i) % len(users_ids)], users_ids[(2 * i + 1) % len(users_ids)]
        return f"{label}-{i:05d}", {"type": "gift", "status": "pending", "fromUserId": giver, "toUserId": taker, "amount": 1,
                                    "message": "bench", "createdAt": iso(time.time())}

    def message(i):
        cid, members = conversations[i % len(conversations)]
        return f"bench-m-{i:05d}", cid, {"conversationId": cid, "senderId": members[0], "content": f"bench message {i}",
                                         "type": "text", "createdAt": iso(time.time()), "readBy": [members[0]]}

    app = LibPQ(pg.url(store.name)) if backend == "postgres" else None
    if app:
        app.query("LISTEN hearth_documents")

    def write(collection, doc_id, obj):
        if app:
            app.query(f"INSERT INTO documents (collection, id, raw, version) VALUES ('{collection}', {quote(doc_id)}, {quote(json.dumps(obj))}, nextval('document_versions'))")
            return
        folder = os.path.join(store.dir, collection)
        tmp = os.path.join(folder, f".bench-{doc_id}")
        with open(tmp, "w") as f:
            json.dump(obj, f)
        os.rename(tmp, os.path.join(folder, doc_id + ".json"))

    def read(collection, doc_id):
        if app:
            rows = app.query(f"SELECT raw FROM documents WHERE collection = '{collection}' AND id = {quote(doc_id)}")
            return json.loads(rows[0]) if rows else None
        try:
            return json.load(open(os.path.join(store.dir, collection, doc_id + ".json")))
        except (OSError, ValueError):
            return None

    def wait_for(collection, doc_id, done, watch, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if app:
                app.wait_notify(0.5)
            else:
                watch.names(0.5)
            d = read(collection, doc_id)
            if d is not None and done(d):
                return time.monotonic()
        raise RuntimeError(f"{collection}/{doc_id} not done within {timeout} s")

    def daemon_cpu(pid):
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    log_path = os.path.join(a.work, f"trigger-{backend}.log")

    def start_daemon(trigger="write"):
        proc = subprocess.Popen([a.bin, "daemon", "--config", cfg], cwd=a.work, env=env, stdout=subprocess.DEVNULL, stderr=open(log_path, "w"))
        # Ready once both jobs' first run is recorded: with triggers, the start-up run (the
        # backstop); without, the slot's.
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            out = subprocess.run([a.bin, "history", "--limit", "50", "--format", "json"] + store.args, capture_output=True, text=True, cwd=a.work, env=env).stdout
            seen = {r["job"] for r in json.loads(out or "[]") if r["trigger"] == trigger}
            if {"gift-settle", "conversation-sync"} <= seen:
                return proc
            if proc.poll() is not None:
                sys.exit(f"the daemon exited ({proc.returncode}); see {log_path}")
            time.sleep(0.5)
        sys.exit(f"the daemon's start-up runs did not finish; see {log_path}")

    def idle_figures(proc, seconds=20):
        # Idle: once the start-up runs' aftermath (the outbox pass over their messages) is
        # over, i.e. a second with under 20 ms of CPU; at most two minutes.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            c = daemon_cpu(proc.pid)
            time.sleep(1)
            if daemon_cpu(proc.pid) - c < 0.02:
                break
        time.sleep(2)
        c0 = daemon_cpu(proc.pid)
        time.sleep(seconds)
        return ((daemon_cpu(proc.pid) - c0) / seconds, proc_status(proc.pid, "VmRSS") / 1024, proc_status(proc.pid, "RssAnon") / 1024,
                proc_status(proc.pid, "RssFile") / 1024)

    # Without triggers, twice on the same data: before any run (nothing runs at start: no
    # trigger, no slot due), then after both jobs have run once at a slot. The first run of
    # either daemon does the seed's one-time work (gift-settle fails its expired pending gifts),
    # so the daemon with triggers starts on a fresh copy and its start-up runs do the same.
    config(False)
    proc = subprocess.Popen([a.bin, "daemon", "--config", cfg], cwd=a.work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(5)
    idle_none = idle_figures(proc)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    slot = time.gmtime(time.time() + 65)  # the next whole minute at least 5 s away, once a year
    config(False, schedule=f"{slot.tm_min} {slot.tm_hour} {slot.tm_mday} {slot.tm_mon} *")
    proc = start_daemon(trigger="schedule")
    idle_off = idle_figures(proc)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)

    if app:  # nobody may be connected to a database copied over
        app.close()
    store.load()
    if app:
        app = LibPQ(pg.url(store.name))
        app.query("LISTEN hearth_documents")
    config(True)
    proc = start_daemon()
    # More daemons on the same database (`--daemons N`, PostgreSQL only), each ready once its
    # start-up runs of both jobs are logged.
    others = []
    for k in range(1, a.daemons):
        other_log = f"{log_path}.{k}"
        others.append(subprocess.Popen([a.bin, "daemon", "--config", cfg], cwd=a.work, env=env, stdout=subprocess.DEVNULL, stderr=open(other_log, "w")))
        deadline = time.monotonic() + 600
        while sum(1 for line in open(other_log) if "run succeeded" in line) < 2:
            if time.monotonic() > deadline or others[-1].poll() is not None:
                sys.exit(f"daemon {k + 1} did not finish its start-up runs; see {other_log}")
            time.sleep(0.5)
    logs = [log_path] + [f"{log_path}.{k}" for k in range(1, a.daemons)]
    watch_t = Inotify(os.path.join(store.dir, "transactions")) if not app else None
    watch_c = Inotify(os.path.join(store.dir, "conversations")) if not app else None
    try:
        idle_on = idle_figures(proc)
        if a.idle_only:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
            print(f"\n{backend}, {users:,} users; daemon exit {code}")
            print(idle_line(idle_none, idle_off, idle_on))
            return
        gift_ms = []
        c0 = daemon_cpu(proc.pid)
        for i in range(a.count):
            doc_id, obj = gift(i, "bench-g")
            write("transactions", doc_id, obj)
            t0 = time.monotonic()
            t1 = wait_for("transactions", doc_id, lambda d: d.get("status") == "completed", watch_t)
            gift_ms.append((t1 - t0) * 1000)
            time.sleep(0.05)  # the run records itself after its commit
        # /proc's CPU times tick every 10 ms: the mean over all the one-gift runs.
        cpu_per_gift = (daemon_cpu(proc.pid) - c0) * 1000 / a.count
        msg_ms = []
        for i in range(a.count):
            doc_id, cid, obj = message(i)
            write("messages", doc_id, obj)
            t0 = time.monotonic()
            t1 = wait_for("conversations", cid, lambda d, text=obj["content"]: d.get("lastMessage") == text, watch_c)
            msg_ms.append((t1 - t0) * 1000)
            time.sleep(0.02)
        history = subprocess.run([a.bin, "history", "gift-settle", "--limit", "5", "--format", "json"] + store.args, capture_output=True, text=True, cwd=a.work, env=env).stdout
        reads = [r["counts"]["documentsRead"] for r in json.loads(history) if r["trigger"] == "write"]

        # The burst: 4 writers, a.burst gifts in all, within about one second.
        def runs_logged():
            return sum(1 for log in logs for line in open(log) if "run succeeded" in line and " job=gift-settle " in line and "trigger=write" in line)
        before = runs_logged()
        ids = []
        per = a.burst // 4
        writers = []
        for w in range(4):
            batch = [gift(w * per + k, f"bench-b{w}") for k in range(per)]
            ids += [d for d, _ in batch]
            path = os.path.join(a.work, f"burst-{w}.json")
            with open(path, "w") as f:
                json.dump(batch, f)
            writers.append(path)
        script = BURST_WRITER
        profiler = None
        if a.perf:  # the daemon's samples during the burst alone
            profiler = subprocess.Popen(["perf", "record", "-g", "-F", "997", "-p", str(proc.pid), "-o", a.perf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        first_write = time.monotonic()
        procs = [subprocess.Popen([sys.executable, "-c", script, backend, store.dir if not app else pg.url(store.name), p]) for p in writers]
        for p in procs:
            p.wait()
        last_write = time.monotonic()
        pending = set(ids)
        while pending and time.monotonic() - last_write < 120:
            pending = {d for d in pending if (read("transactions", d) or {}).get("status") != "completed"}
            if pending:
                time.sleep(0.02)
        settled_after = time.monotonic() - last_write
        if profiler:
            profiler.send_signal(signal.SIGINT)
            profiler.wait(timeout=60)
        time.sleep(0.5)  # the last run's log line follows its commit
        after = runs_logged()
        burst_seconds = last_write - first_write
    finally:
        for p in others:
            p.send_signal(signal.SIGTERM)
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
        for p in others:
            p.wait(timeout=60)
        for w in (watch_t, watch_c):
            if w:
                w.close()

    def pct(values, q):
        values = sorted(values)
        return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]

    print(f"\n{backend}, {users:,} users, {a.daemons} daemon(s), triggerDelay {a.trigger_delay}, load average {load():.1f}; daemon exit {code}")
    print("| measure | p50 | p90 | p99 | max |")
    print("|---|---:|---:|---:|---:|")
    for label, v in (("gift written → completed (ms)", gift_ms), ("message written → conversation summary (ms)", msg_ms)):
        print(f"| {label} | {pct(v, .5):.1f} | {pct(v, .9):.1f} | {pct(v, .99):.1f} | {max(v):.1f} |")
    print(f"daemon CPU per one-gift run (mean over {a.count}): {cpu_per_gift:.1f} ms")
    print(f"documents read by the last one-gift runs: {reads}")
    print(f"burst: {a.burst:,} gifts from 4 writers in {burst_seconds:.2f} s; {len(pending)} not settled; all settled {settled_after:.2f} s after the last write; "
          f"{after - before} gift-settle runs")
    print(idle_line(idle_none, idle_off, idle_on))


def idle_line(none, off, on):
    """The idle figures of `trigger`, each (CPU share, VmRSS, RssAnon, RssFile): triggers off
    before any run and after a slot's runs, triggers on after the start-up runs."""
    def figures(f):
        return f"{f[0] * 100:.2f}% CPU, {f[1]:.1f} MiB resident ({f[2]:.1f} anonymous, {f[3]:.1f} files)"
    return (f"idle daemon, 20 s: triggers off, before any run: {figures(none)}; triggers off, after a slot's runs: {figures(off)}; "
            f"triggers on, after its start-up runs: {figures(on)}; on − off after runs: {on[1] - off[1]:+.1f} MiB")


# One burst writer (a separate process): its gifts, written as fast as it can within one second.
BURST_WRITER = r"""
import json, os, sys, time
backend, target, path = sys.argv[1:4]
batch = json.load(open(path))
gap = 1.0 / max(1, len(batch))
start = time.monotonic()
if backend == "postgres":
    # What is due every 10 ms goes in as one multi-row INSERT (its own transaction, waiting
    # for its WAL flush like any commit): one INSERT per gift holds a session to about 1,000 a
    # second here, a quarter of its share of 10,000 in one second.
    import ctypes, ctypes.util
    pq = ctypes.CDLL(ctypes.util.find_library("pq") or "libpq.so.5")
    pq.PQconnectdb.restype = ctypes.c_void_p
    pq.PQexec.restype = ctypes.c_void_p
    pq.PQexec.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    pq.PQclear.argtypes = [ctypes.c_void_p]
    conn = pq.PQconnectdb(target.encode())
    k = 0
    while k < len(batch):
        due = max(k + 1, min(len(batch), int((time.monotonic() - start) / gap) + 1))
        rows = ", ".join(f"('transactions', '{doc_id}', '{json.dumps(obj).replace(chr(39), chr(39) * 2)}', nextval('document_versions'))" for doc_id, obj in batch[k:due])
        pq.PQclear(pq.PQexec(conn, f"INSERT INTO documents (collection, id, raw, version) VALUES {rows}".encode()))
        k = due
        wait = start + k * gap - time.monotonic()
        time.sleep(max(wait, 0.01))
    sys.exit(0)
for k, (doc_id, obj) in enumerate(batch):
    tmp = os.path.join(target, "transactions", "." + doc_id)
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.rename(tmp, os.path.join(target, "transactions", doc_id + ".json"))
    wait = start + (k + 1) * gap - time.monotonic()
    if wait > 0:
        time.sleep(wait)
"""


def main():
    argv = sys.argv[1:]
    job = None
    if argv and not argv[0].startswith("-") and argv[0] not in JOB_COMMANDS:
        job, argv = argv[0], ["jobs"] + argv[1:]
    elif not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["jobs"] + argv  # `scripts/bench.py --backend both`: every job
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)

    def common(p, backend=True, users="10000"):
        p.add_argument("--bin", default=os.path.join(ROOT, ".build/release/hearth"), help="the hearth binary")
        p.add_argument("--bench-bin", dest="bench_bin", default="", help="hearth-bench (default: beside --bin)")
        p.add_argument("--work", default=os.path.join(ROOT, ".bench-data"), help="seeds and run copies")
        p.add_argument("--users", default=users, help="comma-separated sizes")
        p.add_argument("--busy", action="store_true", help="issue 18's workload on top of the seed")
        if backend:
            p.add_argument("--backend", default="dir", choices=["dir", "postgres", "both"])
        return p

    p = common(sub.add_parser("jobs", help="every job (or JOB): dry, first and steady beside its read floor"), users="10000,100000")
    p.add_argument("--jobs", default="", help="only these (comma-separated)")
    p.add_argument("--rounds", type=int, default=1, help="fresh data and every mode, this many times (medians)")
    p.add_argument("--fresh", action="store_true", help="fresh data before every job (default: the jobs run in turn on the same data)")
    p.add_argument("--modes", default="dry,first,steady", help="which runs (dry alone needs no copy of the seed; without first, the rounds repeat on the same data, each job run once unmeasured before them)")
    p = common(sub.add_parser("import", help="`hearth data import` of the seed into a fresh database"), backend=False, users="10000,100000")
    p.add_argument("--cold", action="store_true", help="drop the page cache first (root only): the seed's files read from the disk")
    p = common(sub.add_parser("feed-cost", help="the change feed's triggers on PostgreSQL: import and big commits, on and off"), backend=False)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--jobs", default="leaderboard-rebuild,streak-reset", help="jobs whose first run is timed (comma-separated)")
    p = sub.add_parser("feed-sql", help="the change feed's triggers in SQL: COPY and upserts, on and off")
    p.add_argument("--rows", type=int, default=100000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--bin", default=os.path.join(ROOT, ".build/release/hearth"), help="the hearth binary (for `hearth migrate`)")
    p = common(sub.add_parser("outbox", help="gift-settle --no-deliver, then outbox deliver"))
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--rebuild", action="store_true", help="also a leaderboard-rebuild on fresh data (settlement against one rebuild)")
    p = common(sub.add_parser("floors", help="a job's real run against its floors, binaries interleaved"), backend=False)
    p.add_argument("--job", required=True)
    p.add_argument("--variant", "--binary", action="append", required=True, metavar="NAME=PATH")
    p.add_argument("--first", action="store_true", help="first runs on fresh copies, against read + write floor")
    p.add_argument("--rounds", type=int, default=5)
    p = sub.add_parser("ab", help="one hearth command with several binaries, interleaved")
    p.add_argument("--variant", "--binary", action="append", required=True, metavar="NAME=PATH")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--setup", help="shell command run (untimed) before every run")
    p.add_argument("args", nargs=argparse.REMAINDER)
    p = common(sub.add_parser("push", help="N FCM pushes through the outbox"), backend=False)
    p.add_argument("--count", type=int, default=50000)
    p = sub.add_parser("idle", help="idle daemons: CPU, wake-ups, memory")
    p.add_argument("--variant", "--binary", action="append", default=[], metavar="PATH")
    p.add_argument("--duration", type=int, default=60)
    p.add_argument("--server", action="store_true", help="with [server] listen on 127.0.0.1")
    p.add_argument("--sections", action="store_true", help="also the resident KB of each ELF section (stderr)")
    p = common(sub.add_parser("functions", help="a command job beside its compiled-in twin"), backend=False)
    p.add_argument("--gigs", type=int, default=100000)
    p.add_argument("--reps", type=int, default=3)
    p = common(sub.add_parser("gigs", help="gig-quality-score over generated gigs"), backend=False)
    p.add_argument("--gigs", type=int, default=10000)
    p = common(sub.add_parser("trigger", help="write-to-commit latency of triggered runs, a burst, idle cost"), users="100000")
    p.add_argument("--count", type=int, default=200, help="gifts (and messages) written one at a time")
    p.add_argument("--burst", type=int, default=10000, help="gifts written by 4 writers within one second")
    p.add_argument("--perf", default="", help="record the daemon with `perf record -g` during the burst into this file")
    p.add_argument("--idle-only", dest="idle_only", action="store_true", help="only the idle figures, triggers off and on")
    p.add_argument("--trigger-delay", dest="trigger_delay", default="20ms", help="triggerDelay of both jobs")
    p.add_argument("--daemons", type=int, default=1, help="daemons sharing the database (PostgreSQL only); the one-gift CPU figure is the first's")
    p = sub.add_parser("commit-model", help="a big commit's file work, modelled in C")
    p.add_argument("root")
    p.add_argument("list")
    p.add_argument("mode", type=int)
    p.add_argument("split", type=int)
    a = ap.parse_args(argv)
    if hasattr(a, "work"):
        a.work = os.path.abspath(a.work)
    if a.command == "jobs":
        a.modes = [m for m in MODES if m in a.modes.split(",")]
        if job and a.users == "10000,100000" and "--users" not in argv:
            a.users = "10000"
        cmd_jobs(a, only=job)
    else:
        {"import": cmd_import, "feed-cost": cmd_feed_cost, "feed-sql": cmd_feed_sql, "outbox": cmd_outbox, "floors": cmd_floors, "ab": cmd_ab, "push": cmd_push, "idle": cmd_idle,
         "functions": cmd_functions, "gigs": cmd_gigs, "commit-model": cmd_commit_model, "trigger": cmd_trigger}[a.command](a)


if __name__ == "__main__":
    main()
