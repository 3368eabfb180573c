"""The command line: the one list of commands, argparse built from it, and the dispatch."""
import argparse
import os
import sys

from . import ab, calls, commit_model, data_import, feed_cost, feed_sql, floors, functions, gigs, idle, jobs, outbox, push, trigger

DESCRIPTION = """\
Hearth's benchmarks (docs/performance.md). Release binaries first:
`swift build -c release --product hearth && swift build -c release --product hearth-bench`.

    scripts/bench.py COMMAND [options]    (COMMAND --help: its options)
    scripts/bench.py JOB [jobs options]   (`jobs` for one job, e.g. streak-reset; 10,000 users unless --users)
    scripts/bench.py [jobs options]       (`jobs`: every job)

Data: `hearth seed --users N --seed 7` into WORK/seed-N (default WORK=.bench-data), seeded once
and never written; every measurement runs on a copy (`cp -al`: the committer replaces files by
rename, so the pristine seed is never changed) or, on PostgreSQL, on a database imported from
it. `--busy` adds the busy workload to the seed (50,000 pending gifts, 100,000 reports over
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

# Every command: its name, its module (options(parser) and run(args); its docstring is the
# command's --help), and a line for the list of commands.
COMMANDS = [
    ("jobs", jobs, "every job (or those named, or JOB): dry (`plan`), first real run, steady run, beside its read floor; a table per backend and size"),
    ("import", data_import, "`hearth data import` of the seed into a fresh PostgreSQL database"),
    ("feed-cost", feed_cost, "what the PostgreSQL change feed's trigger costs an import and a big commit, on and off"),
    ("feed-sql", feed_sql, "the same in SQL alone: a COPY and upserts, on and off"),
    ("outbox", outbox, "`outbox deliver` after `run gift-settle --no-deliver`, fresh data per round (--rebuild: also a leaderboard-rebuild)"),
    ("floors", floors, "a job's real run against its read (and write) floor, several binaries interleaved"),
    ("ab", ab, "any hearth command with several binaries, interleaved"),
    ("push", push, "N FCM pushes through the outbox, nghttpd as FCM"),
    ("idle", idle, "idle daemons: CPU, wake-ups, VmRSS, PSS (--sections: resident KB per ELF section)"),
    ("functions", functions, "a command job beside its compiled-in twin"),
    ("gigs", gigs, "gig-quality-score over generated gigs"),
    ("commit-model", commit_model, "a big commit's file work alone, modelled in C"),
    ("calls", calls, "callable functions through a daemon's endpoint: send-gift and award-xp latency p50/p90/p99 and calls/s, by answer, at each concurrency"),
    ("trigger", trigger, "triggered runs with a daemon running: write to commit (p50/p99), a burst from 4 writers, CPU per run, idle memory"),
]


def parser():
    ap = argparse.ArgumentParser(prog="scripts/bench.py", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module, summary in COMMANDS:
        p = sub.add_parser(name, help=summary, description=module.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
        module.options(p)
        p.set_defaults(run=module.run)
    return ap


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    only = None
    if argv and not argv[0].startswith("-") and argv[0] not in {name for name, _, _ in COMMANDS}:
        only, argv = argv[0], ["jobs"] + argv[1:]  # `scripts/bench.py streak-reset …`: one job
    elif not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["jobs"] + argv  # `scripts/bench.py --backend both`: every job
    a = parser().parse_args(argv)
    a.only = only
    if hasattr(a, "work"):
        a.work = os.path.abspath(a.work)
    a.run(a)
