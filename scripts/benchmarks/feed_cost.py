"""`feed-cost`: what the change feed's triggers (migration 4, docs/triggers.md) add on
PostgreSQL: per round, with the triggers on and off (`ALTER TABLE documents DISABLE TRIGGER
USER`; the order alternates), a fresh database, `hearth migrate`, a timed `hearth data import`
of the seed, then each job's first real run on that database (a big commit). Medians (range)."""
import collections
import os

from . import postgres
from .common import NOW, bins, data_options, interleaved, last_line, load, log, median_range, timed
from .data import first_seed


def options(p):
    data_options(p, backend=False)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--jobs", default="leaderboard-rebuild,streak-reset", help="jobs whose first run is timed (comma-separated)")


def run(a):
    bins(a)
    users, seed = first_seed(a)
    jobs = [j for j in a.jobs.split(",") if j]
    figures = collections.defaultdict(list)
    with postgres.server() as pg:
        config = postgres.write_config(os.path.join(a.work, f"pg-feed-{users}.toml"))
        for r in range(a.rounds):
            for state in interleaved(("on", "off"), r):
                for step in ["import"] + jobs:
                    # A fresh import before each job: every job's run is its first.
                    figures[(step, state)].append(measure(a, pg, config, seed, users, state, step, r))
    print(f"`scripts/bench.py feed-cost --users {users} --rounds {a.rounds}{' --jobs ' + a.jobs if jobs else ''}`; load average {load():.1f}\n")
    print("| step | triggers | wall (s) | hearth's CPU (s) | hearth's peak RSS (MiB) |")
    print("|---|---|---:|---:|---:|")
    for step in ["import"] + jobs:
        for state in ("off", "on"):
            rows = figures[(step, state)]
            label = "`data import`" if step == "import" else f"`run {step}` (first)"
            print(f"| {label} | {state} | {median_range([x[0] for x in rows])} | {median_range([x[1] for x in rows])} | {median_range([x[2] for x in rows], 0)} |")


def measure(a, pg, config, seed, users, state, step, r):
    """A fresh database with the triggers `state`, the seed imported: the import's figures
    (wall, CPU, RSS) when `step` is "import", else those of the job's first run."""
    name = f"hearth_feed_{users}_{state}"
    env = postgres.store_env(pg.database(name))
    postgres.migrate(a.bin, config, env, cwd=a.work)
    if state == "off":
        postgres.psql(pg.url(name), "ALTER TABLE documents DISABLE TRIGGER USER")
    os.sync()
    w, c, m, _ = timed([a.bin, "data", "import", seed, "--config", config], env=env, ok=(0,), cwd=a.work)
    if step == "import":
        log(f"round {r + 1}, triggers {state}: data import {w:.2f} s")
        return w, c, m
    postgres.psql(pg.url(name), "VACUUM ANALYZE documents")
    os.sync()
    w, c, m, out = timed([a.bin, "run", step, "--no-deliver", "--now", NOW, "--log-level", "error", "--config", config], env=env, cwd=a.work)
    log(f"round {r + 1}, triggers {state}: run {step} {w:.2f} s: {last_line(out)}")
    return w, c, m
