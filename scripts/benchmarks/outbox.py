"""`outbox`: per round and backend, on fresh data, `run gift-settle --no-deliver` (the
settlement), then `outbox deliver` (no provider configured: pushes are dropped as the deliverer
drops them); with --rebuild also `run leaderboard-rebuild` on fresh data, to compare the
settlement with one rebuild of the same users."""
import collections

from . import postgres
from .common import NOW, backends, bins, data_options, interleaved, last_line, load, log, median_range
from .data import first_seed
from .store import Store


def options(p):
    data_options(p)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--rebuild", action="store_true", help="also a leaderboard-rebuild on fresh data (settlement against one rebuild)")


def run(a):
    bins(a)
    users, seed = first_seed(a)
    figures = collections.defaultdict(list)
    with postgres.server(a.backend in ("postgres", "both")) as pg:
        stores = {b: Store(a, b, users, seed, pg) for b in backends(a)}
        for r in range(a.rounds):
            for b in interleaved(stores, r):
                measure(a, stores[b], b, r, figures)
    print(f"`scripts/bench.py outbox --backend {a.backend} --users {users}{' --busy' if a.busy else ''} --rounds {a.rounds}{' --rebuild' if a.rebuild else ''}`; load average {load():.1f}\n")
    print("| backend | step | wall (s) | CPU (s) | peak RSS (MiB) |")
    print("|---|---|---:|---:|---:|")
    for (b, step), xs in figures.items():
        print(f"| {b} | {step} | {median_range([x[0] for x in xs])} | {median_range([x[1] for x in xs])} | {median_range([x[2] for x in xs], 0)} |")


def measure(a, s, b, r, figures):
    s.load()
    s.hearth("plan", "leaderboard-rebuild", "--now", NOW, "--log-level", "error")  # the same pages cached for all three
    w, c, m, out = s.timed("run", "gift-settle", "--no-deliver", "--now", NOW, "--log-level", "error")
    figures[(b, "settle")].append((w, c, m))
    w, c, m, out = s.timed("outbox", "deliver", "--log-level", "error", ok=(0,))
    figures[(b, "deliver")].append((w, c, m))
    log(f"round {r + 1} {b}: outbox deliver {w:.2f} s: {last_line(out)}")
    if a.rebuild:
        s.load()
        w, c, m, _ = s.timed("run", "leaderboard-rebuild", "--now", NOW, "--log-level", "error")
        figures[(b, "rebuild")].append((w, c, m))
